// The crash soak's executor: what one execution of a soak run is (scenario,
// tools, model, store), shared by the driver (tests/reliability/soak.ts, which
// executes some resumes in process) and by this file's child process, which
// executes a run on a KV file and may be killed with SIGKILL at any moment.
//
//   deno run -A --unstable-kv tests/reliability/soak_child.ts '<ExecSpec as JSON>'
//
// The child prints one JSON line per moment (`ready`, `request`, `reply`,
// `saved`, `event`, `stored`, `tool`, `done`, `conflict`), each numbered (`n`) and
// carrying `modelCalls`, the requests this process made at the provider. With
// `blockAt: k` it blocks at its k-th blockable moment (after printing it with
// `"blocking":true`) so the driver can kill it exactly there; otherwise the
// driver kills it after a random delay, or not at all.
import { printLine } from "../../cli/child_lines.ts";
import { newRun, type RunState } from "../../harness/state.ts";
import { RunConflictError, RunNotFoundError } from "../../harness/errors.ts";
import type { ChatMessage } from "../../harness/messages.ts";
import type { Model } from "../../harness/model.ts";
import type { AnyTool } from "../../harness/run_options.ts";
import type { TraceEvent, TraceSink } from "../../harness/trace.ts";
import { countTokens, loadTokenizer } from "../../harness/tokens.ts";
import { createOpenAIModel } from "../../openai/openai_model.ts";
import { SCRIPTED_BASE_URL } from "../../testing/scripted_model.ts";
import { scriptedFetch } from "../../testing/scripted_provider.ts";
import { demoTools } from "../../tools/catalog.ts";
import { listFilesTool } from "../../tools/list_files.ts";
import { readFileTool } from "../../tools/read_file.ts";
import { scanArchiveTool } from "../../tools/scan_archive.ts";
import { openWorkspace, type Workspace } from "../../tools/workspace.ts";
import { openKv } from "../../kv/open_kv.ts";
import { KvRunStore } from "../../kv/kv_run_store.ts";
import { executeTree } from "../../runtime/execute_tree.ts";
import { researchTool } from "../../subagents/research.ts";
import { CRASH_SCENARIOS, recordOnceTool } from "../fixtures/kv_crash_child.ts";
import { sleep } from "../../harness/sleep.ts";

await loadTokenizer(); // the counting functions need the encoder loaded

/** What the driver knows of a soak scenario. */
export interface SoakScenario {
  /** The scripted provider's scenario (the model name). */
  model: string;
  /** Levels of `research` below the root (a tree), else a single run with the demo tools. */
  depth?: number;
  /** Turn cap stored with the run. */
  maxTurns?: number;
  /** The root's expected exit. */
  expect: "completed" | "max_turns_exceeded";
  /** Stops for verdicts (needs a person). */
  verdicts?: boolean;
}

/** The soak's scenarios by name: single runs, trees and an idempotent write (`ledger`). */
export const SOAK_SCENARIOS: Readonly<Record<string, SoakScenario>> = Object.freeze({
  plan: { model: "plan", expect: "completed" },
  runaway: { model: "runaway", maxTurns: 3, expect: "max_turns_exceeded" },
  recover: { model: "recover", expect: "completed" },
  repeat: { model: "repeat", expect: "completed" },
  destructive: { model: "destructive", expect: "completed", verdicts: true },
  "destructive-twice": { model: "destructive-twice", expect: "completed", verdicts: true },
  slow: { model: "slow", expect: "completed" },
  research: { model: "research", depth: 1, expect: "completed" },
  "research-deep": { model: "research-deep", depth: 2, expect: "completed" },
  ledger: { model: "ledger", expect: "completed" },
});

/** How long `scan_archive` takes in the soak (short, so kills land inside it too). */
export const SCAN_MS = 120;
/** Provider latency per request: a request is in flight this long (kills land there). */
export const LATENCY_MS = 10;
/** The system prompt of every soak root. */
export const SYSTEM = "You are an operations assistant. Use the tools to answer; be brief.";

