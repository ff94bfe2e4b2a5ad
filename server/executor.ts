/**
 * Executing server runs: the tools and options of a run, its workspace, and
 * an executor that runs a stored tree root under its lease and its Stop.
 * Idempotent: a run that is not `running`, or whose lease another worker
 * holds, is left alone, so a queue message delivered twice does no harm.
 *
 * @module
 */
import { join } from "node:path";
import type { Model } from "../harness/model.ts";
import type { AnyTool, RunOptions } from "../harness/run_options.ts";
import type { RunState } from "../harness/state.ts";
import { RunConflictError, RunNotFoundError, RunStateError } from "../harness/errors.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";
import { executeTree } from "../subagents/execute_tree.ts";
import { researchTool } from "../subagents/research.ts";
import { demoTools } from "../tools/catalog.ts";
import { createWorkspace, openWorkspace, type Workspace } from "../tools/workspace.ts";
import type { ResolvedDeps } from "./deps.ts";
import type { ServerRunOptions } from "./schemas.ts";

/** The reason runs stop with when the server shuts down; such runs resume on the next start. */
export const SHUTDOWN_REASON = "the server shut down (the run resumes when it restarts)";

/**
 * Where the options of a server run are kept (under the run, so deleting the run drops them).
 *
 * @example
 * ```ts
 * import { runOptionsKey } from "./executor.ts";
 * console.log(runOptionsKey("r1")); // ["run", "r1", "server_options"]
 * ```
 */
export function runOptionsKey(runId: string): Deno.KvKey {
  return ["run", runId, "server_options"];
}

async function readRunOptions(kv: Deno.Kv, runId: string): Promise<ServerRunOptions> {
  const value = (await kv.get<ServerRunOptions>(runOptionsKey(runId))).value;
  return value && typeof value === "object" ? value : {};
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/** The workspace of tree `rootId` under `root`, created with the demo files on first use. */
async function workspaceOf(root: string, rootId: string): Promise<Workspace> {
  const dir = join(root, rootId);
  return await exists(dir) ? openWorkspace(dir) : await createWorkspace({ dir });
}

/**
 * The tools of a server run: the demo tools, plus `research` (`researchDepth`
 * levels deep, default 1; none for 0) whose children get the read-only demo
 * tools, or all of them with `researchWrites`.
 */
function toolsFor(deps: ResolvedDeps, ws: Workspace, options: ServerRunOptions): AnyTool[] {
  const depth = options.researchDepth ?? 1;
  const tools = demoTools(ws, { scan: deps.scan });
  if (depth > 0) {
    // Read-only by default; `researchWrites` hands children delete_file too (approval needed).
    const childTools = options.researchWrites ? demoTools(ws, { scan: deps.scan }) : undefined;
    tools.push(researchTool({ workspace: ws, scan: deps.scan, depth, tools: childTools }));
  }
  return tools;
}

/** A model that fails every call with `error` (the run then stops `failed`, saying why). */
function failingModel(name: string, error: unknown): Model {
  return { name, complete: () => Promise.reject(error) };
}

/**
 * Marks stored run `id` as wanting execution (`running`, no interruption),
 * optionally changing it first; a run already `running` is saved only if
 * `change` is given. Returns the saved state.
 *
 * @example
 * ```ts
 * import { markRunning } from "./executor.ts";
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
  state.updatedAt = new Date().toISOString();
  await store.save(state);
  return state;
}

/** Runs stored runs in this process; see {@link createExecutor}. */
export interface Executor {
  /**
   * Executes stored run `runId` (a tree root) if it is `running` and no other
   * worker holds its lease; resolves with its final state, or null when there
   * was nothing to do.
   */
  execute(runId: string): Promise<RunState | null>;
  /** `execute` in the background (errors are logged); resolves once started. */
  spawn(runId: string): Promise<void>;
  /** Resolves when nothing executes in this executor. */
  idle(): Promise<void>;
  /** Stops every execution with {@link SHUTDOWN_REASON} and waits for them. */
  stop(): Promise<void>;
  /** Executions going on. */
  readonly executing: number;
}

/**
 * An executor over resolved server deps.
 *
 * @example
 * ```ts
 * import { createExecutor } from "./executor.ts";
 * import { resolveDeps } from "./deps.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const root = await Deno.makeTempDir();
 * const executor = createExecutor(resolveDeps({ kv, store, scripted: true, workspaceRoot: root }));
 * const s = newRun("hi", { model: "echo" });
 * await store.save(s);
 * console.log((await executor.execute(s.runId))?.output); // hi
 * await Deno.remove(root, { recursive: true });
 * kv.close();
 * ```
 */
export function createExecutor(deps: ResolvedDeps): Executor {
  const running = new Set<Promise<unknown>>();
  const shutdown = new AbortController();

  async function execute(runId: string): Promise<RunState | null> {
    if (shutdown.signal.aborted) throw new Error("the executor is stopped");
    const store = deps.freshStore();
    let state: RunState;
    try {
      state = await store.load(runId);
    } catch (e) {
      if (e instanceof RunNotFoundError) return null; // deleted meanwhile
      throw e;
    }
    // Children run inside their root; anything but `running` is done or awaits a person.
    if (state.parentId !== null || state.status !== "running") return null;
    const name = state.model ?? deps.defaultModel ?? "unknown";
    let model: Model;
    try {
      model = deps.makeModel(name);
    } catch (e) {
      model = failingModel(name, e);
    }
    const options = await readRunOptions(deps.kv, runId);
    const ws = await workspaceOf(deps.workspaceRoot, state.rootId);
    const runOptions: RunOptions = {
      model,
      tools: toolsFor(deps, ws, options),
      budgetMode: options.budgetMode,
      dedupe: options.dedupe,
      toolErrors: options.toolErrors,
      concurrency: options.concurrency,
      stopOnPermanentError: options.stopOnPermanentError,
      signal: shutdown.signal,
    };
    try {
      return await executeTree(store, deps.kv, runId, { ...runOptions, pollMs: deps.pollMs });
    } catch (e) {
      // Another worker executes it, or it finished between our look and our lease.
      if (e instanceof RunConflictError || e instanceof RunStateError) return null;
      throw e;
    }
  }

  function tracked(runId: string): Promise<RunState | null> {
    const p = execute(runId);
    const settled = p.then(() => {}, () => {}).finally(() => running.delete(settled));
    running.add(settled);
    return p;
  }

  return {
    execute: tracked,
    spawn(runId) {
      tracked(runId).catch((e) => console.error(`reins: executing run ${runId} failed:`, e));
      return Promise.resolve();
    },
    async idle() {
      while (running.size) await Promise.all([...running]);
    },
    async stop() {
      if (!shutdown.signal.aborted) shutdown.abort(SHUTDOWN_REASON);
      while (running.size) await Promise.all([...running]);
    },
    get executing() {
      return running.size;
    },
  };
}
