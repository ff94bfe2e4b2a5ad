// POST /runs (and a follow-up) answer with the event stream only when Accept
// prefers it to JSON: by q, then by order; q=0 is "not acceptable".
import assert from "node:assert/strict";
import { wantsEventStream } from "../server/routes_runs.ts";

Deno.test("Accept: the event stream by q, then by order; q=0 never", () => {
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ["", false],
    ["*/*", false],
    ["application/json", false],
    ["text/event-stream", true],
    ["TEXT/EVENT-STREAM; charset=utf-8", true],
    ["text/event-stream, application/json", true],
    ["application/json, text/event-stream", false],
    ["text/event-stream;q=0, application/json", false],
    ["text/event-stream;q=0", false],
    ["text/event-stream;q=0.5, application/json", false],
    ["application/json;q=0.5, text/event-stream", true],
    ["text/event-stream;q=nope, application/json", false],
  ];
  for (const [accept, sse] of cases) assert.equal(wantsEventStream(accept), sse, String(accept));
});