/**
 * The task of every soak root: the same for all (so a crashed run bills what an
 * uncrashed one does), and never one of the tree scenarios' questions (a run
 * whose task is a question plays that child).
 */
export const TASK = "Look into the workspace and report what you find.";

/** One execution of a soak run (the child's argument, as JSON). */
export interface ExecSpec {
  /** The KV file. */
  kvPath: string;
  /** The run's workspace folder. */
  wsDir: string;
  /** The root's id. */
  runId: string;
  /** A key of {@link SOAK_SCENARIOS}. */
  scenario: string;
  /** Lease time of the executor, ms. */
  leaseMs: number;
  /** Block at this blockable moment (1-based), to be killed there. */
  blockAt?: number;
}

/** The first user message of a transcript: names a run within its tree. */
export function labelOf(messages: readonly ChatMessage[]): string {
  const m = messages.find((m) => m.role === "user");
  return m?.role === "user" ? m.content : "";
}

/** What an execution reports, as it happens. */
export interface Probe {
  /** A request reached the provider (synchronous: counted even if killed right after). */
  request(label: string, turn: number): void;
  /** A moment: printed (child) or recorded (driver); may block (to be killed). */
  moment(at: string, fields: Record<string, unknown>): Promise<void>;
}

/** The tools of a scenario, each reporting `tool` moments around its work. */
export function soakTools(scenario: SoakScenario, ws: Workspace, probe: Probe): AnyTool[] {
  const wrap = (tool: AnyTool): AnyTool => ({
    ...tool,
    async run(args, ctx) {
      const fields = { phase: "start", tool: tool.name, runId: ctx.runId, callId: ctx.callId };
      await probe.moment("tool", fields);
      const out = await tool.run(args, ctx);
      await probe.moment("tool", { ...fields, phase: "done" });
      return out;
    },
  });
  if (scenario.depth) {
    const inner = [listFilesTool(ws), readFileTool(ws), scanArchiveTool(ws, { ms: SCAN_MS })];
    return [wrap(researchTool({ tools: inner.map(wrap), depth: scenario.depth }))];
  }
  return [...demoTools(ws, { scan: { ms: SCAN_MS } }), recordOnceTool(ws)].map(wrap);
}

/**
 * The scripted model of a scenario. Every request is reported to the probe at
 * the provider's door (label: the run's first user message; turn: its
 * assistant messages), and each reply once it is back (`reply`, blockable:
 * billed, not yet committed).
 */
export function soakModel(scenario: SoakScenario, probe: Probe): Model {
  const provider = scriptedFetch({ scenarios: CRASH_SCENARIOS, latencyMs: LATENCY_MS });
  const inner = createOpenAIModel({
    baseUrl: SCRIPTED_BASE_URL,
    model: scenario.model,
    maxRetries: 0,
    fetch: (input, init) => {
      const body = JSON.parse(String(init?.body)) as { messages: ChatMessage[] };
      const turn = body.messages.filter((m) => m.role === "assistant").length;
      probe.request(labelOf(body.messages), turn);
      return provider(input, init);
    },
  });
  return {
    name: inner.name,
    async complete(request, signal) {
      const reply = await inner.complete(request, signal);
      const turn = request.messages.filter((m) => m.role === "assistant").length;
      await probe.moment("reply", { label: labelOf(request.messages), turn });
      return reply;
    },
  };
}

/** A `KvRunStore` reporting every committed save (`saved`) and stored `turn` event (`stored`). */
export function probedStore(kv: Deno.Kv, leaseMs: number, probe: Probe): KvRunStore {
  class ProbedStore extends KvRunStore {
    /** Also a moment once a `turn` event is stored (its reply billed, maybe not committed). */
    override traceSink(): TraceSink {
      const sink = super.traceSink();
      return async (e) => {
        await sink(e);
        if (e.type === "turn") await probe.moment("stored", { type: e.type, runId: e.runId });
      };
    }

    override async save(state: Readonly<RunState>): Promise<void> {
      await super.save(state);
      await probe.moment("saved", {
        runId: state.runId,
        label: labelOf(state.messages),
        turns: state.turns,
        status: state.status,
        inFlight: state.inFlight,
      });
    }
  }
  return new ProbedStore(kv, { leaseMs });
}

