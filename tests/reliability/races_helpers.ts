// Shared by the race and bad-input tests: a seeded PRNG and jitter, a run
// awaiting a verdict, an instrumented model and write tool, KV set-ups (one
// in-memory handle, or two handles on one temp file: two "processes"), and
// the invariants every race checks afterwards.
import { jsonCaller } from "../server_http.ts";
import { demoAgents } from "../../demo/agents.ts";
import assert from "node:assert/strict";
import { z } from "zod";
import type { Model, ModelRequest } from "../../harness/model.ts";
import type { RunState } from "../../harness/state.ts";
import { newRun } from "../../harness/state.ts";
import type { TraceEvent } from "../../harness/trace.ts";
import { defineTool } from "../../harness/tool.ts";
import type { AnyTool } from "../../harness/run_options.ts";
import type { StoredEvent } from "../../kv/events.ts";
import { KvRunStore } from "../../kv/kv_run_store.ts";
import { createApp, type ReinsApp } from "../../server/app.ts";
import { createExecutor, type Executor } from "../../runtime/executor.ts";
import { resolveDeps } from "../../server/deps.ts";
import { readEffects } from "../../tools/delete_file.ts";
import { openWorkspace } from "../../tools/workspace.ts";
import { join } from "node:path";
import { sleep } from "../../harness/sleep.ts";
// A seeded PRNG, so a failing trial can be replayed.
import { prng } from "./invariants.ts";
export { prng };

/** The id of the call every race is about. */
export const CALL = "c1";
/** The name of the instrumented write tool. */
export const WRITE = "write_note";
/** The name of the instrumented read-only tool. */
export const READ = "read_note";

export type Prng = ReturnType<typeof prng>;

/** Waits `ms` (0: one macrotask) and leaves no timer behind. */
export function tick(ms = 0): Promise<void> {
  return sleep(ms);
}

/**
 * Yields a random number of times, mixing microtask and macrotask turns, so
 * two concurrent operations interleave differently from trial to trial.
 */
export async function jitter(r: Prng, max = 6): Promise<void> {
  const n = r.int(max + 1);
  for (let i = 0; i < n; i++) {
    if (r.chance(0.5)) await Promise.resolve();
    else await tick(0);
  }
}

