// `deno serve --parallel` for real: two worker isolates on one port and one
// KV file. A depth-2 tree of slow tools executes on one worker; the Stop is
// sent over a connection that another worker accepted; every node must stop
// and no tool may keep running. Prints the ms from Stop to the last run_stopped.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { type Answer, Connection, freePort, waitFor as poll } from "./server_http.ts";
import { sleep } from "../harness/sleep.ts";

// Probes that throw (a server not up yet) are retried.
const waitFor = <T>(probe: () => Promise<T | undefined>, what: string, ms = 20_000) =>
  poll(probe, what, ms, { retryErrors: true, everyMs: 25 });

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TOKEN = "parallel-test-token";

/** One request on a fresh connection. */
async function once(port: number, method: string, path: string, body?: unknown): Promise<Answer> {
  const c = await Connection.open(port, TOKEN);
  try {
    return await c.request(method, path, body);
  } finally {
    c.close();
  }
}

/** A connection served by a worker other than `executor`. */
async function onOtherWorker(port: number, id: string, executor: string): Promise<Connection> {
  for (let i = 0; i < 200; i++) {
    const c = await Connection.open(port, TOKEN);
    const probe = await c.request("GET", `/runs/${id}`);
    if (probe.headers.get("x-reins-worker") !== executor) return c;
    c.close();
  }
  throw new Error("no connection landed on another worker");
}

async function json(port: number, method: string, path: string, body?: unknown) {
  const a = await once(port, method, path, body);
  return { status: a.status, worker: a.headers.get("x-reins-worker"), body: JSON.parse(a.body) };
}

interface StoredEvent {
  id: string;
  data: { type: string; at: string; status?: string };
}

async function eventsOf(port: number, runId: string): Promise<StoredEvent[]> {
  const text = (await once(port, "GET", `/runs/${runId}/events?follow=false`)).body;
  return text.split("\n\n").filter((b) => b.includes("data: ")).map((b) => {
    const lines = b.split("\n");
    return {
      id: lines.find((l) => l.startsWith("id: "))!.slice(4),
      data: JSON.parse(
        lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n"),
      ),
    };
  });
}

