/**
 * A person's verdict on a call awaiting approval: `approve` and `reject`
 * return the state to continue with; the run itself is resumed by `run()`.
 *
 * @module
 */
import type { ToolCall } from "./messages.ts";
import { RunStateError } from "./errors.ts";
import { pending, type RunState } from "./state.ts";
import { cloneData } from "./clone_data.ts";

function awaitingCall(state: RunState, callId: string, action: string): ToolCall {
  if (typeof callId !== "string" || callId === "") {
    throw new TypeError(`${action}(state, callId): callId must be a non-empty string`);
  }
  const verb = `${action} call "${callId}" of`;
  const i = state.interruption;
  if (state.status !== "interrupted" || i?.type !== "approval") {
    throw new RunStateError(
      state.runId,
      state.status,
      verb,
      `status is ${state.status}, not awaiting a verdict`,
    );
  }
  if (i.runId && i.runId !== state.runId) {
    throw new RunStateError(
      state.runId,
      state.status,
      verb,
      `the call awaiting a verdict belongs to child run "${i.runId}"`,
    );
  }
  // One verdict per call: a second one (even the same) must not land beside the first.
  const verdict = state.approved.includes(callId)
    ? "approved"
    : state.rejected.some((r) => r.callId === callId)
    ? "rejected"
    : null;
  if (verdict) {
    throw new RunStateError(
      state.runId,
      state.status,
      verb,
      `call "${callId}" was already ${verdict}; resume the run to continue`,
    );
  }
  const call = pending(state).find((c) => c.id === callId);
  if (!call || i.callId !== callId) {
    throw new RunStateError(
      state.runId,
      state.status,
      verb,
      `the call awaiting a verdict is "${i.callId}"`,
    );
  }
  return call;
}

/**
 * Approves the call a run is waiting on. Returns a new state; `run()` it to continue.
 *
 * @example
 * ```ts
 * import { newRun } from "./state.ts";
 * import { approve } from "./verdict.ts";
 * const s = newRun("clean up");
 * s.messages.push({ role: "assistant", content: null, tool_calls: [
 *   { id: "c2", type: "function", function: { name: "delete_file", arguments: '{"path":"a"}' } },
 * ] });
 * s.status = "interrupted";
 * s.interruption = { type: "approval", callId: "c2", toolName: "delete_file", args: { path: "a" }, why: "needs_approval" };
 * console.log(approve(s, "c2").approved); // ["c2"]
 * ```
 */
export function approve(state: RunState, callId: string): RunState {
  awaitingCall(state, callId, "approve");
  const next = cloneData(state);
  next.approved.push(callId);
  return next;
}

/** The words written for a rejected call when the person gave no reason. */
export function defaultRejectionText(toolName: string): string {
  return `The user declined this ${toolName} call, so it was not run and nothing was changed. ` +
    `Do not report it as done.`;
}

/**
 * Rejects the call a run is waiting on. The rejection is written into the
 * transcript under the call's id, in words, so the model cannot report the
 * action as done. Returns a new state; `run()` it to continue.
 *
 * @example
 * ```ts
 * import { newRun } from "./state.ts";
 * import { reject } from "./verdict.ts";
 * const s = newRun("clean up");
 * s.messages.push({ role: "assistant", content: null, tool_calls: [
 *   { id: "c2", type: "function", function: { name: "delete_file", arguments: '{"path":"a"}' } },
 * ] });
 * s.status = "interrupted";
 * s.interruption = { type: "approval", callId: "c2", toolName: "delete_file", args: { path: "a" }, why: "needs_approval" };
 * console.log(reject(s, "c2", "keep the logs").messages.at(-1)?.content);
 * ```
 */
export function reject(state: RunState, callId: string, reason?: string): RunState {
  const call = awaitingCall(state, callId, "reject");
  const name = call.function.name;
  const trimmed = reason?.trim();
  // A call in flight may have acted before the crash: never claim it did nothing.
  const text = state.inFlight.includes(callId)
    ? `This ${name} call was interrupted before its result was recorded, so it may or may not ` +
      `have taken effect; the user declined to retry it${trimmed ? `: ${trimmed}` : ""}. ` +
      `Do not report it as done.`
    : trimmed
    ? `The user declined this ${name} call: ${trimmed}. It was not run and nothing was changed.`
    : defaultRejectionText(name);
  const next = cloneData(state);
  next.rejected.push({ callId, reason: text });
  next.inFlight = next.inFlight.filter((id) => id !== callId);
  next.messages.push({ role: "tool", tool_call_id: callId, name, content: text });
  return next;
}
