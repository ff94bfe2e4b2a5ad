/**
 * `ToolContext.runChild`: a child run under the parent's options, linked to
 * its budget, its ancestors' spend and the tree's budget gate.
 *
 * @module
 */
import { RunNotFoundError } from "./errors.ts";
import { checkLimits } from "./limits.ts";
import type { RunContext } from "./run_context.ts";
import type { RunOptions } from "./run_options.ts";
import type { RunStore } from "./run_store.ts";
import type { RunState } from "./state.ts";
import type { ChildRunOptions, ToolContext } from "./tool.ts";

/** `run()` itself, passed in so this module does not import the loop. */
type RunFn = (state: RunState, options: RunOptions) => Promise<RunState>;

/**
 * The `runChild` of the tool context of call `callId` of the run in `ctx`.
 * Internal: `run()` builds it for each tool call.
 */
export function childRunner(
  ctx: RunContext,
  callId: string,
  run: RunFn,
): ToolContext["runChild"] {
  return async (child, options) => {
    const parentId = ctx.state.runId;
    checkChild(child, parentId, callId, options);
    const stored = await loadChild(ctx.options.store, child.runId, parentId);
    if (stored) {
      // A crash between the child's spend and the parent's next save loses that
      // spend from the parent's record: add back what the child spent beyond it.
      const unrecorded = stored.costUsd - (ctx.state.callSpend[callId] ?? 0);
      if (unrecorded > 1e-12) await ctx.spend(unrecorded, callId);
      ctx.childSaved(callId, stored.costUsd);
      // Ended before the parent recorded its result: answer from the store.
      if (stored.status !== "running" && stored.status !== "interrupted") return stored;
    } else {
      await ctx.options.store?.save(child); // visible in the tree at once
      ctx.childSaved(callId, child.costUsd);
    }
    return await run(stored ?? child, childOptions(ctx, callId, options));
  };
}

/** The parent's options with the child's tools, limits and conditions, and the budget link. */
function childOptions(ctx: RunContext, callId: string, o: ChildRunOptions): RunOptions {
  const parent = ctx.options;
  const own = checkLimits(o.limits ?? {});
  return {
    ...parent,
    model: o.model ?? parent.model,
    tools: o.tools,
    // The parent's output schema is its own answer's: a child has its own, or none.
    output: o.output,
    limits: {
      maxTurns: own.maxTurns,
      maxBudgetUsd: Math.min(own.maxBudgetUsd, Math.max(0, ctx.remainingUsd())),
    },
    stopWhen: [
      ...(o.inheritStopWhen === false ? [] : parent.stopWhen ?? []),
      ...(o.stopWhen ?? []),
    ],
    signal: ctx.signal,
    budgetLink: {
      gate: ctx.gate,
      remainingUsd: () => ctx.remainingUsd(),
      spend: (usd) => ctx.spend(usd, callId) ?? Promise.resolve(),
      saved: (usd) => ctx.childSaved(callId, usd),
    },
  };
}

function checkChild(child: RunState, parentId: string, callId: string, o: ChildRunOptions): void {
  if (!child || typeof child.runId !== "string") {
    throw new TypeError("runChild(child, options): child must be a run (newRun)");
  }
  if (child.parentId !== parentId || child.parentCallId !== callId) {
    throw new TypeError(
      `runChild: run "${child.runId}" is not a child of call "${callId}" of run "${parentId}"` +
        ` (give newRun the option parent: { runId, rootId, callId })`,
    );
  }
  if (!o || !Array.isArray(o.tools)) {
    throw new TypeError("runChild(child, options): options.tools must be an array");
  }
}

async function loadChild(
  store: RunStore | undefined,
  id: string,
  parentId: string,
): Promise<RunState | null> {
  if (!store) return null;
  try {
    const child = await store.load(id);
    if (child.parentId !== parentId) {
      throw new Error(`run "${id}" exists but is not a child of "${parentId}"`);
    }
    return child;
  } catch (e) {
    if (e instanceof RunNotFoundError) return null;
    throw e;
  }
}
