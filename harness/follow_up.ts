/**
 * Conversations: a person's next message to a run that stopped, answered in
 * the same run (same id, transcript, spend and trace).
 *
 * How the limits apply to a conversation:
 * - the turn cap counts the model calls since the last user message: each
 *   message gets `maxTurns` calls (a run with one message counts as before);
 * - the budget is the conversation's: `costUsd` keeps adding up over every
 *   message and `maxBudgetUsd` caps the total, so a follow-up to a run that
 *   spent its budget stops at once unless it raises `limits.maxBudgetUsd`;
 * - `limits` given with a follow-up replace the stored ones from then on.
 *
 * @module
 */
import { RunStateError } from "./errors.ts";
import { exit } from "./exit.ts";
import { checkLimits, checkNonNegative, type LimitsInput } from "./limits.ts";
import { isoNow } from "./iso_now.ts";
import { pending, type RunState, type RunStatus } from "./state.ts";
import type { StopCondition } from "./stop_conditions.ts";
import type { RunContext } from "./run_context.ts";
import { TranscriptScan } from "./transcript_scan.ts";
import { cloneData } from "./clone_data.ts";

/** The statuses a follow-up may be sent to: the run answered, or stopped at a limit or a Stop. */
export const FOLLOW_UP_STATUSES: readonly RunStatus[] = [
  "completed",
  "max_turns_exceeded",
  "budget_exceeded",
  "interrupted",
];

/** Options of {@link followUp}. */
export interface FollowUpOptions {
  /** New limits for the rest of the conversation (e.g. a larger budget). */
  limits?: LimitsInput | undefined;
}

/**
 * Why run `state` cannot take a follow-up now, or null when it can.
 *
 * @example
 * ```ts
 * import { followUpRefusal } from "./follow_up.ts";
 * import { newRun } from "./state.ts";
 * console.log(followUpRefusal(newRun("hi"))); // it is running; wait until it stops
 * ```
 */
export function followUpRefusal(
  state: Readonly<Pick<RunState, "runId" | "parentId" | "status" | "interruption" | "messages">>,
): string | null {
  if (state.parentId !== null) {
    return `it is a subagent of run "${state.parentId}"; send the message to its root`;
  }
  if (state.status === "running") return "it is running; wait until it stops";
  if (!FOLLOW_UP_STATUSES.includes(state.status)) return `status is ${state.status}`;
  const i = state.interruption;
  if (state.status === "interrupted" && i?.type === "approval") {
    return `call "${i.callId}"${
      i.runId && i.runId !== state.runId ? ` of run "${i.runId}"` : ""
    } awaits a verdict: decide the verdict first (approve or reject it)`;
  }
  const [open] = pending(state);
  if (open) return `call "${open.id}" of its last reply has no result yet: resume the run first`;
  return null;
}

/**
 * Appends a user message to a stopped run and returns the state to continue
 * (`run()` it; the input is not mutated). The run keeps its id, transcript,
 * spend and trace; see the module doc for how the limits apply. Refused with a
 * `RunStateError` while it runs, when it failed, when a call awaits a verdict
 * (decide it first), when a call of its last reply has no result, and for a
 * subagent (its parent consumed its answer).
 *
 * @example
 * ```ts
 * import { followUp } from "./follow_up.ts";
 * import { newRun } from "./state.ts";
 * import { run } from "./run.ts";
 * const model = { name: "m", complete: async () => ({
 *   message: { role: "assistant" as const, content: "ok" },
 *   usage: { prompt_tokens: 10, completion_tokens: 2 }, finishReason: "stop" }) };
 * const first = await run(newRun("hi"), { model });
 * const second = await run(followUp(first, "and again?"), { model });
 * console.log(second.runId === first.runId, second.turns, second.messages.length); // true 2 4
 * ```
 */
