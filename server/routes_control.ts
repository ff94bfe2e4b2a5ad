/**
 * Steering runs: `POST /runs/:id/approve`, `/reject`, `/resume` and `/stop`.
 * A verdict or a resume marks the tree's root `running` and schedules it (the
 * run continues in the background); a Stop is recorded for the whole tree
 * and seen by whichever worker executes any of its runs.
 *
 * @module
 */
import type { Hono } from "hono";
import { RESUMABLE_STATUSES, type RunState } from "../harness/state.ts";
import { checkLimits } from "../harness/limits.ts";
import { RunStateError } from "../harness/errors.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";
import { clearStop, requestStop, stopVersion, treeRootId } from "../kv/cancel.ts";
import { approveInTree, rejectInTree } from "../subagents/tree.ts";
import type { ResolvedDeps } from "./deps.ts";
import { markRunning } from "./executor.ts";
import { ApproveSchema, readBody, RejectSchema, ResumeSchema, StopSchema } from "./schemas.ts";
import { runIdParam, runView } from "./views.ts";

/** The default reason of a Stop. */
export const DEFAULT_STOP_REASON = "stopped by a person";

async function rootOf(store: KvRunStore, id: string): Promise<RunState> {
  const state = await store.load(id);
  return state.rootId === state.runId ? state : await store.load(state.rootId);
}

/** Refuses to resume a tree that cannot continue now (409), before anything is written. */
async function checkResumable(store: KvRunStore, root: RunState): Promise<void> {
  if (!RESUMABLE_STATUSES.includes(root.status)) {
    throw new RunStateError(root.runId, root.status, "resume");
  }
  if (root.status === "running") {
    const lease = await store.leaseHolder(root.runId);
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
 * Registers the control routes on `app`.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { registerControlRoutes } from "./routes_control.ts";
 * import { resolveDeps } from "./deps.ts";
 * import { onError } from "./errors.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * const kv = await Deno.openKv(":memory:");
 * const app = new Hono();
 * app.onError(onError);
 * registerControlRoutes(app, resolveDeps({ kv, store: new KvRunStore(kv) }));
 * console.log((await app.request("/runs/nope/stop", { method: "POST" })).status); // 404
 * kv.close();
 * ```
 */
export function registerControlRoutes(app: Hono, deps: ResolvedDeps): void {
  /**
   * The version of the Stop of the tree of `id` as the request found it: a
   * verdict or a resume lifts that Stop only, never one recorded meanwhile.
   */
  const stopSeen = async (id: string) => await stopVersion(deps.kv, await treeRootId(deps.kv, id));

  /** After a verdict or a resume: mark the root running, lift the Stop seen, schedule it. */
  const continueTree = async (
    store: KvRunStore,
    rootId: string,
    seenStop: string | null,
    limits?: object,
  ) => {
    const root = await markRunning(
      store,
      rootId,
      limits ? (s) => void (s.limits = checkLimits({ ...s.limits, ...limits })) : undefined,
    );
    await clearStop(deps.kv, rootId, seenStop);
    await deps.schedule(rootId);
    return runView(root, null);
  };

  app.post("/runs/:id/approve", async (c) => {
    const id = runIdParam(c);
    const { callId } = await readBody(c.req.raw, ApproveSchema);
    const seen = await stopSeen(id);
    const store = deps.freshStore();
    const held = await approveInTree(store, id, callId);
    return c.json(await continueTree(store, held.rootId, seen), 202);
  });

  app.post("/runs/:id/reject", async (c) => {
    const id = runIdParam(c);
    const { callId, reason } = await readBody(c.req.raw, RejectSchema);
    const seen = await stopSeen(id);
    const store = deps.freshStore();
    const held = await rejectInTree(store, id, callId, reason);
    return c.json(await continueTree(store, held.rootId, seen), 202);
  });

  app.post("/runs/:id/resume", async (c) => {
    const id = runIdParam(c);
    const { limits } = await readBody(c.req.raw, ResumeSchema, true);
    const seen = await stopSeen(id);
    const store = deps.freshStore();
    const root = await rootOf(store, id);
    await checkResumable(store, root);
    return c.json(await continueTree(store, root.runId, seen, limits), 202);
  });

  app.post("/runs/:id/stop", async (c) => {
    const id = runIdParam(c);
    const { reason } = await readBody(c.req.raw, StopSchema, true);
    const request = await requestStop(deps.kv, id, reason ?? DEFAULT_STOP_REASON);
    return c.json({ runId: id, ...request }, 202);
  });
}
