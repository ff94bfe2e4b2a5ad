/**
 * Scripted scenarios for run trees (subagents). A child run uses the same
 * model name as its parent, so each scenario tells the runs apart by the
 * transcript: a run whose first user message is one of the scenario's
 * research questions plays that question's child; any other run is the root.
 * Like every scenario, a reply is a pure function of the request.
 *
 * @module
 */
import type { ChatMessage } from "../harness/messages.ts";
import {
  callId,
  callTool,
  DECLINED_ANSWER,
  DELETED_ANSWER,
  PLAN_ANSWER,
  say,
  SCANNED_PREFIX,
  type Scenario,
  type ScriptedReply,
} from "./scenarios.ts";

/** The question `research` and `research-deep` ask about timeouts (answered like `plan`). */
export const TIMEOUT_QUESTION = "Which file mentions a timeout?";
/** `research`'s second question (list, read notes.txt, answer). */
export const NOTES_QUESTION = "What do the on-call notes say about the db pool?";
/** The question whose child never finishes (`research-runaway`). */
export const RUNAWAY_QUESTION = "List the workspace until every file is accounted for.";
/** The questions whose children run `scan_archive` (`research-slow`, `research-deep-slow`). */
export const SCAN_QUESTIONS: readonly string[] = [
  "Scan the archive for timeouts.",
  "Scan the archive again to confirm.",
];
/** A second never-finishing question (`research-runaway-pair`). */
export const RUNAWAY_QUESTION_2 = "Keep listing the workspace, again and again.";
/** The question whose child researches {@linkcode TIMEOUT_QUESTION} itself (`research-deep`). */
export const DEEP_QUESTION = "Dig deeper: which file mentions a timeout, and why?";
/** The question whose child researches both {@linkcode SCAN_QUESTIONS} (`research-deep-slow`). */
export const DEEP_SLOW_QUESTION = "Dig deeper into the archive.";
/** The question whose child deletes access.log, which needs approval (`research-approval`). */
export const CLEANUP_QUESTION = "Free some space: delete access.log.";
/** The prefix of a root's final answer, followed by its tool texts joined by " | ". */
export const SUMMARY_PREFIX = "Research found: ";
/** The prefix of a middle agent's answer, followed by its tool texts joined by " | ". */
export const DEEPER_PREFIX = "Deeper finding: ";

function firstUserText(messages: readonly ChatMessage[]): string {
  const m = messages.find((m) => m.role === "user");
  return m?.role === "user" ? m.content : "";
}

function firstLine(text: string | undefined): string {
  return (text ?? "").split("\n").map((l) => l.trim()).find((l) => l) ?? "(no output)";
}

/** One reply asking `research` each question, call ids `call_<turn>_<i>`. */
function askResearch(turn: number, questions: readonly string[]): ScriptedReply {
  return {
    content: null,
    tool_calls: questions.map((question, i) => ({
      id: callId(turn, i),
      name: "research",
      args: { question },
    })),
  };
}

/** Asks the questions on turn 0, then answers `prefix` + the tool texts. */
function asker(questions: readonly string[], prefix = SUMMARY_PREFIX): Scenario {
  return ({ turn, toolTexts }) =>
    turn === 0 ? askResearch(turn, questions) : say(prefix + toolTexts.join(" | "));
}

/** Dispatches on the run's first user message: a known question plays its child. */
function tree(root: Scenario, children: Record<string, Scenario>): Scenario {
  return (input) => {
    const q = firstUserText(input.messages);
    return (Object.hasOwn(children, q) ? children[q]! : root)(input);
  };
}

const timeoutChild: Scenario = ({ turn }) => {
  if (turn === 0) return callTool(turn, "list_files");
  if (turn === 1) return callTool(turn, "read_file", { path: "errors.log" });
  return say(PLAN_ANSWER);
};

const notesChild: Scenario = ({ turn, toolTexts }) => {
  if (turn === 0) return callTool(turn, "list_files");
  if (turn === 1) return callTool(turn, "read_file", { path: "notes.txt" });
  const line = (toolTexts.at(-1) ?? "").split("\n").find((l) => /db pool/.test(l));
  return say(line ? `notes.txt says: ${line.replace(/^-\s*/, "")}` : "I could not read the notes.");
};

