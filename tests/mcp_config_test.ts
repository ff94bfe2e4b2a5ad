// `mcpServers` in reins.jsonc: parsed strictly, opened together, offered to runs by the CLI.
import assert from "node:assert/strict";
import { parseConfig } from "../runtime/config.ts";
import { readEnv } from "../runtime/env.ts";
import { mcpServerTools, McpStartError } from "../mcp/mod.ts";
import { newRun, run } from "../mod.ts";
import {
  call,
  calls,
  reportTools,
  scriptModel,
  serverCommand,
  toolResults,
} from "./mcp_helpers.ts";
import { lastJson, ROOT, runScript } from "./run_script.ts";

const FS = "@modelcontextprotocol/server-filesystem";

Deno.test("mcpServers takes the shape other MCP clients use", () => {
  const config = parseConfig(
    `{ // comments allowed
      "mcpServers": {
        "fs": { "command": "npx", "args": ["-y", "${FS}", "."], "env": { "A": "1" } },
        "web": { "type": "http", "url": "https://example.com/mcp", "headers": { "X-Key": "k" },
                 "approve": ["send"] }
      } }`,
    "reins.jsonc",
  );
  assert.deepEqual(config.mcpServers, {
    fs: { command: "npx", args: ["-y", FS, "."], env: { A: "1" } },
    web: {
      type: "http",
      url: "https://example.com/mcp",
      headers: { "X-Key": "k" },
      approve: ["send"],
    },
  });
});

Deno.test("a bad mcpServers entry names the server and the field", () => {
  const cases: [string, RegExp][] = [
    ['{ "fs": {} }', /mcpServers\.fs: expected "command" \(a stdio server\) or "url"/],
    ['{ "fs": { "command": "x", "url": "http://a" } }', /mcpServers\.fs: expected "command"/],
    ['{ "fs": { "command": "x", "argz": [] } }', /mcpServers\.fs: unknown key "argz"/],
    ['{ "fs": { "command": "x", "args": "a b" } }', /mcpServers\.fs\.args: expected an array/],
    ['{ "web": { "url": "ftp://a" } }', /mcpServers\.web\.url: expected an http\(s\) URL/],
    ['{ "a b": { "command": "x" } }', /mcpServers\["a b"\]: a server name is 1-32 of/],
  ];
  for (const [servers, expected] of cases) {
    assert.throws(() => parseConfig(`{ "mcpServers": ${servers} }`, "reins.jsonc"), expected);
  }
});