/** Waits until run `id` has no live lease (a killed executor's lapses); false after `maxMs`. */
export async function leaseFree(store: KvRunStore, id: string, maxMs: number): Promise<boolean> {
  const started = performance.now();
  while (await store.leaseHolder(id)) {
    if (performance.now() - started > maxMs) return false;
    await sleep(20);
  }
  return true;
}

/**
 * Executes (starts, or resumes) the soak run of `spec` with the tree's Stop
 * watched, reporting to `probe`. Throws `RunConflictError` when another
 * executor holds the run.
 */
export async function executeSoak(
  kv: Deno.Kv,
  spec: ExecSpec,
  probe: Probe,
): Promise<RunState> {
  const scenario = SOAK_SCENARIOS[spec.scenario];
  if (!scenario) throw new Error(`unknown soak scenario ${spec.scenario}`);
  const ws = openWorkspace(spec.wsDir);
  const store = probedStore(kv, spec.leaseMs, probe);
  const options = {
    model: soakModel(scenario, probe),
    tools: soakTools(scenario, ws, probe),
    trace: (e: TraceEvent) =>
      probe.moment("event", {
        type: e.type,
        runId: e.runId,
        ...(e.type === "turn" ? { turn: e.turn } : {}),
      }),
    pollMs: 100,
  };
  const stored = await store.load(spec.runId).then(() => true, (e) => {
    if (e instanceof RunNotFoundError) return false;
    throw e;
  });
  if (!stored) {
    await store.save(newRun(TASK, {
      system: SYSTEM,
      runId: spec.runId,
      model: scenario.model,
      ...(scenario.maxTurns ? { limits: { maxTurns: scenario.maxTurns } } : {}),
    }));
  }
  return await executeTree(store, kv, spec.runId, options);
}

async function main(): Promise<void> {
  const spec = JSON.parse(Deno.args[0] ?? "null") as ExecSpec | null;
  if (!spec?.kvPath || !spec.runId) {
    console.error("usage: soak_child.ts '<ExecSpec as JSON>'");
    Deno.exit(2);
  }
  let n = 0;
  let moments = 0;
  let modelCalls = 0;
  const say = (line: Record<string, unknown>) => printLine({ ...line, n: ++n, modelCalls });
  const probe: Probe = {
    request(label, turn) {
      modelCalls++;
      say({ at: "request", label, turn });
    },
    async moment(at, fields) {
      const blocking = ++moments === spec.blockAt;
      say({ at, ...fields, ...(blocking ? { blocking } : {}) });
      if (!blocking) return;
      await sleep(60_000);
      console.error(`soak_child: not killed within 60 s at moment ${moments}`);
      Deno.exit(4);
    },
  };
  // The tokenizer takes seconds to load: load it before "ready", where kill delays start.
  countTokens("warm up the encoder");
  const kv = await openKv(spec.kvPath);
  try {
    // A killed executor's lease blocks the run for up to a lease time: wait it out here.
    const free = await leaseFree(new KvRunStore(kv), spec.runId, 10 * spec.leaseMs);
    say({ at: "ready", pid: Deno.pid, leaseFree: free });
    let done: RunState;
    try {
      done = await executeSoak(kv, spec, probe);
    } catch (e) {
      if (!(e instanceof RunConflictError)) throw e;
      say({ at: "conflict", message: e.message });
      Deno.exitCode = 3;
      return;
    }
    say({
      at: "done",
      status: done.status,
      interruption: done.interruption,
      stopReason: done.stopReason,
      turns: done.turns,
      costUsd: done.costUsd,
      moments,
    });
  } finally {
    kv.close();
  }
}

if (import.meta.main) await main();
