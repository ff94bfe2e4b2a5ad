/**
 * Experiment 12: subagents. A parent and its `research` children under one
 * root budget, each run persisted in Deno KV (in memory) and read back as a
 * tree: the cost by node, a runaway child stopped by its own cap, and one
 * Stop (`requestStop` in KV) that interrupts every node mid-tool.
 *
 * @module
 */
import { newRun, pending, type RunState } from "../../harness/state.ts";
import type { TraceEvent, TraceSink } from "../../harness/trace.ts";
import { KvRunStore } from "../../kv/kv_run_store.ts";
import { requestStop } from "../../runtime/stop_tree.ts";
import { scriptedModel } from "../../testing/scripted_model.ts";
import { SCAN_QUESTIONS, TREE_SCENARIOS } from "../../testing/tree_scenarios.ts";
import { executeTree } from "../../runtime/execute_tree.ts";
import { demoExits, exitName } from "./exit_log.ts";
import { researchTool } from "../../subagents/research.ts";
import { loadTree, type TreeNode } from "../../subagents/tree.ts";
import type { Workspace } from "../../tools/workspace.ts";
import { type Cell, ms, quote, usd } from "../table.ts";
import {
  type ExperimentOptions,
  heading,
  type Out,
  printTable,
  SYSTEM,
  withWorkspace,
} from "./common.ts";
import { sleep } from "../../harness/sleep.ts";

/** The root's budget in every part of the experiment, USD. */
export const TREE_BUDGET_USD = 0.02;
/** The root's task (not one of the scenarios' research questions, so the root plays the root). */
export const TREE_TASK = "Investigate the workspace and report what you find.";
/** The reason given to the tree's Stop. */
export const TREE_STOP_REASON = "user pressed Stop";
/** How long to keep watching after a Stop for a tool that is still running, ms. */
const SETTLE_MS = 300;
/** The Stop goes out at the latest this many ms after the tree starts, and (c) then fails. */
const STOP_DEADLINE_MS = 30_000;

/** One tree played to its end, read back from KV. */
interface Grown {
  root: RunState;
  nodes: TreeNode[];
  /** Per run: its stored trace events, in order. */
  events: Map<string, TraceEvent[]>;
  /** `Date.now()` just before `requestStop` (0 if the tree was not stopped). */
  requestedAt: number;
  /** ms from the tree's start to `requestStop` (0 if the tree was not stopped). */
  stoppedAfter: number;
  /** ms of the whole `executeTree` call. */
  ms: number;
}

/** Options of {@link grow}. */
interface GrowOptions {
  /** Levels of research below the root (default 1). */
  depth?: number;
  /** `scan_archive` pace for the leaves. */
  scan?: { ms: number; every: number };
  /** Stop the tree once this many runs have reported `scan_archive` progress. */
  stopOnceScanning?: number;
}

/** The Stop of a tree, sent once `want` runs are scanning (or at the deadline). */
interface Stopper {
  /** Watches the tree's events (every node's: children inherit the trace). */
  trace: TraceSink;
  /** `Date.now()` just before `requestStop`, 0 before. */
  requestedAt: number;
  /** Runs scanning when the Stop went out. */
  scanningAtStop: number;
  /** The `requestStop` call, once made. */
  stopping: Promise<unknown>;
  /** Clears the deadline. */
  dispose(): void;
}

/**
 * Sends the Stop once `want` runs have reported `scan_archive` progress: the
 * tree has grown and its leaves are mid-scan however loaded the machine is
 * (a fixed time raced the tree's growth). The deadline keeps it from hanging.
 */
function stopOnceScanning(kv: Deno.Kv, rootId: string, want: number): Stopper {
  const scanning = new Set<string>();
  const stop = () => {
    if (s.requestedAt) return;
    s.requestedAt = Date.now();
    s.scanningAtStop = scanning.size;
    s.stopping = requestStop(kv, rootId, TREE_STOP_REASON);
  };
  const timer = setTimeout(stop, STOP_DEADLINE_MS);
  const s: Stopper = {
    trace: (e) => {
      if (e.type !== "tool_progress" || e.toolName !== "scan_archive") return;
      scanning.add(e.runId);
      if (scanning.size >= want) stop();
    },
    requestedAt: 0,
    scanningAtStop: 0,
    stopping: Promise.resolve(),
    dispose: () => clearTimeout(timer),
  };
  return s;
}

