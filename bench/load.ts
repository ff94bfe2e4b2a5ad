/**
 * `deno task bench:load`: one isolate of the server (`demo/main.ts`, the
 * scripted model in process, KV on a temp SQLite file) under load, driven
 * over HTTP from this process:
 *
 * - 1,000 `slow` runs (each waits in `scan_archive`, REINS_SCAN_MS) created
 *   at once: every one must complete; the server's peak RSS (`VmHWM`) and the
 *   most runs seen `running` at once;
 * - meanwhile 100 more `slow` runs, each stopped once it is scanning: Stop ->
 *   `run_stopped`, from the moment the stop was sent to the event's own `at`
 *   (p50, p99);
 * - then, on a fresh server, bursts of 200 `plan` runs: runs/s from the first
 *   request to the last run completed (the first burst warms up).
 *
 * Targets are reported, never asserted. `deno task bench:load [slow] [burst]`.
 *
 * @module
 */
import { join } from "node:path";
import { median, progress } from "./instrument.ts";
import { verdictAbove } from "./table.ts";
import { commitMs, commitsPerRun } from "./load_commits.ts";

const SLOW = Number(Deno.args[0] ?? 1000);
const BURST = Number(Deno.args[1] ?? 200);
const STOPPED = 100;
const BURSTS = 4;
const MAIN = new URL("../demo/main.ts", import.meta.url).pathname;

interface Server {
  url: string;
  pid: number;
  close(): Promise<void>;
}

async function startServer(dir: string, scanMs: number): Promise<Server> {
  const child = new Deno.Command(Deno.execPath(), {
    // REINS_LOAD_PROFILE=<dir>: the server writes a CPU profile there when it exits.
    args: ["run", "--frozen", "-A", ...profileArgs(), MAIN],
    env: {
      PORT: "0",
      REINS_SCRIPTED: "1",
      REINS_SCRIPTED_CHUNK_MS: "0",
      REINS_KV_PATH: join(dir, "runs.sqlite"),
      REINS_WORKSPACES: join(dir, "workspaces"),
      REINS_SCAN_MS: String(scanMs),
    },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let url = "";
  while (!url) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`server exited before listening: ${seen}`);
    seen += value;
    url = /listening on (http:\/\/\S+?)\/? /.exec(seen)?.[1] ?? "";
  }
  const drain = (async () => {
    while (!(await lines.read()).done) { /* keep the pipe flowing */ }
  })();
  return {
    url,
    pid: child.pid,
    async close() {
      child.kill("SIGINT");
      await child.status;
      await drain.catch(() => {});
    },
  };
}

function profileArgs(): string[] {
  const dir = Deno.env.get("REINS_LOAD_PROFILE");
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [];
}

/** The process's peak resident set so far, bytes (Linux). */
async function peakRss(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024;
}

async function json(url: string, init?: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(url, init);
  if (!res.ok) {
    throw new Error(`${init?.method ?? "GET"} ${url}: ${res.status} ${await res.text()}`);
  }
  return await res.json();
}

