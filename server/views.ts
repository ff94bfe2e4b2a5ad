/**
 * What the API returns for a run, and small helpers the routes share.
 *
 * @module
 */
import type { Context } from "hono";
import type { Failure, ForkOrigin, RunState } from "../harness/state.ts";
import type { RunLimits } from "../harness/limits.ts";
import type { RunSummary } from "../kv/kv_run_store.ts";
import type { Lease } from "../kv/leases.ts";
import { parseInput, RunIdSchema } from "./schemas.ts";

/** What a run's compactions did (context policy), as `GET /runs/:id` shows it. */
export interface CompactionView {
  /** Compactions made (elisions and summaries). */
  compactions: number;
  /** USD they cost (summary calls; part of `costUsd`). */
  costUsd: number;
  /** Model turns the current summary stands for in the prompt. */
  summaryTurns: number;
}

/**
 * A run as `GET /runs/:id` returns it: the summary, its limits, who executes
 * it, its compactions (null before the first), why it failed, and for a fork
 * where it came from.
 */
export type RunView = RunSummary & {
  limits: RunLimits;
  lease: Lease | null;
  compaction: CompactionView | null;
  failure: Failure | null;
  forkedFrom?: ForkOrigin;
};

/**
 * The view of a run state (no transcript).
 *
 * @example
 * ```ts
 * import { runView } from "./views.ts";
 * import { newRun } from "../harness/state.ts";
 * console.log(runView(newRun("hi"), null).messageCount); // 1
 * ```
 */
export function runView(state: RunState, lease: Lease | null): RunView {
  return {
    runId: state.runId,
    parentId: state.parentId,
    rootId: state.rootId,
    status: state.status,
    interruption: state.interruption,
    stopReason: state.stopReason,
    model: state.model,
    ...(state.agent === undefined ? {} : { agent: state.agent }),
    turns: state.turns,
    toolRuns: state.toolRuns,
    costUsd: state.costUsd,
    childCostUsd: state.childCostUsd,
    estimatedUsd: state.estimatedUsd,
    usage: state.usage,
    output: state.output,
    error: state.error,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    messageCount: state.messages.length,
    limits: state.limits,
    lease,
    compaction: state.context
      ? {
        compactions: state.context.compactions,
        costUsd: state.context.costUsd,
        summaryTurns: state.context.summaryTurns,
      }
      : null,
    failure: state.failure ?? null,
    ...(state.forkedFrom ? { forkedFrom: state.forkedFrom } : {}),
  };
}

/**
 * The validated `:id` path parameter (400 naming `id` otherwise).
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { runIdParam } from "./views.ts";
 * const app = new Hono().get("/runs/:id", (c) => c.text(runIdParam(c)));
 * console.log(await (await app.request("/runs/abc")).text()); // abc
 * ```
 */
export function runIdParam(c: Context): string {
  return parseInput(RunIdSchema, c.req.param("id"), "id");
}
