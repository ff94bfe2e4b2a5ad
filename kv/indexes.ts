/**
 * Listing runs through the index keys: a reverse listing of `runs_by_time`,
 * `runs_by_status` or `runs_by_parent`, then the headers, in batches of ten.
 *
 * @module
 */
import { decodeValue } from "./value_codec.ts";
import type { RunState, RunStatus } from "../harness/state.ts";
import { type IndexFields, indexKeys, runKey } from "./keys.ts";
import { parseHeader, type StoredHeader } from "./record.ts";

/** A run without its transcript, as `KvRunStore.list` returns it. */
export type RunSummary =
  & Pick<
    RunState,
    | "runId"
    | "status"
    | "interruption"
    | "stopReason"
    | "model"
    | "agent"
    | "turns"
    | "toolRuns"
    | "costUsd"
    | "childCostUsd"
    | "estimatedUsd"
    | "usage"
    | "parentId"
    | "rootId"
    | "createdAt"
    | "updatedAt"
    | "output"
    | "error"
  >
  & { messageCount: number };

/** Options of {@link listRuns}. */
export interface ListOptions {
  /** Only runs in this status. */
  status?: RunStatus | undefined;
  /** Only the children of this run. */
  parentId?: string | undefined;
  /** At most this many (default 100). */
  limit?: number | undefined;
}

/**
 * Runs newest first, optionally of one status and/or one parent. A stored
 * header that fails validation throws its `RecordError`.
 *
 * @example
 * ```ts
 * import { listRuns } from "./indexes.ts";
 * import { KvRunStore } from "./kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * await new KvRunStore(kv).save(newRun("hi"));
 * console.log((await listRuns(kv, { status: "running" })).length); // 1
 * kv.close();
 * ```
 */
export async function listRuns(kv: Deno.Kv, options: ListOptions = {}): Promise<RunSummary[]> {
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`limit must be an integer >= 1, got ${limit}`);
  }
  const prefix = options.parentId !== undefined
    ? ["runs_by_parent", options.parentId]
    : options.status
    ? ["runs_by_status", options.status]
    : ["runs_by_time"];
  const out: RunSummary[] = [];
  let ids: string[] = [];
  const flush = async () => {
    const entries = await kv.getMany(ids.map(runKey), { consistency: "strong" });
    ids = [];
    for (const e of entries) {
      if (e.versionstamp === null || out.length >= limit) continue; // deleted meanwhile
      const h = parseHeader(String(e.key[1]), decodeValue(e.value));
      if (options.status && h.status !== options.status) continue; // moved meanwhile
      out.push(summaryOf(h));
    }
  };
  for await (const e of kv.list({ prefix }, { reverse: true, consistency: "strong" })) {
    ids.push(String(e.key[e.key.length - 1]));
    if (ids.length === 10) await flush();
    if (out.length >= limit) break;
  }
  if (ids.length && out.length < limit) await flush();
  return out;
}

/**
 * The summary of a header.
 *
 * @example
 * ```ts
 * import { summaryOf } from "./indexes.ts";
 * import { toHeader } from "./record.ts";
 * import { newRun } from "../harness/state.ts";
 * console.log(summaryOf(toHeader(newRun("hi"))).messageCount); // 1
 * ```
 */
export function summaryOf(h: StoredHeader): RunSummary {
  // Named one by one: a field added to the header (bookkeeping such as
  // `promptRatio` or `modelCall`) stays out of summaries unless listed here.
  return {
    runId: h.runId,
    parentId: h.parentId,
    rootId: h.rootId,
    status: h.status,
    interruption: h.interruption,
    stopReason: h.stopReason,
    model: h.model,
    ...(h.agent === undefined ? {} : { agent: h.agent }),
    turns: h.turns,
    toolRuns: h.toolRuns,
    usage: h.usage,
    costUsd: h.costUsd,
    childCostUsd: h.childCostUsd,
    estimatedUsd: h.estimatedUsd,
    output: h.output,
    error: h.error,
    createdAt: h.createdAt,
    updatedAt: h.updatedAt,
    messageCount: h.messageCount,
  };
}

/**
 * What the index keys of a stored run are computed from.
 *
 * @example
 * ```ts
 * import { indexFieldsOf } from "./indexes.ts";
 * import { toHeader } from "./record.ts";
 * import { newRun } from "../harness/state.ts";
 * console.log(indexFieldsOf(toHeader(newRun("hi"))).status); // running
 * ```
 */
export function indexFieldsOf(h: StoredHeader): IndexFields {
  return {
    runId: h.runId,
    status: h.status,
    createdAtMs: Date.parse(h.createdAt),
    parentId: h.parentId,
  };
}

/**
 * Index keys from a header that may be invalid: whatever its fields allow.
 *
 * @example
 * ```ts
 * import { looseIndexKeys } from "./indexes.ts";
 * console.log(looseIndexKeys("r1", { status: "zombie" })); // [] (no createdAt)
 * ```
 */
export function looseIndexKeys(id: string, value: unknown): Deno.KvKey[] {
  const v = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const createdAtMs = Date.parse(String(v["createdAt"]));
  if (Number.isNaN(createdAtMs)) return [];
  return indexKeys({
    runId: id,
    status: String(v["status"]) as RunStatus,
    createdAtMs,
    parentId: typeof v["parentId"] === "string" ? v["parentId"] : null,
  });
}
