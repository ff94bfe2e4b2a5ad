// The crash soak: N scripted runs of mixed scenarios (single runs, trees, a
// destructive write that needs approval, an idempotent write), each executed
// in a real child process on a Deno KV file and killed with SIGKILL at a
// random moment (a random delay after the child is ready, or a random
// blockable moment: a reply back from the provider, a committed save, a trace
// event, a tool starting or done), then resumed by another process (a second
// child, or this one), some killed twice. A run that stops awaiting a verdict
// gets one (by seed) through the KV and is resumed. After every run:
//
// - every run of its tree ended, and its transcript is well formed (each tool
//   call has exactly one result);
// - no model turn was billed twice: the requests every process made at the
//   provider against the turns committed in KV, allowing exactly the requests
//   in flight at a kill (sent, reply never committed);
// - no non-idempotent effect was applied twice (the workspace's effects log),
//   unless a person approved retrying an uncertain one (reported), and no
//   write reported as done without its effect, none rejected with one;
// - the cost of every run equals the sum of its committed turns' costs (the
//   KV `turn` events) plus its children's, across the tree;
// - a run that needed a person stopped saying so (`interrupted/approval` with
//   the call and why, or `max_turns_exceeded` with the cap), and a run that
//   completed without uncertain verdicts billed what an uncrashed run bills.
//
//   deno task soak [--runs 300] [--seed 1] [--concurrency 2] [--kv shared|per-run] [--verbose]
import { readLines } from "../../cli/child_lines.ts";
import { parseArgs } from "node:util";
import { prng } from "./invariants.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pending, type RunState } from "../../harness/state.ts";
import { RunConflictError } from "../../harness/errors.ts";
import type { TurnEvent } from "../../harness/trace.ts";
import { countTokens, loadTokenizer } from "../../harness/tokens.ts";
import { type Effect, readEffects } from "../../tools/delete_file.ts";
import { createWorkspace, type Workspace } from "../../tools/workspace.ts";
import { openKv } from "../../kv/open_kv.ts";
import { KvRunStore } from "../../kv/kv_run_store.ts";
import { approveInTree, loadTree, rejectInTree } from "../../subagents/tree.ts";
import {
  type ExecSpec,
  executeSoak,
  labelOf,
  leaseFree,
  type Probe,
  SOAK_SCENARIOS,
} from "./soak_child.ts";

await loadTokenizer(); // the counting functions need the encoder loaded

