/**
 * The context policy of a run: when the prompt is compacted, and how. A
 * compaction is a step of its own kind (see compaction.ts): it is not a turn
 * (`maxTurns` counts the model's answers only), but a summary is a billed
 * model call, counted against the budget like any other.
 *
 * @module
 */
import type { Model } from "./model.ts";
import { z } from "zod";
import { type Prices, pricesFor, type PriceTable } from "./cost.ts";

/** A way to make the prompt smaller, cheapest first. */
export type ContextStrategy =
  /** Old tool results become a short stub in the prompt (the record keeps them). Free. */
  | "elide"
  /** Older turns are summarized by a model call; the summary replaces them in the prompt. */
  | "summarize";

/**
 * When and how a run compacts its prompt. Every field is optional; `{}` turns
 * compaction on with the defaults.
 *
 * Before each model call, the prompt (as the model would see it, counted with
 * o200k_base) is compared with the trigger. Over it, the strategies run in
 * order: `elide` alone is enough when it brings the prompt down to
 * {@link ELIDE_TARGET} of the trigger; otherwise `summarize` replaces every
 * turn but the last `keepTurns` with a summary. A compaction does not count
 * under `maxTurns`; its cost counts under the budget.
 */
export interface ContextPolicy {
  /**
   * The model's context window in tokens. Default: the prices' `contextTokens`
   * for the model, else {@link DEFAULT_WINDOW_TOKENS}.
   */
  windowTokens?: number | undefined;
  /**
   * When to compact: a share of the window in (0, 1] (default 0.83), or a
   * token count (`{ tokens: 2000 }`).
   */
  trigger?: number | { tokens: number } | undefined;
  /** Most recent turns kept verbatim (a turn: a model reply and its tool results). Default 4. */
  keepTurns?: number | undefined;
  /** Strategies, cheapest first. Default `["elide", "summarize"]`. */
  strategies?: readonly ContextStrategy[] | undefined;
  /** The model that writes summaries (e.g. a cheaper one). Default: the run's model. */
  summaryModel?: Model | undefined;
  /** Reply cap of a summary, in tokens. Default 1,024. */
  summaryMaxTokens?: number | undefined;
}

/** The window assumed when neither the policy nor the prices give one. */
export const DEFAULT_WINDOW_TOKENS = 128_000;
/** The default trigger: 83% of the window (where Claude Code compacts). */
export const DEFAULT_TRIGGER_SHARE = 0.83;
/** Elision alone is enough when it brings the prompt to this share of the trigger. */
export const ELIDE_TARGET = 0.6;

/** A policy with every default filled in and the trigger in tokens. */
export interface ResolvedContextPolicy {
  /** The model's context window in tokens. */
  windowTokens: number;
  /** Compact before a call whose prompt is over this many tokens. */
  triggerTokens: number;
  /** Most recent turns kept verbatim. */
  keepTurns: number;
  /** Strategies in order. */
  strategies: readonly ContextStrategy[];
  /** The model that writes summaries. */
  summaryModel: Model;
  /** Prices of the summary model. */
  summaryPrices: Prices;
  /** Reply cap of a summary. */
  summaryMaxTokens: number;
}

let policySchema: ReturnType<typeof contextPolicySchema> | undefined;

/**
 * The one schema of a {@link ContextPolicy}'s plain-data fields (all but
 * `summaryModel`, a `Model`): `run()` checks a policy with it, and the run
 * settings of the CLI, the config file and the HTTP API extend it. Built on
 * first use: a run without a policy never needs it.
 *
 * @example
 * ```ts
 * import { contextPolicySchema } from "./context_policy.ts";
 * console.log(contextPolicySchema().safeParse({ trigger: { tokens: 2000 } }).success); // true
 * ```
 */
export function contextPolicySchema(): z.ZodObject<{
  windowTokens: z.ZodOptional<z.ZodInt>;
  trigger: z.ZodOptional<
    z.ZodUnion<readonly [z.ZodNumber, z.ZodObject<{ tokens: z.ZodInt }, z.core.$strict>]>
  >;
  keepTurns: z.ZodOptional<z.ZodInt>;
  strategies: z.ZodOptional<z.ZodArray<z.ZodEnum<{ elide: "elide"; summarize: "summarize" }>>>;
  summaryMaxTokens: z.ZodOptional<z.ZodInt>;
}, z.core.$strict> {
  return policySchema ??= z.strictObject({
    windowTokens: z.int().min(1).optional().describe(
      "The model's context window in tokens (default: its prices' contextTokens, else 128,000)",
    ),
    trigger: z.union([
      z.number().gt(0).max(1),
      z.strictObject({ tokens: z.int().min(1) }),
    ]).optional().describe("Compact over this share of the window (default 0.83), or { tokens }"),
    keepTurns: z.int().min(1).optional().describe("Recent turns kept verbatim (default 4)"),
    strategies: z.array(z.enum(["elide", "summarize"])).min(1).optional().describe(
      "Cheapest first (default elide, then summarize)",
    ),
    summaryMaxTokens: z.int().min(1).optional().describe(
      "Reply cap of a summary (default 1,024)",
    ),
  });
}

