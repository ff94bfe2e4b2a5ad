/**
 * The bench's rows for streaming (section 6), the commits of a durable turn
 * (section 8) and the durable floor (section 10): kept apart from bench/main.ts
 * so that file stays readable.
 *
 * @module
 */
import type { CommitResult } from "./commit_bench.ts";
import type { DurableResult } from "./durable_bench.ts";
import type { StreamResult } from "./stream_bench.ts";
import { dur, type Row, verdict, verdictAbove, x } from "./table.ts";

/** Section 6: streamed against plain replies over KV. */
export function streamReport(st: StreamResult): { rows: Row[]; targets: string[] } {
  const rows: Row[] = [];
  const targets: string[] = [];
  rows.push(
    {
      section: `6. streaming (median of ${st.runs}): a ${st.words}-word reply paced ` +
        `${st.chunkMs} ms a chunk; plan over a KV file, streaming on / off`,
    },
    ["6", "time to first delta", dur(st.firstDeltaMs)],
    [
      "6",
      "time to the whole reply (what a plain call waits for)",
      dur(st.wholeReplyMs),
    ],
    ["6", "  first delta / whole reply", x(st.firstDeltaMs, st.wholeReplyMs)],
    [
      "6",
      "plan: wall time per turn, on / off",
      `${dur(st.on.wallMs)} / ${dur(st.off.wallMs)}`,
      "",
      x(st.on.wallMs, st.off.wallMs),
    ],
    [
      "6",
      "plan: trace events written to KV per turn, on / off",
      `${st.on.eventWrites.toFixed(2)} / ${st.off.eventWrites.toFixed(2)}`,
    ],
    ["6", "  of which text_delta writes (coalesced, <= 4/s)", st.on.deltaWrites.toFixed(2)],
    ["6", "plan: USD per turn, on / off", `$${st.on.usd.toFixed(6)} / $${st.off.usd.toFixed(6)}`],
  );
  targets.push(
    verdict("streamed/plain wall time per turn, plan over KV", st.on.wallMs / st.off.wallMs, 1.3),
    verdict("first delta / whole reply (paced)", st.firstDeltaMs / st.wholeReplyMs, 0.2),
  );

  return { rows, targets };
}

/** Sections 8 and 10: commits per durable turn, and the durable floor. */
export function durableReport(
  c: CommitResult,
  durable: DurableResult[],
): { rows: Row[]; targets: string[] } {
  const rows: Row[] = [];
  const targets: string[] = [];
  rows.push(
    { section: "8. KV commits of a durable turn (runaway, store + trace on a SQLite file)" },
    ["8", "commits of a whole run: 10 turns / 20 turns", `${c.run10} / ${c.run20}`],
    [
      "8",
      "commits per turn in steady state: (20-turn run - 10-turn run) / 10",
      c.perTurn.toFixed(2),
    ],
  );
  targets.push(verdictAbove("issue 14: KV commits per durable turn (steady state)", c.perTurn, 2));
  durable.forEach((d, i) => {
    const mode = i === 0 ? "streamed" : "plain";
    rows.push(
      {
        section: `10. durable floor, ${mode}: runaway 100 on one SQLite file, median turn's wall ` +
          `(median of ${d.runs} runs, round-robin)`,
      },
      ["10", "in memory", dur(d.memory)],
      [
        "10",
        `minimal store + trace (${d.minimalCommits.toFixed(2)} commits per turn, no validation)`,
        dur(d.minimal),
      ],
      ["10", "  its commits' cost per turn (minimal - in memory)", dur(d.minimal - d.memory)],
      ["10", "KvRunStore + KV trace", dur(d.reins), dur(d.minimal), x(d.reins, d.minimal)],
      ["10", "  over the minimal store", dur(d.reins - d.minimal)],
    );
    targets.push(
      verdictAbove(
        `issue 29: durable (${mode}) - (in memory + its commits), ms per turn`,
        d.reins - d.minimal,
        0.2,
      ),
    );
  });
  return { rows, targets };
}
