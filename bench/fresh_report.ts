/**
 * The bench's rows and targets for fresh processes (bench/fresh.ts): issue
 * 29's setup (two tiny tools; the truly bare loop against reins, plain,
 * streamed and on KV), issue 14's (the demo's tools on a workspace), the
 * import of `mod.ts` in each, and building the tokenizer.
 *
 * @module
 */
import type { FreshFigures, FreshResult } from "./fresh.ts";
import { bytes, dur, type Row, verdict, verdictAbove, x } from "./table.ts";

/** What the modes of section 7 are, for the bench's legend. */
export const FRESH_LEGEND: readonly string[] = [
  "  section 7  = one fresh `deno run` per figure, spawn to exit; plan = process start to the end",
  "               of `plan`, then runaway 50 for ms per turn; peak RSS by /usr/bin/time.",
  "    tiny tools (issue 29): list_files and read_file answering from memory (bench/tiny_tools.ts).",
  "      bare = bench/tiny_loop.ts: its own fetch loop, zod, nothing of reins (plain, or streamed",
  "      and read by bench/bare_stream.ts); reins = mod.ts, the tools made by defineTool,",
  "      createOpenAIModel (stream: false for plain); KV = kv/mod.ts's KvRunStore and trace sink",
  "      on a SQLite file. import = mod.ts + the tools vs the bare loop's modules (zod + its own).",
  "    demo tools (issue 14): tools/catalog.ts on a real workspace; bare = bench/bare_loop.ts",
  "      (streamed), reins streamed; import = mod.ts + demo/mod.ts vs the bare loop + catalog.",
];

const mb = (n: number) => Number.isFinite(n) ? `${(n / 1e6).toFixed(1)} MB` : "n/a";

/** Rows (section 7) and target lines for `r`. */
export function freshReport(r: FreshResult): { rows: Row[]; targets: string[] } {
  const m = r.modes;
  const rows: Row[] = [
    {
      section:
        `7. fresh processes: wall spawn to exit, peak RSS (median of ${r.runs}; loopback scripted provider)`,
    },
    ["7", "empty deno process: wall / RSS", `${dur(m.empty.wallMs)} / ${mb(m.empty.rssBytes)}`],
    ...importRows(
      "tiny tools: import mod.ts vs the bare loop's modules",
      m["import-mod"],
      m["import-bare"],
    ),
    ...pairRows("tiny tools, streamed", m.reins, m["bare-stream"]),
    ...pairRows("tiny tools, plain", m["reins-plain"], m.bare),
    ...pairRows(
      "tiny tools, KV on disk (store + trace), streamed",
      m["reins-kv"],
      m["bare-stream"],
    ),
    ...pairRows("tiny tools, KV on disk (store + trace), plain", m["reins-kv-plain"], m.bare),
    [
      "7",
      "  KV commits, plan (creation, lease and its release included)",
      String(m["reins-kv"].commits),
    ],
    ...importRows(
      "demo tools: import mod.ts vs the bare loop's modules",
      m["import-demo-mod"],
      m["import-demo-bare"],
    ),
    ...pairRows("demo tools, streamed", m["reins-demo"], m["bare-demo-stream"]),
    ...tokenizerRows(m),
  ];
  return { rows, targets: [...issue14Targets(m), ...issue29Targets(m)] };
}

/** Issue 14's targets, on its setup (the demo's tools, streamed). */
function issue14Targets(m: FreshResult["modes"]): string[] {
  const reins = m["reins-demo"];
  const importRatio = m["import-demo-mod"].wallMs / m["import-demo-bare"].wallMs;
  return [
    verdict(
      "fresh plan wall, reins / bare loop (demo tools)",
      reins.planMs / m["bare-demo-stream"].planMs,
      2,
    ),
    verdictAbove("fresh plan peak RSS, reins (MB) (demo tools)", reins.rssBytes / 1e6, 90),
    verdict("fresh import mod.ts / the bare loop's import (demo tools)", importRatio, 2),
  ];
}

/** Issue 29's targets, on its setup (the two tiny tools). */
function issue29Targets(m: FreshResult["modes"]): string[] {
  const plain = m["reins-plain"];
  return [
    verdict(
      "issue 29: fresh, streamed: reins / bare streaming loop, steady ms per turn",
      m.reins.steadyMs / m["bare-stream"].steadyMs,
      1.1,
    ),
    verdictAbove(
      "issue 29: fresh, streamed peak RSS - plain peak RSS, reins (MB)",
      (m.reins.rssBytes - plain.rssBytes) / 1e6,
      3,
    ),
    verdict(
      "issue 29: fresh, plain: reins / bare, steady ms per turn",
      plain.steadyMs / m.bare.steadyMs,
      1.2,
    ),
    verdict(
      "issue 29: fresh, plain: reins / bare, plan (3 turns)",
      plain.planMs / m.bare.planMs,
      1.3,
    ),
    verdictAbove("issue 29: fresh, plain: peak RSS, reins (MB)", plain.rssBytes / 1e6, 58),
    verdict(
      "issue 29: fresh import mod.ts / the bare loop's import",
      m["import-mod"].wallMs / m["import-bare"].wallMs,
      1.5,
    ),
  ];
}

/** Import only: wall and peak RSS of `reins`'s imports against the bare loop's. */
function importRows(label: string, reins: FreshFigures, bare: FreshFigures): Row[] {
  return [
    ["7", `${label}, wall`, dur(reins.wallMs), dur(bare.wallMs), x(reins.wallMs, bare.wallMs)],
    ["7", "  peak RSS", mb(reins.rssBytes), mb(bare.rssBytes), x(reins.rssBytes, bare.rssBytes)],
  ];
}

/** Rows of one reply mode: plan (process start to its end), steady ms per turn, peak RSS. */
function pairRows(label: string, reins: FreshFigures, bare: FreshFigures): Row[] {
  return [
    [
      "7",
      `${label}: plan, process start to its end`,
      dur(reins.planMs),
      dur(bare.planMs),
      x(reins.planMs, bare.planMs),
    ],
    [
      "7",
      "  then runaway 50: ms per turn",
      dur(reins.steadyMs),
      dur(bare.steadyMs),
      x(reins.steadyMs, bare.steadyMs),
    ],
    ["7", "  peak RSS", mb(reins.rssBytes), mb(bare.rssBytes), x(reins.rssBytes, bare.rssBytes)],
  ];
}

/** The tokenizer's build cost: gpt-tokenizer (used) against js-tiktoken (before). */
function tokenizerRows(m: FreshResult["modes"]): Row[] {
  const gpt = m["tok-gpt-tokenizer"];
  const tik = m["tok-js-tiktoken"];
  return [
    [
      "7",
      "tokenizer: gpt-tokenizer o200k, import + build + count: wall / RSS",
      `${dur(gpt.wallMs)} / ${mb(gpt.rssBytes)}`,
    ],
    [
      "7",
      "tokenizer: js-tiktoken o200k (before), the same: wall / RSS",
      `${dur(tik.wallMs)} / ${mb(tik.rssBytes)}`,
    ],
    [
      "7",
      "  build cost over an empty process (gpt-tokenizer / js-tiktoken)",
      `${dur(gpt.wallMs - m.empty.wallMs)} / ${dur(tik.wallMs - m.empty.wallMs)}`,
    ],
    ["7", "  RSS", bytes(gpt.rssBytes)],
  ];
}
