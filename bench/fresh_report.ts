/**
 * The bench's rows and targets for fresh processes (bench/fresh.ts): plan
 * against a loopback endpoint, importing `mod.ts`, building the tokenizer.
 *
 * @module
 */
import type { FreshFigures, FreshResult } from "./fresh.ts";
import { bytes, dur, type Row, verdict, verdictAbove, x } from "./table.ts";

/** Rows (section 6) and target lines for `r`. */
export function freshReport(r: FreshResult): { rows: Row[]; targets: string[] } {
  const m = r.modes;
  const mb = (n: number) => Number.isFinite(n) ? `${(n / 1e6).toFixed(1)} MB` : "n/a";
  const rows: Row[] = [
    {
      section:
        `7. fresh processes: wall spawn to exit, peak RSS (median of ${r.runs}; loopback scripted provider)`,
    },
    ["7", "empty deno process: wall / RSS", `${dur(m.empty.wallMs)} / ${mb(m.empty.rssBytes)}`],
    [
      "7",
      "import only: mod.ts vs the bare loop's modules, wall",
      dur(m["import-mod"].wallMs),
      dur(m["import-bare"].wallMs),
      x(m["import-mod"].wallMs, m["import-bare"].wallMs),
    ],
    [
      "7",
      "  peak RSS",
      mb(m["import-mod"].rssBytes),
      mb(m["import-bare"].rssBytes),
      x(m["import-mod"].rssBytes, m["import-bare"].rssBytes),
    ],
    ...pairRows("streamed", m.reins, m["bare-stream"]),
    ...pairRows("plain", m["reins-plain"], m.bare),
    ...pairRows("KV on disk (store + trace), streamed", m["reins-kv"], m["bare-stream"]),
    ...pairRows("KV on disk (store + trace), plain", m["reins-kv-plain"], m.bare),
    [
      "7",
      "  KV commits, plan (creation, lease and its release included)",
      String(m["reins-kv"].commits),
    ],
    [
      "7",
      "tokenizer: gpt-tokenizer o200k, import + build + count: wall / RSS",
      `${dur(m["tok-gpt-tokenizer"].wallMs)} / ${mb(m["tok-gpt-tokenizer"].rssBytes)}`,
    ],
    [
      "7",
      "tokenizer: js-tiktoken o200k (before), the same: wall / RSS",
      `${dur(m["tok-js-tiktoken"].wallMs)} / ${mb(m["tok-js-tiktoken"].rssBytes)}`,
    ],
    [
      "7",
      "  build cost over an empty process (gpt-tokenizer / js-tiktoken)",
      `${dur(m["tok-gpt-tokenizer"].wallMs - m.empty.wallMs)} / ${
        dur(m["tok-js-tiktoken"].wallMs - m.empty.wallMs)
      }`,
    ],
    ["7", "  RSS", bytes(m["tok-gpt-tokenizer"].rssBytes)],
  ];
  const plain = m["reins-plain"];
  const targets = [
    verdict("fresh plan wall, reins / bare loop", m.reins.planMs / m["bare-stream"].planMs, 2),
    verdictAbove("fresh plan peak RSS, reins (MB)", m.reins.rssBytes / 1e6, 90),
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
    verdict(
      "fresh import mod.ts / the bare loop's import",
      m["import-mod"].wallMs / m["import-bare"].wallMs,
      2,
    ),
  ];
  return { rows, targets };
}

/** Rows of one reply mode: plan (process start to its end), steady ms per turn, peak RSS. */
function pairRows(label: string, reins: FreshFigures, bare: FreshFigures): Row[] {
  const mb = (n: number) => Number.isFinite(n) ? `${(n / 1e6).toFixed(1)} MB` : "n/a";
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
