/**
 * `GET /runs/:id/events`: the run's trace as server-sent events. Stored
 * events first, in order, each with `id: <seq>`; then live ones, found by
 * reading the run's events after the last seq sent at a short interval
 * (`kv.watch` cannot watch a prefix). `Last-Event-ID` (or `?after=`) resumes
 * after that seq, so a reconnect has no gaps and no repeats. The stream of a
 * run in a final status (completed, failed) ends once its stored events are
 * sent, `run_stopped` or not (a record written before the final save carried
 * its last event may lack it).
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { RunNotFoundError } from "../harness/errors.ts";
import { sleep } from "../harness/sleep.ts";
import { RESUMABLE_STATUSES } from "../harness/state.ts";
import type { ResolvedDeps } from "./deps.ts";
import { EventsQuerySchema, LastEventIdSchema, parseInput } from "./schemas.ts";
import { runIdParam } from "./views.ts";

/**
 * A comment line is sent when nothing else was for this long, in ms: bytes
 * flowing keep a Deno Deploy instance alive while someone watches (it may be
 * stopped after 5 s with no request and no response bytes).
 */
export const KEEPALIVE_MS = 10_000;

/** Between the status checks of a quiet stream, in polls. */
const STATUS_EVERY_POLLS = 20;

/**
 * Registers the events route on `app`.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { registerEventRoutes } from "./routes_events.ts";
 * import { resolveDeps } from "./deps.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const agents = [defineAgent({ name: "a", instructions: "Be brief.", tools: [] })];
 * const store = new KvRunStore(kv);
 * const s = newRun("hi");
 * await store.save(s);
 * const app = new Hono();
 * registerEventRoutes(app, resolveDeps({ kv, store, agents }));
 * const res = await app.request(`/runs/${s.runId}/events?follow=false`);
 * console.log(res.headers.get("content-type"), await res.text()); // text/event-stream ""
 * kv.close();
 * ```
 */
export function registerEventRoutes(app: Hono, deps: ResolvedDeps): void {
  app.get("/runs/:id/events", async (c) => {
    const id = runIdParam(c);
    // An empty `after=` is no position, as an empty Last-Event-ID is: from the start.
    const { after: given, ...rest } = c.req.query();
    const asked = given === undefined || given.trim() === "" ? rest : { ...rest, after: given };
    const query = parseInput(EventsQuerySchema, asked, "");
    const header = c.req.header("last-event-id");
    const after = header !== undefined && header.trim() !== ""
      ? parseInput(LastEventIdSchema, header, "Last-Event-ID")
      : query.after ?? -1;
    const follow = query.follow !== "false" && query.follow !== "0";
    if (!(await deps.store.exists(id))) throw new RunNotFoundError(id);
    return eventStream(c, deps, id, { after, follow });
  });
}

/** Options of {@link eventStream}. */
export interface EventStreamOptions {
  /** Send the events after this seq (default -1: all). */
  after?: number;
  /** Keep the stream open for live events (default true). */
  follow?: boolean;
}

/**
 * The SSE answer with run `id`'s events (`id: <seq>`, JSON `data`), then live
 * ones when `follow`, with a keep-alive comment every {@link KEEPALIVE_MS};
 * it ends when the client goes or the server closes. Shared by
 * `GET /runs/:id/events` and `POST /runs` with `Accept: text/event-stream`.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { eventStream } from "./routes_events.ts";
 * import { resolveDeps } from "./deps.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const agents = [defineAgent({ name: "a", instructions: "Be brief.", tools: [] })];
 * const deps = resolveDeps({ kv, store: new KvRunStore(kv), agents });
 * const app = new Hono().get("/", (c) => eventStream(c, deps, "r1", { follow: false }));
 * console.log(await (await app.request("/")).text()); // ""
 * kv.close();
 * ```
 */
export function eventStream(
  c: Context,
  deps: ResolvedDeps,
  id: string,
  options: EventStreamOptions = {},
): Response {
  let after = options.after ?? -1;
  const follow = options.follow ?? true;
  return streamSSE(c, async (stream) => {
    const done = new AbortController();
    const end = () => done.abort();
    stream.onAbort(end);
    deps.closing?.addEventListener("abort", end, { once: true });
    if (deps.closing?.aborted) end();
    try {
      let quietSince = Date.now();
      // The status is read when a run_stopped was sent, on the first quiet poll,
      // and every STATUS_EVERY_POLLS quiet polls after: a final run's stream ends.
      let checkStatus = true;
      let quietPolls = 0;
      const send = async ({ seq, event }: { seq: number; event: { type: string } }) => {
        // Deltas are named events: a client listening for plain messages sees
        // the trace as before, one that asks for `text_delta` sees the text stream
        // (`reset: true` in one: drop the turn's text so far, then append).
        const named = event.type === "text_delta" ? { event: "text_delta" } : {};
        await stream.writeSSE({ id: String(seq), ...named, data: JSON.stringify(event) });
        after = seq;
        quietSince = Date.now();
      };
      while (!done.signal.aborted) {
        const batch = await deps.store.events(id, { afterSeq: after });
        for (const stored of batch) {
          if (done.signal.aborted) return;
          await send(stored);
          if (stored.event.type === "run_stopped") checkStatus = true;
        }
        if (!follow) return;
        if (batch.length === 0 && ++quietPolls % STATUS_EVERY_POLLS === 0) checkStatus = true;
        if (checkStatus && (batch.length === 0 || batch.at(-1)?.event.type === "run_stopped")) {
          checkStatus = false;
          const status = (await deps.store.summary(id).catch(() => null))?.status;
          if (status && !RESUMABLE_STATUSES.includes(status)) {
            // Events committed with the final state are all stored: send any left, then end.
            for (const stored of await deps.store.events(id, { afterSeq: after })) {
              await send(stored);
            }
            return;
          }
        }
        if (Date.now() - quietSince >= KEEPALIVE_MS) {
          await stream.write(": keep-alive\n\n");
          quietSince = Date.now();
        }
        await sleep(deps.pollMs, done.signal).catch(() => {});
      }
    } finally {
      deps.closing?.removeEventListener("abort", end);
    }
  });
}
