/**
 * The task of a stored run (its first user message), read without loading
 * its whole transcript: the run lists of the CLI and the inspector show it.
 *
 * @module
 */
import type { KvRunStore } from "./kv_run_store.ts";
import { RecordError } from "./record_error.ts";

/**
 * The first user message of run `id` ("" when it has none or it cannot be read).
 *
 * @example
 * ```ts
 * import { storedTask } from "./stored_task.ts";
 * import { KvRunStore } from "./kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const s = newRun("Which file mentions a timeout?", { system: "Be brief." });
 * await store.save(s);
 * console.log(await storedTask(store, s.runId)); // Which file mentions a timeout?
 * kv.close();
 * ```
 */
export async function storedTask(store: KvRunStore, id: string): Promise<string> {
  // The task is message 0, or 1 after a system prompt.
  for (const seq of [0, 1]) {
    try {
      const m = await store.message(id, seq);
      if (m?.role === "user") return m.content ?? "";
    } catch (e) {
      // An unreadable message: the task shows as missing, the run itself tells more.
      if (!(e instanceof RecordError)) throw e;
    }
  }
  return "";
}
