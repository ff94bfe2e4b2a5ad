/**
 * Forking a stored run: the fork is saved as a new tree (with its source's
 * settings), quoted, and either left to run (`running`: any instance's sweep
 * or schedule starts it) or only created (`start: false`: it waits,
 * `interrupted`, until a resume starts it).
 *
 * @module
 */
import { type CallQuote, type ForkOptions, forkState, quoteNextCall } from "../harness/fork.ts";
import type { RunOptions } from "../harness/run_options.ts";
import type { RunState } from "../harness/state.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";
import { parseStoredSettings } from "./run_settings.ts";

/** The reason a fork created with `start: false` waits with. */
export const FORK_NOT_STARTED = "created by a fork and not started: resume it to start";

/** Options of {@link forkRun}. */
export interface ForkRunOptions extends ForkOptions {
  /**
   * What the fork will run with (its model, tools, prices, budget mode): the
   * quote is counted with them. Given the fork's state, once built.
   */
  runWith(
    fork: RunState,
  ): Promise<
    Pick<RunOptions, "model" | "tools" | "prices" | "budgetMode" | "output" | "maxOutputRepairs">
  >;
  /** Leave it to run (default true); false: created and quoted only. */
  start?: boolean;
  /** Quote it only: nothing is saved (the returned state is what would be). */
  quoteOnly?: boolean;
}

/** A new fork and the quote of its next call. */
export interface ForkResult {
  /** The fork as saved. */
  state: RunState;
  /** Its next model call, priced before anything is spent. */
  quote: CallQuote;
}

/**
 * Creates a fork of stored run `id` at `atTurn` (see `forkState`) and quotes
 * its next call. In hard budget mode the quote is what the budget must
 * cover: a fork whose `maxBudgetUsd` is below `quote.totalUsd` is refused
 * (`RangeError` naming `limits.maxBudgetUsd`) and nothing is saved.
 *
 * @example
 * ```ts
 * import { forkRun } from "./fork_run.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * import { scriptedModel } from "../testing/scripted_model.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const s = newRun("hi");
 * await store.save(s);
 * const model = scriptedModel("echo");
 * const { state, quote } = await forkRun(store, s.runId, {
 *   atTurn: 0, start: false, runWith: () => Promise.resolve({ model }),
 * });
 * console.log(state.forkedFrom?.turn, state.status, quote.promptTokens); // 0 interrupted 9
 * kv.close();
 * ```
 */
export async function forkRun(
  store: KvRunStore,
  id: string,
  options: ForkRunOptions,
): Promise<ForkResult> {
  const { runWith, start = true, quoteOnly = false, ...fork } = options;
  const state = forkState(await store.read(id), fork);
  if (quoteOnly) {
    const run = await runWith(state);
    const quote = await quoteNextCall(state, run);
    if (run.budgetMode === "hard") coveredByBudget(state, quote);
    return { state, quote };
  }
  // Settings first: the fork runs (and is quoted) with its source's.
  const settings = parseStoredSettings(id, await store.settings(id));
  // The fork's own limits replace the settings' (else they would cap it again when it runs).
  if (settings.limits && fork.limits) settings.limits = { ...settings.limits, ...fork.limits };
  await store.saveSettings(state.runId, settings);
  let quote: CallQuote;
  try {
    const run = await runWith(state);
    quote = await quoteNextCall(state, run);
    if (run.budgetMode === "hard") coveredByBudget(state, quote);
  } catch (e) {
    await store.delete(state.runId).catch(() => {}); // the settings saved above
    throw e;
  }
  if (!start) {
    state.status = "interrupted";
    state.interruption = { type: "cancelled", reason: FORK_NOT_STARTED };
    state.stopReason = FORK_NOT_STARTED;
  }
  await store.save(state);
  return { state, quote };
}

/** In hard budget mode the quote is what the budget must cover (RangeError otherwise). */
function coveredByBudget(state: RunState, quote: CallQuote): void {
  if (quote.totalUsd <= state.limits.maxBudgetUsd) return;
  throw new RangeError(
    `limits.maxBudgetUsd: the fork's next call is quoted at $${quote.totalUsd.toFixed(6)} ` +
      `(prompt $${quote.promptUsd.toFixed(6)} + reply reservation $${quote.replyUsd.toFixed(6)}) ` +
      `and a hard budget must cover it; the budget is $${state.limits.maxBudgetUsd.toFixed(6)}`,
  );
}
