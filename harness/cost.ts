/**
 * Money is arithmetic over real token counts at stated prices.
 *
 * @module
 */
import { z } from "zod";
import type { CallUsage } from "./messages.ts";
import { issueLine, NON_NEGATIVE_NUMBER, objectError } from "./schema_issue.ts";

/** USD per million tokens. */
export interface Prices {
  /** USD per million prompt (input) tokens. */
  inputPerMillion: number;
  /** USD per million completion (output) tokens. */
  outputPerMillion: number;
  /**
   * The most reply tokens the model may be asked for (`max_tokens`); endpoints
   * refuse more (default {@link DEFAULT_MAX_OUTPUT_TOKENS}).
   */
  maxOutputTokens?: number | undefined;
  /**
   * The model's context window in tokens (a context policy compacts against
   * it unless the policy gives its own `windowTokens`).
   */
  contextTokens?: number | undefined;
  /** USD per million prompt tokens read from the prompt cache. Default `inputPerMillion`. */
  cachedInputPerMillion?: number | undefined;
  /** USD per million prompt tokens written to the prompt cache. Default `inputPerMillion`. */
  cacheWritePerMillion?: number | undefined;
}

/** The default cap on `max_tokens`: OpenAI-style endpoints answer 400 above it for many models. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 16_384;

/** The default prices: $2.00 per million input tokens, $12.00 per million output tokens. */
export const DEFAULT_PRICES: Readonly<Prices> = Object.freeze({
  inputPerMillion: 2.0,
  outputPerMillion: 12.0,
});

/** Prices per model name, with a fallback for names not listed. */
export interface PriceTable {
  /** Prices for any model not named in `models`. */
  default: Prices;
  /** Prices by exact model name; these override `default`. */
  models?: Record<string, Prices> | undefined;
}

const POS_INT = "expected a positive integer";

let schemas: { prices: z.ZodType<Prices>; table: z.ZodType<PriceTable> } | undefined;

/** Both schemas, built on first use: a run given no prices (most) never needs them. */
function priceSchemas(): { prices: z.ZodType<Prices>; table: z.ZodType<PriceTable> } {
  if (schemas) return schemas;
  const nonNegNum = z.number({ error: NON_NEGATIVE_NUMBER }).min(0, { error: NON_NEGATIVE_NUMBER });
  const posInt = z.int({ error: POS_INT }).min(1, { error: POS_INT });
  const prices = z.strictObject({
    inputPerMillion: nonNegNum,
    outputPerMillion: nonNegNum,
    maxOutputTokens: posInt.optional(),
    contextTokens: posInt.optional(),
    cachedInputPerMillion: nonNegNum.optional(),
    cacheWritePerMillion: nonNegNum.optional(),
  }, { error: objectError });
  const table = z.strictObject({
    default: prices,
    models: z.record(z.string(), prices, { error: objectError }).optional(),
  }, { error: objectError });
  return schemas = { prices, table };
}

/**
 * The one schema of {@link Prices}, for `run()`, the config file and a run's
 * stored settings (built on first use).
 *
 * @example
 * ```ts
 * import { pricesSchema } from "./cost.ts";
 * console.log(pricesSchema().safeParse({ inputPerMillion: 2, outputPerMillion: 12 }).success); // true
 * ```
 */
export function pricesSchema(): z.ZodType<Prices> {
  return priceSchemas().prices;
}

/**
 * The one schema of {@link PriceTable} (built on first use).
 *
 * @example
 * ```ts
 * import { priceTableSchema } from "./cost.ts";
 * const table = { default: { inputPerMillion: 2, outputPerMillion: 12 } };
 * console.log(priceTableSchema().safeParse(table).success); // true
 * ```
 */
export function priceTableSchema(): z.ZodType<PriceTable> {
  return priceSchemas().table;
}

/**
 * The schema that applies to a `prices` value: the table's when it has
 * `default` or `models`, else the flat one (clearer messages than a union's).
 *
 * @example
 * ```ts
 * import { pricesSchemaOf } from "./cost.ts";
 * console.log(pricesSchemaOf({ inputPerMillion: -1 }).safeParse({ inputPerMillion: -1 }).success); // false
 * ```
 */
