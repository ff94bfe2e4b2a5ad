/**
 * The harness's own time per turn (wall minus model minus tools), for reins
 * and for the bare loop, on `runaway` (100 turns) and `plan` (3 turns), with
 * the in-process scripted provider at latency 0.
 *
 * @module
 */
import { run } from "../harness/run.ts";
import { newRun, type RunState } from "../harness/state.ts";
import type { RunOptions } from "../harness/run_options.ts";
import type { AnyTool } from "../harness/run_options.ts";
import type { Model } from "../harness/model.ts";
import { memorySink } from "../harness/trace.ts";
import { SCRIPTED_BASE_URL } from "../testing/scripted_model.ts";
import { scriptedFetch } from "../testing/scripted_provider.ts";
import { createOpenAIModel } from "../openai/openai_model.ts";
import { defineTool } from "../harness/tool.ts";
import { z } from "zod";
import { bareLoop } from "./bare_loop.ts";
import {
  median,
  perTurn,
  progress,
  Recorder,
  timedFetch,
  timedModel,
  timedTools,
  totals,
  type TurnTiming,
} from "./instrument.ts";

/** The task every benchmark run gets. */
export const TASK = "Which file mentions a timeout?";

/** The per-run figures of one loop on one scenario. */
export interface LoopRuns {
  /** Per run, per turn. */
  turns: TurnTiming[][];
  /** Per run, whole-run totals. */
  totals: (TurnTiming & { turns: number })[];
}

/** What {@link benchOverhead} measured. */
export interface OverheadResult {
  /** Streamed replies (reins's default) against the bare streaming loop. */
  runaway: { reins: LoopRuns; bare: LoopRuns };
  /** `stream: false` against the bare plain loop. */
  runawayPlain: { reins: LoopRuns; bare: LoopRuns };
  /** reins on runaway with `budgetMode: "hard"` (counts the prompt before each call). */
  runawayHard: LoopRuns;
  plan: { reins: LoopRuns; bare: LoopRuns };
  planPlain: { reins: LoopRuns; bare: LoopRuns };
  /** Loop only (instant model, no-op tool): median wall ms per turn. */
  loopOnly: { reins: number; reinsNoTrace: number; bare: number };
  runs: number;
  planRuns: number;
}

/**
 * The scripted provider as reins uses it in process (what `scriptedModel`
 * builds: the OpenAI-compatible client over the provider's `fetch`), with the
 * provider's own time recorded.
 */
export function scriptedModelTimed(scenario: string, rec: Recorder, stream = true): Model {
  return createOpenAIModel({
    baseUrl: SCRIPTED_BASE_URL,
    model: scenario,
    fetch: timedFetch(scriptedFetch({ latencyMs: 0 }), rec),
    stream,
  });
}

/**
 * Runs reins once on `scenario` with timed model and tools, a memory trace
 * sink (the trace is part of the harness's job) and `extra` options (a store).
 */
export async function timedReinsRun(
  model: Model,
  tools: readonly AnyTool[],
  maxTurns: number,
  rec: Recorder,
  extra: Partial<RunOptions> = {},
): Promise<RunState> {
  const m = timedModel(model, rec);
  const t = timedTools(tools, rec);
  const { sink } = memorySink();
  const state = newRun(TASK);
  rec.reset();
  const done = await run(state, {
    model: m,
    tools: t,
    limits: { maxTurns, maxBudgetUsd: 1e6 },
    trace: sink,
    ...extra,
  });
  rec.stop();
  return done;
}

/** Runs the bare loop once on `scenario` with timed tools. */
export async function timedBareRun(
  fetchFn: typeof fetch,
  scenario: string,
  tools: readonly AnyTool[],
  maxTurns: number,
  rec: Recorder,
  stream = false,
): Promise<number> {
  const t = timedTools(tools, rec);
  rec.reset();
  const done = await bareLoop(fetchFn, scenario, TASK, t, rec, maxTurns, stream);
  rec.stop();
  return done.turns;
}

function empty(): LoopRuns {
  return { turns: [], totals: [] };
}

/**
 * Measures both loops, alternating them run by run so drift of the machine
 * hits both alike. One discarded warm-up run of each first.
 */
