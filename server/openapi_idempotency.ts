/**
 * The OpenAPI parts of `Idempotency-Key` (see idempotency.ts): the request
 * header, the replay header, and the answers only a keyed request gets.
 *
 * @module
 */

const error = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

/**
 * The `Idempotency-Key` request header of every POST route.
 *
 * @example
 * ```ts
 * import { idempotencyParam } from "./openapi_idempotency.ts";
 * console.log(idempotencyParam.in, idempotencyParam.schema.maxLength); // header 255
 * ```
 */
export const idempotencyParam = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "1 to 255 printable ASCII characters, scoped to the route (and the run). A retry " +
    "with the same key and body within 24 h gets the first answer again, with " +
    "`Idempotent-Replayed: true`, and nothing is done twice. A refused request frees its key.",
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]+$" },
};

/**
 * The response header of an answer replayed for a retry.
 *
 * @example
 * ```ts
 * import { replayedHeader } from "./openapi_idempotency.ts";
 * console.log(Object.keys(replayedHeader)); // ["Idempotent-Replayed"]
 * ```
 */
export const replayedHeader = {
  "Idempotent-Replayed": {
    description: "`true` on an answer replayed for a retry with the same `Idempotency-Key`",
    schema: { type: "string", enum: ["true"] },
  },
};

/**
 * The answers a request with an `Idempotency-Key` may get besides a route's own.
 *
 * @example
 * ```ts
 * import { idempotencyErrors } from "./openapi_idempotency.ts";
 * console.log(Object.keys(idempotencyErrors)); // ["409", "422"]
 * ```
 */
export const idempotencyErrors = {
  "409": error(
    "`idempotency_in_progress` (with `Retry-After`): a request with this `Idempotency-Key` is " +
      "still being answered; on a run's route also: not allowed in the run's current state",
  ),
  "422": error("`idempotency_key_reused`: this `Idempotency-Key` was used with another body"),
};
