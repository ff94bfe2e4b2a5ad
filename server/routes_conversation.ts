/**
 * Conversations and forks: `POST /runs/:id/messages` (a follow-up to a
 * stopped run, answered in the same run and executed like a resume) and
 * `POST /runs/:id/fork` (a new run from turn N, quoted before it runs).
 *
 * @module
 */
import type { Hono } from "hono";
import { z } from "zod";
import { followUpRun } from "../runtime/follow_up_run.ts";
import { forkRun } from "../runtime/fork_run.ts";
import { storedRunOptions } from "../runtime/executor.ts";
import type { ResolvedDeps } from "./deps.ts";
import { BadRequestError } from "./errors.ts";
import { LimitsSchema, readBody } from "./schemas.ts";
import { runIdParam, runView } from "./views.ts";

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
 * const kv = await Deno.openKv(":memory:");
 * const app = new Hono();
 * app.onError(onError);
 * registerConversationRoutes(app, resolveDeps({ kv, store: new KvRunStore(kv) }));
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
    const { content, limits } = await readBody(c.req.raw, FollowUpSchema);
    const state = await followUpRun(deps.freshStore(), deps.kv, id, content, { limits });
    await deps.schedule(state.runId);
    return c.json(runView(state, null), 202);
  });

  app.post("/runs/:id/fork", async (c) => {
    const id = runIdParam(c);
    const { atTurn, start = true, limits } = await readBody(c.req.raw, ForkSchema);
    const store = deps.freshStore();
    const { state, quote } = await forkRun(store, id, {
      atTurn,
      start,
      limits,
      runWith: (fork) => storedRunOptions(deps, store, fork),
    }).catch((e) => {
      if (!(e instanceof RangeError)) throw e;
      const field = e.message.startsWith("limits.maxBudgetUsd") ? "limits.maxBudgetUsd" : "atTurn";
      throw new BadRequestError(field, e.message.replace(/^limits\.maxBudgetUsd: /, ""));
    });
    if (start) await deps.schedule(state.runId);
    c.header("Location", `/runs/${state.runId}`);
    return c.json({ ...runView(state, null), quote }, 201);
  });
}
