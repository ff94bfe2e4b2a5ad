/**
 * Experiment 9: a run killed with SIGKILL in a real child process after turn
 * 2 is committed to Deno KV, then resumed from KV in this process.
 *
 * @module
 */
import { readLines } from "../child_lines.ts";
import { join } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { RunConflictError } from "../../harness/errors.ts";
import type { RunState } from "../../harness/state.ts";
import type { TraceEvent } from "../../harness/trace.ts";
import { scriptedModel } from "../../testing/scripted_model.ts";
import { demoTools } from "../../tools/catalog.ts";
import { openKv } from "../../kv/open_kv.ts";
import { KvRunStore } from "../../kv/kv_run_store.ts";
import { executeRun } from "../../runtime/execute_run.ts";
import { demoExits } from "./exit_log.ts";
import type { ChildLine } from "../crash_child.ts";
import {
  type ExperimentOptions,
  heading,
  type Out,
  play,
  toolRunsOf,
  withWorkspace,
} from "./common.ts";
import { ms, usd } from "../table.ts";
import type { Workspace } from "../../tools/workspace.ts";
import { sleep } from "../../harness/sleep.ts";

/** The child's lease time: a dead child blocks a resume at most this long. */
const LEASE_MS = 1_000;

interface Killed {
  pid: number;
  /** Tool runs the child reported (from its trace lines). */
  toolRuns: string[];
  /** ms from spawn to SIGKILL. */
  killedAfter: number;
}

