/**
 * The bench's section 5: the runaway over Deno KV on a SQLite file, against
 * the bare in-memory loop's figures (kept apart so bench/main.ts stays readable).
 *
 * @module
 */
import { median, ownMean, type TurnTiming } from "./instrument.ts";
import { KV_COMPACTED, type KvResult, type TurnPersist } from "./kv_bench.ts";
import { bytes, dur, type Row, verdict, x } from "./table.ts";

/** The bare loop's own figures that section 5 compares with. */
export interface BareFigures {
  /** Own time at turn 1 and 100, ms. */
  turn1: number;
  turn100: number;
  /** Own and wall time per turn, whole run, ms. */
  ownPerTurn: number;
  wallPerTurn: number;
}

const med = (runs: TurnTiming[][], f: (turns: TurnTiming[]) => number) => median(runs.map(f));
const win = (runs: TurnTiming[][], from: number, to: number) =>
  med(runs, (t) => ownMean(t, from, to));

/** Section 5's rows and targets (or its failure). */
export function kvReport(
  kv: KvResult | Error,
  bare: BareFigures,
): { rows: Row[]; targets: string[] } {
  const rows: Row[] = [];
  const targets: string[] = [];
  if (kv instanceof Error) {
    rows.push({ section: "5. Deno KV on a SQLite file" });
    rows.push(["5", `failed: ${kv.message.slice(0, 70)}`, "n/a"]);
    targets.push(verdict("KV persist turn100/turn1, bytes", NaN, 1.5));
    targets.push(verdict("KV reins/bare own time per turn, runaway 100", NaN, 1.3));
  } else {
    rows.push({
      section: `5. Deno KV on a SQLite file, runaway 100 (median of ${kv.runs} runs)`,
    });
    const p = (l: TurnPersist[], k: "bytes" | "ms") => median(l.map((v) => v[k]));
    for (const c of kv.configs) {
      const tag = c.label === "KV store" ? "" : ` [${c.label}]`;
      const p1b = p(c.turn1, "bytes"), p100b = p(c.turn100, "bytes");
      const p1m = p(c.turn1, "ms"), p100m = p(c.turn100, "ms");
      const k1 = med(c.turns, (x) => x[0].own), k100 = med(c.turns, (x) => x[99].own);
      const kOwn = median(c.totals.map((x) => x.own / x.turns));
      const kWall = median(c.totals.map((x) => x.wall / x.turns));
      if (c.label === "KV store") {
        rows.push(
          ["5", "persist turn 1: bytes (reply + tool result)", bytes(p1b)],
          ["5", "persist turn 100: bytes", bytes(p100b)],
          ["5", "  turn 100 / turn 1", x(p100b, p1b)],
          ["5", "persist turn 1: ms (2 commits)", dur(p1m)],
          ["5", "persist turn 100: ms", dur(p100m)],
          ["5", "  turn 100 / turn 1", x(p100m, p1m)],
          [
            "5",
            "exit save (header only): bytes / ms",
            `${bytes(p(c.exit, "bytes"))} / ${dur(p(c.exit, "ms"))}`,
          ],
        );
        targets.push(verdict("KV persist turn100/turn1, bytes", p100b / p1b, 1.5));
        targets.push(verdict("KV persist turn100/turn1, ms", p100m / p1m, 1.5));
      }
      if (c.label === KV_COMPACTED) {
        rows.push(
          ["5", `persist turn 1: bytes${tag}`, bytes(p1b)],
          ["5", `persist turn 100: bytes (a summary in the header)${tag}`, bytes(p100b)],
          ["5", "  turn 100 / turn 1", x(p100b, p1b)],
        );
        targets.push(verdict(`KV persist turn100/turn1, bytes${tag}`, p100b / p1b, 1.5));
      }
      rows.push(
        ["5", `own time at turn 1${tag}`, dur(k1), dur(bare.turn1), x(k1, bare.turn1)],
        [
          "5",
          `own time at turn 100, exit save excluded${tag}`,
          dur(k100),
          dur(bare.turn100),
          x(k100, bare.turn100),
        ],
        [
          "5",
          `own time per turn, whole run${tag}`,
          dur(kOwn),
          dur(bare.ownPerTurn),
          x(kOwn, bare.ownPerTurn),
        ],
        [
          "5",
          `wall time per turn${tag}`,
          dur(kWall),
          dur(bare.wallPerTurn),
          x(kWall, bare.wallPerTurn),
        ],
      );
      targets.push(verdict(`KV turn100/turn1 own time${tag}`, k100 / k1, 1.5));
      targets.push(
        verdict(
          `KV turns 91-100 / turns 1-10 own time${tag}`,
          win(c.turns, 91, 100) / win(c.turns, 1, 10),
          1.5,
        ),
      );
      targets.push(verdict(`KV reins/bare own time per turn${tag}`, kOwn / bare.ownPerTurn, 1.3));
      targets.push(
        verdict(`KV reins/bare wall time per turn${tag}`, kWall / bare.wallPerTurn, 1.3),
      );
      targets.push(
        verdict(
          `issue 14: KV on disk wall per turn / bare in memory${tag}`,
          kWall / bare.wallPerTurn,
          3,
        ),
      );
    }
    rows.push(
      ["5", "floor: one bare checked 1 KB commit, same file", dur(kv.commitFloorMs)],
      ["5", "load a 100-turn run back (validated)", dur(kv.loadMs)],
      ["5", `SQLite file after ${2 * (kv.runs + 1)} runs`, bytes(kv.fileBytes)],
    );
  }

  return { rows, targets };
}
