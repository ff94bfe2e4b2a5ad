/**
 * The scripted model's scenarios. A reply is a pure function of the request: the
 * turn index (how many assistant messages it holds), the `tool` messages'
 * texts, and the messages themselves. Nothing is remembered between requests,
 * so a resumed run gets exactly the replies an uninterrupted one would.
 *
 * To add a scenario, add a function to {@linkcode SCENARIOS} (or pass
 * `scenarios` to `createScriptedProvider`); the model name selects it.
 *
 * @module
 */
import { z } from "zod";
import type { ChatMessage } from "../harness/messages.ts";
import { summarizedTurnsOf } from "../harness/context_view.ts";
import { type OutputSchema, REPAIR_PREFIX } from "../harness/output.ts";

/** What a scenario sees of a request. */
export interface ScenarioInput {
  /**
   * The model turns the request stands for: its assistant messages, plus the
   * turns a compaction summary in it covers (0 for the first call of a run).
   */
  turn: number;
  /** The `tool` messages' contents, in transcript order. */
  toolTexts: readonly string[];
  /** The full request transcript. */
  messages: readonly ChatMessage[];
}

/** One tool call a scenario asks for; `args` is sent JSON-encoded. */
export interface ScriptedToolCall {
  /** Deterministic in the turn, e.g. `call_2_0`, so a resumed run sees the same ids. */
  id: string;
  /** The tool's name. */
  name: string;
  /** The arguments (sent as `JSON.stringify(args)`). */
  args: Record<string, unknown>;
}

/** A scenario's reply: prose, tool calls, or both. */
export interface ScriptedReply {
  /** The reply's text, or `null` for tool calls only. */
  content: string | null;
  /** The tool calls, if any. */
  tool_calls?: ScriptedToolCall[] | undefined;
}

/**
 * A scripted model: a pure function from the request to the reply.
 *
 * @example
 * ```ts
 * import type { Scenario } from "./scenarios.ts";
 * const hello: Scenario = ({ turn }) => ({ content: `hello from turn ${turn}` });
 * console.log(hello({ turn: 0, toolTexts: [], messages: [] }).content);
 * ```
 */
export type Scenario = (input: ScenarioInput) => ScriptedReply;

/**
 * The id of the `index`-th call of turn `turn`: `call_<turn>_<index>`.
 *
 * @example
 * ```ts
 * import { callId } from "./scenarios.ts";
 * console.log(callId(1, 0)); // "call_1_0"
 * ```
 */
export function callId(turn: number, index = 0): string {
  return `call_${turn}_${index}`;
}

/**
 * A reply that makes one tool call (id from {@linkcode callId}).
 *
 * @example
 * ```ts
 * import { callTool } from "./scenarios.ts";
 * console.log(callTool(0, "read_file", { path: "errors.log" }).tool_calls?.[0].id); // "call_0_0"
 * ```
 */
export function callTool(
  turn: number,
  name: string,
  args: Record<string, unknown> = {},
): ScriptedReply {
  return { content: null, tool_calls: [{ id: callId(turn), name, args }] };
}

/**
 * A reply with text only.
 *
 * @example
 * ```ts
 * import { say } from "./scenarios.ts";
 * console.log(say("done").content); // "done"
 * ```
 */
export function say(content: string): ScriptedReply {
  return { content };
}

/** The text of `plan`'s final answer. */
export const PLAN_ANSWER = "errors.log mentions a timeout: worker 7 timed out after 30000 ms.";
/** The short answer of `recover` and `repeat`. */
export const TIMEOUT_ANSWER = "errors.log mentions a timeout.";
/** `recover`'s answer when the tool error gave no hint. */
export const GIVE_UP_ANSWER = "I could not read the file, so I do not know.";
/** `destructive`'s answer when the deletion was declined. */
export const DECLINED_ANSWER = "I did not delete anything: you declined the deletion.";
/** `destructive`'s answer when the deletion ran. */
export const DELETED_ANSWER = "Deleted access.log to free space.";
/** `destructive-twice`'s answer. */
export const DELETED_TWICE_ANSWER = "Deleted access.log twice.";
/** The prefix of `slow`'s answer, followed by the first line of the tool's output. */
export const SCANNED_PREFIX = "Scanned the archive: ";

