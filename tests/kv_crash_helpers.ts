// Shared by the SIGKILL tests (kv_crash_test.ts, kv_crash_stop_test.ts): a child
// process executing a run over a KV file, killed at a kill point, and this
// process's side (its own model, tools and store) to resume it.
import { readLines } from "../cli/child_lines.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { newRun, type RunState } from "../harness/state.ts";
import { approve } from "../harness/verdict.ts";
import { run } from "../harness/run.ts";
import type { TraceEvent } from "../harness/trace.ts";
import type { Model } from "../harness/model.ts";
import type { AnyTool } from "../harness/run_options.ts";
import { createWorkspace, type Workspace } from "../tools/workspace.ts";
import { openKv } from "../kv/open_kv.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { executeRun, startRun } from "../runtime/execute_run.ts";
import { crashModel, crashTools, LEASE_MS, SYSTEM, TASK } from "./fixtures/kv_crash_child.ts";

export const CHILD = fileURLToPath(new URL("./fixtures/kv_crash_child.ts", import.meta.url));
export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** One JSON line the child printed. */
export interface Line {
  at: string;
  modelCalls: number;
  blocking?: boolean;
  [field: string]: unknown;
}

/** A child process executing a run; its lines are collected as they come. */
export class Child {
  readonly lines: Line[] = [];
  /** Resolves once stdout is drained and the process has exited. */
  readonly done: Promise<{ status: Deno.CommandStatus; stderr: string }>;
  #proc: Deno.ChildProcess;
  #ended = false;
  #waiters: (() => void)[] = [];

  constructor(
    kvPath: string,
    ws: Workspace,
    scenario: string,
    killPoint: string,
    runId: string,
    env: Record<string, string> = {},
  ) {
    const proc = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--unstable-kv", CHILD, kvPath, ws.dir, scenario, killPoint, runId],
      cwd: ROOT,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#proc = proc;
    const stderr = new Response(proc.stderr).text();
    // A child that never reaches its point must not hang the suite.
    const guard = setTimeout(() => this.kill(), 30_000);
    this.done = (async () => {
      for await (const { text, value } of readLines(proc.stdout)) {
        this.lines.push((value as Line | null) ?? { at: "text", text, modelCalls: 0 });
        this.#wake();
      }
      const status = await proc.status;
      clearTimeout(guard);
      this.#ended = true;
      this.#wake();
      return { status, stderr: await stderr };
    })();
  }

