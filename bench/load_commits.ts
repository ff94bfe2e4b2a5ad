/**
 * What bounds the server under load: its KV's commits. How many one run of
 * a scenario makes through the HTTP API (created by `POST /runs`, executed
 * by the worker, every commit counted by a view of the real KV), and what
 * one checked commit costs on this disk (the median of 200, one at a time:
 * SQLite commits one at a time whatever the concurrency).
 *
 * @module
 */
import { join } from "node:path";
import { createApp } from "../server/app.ts";
import { startWorker } from "../runtime/worker.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { counting } from "./counting_kv.ts";
import { demoDeps } from "../demo/process.ts";
import { median } from "./instrument.ts";

/** Commits of one run of `scenario` created over HTTP and executed by a worker. */
export async function commitsPerRun(dir: string, scenario: string): Promise<number> {
  const raw = await Deno.openKv(join(dir, `${scenario}-commits.sqlite`));
  const workspaceRoot = await Deno.makeTempDir({ dir });
  try {
    const { kv, commits } = counting(raw);
    const deps = {
      kv,
      store: new KvRunStore(kv),
      ...demoDeps({ scripted: true, chunkMs: 0 }),
      workspaceRoot,
      pollMs: 20,
    };
    const worker = startWorker(deps, { everyMs: 0 });
    try {
      await worker.recovered;
      const app = createApp({ ...deps, schedule: worker.schedule, start: worker.start });
      const before = commits.n;
      const res = await app.request("/runs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ scenario }),
      });
      if (res.status !== 201) throw new Error(`POST /runs: ${res.status} ${await res.text()}`);
      await worker.executor.idle();
      return commits.n - before;
    } finally {
      await worker.stop();
    }
  } finally {
    raw.close();
  }
}

/** The median ms of one checked 1 KB commit on a fresh SQLite file in `dir`. */
export async function commitMs(dir: string): Promise<number> {
  const kv = await Deno.openKv(join(dir, "floor.sqlite"));
  try {
    const ms: number[] = [];
    const value = new Uint8Array(1024);
    for (let i = -20; i < 200; i++) {
      const t0 = performance.now();
      await kv.atomic().check({ key: ["floor", i], versionstamp: null }).set(["floor", i], value)
        .commit();
      if (i >= 0) ms.push(performance.now() - t0);
    }
    return median(ms);
  } finally {
    kv.close();
  }
}
