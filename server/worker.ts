/**
 * The background worker: consumes `{ kind: "execute", runId }` queue messages
 * (`kv.listenQueue`) and, on start, re-queues the runs a dead process left
 * behind. Delivery is at least once; the run's lease decides who executes.
 *
 * @module
 */
import { markRunning } from "../runtime/continue_tree.ts";
import { createExecutor, type Executor, SHUTDOWN_REASON } from "../runtime/executor.ts";
import { isQueueMessage, type QueueMessage, resolveDeps, type ServerDeps } from "./deps.ts";
import type { RunSummary } from "../kv/kv_run_store.ts";
import { RunConflictError } from "../harness/errors.ts";

/** A started worker; see {@link startWorker}. */
export interface Worker {
  /** The executor the queue handler uses (e.g. to wait until idle in tests). */
  readonly executor: Executor;
  /** Settles once the start-up recovery has queued what it found. */
  readonly recovered: Promise<void>;
  /** Settles when the queue listener ends (after the KV is closed). */
  readonly listening: Promise<void>;
  /**
   * Stops taking messages (new ones stay queued for the next start), stops
   * every execution with `SHUTDOWN_REASON` and waits for them. Close the KV
   * afterwards, then await {@link Worker.listening}.
   */
  stop(): Promise<void>;
}

/** Margin after a live lease expires before its run is looked at again, in ms. */
const LEASE_MARGIN_MS = 1_000;

async function enqueue(kv: Deno.Kv, runId: string, delay = 0): Promise<void> {
  const message: QueueMessage = { kind: "execute", runId };
  await kv.enqueue(message, delay > 0 ? { delay: Math.ceil(delay) } : undefined);
}

async function listAll(
  deps: ReturnType<typeof resolveDeps>,
  status: "running" | "interrupted",
): Promise<RunSummary[]> {
  return (await deps.store.list({ status, limit: 1000 })).filter((s) => s.parentId === null);
}

/**
 * Re-queues the roots a dead or stopped process left: `running` ones (now if
 * their lease lapsed, else when it will have), and those interrupted by a
 * server shutdown (marked `running` again first).
 */
async function recover(deps: ReturnType<typeof resolveDeps>): Promise<void> {
  for (const run of await listAll(deps, "running")) {
    const lease = await deps.store.leaseHolder(run.runId);
    await enqueue(deps.kv, run.runId, lease ? lease.expiresAt - Date.now() + LEASE_MARGIN_MS : 0);
  }
  for (const run of await listAll(deps, "interrupted")) {
    const i = run.interruption;
    if (i?.type !== "cancelled" || i.reason !== SHUTDOWN_REASON) continue;
    try {
      await markRunning(deps.freshStore(), run.runId);
    } catch (e) {
      if (e instanceof RunConflictError) continue; // another worker took it
      throw e;
    }
    await enqueue(deps.kv, run.runId);
  }
}

/**
 * Starts consuming the run queue of `deps.kv` (one listener per KV handle)
 * and recovers left-over runs.
 *
 * @example
 * ```ts
 * import { startWorker } from "./worker.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * const kv = await Deno.openKv(":memory:");
 * const worker = startWorker({ kv, store: new KvRunStore(kv), scripted: true });
 * await worker.recovered;
 * await worker.stop();
 * kv.close();
 * await worker.listening;
 * ```
 */
export function startWorker(deps: ServerDeps): Worker {
  const resolved = resolveDeps(deps);
  const executor = createExecutor(resolved);
  let stopping = false;
  const listening = resolved.kv.listenQueue(async (message: unknown) => {
    if (!isQueueMessage(message)) return; // not ours: acknowledged and dropped
    // Thrown: the message stays queued and is delivered again (after a restart).
    if (stopping) throw new Error("reins worker is stopping");
    await executor.execute(message.runId);
  });
  const recovered = recover(resolved).catch((e) => {
    if (!stopping) console.error("reins: recovering runs failed:", e);
  });
  return {
    executor,
    recovered,
    listening,
    async stop() {
      stopping = true;
      await recovered;
      await executor.stop();
    },
  };
}
