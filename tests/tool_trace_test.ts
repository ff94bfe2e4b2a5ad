import assert from "node:assert/strict";
import { run } from "../harness/run.ts";
import { newRun } from "../harness/state.ts";
import { memorySink } from "../harness/trace.ts";
import { fixture } from "./helpers.ts";

Deno.test("a call to an unknown tool leaves a failed tool_result in the trace, like any tool error", async () => {
  await using f = await fixture("plan");
  const { sink, events } = memorySink();
  const readOnly = f.tools.filter((t) => t.name === "read_file");
  const s = await run(newRun("Which file mentions a timeout?"), {
    model: f.model,
    tools: readOnly,
    trace: sink,
  });
  const call = s.messages.find((m) => m.role === "assistant" && m.tool_calls?.length);
  const callId = call?.role === "assistant" ? call.tool_calls![0].id : "";
  const results = events.filter((e) => e.type === "tool_result" && e.callId === callId);
  assert.equal(results.length, 1, JSON.stringify(events));
  const [r] = results;
  assert.ok(r.type === "tool_result");
  assert.deepEqual([r.runId, r.toolName, r.ok, r.ms], [s.runId, "list_files", false, 0]);
  assert.match(r.error ?? "", /^Unknown tool "list_files"\. Available tools: read_file/);
  // It never started, so there is no tool_start for it.
  assert.ok(!events.some((e) => e.type === "tool_start" && e.callId === callId));
});
