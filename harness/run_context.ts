/**
 * What one `run()` call shares between its steps.
 *
 * @module
 */
import type { RunOptions } from "./run_options.ts";
import type { BudgetGate } from "./budget_gate.ts";
import type { RunState } from "./state.ts";
import type { TraceEventInput } from "./trace.ts";
import type { ToolContext } from "./tool.ts";
import type { ChatMessage, ToolDefinition } from "./messages.ts";
import type { Exit } from "./exit.ts";
import type { ToolSchema } from "./schema_adapter.ts";
import type { OutputFormat } from "./output.ts";

/**
 * What a compaction comes to: the Exit when the run must stop, `waited` when
 * the summary call waited for a sibling's call to settle (the loop checks the
 * limits and compacts again), `summarized` when a summary call was made and
 * billed (the loop checks the limits again before the model call), else null
 * (elided, or nothing to compact).
 */
export type CompactionVerdict = Exit | "waited" | "summarized" | null;

/** The prompt of one `run()` call (see the module doc). */
export interface ContextWindow {
  /** The messages the model is sent next: the transcript, or its compacted view. */
  messages(state: RunState): ChatMessage[];
  /**
   * Before a model call: compacts when a policy is on and the prompt is over
   * its trigger, or the provider refused the last one as too long. Returns the
   * Exit when the run must stop (the budget cannot pay, the summary failed),
   * `waited` when the summary call waited for a sibling's call to settle (the
   * loop checks the limits again and comes back).
   */
  beforeTurn(
    ctx: RunContext,
    definitions: readonly ToolDefinition[],
  ): CompactionVerdict | Promise<CompactionVerdict>;
  /**
   * Whether a failed model call is a context-length error the run compacts
   * for and asks again (with a policy on; once per turn).
   */
  retriesAfter(state: RunState, error: unknown): boolean;
}

/** What one `run()` call knows of its output schema. */
export interface OutputPlan {
  /** The schema's check (zod's, or a Standard Schema's). */
  check: ToolSchema<unknown>;
  format: OutputFormat;
  /** `json_schema`: sent with each request; `tool`: the `final_answer` tool. */
  mode: "json_schema" | "tool";
  maxRepairs: number;
}

/** Everything one `run()` call shares between its steps. */
export interface RunContext {
  state: RunState;
  options: RunOptions;
  signal: AbortSignal;
  emit(event: TraceEventInput): Promise<void>;
  save(): Promise<void>;
  /** The tree's in-flight model calls (shared with children). */
  gate: BudgetGate;
  /** USD this run may still spend, counting its ancestors' budgets. */
  remainingUsd(): number;
  /**
   * Adds spend to this run and its ancestors: the run's own model call
   * (`callId` null) or work a tool call started (a child run), as it happens.
   */
  spend(usd: number, callId: string | null): Promise<void> | undefined;
  /** Prompt tokens the provider reported for this run's last call (null: none in this process). */
  lastPromptTokens: number | null;
  /** The finish reason of the last reply this `run()` call got (null: none yet). */
  lastFinish: string | null;
  /**
   * The child run of call `callId` is stored with `costUsd`: this run saves,
   * at a bounded rate, with that much of the call's spend.
   */
  childSaved(callId: string, costUsd: number): void;
  /** The prompt: the transcript, or its compacted view; compacts before a turn (context policy). */
  window: ContextWindow;
  /** The run's output schema and how the model is asked for it; null without `output`. */
  output: OutputPlan | null;
  /** The `runChild` of call `callId`'s tool context. */
  runChild(callId: string): ToolContext["runChild"];
}
