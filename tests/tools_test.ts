import assert from "node:assert/strict";
import { join } from "node:path";
import { PermanentToolError } from "../harness/errors.ts";
import { demoTools } from "../tools/catalog.ts";
import { defineTool, type ToolContext, toolDefinitions } from "../harness/tool.ts";
import { deleteFileTool, readEffects } from "../tools/delete_file.ts";
import { ERRORS_LOG, FIXTURES } from "../tools/fixtures.ts";
import { listFilesTool } from "../tools/list_files.ts";
import { readFileTool } from "../tools/read_file.ts";
import { scanArchiveTool } from "../tools/scan_archive.ts";
import { sleep } from "../harness/sleep.ts";
import { createWorkspace, type Workspace } from "../tools/workspace.ts";
import { z } from "zod";

interface TestCtx extends ToolContext {
  progressed: { label: string; fraction?: number }[];
}

function ctx(signal = new AbortController().signal, key = "run1:call1"): TestCtx {
  const progressed: TestCtx["progressed"] = [];
  return {
    signal,
    progress: (label, fraction) => progressed.push({ label, fraction }),
    progressed,
    runId: "run1",
    callId: "call1",
    idempotencyKey: key,
    runChild: () => Promise.reject(new Error("no child runs here")),
  };
}

async function withWorkspace(fn: (ws: Workspace) => Promise<void>): Promise<void> {
  const ws = await createWorkspace();
  try {
    await fn(ws);
  } finally {
    await ws.remove();
  }
}

Deno.test("workspace is a fresh temp copy of the fixtures, and deleting there leaves the originals", async () => {
  const a = await createWorkspace();
  const b = await createWorkspace();
  try {
    assert.notEqual(a.dir, b.dir);
    assert.ok(!a.dir.startsWith(Deno.cwd()), `${a.dir} should not be inside the repository`);
    assert.deepEqual(await a.files(), ["access.log", "errors.log", "notes.txt"]);
    assert.equal(await Deno.readTextFile(a.resolve("errors.log")), ERRORS_LOG);
    await deleteFileTool(a).run({ path: "errors.log" }, ctx());
    assert.deepEqual(await a.files(), ["access.log", "notes.txt"]);
    assert.deepEqual(await b.files(), ["access.log", "errors.log", "notes.txt"]);
    assert.ok(ERRORS_LOG.includes("worker 7 timed out after 30000 ms"));
  } finally {
    await a.remove();
    await b.remove();
  }
  await assert.rejects(Deno.stat(a.dir), Deno.errors.NotFound);
});