export function followUp(
  state: RunState,
  message: string,
  options: FollowUpOptions = {},
): RunState {
  if (typeof message !== "string" || message.trim() === "") {
    throw new TypeError("followUp(state, message): message must be a non-empty string");
  }
  const why = followUpRefusal(state);
  if (why) throw new RunStateError(state.runId, state.status, "follow up", why);
  const next = cloneData(state);
  next.limits = checkLimits(options.limits ?? {}, next.limits);
  next.messages.push({ role: "user", content: message });
  next.status = "running";
  next.interruption = null;
  next.stopReason = null;
  next.output = null;
  // A new message may follow changes in the world: earlier reads are not served again.
  next.resultCache = {};
  next.updatedAt = isoNow();
  return next;
}

/**
 * The model calls made since the last user message: the turns of the
 * current message (all of them for a run of one message).
 *
 * Called before every model call, it reads only the messages added since
 * its last call on the same transcript (a transcript only grows; a fork or a
 * loaded state is a new array, read once).
 *
 * @example
 * ```ts
 * import { turnsSinceLastMessage } from "./follow_up.ts";
 * import { newRun } from "./state.ts";
 * const s = newRun("hi");
 * s.messages.push({ role: "assistant", content: "a" }, { role: "user", content: "b" });
 * s.turns = 1;
 * console.log(turnsSinceLastMessage(s)); // 0
 * ```
 */
export function turnsSinceLastMessage(
  state: Readonly<Pick<RunState, "messages" | "turns" | "outputRepairs">>,
): number {
  // A typed run's repair prompts are user messages, not a person's: they do not count.
  const repairs = state.outputRepairs ?? [];
  const scan = exchanges.of(state.messages, repairs);
  scan.repairs = repairs.length;
  // One message only: the run's own count (states built by hand may lack the replies).
  return scan.earlier ? scan.since : state.turns;
}

/** What {@link turnsSinceLastMessage} found in a transcript. */
interface Exchanges {
  /** The repairs known when it was read (`outputRepairs.length`). */
  repairs: number;
  /** Index of the last person's message (-1: none). */
  last: number;
  /** Whether a person's message comes before it. */
  earlier: boolean;
  /** Assistant replies after it. */
  since: number;
}

const exchanges = new TranscriptScan<Exchanges, readonly number[]>({
  start: () => ({ repairs: 0, last: -1, earlier: false, since: 0 }),
  step(scan, m, index, repairs) {
    if (m.role === "assistant") scan.since++;
    else if (m.role === "user" && !repairs.includes(index)) {
      scan.earlier ||= scan.last >= 0;
      scan.last = index;
      scan.since = 0;
    }
  },
  // A repair (un)marked on a message already read: read it afresh.
  stale: (scan, read, repairs) =>
    repairs.length < scan.repairs || repairs.slice(scan.repairs).some((i) => i < read),
});

/**
 * The turn cap of a conversation: stops before the model call that would
 * make more than `n` calls since the last user message (`max_turns_exceeded`).
 *
 * @example
 * ```ts
 * import { isTurnCapReached } from "./follow_up.ts";
 * import { newRun } from "./state.ts";
 * const s = newRun("x"); s.turns = 3;
 * console.log(isTurnCapReached(3)(s) !== false); // true
 * ```
 */
export function isTurnCapReached(n: number): StopCondition {
  checkNonNegative("isTurnCapReached(n)", n, true);
  return (s) => {
    const since = turnsSinceLastMessage(s);
    if (since < n) return false;
    const what = since === s.turns ? "turns used" : "turns since the last message used";
    return exit.maxTurns(`turn cap reached: ${since} of ${n} ${what}`);
  };
}

/**
 * Traces the follow-up a run starts with (`user_message`): when its last
 * message is a person's, after a reply, and no call for it was recorded yet.
 * The event rides in the run's next save (KvRunStore), so a crash keeps both
 * or neither and a resume announces it once.
 */
export async function announceFollowUp(ctx: RunContext): Promise<void> {
  const { state } = ctx;
  const index = state.messages.length - 1;
  const last = state.messages[index];
  if (last?.role !== "user" || state.modelCall || state.outputRepairs?.includes(index)) return;
  if (!state.messages.some((m) => m.role === "assistant")) return; // the task, not a follow-up
  await ctx.emit({
    type: "user_message",
    runId: state.runId,
    index,
    turns: state.turns,
    content: last.content,
  });
}
