/**
 * The loop's side of typed output: how a run with `output` asks for its
 * answer, judges it, and repairs it. A model that declares
 * `structuredOutput: "json_schema"` gets the schema with each request (as
 * OpenAI's `response_format`); any other model gets a `final_answer` tool
 * whose arguments are the answer (the documented fallback). Either way a
 * plain-text answer that is JSON passing the schema is accepted.
 *
 * An invalid answer gets a repair turn: the issues, in words, as the next
 * message (the `final_answer` call's result, or a user message), then an
 * ordinary model turn, under `maxTurns` and the budget. A refusal (a reply
 * ending `content_filter`) that fails the schema is not repaired: the run
 * fails with its words.
 *
 * @module
 */
import type { ToolCall, ToolDefinition } from "./messages.ts";
import type { RunOptions } from "./run_options.ts";
import type { OutputPlan, RunContext } from "./run_context.ts";
import { type JsonValue, pending, type RunState } from "./state.ts";
import { RunStateError } from "./errors.ts";
import { type Exit, exit } from "./exit.ts";
import {
  adaptOutput,
  type AnswerCheck,
  checkAnswer,
  checkValue,
  type OutputIssue,
  type OutputSchema,
  repairText,
} from "./output.ts";
import { z } from "zod";
import { computeCost, pricesFor } from "./cost.ts";
import { countPromptTokens, countTokens, loadTokenizer } from "./tokens.ts";

/** The name of the fallback tool a model without `json_schema` support answers with. */
export const FINAL_ANSWER_TOOL = "final_answer";

/** The result written for a `final_answer` call whose arguments pass the schema. */
export const ANSWER_ACCEPTED = "Accepted.";

/** Default of `maxOutputRepairs`. */
export const DEFAULT_OUTPUT_REPAIRS = 2;

export type { OutputPlan };

/** An answer to judge: its raw text, and the `final_answer` calls it came in (if any). */
interface Answer {
  raw: string;
  calls: ToolCall[];
}

/**
 * The run's output plan, or null for a run without an output schema. The
 * schema given validates (its JSON Schema is stored in the state); a run
 * stored with one and continued without (a process that does not know it)
 * is validated by the stored JSON Schema, so it neither loses its schema
 * nor waits for one forever.
 */
export function planOutput(state: RunState, options: RunOptions): OutputPlan | null {
  const maxRepairs = options.maxOutputRepairs ?? DEFAULT_OUTPUT_REPAIRS;
  if (!Number.isInteger(maxRepairs) || maxRepairs < 0) {
    throw new RangeError(`maxOutputRepairs must be a non-negative integer, got ${maxRepairs}`);
  }
  const schema = options.output ?? storedSchema(state);
  if (schema === null) return null;
  const { check, format } = adaptOutput(schema);
  const mode = options.model.structuredOutput === "json_schema" ? "json_schema" : "tool";
  if (mode === "tool" && options.tools?.some((t) => t.name === FINAL_ANSWER_TOOL)) {
    throw new TypeError(
      `run(state, options): a tool is named "${FINAL_ANSWER_TOOL}", the name the output ` +
        `schema's answer tool takes for this model`,
    );
  }
  state.outputSchema = format.valueSchema;
  return { check, format, mode, maxRepairs };
}

/** The schema a run was stored with, rebuilt from its JSON Schema (null: none stored). */
function storedSchema(state: RunState): OutputSchema | null {
  if (state.outputSchema === undefined) return null;
  try {
    return z.fromJSONSchema(state.outputSchema as never);
  } catch (e) {
    throw new RunStateError(
      state.runId,
      state.status,
      "resume",
      `its stored output schema cannot be rebuilt (${(e as Error).message}); pass \`output\``,
    );
  }
}

/** The `final_answer` tool's definition, for a plan in `tool` mode (else none). */
export function answerTools(plan: OutputPlan | null): ToolDefinition[] {
  if (plan?.mode !== "tool") return [];
  return [{
    type: "function",
    function: {
      name: FINAL_ANSWER_TOOL,
      description: "Give your final answer. Call it once, when you are done; its arguments " +
        "are the answer and must match the schema.",
      parameters: plan.format.schema,
    },
  }];
}