/** Saves a root, executes its tree under the Stop key, and reads the tree and its events back. */
async function grow(
  kv: Deno.Kv,
  ws: Workspace,
  scenario: string,
  o: GrowOptions = {},
): Promise<Grown> {
  const store = new KvRunStore(kv);
  const root = newRun(TREE_TASK, { system: SYSTEM });
  await store.save(root);
  const model = scriptedModel(scenario, { scenarios: TREE_SCENARIOS });
  // The rest of `o` (depth, scan) is research's own, given or not.
  const { stopOnceScanning: want, ...research } = o;
  const tools = [researchTool({ workspace: ws, ...research })];
  const stopper = want === undefined ? undefined : stopOnceScanning(kv, root.runId, want);
  const startedAt = Date.now();
  const started = performance.now();
  let done: RunState;
  try {
    done = await executeTree(store, kv, root.runId, {
      model,
      tools,
      limits: { maxBudgetUsd: TREE_BUDGET_USD },
      trace: stopper?.trace,
    });
  } finally {
    stopper?.dispose();
    await stopper?.stopping;
  }
  const took = performance.now() - started;
  const requestedAt = stopper?.requestedAt ?? 0;
  if (stopper && stopper.scanningAtStop < want!) {
    throw new Error(
      `Cannot show one Stop for the tree: ${stopper.scanningAtStop} of ${want} leaves were ` +
        (requestedAt
          ? `scanning after ${ms(STOP_DEADLINE_MS)}`
          : `scanning when it ended (${done.status})`),
    );
  }
  // A tool still running after its run stopped would report (or return) within this wait.
  if (requestedAt) await sleep(SETTLE_MS);
  const nodes = await loadTree(store, root.runId);
  for (const n of nodes) demoExits.record(await store.load(n.runId));
  const events = new Map<string, TraceEvent[]>();
  for (const n of nodes) {
    events.set(n.runId, (await store.events(n.runId)).map((e) => e.event));
  }
  const stoppedAfter = requestedAt ? requestedAt - startedAt : 0;
  return { root: done, nodes, events, requestedAt, stoppedAfter, ms: took };
}

/** `abcdef12-…` -> `abcdef12`, keeping the `.call_…` path of a child. */
function shortId(id: string, rootId: string): string {
  return id.startsWith(rootId) ? rootId.slice(0, 8) + id.slice(rootId.length) : id;
}

/** The cost of a run's own model calls, from its stored `turn` events. */
function ownCost(events: readonly TraceEvent[]): number {
  return events.reduce((n, e) => n + (e.type === "turn" ? e.turnCostUsd : 0), 0);
}

/** The sum of the totals of a node's direct children. */
function childrenCost(nodes: readonly TreeNode[], id: string): number {
  return nodes.filter((k) => k.parentId === id).reduce((n, k) => n + k.costUsd, 0);
}

/** Prints the per-node cost table of a tree. */
function printCosts(out: Out, g: Grown): void {
  const id = (x: string) => shortId(x, g.root.runId);
  const rows: Cell[][] = g.nodes.map((n) => [
    id(n.runId),
    n.parentId ? id(n.parentId) : "-",
    n.status,
    n.turns,
    usd(ownCost(g.events.get(n.runId) ?? [])),
    usd(childrenCost(g.nodes, n.runId)),
    usd(n.costUsd),
  ]);
  printTable(out, ["node", "parent", "status", "turns", "own", "children", "total"], rows);
}

/** `parent total $x = own turns $y + $a + $b: equal` for the root. */
function sumLine(g: Grown): string {
  const [root] = g.nodes;
  // loadTree lists the root first; a tree without it has nothing to add up.
  if (!root) throw new Error("sumLine: the tree has no nodes");
  const own = ownCost(g.events.get(root.runId) ?? []);
  const kids = g.nodes.filter((k) => k.parentId === root.runId).map((k) => k.costUsd);
  const sum = own + kids.reduce((a, b) => a + b, 0);
  const verdict = Math.abs(root.costUsd - sum) < 1e-9
    ? "equal"
    : `DIFFERENT by ${usd(root.costUsd - sum)}`;
  return `  parent total ${usd(root.costUsd)} = own turns ${usd(own)} + children ${
    kids.map(usd).join(" + ")
  }: ${verdict}`;
}

/** (a) Two research children; every dollar they spend is the parent's too. */
async function twoChildren(out: Out, kv: Deno.Kv): Promise<void> {
  out("  -- (a) parent with two research children (research)");
  const a = await withWorkspace((ws) => grow(kv, ws, "research"));
  printCosts(out, a);
  out(sumLine(a));
  out(
    `  the tree spent ${usd(a.root.costUsd)} of the root's ${usd(TREE_BUDGET_USD)} ` +
      `(each child may spend at most what its parent has left)`,
  );
  out(`  parent ${a.root.status}; its answer: ${quote(a.root.output, 110)}`);
}

/** (b) A runaway child: its own cap stops it, the parent carries on. */
async function runawayChild(out: Out, kv: Deno.Kv): Promise<void> {
  out("");
  out("  -- (b) the same with a runaway child (research-runaway)");
  const b = await withWorkspace((ws) => grow(kv, ws, "research-runaway"));
  printCosts(out, b);
  out(sumLine(b));
  out(`  parent ${b.root.status}; its answer: ${quote(b.root.output, 110)}`);
}

