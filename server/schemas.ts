/**
 * The zod schemas of the HTTP API: request bodies, path parameters and
 * queries. The routes validate with them and `/openapi.json` is generated
 * from them, so the two cannot drift apart.
 *
 * @module
 */
import { z } from "zod";
import { BadRequestError, HttpError, TooLargeError } from "./errors.ts";
import { RUN_STATUSES, type RunStatus } from "../harness/state.ts";
import { runLimitsSchema } from "../harness/limits.ts";
import { agentOptionsSchema } from "../subagents/agent_options.ts";

/** Run statuses, as `?status=` accepts them. */
export const RunStatusSchema = z.enum(RUN_STATUSES as [RunStatus, ...RunStatus[]]);

/** Path parameter `:id`: a run id (UUIDs; child runs append `.<callId>`). */
export const RunIdSchema = z.string().regex(
  /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/,
  "expected a run id (letters, digits, '.', '_', ':', '-'; at most 200 characters)",
);

const limit = runLimitsSchema().shape;

/**
 * The limits a client may give a run: those of a run, capped so no client can
 * widen them much. Exactly optional (JSON has no `undefined`): a `Partial<RunLimits>`.
 */
export const LimitsSchema = runLimitsSchema().extend({
  maxTurns: limit.maxTurns.max(1000, { error: "expected an integer from 1 to 1000" })
    .exactOptional(),
  maxBudgetUsd: limit.maxBudgetUsd
    .positive({ error: "expected more than 0 USD, at most 1000" })
    .max(1000, { error: "expected more than 0 USD, at most 1000" })
    .exactOptional(),
});

/** A field a request may not set: what an agent may do is its definition's. */
const agentOwned = (what: string) =>
  z.never({ error: `${what} belong to the agent's definition (see GET /agents)` }).optional();

const setting = agentOptionsSchema().shape;

/**
 * Per-run options of `POST /runs` (stored with the run, used on every
 * resume): a run's settings, capped. They may only narrow the agent's own:
 * a hard budget mode, lower concurrency, stopping on a permanent error.
 */
export const RunOptionsSchema = agentOptionsSchema().extend({
  budgetMode: setting.budgetMode.describe(
    "hard narrows a soft agent; soft cannot loosen a hard one",
  ),
  concurrency: setting.concurrency.unwrap().max(16, { error: "expected an integer from 1 to 16" })
    .optional().describe(
      "At most the agent's (default 4)",
    ),
  stopOnPermanentError: setting.stopOnPermanentError.describe("Cannot turn off the agent's"),
  researchDepth: agentOwned("subagents"),
  researchWrites: agentOwned("tools"),
});

/** An agent's name, as `POST /runs` takes it. */
export const AgentNameSchema = z.string().regex(
  /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
  "expected an agent name (letters, digits, '_', '-'; at most 64 characters)",
);

/** Body of `POST /runs`. */
export const CreateRunSchema = z.strictObject({
  agent: AgentNameSchema.optional().describe(
    "The agent to run (see GET /agents); optional when the server has a default one",
  ),
  task: z.string().trim().min(1).max(100_000).optional().describe(
    "The user's task (optional with `scenario`: the scenario's own task)",
  ),
  system: agentOwned("instructions"),
  model: z.string().min(1).max(200).optional().describe(
    "Model name (or a scenario name), for an agent that names no model of its own",
  ),
  scenario: z.string().min(1).max(200).optional().describe(
    "A scripted scenario to play instead of a model (needs the scripted provider)",
  ),
  limits: LimitsSchema.optional(),
  options: RunOptionsSchema.optional(),
});

/** Body of `POST /runs/:id/approve`. */
export const ApproveSchema = z.strictObject({
  callId: z.string().min(1).max(200).describe("The call awaiting a verdict"),
});

/** Body of `POST /runs/:id/reject`. */
export const RejectSchema = z.strictObject({
  callId: z.string().min(1).max(200).describe("The call awaiting a verdict"),
  reason: z.string().max(10_000).optional().describe("Words written into the transcript"),
});

/** Body of `POST /runs/:id/resume` (optional; new limits to continue after a cap). */
export const ResumeSchema = z.strictObject({ limits: LimitsSchema.optional() });

/** Body of `POST /runs/:id/stop` (optional). */
export const StopSchema = z.strictObject({
  reason: z.string().trim().min(1).max(1000).optional().describe(
    "Why (default: stopped by a person)",
  ),
});

/**
 * An integer written in decimal digits (a query value, a header): `0x10`,
 * `1e3`, ` 1` or an empty value are refused, not read as some other number.
 */