  /** The first line matching `pred`, waiting for it; throws if the child exits first. */
  async next(pred: (l: Line) => boolean): Promise<Line> {
    for (;;) {
      const hit = this.lines.find(pred);
      if (hit) return hit;
      if (this.#ended) {
        const { status, stderr } = await this.done;
        throw new Error(
          `child exited (code ${status.code}) without the line awaited; printed:\n${
            this.lines.map((l) => JSON.stringify(l)).join("\n")
          }\nstderr:\n${stderr}`,
        );
      }
      await new Promise<void>((r) => this.#waiters.push(r));
    }
  }

  kill(): void {
    try {
      this.#proc.kill("SIGKILL");
    } catch {
      // already exited
    }
  }

  /** Lines printed at `at`. */
  at(at: string): Line[] {
    return this.lines.filter((l) => l.at === at);
  }

  /** Model calls this child made at the provider (it reports its count on every line). */
  get modelCalls(): number {
    return Math.max(0, ...this.lines.map((l) => l.modelCalls ?? 0));
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}

/** A KV file, a workspace and this process's side of the run: model, tools, store. */
export interface Env {
  kvPath: string;
  ws: Workspace;
  kv: Deno.Kv;
  store: KvRunStore;
  runId: string;
  scenario: string;
  /** The `turn` of each model call this process made at the provider. */
  parentTurns: number[];
  model: Model;
  tools: AnyTool[];
  /** Trace events of this process's executions. */
  events: TraceEvent[];
}

export async function withEnv(scenario: string, fn: (env: Env) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "reins-kv-crash-" });
  try {
    const kvPath = join(dir, "runs.sqlite");
    const ws = await createWorkspace({ parent: dir });
    const kv = await openKv(kvPath);
    try {
      const parentTurns: number[] = [];
      await fn({
        kvPath,
        ws,
        kv,
        store: new KvRunStore(kv, { leaseMs: LEASE_MS }),
        runId: `crash-${crypto.randomUUID().slice(0, 8)}`,
        scenario,
        parentTurns,
        model: crashModel(scenario, (turn) => parentTurns.push(turn)),
        tools: crashTools(ws),
        events: [],
      });
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Spawns the child on the env's run, waits until it blocks at `killPoint`, SIGKILLs it. */
export async function crashAt(
  env: Env,
  killPoint: string,
  childEnv: Record<string, string> = {},
): Promise<{ child: Child; blocked: Line }> {
  const child = new Child(env.kvPath, env.ws, env.scenario, killPoint, env.runId, childEnv);
  let blocked: Line;
  try {
    blocked = await child.next((l) => l.blocking === true);
  } finally {
    child.kill();
  }
  const { status } = await child.done;
  assert.equal(status.success, false);
  assert.equal(status.signal, "SIGKILL");
  assert.equal(child.lines.at(-1), blocked, "nothing happened after the kill point");
  return { child, blocked };
}

/** Waits for the dead child's lease to lapse (ms waited). */
export async function leaseLapsed(env: Env): Promise<number> {
  const started = performance.now();
  while (await env.store.leaseHolder(env.runId)) {
    if (performance.now() - started > 5 * LEASE_MS) {
      assert.fail("the dead child's lease never lapsed");
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now() - started;
}

/** Executes the run in this process (by id, or a state this store loaded), after the lease lapses. */
export async function resume(env: Env, state?: RunState): Promise<RunState> {
  const waited = await leaseLapsed(env);
  assert.ok(waited < 3 * LEASE_MS, `waited ${waited} ms for a ${LEASE_MS} ms lease`);
  return await executeRun(env.store, state ?? env.runId, {
    model: env.model,
    tools: env.tools,
    trace: (e) => void env.events.push(e),
  });
}

/** Tool starts per call id across every process, from the trace stored in KV. */
export async function toolStarts(env: Env): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { event } of await env.store.events(env.runId)) {
    if (event.type === "tool_start") counts[event.callId] = (counts[event.callId] ?? 0) + 1;
  }
  return counts;
}

export function parentToolStarts(env: Env): string[] {
  return env.events.flatMap((e) => e.type === "tool_start" ? [`${e.toolName}:${e.callId}`] : []);
}

/** Each tool call of the transcript has exactly one result: the transcript did not fork. */
export function assertOneResultPerCall(state: RunState): void {
  const calls = state.messages.flatMap((m) =>
    m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.id) : []
  );
  const results = state.messages.flatMap((m) => m.role === "tool" ? [m.tool_call_id] : []);
  assert.deepEqual(results, calls);
}

/** The same scenario run in one process, never crashed (approving every call asked). */
export async function neverCrashed(scenario: string): Promise<RunState> {
  const ws = await createWorkspace();
  try {
    const options = { model: crashModel(scenario, () => {}), tools: crashTools(ws) };
    let state = await run(newRun(TASK, { system: SYSTEM }), options);
    while (state.status === "interrupted" && state.interruption?.type === "approval") {
      state = await run(approve(state, state.interruption.callId), options);
    }
    assert.equal(state.status, "completed");
    return state;
  } finally {
    await ws.remove();
  }
}

/**
 * Killed after the save that recorded the next model call (a tool result's):
 * the resume counts that call as spent though it was never sent (the marker
 * cannot tell), so the bill is the baseline plus that estimate.
 */
export function assertBillWithEstimate(resumed: RunState, baseline: RunState): void {
  assert.equal(resumed.turns, baseline.turns);
  assert.deepEqual(resumed.usage, baseline.usage);
  assert.ok(resumed.estimatedUsd > 0, "the recorded call is counted");
  assert.ok(Math.abs(resumed.costUsd - (baseline.costUsd + resumed.estimatedUsd)) < 1e-12);
  assert.equal(resumed.output, baseline.output);
}

export function assertSameBill(resumed: RunState, baseline: RunState): void {
  assert.equal(resumed.estimatedUsd, 0);
  assert.equal(resumed.turns, baseline.turns);
  assert.deepEqual(resumed.usage, baseline.usage);
  assert.equal(resumed.costUsd, baseline.costUsd);
  assert.equal(resumed.output, baseline.output);
}

/**
 * Starts `destructive` in this process: it stops for approval of the
 * deletion, which is approved and saved, ready for the child to execute.
 */
export async function approvedDeletion(env: Env): Promise<string> {
  const stopped = await startRun(env.store, newRun(TASK, { system: SYSTEM, runId: env.runId }), {
    model: env.model,
    tools: env.tools,
  });
  assert.equal(stopped.status, "interrupted");
  assert.equal(stopped.interruption?.type, "approval");
  const callId = (stopped.interruption as { callId: string }).callId;
  assert.equal(callId, "call_1_0");
  await env.store.save(approve(stopped, callId));
  assert.deepEqual(env.parentTurns, [0, 1]);
  return callId;
}
