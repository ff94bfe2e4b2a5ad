/**
 * Experiment 2b: the runaway of experiment 2 at caps 50, 100 and 200, with
 * and without compaction (a context policy with a 2,000-token trigger): the
 * bill stops growing with the square of the turns.
 *
 * @module
 */
import type { RunState } from "../../harness/state.ts";
import type { CompactionEvent } from "../../harness/trace.ts";
import {
  heading,
  type Out,
  play,
  printTable,
  promptTokensPerTurn,
  withWorkspace,
} from "./common.ts";
import { textCurve } from "./curve.ts";
import { int, ratio, usd } from "../table.ts";

/** The trigger of the demo's context policy, in tokens. */
export const DEMO_TRIGGER = 2000;
const CAPS = [50, 100, 200] as const;

interface Played {
  state: RunState;
  prompts: number[];
  compactions: CompactionEvent[];
}

async function runaway(cap: number, compact: boolean): Promise<Played> {
  const p = await withWorkspace((ws) =>
    play(ws, "runaway", {
      run: {
        limits: { maxTurns: cap, maxBudgetUsd: 1_000 },
        ...(compact ? { context: { trigger: { tokens: DEMO_TRIGGER } } } : {}),
      },
    })
  );
  const compactions = p.events.filter((e): e is CompactionEvent => e.type === "compaction");
  return { state: p.state, prompts: promptTokensPerTurn(p.events), compactions };
}

function row(cap: number, compact: boolean, p: Played) {
  const s = p.state;
  const mean = p.prompts.reduce((n, x) => n + x, 0) / Math.max(1, p.prompts.length);
  const spent = p.compactions.reduce((n, c) => n + c.compactionCostUsd, 0);
  return [
    cap,
    compact ? "on" : "off",
    s.turns,
    p.compactions.length,
    usd(spent),
    int(mean),
    int(Math.max(...p.prompts)),
    int(s.usage.prompt_tokens),
    usd(s.costUsd),
  ];
}

/**
 * 2b. `runaway` at caps 50, 100 and 200, without and with a context policy
 * (`trigger: { tokens: 2000 }`, the rest at its defaults): turns, compactions
 * and their cost, prompt tokens per turn (mean, largest), cost; the ratios of
 * cost from 100 to 200 turns; a curve of prompt tokens per turn at cap 200.
 *
 * @example
 * ```ts
 * import { compactionExperiment } from "./compaction.ts";
 * await compactionExperiment(console.log);
 * ```
 */
export async function compactionExperiment(out: Out): Promise<void> {
  heading(out, `2b. the same runaway with compaction (summaries over ${int(DEMO_TRIGGER)} tokens)`);
  const played = new Map<string, Played>();
  const rows = [];
  for (const cap of CAPS) {
    for (const compact of [false, true]) {
      const p = await runaway(cap, compact);
      played.set(`${cap}:${compact}`, p);
      rows.push(row(cap, compact, p));
    }
  }
  printTable(out, [
    "cap",
    "compaction",
    "turns",
    "compactions",
    "their cost",
    "prompt/turn",
    "max prompt",
    "in",
    "cost",
  ], rows);
  const cost = (cap: number, on: boolean) => played.get(`${cap}:${on}`)!.state.costUsd;
  out(
    `  cap 100 -> 200: without ${usd(cost(100, false))} -> ${usd(cost(200, false))} ` +
      `(${ratio(cost(200, false), cost(100, false))}); with ${usd(cost(100, true))} -> ` +
      `${usd(cost(200, true))} (${ratio(cost(200, true), cost(100, true))})`,
  );
  out("  with compaction no prompt passes the trigger: each turn costs about the same,");
  out("  so the bill grows with the turns, not with their square");
  out(
    "  prompt tokens per turn at cap 200 (* without compaction, o with, # both; a column: 4 turns)",
  );
  const curve = textCurve([
    { mark: "*", values: played.get("200:false")!.prompts },
    { mark: "o", values: played.get("200:true")!.prompts },
  ], { rows: 10, perColumn: 4 });
  for (const line of curve) out(`  ${line}`);
}
