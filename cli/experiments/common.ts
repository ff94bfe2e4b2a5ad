/**
 * What the demo's experiments share: the task, a fresh workspace per run, and
 * one call that plays a scenario and keeps its trace.
 *
 * @module
 */
import { run } from "../../harness/run.ts";
import { newRun, type RunState } from "../../harness/state.ts";
import type { RunOptions } from "../../harness/run_options.ts";
import type { TraceEvent, TraceSink } from "../../harness/trace.ts";
import { scriptedModel, type ScriptedModelOptions } from "../../testing/scripted_model.ts";
import { createWorkspace, type Workspace } from "../../tools/workspace.ts";
import { demoTools, type DemoToolsOptions } from "../../tools/catalog.ts";
import { type Cell, int, table } from "../table.ts";
import { demoExits } from "./exit_log.ts";

/** Where the demo writes its lines. */
export type Out = (line: string) => void;

/** Options every experiment receives. */
export interface ExperimentOptions {
  /** Shrink the slow parts (for tests). */
  quick?: boolean;
}

/** The user's task in every experiment. */
export const TASK = "Which file mentions a timeout?";
/** The system prompt of every experiment. */
export const SYSTEM = "You are an operations assistant. Use the tools to answer; be brief.";

/**
 * Runs `fn` with a fresh demo workspace and removes it afterwards.
 *
 * @example
 * ```ts
 * import { withWorkspace } from "./common.ts";
 * const files = await withWorkspace((ws) => ws.files());
 * ```
 */
export async function withWorkspace<T>(fn: (ws: Workspace) => Promise<T>): Promise<T> {
  const ws = await createWorkspace();
  try {
    return await fn(ws);
  } finally {
    await ws.remove();
  }
}

/** Options of {@link play}. */
export interface PlayOptions {
  /** Continue this state instead of a new run. */
  state?: RunState;
  /** Passed to `run()` besides model, tools and trace. */
  run?: Omit<RunOptions, "model" | "tools" | "trace">;
  /** Passed to the scripted model (latency, extra scenarios). */
  model?: ScriptedModelOptions;
  /** Passed to the tool catalog. */
  tools?: DemoToolsOptions;
  /** Print `tool_progress` events here as they happen. */
  progress?: Out;
  /** Another trace sink, called after the demo's own. */
  trace?: TraceSink;
}

/** What {@link play} returns. */
export interface Played {
  /** The state `run()` returned. */
  state: RunState;
  /** Every trace event of the run, in order. */
  events: TraceEvent[];
  /** Wall time of the `run()` call. */
  ms: number;
  /** `performance.now()` when `run()` returned. */
  endedAt: number;
  /** Model calls that reached the provider. */
  modelCalls: number;
}

/**
 * Plays a scenario in a workspace against the in-process scripted provider,
 * keeping every trace event. Progress events are printed as they arrive.
 *
 * @example
 * ```ts
 * import { play, withWorkspace } from "./common.ts";
 * const p = await withWorkspace((ws) => play(ws, "plan"));
 * console.log(p.state.status); // "completed"
 * ```
 */
export async function play(ws: Workspace, scenario: string, o: PlayOptions = {}): Promise<Played> {
  const events: TraceEvent[] = [];
  let modelCalls = 0;
  const model = scriptedModel(scenario, {
    ...o.model,
    onRequest: (info) => {
      modelCalls++;
      o.model?.onRequest?.(info);
    },
  });
  const started = performance.now();
  const state = await run(o.state ?? newRun(TASK, { system: SYSTEM }), {
    ...o.run,
    model,
    tools: demoTools(ws, o.tools),
    trace: async (e) => {
      events.push(e);
      if (e.type === "tool_progress" && o.progress) {
        o.progress(`  progress: ${e.label}  (t+${int(performance.now() - started)} ms)`);
      }
      await o.trace?.(e);
    },
  });
  const endedAt = performance.now();
  demoExits.record(state);
  return { state, events, ms: endedAt - started, endedAt, modelCalls };
}

/**
 * The prompt tokens of each turn, from the trace.
 *
 * @example
 * ```ts
 * import { promptTokensPerTurn } from "./common.ts";
 * console.log(promptTokensPerTurn([])); // []
 * ```
 */
export function promptTokensPerTurn(events: readonly TraceEvent[]): number[] {
  return events.flatMap((e) => e.type === "turn" ? [e.prompt_tokens] : []);
}

/**
 * The tool executions of a trace as `name` or `name:path`, in order.
 *
 * @example
 * ```ts
 * import { toolRunsOf } from "./common.ts";
 * console.log(toolRunsOf([])); // []
 * ```
 */
export function toolRunsOf(events: readonly TraceEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.type !== "tool_start") return [];
    let path: unknown;
    try {
      path = JSON.parse(e.args)?.path;
    } catch {
      path = undefined;
    }
    return [typeof path === "string" ? `${e.toolName}:${path}` : e.toolName];
  });
}

/**
 * Prints a section title: a blank line, then `== title ==`.
 *
 * @example
 * ```ts
 * import { heading } from "./common.ts";
 * heading(console.log, "1. plan");
 * ```
 */
export function heading(out: Out, title: string): void {
  out("");
  out(`== ${title} ==`);
}

/**
 * Prints a {@link table} line by line.
 *
 * @example
 * ```ts
 * import { printTable } from "./common.ts";
 * printTable(console.log, ["a", "b"], [[1, "x"]]);
 * ```
 */
export function printTable(out: Out, headers: string[], rows: Cell[][]): void {
  for (const line of table(headers, rows)) out(line);
}
