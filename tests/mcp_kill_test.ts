// Every way reins lets go of a stdio MCP server ends its process, even one that
// hangs at start and ignores SIGTERM (the SDK's close() sends one SIGTERM, and
// its follow-up SIGKILL does nothing under Deno): a real child process each time.
import assert from "node:assert/strict";
import { mcpServerTools, mcpTools } from "../mcp/mod.ts";
import { ROOT } from "./run_script.ts";

/** A stubborn server's command, and a way to read the pid it writes. */
async function stubborn(mode: "hang" | "serve") {
  const pidFile = await Deno.makeTempFile({ prefix: "stubborn_pid_" });
  return {
    spec: {
      command: Deno.execPath(),
      args: [
        "run",
        "-A",
        "--frozen",
        "--quiet",
        `${ROOT}tests/fixtures/stubborn_mcp_server.ts`,
        mode,
      ],
      env: { STUBBORN_PID_FILE: pidFile },
      stderr: "ignore" as const,
    },
    async pid(): Promise<number> {
      for (let i = 0; i < 100; i++) {
        const text = await Deno.readTextFile(pidFile);
        if (text) return Number(text);
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error("the server never wrote its pid");
    },
    [Symbol.asyncDispose]: () => Deno.remove(pidFile),
  };
}

/** Whether process `pid` still runs (a zombie counts as gone: it has ended). */
async function alive(pid: number): Promise<boolean> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    return !/^State:\s+Z/m.test(status);
  } catch {
    return false;
  }
}

/** Asserts the server's process has ended (and kills it if a failing test left it running). */
async function assertEnded(pid: number): Promise<void> {
  try {
    assert.equal(await alive(pid), false, `the server (pid ${pid}) still runs`);
  } finally {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* gone, as it should be */ }
  }
}

Deno.test("a server that hangs at start and ignores SIGTERM is killed when mcpTools gives up", async () => {
  await using s = await stubborn("hang");
  // Long enough for `deno run` to start and write its pid on a loaded machine (the suite runs
  // files in parallel): killed sooner, the server would leave no pid to check.
  await assert.rejects(
    mcpTools({ ...s.spec, name: "stuck", timeoutMs: 3_000 }),
    /Cannot connect to MCP server "stuck"/,
  );
  await assertEnded(await s.pid());
});

Deno.test("a hung server is killed when another server of the map fails to start", async () => {
  await using s = await stubborn("hang");
  await assert.rejects(
    mcpServerTools({
      stuck: { ...s.spec, timeoutMs: 1_000 },
      broken: { command: "/nonexistent/server" },
    }, { stderr: "ignore" }),
    /MCP server/,
  );
  await assertEnded(await s.pid());
});

Deno.test("close() ends a server that ignores SIGTERM", async () => {
  await using s = await stubborn("serve");
  const set = await mcpTools({ ...s.spec, name: "stubborn", timeoutMs: 10_000 });
  const pid = await s.pid();
  assert.deepEqual(set.tools.map((t) => t.name), ["ping"]);
  assert.equal(await alive(pid), true);
  await set.close();
  await assertEnded(pid);
});

Deno.test("a server whose tool list is refused is ended with it", async () => {
  await using s = await stubborn("serve");
  await assert.rejects(
    mcpTools({ ...s.spec, name: "stubborn", only: ["nope"], timeoutMs: 10_000 }),
    /only names "nope"/,
  );
  await assertEnded(await s.pid());
});