export function pricesSchemaOf(value: unknown): z.ZodType<Prices | PriceTable> {
  const isTable = typeof value === "object" && value !== null &&
    ("default" in value || "models" in value);
  return isTable ? priceTableSchema() : pricesSchema();
}

/**
 * The cost in USD of a call (or a run) with these token counts. Prompt tokens
 * the usage reports as cache reads or writes are priced at the cached-input and
 * cache-write rates when the prices set them (else at the input rate).
 *
 * @example
 * ```ts
 * import { computeCost } from "./cost.ts";
 * console.log(computeCost({ prompt_tokens: 815, completion_tokens: 70 })); // 0.00247
 * const prices = { inputPerMillion: 2, outputPerMillion: 12, cachedInputPerMillion: 0.5 };
 * computeCost({ prompt_tokens: 1000, completion_tokens: 0, cached_prompt_tokens: 800 }, prices);
 * // 0.0008: 200 at $2/M plus 800 at $0.50/M
 * ```
 */
export function computeCost(usage: CallUsage, prices: Prices = DEFAULT_PRICES): number {
  // Clamped so a provider reporting more cached than prompt tokens cannot make a cost negative.
  const read = Math.min(Math.max(0, usage.cached_prompt_tokens ?? 0), usage.prompt_tokens);
  const write = Math.min(Math.max(0, usage.cache_write_tokens ?? 0), usage.prompt_tokens - read);
  const fresh = usage.prompt_tokens - read - write;
  return roundUsd(
    (fresh * prices.inputPerMillion +
      read * (prices.cachedInputPerMillion ?? prices.inputPerMillion) +
      write * (prices.cacheWritePerMillion ?? prices.inputPerMillion) +
      usage.completion_tokens * prices.outputPerMillion) / 1e6,
  );
}

/**
 * Adds USD amounts without float drift (0.1 + 0.2 is 0.3): every running
 * total of money goes through this, so stored and reported figures stay clean
 * decimals (to the nano-dollar).
 *
 * @example
 * ```ts
 * import { addUsd } from "./cost.ts";
 * console.log(addUsd(0.005548, 0.000000000000000001)); // 0.005548
 * ```
 */
export function addUsd(a: number, b: number): number {
  return roundUsd(a + b);
}

/**
 * Throws a `RangeError` naming the field unless `table` passes its schema
 * ({@link pricesSchemaOf}): every price a finite, non-negative number (a NaN
 * or negative price would silently disable the budget), no unknown key.
 *
 * @example
 * ```ts
 * import { checkPrices } from "./cost.ts";
 * checkPrices({ inputPerMillion: 2, outputPerMillion: 12 }); // fine
 * try {
 *   checkPrices({ inputPerMillion: -1, outputPerMillion: 12 });
 * } catch (e) {
 *   console.log((e as Error).message); // prices.inputPerMillion: expected a non-negative number, got -1
 * }
 * ```
 */
export function checkPrices(table: PriceTable | Prices | undefined, name = "prices"): void {
  if (table === undefined) return;
  const issue = pricesSchemaOf(table).safeParse(table).error?.issues[0];
  if (issue) throw new RangeError(issueLine(issue, name, table));
}

/**
 * The prices that apply to a model name.
 *
 * @example
 * ```ts
 * import { pricesFor } from "./cost.ts";
 * pricesFor({ default: { inputPerMillion: 2, outputPerMillion: 12 } }, "gpt-x");
 * ```
 */
export function pricesFor(table: PriceTable | Prices | undefined, model: string): Prices {
  if (!table) return DEFAULT_PRICES;
  if ("inputPerMillion" in table) return table;
  return table.models?.[model] ?? table.default;
}

/**
 * Rounds a USD amount to micro-dollars for display and comparison without float noise.
 *
 * @example
 * ```ts
 * import { roundUsd } from "./cost.ts";
 * console.log(roundUsd(0.1 + 0.2)); // 0.3
 * ```
 */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