Deno.test("deno serve --parallel: a Stop sent to another worker stops the whole tree", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-parallel-" });
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    cwd: ROOT,
    args: [
      "serve",
      "--parallel",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      "--host=127.0.0.1",
      `--port=${port}`,
      "demo/serve.ts",
    ],
    env: {
      DENO_JOBS: "2",
      REINS_KV_PATH: `${dir}/runs.sqlite`,
      REINS_WORKSPACES: `${dir}/workspaces`,
      REINS_TOKEN: TOKEN,
      REINS_SCRIPTED: "1",
      REINS_SCAN_MS: "4000",
      HOST: "127.0.0.1",
      PORT: String(port),
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = Promise.all([child.stdout, child.stderr].map((s) => new Response(s).text()));
  let status: Deno.CommandStatus | undefined;
  try {
    // Both workers answer.
    const workers = new Set<string>();
    await waitFor(async () => {
      const a = await once(port, "GET", "/openapi.json");
      assert.equal(a.status, 200);
      workers.add(a.headers.get("x-reins-worker")!);
      return workers.size >= 2 ? true : undefined;
    }, "two workers");
    assert.equal((await once(port, "GET", "/runs")).status === 200, true);

    const created = await json(port, "POST", "/runs", {
      task: "Scan the archive.",
      scenario: "research-slow",
    });
    assert.equal(created.status, 201);
    const id = created.body.runId as string;

    // Both children are scanning (tool_progress seen) on the executing worker.
    const nodes = await waitFor(async () => {
      const tree = (await json(port, "GET", `/runs/${id}/tree`)).body.nodes as { runId: string }[];
      if (tree.length !== 3) return undefined;
      for (const n of tree.slice(1)) {
        if (!(await eventsOf(port, n.runId)).some((e) => e.data.type === "tool_progress")) {
          return undefined;
        }
      }
      return tree;
    }, "both children to scan");
    const executor = (await json(port, "GET", `/runs/${id}`)).body.lease?.owner as string;
    assert.ok(executor && workers.has(executor), `executor ${executor} among ${[...workers]}`);

    // A live event stream of the root, served by a worker that does not execute it.
    const watcher = await onOtherWorker(port, id, executor);
    await watcher.openStream(`/runs/${id}/events`);

    // Probe fresh connections until one lands on another worker; send Stop on it.
    let t0 = 0;
    let stop: Answer | undefined;
    let attempts = 0;
    while (!stop) {
      attempts++;
      assert.ok(attempts < 200, "no connection landed on another worker");
      const c = await Connection.open(port, TOKEN);
      try {
        const probe = await c.request("GET", `/runs/${id}`);
        if (probe.headers.get("x-reins-worker") === executor) continue;
        stop = await c.request(
          "POST",
          `/runs/${id}/stop`,
          { reason: "stop from another worker" },
          () => {
            t0 = Date.now();
          },
        );
      } finally {
        c.close();
      }
    }
    assert.equal(stop.status, 202);
    const stopWorker = stop.headers.get("x-reins-worker");
    assert.notEqual(stopWorker, executor);

    // Every node stops interrupted/cancelled with the reason.
    await waitFor(
      async () => {
        for (const n of nodes) {
          if (
            (await json(port, "GET", `/runs/${n.runId}`)).body.status === "running"
          ) return undefined;
        }
        return true;
      },
      "every node to stop",
      10_000,
    );
    let lastStopped = 0;
    const counts: number[] = [];
    for (const n of nodes) {
      const run = (await json(port, "GET", `/runs/${n.runId}`)).body;
      assert.equal(run.status, "interrupted", n.runId);
      assert.deepEqual(run.interruption, { type: "cancelled", reason: "stop from another worker" });
      const events = await eventsOf(port, n.runId);
      const at = events.findIndex((e) => e.data.type === "run_stopped");
      assert.ok(at >= 0, `${n.runId} has run_stopped`);
      assert.equal(at, events.length - 1, `${n.runId}: nothing after run_stopped`);
      lastStopped = Math.max(lastStopped, Date.parse(events[at].data.at));
      counts.push(events.length);
    }
    // The stream on the other worker saw the root's run_stopped, live.
    const streamed = await watcher.readUntil(/"type":"run_stopped"/);
    watcher.close();
    assert.match(streamed, /stop from another worker/);
    const ids = [...streamed.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    assert.deepEqual(ids, ids.map((_, i) => i), "stored then live events, in order, no gaps");

    // No tool keeps running: no new event (e.g. tool_progress) after the stop.
    await sleep(1_000);
    for (const [i, n] of nodes.entries()) {
      assert.equal((await eventsOf(port, n.runId)).length, counts[i], `${n.runId} got new events`);
    }
    // An approval lands on whichever worker; the tree resumes on whichever takes the message.
    const approval = await json(port, "POST", "/runs", {
      task: "Tidy up.",
      scenario: "research-approval",
    });
    const aid = approval.body.runId as string;
    const waiting = await waitFor(async () => {
      const run = (await json(port, "GET", `/runs/${aid}`)).body;
      return run.status === "running" ? undefined : run;
    }, "the approval");
    assert.equal(waiting.interruption?.type, "approval", JSON.stringify(waiting));
    const verdict = await json(port, "POST", `/runs/${aid}/approve`, {
      callId: waiting.interruption.callId,
    });
    assert.equal(verdict.status, 202);
    const finished = await waitFor(async () => {
      const run = (await json(port, "GET", `/runs/${aid}`)).body;
      return run.status === "running" ? undefined : run;
    }, "the approved tree");
    assert.equal(finished.status, "completed");

    console.log(
      `Stop -> last run_stopped: ${
        lastStopped - t0
      } ms (Stop on ${stopWorker}, tree on ${executor}, ` +
        `${attempts} connection(s) to reach another worker)`,
    );
    assert.ok(lastStopped - t0 < 2_000, `stop took ${lastStopped - t0} ms`);
  } finally {
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    status = await child.status;
    clearTimeout(timer);
    const [out, err] = await output;
    await Deno.remove(dir, { recursive: true });
    if (!status.success) console.error(out, err);
  }
  assert.ok(status.success, `server exited with ${status.code} (signal ${status.signal})`);
});