function decimalInt(min: number, max = Number.MAX_SAFE_INTEGER) {
  return z.string().regex(/^-?[0-9]{1,15}$/, "expected an integer in decimal digits")
    .transform(Number).pipe(z.int().min(min).max(max));
}

/** Query of `GET /runs` (exactly optional, as a query has no `undefined`: the store's options). */
export const ListQuerySchema = z.strictObject({
  status: RunStatusSchema.exactOptional(),
  limit: decimalInt(1, 1000).exactOptional().describe("At most this many runs, 1 to 1000"),
});

/** The `Last-Event-ID` header of an event stream: the last seq the client has (-1: none). */
export const LastEventIdSchema = decimalInt(-1);

/** Query of `GET /runs/:id/events`. */
export const EventsQuerySchema = z.strictObject({
  after: decimalInt(-1).optional().describe(
    "Send only events after this seq, -1 or more (like Last-Event-ID); empty: from the start",
  ),
  follow: z.enum(["true", "false", "1", "0"]).optional().describe(
    "false: send the stored events and close (default true: then live ones)",
  ),
});

/** The inferred body types. */
export type CreateRunBody = z.infer<typeof CreateRunSchema>;
/** Per-run options as stored. */
export type ServerRunOptions = z.infer<typeof RunOptionsSchema>;

/**
 * Parses `value` with `schema`, throwing a {@link BadRequestError} that names
 * the first offending field under `where` (e.g. `body`, `query`, `params`).
 *
 * @example
 * ```ts
 * import { ApproveSchema, parseInput } from "./schemas.ts";
 * try {
 *   parseInput(ApproveSchema, {}, "");
 * } catch (e) {
 *   console.log((e as Error).message); // callId: Invalid input: expected string, received undefined
 * }
 * ```
 */
export function parseInput<T extends z.ZodType>(
  schema: T,
  value: unknown,
  where: string,
): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  // A failed parse has an issue; without one, the value as a whole is named.
  if (!issue) throw new BadRequestError(where || "body", result.error.message);
  let path = issue.path.map(String);
  // An unknown key names the key itself.
  if (issue.code === "unrecognized_keys") path = [...path, ...issue.keys.slice(0, 1)];
  const field = [where, ...path].filter((p) => p !== "").join(".") || "body";
  if (issue.code === "too_big" && issue.origin === "string") {
    // Input over a size limit is 413, and says the limit.
    throw new TooLargeError(field, issue.maximum);
  }
  throw new BadRequestError(field, issue.message);
}

/**
 * Whether a `Content-Type` header names JSON (`application/json` or
 * `application/*+json`, any parameters).
 *
 * @example
 * ```ts
 * import { isJsonContentType } from "./schemas.ts";
 * console.log(isJsonContentType("application/json; charset=utf-8"), isJsonContentType("text/plain")); // true false
 * ```
 */
export function isJsonContentType(header: string | null): boolean {
  const type = (header ?? "").replace(/;.*/s, "").trim().toLowerCase(); // without parameters
  return type === "application/json" || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads and validates a JSON body; an empty body counts as `{}` when
 * `optional`. A body that is not empty must be sent as `application/json`
 * (415 otherwise: a form or text body, as a cross-site page can send without
 * a preflight, is never acted on).
 *
 * @example
 * ```ts
 * import { readBody, StopSchema } from "./schemas.ts";
 * const req = new Request("http://x/", {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: '{"reason":"enough"}',
 * });
 * console.log(await readBody(req, StopSchema, true)); // { reason: "enough" }
 * ```
 */
export async function readBody<T extends z.ZodType>(
  request: Request,
  schema: T,
  optional = false,
): Promise<z.infer<T>> {
  const bytes = await request.arrayBuffer();
  let text: string;
  try {
    // JSON is UTF-8 (RFC 8259): other bytes are refused, not stored as U+FFFD.
    text = STRICT_UTF8.decode(bytes);
  } catch {
    throw new BadRequestError("body", "not valid UTF-8");
  }
  if (text.trim() === "") {
    if (optional) return parseInput(schema, {}, "");
    throw new BadRequestError("body", "a JSON object is required");
  }
  const type = request.headers.get("content-type");
  if (!isJsonContentType(type)) {
    throw new HttpError(
      415,
      "unsupported_media_type",
      `body: expected content-type application/json, got ${type ? JSON.stringify(type) : "none"}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadRequestError("body", "not valid JSON");
  }
  return parseInput(schema, value, "");
}