/** Counts outcomes by name and prints them as one line. */
export class Tally {
  readonly counts = new Map<string, number>();
  constructor(readonly label: string, readonly unit = "trials") {}
  add(outcome: string): void {
    this.counts.set(outcome, (this.counts.get(outcome) ?? 0) + 1);
  }
  get total(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }
  print(): void {
    const parts = [...this.counts.entries()].sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}: ${v}`);
    console.log(`  ${this.label} (${this.total} ${this.unit}) — ${parts.join(", ")}`);
  }
}

/** A stored-shape run that awaits a verdict on call {@link CALL} of `toolName`. */
export function awaitingRun(
  options: { toolName?: string; args?: Record<string, unknown>; model?: string } = {},
): RunState {
  const toolName = options.toolName ?? WRITE;
  const args = options.args ?? { text: "hello" };
  const s = newRun("Write the note.", { model: options.model ?? "race" });
  s.messages.push({
    role: "assistant",
    content: null,
    tool_calls: [{
      id: CALL,
      type: "function",
      function: { name: toolName, arguments: JSON.stringify(args) },
    }],
  });
  s.turns = 1;
  s.usage = { prompt_tokens: 40, completion_tokens: 8 };
  s.status = "interrupted";
  s.interruption = { type: "approval", callId: CALL, toolName, args, why: "needs_approval" };
  s.stopReason = `awaiting a verdict: ${toolName} (${CALL}) needs approval`;
  return s;
}

/** Options of {@link raceModel}. */
export interface RaceModelOptions {
  /** Tool the first turn calls (default {@link WRITE}). */
  tool?: string;
  /** Its arguments (default `{ text: "hello" }`). */
  args?: Record<string, unknown>;
  /** Delay of every reply in ms (abortable; default 0: one macrotask). */
  delayMs?: number;
}

/**
 * A model that calls `tool` once (id {@link CALL}) and then answers "done".
 * Counts its calls: those answered, and those aborted by the run's signal.
 */
export function raceModel(options: RaceModelOptions = {}) {
  const tool = options.tool ?? WRITE;
  const args = JSON.stringify(options.args ?? { text: "hello" });
  const model = {
    name: "race",
    /** Replies given (each one billed). */
    answered: 0,
    /** Calls cut by the run's signal (never billed). */
    aborted: 0,
    async complete(request: ModelRequest, signal: AbortSignal) {
      try {
        await abortableSleep(options.delayMs ?? 0, signal);
      } catch (e) {
        model.aborted++;
        throw e;
      }
      model.answered++;
      const called = request.messages.some((m) => m.role === "assistant");
      return {
        message: called ? { role: "assistant" as const, content: "done" } : {
          role: "assistant" as const,
          content: null,
          tool_calls: [{
            id: CALL,
            type: "function" as const,
            function: { name: tool, arguments: args },
          }],
        },
        usage: { prompt_tokens: 40, completion_tokens: 8 },
        finishReason: called ? "stop" : "tool_calls",
      };
    },
  };
  return model satisfies Model;
}

/** Sleeps `ms` unless `signal` aborts first (then rejects with its reason). */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    };
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** What the instrumented tools saw. */
export interface Effects {
  /** Times the write tool's effect was applied. */
  writes: number;
  /** Times a tool body started although its run's signal was already aborted. */
  startedAborted: number;
  /** Times the read-only tool ran. */
  reads: number;
  /** Tool bodies still going (a stubborn tool outlives its run). */
  running: Set<Promise<unknown>>;
}

export function newEffects(): Effects {
  return { writes: 0, startedAborted: 0, reads: 0, running: new Set() };
}

/** Options of {@link raceTools}. */
export interface RaceToolsOptions {
  /** How long the write tool works before applying its effect, in ms (abortable). */
  writeMs?: number;
  /** How long the read tool works (abortable). */
  readMs?: number;
  /**
   * The read tool ignores its signal: it keeps going after a Stop and then
   * reports progress (which must not reach the trace after `run_stopped`).
   */
  stubbornRead?: boolean;
}

/** The instrumented tools: a write needing approval, and a read-only one. */
export function raceTools(effects: Effects, options: RaceToolsOptions = {}): AnyTool[] {
  const write = defineTool<{ text: string }>({
    name: WRITE,
    description: "Writes a note (needs approval; not idempotent).",
    parameters: z.object({ text: z.string() }),
    readOnly: false,
    idempotent: false,
    needsApproval: true,
    async run(_args, ctx) {
      if (ctx.signal.aborted) effects.startedAborted++;
      await abortableSleep(options.writeMs ?? 0, ctx.signal);
      ctx.signal.throwIfAborted();
      effects.writes++;
      return "written";
    },
  });
  const read = defineTool<Record<string, never>>({
    name: READ,
    description: "Reads the note (read-only).",
    parameters: z.object({}),
    readOnly: true,
    run(_args, ctx) {
      if (ctx.signal.aborted) effects.startedAborted++;
      const body = (async () => {
        if (options.stubbornRead) {
          await tick(options.readMs ?? 0);
          ctx.progress("still reading", 0.5);
        } else await abortableSleep(options.readMs ?? 0, ctx.signal);
        effects.reads++;
        return "the note says hello";
      })();
      const tracked = body.catch(() => {});
      effects.running.add(tracked);
      tracked.finally(() => effects.running.delete(tracked));
      return body;
    },
  });
  return [write, read];
}

/** Waits until every tool body (stubborn ones too) has finished. */
export async function toolsSettled(effects: Effects): Promise<void> {
  while (effects.running.size) await Promise.all([...effects.running]);
}

/**
 * The transcript is well formed: every call id of every assistant message
 * has exactly one result, right after it, except the still-pending calls of
 * the last assistant message; no result answers an unknown call.
 */
export function assertWellFormed(s: RunState): void {
  const ms = s.messages;
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i];
    if (m.role === "tool") {
      let j = i - 1;
      while (j >= 0 && ms[j].role === "tool") j--;
      const owner = ms[j];
      assert.ok(
        owner?.role === "assistant" &&
          (owner.tool_calls ?? []).some((c) => c.id === m.tool_call_id),
        `run ${s.runId}: result for unknown call ${m.tool_call_id} at ${i}`,
      );
      continue;
    }
    if (m.role !== "assistant") continue;
    const ids = (m.tool_calls ?? []).map((c) => c.id);
    assert.equal(new Set(ids).size, ids.length, `run ${s.runId}: duplicate call ids at ${i}`);
    const results: string[] = [];
    for (let j = i + 1; j < ms.length && ms[j].role === "tool"; j++) {
      results.push((ms[j] as { tool_call_id: string }).tool_call_id);
    }
    assert.equal(new Set(results).size, results.length, `run ${s.runId}: a call answered twice`);
    const last = !ms.slice(i + 1).some((x) => x.role === "assistant");
    if (!last) {
      assert.deepEqual([...results].sort(), [...ids].sort(), `run ${s.runId}: unanswered call`);
    }
  }
}

/** Results recorded for `callId` in the transcript. */
export function resultsFor(s: RunState, callId = CALL): string[] {
  return s.messages.flatMap((m) =>
    m.role === "tool" && m.tool_call_id === callId ? [m.content] : []
  );
}

/**
 * The event log agrees with the record: exactly one `run_stopped` per
 * execution that reached an exit, the last one is the last event, and its
 * status is the stored status.
 */
export function assertEventLog(
  events: StoredEvent[],
  state: RunState,
  executions = 1,
): Extract<TraceEvent, { type: "run_stopped" }> {
  const seqs = events.map((e) => e.seq);
  assert.deepEqual(seqs, seqs.map((_, i) => i), `run ${state.runId}: gaps in the event log`);
  const stops = events.filter((e) => e.event.type === "run_stopped");
  assert.equal(stops.length, executions, `run ${state.runId}: run_stopped events`);
  const last = events.at(-1)!;
  assert.equal(last.event.type, "run_stopped", `run ${state.runId}: an event after run_stopped`);
  const stopped = last.event as Extract<TraceEvent, { type: "run_stopped" }>;
  assert.equal(stopped.status, state.status, `run ${state.runId}: run_stopped vs the record`);
  return stopped;
}

/** One in-memory KV, closed afterwards. */
export async function withMemoryKv<T>(fn: (kv: Deno.Kv) => Promise<T>): Promise<T> {
  const kv = await Deno.openKv(":memory:");
  try {
    return await fn(kv);
  } finally {
    kv.close();
  }
}

/** Two handles on one temp SQLite file (two "processes"), both closed and the file removed. */
export async function withFileKvs<T>(fn: (a: Deno.Kv, b: Deno.Kv) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "reins-races-" });
  const path = `${dir}/runs.sqlite`;
  const a = await Deno.openKv(path);
  const b = await Deno.openKv(path);
  try {
    return await fn(a, b);
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Every KV entry, as comparable text (key, value and versionstamp). */
export async function kvSnapshot(kv: Deno.Kv): Promise<string[]> {
  const out: string[] = [];
  for await (const e of kv.list({ prefix: [] })) {
    out.push(
      JSON.stringify(
        [e.key, e.value, e.versionstamp],
        (_k, v) => typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? [...v] : v,
      ),
    );
  }
  return out;
}

/** The error's class name, or "ok". */
export function outcomeOf(r: PromiseSettledResult<unknown>): string {
  return r.status === "fulfilled" ? "ok" : (r.reason as Error)?.name ?? String(r.reason);
}

/** What {@link withRaceApp} hands a test. */
export interface RaceApp {
  app: ReinsApp;
  kv: Deno.Kv;
  store: KvRunStore;
  executor: Executor;
  /** The folder of the runs' workspaces. */
  root: string;
  /** Sends a JSON request; returns status and parsed body. */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
    // deno-lint-ignore no-explicit-any
  ): Promise<{ status: number; body: any }>;
  /** The deletions `delete_file` applied in the workspace of tree `rootId`. */
  effects(rootId: string): Promise<number>;
}

/** Options of {@link withRaceApp}. */
export interface RaceAppOptions {
  /** The model every run plays (default: delete notes.txt, then answer). */
  model?: Model;
  /** Bearer token. */
  token?: string;
  /** Wraps the KV the app uses (e.g. to hook a write); the test gets the real one. */
  wrapKv?: (kv: Deno.Kv) => Deno.Kv;
  /** KV path (default ":memory:"). */
  kvPath?: string;
}

/**
 * The app over a real KV with runs executed in process (`schedule` starts
 * the executor at once, no queue), the model given, and the demo tools in a
 * workspace per tree; all torn down afterwards.
 */
export async function withRaceApp(
  options: RaceAppOptions,
  fn: (s: RaceApp) => Promise<void>,
): Promise<void> {
  const kv = await Deno.openKv(options.kvPath ?? ":memory:");
  const root = await Deno.makeTempDir({ prefix: "reins-races-ws-" });
  const appKv = options.wrapKv ? options.wrapKv(kv) : kv;
  const store = new KvRunStore(appKv);
  const model = options.model ??
    raceModel({ tool: "delete_file", args: { path: "notes.txt" } });
  const deps = {
    kv: appKv,
    store,
    token: options.token,
    agents: demoAgents(),
    defaultAgent: "demo",
    makeModel: () => model,
    defaultModel: "race",
    workspaceRoot: root,
    pollMs: 5,
    // Called only once a request is served, when `executor` exists.
    schedule: (id: string) => executor.spawn(id),
  };
  const executor: Executor = createExecutor(resolveDeps(deps));
  const app = createApp(deps);
  const call: RaceApp["call"] = jsonCaller(app, options.token);
  const effects = async (rootId: string) => {
    try {
      return (await readEffects(openWorkspace(join(root, rootId)))).length;
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return 0; // never executed: no workspace
      throw e;
    }
  };
  try {
    await fn({ app, kv, store, executor, root, call, effects });
  } finally {
    await executor.stop();
    kv.close();
    await Deno.remove(root, { recursive: true });
  }
}

/**
 * A KV whose every method goes to `kv`, except that `before` runs once,
 * right before the first commit that sets a key/value `match` accepts (in an
 * atomic or a plain `set`): it injects a concurrent write at an exact point.
 */
export function hookWrite(
  kv: Deno.Kv,
  match: (key: Deno.KvKey, value: unknown) => boolean,
  before: () => Promise<void>,
): Deno.Kv {
  let fired = false;
  const fire = async () => {
    if (fired) return;
    fired = true;
    await before();
  };
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "set") {
        return async (key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) => {
          if (match(key, value)) await fire();
          return await target.set(key, value, options);
        };
      }
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          let hit = false;
          const proxy: Deno.AtomicOperation = new Proxy(op, {
            get(o, p) {
              if (p === "commit") {
                return async () => {
                  if (hit) await fire();
                  return await o.commit();
                };
              }
              const v = Reflect.get(o, p, o);
              if (typeof v !== "function") return v;
              return (...a: unknown[]) => {
                if (p === "set" && match(a[0] as Deno.KvKey, a[1])) hit = true;
                const r = v.apply(o, a);
                return r === o ? proxy : r;
              };
            },
          });
          return proxy;
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}
