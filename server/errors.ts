/**
 * One mapping from the error family to HTTP: every route throws, and
 * `app.onError` answers with a status and a JSON body
 * `{ error: { code, message, field? } }`.
 *
 * @module
 */
import type { Context } from "hono";
import {
  ReinsError,
  RunConflictError,
  RunNotFoundError,
  RunStateError,
} from "../harness/errors.ts";
import { messageOf } from "../harness/message_of.ts";
import { RecordError } from "../kv/record_error.ts";

/** The JSON body of an error answer. */
export interface ErrorBody {
  /** A stable `code`, a `message`, and the offending `field` for a 400. */
  error: { code: string; message: string; field?: string };
}

/**
 * Bad input: the HTTP layer answers 400 with `{ error: { code, message, field } }`.
 *
 * @example
 * ```ts
 * import { BadRequestError } from "./errors.ts";
 * const e = new BadRequestError("task", "required");
 * console.log(e.field, e.message); // task task: required
 * ```
 */
export class BadRequestError extends ReinsError {
  /** Dotted path of the offending field (`body` when the body is not JSON). */
  readonly field: string;
  /** Creates the error. */
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.field = field;
  }
}

/**
 * A field over its size limit (HTTP 413); the message says the limit.
 *
 * @example
 * ```ts
 * import { TooLargeError } from "./errors.ts";
 * console.log(new TooLargeError("task", 100_000).message); // task: longer than the limit of 100000 characters
 * ```
 */
export class TooLargeError extends BadRequestError {
  /** Creates the error. */
  constructor(field: string, limit: number | bigint) {
    super(field, `longer than the limit of ${limit} characters`);
  }
}

/**
 * An error with its own HTTP status (401, 404 for an unknown route, …).
 *
 * @example
 * ```ts
 * import { HttpError } from "./errors.ts";
 * const e = new HttpError(401, "unauthorized", "a bearer token is required");
 * console.log(e.status, e.code); // 401 unauthorized
 * ```
 */
export class HttpError extends ReinsError {
  /** The HTTP status. */
  readonly status: number;
  /** A stable machine-readable code. */
  readonly code: string;
  /** Headers the answer carries (e.g. `Retry-After`). */
  readonly headers: Readonly<Record<string, string>>;
  /** Creates the error. */
  constructor(
    status: number,
    code: string,
    message: string,
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/**
 * The status and body for any error a route throws.
 *
 * @example
 * ```ts
 * import { errorAnswer } from "./errors.ts";
 * import { RunNotFoundError } from "../harness/errors.ts";
 * console.log(errorAnswer(new RunNotFoundError("r1")).status); // 404
 * ```
 */
export function errorAnswer(err: unknown): { status: number; body: ErrorBody } {
  const message = messageOf(err);
  const answer = (status: number, code: string, field?: string) => ({
    status,
    body: { error: field === undefined ? { code, message } : { code, message, field } },
  });
  if (err instanceof TooLargeError) return answer(413, "payload_too_large", err.field);
  if (err instanceof BadRequestError) return answer(400, "bad_request", err.field);
  if (err instanceof HttpError) return answer(err.status, err.code);
  if (err instanceof RunNotFoundError) return answer(404, "run_not_found");
  if (err instanceof RunStateError) return answer(409, "run_state");
  if (err instanceof RunConflictError) return answer(409, "run_conflict");
  if (err instanceof RecordError) return answer(500, "record_invalid", err.field);
  return { status: 500, body: { error: { code: "internal", message: "internal server error" } } };
}

/**
 * `app.onError` handler: logs unexpected errors, answers with {@link errorAnswer}.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { onError } from "./errors.ts";
 * const app = new Hono().get("/", () => { throw new Error("boom"); });
 * app.onError(onError);
 * console.log((await app.request("/")).status); // 500
 * ```
 */
export function onError(err: unknown, c: Context): Response {
  const { status, body } = errorAnswer(err);
  if (err instanceof HttpError) {
    for (const [k, v] of Object.entries(err.headers)) {
      c.header(k, v);
    }
  }
  if (status === 500 && !(err instanceof RecordError)) {
    console.error(`${c.req.method} ${c.req.path}:`, err);
  }
  return c.json(body, status as 400);
}
