// The event stream of a run in a final status ends once its stored events are
// sent, whether or not its trace ends with `run_stopped`.
import assert from "node:assert/strict";
import { newRun } from "../harness/state.ts";
import { parseSse, withServer } from "./server_helpers.ts";

/** Reads the whole stream, failing if it is still open after `ms`. */
async function readToEnd(res: Response, ms = 3000): Promise<string> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let open = false;
  const timer = setTimeout(() => {
    open = true;
    reader.cancel("still open");
  }, ms);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
  } finally {
    clearTimeout(timer);
  }
  assert.equal(open, false, `the stream was still open after ${ms} ms`);
  return text;
}

Deno.test("following a completed run's events ends after its last stored event", () =>
  withServer({}, async (s) => {
    const id = (await s.call("POST", "/runs", { task: "t", scenario: "plan" })).body.runId;
    for (let i = 0; i < 200 && (await s.store.summary(id)).status === "running"; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const started = performance.now();
    const events = parseSse(await readToEnd(await s.app.request(`/runs/${id}/events`)));
    assert.equal(events.at(-1)?.data.type, "run_stopped");
    assert.ok(performance.now() - started < 3000);
  }));

Deno.test("following a final run whose trace lacks run_stopped (an old record) still ends", () =>
  withServer({}, async (s) => {
    const state = newRun("an old record");
    state.status = "completed";
    state.stopReason = "the model answered";
    state.messages.push({ role: "assistant", content: "done" });
    await s.store.save(state);
    const sink = s.store.traceSink();
    await s.store.flushEvents(state.runId);
    await sink({
      type: "turn",
      runId: state.runId,
      at: new Date().toISOString(),
      turn: 1,
      prompt_tokens: 10,
      completion_tokens: 1,
      total_tokens: 11,
      turnCostUsd: 0,
      costUsd: 0,
      finish: "stop",
      ms: 1,
    });
    await s.store.flushEvents(state.runId);
    const events = parseSse(
      await readToEnd(await s.app.request(`/runs/${state.runId}/events`)),
    );
    assert.deepEqual(events.map((e) => e.data.type), ["turn"]);
  }));
