/**
 * Conversations and forks: `POST /runs/:id/messages` (a follow-up to a
 * stopped run, answered in the same run and executed like a resume) and
 * `POST /runs/:id/fork` (a new run from turn N, quoted before it runs), each
 * once per `Idempotency-Key` (see idempotency.ts).
 *
 * @module
 */
import type { Hono } from "hono";
import { z } from "zod";
import { RunConflictError } from "../harness/errors.ts";
import type { RunState } from "../harness/state.ts";
import type { AnswerRecord } from "../kv/idempotency.ts";
import { followUpRun } from "../runtime/follow_up_run.ts";
import { forkRun, forkRunOptions } from "../runtime/fork_run.ts";
import type { ResolvedDeps } from "./deps.ts";
import { BadRequestError } from "./errors.ts";
import { LimitsSchema, readBody } from "./schemas.ts";
import { runIdParam, runView } from "./views.ts";
import { type Answer, answerOnce, sendAnswer } from "./idempotency.ts";
import { checkNewLimits } from "./routes_control.ts";
import { wantsEventStream } from "./routes_runs.ts";

/** Body of `POST /runs/:id/messages`. */
export const FollowUpSchema = z.strictObject({
  content: z.string().trim().min(1).max(100_000).describe("The person's next message"),
  limits: LimitsSchema.optional().describe(
    "New limits from now on (the turn cap counts turns since the last message; the budget " +
      "is the whole conversation's)",
  ),
});

/** Body of `POST /runs/:id/fork`. */
export const ForkSchema = z.strictObject({
  atTurn: z.int().min(0).describe(
    "Fork after this turn of the source (its reply and tool results); 0: before its first call",
  ),
  start: z.boolean().optional().describe(
    "Start the fork now (default true); false: create and quote it only (a resume starts it)",
  ),
  limits: LimitsSchema.optional().describe("The fork's limits (default: the source's)"),
  quoteOnly: z.boolean().optional().describe(
    "Only quote the fork's next call: nothing is created (200 with `{ forkedFrom, quote }`)",
  ),
});

/**
 * Registers the conversation routes on `app`.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { registerConversationRoutes } from "./routes_conversation.ts";
 * import { resolveDeps } from "./deps.ts";
 * import { onError } from "./errors.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const app = new Hono();
 * app.onError(onError);
 * const agents = [defineAgent({ name: "helper", instructions: "Answer briefly.", tools: [] })];
 * registerConversationRoutes(app, resolveDeps({ kv, store: new KvRunStore(kv), agents }));
 * const res = await app.request("/runs/nope/messages", {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify({ content: "hi" }),
 * });
 * console.log(res.status); // 404
 * kv.close();
 * ```
 */
export function registerConversationRoutes(app: Hono, deps: ResolvedDeps): void {
  app.post("/runs/:id/messages", async (c) => {
    const id = runIdParam(c);
    const request = await readBody(c.req.raw, FollowUpSchema);
    const answer = await answerOnce(
      c,
      deps,
      { route: "messages", runId: id },
      request,
      ({ answerWith }) => followUpAnswer(deps, id, request, answerWith),
    );
    // A client that wants to watch the answer gets the run's stream from its next event on.
    return sendAnswer(c, deps, answer, wantsEventStream(c.req.header("accept")));
  });

  app.post("/runs/:id/fork", async (c) => {
    const id = runIdParam(c);
    const request = await readBody(c.req.raw, ForkSchema);
    const answer = await answerOnce(
      c,
      deps,
      { route: "fork", runId: id },
      request,
      ({ runId }) => forkAnswer(deps, id, request, runId),
    );
    return sendAnswer(c, deps, answer, false);
  });
}

/**
 * Appends a follow-up to run `id` and schedules it: the answer of `POST /runs/:id/messages`.
 * `answerWith` (a keyed request): its answer is recorded in the follow-up's own commit.
 */
async function followUpAnswer(
  deps: ResolvedDeps,
  id: string,
  { content, limits }: z.infer<typeof FollowUpSchema>,
  answerWith?: (answer: Answer) => AnswerRecord,
): Promise<Answer> {
  // No client may widen what the agent allows: limits stay under its ceiling.
  if (limits) await checkNewLimits(deps, id, limits);
  const store = deps.freshStore();
  // A stream of this answer (now or on a replay) starts at the follow-up's first event.
  const after = await store.lastEventSeq(id);
  const answerOf = (state: Readonly<RunState>): Answer => ({
    status: 202,
    body: runView(state, null),
    runId: id,
    streamAfter: after,
  });
  const state = await followUpRun(store, deps.kv, id, content, {
    limits,
    answer: answerWith && ((next) => answerWith(answerOf(next))),
  });
  await deps.schedule(state.runId);
  return answerOf(state);
}

/**
 * Forks run `id` (or only quotes the fork): the answer of `POST /runs/:id/fork`.
 * `forkId`: the id a keyed request's every attempt gives its fork; a fork of it
 * found already made (an earlier attempt's, whose answer a crash lost) is the
 * answer again.
 */
async function forkAnswer(
  deps: ResolvedDeps,
  id: string,
  { atTurn, start = true, limits, quoteOnly }: z.infer<typeof ForkSchema>,
  forkId?: string,
): Promise<Answer> {
  if (limits) await checkNewLimits(deps, id, limits);
  const store = deps.freshStore();
  const source = await store.summary(id);
  const fork = (only: boolean | undefined) =>
    forkRun(store, id, {
      runId: forkId,
      atTurn,
      start,
      limits,
      quoteOnly: only,
      // Its source's settings and tool definitions (the fork copies the settings): counted
      // without creating the fork's workspace, as a quote may create nothing.
      runWith: (f) => forkRunOptions(deps, store, { ...f, runId: id, rootId: source.rootId }),
    }).catch(asBadRequest);
  const { state, quote } = await fork(quoteOnly).catch(async (e) => {
    // Made by an earlier attempt of this request (whose answer a crash lost): that fork.
    if (!forkId || !(e instanceof RunConflictError)) throw e;
    return { ...await fork(true), state: await store.read(forkId) };
  });
  if (quoteOnly) return { status: 200, body: { forkedFrom: state.forkedFrom, quote } };
  if (start) await deps.schedule(state.runId);
  return {
    status: 201,
    body: { ...runView(state, null), quote },
    location: `/runs/${state.runId}`,
    runId: state.runId,
  };
}

/** A fork refused for its turn or its budget is the request's fault: a 400 naming the field. */
function asBadRequest(e: unknown): never {
  if (!(e instanceof RangeError)) throw e;
  const field = e.message.startsWith("limits.maxBudgetUsd") ? "limits.maxBudgetUsd" : "atTurn";
  throw new BadRequestError(field, e.message.replace(/^limits\.maxBudgetUsd: /, ""));
}
