// reins runs against the reference "everything" MCP server, over stdio:
// progress, cancellation of a long-running call, and a server killed mid-call.
import assert from "node:assert/strict";
import { mcpTools } from "../mcp/mod.ts";
import { newRun, run } from "../mod.ts";
import type { ToolProgressEvent } from "../harness/trace.ts";
import {
  call,
  calls,
  recorder,
  reportTools,
  scriptModel,
  serverCommand,
  toolResults,
} from "./mcp_helpers.ts";

const EVERYTHING = serverCommand("@modelcontextprotocol/server-everything", "stdio");
const LONG = "trigger-long-running-operation";

Deno.test("the everything server's annotations become reins's tool flags", async () => {
  await using srv = await mcpTools(EVERYTHING);
  const byName = new Map(srv.tools.map((t) => [t.name, t]));
  assert.equal(srv.server?.name, "mcp-servers/everything");
  for (const name of ["echo", "get-sum", LONG]) {
    assert.equal(byName.get(name)?.readOnly, true, name);
    assert.equal(byName.get(name)?.needsApproval, false, name);
  }
  // destructiveHint: false, idempotentHint: false: a write that runs unapproved, not re-run.
  const toggle = byName.get("toggle-simulated-logging");
  assert.deepEqual([toggle?.readOnly, toggle?.idempotent, toggle?.needsApproval], [
    false,
    false,
    false,
  ]);
});

Deno.test("MCP progress notifications become tool_progress events", async () => {
  await using srv = await mcpTools(EVERYTHING);
  const trace = recorder();
  const model = scriptModel([
    calls(call("p1", LONG, { duration: 0.4, steps: 4 })),
    calls(call("s1", "get-sum", { a: 2, b: 40 })),
    reportTools,
  ]);
  const done = await run(newRun("Run the long operation"), {
    model,
    tools: srv.tools,
    trace: trace.sink,
  });
  assert.equal(done.status, "completed");
  const progress = trace.events.filter((e): e is ToolProgressEvent => e.type === "tool_progress");
  // The server's last notification races its result over stdio (a progress that
  // arrives after the result is not traced): the others arrive, in order.
  const expected = [
    ["p1", LONG, 0.25],
    ["p1", LONG, 0.5],
    ["p1", LONG, 0.75],
    ["p1", LONG, 1],
  ];
  const seen = progress.map((e) => [e.callId, e.toolName, e.fraction]);
  assert.ok(seen.length >= 3, `progress events: ${JSON.stringify(seen)}`);
  assert.deepEqual(seen, expected.slice(0, seen.length));
  const results = toolResults(done.messages);
  assert.match(results.p1, /Long running operation completed/);
  assert.match(results.s1, /42/);
});

Deno.test("aborting a run mid long-running call interrupts it as cancelled", async () => {
  await using srv = await mcpTools(EVERYTHING);
  const trace = recorder();
  const ac = new AbortController();
  trace.next((e) => e.type === "tool_progress").then(() => ac.abort("user pressed Stop"));
  const done = await run(newRun("Run the long operation"), {
    model: scriptModel([calls(call("p1", LONG, { duration: 60, steps: 600 }))]),
    tools: srv.tools,
    trace: trace.sink,
    signal: ac.signal,
  });
  assert.equal(done.status, "interrupted");
  assert.deepEqual(done.interruption, { type: "cancelled", reason: "user pressed Stop" });
  assert.equal(trace.events.some((e) => e.type === "tool_result"), false);
  // The connection survives the cancellation: the server answers the next call.
  const echo = srv.tools.find((t) => t.name === "echo")!;
  const ctx = { signal: new AbortController().signal, progress() {} } as never;
  assert.match(String(await echo.run({ message: "still here" }, ctx)), /still here/);
});

Deno.test("a server killed mid-call fails that call clearly, and the next call restarts it", async () => {
  await using srv = await mcpTools({ ...EVERYTHING, name: "everything" });
  const trace = recorder();
  const firstPid = srv.pid;
  assert.equal(typeof firstPid, "number");
  trace.next((e) => e.type === "tool_progress").then(() => Deno.kill(firstPid!, "SIGKILL"));
  const model = scriptModel([
    calls(call("p1", LONG, { duration: 60, steps: 600 })),
    calls(call("e1", "echo", { message: "back again" })),
    reportTools,
  ]);
  const done = await run(newRun("Run the long operation"), {
    model,
    tools: srv.tools,
    trace: trace.sink,
  });
  assert.equal(done.status, "completed");
  const results = toolResults(done.messages);
  assert.match(
    results.p1,
    /^Error: MCP server "everything" closed the connection during "trigger-long-running-operation"/,
  );
  assert.match(results.e1, /back again/);
  assert.notEqual(srv.pid, firstPid);
});