Deno.test("mcpServerTools offers every server's tools, prefixed with its name", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.writeTextFile(`${dir}/a.txt`, "A");
    const { command, args, cwd } = serverCommand(FS, dir);
    await using mcp = await mcpServerTools({
      fs: { command, args, cwd, approve: ["list_directory"] },
      everything: {
        ...serverCommand("@modelcontextprotocol/server-everything", "stdio"),
        only: ["echo"],
      },
    }, { stderr: "ignore" });
    const names = mcp.tools.map((t) => t.name);
    assert.ok(names.includes("fs__read_text_file"));
    assert.ok(names.includes("everything__echo"));
    assert.equal(names.filter((n) => n.startsWith("everything__")).length, 1);
    assert.equal(mcp.tools.find((t) => t.name === "fs__list_directory")?.needsApproval, true);
    const done = await run(newRun("Read"), {
      model: scriptModel([
        calls(
          call("r", "fs__read_text_file", { path: `${dir}/a.txt` }),
          call("e", "everything__echo", { message: "hi" }),
        ),
        reportTools,
      ]),
      tools: mcp.tools,
    });
    assert.deepEqual(toolResults(done.messages), { r: "A", e: "Echo: hi" });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("one server failing to start closes the others and names it", async () => {
  await assert.rejects(
    mcpServerTools({
      everything: serverCommand("@modelcontextprotocol/server-everything", "stdio"),
      broken: { command: "/nonexistent/server" },
    }, { stderr: "ignore" }),
    (e: Error) =>
      e instanceof McpStartError && e.server === '"broken"' &&
      /^Cannot connect to MCP server "broken"/.test(e.message),
  );
});

Deno.test("deno task run starts the configured MCP servers and stops them after the run", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { command, args } = serverCommand(FS, dir);
    const config = (servers: unknown) => JSON.stringify({ workspace: dir, mcpServers: servers });
    await Deno.writeTextFile(`${dir}/good.jsonc`, config({ fs: { command, args, cwd: ROOT } }));
    await Deno.writeTextFile(
      `${dir}/bad.jsonc`,
      config({ fs: { command: "/nonexistent/server" } }),
    );
    const cli = (file: string) =>
      runScript("demo/cli.ts", [
        "--config",
        `${dir}/${file}`,
        "--kv",
        `${dir}/runs.sqlite`,
        "--json",
        "--scenario",
        "echo",
        "hello",
      ]);
    const good = await cli("good.jsonc");
    assert.equal(good.code, 0, good.stderr);
    assert.equal(lastJson(good.stdout).status, "completed");
    // The server's start-up banner ("Secure MCP Filesystem Server running on stdio", on its
    // stderr) stays out of the CLI's output.
    assert.equal(good.stderr, "");
    const bad = await cli("bad.jsonc");
    assert.equal(bad.code, 2); // a usage error, like a bad reins.jsonc, in one line
    assert.match(bad.stderr, /^error: Cannot connect to MCP server "fs": .*\n$/);
    // Without --json, the CLI says which tools it loaded, one line per server.
    const listed = await runScript("demo/cli.ts", [
      "--config",
      `${dir}/good.jsonc`,
      "--kv",
      `${dir}/runs.sqlite`,
      "--scenario",
      "echo",
      "hello",
    ]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stderr, "");
    assert.match(
      listed.stdout,
      /^mcp fs \(secure-filesystem-server [\d.]+\): \d+ tools: fs__read_file, .*fs__list_directory/m,
    );
    assert.doesNotMatch(listed.stdout, /running on stdio/i);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two servers whose <server>__<tool> names meet are refused at start, naming both", async () => {
  const named = (...tools: string[]) => ({
    command: Deno.execPath(),
    args: [
      "run",
      "-A",
      "--frozen",
      "--quiet",
      `${ROOT}tests/fixtures/named_mcp_server.ts`,
      ...tools,
    ],
  });
  // Before: the model was offered "a__b__c" twice, and calls reached only one of the tools.
  await assert.rejects(
    () => mcpServerTools({ a: named("b__c"), a__b: named("c") }, { stderr: "ignore" }),
    (e) =>
      e instanceof McpStartError &&
      /"a__b".*its tool "a__b__c" has the name of a tool of "a"/.test(e.message),
  );
  await using ok = await mcpServerTools({ a: named("b"), b: named("a") }, { stderr: "ignore" });
  assert.deepEqual(ok.tools.map((t) => t.name).sort(), ["a__b", "b__a"]);
});

Deno.test("timeouts over the longest a timer keeps are refused, not fired at once", () => {
  // Before: accepted, then a timer of 1 ms (a sweep every ms, an MCP start that timed out).
  assert.throws(
    () =>
      parseConfig(
        JSON.stringify({ mcpServers: { h: { command: "x", timeoutMs: 1e12 } } }),
        "r.jsonc",
      ),
    /timeoutMs: expected milliseconds, more than 0 and at most 2147483647/,
  );
  assert.throws(
    () => readEnv({ REINS_SWEEP_MS: "3000000000" }),
    /REINS_SWEEP_MS: expected milliseconds from 0 to 2147483647/,
  );
  assert.throws(() => readEnv({ REINS_LEASE_MS: "1e12" }), TypeError);
  assert.equal(readEnv({ REINS_SWEEP_MS: "2147483647" }).sweepMs, 2 ** 31 - 1);
  // An empty PORT is unset (before: port 0, a random one); a base URL must be http(s).
  assert.equal(readEnv({ PORT: "" }).port, 8000);
  assert.throws(
    () => readEnv({ LLM_BASE_URL: "example.com/v1" }),
    /LLM_BASE_URL: expected an http\(s\) URL, got "example.com\/v1"/,
  );
  assert.equal(
    readEnv({ LLM_BASE_URL: "http://127.0.0.1:8080/v1" }).baseUrl,
    "http://127.0.0.1:8080/v1",
  );
});

Deno.test("a tools/list reply that breaks the protocol stops start-up with one line naming the field", async () => {
  const bad = {
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", `${ROOT}tests/fixtures/bad_schema_mcp_server.ts`],
  };
  // Before: the schema library's issue list, 26 lines of JSON.
  await assert.rejects(
    () => mcpServerTools({ h: bad }, { stderr: "ignore" }),
    (e) =>
      e instanceof McpStartError && !e.message.includes("\n") &&
      e.message ===
        'MCP server "h": its tools/list reply is not valid MCP: tools[1].inputSchema.type: ' +
          'Invalid input: expected "object" (and 1 more)',
  );
});