const scanChild: Scenario = ({ turn, toolTexts }) =>
  turn === 0 ? callTool(turn, "scan_archive") : say(SCANNED_PREFIX + firstLine(toolTexts.at(-1)));

const cleanupChild: Scenario = ({ turn, toolTexts }) => {
  if (turn === 0) return callTool(turn, "list_files");
  if (turn === 1) return callTool(turn, "delete_file", { path: "access.log" });
  return say(
    /declined|rejected|denied/i.test(toolTexts.at(-1) ?? "") ? DECLINED_ANSWER : DELETED_ANSWER,
  );
};

const scanChildren = Object.fromEntries(SCAN_QUESTIONS.map((q) => [q, scanChild]));

/**
 * The tree scenarios by name (merge them into `SCENARIOS`, or pass them as the
 * provider's `scenarios`). The tools a run needs are named in each entry; a
 * `research` tool must be among the root's tools (and the middle agent's, for
 * the deep ones).
 *
 * - `research`: the root asks `research` two questions in one turn
 *   ({@linkcode TIMEOUT_QUESTION}, {@linkcode NOTES_QUESTION}); each child lists,
 *   reads a file and answers; the root answers {@linkcode SUMMARY_PREFIX} + the answers.
 * - `research-runaway`: one question whose child calls list_files forever; the
 *   root answers with the child's stop sentence.
 * - `research-slow`: two questions whose children run scan_archive.
 * - `research-deep`: depth 3: the child of {@linkcode DEEP_QUESTION} asks
 *   `research` {@linkcode TIMEOUT_QUESTION} and answers {@linkcode DEEPER_PREFIX} + it.
 * - `research-deep-slow`: depth 3 with two leaves that run scan_archive.
 * - `research-approval`: the child lists, then deletes access.log (needs
 *   approval) and answers like `destructive`.
 *
 * @example
 * ```ts
 * import { TREE_SCENARIOS } from "./tree_scenarios.ts";
 * const reply = TREE_SCENARIOS.research({ turn: 0, toolTexts: [], messages: [] });
 * console.log(reply.tool_calls?.map((c) => c.name)); // ["research", "research"]
 * ```
 */
export const TREE_SCENARIOS: Record<string, Scenario> = {
  research: tree(asker([TIMEOUT_QUESTION, NOTES_QUESTION]), {
    [TIMEOUT_QUESTION]: timeoutChild,
    [NOTES_QUESTION]: notesChild,
  }),
  "research-runaway": tree(
    ({ turn, toolTexts }) =>
      turn === 0
        ? askResearch(turn, [RUNAWAY_QUESTION])
        : say(`The research did not finish. ${toolTexts.at(-1) ?? ""}`.trim()),
    { [RUNAWAY_QUESTION]: ({ turn }) => callTool(turn, "list_files") },
  ),
  "research-runaway-pair": tree(
    ({ turn, toolTexts }) =>
      turn === 0
        ? askResearch(turn, [RUNAWAY_QUESTION, RUNAWAY_QUESTION_2])
        : say(`The research did not finish. ${toolTexts.join(" | ")}`.trim()),
    {
      [RUNAWAY_QUESTION]: ({ turn }) => callTool(turn, "list_files"),
      [RUNAWAY_QUESTION_2]: ({ turn }) => callTool(turn, "list_files"),
    },
  ),
  "research-slow": tree(asker(SCAN_QUESTIONS), scanChildren),
  "research-deep": tree(asker([DEEP_QUESTION]), {
    [DEEP_QUESTION]: asker([TIMEOUT_QUESTION], DEEPER_PREFIX),
    [TIMEOUT_QUESTION]: timeoutChild,
  }),
  "research-deep-slow": tree(asker([DEEP_SLOW_QUESTION]), {
    [DEEP_SLOW_QUESTION]: asker(SCAN_QUESTIONS, DEEPER_PREFIX),
    ...scanChildren,
  }),
  "research-approval": tree(asker([CLEANUP_QUESTION]), { [CLEANUP_QUESTION]: cleanupChild }),
};
