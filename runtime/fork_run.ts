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
import { newBudgetGate, planCall } from "../harness/budget_gate.ts";
import { pricesFor, roundUsd } from "../harness/cost.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";
import { join } from "node:path";
import { RunStateError } from "../harness/errors.ts";
import { type ExecutorDeps, modelOf } from "./executor.ts";
import { loadRunSettings } from "./run_settings.ts";
import { agentRunOptions } from "../subagents/agent_run_options.ts";

/** The reason a fork created with `start: false` waits with. */
export const FORK_NOT_STARTED = "created by a fork and not started: resume it to start";

/** Options of {@link forkRun}. */
export interface ForkRunOptions extends ForkOptions {
  /**
   * What the fork will run with (its model, tools, prices, budget mode, its
   * `minReplyTokens`): the quote is counted with them. Given the fork's
   * state, once built.
   */
  runWith(
    fork: RunState,
  ): Promise<
    Pick<
      RunOptions,
      "model" | "tools" | "prices" | "budgetMode" | "minReplyTokens" | "output" | "maxOutputRepairs"
    >
  >;
  /** Leave it to run (default true); false: created and quoted only. */
  start?: boolean | undefined;
  /** Quote it only: nothing is saved (the returned state is what would be). */
  quoteOnly?: boolean | undefined;
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
 * its next call. In hard budget mode a fork whose budget cannot pay the
 * quoted prompt and a useful reply (`minReplyTokens`), the loop's own check,
 * is refused (`RangeError` naming `limits.maxBudgetUsd`) and nothing is
 * saved; its reply is then capped at what the budget buys, so `totalUsd`
 * (the call in full) may exceed the budget.
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
  const run = await runWith(state);
  const quote = await quoteNextCall(state, run);
  if (run.budgetMode === "hard") coveredByBudget(state, quote, run);
  if (quoteOnly) return { state, quote };
  if (!start) {
    state.status = "interrupted";
    state.interruption = { type: "cancelled", reason: FORK_NOT_STARTED };
    state.stopReason = FORK_NOT_STARTED;
  }
  // With its source's settings, in one commit: nothing is written for a fork refused above,
  // and a fork id already taken (RunConflictError) is left as it was.
  const settings = await store.settings(id);
  await store.save(state, settings === null ? {} : { settings });
  return { state, quote };
}

/**
 * In hard budget mode the fork's next call must be one the loop would make:
 * its prompt and at least a useful reply (`minReplyTokens`) within the
 * budget, the reply capped at what the rest buys, as every hard call is
 * (RangeError otherwise, with the loop's own reason).
 */
function coveredByBudget(state: RunState, quote: CallQuote, run: RunOptions): void {
  const prices = pricesFor(run.prices ?? run.model.prices, run.model.name);
  const plan = planCall({
    gate: newBudgetGate(),
    hard: true,
    ownUsd: () => roundUsd(state.limits.maxBudgetUsd - state.costUsd),
    ancestorsUsd: () => undefined,
    promptUsd: () => quote.promptUsd, // scaled as the loop plans it (quoteNextCall)
    outputPerMillion: prices.outputPerMillion,
    maxOutputTokens: prices.maxOutputTokens,
    minReplyTokens: run.minReplyTokens,
  });
  if (plan.type === "call") return;
  throw new RangeError(
    `limits.maxBudgetUsd: the fork's next call cannot be made under its hard budget ` +
      `($${state.limits.maxBudgetUsd.toFixed(6)}): ${plan.reason}`,
  );
}

/**
 * What a fork of stored root run `source` runs with in this process, for its
 * quote: the source's agent (`RunStateError` when it is not served here), the
 * options stored with the source, the model and tools they give, built for
 * the source's tree (its folder exists: a quote creates nothing).
 *
 * @example
 * ```ts
 * import { forkRunOptions } from "./fork_run.ts";
 * import { agentRegistry } from "./agent_registry.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * import { scriptedModel } from "../testing/scripted_model.ts";
 * const kv = await Deno.openKv(":memory:");
 * const agents = agentRegistry([defineAgent({ name: "a", instructions: "", tools: [] })]);
 * const deps = { agents, makeModel: (n: string) => scriptedModel(n), workspaceRoot: "/tmp" };
 * const o = await forkRunOptions(deps, new KvRunStore(kv), newRun("hi", { agent: "a", model: "echo" }));
 * console.log(o.model.name); // echo
 * kv.close();
 * ```
 */
export async function forkRunOptions(
  deps: Pick<ExecutorDeps, "agents" | "makeModel" | "defaultModel" | "workspaceRoot" | "prices">,
  store: KvRunStore,
  source: RunState,
): Promise<RunOptions> {
  const agent = deps.agents.forRun(source);
  if (!agent) {
    const name = source.agent ?? "(none)";
    throw new RunStateError(
      source.runId,
      source.status,
      "fork",
      `its agent "${name}" is not served here`,
    );
  }
  const stored = await loadRunSettings(store, source.runId);
  const options = stored === null ? {} : "fingerprint" in stored ? stored.options : stored.legacy;
  return await agentRunOptions(agent, options, {
    model: modelOf(agent, source, deps),
    context: { rootId: source.rootId, dir: join(deps.workspaceRoot, source.rootId) },
    resolveModel: deps.makeModel,
    prices: deps.prices,
    extraTools: deps.agents.extraTools,
  });
}
