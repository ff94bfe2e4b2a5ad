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
import type { ContextWindow } from "./context_window.ts";
import type { OutputPlan } from "./output_turn.ts";

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
  spend(usd: number, callId: string | null): Promise<void>;
  /** Prompt tokens the provider reported for this run's last call (null: none in this process). */
  lastPromptTokens: number | null;
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
