/**
 * The options of `run()`: the model, the tools, the limits and the policies.
 *
 * @module
 */
import type { Model } from "./model.ts";
import type { Tool } from "./tool.ts";
import type { LimitsInput } from "./limits.ts";
import type { StopCondition } from "./stop_conditions.ts";
import type { Prices, PriceTable } from "./cost.ts";
import type { TraceSink } from "./trace.ts";
import type { RunStore } from "./run_store.ts";
import type { ToolCall } from "./messages.ts";
import type { BudgetGate } from "./budget_gate.ts";
import type { ContextPolicy } from "./context_policy.ts";
import type { OutputSchema } from "./output.ts";
import type { RunState } from "./state.ts";

export type { BudgetGate } from "./budget_gate.ts";

/** A tool of any argument type, as catalogs hold them. */
// deno-lint-ignore no-explicit-any
export type AnyTool = Tool<any>;

/**
 * What a failed tool call puts into the transcript:
 * - `describe` (default): `Error: <the error's message>`, written for the model;
 * - `generic`: just `Error` (the model learns something failed, not what);
 * - `fatal`: the run stops `failed` with the error as the reason;
 * - a function: your own text.
 */
export type ToolErrorPolicy =
  | "describe"
  | "generic"
  | "fatal"
  | ((error: unknown, call: ToolCall) => string);

/** How the budget is enforced. */
export type BudgetMode =
  /** Check before each call: overshoot is bounded by one turn. */
  | "soft"
  /** Also count the prompt first and cap `max_tokens` at what the rest buys: no overshoot. */
  | "hard";

/** A spend hook linking a child run to its ancestors' budgets. */
export interface BudgetLink {
  /** USD the ancestors can still spend (Infinity when unbounded). */
  remainingUsd(): number;
  /** Adds spend to every ancestor, as it happens. */
  spend(usd: number): Promise<void>;
  /**
   * The child's record was saved with `costUsd`: the parent may now store that
   * much of the child's spend (never more, so a crash cannot leave the parent
   * counting a reply the child has not committed).
   */
  saved?(costUsd: number): void;
  /** The tree's gate (the root's); absent, the run starts one of its own. */
  gate?: BudgetGate;
}

/**
 * Brackets one execution of `run()` (a telemetry adapter, see `reins/otel`):
 * called instead of the loop with the state and options given to `run()`, it
 * must call `next` (with them, or with the same run carrying a `traceparent`
 * and options whose model, trace sink and observer it wraps) and return what
 * `next` returns. Child runs inherit it.
 */
export type RunObserver = (
  state: RunState,
  options: RunOptions,
  next: (state: RunState, options: RunOptions) => Promise<RunState>,
) => Promise<RunState>;

/** Options of `run()`. Only `model` is required. */
export interface RunOptions {
  /** The model that answers each turn. Required. */
  model: Model;
  /** The tools the model may call. Default none. */
  tools?: readonly AnyTool[] | undefined;
  /** Overrides the limits stored in the run (stored back). */
  limits?: LimitsInput | undefined;
  /** More stop conditions, combined by "any" with the turn cap and the budget. */
  stopWhen?: readonly StopCondition[] | undefined;
  /** Default `soft`. */
  budgetMode?: BudgetMode | undefined;
  /**
   * Hard mode: when the rest of the budget buys fewer reply tokens than this,
   * the run stops `budget_exceeded` before the call, saying so (a reply of a
   * few tokens is paid for and useless). A non-negative integer (0 or 1: no
   * minimum); default 32 (`DEFAULT_MIN_REPLY_TOKENS`).
   */
  minReplyTokens?: number | undefined;
  /** Default $2.00 / M input, $12.00 / M output. */
  prices?: Prices | PriceTable | undefined;
  /** Default `describe`. */
  toolErrors?: ToolErrorPolicy | undefined;
  /**
   * Stop `failed` on a `PermanentToolError`, and when the same call fails the
   * same way twice in a row. Default true.
   */
  stopOnPermanentError?: boolean | undefined;
  /** Serve repeated identical read-only calls from cache. Default false. */
  dedupe?: boolean | undefined;
  /** Cache writes too (naive; for comparison only). Default false. */
  dedupeAll?: boolean | undefined;
  /** Most read-only calls of one message run at once. Default 4. */
  concurrency?: number | undefined;
  /** Aborting it stops the run `interrupted/cancelled` with its reason, mid-tool too. */
  signal?: AbortSignal | undefined;
  /** Receives every trace event, in order. Default none. */
  trace?: TraceSink | undefined;
  /** Where the run is saved after each step, so it can be resumed. Default none. */
  store?: RunStore | undefined;
  /** Watches each execution of the run and of its children (telemetry). Default none. */
  observe?: RunObserver | undefined;
  /**
   * Compact the prompt of a long run (see `ContextPolicy`): old tool results
   * elided, older turns summarized. Default none (the prompt is the whole
   * transcript). A run already compacted keeps its compacted prompt either way.
   * Child runs (subagents) inherit it, each against its own model's window.
   */
  context?: ContextPolicy | undefined;
  /**
   * A zod schema the final answer must pass: `result.output` is then its
   * parsed value. The model is asked for it as `response_format` JSON Schema
   * when it declares `structuredOutput: "json_schema"`, else through a
   * `final_answer` tool; a plain-text JSON answer that passes is accepted too.
   * An invalid answer gets repair turns (ordinary turns: under `maxTurns` and
   * the budget); with none left the run fails `invalid_output`. A resumed run
   * is validated by the schema given again, else by its stored JSON Schema.
   */
  output?: OutputSchema | undefined;
  /** Repair turns for an answer that fails `output`, per answer. Default 2. */
  maxOutputRepairs?: number | undefined;
  /**
   * Set by `ToolContext.runChild` for child runs (links the spend to the ancestors).
   * Internal plumbing, left out of the documentation.
   *
   * @ignore
   */
  budgetLink?: BudgetLink | undefined;
}
