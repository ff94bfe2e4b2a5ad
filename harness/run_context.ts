/**
 * What one `run()` call shares between its steps, and how a step says "stop".
 *
 * @module
 */
import type { BudgetGate, RunOptions } from "./run_options.ts";
import type { Interruption, RunState, RunStatus } from "./state.ts";
import type { TraceEventInput } from "./trace.ts";
import type { ToolContext } from "./tool.ts";

/** Returned by internal steps that end the run. */
export interface Stop {
  status: Exclude<RunStatus, "running">;
  interruption: Interruption | null;
  reason: string;
  error?: string;
}

/** The text of a signal's abort reason. */
export function abortReason(signal: AbortSignal): string {
  const r = signal.reason;
  if (typeof r === "string") return r;
  if (r instanceof Error) return r.message || r.name;
  return String(r);
}

/** A stop for an aborted signal. */
export function cancelled(signal: AbortSignal): Stop {
  const reason = abortReason(signal);
  return {
    status: "interrupted",
    interruption: { type: "cancelled", reason },
    reason: `cancelled: ${reason}`,
  };
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
  spend(usd: number, callId: string | null): Promise<void>;
  /** The `runChild` of call `callId`'s tool context. */
  runChild(callId: string): ToolContext["runChild"];
}
