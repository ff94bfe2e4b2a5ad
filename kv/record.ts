/**
 * What a run looks like in KV, and the validation applied on every read: a
 * stored record that does not match is refused with a `RecordError` naming
 * the run and the first invalid field, never repaired or overwritten.
 *
 * @module
 */
import { z } from "zod";
import type { ChatMessage } from "../harness/messages.ts";
import { runLimitsSchema } from "../harness/limits.ts";
import { RecordError } from "./record_error.ts";
import {
  RUN_SCHEMA_VERSION,
  RUN_STATUSES,
  type RunState,
  type RunStatus,
} from "../harness/state.ts";
import { isObject } from "../harness/is_object.ts";

/** The stored header: the run without its messages, plus how many messages count. */
export type StoredHeader = Omit<RunState, "messages"> & {
  /** Messages `0 .. messageCount - 1` belong to the run; chunks beyond are ignored. */
  messageCount: number;
  /**
   * Set on the run key's value when the full header did not fit one KV value:
   * that value is a preview, the full header is in `parts` chunks (kv/header_chunks.ts).
   */
  overflow?: { parts: number };
};

const count = z.number().int().nonnegative();
const usd = z.number().nonnegative().finite();
const id = z.string().min(1);

/** An interruption as stored (and as the API returns it). */
export const interruptionSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("approval"),
    callId: id,
    toolName: z.string(),
    args: z.unknown(),
    why: z.enum(["needs_approval", "uncertain_effect"]),
    runId: id.optional(),
  }),
  z.strictObject({ type: z.literal("max_turns") }),
  z.strictObject({ type: z.literal("max_budget") }),
  z.strictObject({ type: z.literal("cancelled"), reason: z.string() }),
]);

/** Why a run failed, as data (`RunState.failure`), as stored and as the API returns it. */
export const failureSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("invalid_output"),
    raw: z.string(),
    issues: z.array(z.strictObject({ path: z.string(), message: z.string() })),
  }),
  z.strictObject({ kind: z.literal("refusal"), raw: z.string() }),
]);

const headerSchema = z.strictObject({
  $schemaVersion: z.literal(RUN_SCHEMA_VERSION),
  runId: id,
  parentId: id.nullable(),
  parentCallId: id.nullable(),
  rootId: id,
  status: z.enum(RUN_STATUSES as [RunStatus, ...RunStatus[]]),
  interruption: interruptionSchema.nullable(),
  stopReason: z.string().nullable(),
  messageCount: count,
  model: z.string().nullable(),
  agent: z.string().min(1).max(64).optional(),
  // A turn cap of 0 was accepted before it was refused everywhere: such a record still loads.
  limits: runLimitsSchema().extend({ maxTurns: count }),
  turns: count,
  toolRuns: count,
  usage: z.strictObject({ prompt_tokens: count, completion_tokens: count }),
  costUsd: usd,
  childCostUsd: usd,
  promptRatio: z.number().positive().finite().optional(),
  traceparent: z.string().regex(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/).optional(),
  approved: z.array(id),
  rejected: z.array(z.strictObject({ callId: id, reason: z.string() })),
  inFlight: z.array(id),
  // Absent from records written before calls were marked: none in flight, nothing estimated.
  modelCall: z.strictObject({
    turn: count,
    since: z.iso.datetime(),
    promptTokens: count.nullable(),
    kind: z.literal("compaction").optional(),
  }).nullable().default(null),
  estimatedUsd: usd.default(0),
  // Absent until a run's first compaction (and in every record written before compaction).
  context: z.strictObject({
    summary: z.string().nullable(),
    summaryTurns: count,
    summarizedTo: count,
    elidedTo: count,
    compactions: count,
    costUsd: usd,
    usage: z.strictObject({ prompt_tokens: count, completion_tokens: count }),
  }).optional(),
  resultCache: z.record(z.string(), z.string()),
  callSpend: z.record(z.string(), usd),
  // Text, or a typed run's value (records of schema 1 hold text or null).
  output: z.json().nullable(),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  outputRepairs: z.array(count).optional(),
  error: z.string().nullable(),
  failure: failureSchema.optional(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  overflow: z.strictObject({ parts: z.number().int().positive() }).optional(),
  forkedFrom: z.strictObject({ runId: id, turn: count }).optional(),
});

const toolCallSchema = z.strictObject({
  id: z.string(),
  wireId: z.string().optional(),
  type: z.literal("function"),
  function: z.strictObject({ name: z.string(), arguments: z.string() }),
});

/** A transcript message as stored (and as the API returns it). */
export const messageSchema = z.discriminatedUnion("role", [
  z.strictObject({ role: z.literal("system"), content: z.string() }),
  z.strictObject({ role: z.literal("user"), content: z.string() }),
  z.strictObject({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    tool_calls: z.array(toolCallSchema).optional(),
  }),
  z.strictObject({
    role: z.literal("tool"),
    tool_call_id: z.string(),
    name: z.string(),
    content: z.string(),
  }),
]);

// Compile-time guard: a field added to RunState or ChatMessage must be added here too.
type Flat<T> = { [K in keyof T]: T[K] };
type Same<A, B> = (<T>() => T extends Flat<A> ? 1 : 2) extends (<T>() => T extends Flat<B> ? 1 : 2)
  ? true
  : false;
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];
/** `T` with `| undefined` on its optional fields at any depth, as zod types `.optional()`. */
type Loose<T> = T extends readonly (infer E)[] ? Loose<E>[]
  : T extends object
    ? { [K in keyof T]: K extends OptionalKeys<T> ? Loose<T[K]> | undefined : Loose<T[K]> }
  : T;