/** The pending calls the tools run: all of them but `final_answer`'s (the answer). */
export function toolCallsToRun(state: RunState, plan: OutputPlan | null): ToolCall[] {
  const calls = pending(state);
  return plan?.mode === "tool" ? calls.filter((c) => !isAnswerCall(c)) : calls;
}

function isAnswerCall(call: ToolCall): boolean {
  return call.function.name === FINAL_ANSWER_TOOL;
}

/**
 * The answer the transcript ends with, if any: a text reply, or (`calls`: the
 * run answers by calling `final_answer`) a pending `final_answer` call.
 */
function answerOf(state: RunState, calls: boolean): Answer | null {
  const last = state.messages.at(-1);
  if (last?.role === "assistant" && !last.tool_calls?.length) {
    return { raw: last.content ?? "", calls: [] };
  }
  if (!calls) return null;
  const answers = pending(state).filter(isAnswerCall);
  return answers.length ? { raw: answers.at(-1)!.function.arguments, calls: answers } : null;
}

/**
 * The answer a stored run ends with that was not judged yet, in words (its
 * `final_answer` call without a result, or its final reply while the run may
 * still go on), or null. Such an answer was written for the output schema the
 * run was asked with: judged against another, it could pass with another meaning.
 *
 * @example
 * ```ts
 * import { unjudgedAnswer } from "./output_turn.ts";
 * import { newRun } from "./state.ts";
 * const s = newRun("Where is the timeout?");
 * s.messages.push({ role: "assistant", content: '{"file":"a.log"}' });
 * console.log(unjudgedAnswer(s)); // its final reply
 * ```
 */
export function unjudgedAnswer(state: RunState): string | null {
  if (state.status === "completed" || state.status === "failed") return null;
  // Either kind: how the run was asked to answer is not known here.
  const call = answerOf(state, true)?.calls[0];
  if (call) return `its pending ${FINAL_ANSWER_TOOL} call ${call.id}`;
  return answerOf(state, false) ? "its final reply" : null;
}

/**
 * When the transcript ends with an answer: the run's exit (the answer is
 * accepted, or no repair is left), or `repair` after a repair prompt was
 * added (the loop then asks the model again, limits first). Null, at once,
 * when there is no answer yet.
 */
export function judgeAnswer(
  ctx: RunContext,
  plan: OutputPlan | null,
): Promise<Exit | "repair" | null> | null {
  // Asked before every model call, mostly with no answer yet: nothing to wait for then.
  const answer = answerOf(ctx.state, plan?.mode === "tool");
  return answer ? judgeFound(ctx, plan, answer) : null;
}

async function judgeFound(
  ctx: RunContext,
  plan: OutputPlan | null,
  answer: Answer,
): Promise<Exit | "repair" | null> {
  const { state } = ctx;
  if (!plan) {
    state.output = answer.raw;
    return exit.completed("the model answered");
  }
  const check = judge(answer, plan);
  if (check.ok) {
    answerCalls(state, answer, ANSWER_ACCEPTED);
    state.output = check.value as JsonValue;
    return exit.completed("the model answered; the answer passes the output schema");
  }
  // A refusal (or a filtered reply) is no answer to repair: asked again, the model
  // refuses again, at the price of a turn (a filter, too, cuts the same words).
  if (ctx.lastFinish === "content_filter" && !answer.calls.length) return exit.refusal(answer.raw);
  const used = repairsUsed(state);
  const left = used < plan.maxRepairs;
  await ctx.emit({
    type: "output_invalid",
    runId: state.runId,
    turn: state.turns,
    issues: check.issues,
    repair: left ? used + 1 : null,
  });
  if (!left) return exit.invalidOutput(answer.raw, check.issues, used);
  const text = repairText(check.issues);
  const refused = await unaffordableRepair(ctx, answer.raw, text);
  if (refused) return refused;
  addRepair(state, answer, text);
  return "repair";
}

