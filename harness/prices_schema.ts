/**
 * The one schema of {@link Prices} and of a {@link PriceTable}, for the
 * config file and a run's stored settings. Kept apart from cost.ts, which
 * every run loads: `run()` checks the prices it is given by hand, so a run
 * never builds these schemas.
 *
 * @module
 */
import { z } from "zod";
import type { Prices, PriceTable } from "./cost.ts";

const NON_NEG_NUM = "expected a non-negative number";
const OBJECT = "expected an object";
const nonNegNum = z.number({ error: NON_NEG_NUM }).min(0, { error: NON_NEG_NUM });

/**
 * The one schema of {@link Prices}, for the config file and a run's stored
 * settings.
 *
 * @example
 * ```ts
 * import { PricesSchema } from "./prices_schema.ts";
 * console.log(PricesSchema.safeParse({ inputPerMillion: 2, outputPerMillion: 12 }).success); // true
 * ```
 */
export const PricesSchema: z.ZodType<Prices> = z.strictObject({
  inputPerMillion: nonNegNum,
  outputPerMillion: nonNegNum,
  maxOutputTokens: z.int().min(1).optional(),
  contextTokens: z.int().min(1).optional(),
  cachedInputPerMillion: nonNegNum.optional(),
  cacheWritePerMillion: nonNegNum.optional(),
}, { error: OBJECT });

/**
 * The one schema of {@link PriceTable}.
 *
 * @example
 * ```ts
 * import { PriceTableSchema } from "./prices_schema.ts";
 * const table = { default: { inputPerMillion: 2, outputPerMillion: 12 } };
 * console.log(PriceTableSchema.safeParse(table).success); // true
 * ```
 */
export const PriceTableSchema: z.ZodType<PriceTable> = z.strictObject({
  default: PricesSchema,
  models: z.record(z.string(), PricesSchema, { error: OBJECT }).optional(),
}, { error: OBJECT });

/**
 * The schema that applies to a `prices` value: the table's when it has
 * `default` or `models`, else the flat one (clearer messages than a union's).
 *
 * @example
 * ```ts
 * import { pricesSchemaOf } from "./prices_schema.ts";
 * console.log(pricesSchemaOf({ inputPerMillion: -1 }).safeParse({ inputPerMillion: -1 }).success); // false
 * ```
 */
export function pricesSchemaOf(value: unknown): z.ZodType<Prices | PriceTable> {
  const isTable = typeof value === "object" && value !== null &&
    ("default" in value || "models" in value);
  return isTable ? PriceTableSchema : PricesSchema;
}
