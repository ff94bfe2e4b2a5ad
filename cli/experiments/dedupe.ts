/**
 * Experiments 6 and 7: a repeated identical call, with and without the
 * dedupe cache, and the same cache applied to a write.
 *
 * @module
 */
import { approve } from "../../harness/verdict.ts";
import { callTool, say, TIMEOUT_ANSWER } from "../../testing/scenarios.ts";
import { readEffects } from "../../tools/delete_file.ts";
import type { Workspace } from "../../tools/workspace.ts";
import { heading, type Out, play, type Played, printTable, withWorkspace } from "./common.ts";
import { quote, signedUsd, usd } from "../table.ts";

/** The baseline of `repeat`: the same task with the read done once. */
const readOnce = {
  "read-once": ({ turn }: { turn: number }) =>
    turn === 0 ? callTool(turn, "read_file", { path: "errors.log" }) : say(TIMEOUT_ANSWER),
};

/**
 * 6. `repeat` (the identical read in two consecutive turns) without and with
 * dedupe, against a baseline that reads once. Dedupe saves a tool run, not a turn.
 *
 * @example
 * ```ts
 * import { repeatExperiment } from "./dedupe.ts";
 * await repeatExperiment(console.log);
 * ```
 */
export async function repeatExperiment(out: Out): Promise<void> {
  heading(out, "6. the model repeats an identical read-only call");
  const playOne = (scenario: string, dedupe: boolean) =>
    withWorkspace((ws) => play(ws, scenario, { run: { dedupe }, model: { scenarios: readOnce } }));
  const baseRun = await playOne("read-once", false);
  const plainRun = await playOne("repeat", false);
  const dedupeRun = await playOne("repeat", true);
  const runs: [string, Played][] = [
    ["baseline (reads once)", baseRun],
    ["repeat, no dedupe", plainRun],
    ["repeat, dedupe", dedupeRun],
  ];
  const cached = (p: Played) => p.events.filter((e) => e.type === "tool_result" && e.cached).length;
  printTable(
    out,
    ["run", "turns", "tool runs", "from cache", "cost", "status"],
    runs.map(([name, p]) => [
      name,
      p.state.turns,
      p.state.toolRuns,
      cached(p),
      usd(p.state.costUsd),
      p.state.status,
    ]),
  );
  const [base, plain, dedupe] = [
    baseRun.state.costUsd,
    plainRun.state.costUsd,
    dedupeRun.state.costUsd,
  ];
  out(
    `  the repeat cost ${signedUsd(plain - base)} (+${
      Math.round(((plain - base) / base) * 100)
    }%) over the baseline; dedupe saved ${signedUsd(plain - dedupe).slice(1)} of it`,
  );
  out("  dedupe saves a tool run, not a turn: the model was already paid to ask");
}

interface DeleteTwice {
  played: Played;
  approvals: number;
  attempts: number;
  effects: number;
  left: string[];
  /** What the model read for the second delete. */
  second: string;
}

async function deleteTwice(ws: Workspace, dedupeAll: boolean): Promise<DeleteTwice> {
  const options = { run: { dedupe: true, dedupeAll } };
  let p = await play(ws, "destructive-twice", options);
  const events = [...p.events];
  let approvals = 0;
  // Approve every approval the run stops for.
  while (p.state.status === "interrupted" && p.state.interruption?.type === "approval") {
    approvals++;
    p = await play(ws, "destructive-twice", {
      ...options,
      state: approve(p.state, p.state.interruption.callId),
    });
    events.push(...p.events);
  }
  return {
    played: { ...p, events },
    approvals,
    attempts: events.filter((e) => e.type === "tool_start" && e.toolName === "delete_file").length,
    effects: (await readEffects(ws)).length,
    left: await ws.files(),
    second: p.state.messages.filter((m) => m.role === "tool").at(1)?.content ?? "-",
  };
}

/**
 * 7. `destructive-twice` (the identical delete under two call ids), approving
 * every approval: a naive cache on every tool vs a cache on read-only tools.
 *
 * @example
 * ```ts
 * import { deleteTwiceExperiment } from "./dedupe.ts";
 * await deleteTwiceExperiment(console.log);
 * ```
 */
export async function deleteTwiceExperiment(out: Out): Promise<void> {
  heading(out, "7. the same cache on a write: delete access.log twice (every approval granted)");
  const rows = [];
  for (
    const [label, dedupeAll] of [["naive cache on every tool", true], [
      "cache on read-only tools only",
      false,
    ]] as const
  ) {
    const r = await withWorkspace((ws) => deleteTwice(ws, dedupeAll));
    const s = r.played.state;
    rows.push([
      label,
      s.turns,
      s.status,
      s.toolRuns,
      r.approvals,
      r.attempts,
      r.effects,
      JSON.stringify(r.left),
      quote(r.second, 60),
    ]);
  }
  printTable(out, [
    "cache",
    "turns",
    "status",
    "tool runs",
    "approvals",
    "deletes run",
    "effects",
    "files left",
    "2nd delete's result",
  ], rows);
  out("  two call ids say two calls; identical arguments say maybe one. Neither cache knows:");
  out("  only an idempotency key from the layer that knows the operation decides it honestly");
}