/** The output schema of the `extract` scenarios: where the timeout is. */
export const TIMEOUT_LOCATION: OutputSchema<{ file: string; line: number }> = z.object({
  file: z.string().min(1),
  line: z.number().int().positive(),
});
/** The `extract` scenarios' valid answer (errors.log's timeout is on its 12th line). */
export const LOCATION_ANSWER = '{"file":"errors.log","line":12}';
/** Their answer with a wrong type (`line` a string). */
export const WRONG_TYPE_ANSWER = '{"file":"errors.log","line":"12"}';
/** Their answer that is not JSON at all. */
export const PROSE_ANSWER = "The timeout is in errors.log, on line 12.";

/** Repair prompts in the transcript so far (user messages or tool results). */
function repairsAsked(messages: readonly ChatMessage[]): number {
  return messages.filter((m) =>
    (m.role === "user" || m.role === "tool") && m.content.startsWith(REPAIR_PREFIX)
  ).length;
}

function firstLine(text: string | undefined): string {
  const line = (text ?? "").split("\n").map((l) => l.trim()).find((l) => l.length > 0);
  return line ?? "(no output)";
}

function lastUserText(messages: readonly ChatMessage[]): string {
  const m = messages.findLast((m) => m.role === "user");
  return m?.role === "user" ? m.content ?? "" : "";
}

/** Turns `recall` reads logs before it answers. */
export const RECALL_TURNS = 16;
/** `recall`'s answer when the fact it read first is gone from its prompt. */
export const RECALL_LOST_ANSWER =
  "I read errors.log first, but what it said is no longer in my context.";

const TIMEOUT_FACT = /worker 7 timed out after 30000 ms/;

/**
 * `recall`: the fact is in the first tool result, the answer needs it many
 * turns later. read_file errors.log, then {@linkcode RECALL_TURNS} - 1 turns of
 * read_file access.log / list_files, then {@linkcode PLAN_ANSWER} if the
 * prompt still shows the timeout line (a result, or a summary that kept it);
 * else read errors.log again if a stub (or a summary of one) says it was elided; else
 * {@linkcode RECALL_LOST_ANSWER}.
 */
function recall({ turn, messages }: ScenarioInput): ScriptedReply {
  if (turn === 0) return callTool(turn, "read_file", { path: "errors.log" });
  if (turn < RECALL_TURNS) {
    return turn % 2
      ? callTool(turn, "read_file", { path: "access.log" })
      : callTool(turn, "list_files");
  }
  const texts = messages.map((m) => m.content ?? "");
  if (texts.some((t) => TIMEOUT_FACT.test(t))) return say(PLAN_ANSWER);
  if (texts.some((t) => /\[result elided[^\]]*"errors\.log"/.test(t))) {
    return callTool(turn, "read_file", { path: "errors.log" });
  }
  return say(RECALL_LOST_ANSWER);
}

/**
 * Every built-in scenario by name. A plain record: add entries freely.
 *
 * - `plan`: list_files, read_file errors.log, then {@linkcode PLAN_ANSWER}.
 * - `runaway`: list_files every turn, never answers.
 * - `recover`: read_file timeout.log; if a tool text says "Call list_files",
 *   list_files, read_file errors.log, {@linkcode TIMEOUT_ANSWER}; else {@linkcode GIVE_UP_ANSWER}.
 * - `repeat`: read_file errors.log twice (new call id), then {@linkcode TIMEOUT_ANSWER}.
 * - `destructive`: list_files, delete_file access.log, then {@linkcode DECLINED_ANSWER} if
 *   the last tool text says declined/rejected/denied, else {@linkcode DELETED_ANSWER}.
 * - `destructive-twice`: delete_file access.log twice, then {@linkcode DELETED_TWICE_ANSWER}.
 * - `forbidden`: read_file /etc/shadow every turn, never answers.
 * - `slow`: scan_archive, then {@linkcode SCANNED_PREFIX} + the output's first line.
 * - `echo`: answers the last user message verbatim.
 * - `recall`: a long run whose answer needs its first tool result (see {@linkcode recall}).
 * - `extract`: read_file errors.log, then {@linkcode WRONG_TYPE_ANSWER}; after a repair
 *   prompt, {@linkcode LOCATION_ANSWER} (for the output schema {@linkcode TIMEOUT_LOCATION}).
 * - `extract-twice`: {@linkcode PROSE_ANSWER}, then {@linkcode WRONG_TYPE_ANSWER}, then
 *   {@linkcode LOCATION_ANSWER}: one answer per repair prompt.
 * - `extract-never`: {@linkcode WRONG_TYPE_ANSWER}, whatever it is told.
 *
 * @example
 * ```ts
 * import { SCENARIOS } from "./scenarios.ts";
 * const reply = SCENARIOS.plan({ turn: 0, toolTexts: [], messages: [] });
 * console.log(reply.tool_calls?.[0].name); // "list_files"
 * ```
 */
