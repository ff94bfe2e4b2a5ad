/**
 * The bench's rows and targets for fresh processes (bench/fresh.ts): plan
 * against a loopback endpoint, importing `mod.ts`, building the tokenizer.
 *
 * @module
 */
import type { FreshResult } from "./fresh.ts";
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
    [
      "7",
      "plan, 3 turns, in memory: wall",
      dur(m.reins.wallMs),
      dur(m.bare.wallMs),
      x(m.reins.wallMs, m.bare.wallMs),
    ],
    [
      "7",
      "  peak RSS",
      mb(m.reins.rssBytes),
      mb(m.bare.rssBytes),
      x(m.reins.rssBytes, m.bare.rssBytes),
    ],
    [
      "7",
      "plan, KV on disk (store + trace): wall",
      dur(m["reins-kv"].wallMs),
      dur(m.bare.wallMs),
      x(m["reins-kv"].wallMs, m.bare.wallMs),
    ],
    ["7", "  peak RSS", mb(m["reins-kv"].rssBytes)],
    [
      "7",
      "  KV commits, whole run (creation, lease and its release included)",
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
  const targets = [
    verdict("fresh plan wall, reins / bare loop", m.reins.wallMs / m.bare.wallMs, 2),
    verdictAbove("fresh plan peak RSS, reins (MB)", m.reins.rssBytes / 1e6, 90),
    verdict(
      "fresh import mod.ts / the bare loop's import",
      m["import-mod"].wallMs / m["import-bare"].wallMs,
      2,
    ),
  ];
  return { rows, targets };
}