/** Creates `n` runs of `scenario`, `width` requests at a time; their ids. */
async function create(
  base: string,
  scenario: string,
  n: number,
  width = 50,
  onCreated?: (id: string) => void,
): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) {
      next++;
      const body = await json(`${base}/runs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ scenario }),
      });
      ids.push(String(body.runId));
      onCreated?.(String(body.runId));
    }
  }));
  return ids;
}

async function count(base: string, status: string): Promise<number> {
  const body = await json(`${base}/runs?status=${status}&limit=1000`);
  return (body.runs as unknown[]).length;
}

function p(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
}

/** Waits until no run is `running` (polled every `ms`); the most seen at once. */
async function settle(base: string, ms: number, timeoutMs: number): Promise<number> {
  const t0 = performance.now();
  let most = 0;
  for (;;) {
    const now = await count(base, "running");
    most = Math.max(most, now);
    if (now === 0) return most;
    if (performance.now() - t0 > timeoutMs) throw new Error(`${now} runs still running`);
    await new Promise((r) => setTimeout(r, now > 20 ? ms : 10));
  }
}

/** The final status of each run, `width` requests at a time. */
async function statuses(base: string, ids: string[], width = 20): Promise<string[]> {
  const out: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < ids.length) {
      const i = next++;
      out[i] = String((await json(`${base}/runs/${ids[i]}`)).status);
    }
  }));
  return out;
}

/** When `run_stopped` was emitted (its `at`), or NaN. */
async function stoppedAt(base: string, id: string): Promise<number> {
  const text = await (await fetch(`${base}/runs/${id}/events?follow=false`)).text();
  const stop = text.split("\n").filter((l) => l.startsWith("data:"))
    .map((l) => JSON.parse(l.slice(5))).find((e) => e.type === "run_stopped");
  return stop ? Date.parse(stop.at) : NaN;
}

/** Resolves once run `id` is scanning (its first `tool_progress`), polled every 250 ms. */
async function scanning(base: string, id: string): Promise<void> {
  for (;;) {
    const text = await (await fetch(`${base}/runs/${id}/events?follow=false`)).text();
    if (text.includes('"tool_progress"')) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** 1,000 slow runs, then 100 more each stopped once scanning, on one server. */
async function slowLoad(dir: string) {
  const server = await startServer(dir, 3000);
  try {
    progress(`load: ${SLOW} slow runs + ${STOPPED} stopped mid-scan, one server isolate`);
    const t0 = performance.now();
    const slow = await create(server.url, "slow", SLOW);
    const watching = settle(server.url, 1000, 300_000);
    const sentAt = new Map<string, number>();
    const stops: Promise<unknown>[] = [];
    // Each stopped once it is scanning (executing, not waiting to start).
    const stopped = await create(server.url, "slow", STOPPED, 10, (id) =>
      stops.push(
        scanning(server.url, id).then(() => {
          sentAt.set(id, Date.now());
          return json(`${server.url}/runs/${id}/stop`, { method: "POST" });
        }),
      ));
    await Promise.all(stops);
    const most = Math.max(await watching, await settle(server.url, 1000, 300_000));
    const allMs = performance.now() - t0;
    const rss = await peakRss(server.pid);
    const done = (await statuses(server.url, slow)).filter((s) => s === "completed").length;
    const ends = await statuses(server.url, stopped);
    const latencies: number[] = [];
    for (const [i, id] of stopped.entries()) {
      if (ends[i] !== "interrupted") continue;
      latencies.push((await stoppedAt(server.url, id)) - sentAt.get(id)!);
    }
    return { done, unfinished: slow.length - done, most, allMs, rss, latencies };
  } finally {
    await server.close();
  }
}

/** Bursts of `BURST` plan runs on a fresh server: runs/s of each. */
async function bursts(dir: string): Promise<number[]> {
  const server = await startServer(dir, 3000);
  try {
    progress(`load: ${BURSTS} bursts of ${BURST} plan runs (the first warms up)`);
    const rates: number[] = [];
    for (let b = 0; b < BURSTS; b++) {
      const t0 = performance.now();
      const ids = await create(server.url, "plan", BURST);
      await settle(server.url, 100, 120_000);
      rates.push(BURST / ((performance.now() - t0) / 1000));
      const ends = await statuses(server.url, ids);
      const bad = ends.filter((s) => s !== "completed").length;
      if (bad) throw new Error(`burst ${b}: ${bad} plan runs did not complete`);
    }
    return rates.slice(1);
  } finally {
    await server.close();
  }
}

const dir = await Deno.makeTempDir({ prefix: "reins-bench-load-" });
try {
  progress("load: commits of one plan run through the API; one commit's cost on this disk");
  const planCommits = await commitsPerRun(dir, "plan");
  const floorMs = await commitMs(dir);
  const slow = await slowLoad(join(dir, "slow"));
  const rates = await bursts(join(dir, "bursts"));
  const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`;
  const l = slow.latencies;
  console.log([
    `reins load bench: deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} CPUs`,
    `${SLOW} slow runs: ${slow.done} completed in ${(slow.allMs / 1000).toFixed(1)} s, ` +
    `up to ${slow.most} running at once, server peak RSS ${mb(slow.rss)}`,
    `Stop -> run_stopped (${l.length} of ${STOPPED} stopped mid-scan): p50 ${
      median(l).toFixed(0)
    } ms, ` +
    `p99 ${p(l, 0.99).toFixed(0)} ms, max ${Math.max(...l).toFixed(0)} ms`,
    `bursts of ${BURST} plan runs: ${rates.map((r) => r.toFixed(0)).join(", ")} runs/s`,
    `  bound: a plan run makes ${planCommits} KV commits; one checked commit takes ` +
    `${floorMs.toFixed(2)} ms on this disk (one at a time): at most ` +
    `${(1000 / (planCommits * floorMs)).toFixed(0)} runs/s`,
    "",
    "Targets (reported, not asserted):",
    `  ${verdictAbove("issue 29: server peak RSS, 1,000 slow runs (MB)", slow.rss / 1e6, 300)}`,
    `  ${verdictAbove("issue 29: slow runs not completed", slow.unfinished, 0)}`,
    `  ${verdictAbove("issue 29: Stop -> run_stopped p99 (ms)", p(l, 0.99), 100)}`,
    `  ${verdictAbove("issue 29: runs not stopped by Stop", STOPPED - l.length, 0)}`,
    `  issue 29: bursts of ${BURST} plan runs, median = ${median(rates).toFixed(0)} runs/s ` +
    `(target >= 150) ${median(rates) >= 150 ? "PASS" : "MISS"}`,
  ].join("\n"));
} finally {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
