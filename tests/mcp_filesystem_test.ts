// reins runs against the reference MCP filesystem server, over stdio.
import assert from "node:assert/strict";
import { mcpTools } from "../mcp/mod.ts";
import { approve, newRun, reject, run } from "../mod.ts";
import {
  call,
  calls,
  recorder,
  reportTools,
  scriptModel,
  serverCommand,
  toolResults,
} from "./mcp_helpers.ts";

const FS = "@modelcontextprotocol/server-filesystem";

async function withDir(body: (dir: string) => Promise<void>) {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "reins_mcp_fs_" }));
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a run reads and lists files through the filesystem server", () =>
  withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/notes.txt`, "hello from mcp");
    await using fs = await mcpTools({ ...serverCommand(FS, dir), name: "fs" });
    const model = scriptModel([
      calls(
        call("c1", "read_text_file", { path: `${dir}/notes.txt` }),
        call("c2", "list_directory", { path: dir }),
      ),
      reportTools,
    ]);
    const done = await run(newRun("What is in the folder?"), { model, tools: fs.tools });
    assert.equal(done.status, "completed");
    assert.deepEqual(toolResults(done.messages), {
      c1: "hello from mcp",
      c2: "[FILE] notes.txt",
    });
    assert.equal(done.output, "hello from mcp\n---\n[FILE] notes.txt");
    // The model was offered the server's own JSON schema.
    const offered = model.requests[0].tools.find((t) => t.function.name === "read_text_file");
    assert.equal(
      (offered?.function.parameters.properties as Record<string, unknown>).path !== undefined,
      true,
    );
    assert.equal("$schema" in (offered?.function.parameters ?? {}), false);
  }));

Deno.test("the filesystem server's annotations become reins's tool flags", () =>
  withDir(async (dir) => {
    await using fs = await mcpTools({ ...serverCommand(FS, dir) });
    const flags = Object.fromEntries(
      fs.tools.map((t) => [t.name, [t.readOnly, t.idempotent, t.needsApproval]]),
    );
    assert.deepEqual(flags.read_text_file, [true, true, false]);
    assert.deepEqual(flags.write_file, [false, true, true], "destructive, idempotent");
    assert.deepEqual(flags.edit_file, [false, false, true], "destructive, not idempotent");
    assert.deepEqual(flags.create_directory, [false, true, false], "not destructive");
    assert.equal(fs.server?.name, "secure-filesystem-server");
  }));

Deno.test("options override the annotations per tool, and must name real tools", () =>
  withDir(async (dir) => {
    await using fs = await mcpTools({
      ...serverCommand(FS, dir),
      prefix: "fs__",
      only: ["write_file", "create_directory", "read_text_file"],
      approve: ["create_directory"],
      noApproval: ["write_file"],
    });
    const byName = new Map(fs.tools.map((t) => [t.name, t]));
    assert.deepEqual([...byName.keys()], [
      "fs__read_text_file",
      "fs__write_file",
      "fs__create_directory",
    ]);
    assert.equal(byName.get("fs__create_directory")?.needsApproval, true);
    assert.equal(byName.get("fs__write_file")?.needsApproval, false);
    await assert.rejects(
      mcpTools({ ...serverCommand(FS, dir), name: "fs", approve: ["rm_rf"] }),
      (e: Error) =>
        e instanceof TypeError &&
        /approve names "rm_rf", which the server does not have/.test(e.message) &&
        /write_file/.test(e.message),
    );
  }));

Deno.test("a destructive write waits for approval, then runs once approved", () =>
  withDir(async (dir) => {
    await using fs = await mcpTools({ ...serverCommand(FS, dir) });
    const target = `${dir}/out.txt`;
    const trace = recorder();
    const model = scriptModel([
      calls(call("w1", "write_file", { path: target, content: "written by reins" })),
      reportTools,
    ]);
    const options = { model, tools: fs.tools, trace: trace.sink };
    const paused = await run(newRun("Write the file"), options);
    assert.equal(paused.status, "interrupted");
    assert.deepEqual(paused.interruption, {
      type: "approval",
      callId: "w1",
      toolName: "write_file",
      args: { path: target, content: "written by reins" },
      why: "needs_approval",
    });
    await assert.rejects(Deno.stat(target), Deno.errors.NotFound);
    const done = await run(approve(paused, "w1"), options);
    assert.equal(done.status, "completed");
    assert.equal(await Deno.readTextFile(target), "written by reins");
    assert.match(toolResults(done.messages).w1, /Successfully wrote to/);
    assert.equal(trace.events.filter((e) => e.type === "approval_required").length, 1);
  }));

Deno.test("a rejected destructive call never reaches the server", () =>
  withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/keep.txt`, "keep me");
    await using fs = await mcpTools({ ...serverCommand(FS, dir) });
    const model = scriptModel([
      calls(call("m1", "move_file", { source: `${dir}/keep.txt`, destination: `${dir}/gone.txt` })),
      reportTools,
    ]);
    const paused = await run(newRun("Move it"), { model, tools: fs.tools });
    assert.equal(paused.status, "interrupted");
    const done = await run(reject(paused, "m1", "not today"), { model, tools: fs.tools });
    assert.equal(done.status, "completed");
    assert.equal(await Deno.readTextFile(`${dir}/keep.txt`), "keep me");
  }));

Deno.test("an isError result follows the run's tool-error policy", () =>
  withDir(async (dir) => {
    await using fs = await mcpTools({ ...serverCommand(FS, dir) });
    const outside = call("e1", "read_text_file", { path: "/etc/hostname" });
    const described = await run(newRun("Read it"), {
      model: scriptModel([calls(outside), reportTools]),
      tools: fs.tools,
    });
    assert.equal(described.status, "completed");
    assert.match(
      toolResults(described.messages).e1,
      /^Error: .*Access denied - path outside allowed directories/,
    );
    const fatal = await run(newRun("Read it"), {
      model: scriptModel([calls(outside), reportTools]),
      tools: fs.tools,
      toolErrors: "fatal",
    });
    assert.equal(fatal.status, "failed");
    assert.match(fatal.stopReason ?? "", /Access denied/);
  }));

Deno.test("arguments the schema rejects are reported to the model without calling the server", () =>
  withDir(async (dir) => {
    await using fs = await mcpTools({ ...serverCommand(FS, dir) });
    const done = await run(newRun("Read"), {
      model: scriptModel([calls(call("b1", "read_text_file", { path: 7 })), reportTools]),
      tools: fs.tools,
    });
    assert.match(
      toolResults(done.messages).b1,
      /Invalid arguments for read_text_file: path: expected string, received integer/,
    );
  }));
