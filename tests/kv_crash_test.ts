// Crash and resume over a real Deno KV file shared by processes: a child
// process (tests/fixtures/kv_crash_child.ts) executes a run and is killed
// with SIGKILL at one interesting point, then the run is resumed in this
// process once the dead child's lease lapses. Model calls are counted at the
// provider in both processes, effects in the workspace.
import { readLines } from "../cli/child_lines.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { approve, newRun, pending, reject, type RunState } from "../harness/state.ts";
import { run } from "../harness/run.ts";
import type { TraceEvent } from "../harness/trace.ts";
import type { Model } from "../harness/model.ts";
import type { AnyTool } from "../harness/run_options.ts";
import { DELETED_ANSWER, PLAN_ANSWER } from "../provider/scenarios.ts";
import { type Effect, readEffects } from "../tools/delete_file.ts";
import { createWorkspace, type Workspace } from "../tools/workspace.ts";
import { openKv } from "../kv/open_kv.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { executeRun, startRun } from "../runtime/execute_run.ts";
import {
  crashModel,
  crashTools,
  INVOCATIONS_LOG,
  LEASE_MS,
  LEDGER_ANSWER,
  SYSTEM,
  TASK,
} from "./fixtures/kv_crash_child.ts";

const CHILD = fileURLToPath(new URL("./fixtures/kv_crash_child.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** One JSON line the child printed. */
interface Line {
  at: string;
  modelCalls: number;
  blocking?: boolean;
  [field: string]: unknown;
}

/** A child process executing a run; its lines are collected as they come. */
class Child {
  readonly lines: Line[] = [];
  /** Resolves once stdout is drained and the process has exited. */
  readonly done: Promise<{ status: Deno.CommandStatus; stderr: string }>;
  #proc: Deno.ChildProcess;
  #ended = false;
  #waiters: (() => void)[] = [];

  constructor(kvPath: string, ws: Workspace, scenario: string, killPoint: string, runId: string) {
    const proc = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--unstable-kv", CHILD, kvPath, ws.dir, scenario, killPoint, runId],
      cwd: ROOT,
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
interface Env {
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

async function withEnv(scenario: string, fn: (env: Env) => Promise<void>): Promise<void> {
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
async function crashAt(env: Env, killPoint: string): Promise<{ child: Child; blocked: Line }> {
  const child = new Child(env.kvPath, env.ws, env.scenario, killPoint, env.runId);
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
async function leaseLapsed(env: Env): Promise<number> {
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
async function resume(env: Env, state?: RunState): Promise<RunState> {
  const waited = await leaseLapsed(env);
  assert.ok(waited < 3 * LEASE_MS, `waited ${waited} ms for a ${LEASE_MS} ms lease`);
  return await executeRun(env.store, state ?? env.runId, {
    model: env.model,
    tools: env.tools,
    trace: (e) => void env.events.push(e),
  });
}

/** Tool starts per call id across every process, from the trace stored in KV. */
async function toolStarts(env: Env): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { event } of await env.store.events(env.runId)) {
    if (event.type === "tool_start") counts[event.callId] = (counts[event.callId] ?? 0) + 1;
  }
  return counts;
}

function parentToolStarts(env: Env): string[] {
  return env.events.flatMap((e) => e.type === "tool_start" ? [`${e.toolName}:${e.callId}`] : []);
}

/** Each tool call of the transcript has exactly one result: the transcript did not fork. */
function assertOneResultPerCall(state: RunState): void {
  const calls = state.messages.flatMap((m) =>
    m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.id) : []
  );
  const results = state.messages.flatMap((m) => m.role === "tool" ? [m.tool_call_id] : []);
  assert.deepEqual(results, calls);
}

/** The same scenario run in one process, never crashed (approving every call asked). */
async function neverCrashed(scenario: string): Promise<RunState> {
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

function assertSameBill(resumed: RunState, baseline: RunState): void {
  assert.equal(resumed.turns, baseline.turns);
  assert.deepEqual(resumed.usage, baseline.usage);
  assert.equal(resumed.costUsd, baseline.costUsd);
  assert.equal(resumed.output, baseline.output);
}

/**
 * Starts `destructive` in this process: it stops for approval of the
 * deletion, which is approved and saved, ready for the child to execute.
 */
async function approvedDeletion(env: Env): Promise<string> {
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

Deno.test("SIGKILL after the model's reply is committed: the resume runs its tool without asking again", () =>
  withEnv("plan", async (env) => {
    const { child, blocked } = await crashAt(env, "reply-committed:1");
    assert.deepEqual(blocked.pending, ["call_0_0"]);
    assert.equal(child.modelCalls, 1);
    assert.equal(child.at("tool-started").length, 0, "killed before the tool started");

    const restored = await env.store.load(env.runId);
    assert.equal(restored.turns, 1);
    assert.deepEqual(pending(restored).map((c) => c.id), ["call_0_0"]);

    const done = await resume(env);
    assert.equal(done.status, "completed");
    assert.equal(done.output, PLAN_ANSWER);
    // Turn 0 is never asked again: this process's first request already holds its reply.
    assert.deepEqual(env.parentTurns, [1, 2]);
    assert.equal(child.modelCalls + env.parentTurns.length, 3);
    assert.equal(done.turns, 3);
    assert.deepEqual(parentToolStarts(env), ["list_files:call_0_0", "read_file:call_1_0"]);
    assert.deepEqual(await toolStarts(env), { call_0_0: 1, call_1_0: 1 });
    assertOneResultPerCall(done);
    assertSameBill(done, await neverCrashed("plan"));
  }));

Deno.test("SIGKILL after a tool result is committed: the resume asks the model next, no tool runs twice", () =>
  withEnv("plan", async (env) => {
    const { child, blocked } = await crashAt(env, "result-committed:1");
    assert.deepEqual(blocked.pending, []);
    assert.equal(child.modelCalls, 1);
    assert.deepEqual(child.at("tool-done").map((l) => l.callId), ["call_0_0"]);

    const done = await resume(env);
    assert.equal(done.status, "completed");
    assert.deepEqual(env.parentTurns, [1, 2]);
    assert.equal(child.modelCalls + env.parentTurns.length, 3);
    assert.deepEqual(parentToolStarts(env), ["read_file:call_1_0"]);
    assert.deepEqual(await toolStarts(env), { call_0_0: 1, call_1_0: 1 });
    assertOneResultPerCall(done);
    assertSameBill(done, await neverCrashed("plan"));
  }));

Deno.test("SIGKILL after an approved deletion's result is committed: the resume neither asks nor deletes again", () =>
  withEnv("destructive", async (env) => {
    const callId = await approvedDeletion(env);
    const { child } = await crashAt(env, "result-committed:2");
    assert.equal(child.modelCalls, 0);
    assert.equal(child.at("tool-done").length, 1);

    const done = await resume(env);
    assert.equal(done.status, "completed");
    assert.equal(done.output, DELETED_ANSWER);
    assert.deepEqual(env.parentTurns, [0, 1, 2]);
    assert.deepEqual(parentToolStarts(env), []);
    assert.deepEqual(
      await readEffects(env.ws),
      [
        { key: `${env.runId}:${callId}`, path: "access.log" },
      ] satisfies Effect[],
    );
    assertOneResultPerCall(done);
    assertSameBill(done, await neverCrashed("destructive"));
  }));

Deno.test("SIGKILL inside a write before it acted: the resume asks (uncertain_effect); approving runs it once", () =>
  withEnv("destructive", async (env) => {
    const callId = await approvedDeletion(env);
    const { child } = await crashAt(env, "tool-started:delete_file");
    assert.equal(child.modelCalls, 0);
    assert.deepEqual(child.at("intent-committed").map((l) => l.inFlight), [[callId]]);
    assert.deepEqual(await readEffects(env.ws), []);
    assert.ok((await env.ws.files()).includes("access.log"));

    const asked = await resume(env);
    assert.equal(asked.status, "interrupted");
    assert.deepEqual(asked.interruption, {
      type: "approval",
      why: "uncertain_effect",
      callId,
      toolName: "delete_file",
      args: { path: "access.log" },
    });
    assert.match(asked.stopReason ?? "", /uncertain/);
    assert.deepEqual(env.parentTurns, [0, 1], "no model call to ask for a verdict");
    assert.deepEqual(parentToolStarts(env), [], "not retried without a verdict");

    const done = await resume(env, approve(asked, callId));
    assert.equal(done.status, "completed");
    assert.equal(done.output, DELETED_ANSWER);
    assert.deepEqual(env.parentTurns, [0, 1, 2]);
    assert.equal(child.modelCalls + env.parentTurns.length, 3);
    assert.deepEqual(await readEffects(env.ws), [
      { key: `${env.runId}:${callId}`, path: "access.log" },
    ]);
    assert.ok(!(await env.ws.files()).includes("access.log"));
    assert.deepEqual(done.inFlight, []);
    assertOneResultPerCall(done);
    assertSameBill(done, await neverCrashed("destructive"));
  }));

Deno.test("SIGKILL inside a write after it acted: rejecting the retry says it may have happened", () =>
  withEnv("destructive", async (env) => {
    const callId = await approvedDeletion(env);
    const { child } = await crashAt(env, "tool-done:delete_file");
    assert.equal(child.modelCalls, 0);
    assert.deepEqual(await readEffects(env.ws), [
      { key: `${env.runId}:${callId}`, path: "access.log" },
    ]);

    const asked = await resume(env);
    assert.equal(asked.status, "interrupted");
    assert.equal(asked.interruption?.type, "approval");
    assert.equal(asked.interruption.why, "uncertain_effect");
    assert.equal(asked.interruption.callId, callId);

    const rejected = reject(asked, callId);
    const words = rejected.messages.at(-1);
    assert.equal(words?.role, "tool");
    assert.match(words.content, /may or may not have taken effect/);
    assert.match(words.content, /Do not report it as done/);
    const done = await resume(env, rejected);
    assert.equal(done.status, "completed");
    // The model was told the effect is uncertain: it must not claim the deletion.
    assert.notEqual(done.output, DELETED_ANSWER);
    assert.doesNotMatch(done.output ?? "", /^Deleted/);
    assert.deepEqual(env.parentTurns, [0, 1, 2]);
    assert.equal(child.modelCalls + env.parentTurns.length, 3);
    assert.equal((await readEffects(env.ws)).length, 1, "not deleted again");
    assertOneResultPerCall(done);
  }));

Deno.test("SIGKILL inside an idempotent write after it acted: the resume reruns it with the same key, applied once", () =>
  withEnv("ledger", async (env) => {
    const { child, blocked } = await crashAt(env, "tool-done:record_once");
    const key = `${env.runId}:call_0_0`;
    assert.equal(blocked.key, key);
    assert.equal(child.modelCalls, 1);
    assert.deepEqual(await readEffects(env.ws), [{ key, path: "payment-42" }]);

    const done = await resume(env);
    assert.equal(done.status, "completed", `stopped: ${done.stopReason}`);
    assert.equal(done.output, `${LEDGER_ANSWER}recorded payment-42`);
    assert.deepEqual(env.parentTurns, [1]);
    assert.equal(child.modelCalls + env.parentTurns.length, 2);
    assert.deepEqual(parentToolStarts(env), ["record_once:call_0_0"]);
    assert.deepEqual(await toolStarts(env), { call_0_0: 2 });
    const invocations = (await Deno.readTextFile(join(env.ws.dir, INVOCATIONS_LOG)))
      .split("\n").filter(Boolean);
    assert.deepEqual(invocations, [key, key], "ran twice, with the same idempotency key");
    assert.deepEqual(await readEffects(env.ws), [{ key, path: "payment-42" }], "applied once");
    assert.deepEqual(done.inFlight, []);
    assertOneResultPerCall(done);
    assertSameBill(done, await neverCrashed("ledger"));
  }));

Deno.test("SIGKILL mid-stream: the resume asks again and bills the reply once", () =>
  withEnv("ledger", async (env) => {
    const { child, blocked } = await crashAt(env, "streaming:1");
    assert.equal(child.modelCalls, 2);
    assert.ok(LEDGER_ANSWER.startsWith((blocked.deltas as string[]).join("")));
    // The streamed words were for watching: the record holds no part of the reply.
    const restored = await env.store.load(env.runId);
    assert.equal(restored.turns, 1);
    assert.equal(restored.messages.at(-1)?.role, "tool");
    const billed = restored.costUsd;

    const done = await resume(env);
    assert.equal(done.status, "completed", `stopped: ${done.stopReason}`);
    assert.equal(done.output, `${LEDGER_ANSWER}recorded payment-42`);
    assert.deepEqual(env.parentTurns, [1]);
    assert.ok(done.costUsd > billed);
    assertOneResultPerCall(done);
    assertSameBill(done, await neverCrashed("ledger"));
    // The resumed reply streamed again, whole.
    const resumedDeltas = env.events.flatMap((e) => e.type === "text_delta" ? [e.delta] : []);
    assert.equal(resumedDeltas.join(""), done.output);
  }));

Deno.test("two processes resume the same stopped run at once: exactly one proceeds", () =>
  withEnv("plan", async (env) => {
    // A stopped run: cancelled in this process as its first tool started.
    const stop = new AbortController();
    const stopped = await startRun(env.store, newRun(TASK, { system: SYSTEM, runId: env.runId }), {
      model: env.model,
      tools: env.tools,
      signal: stop.signal,
      trace: (e) => {
        if (e.type === "tool_start") stop.abort("operator stop");
      },
    });
    assert.equal(stopped.status, "interrupted");
    assert.equal(stopped.interruption?.type, "cancelled");
    assert.deepEqual(pending(stopped).map((c) => c.id), ["call_0_0"]);

    const children = [0, 1].map(() =>
      new Child(env.kvPath, env.ws, "plan", "tool-started:list_files", env.runId)
    );
    let outcomes: Line[];
    try {
      // The winner blocks holding its lease until both have spoken.
      outcomes = await Promise.all(
        children.map((c) => c.next((l) => l.blocking === true || l.at === "conflict")),
      );
    } finally {
      children.forEach((c) => c.kill());
    }
    const results = await Promise.all(children.map((c) => c.done));
    const winner = outcomes.findIndex((l) => l.blocking === true);
    const loser = outcomes.findIndex((l) => l.at === "conflict");
    assert.ok(winner >= 0 && loser >= 0 && winner !== loser, JSON.stringify(outcomes));
    assert.match(String(outcomes[loser].message), /being executed by pid/);
    assert.equal(results[loser].status.code, 3, results[loser].stderr);
    assert.equal(results[winner].status.signal, "SIGKILL");
    assert.equal(children[loser].modelCalls, 0);
    assert.equal(children[loser].at("tool-started").length, 0);
    assert.equal(children[winner].modelCalls, 0);

    const done = await resume(env);
    assert.equal(done.status, "completed");
    assert.deepEqual(env.parentTurns, [0, 1, 2]);
    assert.equal(done.turns, 3);
    // list_files is read-only: started here (cancelled), by the winner (killed), and on resume.
    assert.deepEqual(await toolStarts(env), { call_0_0: 3, call_1_0: 1 });
    assertOneResultPerCall(done);
    assertSameBill(done, await neverCrashed("plan"));
  }));