true satisfies Same<Loose<z.infer<typeof headerSchema>>, Loose<StoredHeader>>;
true satisfies Same<Loose<z.infer<typeof messageSchema>>, Loose<ChatMessage>>;

/** A schema issue, as zod reports it (the part {@link firstProblem} reads). */
export interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly code?: string;
  readonly keys?: readonly string[];
}

/**
 * The field (under `prefix`) and the words of a record's first schema issue:
 * an unknown key is named itself, not only the object holding it.
 *
 * @example
 * ```ts
 * import { firstProblem } from "./record.ts";
 * const issue = { path: ["answer"], message: "Unrecognized key", code: "unrecognized_keys", keys: ["x"] };
 * console.log(firstProblem("", [issue])); // ["answer.x", "Unrecognized key"]
 * ```
 */
export function firstProblem(prefix: string, issues: readonly Issue[]): [string, string] {
  const [issue] = issues;
  if (!issue) return [prefix || "(root)", "does not match its schema"];
  const path = issue.path.map(String);
  // An unknown key is reported on the object; name the key itself.
  const key = issue.keys?.[0];
  if (issue.code === "unrecognized_keys" && key !== undefined) path.push(key);
  const field = [prefix, ...path].filter((p) => p !== "").join(".");
  return [field || "(root)", issue.message];
}

/**
 * Validates a stored header; throws `RecordError(runId, field, problem)` for
 * the first invalid field (an unknown `$schemaVersion` is refused on that field).
 *
 * @example
 * ```ts
 * import { parseHeader } from "./record.ts";
 * try {
 *   parseHeader("r1", { $schemaVersion: 1, status: "zombie" });
 * } catch (e) {
 *   console.log((e as Error).message); // Stored run "r1" is invalid at "runId": …
 * }
 * ```
 */
export function parseHeader(runId: string, value: unknown): StoredHeader {
  if (!isObject(value)) {
    throw new RecordError(runId, "(root)", `expected an object, got ${describe(value)}`);
  }
  if (value["$schemaVersion"] !== RUN_SCHEMA_VERSION) {
    throw new RecordError(
      runId,
      "$schemaVersion",
      `unknown schema version ${JSON.stringify(value["$schemaVersion"])} ` +
        `(this version of reins reads ${RUN_SCHEMA_VERSION})`,
    );
  }
  const parsed = headerSchema.safeParse(value);
  if (!parsed.success) throw new RecordError(runId, ...firstProblem("", parsed.error.issues));
  if (parsed.data.runId !== runId) {
    throw new RecordError(
      runId,
      "runId",
      `stored under "${runId}" but says "${parsed.data.runId}"`,
    );
  }
  // Sound: the guard above holds the shapes equal but for zod's `| undefined` on optional
  // fields, and zod yields undefined there only where the value held it (JSON never does).
  return parsed.data as StoredHeader;
}

/**
 * Validates one stored message (already joined and JSON-parsed); the field
 * is reported as `messages.<seq>.<path>`.
 *
 * @example
 * ```ts
 * import { parseMessage } from "./record.ts";
 * console.log(parseMessage("r1", 0, { role: "user", content: "hi" }).role); // user
 * ```
 */
export function parseMessage(runId: string, seq: number, value: unknown): ChatMessage {
  const parsed = messageSchema.safeParse(value);
  if (!parsed.success) {
    throw new RecordError(runId, ...firstProblem(`messages.${seq}`, parsed.error.issues));
  }
  // Sound as in parseHeader.
  return parsed.data as ChatMessage;
}

/**
 * The header to store for a state: everything but the messages, plus their
 * count. A shallow view (its objects are the state's): serialize or parse it
 * before the state moves on.
 *
 * @example
 * ```ts
 * import { toHeader } from "./record.ts";
 * import { newRun } from "../harness/state.ts";
 * console.log(toHeader(newRun("hi")).messageCount); // 1
 * ```
 */
export function toHeader(state: Readonly<RunState>): StoredHeader {
  const { messages, ...rest } = state;
  return { ...rest, messageCount: messages.length };
}

/**
 * The state a header and its messages describe.
 *
 * @example
 * ```ts
 * import { fromHeader, toHeader } from "./record.ts";
 * import { newRun } from "../harness/state.ts";
 * const s = newRun("hi");
 * console.log(fromHeader(toHeader(s), s.messages).messages.length); // 1
 * ```
 */
export function fromHeader(header: StoredHeader, messages: ChatMessage[]): RunState {
  const { messageCount: _count, overflow: _overflow, ...rest } = header;
  return { ...rest, messages };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}