/** Spawns the child process that runs `plan` persisted in KV at `kvPath`. */
function spawnChild(kvPath: string, ws: Workspace, runId: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-lock",
      "--config",
      fromFileUrl(new URL("../../deno.json", import.meta.url)),
      "--allow-read",
      "--allow-write",
      "--allow-env",
      fromFileUrl(new URL("../crash_child.ts", import.meta.url)),
      "--kv",
      kvPath,
      "--workspace",
      ws.dir,
      "--run-id",
      runId,
      "--lease-ms",
      String(LEASE_MS),
      // Turn 3's reply takes 10 s, so the kill lands while the child waits for it.
      "--slow-from-turn",
      "3",
      "--slow-ms",
      "10000",
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Spawns the child and kills it with SIGKILL once turn 2 and its tool result are committed. */
async function runAndKill(kvPath: string, ws: Workspace, runId: string): Promise<Killed> {
  const child = spawnChild(kvPath, ws, runId);
  const started = performance.now();
  const stderr = new Response(child.stderr).text();
  const starts: TraceEvent[] = [];
  let killedAfter = -1;
  // A child that never reaches the commit must not hang the demo.
  const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
  for await (const { value } of readLines(child.stdout)) {
    const line = (value ?? { kind: "other" }) as ChildLine | { kind: "other" };
    if (line.kind === "event" && line.type === "tool_start") {
      starts.push({
        type: "tool_start",
        runId,
        at: "",
        toolName: line.toolName ?? "?",
        callId: "",
        args: line.args ?? "{}",
      });
    }
    if (line.kind === "committed" && line.turns === 2 && line.pending === 0 && killedAfter < 0) {
      child.kill("SIGKILL");
      killedAfter = performance.now() - started;
    }
  }
  clearTimeout(guard);
  const status = await child.status;
  const errors = await stderr;
  if (killedAfter < 0) {
    throw new Error(
      `the child exited (code ${status.code}) before turn 2 was committed: ${errors}`,
    );
  }
  return { pid: child.pid, toolRuns: toolRunsOf(starts), killedAfter };
}

/** Resumes from KV, waiting for the dead child's lease to lapse. */
async function resume(
  store: KvRunStore,
  runId: string,
  ws: Workspace,
): Promise<{ state: RunState; waited: number; events: TraceEvent[]; modelCalls: number }> {
  const events: TraceEvent[] = [];
  let modelCalls = 0;
  const started = performance.now();
  for (;;) {
    try {
      const waited = performance.now() - started;
      const state = await executeRun(store, runId, {
        model: scriptedModel("plan", { onRequest: () => void modelCalls++ }),
        tools: demoTools(ws),
        trace: (e) => void events.push(e),
      });
      return { state, waited, events, modelCalls };
    } catch (e) {
      if (!(e instanceof RunConflictError) || performance.now() - started > 10 * LEASE_MS) throw e;
      await sleep(50);
    }
  }
}

/** Restores the killed run from KV, resumes it in this process and reports both processes' work. */
async function restoreAndResume(
  out: Out,
  kvPath: string,
  ws: Workspace,
  runId: string,
): Promise<RunState> {
  const kv = await openKv(kvPath);
  try {
    const store = new KvRunStore(kv);
    const restored = await store.load(runId);
    out(
      `  restored from KV: turns=${restored.turns}  cost=${
        usd(restored.costUsd)
      }  messages=${restored.messages.length}  status=${restored.status}`,
    );
    const r = await resume(store, runId, ws);
    demoExits.record(r.state);
    out(
      `  resumed in process 2 (pid ${Deno.pid}) after waiting ${
        ms(r.waited)
      } for the dead child's lease: turns=${r.state.turns}  cost=${
        usd(r.state.costUsd)
      }  status=${r.state.status}`,
    );
    out(
      `  model calls in process 2: ${r.modelCalls}; tool runs in process 2: ${
        toolRunsOf(r.events).join(", ") || "none"
      }`,
    );
    const all = toolRunsOf((await store.events(runId)).map((e) => e.event));
    out(`  tool runs across BOTH processes (the KV trace): ${all.join(", ")}`);
    out(
      `  counted for the call the kill cut off (its prompt, an estimate: the provider ` +
        `may have billed it): ${usd(r.state.estimatedUsd)}`,
    );
    return r.state;
  } finally {
    kv.close();
  }
}

/**
 * 9. Crash and resume: a child process runs `plan` persisted in Deno KV and
 * is killed with SIGKILL after turn 2 is committed; this process restores
 * the run from KV, resumes it once the dead child's lease lapses, and counts
 * tool runs across both processes from the trace stored in KV.
 *
 * @example
 * ```ts
 * import { crashExperiment } from "./crash.ts";
 * await crashExperiment(console.log);
 * ```
 */
export async function crashExperiment(out: Out, _options: ExperimentOptions = {}): Promise<void> {
  heading(out, "9. crash and resume: SIGKILL a real child process after turn 2, resume from KV");
  const dir = await Deno.makeTempDir({ prefix: "reins-demo-kv-" });
  try {
    const resumed = await withWorkspace(async (ws) => {
      const runId = `demo-crash-${crypto.randomUUID().slice(0, 8)}`;
      const kvPath = join(dir, "runs.sqlite");
      const killed = await runAndKill(kvPath, ws, runId);
      out(
        `  process 1 (pid ${killed.pid}) killed with SIGKILL ${
          ms(killed.killedAfter)
        } after it started: turn 2 committed, turn 3's model call in flight`,
      );
      out(`  tool runs so far: ${killed.toolRuns.join(", ")}`);
      return await restoreAndResume(out, kvPath, ws, runId);
    });
    const baseline = await withWorkspace((ws) => play(ws, "plan"));
    // The crash bills no committed turn twice: less the estimate for the call in
    // flight at the kill, the cost is a never-crashed run's to the micro-cent.
    const billed = resumed.costUsd - resumed.estimatedUsd;
    const same = Math.abs(billed - baseline.state.costUsd) < 1e-9 &&
      resumed.turns === baseline.state.turns;
    out(
      `  a run that never crashed: turns=${baseline.state.turns}  cost=${
        usd(baseline.state.costUsd)
      }  -> ${
        same ? "identical" : "DIFFERENT"
      } to the resumed run's cost less the estimate: the cost was in the state, not in a variable`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