Deno.test("workspace under a parent folder is created there", async () => {
  const parent = await Deno.makeTempDir({ prefix: "reins-parent-" });
  try {
    const ws = await createWorkspace({ parent: join(parent, ".reins", "workspaces") });
    assert.ok(ws.dir.startsWith(await Deno.realPath(parent)));
    assert.equal((await ws.files()).length, 3);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("fixtures: errors.log is the largest and all stay small", () => {
  const sizes = Object.entries(FIXTURES).map(([n, t]) =>
    [n, new TextEncoder().encode(t).length] as const
  );
  const largest = sizes.reduce((a, b) => (b[1] > a[1] ? b : a));
  assert.equal(largest[0], "errors.log");
  for (const [name, size] of sizes) assert.ok(size < 3000, `${name} is ${size} bytes`);
  assert.match(FIXTURES["notes.txt"], /Remember to rotate your logs\./);
});

Deno.test("list_files lists names with sizes, sorted, hiding the effects log", () =>
  withWorkspace(async (ws) => {
    await deleteFileTool(ws).run({ path: "notes.txt" }, ctx());
    await Deno.writeTextFile(ws.resolve("b.txt"), "x");
    const out = await listFilesTool(ws).run({}, ctx());
    const size = new TextEncoder().encode(FIXTURES["access.log"]).length;
    assert.equal(
      out,
      [
        `access.log (${size} bytes)`,
        `b.txt (1 byte)`,
        `errors.log (${new TextEncoder().encode(ERRORS_LOG).length} bytes)`,
      ].join("\n"),
    );
  }));

Deno.test("read_file returns the text of a file", () =>
  withWorkspace(async (ws) => {
    assert.equal(await readFileTool(ws).run({ path: "errors.log" }, ctx()), ERRORS_LOG);
  }));

Deno.test("read_file on a missing file tells the model to call list_files", () =>
  withWorkspace(async (ws) => {
    await assert.rejects(
      async () => await readFileTool(ws).run({ path: "nope.log" }, ctx()),
      (e: Error) => {
        assert.ok(!(e instanceof PermanentToolError));
        assert.equal(e.message, "no such file: nope.log. Call list_files to see what exists.");
        assert.match(e.message, /Call list_files/);
        return true;
      },
    );
  }));

Deno.test("read_file refuses paths outside the workspace with PermanentToolError", () =>
  withWorkspace(async (ws) => {
    const read = readFileTool(ws);
    for (const path of ["../x", "/etc/shadow", "sub/../../x", "/etc/passwd"]) {
      await assert.rejects(
        async () => await read.run({ path }, ctx()),
        (e: Error) => {
          assert.ok(e instanceof PermanentToolError, `${path}: ${e}`);
          assert.equal(
            e.message,
            `permission denied: ${JSON.stringify(path)} is outside the workspace`,
          );
          return true;
        },
      );
    }
    // An absolute path inside the workspace is fine.
    assert.equal(await read.run({ path: join(ws.dir, "notes.txt") }, ctx()), FIXTURES["notes.txt"]);
  }));

Deno.test("read_file refuses a symlink that points outside, even a dangling one or via a folder", () =>
  withWorkspace(async (ws) => {
    const outside = await Deno.makeTempDir({ prefix: "reins-outside-" });
    try {
      await Deno.writeTextFile(join(outside, "secret.txt"), "secret");
      await Deno.symlink(join(outside, "secret.txt"), join(ws.dir, "link.txt"));
      await Deno.symlink(outside, join(ws.dir, "linkdir"));
      await Deno.symlink(join(outside, "missing.txt"), join(ws.dir, "dangling.txt"));
      await Deno.symlink("dangling.txt", join(ws.dir, "chain.txt"));
      await Deno.symlink("notes.txt", join(ws.dir, "inside.txt"));
      const read = readFileTool(ws);
      for (const path of ["link.txt", "linkdir/secret.txt", "dangling.txt", "chain.txt"]) {
        await assert.rejects(
          async () => await read.run({ path }, ctx()),
          PermanentToolError,
          path,
        );
      }
      assert.equal(await read.run({ path: "inside.txt" }, ctx()), FIXTURES["notes.txt"]);
      const listed = String(await listFilesTool(ws).run({}, ctx()));
      assert.match(listed, /^link\.txt \(links outside the workspace\)$/m);
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  }));

Deno.test("read_file cuts a long file at maxChars and says so", () =>
  withWorkspace(async (ws) => {
    await Deno.writeTextFile(ws.resolve("big.txt"), "é".repeat(250));
    const out = String(await readFileTool(ws, { maxChars: 100 }).run({ path: "big.txt" }, ctx()));
    assert.ok(out.startsWith("é".repeat(100) + "\n\n[truncated"), out);
    assert.match(out, /first 100 characters of big\.txt \(500 bytes in all\)/);
    const exact = await readFileTool(ws, { maxChars: 250 }).run({ path: "big.txt" }, ctx());
    assert.equal(exact, "é".repeat(250));
  }));

Deno.test("delete_file deletes, records one effect per deletion, and reports a missing file", () =>
  withWorkspace(async (ws) => {
    const del = deleteFileTool(ws);
    assert.equal(del.needsApproval, true);
    assert.equal(del.readOnly, false);
    assert.equal(del.idempotent, false);
    assert.deepEqual(await readEffects(ws), []);
    assert.equal(await del.run({ path: "notes.txt" }, ctx(undefined, "r:a")), "deleted notes.txt");
    await assert.rejects(Deno.stat(join(ws.dir, "notes.txt")), Deno.errors.NotFound);
    await assert.rejects(
      async () => await del.run({ path: "notes.txt" }, ctx(undefined, "r:b")),
      { message: "no such file: notes.txt. Nothing was deleted." },
    );
    await Deno.writeTextFile(ws.resolve("notes.txt"), "again");
    await del.run({ path: "notes.txt" }, ctx(undefined, "r:c"));
    assert.deepEqual(await readEffects(ws), [
      { key: "r:a", path: "notes.txt" },
      { key: "r:c", path: "notes.txt" },
    ]);
    await assert.rejects(async () => await del.run({ path: "../x" }, ctx()), PermanentToolError);
    await assert.rejects(async () => await del.run({ path: ".effects.log" }, ctx()), /harness/);
    assert.equal((await readEffects(ws)).length, 2);
  }));

Deno.test("scan_archive reports progress 6 times and finishes", () =>
  withWorkspace(async (ws) => {
    const c = ctx();
    const out = await scanArchiveTool(ws, { ms: 60 }).run({}, c);
    assert.equal(
      out,
      "scanned 1200 files; 3 mention a timeout: archive/0137.log, archive/0537.log, archive/0937.log",
    );
    assert.deepEqual(
      c.progressed.map((p) => p.label),
      [200, 400, 600, 800, 1000, 1200].map((n) => `scanned ${n} of 1200 files`),
    );
    assert.deepEqual(c.progressed.map((p) => p.fraction), [1, 2, 3, 4, 5, 6].map((n) => n / 6));
  }));

Deno.test("scan_archive aborted after ~100 ms rejects within a few ms with the abort reason", () =>
  withWorkspace(async (ws) => {
    const ac = new AbortController();
    const c = ctx(ac.signal);
    const reason = new Error("cancelled by test");
    const running = scanArchiveTool(ws).run({}, c) as Promise<unknown>;
    await sleep(100);
    const t0 = performance.now();
    ac.abort(reason);
    await assert.rejects(running, (e) => e === reason);
    const took = performance.now() - t0;
    assert.ok(took < 50, `took ${took} ms to stop`);
    assert.equal(c.progressed.length, 0);
  }));

Deno.test("scan_archive with an already aborted signal does not start", async () => {
  const ac = new AbortController();
  ac.abort(new Error("early"));
  const tool = scanArchiveTool(undefined as unknown as Workspace);
  await assert.rejects(async () => await tool.run({}, ctx(ac.signal)), { message: "early" });
});

Deno.test("sleep waits, and rejects with the reason when aborted", async () => {
  const t0 = performance.now();
  await sleep(20);
  assert.ok(performance.now() - t0 >= 15);
  const ac = new AbortController();
  const p = sleep(10_000, ac.signal);
  ac.abort("stop");
  await assert.rejects(p, (e) => e === "stop");
});

Deno.test("demo catalog: four tools in order, JSON schemas without $schema", () =>
  withWorkspace(async (ws) => {
    const tools = demoTools(ws);
    assert.match(String(await tools[0].run({}, ctx())), /^access\.log \(\d+ bytes\)$/m);
    assert.deepEqual(tools.map((t) => t.name), [
      "list_files",
      "read_file",
      "delete_file",
      "scan_archive",
    ]);
    assert.deepEqual(tools.map((t) => t.readOnly), [true, true, false, true]);
    for (const def of toolDefinitions(tools)) {
      assert.equal(def.function.parameters.type, "object");
      assert.ok(!("$schema" in def.function.parameters), def.function.name);
    }
    const own = defineTool({
      name: "t",
      description: "",
      parameters: z.object({ a: z.string() }),
      run: () => "",
    });
    assert.ok(!("$schema" in own.jsonSchema));
    assert.deepEqual(tools[1].jsonSchema.required, ["path"]);
  }));
