// reins runs against an MCP server over Streamable HTTP, started in the test
// with the official SDK, so the server side of a cancellation can be observed.
import assert from "node:assert/strict";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { mcpTools } from "../mcp/mod.ts";
import { newRun, run } from "../mod.ts";
import { call, calls, recorder, reportTools, scriptModel, toolResults } from "./mcp_helpers.ts";

/** The part of the SDK's handler context the test uses. */
interface Extra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification(n: { method: string; params: Record<string, unknown> }): Promise<void>;
}

interface Seen {
  cancelled: unknown[];
  authorization: (string | null)[];
}

function makeServer(seen: Seen) {
  const server = new McpServer({ name: "reins-test-http", version: "1.0.0" });
  server.registerTool(
    "add",
    {
      description: "Adds two numbers.",
      inputSchema: { a: z.number(), b: z.number() },
      annotations: { readOnlyHint: true },
    },
    ({ a, b }: { a: number; b: number }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.registerTool("wait", {
    description: "Reports progress until cancelled.",
    inputSchema: {},
    annotations: { readOnlyHint: true },
  }, async (_args: unknown, extra: Extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; !extra.signal.aborted; i++) {
      if (token !== undefined) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, message: `tick ${i}` },
        });
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    seen.cancelled.push(extra.signal.reason);
    return { content: [{ type: "text", text: "stopped" }] };
  });
  server.registerTool("fail", {
    description: "Always fails.",
    inputSchema: {},
    annotations: { destructiveHint: false },
  }, () => ({ isError: true, content: [{ type: "text", text: "quota exhausted" }] }));
  server.registerTool(
    "wipe",
    { description: "No annotations: destructive.", inputSchema: {} },
    () => ({
      content: [{ type: "text", text: "wiped" }],
    }),
  );
  return server;
}

async function withServer(body: (url: string, seen: Seen) => Promise<void>) {
  const seen: Seen = { cancelled: [], authorization: [] };
  const server = makeServer(seen);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
  });
  await server.connect(transport);
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    seen.authorization.push(req.headers.get("authorization"));
    return transport.handleRequest(req);
  });
  try {
    await body(`http://127.0.0.1:${http.addr.port}/mcp`, seen);
  } finally {
    await server.close();
    await http.shutdown();
  }
}

Deno.test("tools over Streamable HTTP run in a run, with the given headers", () =>
  withServer(async (url, seen) => {
    await using set = await mcpTools({ url, headers: { authorization: "Bearer t0ken" } });
    assert.deepEqual(set.tools.map((t) => [t.name, t.readOnly, t.needsApproval]), [
      ["add", true, false],
      ["wait", true, false],
      ["fail", false, false],
      ["wipe", false, true],
    ]);
    assert.equal(set.pid, null);
    const done = await run(newRun("Add"), {
      model: scriptModel([
        calls(call("a1", "add", { a: 2, b: 3 }), call("f1", "fail", {})),
        reportTools,
      ]),
      tools: set.tools,
    });
    assert.equal(done.status, "completed");
    assert.deepEqual(toolResults(done.messages), { a1: "5", f1: "Error: quota exhausted" });
    assert.ok(seen.authorization.length > 0);
    assert.ok(seen.authorization.every((h) => h === "Bearer t0ken"));
  }));

Deno.test("aborting a run sends the server notifications/cancelled", () =>
  withServer(async (url, seen) => {
    await using set = await mcpTools({ url });
    const trace = recorder();
    const ac = new AbortController();
    trace.next((e) => e.type === "tool_progress").then(() => ac.abort("Stop pressed"));
    const done = await run(newRun("Wait"), {
      model: scriptModel([calls(call("w1", "wait", {}))]),
      tools: set.tools,
      trace: trace.sink,
      signal: ac.signal,
    });
    assert.equal(done.status, "interrupted");
    assert.deepEqual(done.interruption, { type: "cancelled", reason: "Stop pressed" });
    const progress = trace.events.find((e) => e.type === "tool_progress");
    assert.equal(progress?.type === "tool_progress" && progress.label, "tick 1");
    // The server's handler saw its signal abort, with the reason the client sent.
    for (let i = 0; i < 100 && seen.cancelled.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual(seen.cancelled, ["Stop pressed"]);
  }));

Deno.test("a server that cannot be reached is a clear error", async () => {
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("no", { status: 404 }),
  );
  const url = `http://127.0.0.1:${http.addr.port}/mcp`;
  try {
    await assert.rejects(
      mcpTools({ url, name: "web" }),
      /Cannot connect to MCP server "web": /,
    );
  } finally {
    await http.shutdown();
  }
  await assert.rejects(mcpTools({ url: "x", command: "y" } as never), TypeError);
  await assert.rejects(
    mcpTools({ command: "/nonexistent/mcp-server" }),
    /Cannot connect to MCP server \/nonexistent\/mcp-server: /,
  );
});
