/**
 * Continuing a stopped or waiting tree on purpose, the one way the CLI and
 * the HTTP routes do it: read the tree's Stop, apply the verdict (or check a
 * plain resume can go on), mark the root `running`, lift the Stop that was
 * read (never one recorded meanwhile). The caller then executes the root (the
 * CLI) or schedules it (the server).
 *
 * @module
 */
import { checkLimits, type LimitsInput } from "../harness/limits.ts";
import { RESUMABLE_STATUSES, type RunState } from "../harness/state.ts";
import { RunStateError } from "../harness/errors.ts";
import { isoNow } from "../harness/iso_now.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";
import { clearStop, stopVersion } from "../kv/stop_record.ts";
import { liveLease } from "./holder_gone.ts";
import { approveInTree, loadRoot, rejectInTree } from "../subagents/tree.ts";

/** What a person decided about a tree. */
export type Verdict =
  | { kind: "approve"; callId: string }
  | { kind: "reject"; callId: string; reason?: string | undefined }
  | { kind: "resume" };

/** Options of {@link continueTree}. */
export interface ContinueTreeOptions {
  /** New limits for the root (e.g. more turns after `max_turns_exceeded`). */
  limits?: LimitsInput | undefined;
}

/**
 * Marks stored run `id` as wanting execution (`running`, no interruption),
 * optionally changing it first; a run already `running` is saved only if
 * `change` is given. Returns the saved state.
 *
 * @example
 * ```ts
 * import { markRunning } from "./continue_tree.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const s = { ...newRun("hi"), status: "max_turns_exceeded" as const };
 * await store.save(s);
 * console.log((await markRunning(store, s.runId)).status); // running
 * kv.close();
 * ```
 */
export async function markRunning(
  store: KvRunStore,
  id: string,
  change?: (state: RunState) => void,
): Promise<RunState> {
  const state = await store.load(id);
  if (state.status === "running" && !change) return state;
  change?.(state);
  state.status = "running";
  state.interruption = null;
  state.stopReason = null;
  state.updatedAt = isoNow();
  await store.save(state);
  return state;
}

/** Refuses to resume a tree that cannot continue now, before anything is written. */
async function checkResumable(store: KvRunStore, root: RunState): Promise<void> {
  if (!RESUMABLE_STATUSES.includes(root.status)) {
    throw new RunStateError(root.runId, root.status, "resume");
  }
  if (root.status === "running") {
    const lease = await liveLease(store, root.runId);
    if (lease) {
      throw new RunStateError(
        root.runId,
        root.status,
        "resume",
        `it is executing (${lease.owner})`,
      );
    }
  }
  const i = root.interruption;
  if (root.status === "interrupted" && i?.type === "approval") {
    const holder = !i.runId || i.runId === root.runId ? root : await store.load(i.runId);
    const decided = holder.approved.includes(i.callId) ||
      holder.rejected.some((r) => r.callId === i.callId);
    if (!decided) {
      throw new RunStateError(
        root.runId,
        root.status,
        "resume",
        `call "${i.callId}" of run "${holder.runId}" awaits a verdict: approve or reject it`,
      );
    }
  }
}

/**
 * Continues the tree of run `id` (the root or any run in it): applies
 * `verdict` to whichever run holds the awaited call (or, for `resume`,
 * checks the tree can go on: `RunStateError` otherwise), applies
 * `options.limits`, marks the root `running` and lifts the tree's Stop as it
 * was before the verdict. Returns the root, ready to execute.
 *
 * @example
 * ```ts
 * import { continueTree } from "./continue_tree.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const s = { ...newRun("hi"), status: "max_turns_exceeded" as const };
 * await store.save(s);
 * const root = await continueTree(store, kv, s.runId, { kind: "resume" }, { limits: { maxTurns: 5 } });
 * console.log(root.status, root.limits.maxTurns); // running 5
 * kv.close();
 * ```
 */
export async function continueTree(
  store: KvRunStore,
  kv: Deno.Kv,
  id: string,
  verdict: Verdict,
  options: ContinueTreeOptions = {},
): Promise<RunState> {
  // Read first: continuing lifts the Stop seen now, not one recorded meanwhile.
  const seen = await stopVersion(kv, (await store.summary(id)).rootId);
  let rootId: string;
  if (verdict.kind === "approve") {
    rootId = (await approveInTree(store, id, verdict.callId)).rootId;
  } else if (verdict.kind === "reject") {
    rootId = (await rejectInTree(store, id, verdict.callId, verdict.reason)).rootId;
  } else {
    const root = await loadRoot(store, id);
    await checkResumable(store, root);
    rootId = root.runId;
  }
  const { limits } = options;
  if (limits) checkLimits(limits); // refuse bad limits before anything is saved
  const root = await markRunning(
    store,
    rootId,
    limits ? (s) => void (s.limits = checkLimits(limits, s.limits)) : undefined,
  );
  await clearStop(kv, rootId, seen);
  return root;
}