function judge(answer: Answer, plan: OutputPlan): AnswerCheck<unknown> {
  if (!answer.calls.length) return checkAnswer(answer.raw, plan.check, plan.format);
  let args: unknown;
  try {
    args = JSON.parse(answer.raw);
  } catch (e) {
    const message = `the ${FINAL_ANSWER_TOOL} arguments are not JSON: ${(e as Error).message}`;
    return { ok: false, issues: [{ path: "(root)", message }] };
  }
  return checkValue(args, plan.check, plan.format);
}

/**
 * Writes `text` as the result of the answer's last `final_answer` call (the
 * one judged), and says the earlier calls of the reply were not judged.
 */
function answerCalls(state: RunState, answer: Answer, text: string): void {
  const last = answer.calls.length - 1;
  answer.calls.forEach((call, i) => {
    state.messages.push({
      role: "tool",
      tool_call_id: call.id,
      name: call.function.name,
      // Only the last call of a reply is the answer: the earlier ones were not judged.
      content: i === last ? text : SUPERSEDED,
    });
  });
}

/** The result of a `final_answer` call a later one in the same reply replaced. */
const SUPERSEDED = "Not judged: a later final_answer call in this reply is the answer.";

/** Adds the repair prompt: as the `final_answer` call's result, or as a user message. */
function addRepair(state: RunState, answer: Answer, text: string): void {
  if (answer.calls.length) answerCalls(state, answer, text);
  else state.messages.push({ role: "user", content: text });
  (state.outputRepairs ??= []).push(state.messages.length - 1);
}

/** Repairs since the last message that was not one (the task, or a later one). */
export function repairsUsed(state: Pick<RunState, "messages" | "outputRepairs">): number {
  const repairs = new Set(state.outputRepairs ?? []);
  let used = 0;
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const role = state.messages[i]!.role;
    if (repairs.has(i)) used++;
    else if (role === "user" || role === "system") break;
  }
  return used;
}

/**
 * In hard budget mode a repair starts only when the budget can pay for it:
 * the prompt so far plus the repair, and a reply as long as the invalid one.
 */
async function unaffordableRepair(
  ctx: RunContext,
  raw: string,
  text: string,
): Promise<Exit | null> {
  if (ctx.options.budgetMode !== "hard") return null;
  await loadTokenizer();
  const { state, options } = ctx;
  const prices = pricesFor(options.prices ?? options.model.prices, options.model.name);
  const prompt = (ctx.lastPromptTokens ?? countPromptTokens(ctx.window.messages(state), [])) +
    countTokens(raw) + countTokens(text) + 16;
  const usd = computeCost({ prompt_tokens: prompt, completion_tokens: countTokens(raw) }, prices);
  const left = ctx.remainingUsd();
  if (usd <= left) return null;
  return exit.budget(
    `budget spent: a repair of the output would cost about $${usd.toFixed(6)} and ` +
      `$${Math.max(0, left).toFixed(6)} is left (hard budget, not started)`,
  );
}

/**
 * A stop condition's verdict while a repair is pending: `completed` would
 * end the run without a valid answer, so it is the `invalid_output` failure.
 */
export function verdictDuringRepair(state: RunState, verdict: Exit): Exit {
  const at = state.messages.length - 1;
  if (verdict.status !== "completed" || !state.outputRepairs?.includes(at)) return verdict;
  const raw = lastRaw(state, at);
  return exit.invalidOutput(
    raw,
    repairIssues(state.messages[at]?.content ?? ""),
    repairsUsed(state),
  );
}

function lastRaw(state: RunState, repairAt: number): string {
  // The reply the repair answered: its last final_answer call is what was judged, else its text.
  const m = state.messages.findLast((x, i) => i < repairAt && x.role === "assistant");
  if (m?.role !== "assistant") return "";
  return m.tool_calls?.filter(isAnswerCall).at(-1)?.function.arguments ?? m.content ?? "";
}

/** The issues a repair prompt lists, read back from its lines. */
function repairIssues(text: string): OutputIssue[] {
  return [...text.matchAll(/^- at (\S+): (.*)$/gm)].map((m) => ({
    path: m[1] ?? "",
    message: m[2] ?? "",
  }));
}