export async function benchOverhead(
  tools: readonly AnyTool[],
  options: { runs?: number; planRuns?: number } = {},
): Promise<OverheadResult> {
  const runs = options.runs ?? 5;
  const planRuns = options.planRuns ?? 30;
  const rec = new Recorder();
  const fetchFn = timedFetch(scriptedFetch({ latencyMs: 0 }), rec);
  const runawayModel = scriptedModelTimed("runaway", rec);
  /** reins and the bare loop, alternated run by run, in one reply mode. */
  const pairs = async (
    into: { reins: LoopRuns; bare: LoopRuns },
    n: number,
    scenario: "runaway" | "plan",
    turns: number,
    status: string,
    stream: boolean,
  ) => {
    const model = scriptedModelTimed(scenario, rec, stream);
    const cap = scenario === "plan" ? 20 : turns;
    for (let i = -3; i < n; i++) {
      const s = await timedReinsRun(model, tools, cap, rec);
      if (s.status !== status || s.turns !== turns) {
        throw new Error(`${scenario}: expected ${status} in ${turns}, got ${s.status} ${s.turns}`);
      }
      if (i >= 0) into.reins.turns.push(perTurn(rec)), into.reins.totals.push(totals(rec));
      const got = await timedBareRun(fetchFn, scenario, tools, cap, rec, stream);
      if (got !== turns) throw new Error(`bare ${scenario}: expected ${turns} turns, got ${got}`);
      if (i >= 0) into.bare.turns.push(perTurn(rec)), into.bare.totals.push(totals(rec));
    }
  };
  const result: OverheadResult = {
    runaway: { reins: empty(), bare: empty() },
    runawayPlain: { reins: empty(), bare: empty() },
    runawayHard: empty(),
    plan: { reins: empty(), bare: empty() },
    planPlain: { reins: empty(), bare: empty() },
    loopOnly: await loopOnly(),
    runs,
    planRuns,
  };

  for (const stream of [true, false]) {
    const mode = stream ? "streamed" : "plain";
    progress(`runaway x100 turns, ${mode}: reins vs bare loop, ${runs} runs each (+3 warm-up)`);
    const into = stream ? result.runaway : result.runawayPlain;
    await pairs(into, runs, "runaway", 100, "max_turns_exceeded", stream);
  }
  const hardRuns = Math.max(3, Math.ceil(runs / 2));
  progress(`runaway x100 turns, reins with budgetMode hard: ${hardRuns} runs (+1 warm-up)`);
  for (let i = -1; i < hardRuns; i++) {
    const s = await timedReinsRun(runawayModel, tools, 100, rec, { budgetMode: "hard" });
    if (s.status !== "max_turns_exceeded" || s.turns !== 100) {
      throw new Error(`runaway (hard): expected 100 turns, got ${s.status} after ${s.turns}`);
    }
    if (i >= 0) {
      result.runawayHard.turns.push(perTurn(rec));
      result.runawayHard.totals.push(totals(rec));
    }
  }

  for (const stream of [true, false]) {
    const mode = stream ? "streamed" : "plain";
    progress(`plan x3 turns, ${mode}: reins vs bare loop, ${planRuns} runs each (+3 warm-up)`);
    const into = stream ? result.plan : result.planPlain;
    await pairs(into, planRuns, "plan", 3, "completed", stream);
  }
  return result;
}

/**
 * The loop alone: a model that answers at once from memory and a tool that
 * returns a constant, 100 turns; wall time per turn, reins (with and without
 * an in-memory trace) against the bare loop. No provider, no I/O: what is
 * left is each loop's own bookkeeping.
 */
async function loopOnly(): Promise<OverheadResult["loopOnly"]> {
  progress("loop only: instant model, no-op tool, 100 turns x 20 runs (+5 warm-up) each");
  const tool = defineTool({
    name: "list_files",
    description: "Lists files.",
    parameters: z.object({}),
    readOnly: true,
    run: () => "a.log (1 byte)",
  });
  const model: Model = {
    name: "instant",
    complete: (req) =>
      Promise.resolve({
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: `call_${req.messages.length}`,
            type: "function",
            function: { name: "list_files", arguments: "{}" },
          }],
        },
        usage: { prompt_tokens: 100, completion_tokens: 10 },
        finishReason: "tool_calls",
      }),
  };
  const turns = 100;
  const reins = async (trace: boolean) => {
    const t0 = performance.now();
    await run(newRun(TASK), {
      model,
      tools: [tool],
      limits: { maxTurns: turns, maxBudgetUsd: 1e9 },
      trace: trace ? memorySink().sink : undefined,
    });
    return (performance.now() - t0) / turns;
  };
  const bare = async () => {
    const t0 = performance.now();
    await bareLoopInstant(model, tool, turns);
    return (performance.now() - t0) / turns;
  };
  const a: number[] = [], b: number[] = [], c: number[] = [];
  for (let i = -5; i < 20; i++) {
    const x = [await reins(true), await reins(false), await bare()];
    if (i >= 0) a.push(x[0]), b.push(x[1]), c.push(x[2]);
  }
  return { reins: median(a), reinsNoTrace: median(b), bare: median(c) };
}

/** The bare loop's body with the model called directly (no fetch). */
async function bareLoopInstant(
  model: Model,
  tool: AnyTool,
  turns: number,
): Promise<void> {
  const signal = new AbortController().signal;
  const byName = new Map([[tool.name, tool]]);
  const messages: RunState["messages"] = [{ role: "user", content: TASK }];
  for (let t = 0; t < turns; t++) {
    const reply = await model.complete({ messages, tools: [] }, signal);
    messages.push(reply.message);
    for (const c of reply.message.tool_calls ?? []) {
      const out = await byName.get(c.function.name)!.run(
        JSON.parse(c.function.arguments),
        {
          signal,
        } as Parameters<AnyTool["run"]>[1],
      );
      messages.push({
        role: "tool",
        tool_call_id: c.id,
        name: c.function.name,
        content: String(out),
      });
    }
  }
}
