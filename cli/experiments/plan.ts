/**
 * Experiments 1 and 2: the plan scenario under a turn cap, and the runaway
 * scenario under caps 8, 20, 50 and 100 (the quadratic bill).
 *
 * @module
 */
import {
  heading,
  type Out,
  play,
  printTable,
  promptTokensPerTurn,
  toolRunsOf,
  withWorkspace,
} from "./common.ts";
import { int, quote, ratio, usd } from "../table.ts";

/**
 * 1. `plan` with a cap of 20 turns: one row, then the prompt tokens of each turn.
 *
 * @example
 * ```ts
 * import { planExperiment } from "./plan.ts";
 * await planExperiment(console.log);
 * ```
 */
export async function planExperiment(out: Out): Promise<void> {
  heading(out, "1. plan, cap 20: list, read, answer");
  const p = await withWorkspace((ws) => play(ws, "plan", { run: { limits: { maxTurns: 20 } } }));
  const s = p.state;
  printTable(
    out,
    ["turns", "tools", "in", "out", "cost", "ms", "status", "answer"],
    [[
      s.turns,
      s.toolRuns,
      s.usage.prompt_tokens,
      s.usage.completion_tokens,
      usd(s.costUsd),
      p.ms,
      s.status,
      quote(s.output),
    ]],
  );
  out(`  tool runs: ${toolRunsOf(p.events).join(", ")}`);
  out(`  per-turn prompt tokens: ${promptTokensPerTurn(p.events).map(int).join(", ")}`);
  out("  (each turn re-sends everything before it)");
}

/**
 * 2. `runaway` (never answers) under turn caps 8, 20, 50 and 100, and the
 * ratio of cost and input tokens between 50 and 100.
 *
 * @example
 * ```ts
 * import { runawayCapsExperiment } from "./plan.ts";
 * await runawayCapsExperiment(console.log);
 * ```
 */
export async function runawayCapsExperiment(out: Out): Promise<void> {
  heading(out, "2. runaway (never answers) under a turn cap");
  const rows = [];
  const byCap = new Map<number, { cost: number; input: number }>();
  for (const cap of [8, 20, 50, 100]) {
    const { state: s } = await withWorkspace((ws) =>
      play(ws, "runaway", { run: { limits: { maxTurns: cap, maxBudgetUsd: 1_000 } } })
    );
    byCap.set(cap, { cost: s.costUsd, input: s.usage.prompt_tokens });
    rows.push([
      cap,
      s.turns,
      s.usage.prompt_tokens,
      s.usage.completion_tokens,
      usd(s.costUsd),
      s.status,
    ]);
  }
  printTable(out, ["cap", "turns", "in", "out", "cost", "status"], rows);
  const a = byCap.get(50)!, b = byCap.get(100)!;
  out(
    `  cap 50 -> 100: cost ${usd(a.cost)} -> ${usd(b.cost)} (${ratio(b.cost, a.cost)}), ` +
      `input tokens ${int(a.input)} -> ${int(b.input)} (${ratio(b.input, a.input)})`,
  );
  out("  doubling the cap did not double the bill: turn n carries every turn before it");
}
