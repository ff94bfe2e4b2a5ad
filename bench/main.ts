/**
 * `deno task bench`: measures the harness on this machine and prints one
 * table, a legend, and one line per target. The targets are reported, never
 * asserted: a MISS is a finding, not a failure.
 *
 * @module
 */
import { createWorkspace } from "../tools/workspace.ts";
import { demoTools } from "../tools/catalog.ts";
import { toolDefinitions } from "../harness/tool.ts";
import { median, ownMean, progress, type TurnTiming } from "./instrument.ts";
import { benchOverhead, type LoopRuns } from "./overhead.ts";
import { benchTokens } from "./tokens_bench.ts";
import { benchAbort } from "./abort_bench.ts";
import { benchKv, type KvResult } from "./kv_bench.ts";
import { benchStreaming, type StreamResult } from "./stream_bench.ts";
import { dur, int, LEGEND, renderTable, type Row, verdict, x } from "./table.ts";
import { benchFresh, type FreshResult } from "./fresh.ts";
import { FRESH_LEGEND, freshReport } from "./fresh_report.ts";
import { benchCommits, type CommitResult } from "./commit_bench.ts";
import { conversationReport } from "./conversation_bench.ts";
import { benchDurable, type DurableResult } from "./durable_bench.ts";
import { durableReport, streamReport } from "./store_report.ts";
import { kvReport } from "./kv_report.ts";
import { benchOtel, otelReport, type OtelResult } from "./otel_bench.ts";

const RUNAWAY_RUNS = 15;
const PLAN_RUNS = 30;
const ABORT_RUNS = 5;
const KV_RUNS = 5;
const DURABLE_RUNS = 9;
const FRESH_RUNS = 10;
const STREAM_RUNS = 5;

const started = performance.now();
const ws = await createWorkspace();
let kv: KvResult | Error;
let lines: string[];
try {
  const tools = demoTools(ws); // scan_archive at its real pace (about 3 s), for the abort bench
  const overhead = await benchOverhead(tools, { runs: RUNAWAY_RUNS, planRuns: PLAN_RUNS });
  const tokens = benchTokens(toolDefinitions(tools));
  const abort = await benchAbort(tools, { runs: ABORT_RUNS, afterMs: 300 });
  try {
    kv = await benchKv(tools, { runs: KV_RUNS });
  } catch (e) {
    kv = e instanceof Error ? e : new Error(String(e));
    progress(`KV bench failed: ${kv.message}`);
  }
  const streaming = await benchStreaming(tools, { runs: STREAM_RUNS });
  const fresh = await benchFresh({ runs: FRESH_RUNS });
  const commits = await benchCommits(tools.filter((t) => t.name === "list_files"));
  const durable = [
    await benchDurable(tools, { runs: DURABLE_RUNS, stream: true }),
    await benchDurable(tools, { runs: DURABLE_RUNS, stream: false }),
  ];
  const otel = await benchOtel();
  const conversation = await conversationReport(tools);
  lines = report(
    overhead,
    tokens,
    abort,
    kv,
    streaming,
    fresh,
    commits,
    durable,
    otel,
    conversation,
  );
} finally {
  await ws.remove();
}
console.log(lines.join("\n"));

/** Median over runs of one per-run figure. */
function med(runs: TurnTiming[][], f: (turns: TurnTiming[]) => number): number {
  return median(runs.map(f));
}

