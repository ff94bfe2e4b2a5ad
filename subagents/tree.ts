/**
 * Run trees from the root: read one back, approve or reject the call a
 * descendant awaits, and resume (which is resuming the root: each agent tool
 * resumes its child first).
 *
 * @module
 */
import { run } from "../harness/run.ts";
import type { RunState, RunStatus } from "../harness/state.ts";
import { approve, reject } from "../harness/verdict.ts";
import { RunNotFoundError, RunStateError } from "../harness/errors.ts";
import type { RunOptions } from "../harness/run_options.ts";
import type { RunStore } from "../harness/run_store.ts";
import { childRunId, treeSettled } from "./agent_tool.ts";

/** One run of a tree, as {@link loadTree} returns it. */
export interface TreeNode {
  /** The run's id. */
  runId: string;
  /** Its parent's id (null for the root). */
  parentId: string | null;
  /** The agent it is of (a child's is its child agent's name), when it has one. */
  agent?: string;
  /** 0 for the root. */
  depth: number;
  /** Where the run is. */
  status: RunStatus;
  /** Its own model calls. */
  turns: number;
  /** This run's spend, its descendants' included. */
  costUsd: number;
  /** The part of `costUsd` its descendants spent. */
  childCostUsd: number;
  /** Why it stopped (null while running). */
  stopReason: string | null;
  /** ISO creation time. */
  createdAt: string;
}

type NodeFields = Omit<TreeNode, "depth">;

/** A store that can list runs by parent (e.g. `KvRunStore`, `MemoryRunStore`). */
export interface ListingStore extends RunStore {
  /** Runs (summaries will do) of one parent; other runs are filtered out. */
  list(options?: { parentId?: string; limit?: number }): unknown;
}

function canList(store: RunStore): store is ListingStore {
  return typeof (store as Partial<ListingStore>).list === "function";
}

function fields(s: NodeFields): NodeFields {
  const { runId, parentId, status, turns, costUsd, childCostUsd, stopReason, createdAt } = s;
  const agent = s.agent === undefined ? {} : { agent: s.agent };
  return { runId, parentId, ...agent, status, turns, costUsd, childCostUsd, stopReason, createdAt };
}

/**
 * The root of the tree holding run `id` (the root itself, or any run in it):
 * the one way to find a tree's root.
 *
 * @example
 * ```ts
 * import { loadRoot } from "./tree.ts";
 * import { MemoryRunStore, newRun } from "../mod.ts";
 * const store = new MemoryRunStore();
 * const s = newRun("hi");
 * await store.save(s);
 * console.log((await loadRoot(store, s.runId)).runId === s.runId); // true
 * ```
 */
export async function loadRoot(store: RunStore, id: string): Promise<RunState> {
  const start = await store.load(id);
  return start.rootId === start.runId ? start : await store.load(start.rootId);
}

async function childrenOf(store: RunStore, parent: RunState | NodeFields): Promise<NodeFields[]> {
  if (canList(store)) {
    const listed = await store.list({ parentId: parent.runId, limit: 10_000 }) as NodeFields[];
    return listed.filter((s) => s.parentId === parent.runId).map(fields);
  }
  // Any store: child ids are derived from the parent's call ids.
  const state = "messages" in parent ? parent : await store.load(parent.runId);
  const out: NodeFields[] = [];
  for (const m of state.messages) {
    for (const call of m.role === "assistant" ? m.tool_calls ?? [] : []) {
      try {
        out.push(fields(await store.load(childRunId(state.runId, call.id))));
      } catch (e) {
        if (!(e instanceof RunNotFoundError)) throw e;
      }
    }
  }
  return out;
}

/**
 * Every run of the tree holding run `id` (the root or any run in it), root
 * first, each followed by its children (oldest first). Uses the store's
 * listing by parent (the KV `runs_by_parent` index) when it has one.
 *
 * @example
 * ```ts
 * import { loadTree } from "./tree.ts";
 * import { MemoryRunStore, newRun } from "../mod.ts";
 * const store = new MemoryRunStore();
 * const s = newRun("hi");
 * await store.save(s);
 * console.log((await loadTree(store, s.runId)).map((n) => n.depth)); // [0]
 * ```
 */
