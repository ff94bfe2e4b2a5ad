// Preparing a workspace folder is atomic: a process SIGKILLed between two
// demo files leaves no folder that passes for prepared, so the next process
// to prepare the same path (the way the server does: open it when it exists,
// else create it) finds every demo file, whole.
import assert from "node:assert/strict";
import { join } from "node:path";
import { FIXTURES } from "../tools/fixtures.ts";
import { createWorkspace, type Workspace } from "../tools/workspace.ts";

const CHILD = new URL("./fixtures/workspace_child.ts", import.meta.url).pathname;

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/** What the server's executor does with a run's workspace folder (demo/agents.ts). */
async function prepare(dir: string): Promise<Workspace> {
  return await createWorkspace({ dir, keep: true });
}

async function assertComplete(ws: Workspace): Promise<void> {
  assert.deepEqual(await ws.files(), Object.keys(FIXTURES).sort());
  for (const [name, text] of Object.entries(FIXTURES)) {
    assert.equal(await Deno.readTextFile(ws.resolve(name)), text, name);
  }
}

Deno.test("a process killed while preparing a workspace leaves none half-made", async () => {
  const root = await Deno.makeTempDir({ prefix: "reins-ws-crash-" });
  try {
    const dir = join(root, "run-1");
    const paused = join(root, "paused");
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", "--allow-write", CHILD, dir, paused],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const started = Date.now();
    while (!(await exists(paused))) {
      if (Date.now() - started > 60_000) {
        child.kill("SIGKILL");
        const { stderr } = await child.output();
        assert.fail(`the child never paused: ${new TextDecoder().decode(stderr)}`);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    child.kill("SIGKILL");
    const status = await child.output();
    assert.equal(status.signal, "SIGKILL");
    await assertComplete(await prepare(dir));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("two preparations of one workspace at once both get the whole folder", async () => {
  const root = await Deno.makeTempDir({ prefix: "reins-ws-race-" });
  try {
    const dir = join(root, "run-2");
    const [a, b] = await Promise.all([createWorkspace({ dir }), createWorkspace({ dir })]);
    assert.equal(a.dir, b.dir);
    await assertComplete(a);
    // Only the folder itself remains: the loser's copy was removed.
    assert.deepEqual([...Deno.readDirSync(root)].map((e) => e.name), ["run-2"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("keep: a tree's folder is used as the tree left it; without keep its files are restored", async () => {
  const root = await Deno.makeTempDir({ prefix: "reins-ws-keep-" });
  try {
    const dir = join(root, "tree");
    const ws = await prepare(dir);
    await Deno.remove(ws.resolve("notes.txt")); // the tree deleted it
    await Deno.writeTextFile(ws.resolve("errors.log"), "edited");
    const again = await prepare(dir);
    assert.equal(again.dir, ws.dir);
    assert.deepEqual(await again.files(), ["access.log", "errors.log"]);
    assert.equal(await Deno.readTextFile(again.resolve("errors.log")), "edited");
    await assertComplete(await createWorkspace({ dir }));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
