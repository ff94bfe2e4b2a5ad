// `deno task serve` offers the tools of reins.jsonc's mcpServers to its runs: the service opens
// the servers once at start, every run it executes gets their tools, and closing the service
// closes them. In process: a Streamable HTTP MCP server and an OpenAI-compatible model endpoint,
// both started in the test.
import assert from "node:assert/strict";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { startService } from "../server/service.ts";
import { readEnv } from "../runtime/env.ts";
import { demoServeOptions } from "../demo/process.ts";
import { standaloneContext } from "../harness/tool.ts";
import { jsonCaller, waitFor } from "./server_http.ts";
import { runScript } from "./run_script.ts";

/** An MCP server with one tool, `add`, counting its calls and its open sessions. */
async function mcpServer() {
  const seen = { adds: [] as number[][], sessions: 0 };
  const server = new McpServer({ name: "reins-test-calc", version: "1.0.0" });
  server.registerTool("add", {
    description: "Adds two numbers.",
    inputSchema: { a: z.number(), b: z.number() },
    annotations: { readOnlyHint: true },
  }, ({ a, b }: { a: number; b: number }) => {
    seen.adds.push([a, b]);
    return { content: [{ type: "text", text: String(a + b) }] };
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    onsessioninitialized: () => void seen.sessions++,
  });
  await server.connect(transport);
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => transport.handleRequest(req),
  );
  return {
    url: `http://127.0.0.1:${http.addr.port}/mcp`,
    seen,
    async close() {
      await server.close();
      await http.shutdown();
    },
  };
}

/**
 * A chat-completions endpoint whose model calls `calc__add` if offered, then answers with the
 * tool's result; it keeps the tool names of each request.
 */
function modelEndpoint() {
  const offered: string[][] = [];
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.json();
    offered.push((body.tools ?? []).map((t: { function: { name: string } }) => t.function.name));
    const result = body.messages.find((m: { role: string }) => m.role === "tool");
    const message = result
      ? { role: "assistant", content: `the sum is ${result.content}` }
      : offered.at(-1)!.includes("calc__add")
      ? {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "c1",
          type: "function",
          function: { name: "calc__add", arguments: '{"a":2,"b":3}' },
        }],
      }
      : { role: "assistant", content: "no calculator" };
    return Response.json({
      id: `chatcmpl-${offered.length}`,
      object: "chat.completion",
      created: 0,
      model: body.model,
      choices: [{
        index: 0,
        message,
        finish_reason: "tool_calls" in message ? "tool_calls" : "stop",
      }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  });
  return { url: `http://127.0.0.1:${http.addr.port}/v1`, offered, close: () => http.shutdown() };
}

Deno.test("a server run calls a tool of an MCP server named in reins.jsonc, and shutdown closes it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-server-mcp-" });
  const mcp = await mcpServer();
  const model = modelEndpoint();
  try {
    const path = `${dir}/reins.jsonc`;
    await Deno.writeTextFile(
      path,
      JSON.stringify({
        baseUrl: model.url,
        model: "calc-model",
        mcpServers: { calc: { url: mcp.url } },
      }),
    );
    const env = {
      ...readEnv({ REINS_CONFIG: path, REINS_WORKSPACES: `${dir}/ws` }),
      kvPath: ":memory:",
    };
    const service = await startService(demoServeOptions(env), env);
    try {
      // Opened once, at start, before any run.
      assert.equal(mcp.seen.sessions, 1);
      const call = jsonCaller(service.app);
      for (const task of ["add 2 and 3", "add them again"]) {
        const created = await call("POST", "/runs", { task });
        assert.equal(created.status, 201);
        const done = await waitFor(async () => {
          const r = await call("GET", `/runs/${created.body.runId}`);
          return r.body.status === "running" ? undefined : r.body;
        }, "the run to stop");
        assert.equal(done.status, "completed", done.stopReason);
        assert.equal(done.output, "the sum is 5");
      }
      assert.deepEqual(mcp.seen.adds, [[2, 3], [2, 3]]);
      assert.ok(model.offered.every((names) => names.includes("calc__add")), "tool offered");
      assert.equal(mcp.seen.sessions, 1, "one session for the process, not one per run");
    } finally {
      await service.close();
    }
    // Closed with the service: its tools refuse to call the server.
    const add = service.tools.find((t) => t.name === "calc__add");
    assert.ok(add);
    await assert.rejects(async () => await add.run({ a: 1, b: 1 }, standaloneContext()), /closed/);
  } finally {
    await model.close();
    await mcp.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task serve with an MCP server in reins.jsonc that cannot start says so in one line and exits 1, like a bad reins.jsonc", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-serve-mcp-" });
  try {
    await Deno.writeTextFile(
      `${dir}/reins.jsonc`,
      '{ "mcpServers": { "broken": { "command": "/no/such/binary" } } }',
    );
    await Deno.writeTextFile(`${dir}/bad.jsonc`, '{ "bogus": 1 }');
    for (
      const [config, message, extra] of [
        ["reins.jsonc", /^reins: Cannot connect to MCP server "broken": .*\/no\/such\/binary/, {}],
        ["bad.jsonc", /^reins: bad\.jsonc: unknown key "bogus"/, {}],
        ["bad.jsonc", /^reins: REINS_LEASE_MS: expected milliseconds/, { REINS_LEASE_MS: "abc" }],
      ] as const
    ) {
      const out = await runScript("demo/main.ts", [], {
        cwd: dir,
        env: { PORT: "0", REINS_KV_PATH: ":memory:", REINS_CONFIG: config, ...extra },
        flags: ["-A", "--unstable-kv", "--unstable-cron"],
        timeoutMs: 30_000, // it must exit by itself (no cron left running)
      });
      const stderr = out.stderr.trim();
      assert.equal(out.code, 1, `${config}: ${stderr}`);
      assert.match(stderr, message);
      assert.equal(stderr.split("\n").length, 1, stderr);
      assert.doesNotMatch(out.stdout, /listening/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