export async function loadTree(store: RunStore, id: string): Promise<TreeNode[]> {
  const root = await loadRoot(store, id);
  const out: TreeNode[] = [];
  const visit = async (node: NodeFields, source: RunState | NodeFields, depth: number) => {
    out.push({ ...node, depth });
    const kids = await childrenOf(store, source);
    kids.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.runId.localeCompare(b.runId));
    for (const k of kids) await visit(k, k, depth + 1);
  };
  await visit(fields(root), root, 0);
  return out;
}

/**
 * The tree as text, one run per line: id, status, turns, cost (and the
 * children's part), and why it stopped.
 *
 * @example
 * ```ts
 * import { formatTree } from "./tree.ts";
 * console.log(formatTree([{ runId: "r", parentId: null, depth: 0, status: "completed", turns: 2,
 *   costUsd: 0.003, childCostUsd: 0.001, stopReason: "the model answered", createdAt: "" }]));
 * ```
 */
export function formatTree(nodes: readonly TreeNode[]): string {
  return nodes.map((n) => {
    const indent = n.depth ? `${"   ".repeat(n.depth - 1)}└─ ` : "";
    const children = n.childCostUsd > 0 ? ` (children $${n.childCostUsd.toFixed(6)})` : "";
    const why = n.stopReason ? `  ${n.stopReason}` : "";
    return `${indent}${n.runId}  ${n.status}  ${n.turns} turns  $${
      n.costUsd.toFixed(6)
    }${children}${why}`;
  }).join("\n");
}

/** The run holding the call the tree of `id` awaits a verdict on (named by the root). */
async function holder(store: RunStore, id: string, action: string): Promise<RunState> {
  const root = await loadRoot(store, id);
  const i = root.interruption;
  if (root.status !== "interrupted" || i?.type !== "approval") {
    throw new RunStateError(
      root.runId,
      root.status,
      `${action} a call in the tree of`,
      `the tree is not awaiting a verdict (root status ${root.status})`,
    );
  }
  return !i.runId || i.runId === root.runId ? root : await store.load(i.runId);
}

/**
 * Approves call `callId` awaited anywhere in the tree of run `id`: finds the
 * run holding it (the root's interruption names it), approves it there and
 * saves that run. Resume the tree ({@link resumeTree}) to continue.
 *
 * @example
 * ```ts
 * import { approveInTree } from "./tree.ts";
 * import { MemoryRunStore, newRun } from "../mod.ts";
 * const store = new MemoryRunStore();
 * const s = newRun("hi");
 * await store.save(s);
 * await approveInTree(store, s.runId, "call_1_0").catch((e) => console.log(e.message));
 * ```
 */
export async function approveInTree(
  store: RunStore,
  id: string,
  callId: string,
): Promise<RunState> {
  const next = approve(await holder(store, id, "approve"), callId);
  await store.save(next);
  return next;
}

/**
 * Rejects call `callId` awaited anywhere in the tree of run `id` (the words
 * go into the transcript of the run that holds it), and saves that run.
 *
 * @example
 * ```ts
 * import { rejectInTree } from "./tree.ts";
 * import { MemoryRunStore, newRun } from "../mod.ts";
 * const store = new MemoryRunStore();
 * const s = newRun("hi");
 * await store.save(s);
 * await rejectInTree(store, s.runId, "call_1_0", "no").catch((e) => console.log(e.message));
 * ```
 */
export async function rejectInTree(
  store: RunStore,
  id: string,
  callId: string,
  reason?: string,
): Promise<RunState> {
  const next = reject(await holder(store, id, "reject"), callId, reason);
  await store.save(next);
  return next;
}

/**
 * Resumes the tree of run `id`: runs its root with `store` (each agent tool
 * resumes its interrupted child first) and waits until every descendant has
 * stopped. Returns the root's state.
 *
 * @example
 * ```ts
 * import { resumeTree } from "./tree.ts";
 * import { MemoryRunStore, newRun } from "../mod.ts";
 * import { scriptedModel } from "../testing/mod.ts";
 * const store = new MemoryRunStore();
 * const s = newRun("hi");
 * await store.save(s);
 * console.log((await resumeTree(store, s.runId, { model: scriptedModel("echo") })).output); // hi
 * ```
 */
export async function resumeTree(
  store: RunStore,
  id: string,
  options: RunOptions,
): Promise<RunState> {
  const root = await loadRoot(store, id);
  try {
    return await run(root, { ...options, store });
  } finally {
    await treeSettled(root.runId);
  }
}
