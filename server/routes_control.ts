/**
 * Steering runs: `POST /runs/:id/approve`, `/reject`, `/resume` and `/stop`.
 * A verdict or a resume marks the tree's root `running` and schedules it (the
 * run continues in the background); a Stop is recorded for the whole tree
 * and seen by whichever worker executes any of its runs. Each is answered
 * once per `Idempotency-Key` (see idempotency.ts): an approve retried after a
 * lost answer gets its first 202 again instead of a 409, and approves once.
 *
 * @module
 */
import type { Hono } from "hono";
import { continueTree, type Verdict } from "../runtime/continue_tree.ts";
import { DEFAULT_STOP_REASON, requestStop } from "../runtime/stop_tree.ts";
import type { RunLimits } from "../harness/limits.ts";
import { limitsWidening } from "../subagents/agent_run_options.ts";
import type { ResolvedDeps } from "./deps.ts";
import { BadRequestError } from "./errors.ts";
import { type Answer, answerOnce, sendAnswer } from "./idempotency.ts";
import { ApproveSchema, readBody, RejectSchema, ResumeSchema, StopSchema } from "./schemas.ts";
import { runIdParam, runView } from "./views.ts";

/**
 * New limits of a resume (or a follow-up, or a fork) may not exceed the
 * ceiling of the tree's agent (400 otherwise).
 */
export async function checkNewLimits(
  deps: ResolvedDeps,
  id: string,
  limits: Partial<RunLimits>,
): Promise<void> {
  const { rootId } = await deps.store.summary(id);
  const root = await deps.store.summary(rootId);
  const agent = deps.agents.forRun(root);
  if (!agent) {
    throw new BadRequestError("limits", `agent "${root.agent}" is not served here`);
  }
  const over = limitsWidening(agent, limits, deps.runDefaults.limits);
  if (over) throw new BadRequestError(`limits.${over.field}`, over.problem);
}

/**
 * Registers the control routes on `app`.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { registerControlRoutes } from "./routes_control.ts";
 * import { resolveDeps } from "./deps.ts";
 * import { onError } from "./errors.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const agents = [defineAgent({ name: "a", instructions: "Be brief.", tools: [] })];
 * const app = new Hono();
 * app.onError(onError);
 * registerControlRoutes(app, resolveDeps({ kv, store: new KvRunStore(kv), agents }));
 * console.log((await app.request("/runs/nope/stop", { method: "POST" })).status); // 404
 * kv.close();
 * ```
 */
export function registerControlRoutes(app: Hono, deps: ResolvedDeps): void {
  /** Continues the tree of `id` (see `continueTree`) and schedules its root. */
  const continued = async (
    id: string,
    verdict: Verdict,
    limits?: Partial<RunLimits>,
  ): Promise<Answer> => {
    if (limits) await checkNewLimits(deps, id, limits);
    const root = await continueTree(deps.freshStore(), deps.kv, id, verdict, { limits });
    await deps.schedule(root.runId);
    // The answer is the root's view: a replay too large to record is rebuilt from the root.
    return { status: 202, body: runView(root, null), runId: root.runId };
  };

  app.post("/runs/:id/approve", async (c) => {
    const id = runIdParam(c);
    const request = await readBody(c.req.raw, ApproveSchema);
    const verdict: Verdict = { kind: "approve", callId: request.callId };
    const scope = { route: "approve", runId: id };
    const answer = await answerOnce(c, deps, scope, request, () => continued(id, verdict));
    return sendAnswer(c, deps, answer, false);
  });

  app.post("/runs/:id/reject", async (c) => {
    const id = runIdParam(c);
    const request = await readBody(c.req.raw, RejectSchema);
    const verdict: Verdict = { kind: "reject", callId: request.callId, reason: request.reason };
    const scope = { route: "reject", runId: id };
    const answer = await answerOnce(c, deps, scope, request, () => continued(id, verdict));
    return sendAnswer(c, deps, answer, false);
  });

  app.post("/runs/:id/resume", async (c) => {
    const id = runIdParam(c);
    const request = await readBody(c.req.raw, ResumeSchema, true);
    const scope = { route: "resume", runId: id };
    const answer = await answerOnce(
      c,
      deps,
      scope,
      request,
      () => continued(id, { kind: "resume" }, request.limits),
    );
    return sendAnswer(c, deps, answer, false);
  });

  app.post("/runs/:id/stop", async (c) => {
    const id = runIdParam(c);
    const request = await readBody(c.req.raw, StopSchema, true);
    const answer = await answerOnce(c, deps, { route: "stop", runId: id }, request, async () => {
      const stop = await requestStop(deps.kv, id, request.reason ?? DEFAULT_STOP_REASON);
      // Every time in the API is ISO 8601; the record keeps epoch ms.
      return { status: 202, body: { runId: id, ...stop, at: new Date(stop.at).toISOString() } };
    });
    return sendAnswer(c, deps, answer, false);
  });
}
