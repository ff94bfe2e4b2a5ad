// Shared set-up for the server tests: an app over a real KV with a real worker
// (runs started by the request, sweeps), always torn down (worker stopped, KV closed,
// temp dirs gone).
import assert from "node:assert/strict";
import { createApp, type ReinsApp } from "../server/app.ts";
import { startWorker, type Worker } from "../runtime/worker.ts";
import type { ServerDeps } from "../server/deps.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { demoDeps } from "../demo/process.ts";
import type { ScanArchiveOptions } from "../tools/scan_archive.ts";
import type { TraceEvent } from "../harness/trace.ts";
import { jsonCaller, waitFor } from "./server_http.ts";
export { waitFor };

export interface TestServer {
  app: ReinsApp;
  kv: Deno.Kv;
  store: KvRunStore;
  worker: Worker;
  /** JSON request helper: returns status and parsed body. */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
    // deno-lint-ignore no-explicit-any
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

export type ServerOptions = Partial<Omit<ServerDeps, "kv" | "store">> & {
  /** KV path (default ":memory:"). */
  kvPath?: string;
  leaseMs?: number;
  /** The demo's scan_archive (default 300 ms). */
  scan?: ScanArchiveOptions;
  /** Pause between scripted chunks (default 0). */
  chunkMs?: number;
};

export async function withServer(
  options: ServerOptions,
  fn: (s: TestServer) => Promise<void>,
): Promise<void> {
  const { kvPath = ":memory:", leaseMs, scan = { ms: 300 }, chunkMs = 0, ...rest } = options;
  const kv = await Deno.openKv(kvPath);
  const root = await Deno.makeTempDir({ prefix: "reins-server-test-" });
  const store = new KvRunStore(kv, { leaseMs });
  const deps: ServerDeps = {
    kv,
    store,
    ...demoDeps({ scripted: true, scan, chunkMs }),
    workspaceRoot: root,
    pollMs: 20,
    ...rest,
  };
  const worker = startWorker(deps, { everyMs: 0 });
  const app = createApp({
    schedule: worker.schedule,
    // A test's own `schedule` (one that starts nothing) decides for new runs too.
    ...(rest.schedule ? {} : { start: worker.start }),
    onRequest: worker.nudge,
    ...deps,
  });
  const call = jsonCaller(app, rest.token);
  try {
    await fn({ app, kv, store, worker, call });
  } finally {
    await worker.stop();
    kv.close();
    await Deno.remove(root, { recursive: true });
  }
}

/** Waits until run `id` is in a status other than `running` and returns its view. */
// deno-lint-ignore no-explicit-any
export function settled(s: TestServer, id: string, timeoutMs?: number): Promise<any> {
  return waitFor(
    async () => {
      const res = await s.call("GET", `/runs/${id}`);
      assert.equal(res.status, 200);
      return res.body.status === "running" ? undefined : res.body;
    },
    `run ${id} to stop`,
    timeoutMs,
  );
}

/** Every KV entry, as comparable text. */
export async function kvSnapshot(kv: Deno.Kv): Promise<string[]> {
  const out: string[] = [];
  for await (const e of kv.list({ prefix: [] })) {
    out.push(JSON.stringify([e.key, e.value, e.versionstamp]));
  }
  return out;
}

/** Parses an SSE text into its events (`id` and JSON `data`). */
export function parseSse(text: string): { id: string | undefined; data: TraceEvent }[] {
  return text.split("\n\n").filter((b) => /^data: /m.test(b)).map((block) => {
    const lines = block.split("\n");
    const id = lines.find((l) => l.startsWith("id: "))?.slice(4);
    const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
    return { id, data: JSON.parse(data) };
  });
}

/**
 * Reads an SSE answer up to and including its `run_stopped` event, then leaves;
 * throws if the stream ends before the run stopped.
 */
export async function readUntilStopped(res: Response): Promise<string> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  try {
    while (!/"type":"run_stopped"/.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended before the run stopped: ${text}`);
      text += value;
    }
  } finally {
    await reader.cancel();
  }
  return text;
}
