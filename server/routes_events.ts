/**
 * `GET /runs/:id/events`: the run's trace as server-sent events. Stored
 * events first, in order, each with `id: <seq>`; then live ones, found by
 * reading the run's events after the last seq sent at a short interval
 * (`kv.watch` cannot watch a prefix). `Last-Event-ID` (or `?after=`) resumes
 * after that seq, so a reconnect has no gaps and no repeats.
 *
 * @module
 */
import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { RunNotFoundError } from "../harness/errors.ts";
import { sleep } from "../harness/sleep.ts";
import type { ResolvedDeps } from "./deps.ts";
import { EventsQuerySchema, parseInput } from "./schemas.ts";
import { runIdParam } from "./views.ts";

/** A comment line is sent when nothing else was for this long, in ms. */
const KEEPALIVE_MS = 15_000;

const LastEventIdSchema = z.coerce.number().pipe(z.int().min(-1));

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
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const s = newRun("hi");
 * await store.save(s);
 * const app = new Hono();
 * registerEventRoutes(app, resolveDeps({ kv, store }));
 * const res = await app.request(`/runs/${s.runId}/events?follow=false`);
 * console.log(res.headers.get("content-type"), await res.text()); // text/event-stream ""
 * kv.close();
 * ```
 */
export function registerEventRoutes(app: Hono, deps: ResolvedDeps): void {
  app.get("/runs/:id/events", async (c) => {
    const id = runIdParam(c);
    const query = parseInput(EventsQuerySchema, c.req.query(), "");
    const header = c.req.header("last-event-id");
    let after = header !== undefined && header.trim() !== ""
      ? parseInput(LastEventIdSchema, header, "Last-Event-ID")
      : query.after ?? -1;
    const follow = query.follow !== "false" && query.follow !== "0";
    if (!(await deps.store.exists(id))) throw new RunNotFoundError(id);

    return streamSSE(c, async (stream) => {
      const done = new AbortController();
      const end = () => done.abort();
      stream.onAbort(end);
      deps.closing?.addEventListener("abort", end, { once: true });
      if (deps.closing?.aborted) end();
      try {
        let quietSince = Date.now();
        while (!done.signal.aborted) {
          for (const { seq, event } of await deps.store.events(id, { afterSeq: after })) {
            if (done.signal.aborted) return;
            // Deltas are named events: a client listening for plain messages sees
            // the trace as before, one that asks for `text_delta` sees the text stream
            // (`reset: true` in one: drop the turn's text so far, then append).
            const named = event.type === "text_delta" ? { event: "text_delta" } : {};
            await stream.writeSSE({ id: String(seq), ...named, data: JSON.stringify(event) });
            after = seq;
            quietSince = Date.now();
          }
          if (!follow) return;
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
  });
}