function report(
  o: Awaited<ReturnType<typeof benchOverhead>>,
  t: ReturnType<typeof benchTokens>,
  a: Awaited<ReturnType<typeof benchAbort>>,
  kv: KvResult | Error,
  st: StreamResult,
  fresh: FreshResult,
  c: CommitResult,
  durable: DurableResult[],
  ot: OtelResult,
  more: { rows: Row[]; targets: string[] },
): string[] {
  const rr = o.runaway.reins.turns;
  const rb = o.runaway.bare.turns;
  const rh = o.runawayHard.turns;
  const r1 = med(rr, (x) => x[0].own);
  const r100 = med(rr, (x) => x[99].own);
  const b1 = med(rb, (x) => x[0].own);
  const b100 = med(rb, (x) => x[99].own);
  const perTurn = (l: LoopRuns, k: "own" | "wall") => median(l.totals.map((x) => x[k] / x.turns));
  const runawayOwn = [perTurn(o.runaway.reins, "own"), perTurn(o.runaway.bare, "own")];
  const runawayWall = [perTurn(o.runaway.reins, "wall"), perTurn(o.runaway.bare, "wall")];
  const planOwn = [perTurn(o.plan.reins, "own"), perTurn(o.plan.bare, "own")];
  const planWall = [perTurn(o.plan.reins, "wall"), perTurn(o.plan.bare, "wall")];
  const pr = o.runawayPlain;
  const plainOwn = [perTurn(pr.reins, "own"), perTurn(pr.bare, "own")];
  const plainWall = [perTurn(pr.reins, "wall"), perTurn(pr.bare, "wall")];
  const planPlainWall = [perTurn(o.planPlain.reins, "wall"), perTurn(o.planPlain.bare, "wall")];
  const win = (runs: TurnTiming[][], from: number, to: number) =>
    med(runs, (x) => ownMean(x, from, to));
  const both = (runs: TurnTiming[][], f: (t: TurnTiming) => number) =>
    `${dur(med(runs, (x) => f(x[0])))} / ${dur(med(runs, (x) => f(x[99])))}`;
  const provider = (t: TurnTiming) => t.provider;
  const client = (t: TurnTiming) => t.model - t.provider;
  const clientPerTurn = (l: LoopRuns) =>
    median(l.totals.map((x) => (x.model - x.provider) / x.turns));
  const runawayClient = [clientPerTurn(o.runaway.reins), clientPerTurn(o.runaway.bare)];
  const planClient = [clientPerTurn(o.plan.reins), clientPerTurn(o.plan.bare)];
  const lo = o.loopOnly;
  const mb = t.bytes / 1e6;

  const rows: Row[] = [
    {
      section:
        `1. harness's own time per turn: runaway, 100 turns, latency 0 (median of ${o.runs} runs)`,
    },
    ["1", "own time at turn 1", dur(r1), dur(b1), x(r1, b1)],
    ["1", "own time at turn 100", dur(r100), dur(b100), x(r100, b100)],
    ["1", "turn 100 / turn 1", x(r100, r1), x(b100, b1), ""],
    ["1", "own time, mean of turns 1-10", dur(win(rr, 1, 10)), dur(win(rb, 1, 10)), ""],
    ["1", "own time, mean of turns 91-100", dur(win(rr, 91, 100)), dur(win(rb, 91, 100)), ""],
    [
      "1",
      `budgetMode hard: own, mean turns 1-10 / 91-100 (${rh.length} runs)`,
      `${dur(win(rh, 1, 10))} / ${dur(win(rh, 91, 100))}`,
      "",
      "",
    ],
    ["1", "  hard: turns 91-100 / turns 1-10", x(win(rh, 91, 100), win(rh, 1, 10)), "", ""],
    ["1", "excluded: provider at turn 1 / turn 100", both(rr, provider), both(rb, provider), ""],
    ["1", "excluded: model client at turn 1 / turn 100", both(rr, client), both(rb, client), ""],
    {
      section: `2. reins vs the bare fetch loop (the floor), same process, same provider; ` +
        `streamed replies vs the bare streaming loop unless "plain"`,
    },
    [
      "2",
      "loop only (instant model, no-op tool): per turn",
      dur(lo.reins),
      dur(lo.bare),
      x(lo.reins, lo.bare),
    ],
    [
      "2",
      "  reins without a trace sink",
      dur(lo.reinsNoTrace),
      dur(lo.bare),
      x(lo.reinsNoTrace, lo.bare),
    ],
    [
      "2",
      `plan, 3 turns: own time per turn (median of ${o.planRuns})`,
      dur(planOwn[0]),
      dur(planOwn[1]),
      x(planOwn[0], planOwn[1]),
    ],
    [
      "2",
      "plan: model client per turn (provider excluded)",
      dur(planClient[0]),
      dur(planClient[1]),
      x(planClient[0], planClient[1]),
    ],
    [
      "2",
      "plan: wall time per turn",
      dur(planWall[0]),
      dur(planWall[1]),
      x(planWall[0], planWall[1]),
    ],
    [
      "2",
      "runaway 100: own time per turn (whole run)",
      dur(runawayOwn[0]),
      dur(runawayOwn[1]),
      x(runawayOwn[0], runawayOwn[1]),
    ],
    [
      "2",
      "runaway 100: model client per turn",
      dur(runawayClient[0]),
      dur(runawayClient[1]),
      x(runawayClient[0], runawayClient[1]),
    ],
    [
      "2",
      "runaway 100: wall time per turn",
      dur(runawayWall[0]),
      dur(runawayWall[1]),
      x(runawayWall[0], runawayWall[1]),
    ],
    [
      "2",
      "plain (stream: false): plan, wall per turn",
      dur(planPlainWall[0]),
      dur(planPlainWall[1]),
      x(planPlainWall[0], planPlainWall[1]),
    ],
    [
      "2",
      "plain: runaway 100, own time per turn",
      dur(plainOwn[0]),
      dur(plainOwn[1]),
      x(plainOwn[0], plainOwn[1]),
    ],
    [
      "2",
      "plain: runaway 100, wall time per turn",
      dur(plainWall[0]),
      dur(plainWall[1]),
      x(plainWall[0], plainWall[1]),
    ],
    [
      "2",
      "streamed / plain: runaway 100, wall per turn (reins | bare)",
      x(runawayWall[0], plainWall[0]),
      x(runawayWall[1], plainWall[1]),
    ],
    { section: `3. token counting, o200k_base (median of ${t.reps}+)` },
    ["3", `countTokens, ${(t.bytes / 1_048_576).toFixed(1)} MiB log text, cold`, dur(t.coldMs)],
    ["3", "  throughput", `${(mb / (t.coldMs / 1000)).toFixed(2)} MB/s`],
    ["3", "  tokens per second", `${int(t.tokens / (t.coldMs / 1000))} tok/s`],
    ["3", "countTokens, the same string again (cache)", dur(t.againMs)],
    [
      "3",
      `countPromptTokens, 100 turns (${t.messages} msgs, ${int(t.promptTokens)} tok): cold`,
      dur(t.promptColdMs),
    ],
    ["3", "  new objects, strings seen (provider side)", dur(t.promptNewObjectsMs)],
    ["3", "  same objects again (cached, harness side)", dur(t.promptCachedMs)],
    ["3", "  cold / cached", x(t.promptColdMs, t.promptCachedMs)],
    { section: `4. stop (median of ${a.ms.length})` },
    [
      "4",
      `abort -> run_stopped, ${Math.round(a.abortedAfterMs)} ms into scan_archive`,
      dur(a.median),
    ],
    ["4", "  min / max", `${dur(Math.min(...a.ms))} / ${dur(Math.max(...a.ms))}`],
  ];
  const targets = [
    verdict("turn100/turn1, reins own time (runaway)", r100 / r1, 1.5),
    verdict(
      "turns 91-100 / turns 1-10, reins own time (runaway)",
      win(rr, 91, 100) / win(rr, 1, 10),
      1.5,
    ),
    verdict(
      "turns 91-100 / turns 1-10, reins own time (runaway, budgetMode hard)",
      win(rh, 91, 100) / win(rh, 1, 10),
      1.5,
    ),
    verdict(
      "issue 14: own time per turn, reins/bare (runaway 100)",
      runawayOwn[0] / runawayOwn[1],
      3,
    ),
    verdict("reins/bare own time per turn, plan", planOwn[0] / planOwn[1], 1.3),
    verdict("reins/bare own time per turn, runaway 100", runawayOwn[0] / runawayOwn[1], 1.3),
    verdict("reins/bare time per turn, loop only", lo.reins / lo.bare, 1.3),
    verdict("reins/bare wall time per turn, plan", planWall[0] / planWall[1], 1.3),
    verdict("reins/bare wall time per turn, runaway 100", runawayWall[0] / runawayWall[1], 1.3),
    verdict(
      "issue 29: streamed, reins / bare streaming loop, wall per turn (runaway)",
      runawayWall[0] / runawayWall[1],
      1.1,
    ),
    verdict(
      "issue 29: plain, reins / bare loop, wall per turn (runaway, steady)",
      plainWall[0] / plainWall[1],
      1.2,
    ),
  ];

  const s5 = kvReport(kv, {
    turn1: b1,
    turn100: b100,
    ownPerTurn: runawayOwn[1],
    wallPerTurn: runawayWall[1],
  });
  rows.push(...s5.rows);
  targets.push(...s5.targets);

  const s6 = streamReport(st);
  rows.push(...s6.rows);
  targets.push(...s6.targets);

  const f = freshReport(fresh);
  rows.push(...f.rows);
  targets.push(...f.targets);
  const s8 = durableReport(c, durable);
  rows.push(...s8.rows);
  targets.push(...s8.targets);
  const o9 = otelReport(ot);
  rows.push(...o9.rows);
  targets.push(...o9.targets);
  rows.push(...more.rows);
  targets.push(...more.targets);
  const cpus = navigator.hardwareConcurrency;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  return [
    `reins bench: deno ${Deno.version.deno}, ${Deno.build.os}/${Deno.build.arch}, ${cpus} CPUs; ` +
    `in-process scripted provider, latency 0; took ${seconds} s`,
    "",
    ...renderTable(["#", "measure", "reins / value", "bare loop", "reins/bare"], rows),
    "",
    ...LEGEND,
    ...FRESH_LEGEND,
    "",
    "Targets (reported, not asserted):",
    ...targets.map((l) => `  ${l}`),
  ];
}