/** A {@link ContextPolicy} as plain data (a request, a config file): the summary model by name. */
export interface ContextSettings {
  /** The model's context window in tokens. */
  windowTokens?: number | undefined;
  /** A share of the window in (0, 1], or a token count. */
  trigger?: number | { tokens: number } | undefined;
  /** Most recent turns kept verbatim. */
  keepTurns?: number | undefined;
  /** Strategies, cheapest first. */
  strategies?: ContextStrategy[] | undefined;
  /** Reply cap of a summary, in tokens. */
  summaryMaxTokens?: number | undefined;
  /** The model that writes summaries, by name (default: the run's model). */
  summaryModel?: string | undefined;
}

let settingsSchema: ReturnType<typeof contextSettingsSchema> | undefined;

/**
 * The one schema of {@link ContextSettings}: {@link contextPolicySchema} and
 * the summary model by name (built on first use, like it).
 *
 * @example
 * ```ts
 * import { contextSettingsSchema } from "./context_policy.ts";
 * console.log(contextSettingsSchema().safeParse({ summaryModel: "mini" }).success); // true
 * ```
 */
export function contextSettingsSchema(): z.ZodObject<
  ReturnType<typeof contextPolicySchema>["shape"] & { summaryModel: z.ZodOptional<z.ZodString> },
  z.core.$strict
> {
  return settingsSchema ??= contextPolicySchema().extend({
    summaryModel: z.string().min(1).max(200).optional().describe(
      "The model that writes summaries, by name (default: the run's model)",
    ),
  });
}

/**
 * Throws a `RangeError` naming the field unless `policy` is a valid {@link ContextPolicy}.
 *
 * @example
 * ```ts
 * import { checkContextPolicy } from "./context_policy.ts";
 * checkContextPolicy({ trigger: { tokens: 2000 }, keepTurns: 2 }); // fine
 * ```
 */
export function checkContextPolicy(policy: ContextPolicy): void {
  if (typeof policy !== "object" || policy === null) {
    throw new RangeError(`context must be an object, got ${policy}`);
  }
  const { summaryModel, ...data } = policy;
  const parsed = contextPolicySchema().safeParse(data);
  if (!parsed.success) {
    // zod reports at least one issue on a failure; the fallback is for the type only.
    const issue = parsed.error.issues[0] ?? { path: [], message: parsed.error.message };
    const path = ["context", ...issue.path.map(String)].join(".");
    throw new RangeError(`${path}: ${issue.message}`);
  }
  if (summaryModel !== undefined && typeof summaryModel?.complete !== "function") {
    throw new RangeError("context.summaryModel must be a Model");
  }
}

/**
 * The policy with its defaults, the trigger in tokens, for a run's model and prices.
 *
 * @example
 * ```ts
 * import { resolveContextPolicy } from "./context_policy.ts";
 * const model = { name: "m", complete: () => Promise.reject(new Error("unused")) };
 * console.log(resolveContextPolicy({ trigger: 0.5 }, model).triggerTokens); // 64000
 * ```
 */
export function resolveContextPolicy(
  policy: ContextPolicy,
  model: Model,
  prices?: Prices | PriceTable,
): ResolvedContextPolicy {
  checkContextPolicy(policy);
  const own = pricesFor(prices ?? model.prices, model.name);
  const windowTokens = policy.windowTokens ?? own.contextTokens ?? DEFAULT_WINDOW_TOKENS;
  const t = policy.trigger ?? DEFAULT_TRIGGER_SHARE;
  const summaryModel = policy.summaryModel ?? model;
  return {
    windowTokens,
    triggerTokens: typeof t === "number" ? Math.floor(windowTokens * t) : t.tokens,
    keepTurns: policy.keepTurns ?? 4,
    strategies: policy.strategies ?? ["elide", "summarize"],
    summaryModel,
    summaryPrices: pricesFor(prices ?? summaryModel.prices, summaryModel.name),
    summaryMaxTokens: policy.summaryMaxTokens ?? 1024,
  };
}