const CHILD = fileURLToPath(new URL("./soak_child.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Options of {@link soak}. */
export interface SoakOptions {
  /** Runs in all (default 300). */
  runs?: number;
  /** Seed of every random choice (default 1). */
  seed?: number;
  /** Runs executing at once (default 2). */
  concurrency?: number;
  /** One KV file shared by every run and process (default, as in production), or one per run. */
  kv?: "per-run" | "shared";
  /** Lease time of every executor, ms (default 1000): a resume waits up to this after a kill. */
  leaseMs?: number;
  /** Chance a run is killed twice (default 0.35). */
  doubleKillChance?: number;
  /** Chance a clean resume runs in a new child rather than in this process (default 0.5). */
  childResumeChance?: number;
  /** Scenarios to draw from (default: all of `SOAK_SCENARIOS`). */
  scenarios?: readonly string[];
  /** Called with a line per finished run. */
  log?: (line: string) => void;
}

/** What the soak did and found. */
export interface SoakReport {
  seed: number;
  runs: number;
  concurrency: number;
  kv: "per-run" | "shared";
  byScenario: Record<string, number>;
  /** Executions in child processes, and in the driver's process. */
  executions: { children: number; inProcess: number };
  /** SIGKILLs delivered, by how the moment was chosen. */
  kills: { total: number; byDelay: number; byEvent: number; atBackstop: number };
  /** Runs killed twice or more. */
  doubleKills: number;
  /** Kill attempts the child outran (it stopped before the moment came). */
  killMisses: number;
  /** Runs never killed (every attempt missed). */
  neverKilled: number;
  /** What the killed child had last printed, by kind. */
  killedAt: Record<string, number>;
  /** Executions after a run's first: by a new child, or in the driver. */
  resumes: { byChild: number; inProcess: number };
  /** Child processes: mean ms from spawn to `ready` (tokenizer, KV open, lease wait), and of clean executions after it. */
  timing: { spawnToReadyMs: number; cleanExecutionMs: number };
  /** Lease conflicts met (an executor found the run held). */
  conflicts: number;
  /** Times a run still read "awaiting a verdict" after its verdict (the resume was killed first). */
  verdictsAwaitingResume: number;
  /** Verdicts given through the KV, by kind. */
  verdicts: Record<string, number>;
  /** Requests at the provider = committed turns + requests in flight at kills. */
  requests: {
    total: number;
    committedTurns: number;
    inFlightAtKill: number;
    /** Of those in flight, replies that came back and were traced, never committed. */
    tracedLostReplies: number;
  };
  /** Effects in the workspaces. */
  effects: { deletes: number; ledger: number; reappliedAfterApprovedRetry: number };
  /** Final exits of the roots. */
  exits: Record<string, number>;
  violations: string[];
  wallMs: number;
}

type Rng = ReturnType<typeof prng>;

/** One process's part in a run: what it asked the provider and what it saw committed. */
interface Proc {
  name: string;
  killed: boolean;
  /** Requests in order, with the turns of the run this process had seen committed before. */
  requests: { label: string; turn: number; before: number }[];
  /** Run label -> most turns this process saw committed. */
  saved: Map<string, number>;
  moments: number;
  /** The last line printed (what the kill interrupted). */
  last: string;
  /** Verdicts given before it ran. */
  segment: number;
}

function newProc(name: string): Proc {
  return { name, killed: false, requests: [], saved: new Map(), moments: 0, last: "", segment: 0 };
}

function record(proc: Proc, at: string, fields: Record<string, unknown>): void {
  proc.last = at === "event" || at === "stored"
    ? `${at}:${fields.type}`
    : at === "tool"
    ? `tool-${fields.phase}:${fields.tool}`
    : at;
  if (at === "saved") {
    const label = String(fields.label);
    proc.saved.set(label, Math.max(proc.saved.get(label) ?? 0, Number(fields.turns)));
  }
}

function recordingProbe(proc: Proc): Probe {
  return {
    request(label, turn) {
      proc.requests.push({ label, turn, before: proc.saved.get(label) ?? 0 });
      proc.last = "request";
    },
    moment(at, fields) {
      proc.moments++;
      record(proc, at, fields);
      return Promise.resolve();
    },
  };
}

/**
 * When to kill: `ms` after `ready` (with `fromReady`, while it loads the run and
 * takes its lease) or after its first moment (its work begun), or at moment `k`.
 * A delay may have a `backstop` moment: killed there if the delay has not come
 * by then (so a run's only kill is not lost to a child faster than estimated).
 */
type Kill =
  | { mode: "delay"; ms: number; fromReady: boolean; backstop?: number }
  | { mode: "event"; k: number };

interface ChildResult {
  proc: Proc;
  outcome: "killed" | "done" | "conflict" | "error";
  /** ms from `ready` to exit (a clean execution's duration). */
  ms: number;
  /** ms from spawn to `ready`. */
  startMs: number;
  /** ms from `ready` to the first moment (loading the run, taking its lease), 0 if none. */
  firstMs: number;
  /** ms from the first moment to the last. */
  workMs: number;
  /** Killed at the delay's backstop moment. */
  backstopped: boolean;
  error?: string;
}

/** Spawns a child executing `spec`, kills it as `kill` says, and collects its lines. */
async function runChild(spec: ExecSpec, kill: Kill | null, name: string): Promise<ChildResult> {
  const proc = newProc(name);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", CHILD, JSON.stringify(spec)],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const spawnedAt = performance.now();
  const stderr = new Response(child.stderr).text();
  let killedByUs = false;
  const killNow = () => {
    killedByUs = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // already exited
    }
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = setTimeout(() => {
    proc.last = "hung";
    killNow();
  }, 90_000);
  let readyAt = 0;
  let backstopped = false;
  let lastAt = 0;
  let firstAt = 0;
  let doneLine: Record<string, unknown> | null = null;
  let conflict = false;
  for await (const { value: line } of readLines(child.stdout)) {
    if (line === null) continue;
    const at = String(line.at);
    if (at === "ready") {
      readyAt = performance.now();
      proc.last = "ready";
      if (kill?.mode === "delay" && kill.fromReady) timer = setTimeout(killNow, kill.ms);
    } else if (at === "request") {
      const label = String(line.label);
      proc.requests.push({ label, turn: Number(line.turn), before: proc.saved.get(label) ?? 0 });
      proc.last = "request";
    } else if (at === "done") doneLine = line;
    else if (at === "conflict") conflict = true;
    else {
      lastAt = performance.now();
      if (!proc.moments && readyAt) {
        firstAt = lastAt;
        if (kill?.mode === "delay" && !kill.fromReady) timer = setTimeout(killNow, kill.ms);
      }
      proc.moments++;
      record(proc, at, line);
    }
    if (line.blocking === true) {
      if (kill?.mode === "delay") backstopped = true;
      killNow();
    }
  }
  const status = await child.status;
  clearTimeout(timer);
  clearTimeout(guard);
  const errors = await stderr;
  const ms = readyAt ? performance.now() - readyAt : 0;
  const startMs = readyAt ? readyAt - spawnedAt : 0;
  const firstMs = firstAt ? firstAt - readyAt : 0;
  const workMs = firstAt ? lastAt - firstAt : 0;
  const times = { ms, startMs, firstMs, workMs, backstopped };
  if (proc.last === "hung") {
    return {
      proc,
      outcome: "error",
      ...times,
      error: `${name} hung (killed after 90 s): ${errors}`,
    };
  }
  if (killedByUs && status.signal === "SIGKILL") {
    proc.killed = true;
    return { proc, outcome: "killed", ...times };
  }
  if (conflict) return { proc, outcome: "conflict", ...times };
  if (status.success && doneLine) return { proc, outcome: "done", ...times };
  return {
    proc,
    outcome: "error",
    ...times,
    error: `${name} exited with code ${status.code}: ${errors.trim().slice(-2000)}`,
  };
}

/** Per (scenario, segment): how many blockable moments and ms an execution from its start takes. */
interface Estimate {
  moments: number;
  ms: number;
}

/** An uncrashed execution in process (memory KV): its bill, per verdict sequence. */
interface Baseline {
  status: string;
  turns: number;
  costUsd: number;
  output: RunState["output"];
  segments: Estimate[];
}

async function baseline(
  scenario: string,
  verdicts: readonly boolean[],
  dir: string,
): Promise<Baseline> {
  const kv = await Deno.openKv(":memory:");
  const ws = await createWorkspace({ parent: dir });
  try {
    const store = new KvRunStore(kv);
    const runId = `baseline-${scenario}-${verdicts.map((v) => (v ? "A" : "R")).join("")}`;
    const spec: ExecSpec = { kvPath: ":memory:", wsDir: ws.dir, runId, scenario, leaseMs: 1000 };
    const segments: Estimate[] = [];
    let root: RunState;
    for (let seg = 0;; seg++) {
      const proc = newProc("baseline");
      const t0 = performance.now();
      root = await executeSoak(kv, spec, recordingProbe(proc));
      segments.push({ moments: proc.moments, ms: performance.now() - t0 });
      const i = root.interruption;
      if (root.status !== "interrupted" || i?.type !== "approval") break;
      if (seg > 8) throw new Error(`baseline ${scenario}: too many verdicts`);
      if (verdicts[seg] ?? true) await approveInTree(store, runId, i.callId);
      else await rejectInTree(store, runId, i.callId, "soak: rejected by seed");
    }
    return {
      status: root.status,
      turns: root.turns,
      costUsd: root.costUsd,
      output: root.output,
      segments,
    };
  } finally {
    kv.close();
    await ws.remove();
  }
}

const near = (a: number, b: number) =>
  Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** Everything the soak shares between runs. */
interface Shared {
  options: Required<Omit<SoakOptions, "log" | "scenarios">> & { scenarios: readonly string[] };
  dir: string;
  sharedKv: Deno.Kv | null;
  baselines: Map<string, Promise<Baseline>>;
  /** EMA of clean child durations per (scenario, segment). */
  learned: Map<string, number>;
  /** EMA of a child's ms from `ready` to its first moment. */
  offsetMs: number;
  /** EMA of how much slower a child's execution is than the in-process baseline's. */
  ratio: number;
  timing: { starts: number[]; clean: number[] };
  report: SoakReport;
  log: (line: string) => void;
}

function baselineOf(sh: Shared, scenario: string, verdicts: readonly boolean[]): Promise<Baseline> {
  const key = `${scenario}|${verdicts.map((v) => (v ? "A" : "R")).join("")}`;
  let b = sh.baselines.get(key);
  if (!b) sh.baselines.set(key, b = baseline(scenario, verdicts, sh.dir));
  return b;
}

function bump(map: Record<string, number>, key: string, n = 1): void {
  map[key] = (map[key] ?? 0) + n;
}

/** One soak run: executions until the root exits for good, then every invariant. */
async function soakRun(sh: Shared, index: number): Promise<void> {
  const { report } = sh;
  const rng: Rng = prng((sh.options.seed * 0x9e3779b1 + index * 0x85ebca6b) >>> 0);
  const scenarios = sh.options.scenarios;
  const scenarioName = scenarios[(index + sh.options.seed) % scenarios.length];
  const scenario = SOAK_SCENARIOS[scenarioName];
  bump(report.byScenario, scenarioName);
  const runDir = join(sh.dir, `run-${index}`);
  const ws = await createWorkspace({ parent: runDir });
  const kvPath = sh.sharedKv ? join(sh.dir, "soak.sqlite") : join(runDir, "runs.sqlite");
  const kv = sh.sharedKv ?? await openKv(kvPath);
  const runId = `soak-${sh.options.seed}-${index}`;
  const spec: ExecSpec = {
    kvPath,
    wsDir: ws.dir,
    runId,
    scenario: scenarioName,
    leaseMs: sh.options.leaseMs,
  };
  const violations: string[] = [];
  const fail = (what: string) => violations.push(`${runId} (${scenarioName}): ${what}`);
  const procs: Proc[] = [];
  const verdicts: boolean[] = [];
  let given = 0;
  let onlyNeedsApproval = true;
  const uncertainApproved = new Set<string>();
  const wantKills = rng.chance(sh.options.doubleKillChance) ? 2 : 1;
  const spareFirst = scenario.verdicts === true && rng.chance(0.7);
  let kills = 0;
  const killKinds: string[] = [];
  try {
    for (let execution = 0;; execution++) {
      // How long each segment (the executions between verdicts) runs uncrashed, on this path.
      const calibration =
        (await baselineOf(sh, scenarioName, onlyNeedsApproval ? verdicts : [])).segments;
      if (execution >= 16) {
        fail("did not finish within 16 executions");
        break;
      }
      const segment = given;
      const estKey = `${scenarioName}|${segment}`;
      // A run that needs a verdict often spares its first segment, so more kills
      // land after an approval: inside the write, where its effect becomes uncertain.
      const killable = kills < wantKills && (given > 0 || !spareFirst);
      const inChild = execution === 0 || killable || rng.chance(sh.options.childResumeChance);
      const name = `${inChild ? "child" : "driver"}#${execution}`;
      if (execution > 0) {
        if (inChild) report.resumes.byChild++;
        else report.resumes.inProcess++;
      }
      let outcome: ChildResult["outcome"];
      if (inChild) {
        report.executions.children++;
        let kill: Kill | null = null;
        if (killable) {
          const est = calibration[Math.min(segment, calibration.length - 1)];
          // After a kill mid-segment, only the rest of it is left to run.
          const prev = procs.at(-1);
          const done = prev?.killed && prev.segment === segment ? prev.moments : 0;
          const left = Math.max(0.2, 1 - done / Math.max(1, est.moments));
          const moments = Math.max(1, Math.round(est.moments * left));
          // How long a child works from its first moment: as learned, else the
          // in-process baseline's time scaled to a cold child (a little short of it,
          // so fewer kills come after the child is gone).
          const work = 0.85 * left * (sh.learned.get(estKey) ?? est.ms * sh.ratio);
          const fromReady = rng.chance(0.15);
          const ms = fromReady ? sh.offsetMs + work : work;
          kill = rng.chance(0.5)
            ? {
              mode: "delay",
              ms: Math.round(rng.next() * ms),
              fromReady,
              ...(kills === 0 ? { backstop: moments } : {}),
            }
            : { mode: "event", k: 1 + rng.int(moments) };
        }
        const blockAt = kill?.mode === "event" ? kill.k : kill?.backstop;
        const res = await runChild({ ...spec, ...(blockAt ? { blockAt } : {}) }, kill, name);
        res.proc.segment = segment;
        procs.push(res.proc);
        outcome = res.outcome;
        if (res.startMs) sh.timing.starts.push(res.startMs);
        if (res.firstMs) sh.offsetMs = 0.8 * sh.offsetMs + 0.2 * res.firstMs;
        if (res.outcome === "done") sh.timing.clean.push(res.ms);
        if (res.outcome === "killed") {
          kills++;
          report.kills.total++;
          if (res.backstopped) report.kills.atBackstop++;
          else if (kill?.mode === "delay") report.kills.byDelay++;
          else report.kills.byEvent++;
          const inFlight = res.proc.requests.some((r) =>
            r.turn >= (res.proc.saved.get(r.label) ?? 0)
          );
          const kind = inFlight && res.proc.last === "request"
            ? "request in flight"
            : res.proc.last;
          killKinds.push(kind);
          bump(report.killedAt, kind);
        } else if (res.outcome === "error") {
          fail(res.error ?? "child failed");
          break;
        } else if (res.outcome === "conflict") {
          report.conflicts++;
        } else {
          if (kill) {
            report.killMisses++;
            killKinds.push(
              `missed ${
                kill.mode === "delay"
                  ? `${kill.ms} ms of ${Math.round(res.ms)}`
                  : `moment ${kill.k} of ${res.proc.moments}`
              }`,
            );
          }
          // A clean execution from a segment's start teaches how long one takes.
          if (execution === 0 || procs.at(-2)?.killed === false) {
            const work = res.workMs;
            const old = sh.learned.get(estKey);
            sh.learned.set(estKey, old === undefined ? work : 0.8 * old + 0.2 * work);
            const base = calibration[Math.min(segment, calibration.length - 1)].ms;
            if (base > 0 && res.firstMs) {
              sh.ratio = 0.8 * sh.ratio + 0.2 * Math.max(1, res.workMs / base);
            }
          }
        }
      } else {
        report.executions.inProcess++;
        const proc = newProc(name);
        procs.push(proc);
        const store = new KvRunStore(kv);
        if (!(await leaseFree(store, runId, 10 * sh.options.leaseMs))) {
          fail(`the dead executor's lease never lapsed (${10 * sh.options.leaseMs} ms)`);
          break;
        }
        try {
          await executeSoak(kv, spec, recordingProbe(proc));
          outcome = "done";
        } catch (e) {
          if (!(e instanceof RunConflictError)) {
            fail(`in-process execution threw: ${e instanceof Error ? e.stack : e}`);
            break;
          }
          report.conflicts++;
          outcome = "conflict";
        }
      }
      if (outcome === "conflict") continue;

      // Where is the run now?
      const store = new KvRunStore(kv);
      let root: RunState;
      try {
        root = await store.load(runId);
      } catch {
        continue; // killed before its first save: the next execution starts it
      }
      if (root.status === "running") continue; // killed: resume it
      const i = root.interruption;
      if (root.status === "interrupted" && i?.type === "cancelled") {
        fail(`stopped cancelled: ${root.stopReason}`);
        break;
      }
      if (root.status === "interrupted" && i?.type === "approval") {
        // It needed a person: it must say so, naming the call and why.
        const holderId = i.runId ?? root.runId;
        const holder = holderId === root.runId ? root : await store.load(holderId);
        const key = `${holder.runId}:${i.callId}`;
        if (
          holder.approved.includes(i.callId) || holder.rejected.some((r) => r.callId === i.callId)
        ) {
          // Its verdict is in, and the resume was killed before it saved anything: resume again.
          report.verdictsAwaitingResume++;
          continue;
        }
        if (!/^awaiting a verdict: /.test(root.stopReason ?? "")) {
          fail(`approval stop without a reason: ${root.stopReason}`);
        }
        if (
          holder.status !== "interrupted" || holder.interruption?.type !== "approval" ||
          holder.interruption.callId !== i.callId ||
          !pending(holder).some((c) => c.id === i.callId)
        ) fail(`root awaits ${key} but its holder does not`);
        if (i.why === "uncertain_effect" && !holder.inFlight.includes(i.callId)) {
          fail(`uncertain ${key} is not in flight`);
        }
        if (
          i.why === "needs_approval" &&
          (await readEffects(ws)).some((e: Effect) => e.key === key)
        ) fail(`${key} has an effect before its approval`);
        const approveIt = rng.chance(i.why === "uncertain_effect" ? 0.5 : 0.6);
        bump(report.verdicts, `${approveIt ? "approve" : "reject"} ${i.why}`);
        given++;
        if (i.why === "uncertain_effect") {
          onlyNeedsApproval = false;
          if (approveIt) uncertainApproved.add(key);
        } else verdicts.push(approveIt);
        if (approveIt) await approveInTree(store, runId, i.callId);
        else await rejectInTree(store, runId, i.callId, "soak: rejected by seed");
        continue;
      }
      break; // a final exit
    }
    if (kills === 0) report.neverKilled++;
    if (kills >= 2) report.doubleKills++;
    if (!violations.length) {
      await checkRun(
        sh,
        kv,
        ws,
        runId,
        scenarioName,
        procs,
        uncertainApproved,
        onlyNeedsApproval ? verdicts : null,
        fail,
      );
    }
  } catch (e) {
    fail(`soak driver error: ${e instanceof Error ? e.stack : e}`);
  } finally {
    if (!sh.sharedKv) kv.close();
    if (!violations.length) await Deno.remove(runDir, { recursive: true }).catch(() => {});
  }
  report.violations.push(...violations);
  sh.log(
    `${runId} ${scenarioName}: ${procs.length} executions, ${kills} kills (${
      killKinds.join(", ") || "none"
    })${violations.length ? `, ${violations.length} VIOLATIONS` : ""}`,
  );
}

async function checkRun(
  sh: Shared,
  kv: Deno.Kv,
  ws: Workspace,
  runId: string,
  scenarioName: string,
  procs: Proc[],
  uncertainApproved: ReadonlySet<string>,
  verdicts: readonly boolean[] | null,
  fail: (what: string) => void,
): Promise<void> {
  const { report } = sh;
  const scenario = SOAK_SCENARIOS[scenarioName];
  const store = new KvRunStore(kv);
  const nodes = await loadTree(store, runId);
  const states = new Map<string, RunState>();
  for (const n of nodes) states.set(n.runId, await store.load(n.runId));
  const root = states.get(runId)!;
  bump(report.exits, root.status);

  // Every run of the tree ended, with a reason; the root as its scenario says.
  if (root.status !== scenario.expect) {
    fail(`root exited ${root.status} (${root.stopReason}), expected ${scenario.expect}`);
  }
  if (root.status === "max_turns_exceeded") {
    if (root.interruption?.type !== "max_turns" || !/turn cap/.test(root.stopReason ?? "")) {
      fail(`a turn cap stop that does not say so: ${JSON.stringify(root.interruption)}`);
    }
  }
  for (const s of states.values()) {
    if (s.status === "running" || s.status === "interrupted") {
      fail(`run ${s.runId} of the tree did not end: ${s.status} (${s.stopReason})`);
    }
    if (!s.stopReason?.trim()) fail(`run ${s.runId} has no stopReason`);
    if (s.inFlight.length) fail(`run ${s.runId} ended with writes in flight: ${s.inFlight}`);
  }

  // Transcripts: every tool call has exactly one result, in the message after its call.
  for (const s of states.values()) wellFormed(s, fail);

  // Billing: requests at the provider (every process) against committed turns.
  const finalTurns = new Map<string, number>();
  for (const s of states.values()) finalTurns.set(labelOf(s.messages), s.turns);
  const committedAt = new Map<string, string>();
  let inFlight = 0;
  for (const proc of procs) {
    const uncommitted = new Map<string, number>();
    for (const r of proc.requests) {
      const key = `${r.label}#${r.turn}`;
      const short = `${r.label.slice(0, 40)}… turn ${r.turn}`;
      if (r.turn < r.before) fail(`${proc.name} asked ${short} after it saw it committed`);
      if (committedAt.has(key)) {
        fail(`turn billed twice: ${short} asked by ${proc.name} after ${committedAt.get(key)}`);
      }
      if (r.turn < (proc.saved.get(r.label) ?? 0)) {
        committedAt.set(key, proc.name);
        if (r.turn >= (finalTurns.get(r.label) ?? 0)) {
          fail(`${proc.name} saw ${short} committed, but it is not in the final state`);
        }
      } else if (!proc.killed) {
        fail(`${proc.name} exited normally with ${short} billed and never committed`);
      } else {
        uncommitted.set(r.label, (uncommitted.get(r.label) ?? 0) + 1);
      }
    }
    for (const [label, n] of uncommitted) {
      if (n > 1) fail(`${proc.name} had ${n} requests of ${label.slice(0, 40)}… uncommitted`);
    }
  }
  let committedTurns = 0;
  let requests = 0;
  for (const proc of procs) requests += proc.requests.length;
  for (const [label, turns] of finalTurns) {
    committedTurns += turns;
    for (let t = 0; t < turns; t++) {
      const asked = procs.some((p) => p.requests.some((r) => r.label === label && r.turn === t));
      if (!asked) fail(`turn ${t} of ${label.slice(0, 40)}… is committed but was never requested`);
    }
  }
  inFlight = requests - committedTurns;
  const killed = procs.filter((p) => p.killed).length;
  if (inFlight < 0 || inFlight > 2 * killed) {
    fail(`${requests} requests for ${committedTurns} committed turns with ${killed} kills`);
  }
  report.requests.total += requests;
  report.requests.committedTurns += committedTurns;
  report.requests.inFlightAtKill += inFlight;

  // Effects: each write's idempotency key applied at most once, and agreeing with the transcript.
  const effects = await readEffects(ws);
  const calls = new Map<string, { tool: string; result: string | undefined }>();
  for (const s of states.values()) {
    const results = new Map<string, string>();
    for (const m of s.messages) if (m.role === "tool") results.set(m.tool_call_id, m.content);
    for (const m of s.messages) {
      if (m.role !== "assistant") continue;
      for (const c of m.tool_calls ?? []) {
        calls.set(`${s.runId}:${c.id}`, { tool: c.function.name, result: results.get(c.id) });
      }
    }
  }
  const applied = new Map<string, number>();
  for (const e of effects) applied.set(e.key, (applied.get(e.key) ?? 0) + 1);
  for (const [key, n] of applied) {
    const call = calls.get(key);
    if (!call) {
      fail(`effect for unknown call ${key}`);
      continue;
    }
    if (call.tool === "delete_file") report.effects.deletes += n;
    else report.effects.ledger += n;
    if (n > 1) {
      if (call.tool === "delete_file" && uncertainApproved.has(key)) {
        report.effects.reappliedAfterApprovedRetry += n - 1;
      } else fail(`${call.tool} ${key} applied ${n} times`);
    }
    if (/was not run and nothing was changed|so it was not run/.test(call.result ?? "")) {
      fail(`${key} was rejected but has an effect`);
    }
  }
  for (const [key, call] of calls) {
    const done = call.tool === "delete_file"
      ? /^deleted /.test(call.result ?? "")
      : call.tool === "record_once" && /^recorded /.test(call.result ?? "");
    if (done && !applied.has(key)) fail(`${call.tool} ${key} reported done without its effect`);
  }

  // Cost: every run's own cost is the sum of its committed turns' `turn` events,
  // its children's part is their cost, and the root's is the tree's.
  // A reply is traced before it is committed: a kill between the two leaves a
  // billed reply in the trace that the resume asked again (one of the requests
  // in flight at a kill); the last event of each committed turn is the one kept.
  // A call a kill left recorded but unanswered is counted on resume as an estimate
  // (a `spend_estimated` event, `estimatedUsd`): it is part of the run's own cost.
  let treeOwn = 0;
  let treeEstimated = 0;
  let lostReplies = 0;
  for (const s of states.values()) {
    const byTurn = new Map<number, TurnEvent[]>();
    let estimated = 0;
    for (const { event } of await store.events(s.runId)) {
      if (event.type === "spend_estimated") estimated += event.usd;
      if (event.type !== "turn") continue;
      byTurn.set(event.turn, [...byTurn.get(event.turn) ?? [], event]);
    }
    let own = 0;
    for (let t = 1; t <= s.turns; t++) {
      const list = byTurn.get(t) ?? [];
      if (!list.length) fail(`run ${s.runId}: committed turn ${t} has no turn event`);
      else own += list.at(-1)!.turnCostUsd;
    }
    for (const [t, list] of byTurn) lostReplies += t > s.turns ? list.length : list.length - 1;
    if (!near(estimated, s.estimatedUsd ?? 0)) {
      fail(`run ${s.runId}: estimatedUsd ${s.estimatedUsd} != its spend_estimated ${estimated}`);
    }
    own += estimated;
    treeEstimated += estimated;
    treeOwn += own;
    if (!near(own, s.costUsd - s.childCostUsd)) {
      fail(`run ${s.runId}: own cost ${s.costUsd - s.childCostUsd} != its turns' ${own}`);
    }
    const kids = [...states.values()].filter((c) => c.parentId === s.runId);
    const kidsCost = kids.reduce((n, c) => n + c.costUsd, 0);
    if (!near(s.childCostUsd, kidsCost)) {
      fail(`run ${s.runId}: childCostUsd ${s.childCostUsd} != its children's ${kidsCost}`);
    }
  }
  if (lostReplies > inFlight) {
    fail(
      `${lostReplies} traced replies never committed, but ${inFlight} requests in flight at kills`,
    );
  }
  report.requests.tracedLostReplies += lostReplies;
  if (!near(root.costUsd, treeOwn)) {
    fail(`root cost ${root.costUsd} != the tree's turns ${treeOwn}`);
  }

  // The same bill as a run that never crashed (when no uncertain verdict changed its path).
  if (verdicts) {
    const b = await baselineOf(sh, scenarioName, verdicts);
    if (
      b.status !== root.status || b.turns !== root.turns ||
      !near(b.costUsd + treeEstimated, root.costUsd) ||
      b.output !== root.output
    ) {
      fail(
        `bill differs from an uncrashed run: ${root.status} ${root.turns} turns $${root.costUsd} ` +
          `"${root.output}" vs ${b.status} ${b.turns} turns $${b.costUsd} "${b.output}" ` +
          `(+ $${treeEstimated} estimated)`,
      );
    }
  }
}

function wellFormed(s: RunState, fail: (what: string) => void): void {
  let open: Map<string, number> | null = null;
  const close = () => {
    for (const [id, n] of open ?? []) {
      if (n !== 1) fail(`run ${s.runId}: call ${id} has ${n} results`);
    }
  };
  for (const m of s.messages) {
    if (m.role === "assistant") {
      close();
      const ids = (m.tool_calls ?? []).map((c) => c.id);
      if (new Set(ids).size !== ids.length) fail(`run ${s.runId}: duplicate call ids ${ids}`);
      open = new Map(ids.map((id) => [id, 0]));
    } else if (m.role === "tool") {
      const n = open?.get(m.tool_call_id);
      if (n === undefined) fail(`run ${s.runId}: result for unknown call ${m.tool_call_id}`);
      else open!.set(m.tool_call_id, n + 1);
    } else {
      close();
      open = null;
    }
  }
  close();
  const assistants = s.messages.filter((m) => m.role === "assistant").length;
  if (assistants !== s.turns) fail(`run ${s.runId}: ${s.turns} turns, ${assistants} replies`);
}

/**
 * Runs the crash soak and returns its report (`violations` should be empty).
 *
 * @example
 * ```ts
 * import { formatReport, soak } from "./soak.ts";
 * console.log(formatReport(await soak({ runs: 8, concurrency: 2 })));
 * ```
 */
export async function soak(options: SoakOptions = {}): Promise<SoakReport> {
  const opts = {
    runs: options.runs ?? 300,
    seed: options.seed ?? 1,
    concurrency: Math.max(1, options.concurrency ?? 2),
    kv: options.kv ?? "shared",
    leaseMs: options.leaseMs ?? 1000,
    doubleKillChance: options.doubleKillChance ?? 0.35,
    childResumeChance: options.childResumeChance ?? 0.5,
    scenarios: options.scenarios ?? Object.keys(SOAK_SCENARIOS),
  } as const;
  for (const s of opts.scenarios) {
    if (!SOAK_SCENARIOS[s]) throw new RangeError(`unknown soak scenario ${s}`);
  }
  const started = performance.now();
  const dir = await Deno.makeTempDir({ prefix: "reins-soak-" });
  const report: SoakReport = {
    seed: opts.seed,
    runs: opts.runs,
    concurrency: opts.concurrency,
    kv: opts.kv,
    byScenario: {},
    executions: { children: 0, inProcess: 0 },
    kills: { total: 0, byDelay: 0, byEvent: 0, atBackstop: 0 },
    doubleKills: 0,
    killMisses: 0,
    neverKilled: 0,
    killedAt: {},
    resumes: { byChild: 0, inProcess: 0 },
    timing: { spawnToReadyMs: 0, cleanExecutionMs: 0 },
    conflicts: 0,
    verdicts: {},
    verdictsAwaitingResume: 0,
    requests: { total: 0, committedTurns: 0, inFlightAtKill: 0, tracedLostReplies: 0 },
    effects: { deletes: 0, ledger: 0, reappliedAfterApprovedRetry: 0 },
    exits: {},
    violations: [],
    wallMs: 0,
  };
  const sharedKv = opts.kv === "shared" ? await openKv(join(dir, "soak.sqlite")) : null;
  const sh: Shared = {
    options: opts,
    dir,
    sharedKv,
    baselines: new Map(),
    learned: new Map(),
    offsetMs: 100,
    ratio: 2,
    timing: { starts: [], clean: [] },
    report,
    log: options.log ?? (() => {}),
  };
  try {
    // Calibration: the tokenizer loaded, and each scenario once uncrashed in this process.
    countTokens("warm up the encoder");
    await Promise.all(opts.scenarios.map((s) => baselineOf(sh, s, [])));
    let next = 0;
    const worker = async () => {
      while (next < opts.runs) await soakRun(sh, next++);
    };
    await Promise.all(Array.from({ length: Math.min(opts.concurrency, opts.runs) }, worker));
  } finally {
    sharedKv?.close();
    if (!report.violations.length) await Deno.remove(dir, { recursive: true }).catch(() => {});
    else report.violations.push(`(failed runs kept under ${dir})`);
  }
  const mean = (xs: number[]) => xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
  report.timing = {
    spawnToReadyMs: mean(sh.timing.starts),
    cleanExecutionMs: mean(sh.timing.clean),
  };
  report.wallMs = performance.now() - started;
  return report;
}

/** The report as text. */
export function formatReport(r: SoakReport): string {
  const kv = (o: Record<string, number>) =>
    Object.entries(o).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k} ${v}`)
      .join(", ") || "none";
  const violations = r.violations.filter((v) => !v.startsWith("(failed runs kept"));
  return [
    `crash soak: seed ${r.seed}, concurrency ${r.concurrency}, KV ${r.kv}`,
    `runs                 ${r.runs} (${kv(r.byScenario)})`,
    `executions           ${r.executions.children} in child processes, ${r.executions.inProcess} in the driver`,
    `child processes      ${Math.round(r.timing.spawnToReadyMs)} ms from spawn to ready (mean), ${
      Math.round(r.timing.cleanExecutionMs)
    } ms per clean execution after it`,
    `kills (SIGKILL)      ${r.kills.total} (${r.kills.byDelay} after a random delay, ${r.kills.byEvent} at a random moment, ${r.kills.atBackstop} at a delay's backstop moment)`,
    `double kills         ${r.doubleKills} runs killed twice`,
    `kill misses          ${r.killMisses} attempts the child outran; ${r.neverKilled} runs never killed`,
    `killed at            ${kv(r.killedAt)}`,
    `resumes              ${
      r.resumes.byChild + r.resumes.inProcess
    } (${r.resumes.byChild} by a new child, ${r.resumes.inProcess} in the driver); lease conflicts ${r.conflicts}`,
    `verdicts             ${Object.values(r.verdicts).reduce((a, b) => a + b, 0)} (${
      kv(r.verdicts)
    }); ${r.verdictsAwaitingResume} times a verdict was in but its resume was killed first`,
    `model requests       ${r.requests.total} = ${r.requests.committedTurns} committed turns + ${r.requests.inFlightAtKill} in flight at a kill (${r.requests.tracedLostReplies} of them replied, traced, never committed)`,
    `effects              ${r.effects.deletes} deletions, ${r.effects.ledger} ledger records; ${r.effects.reappliedAfterApprovedRetry} re-applied after an approved uncertain retry`,
    `exits                ${kv(r.exits)}`,
    `invariant violations ${violations.length}`,
    ...r.violations.slice(0, 30).map((v) => `  - ${v}`),
    `wall time            ${(r.wallMs / 1000).toFixed(1)} s`,
  ].join("\n");
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      runs: { type: "string", default: "300" },
      seed: { type: "string", default: "1" },
      concurrency: { type: "string", default: "2" },
      kv: { type: "string", default: "shared" },
      verbose: { type: "boolean", default: false },
    },
  });
  const int = (name: string, v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`--${name} must be an integer`);
    return n;
  };
  if (values.kv !== "per-run" && values.kv !== "shared") {
    throw new RangeError("--kv must be per-run or shared");
  }
  const runs = int("runs", values.runs);
  let finished = 0;
  const report = await soak({
    runs,
    seed: int("seed", values.seed),
    concurrency: int("concurrency", values.concurrency),
    kv: values.kv,
    log: (line) => {
      finished++;
      if (values.verbose || /VIOLATION/.test(line)) console.error(`[${finished}/${runs}] ${line}`);
      else if (finished % 25 === 0) console.error(`[${finished}/${runs}] runs done`);
    },
  });
  console.log(formatReport(report));
  Deno.exit(report.violations.length ? 1 : 0);
}