/** What the stopped tree's nodes say: a table row each, the latest `run_stopped`, late events. */
interface StoppedNodes {
  rows: Cell[][];
  /** ms from the Stop to the last `run_stopped`. */
  last: number;
  /** Tool events after a node's `run_stopped`. */
  late: number;
}

/** Reads each node of a stopped tree back: its status, reason, pending call and late events. */
async function stoppedNodes(kv: Deno.Kv, c: Grown): Promise<StoppedNodes> {
  const store = new KvRunStore(kv);
  const id = (x: string) => shortId(x, c.root.runId);
  const rows: Cell[][] = [];
  let last = -Infinity;
  let late = 0;
  for (const n of c.nodes) {
    const events = c.events.get(n.runId) ?? [];
    const stoppedAt = events.findLastIndex((e) => e.type === "run_stopped");
    const stopped = events[stoppedAt];
    const after = stoppedAt < 0
      ? []
      : events.slice(stoppedAt + 1).filter((e) =>
        e.type === "tool_progress" || e.type === "tool_result"
      );
    late += after.length;
    const at = stopped ? Date.parse(stopped.at) - c.requestedAt : NaN;
    if (stopped) last = Math.max(last, at);
    const state = await store.load(n.runId);
    const reason = state.interruption?.type === "cancelled" ? state.interruption.reason : "";
    rows.push([
      id(n.runId),
      n.parentId ? id(n.parentId) : "-",
      exitName(state),
      reason ? quote(reason) : "-",
      pending(state).map((call) => call.function.name).join(", ") || "-",
      stopped && c.requestedAt ? `+${ms(at)}` : "-",
      after.length,
    ]);
  }
  return { rows, last, late };
}

/** (c) One Stop for the whole tree while the leaves are mid-scan. */
async function stoppedTree(out: Out, kv: Deno.Kv, scanMs: number): Promise<void> {
  const leaves = SCAN_QUESTIONS.length;
  out("");
  out(
    `  -- (c) a depth-3 tree whose leaves scan ~${ms(scanMs)} (research-deep-slow), ` +
      `stopped once its ${leaves} leaves are scanning`,
  );
  const c = await withWorkspace((ws) =>
    grow(kv, ws, "research-deep-slow", {
      depth: 2,
      scan: { ms: scanMs, every: 100 },
      stopOnceScanning: leaves,
    })
  );
  const { rows, last, late } = await stoppedNodes(kv, c);
  printTable(out, [
    "node",
    "parent",
    "status",
    "reason",
    "pending call",
    "run_stopped (after Stop)",
    "tool events after",
  ], rows);
  out(
    `  requestStop(kv, rootId, ${JSON.stringify(TREE_STOP_REASON)}) at ${ms(c.stoppedAfter)}, ` +
      `once all ${leaves} leaves had reported scan_archive progress; ` +
      `executeTree (watching the Stop key) returned after ${ms(c.ms)}`,
  );
  const all = c.nodes.every((n) => n.status === "interrupted");
  out(
    `  ${c.nodes.length} nodes, ${all ? "every one" : "NOT every one"} interrupted; ` +
      `stop() -> last run_stopped (from the KV events): ${c.requestedAt ? ms(last) : "no Stop"}`,
  );
  out(
    `  tool_progress / tool_result after a node's run_stopped (watched ${ms(SETTLE_MS)} more): ` +
      `${late}${late ? ": a tool was STILL RUNNING" : ": no tool still running"}`,
  );
}

/**
 * 12. Subagents under one $0.02 root budget, against the in-process scripted
 * provider with runs in an in-memory Deno KV: (a) `research` (two children)
 * with the tree's cost by node and the root's total checked against its own
 * turns (from the KV trace) plus its children; (b) `research-runaway` (the
 * child's turn cap stops it, the parent completes quoting the child's stop
 * sentence); (c) `research-deep-slow` (a depth-3 tree whose leaves run
 * `scan_archive`) stopped by `requestStop` once both leaves have reported
 * progress: every node interrupted, ms from the Stop to the last
 * `run_stopped` in KV, and no tool event after a node's `run_stopped`.
 * `quick` scans 750 ms instead of 3 s.
 *
 * @example
 * ```ts
 * import { treeExperiment } from "./tree.ts";
 * await treeExperiment(console.log, { quick: true });
 * ```
 */
export async function treeExperiment(out: Out, options: ExperimentOptions = {}): Promise<void> {
  const scanMs = options.quick ? 750 : 3_000;
  heading(out, `12. subagents: a tree under one budget (${usd(TREE_BUDGET_USD)} at the root)`);
  const kv = await Deno.openKv(":memory:");
  try {
    await twoChildren(out, kv);
    await runawayChild(out, kv);
    await stoppedTree(out, kv, scanMs);
  } finally {
    kv.close();
  }
}