export const SCENARIOS: Record<string, Scenario> = {
  plan: ({ turn }) => {
    if (turn === 0) return callTool(turn, "list_files");
    if (turn === 1) return callTool(turn, "read_file", { path: "errors.log" });
    return say(PLAN_ANSWER);
  },
  runaway: ({ turn }) => callTool(turn, "list_files"),
  recover: ({ turn, toolTexts }) => {
    if (turn === 0) return callTool(turn, "read_file", { path: "timeout.log" });
    if (!toolTexts.some((t) => /Call list_files/.test(t))) return say(GIVE_UP_ANSWER);
    if (turn === 1) return callTool(turn, "list_files");
    if (turn === 2) return callTool(turn, "read_file", { path: "errors.log" });
    return say(TIMEOUT_ANSWER);
  },
  repeat: ({ turn }) => {
    if (turn <= 1) return callTool(turn, "read_file", { path: "errors.log" });
    return say(TIMEOUT_ANSWER);
  },
  destructive: ({ turn, toolTexts }) => {
    if (turn === 0) return callTool(turn, "list_files");
    if (turn === 1) return callTool(turn, "delete_file", { path: "access.log" });
    const last = toolTexts.at(-1) ?? "";
    return say(/declined|rejected|denied/i.test(last) ? DECLINED_ANSWER : DELETED_ANSWER);
  },
  "destructive-twice": ({ turn }) => {
    if (turn <= 1) return callTool(turn, "delete_file", { path: "access.log" });
    return say(DELETED_TWICE_ANSWER);
  },
  forbidden: ({ turn }) => callTool(turn, "read_file", { path: "/etc/shadow" }),
  slow: ({ turn, toolTexts }) => {
    if (turn === 0) return callTool(turn, "scan_archive");
    return say(SCANNED_PREFIX + firstLine(toolTexts.at(-1)));
  },
  echo: ({ messages }) => say(lastUserText(messages)),
  recall,
  extract: ({ turn, messages }) => {
    if (turn === 0) return callTool(turn, "read_file", { path: "errors.log" });
    return say(repairsAsked(messages) === 0 ? WRONG_TYPE_ANSWER : LOCATION_ANSWER);
  },
  "extract-twice": ({ messages }) => {
    return say([PROSE_ANSWER, WRONG_TYPE_ANSWER][repairsAsked(messages)] ?? LOCATION_ANSWER);
  },
  "extract-never": () => say(WRONG_TYPE_ANSWER),
};

/**
 * The names of the built-in scenarios (the provider's model names), sorted.
 *
 * @example
 * ```ts
 * import { scenarioNames } from "./scenarios.ts";
 * console.log(scenarioNames().includes("plan")); // true
 * ```
 */
export function scenarioNames(): string[] {
  return Object.keys(SCENARIOS).sort();
}

/**
 * Builds a scenario's input from a request transcript.
 *
 * @example
 * ```ts
 * import { scenarioInput } from "./scenarios.ts";
 * const input = scenarioInput([{ role: "user", content: "hi" }]);
 * console.log(input.turn); // 0
 * ```
 */
export function scenarioInput(messages: readonly ChatMessage[]): ScenarioInput {
  let turn = 0;
  const toolTexts: string[] = [];
  for (const m of messages) {
    if (m.role === "assistant") turn++;
    else if (m.role === "tool") toolTexts.push(m.content);
    else if (m.role === "user") turn += summarizedTurnsOf(m.content);
  }
  return { turn, toolTexts, messages };
}
