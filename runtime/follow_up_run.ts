/**
 * A follow-up to a stored run, the one way the CLI and the HTTP route do it:
 * the message is appended (see `followUp` for how the limits apply), the run
 * marked `running` in one checked save, and the Stop that ended it (if any)
 * lifted. The caller then executes the run (the CLI) or schedules it (the
 * server): it continues like a resume, anywhere, under its lease.
 *
 * @module
 */
import { followUp, type FollowUpOptions } from "../harness/follow_up.ts";
import type { RunState } from "../harness/state.ts";
import type { AnswerRecord } from "../kv/idempotency.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";
import { clearStop, stopVersion } from "../kv/stop_record.ts";

/** Options of {@link followUpRun}. */
export interface FollowUpRunOptions extends FollowUpOptions {
  /**
   * The answer of the request that sends the follow-up, given the state to
   * save: recorded in the same commit as the message (see `answerRecord`), so
   * a retry after a crash finds it and appends nothing.
   */
  answer?: ((next: Readonly<RunState>) => AnswerRecord) | undefined;
}

/**
 * Appends `message` to stored run `id` and marks it `running` (one checked
 * save: two follow-ups racing cannot both land, the second gets
 * `RunConflictError`); lifts the Stop seen before, never one recorded
 * meanwhile. `RunStateError` when the run cannot take a follow-up (see
 * `followUp`). Returns the state, ready to execute.
 *
 * @example
 * ```ts
 * import { followUpRun } from "./follow_up_run.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const s = newRun("hi");
 * s.messages.push({ role: "assistant", content: "hello" });
 * Object.assign(s, { status: "completed", turns: 1, output: "hello" });
 * await store.save(s);
 * const next = await followUpRun(store, kv, s.runId, "and then?");
 * console.log(next.status, next.messages.length); // running 3
 * kv.close();
 * ```
 */
export async function followUpRun(
  store: KvRunStore,
  kv: Deno.Kv,
  id: string,
  message: string,
  options: FollowUpRunOptions = {},
): Promise<RunState> {
  // Read first: the follow-up lifts the Stop seen now, not one recorded meanwhile.
  const seen = await stopVersion(kv, (await store.summary(id)).rootId);
  const next = followUp(await store.load(id), message, options);
  await store.save(next, options.answer ? { answer: options.answer(next) } : {});
  await clearStop(kv, next.rootId, seen);
  return next;
}
