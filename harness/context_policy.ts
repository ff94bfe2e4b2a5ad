/**
 * The context policy of a run: when the prompt is compacted, and how. A
 * compaction is a step of its own kind (see compaction.ts): it is not a turn
 * (`maxTurns` counts the model's answers only), but a summary is a billed
 * model call, counted against the budget like any other.
 *
 * @module
 */
import type { Model } from "./model.ts";
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
  windowTokens?: number;
  /**
   * When to compact: a share of the window in (0, 1] (default 0.83), or a
   * token count (`{ tokens: 2000 }`).
   */
  trigger?: number | { tokens: number };
  /** Most recent turns kept verbatim (a turn: a model reply and its tool results). Default 4. */
  keepTurns?: number;
  /** Strategies, cheapest first. Default `["elide", "summarize"]`. */
  strategies?: readonly ContextStrategy[];
  /** The model that writes summaries (e.g. a cheaper one). Default: the run's model. */
  summaryModel?: Model;
  /** Reply cap of a summary, in tokens. Default 1,024. */
  summaryMaxTokens?: number;
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

function positiveInt(name: string, value: unknown): void {
  if (!(typeof value === "number" && Number.isInteger(value) && value >= 1)) {
    throw new RangeError(`context.${name} must be a positive integer, got ${value}`);
  }
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
  if (policy.windowTokens !== undefined) positiveInt("windowTokens", policy.windowTokens);
  if (policy.keepTurns !== undefined) positiveInt("keepTurns", policy.keepTurns);
  if (policy.summaryMaxTokens !== undefined) {
    positiveInt("summaryMaxTokens", policy.summaryMaxTokens);
  }
  const t = policy.trigger;
  if (typeof t === "number") {
    if (!(t > 0 && t <= 1)) throw new RangeError(`context.trigger must be in (0, 1], got ${t}`);
  } else if (t !== undefined) positiveInt("trigger.tokens", t?.tokens);
  const s = policy.strategies;
  if (
    s !== undefined &&
    (!Array.isArray(s) || s.length === 0 || s.some((x) => x !== "elide" && x !== "summarize"))
  ) {
    throw new RangeError(`context.strategies must list "elide" and/or "summarize", got ${s}`);
  }
  if (policy.summaryModel !== undefined && typeof policy.summaryModel?.complete !== "function") {
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
