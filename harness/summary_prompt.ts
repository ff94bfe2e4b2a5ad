/**
 * The fixed prompt of a summary call, and the text it summarizes: the
 * earlier summary, then one line per message of the turns being replaced.
 * Every summary call of every run sends this system prompt, word for word.
 *
 * @module
 */
import type { ChatMessage } from "./messages.ts";

/**
 * The system prompt of every summary call (documented, fixed: a summary is
 * reproducible, and a stateless test model can recognise the request).
 */
export const SUMMARY_PROMPT: string =
  "You compact the context of an agent run. Summarize the conversation below for the agent " +
  "that will continue the task without seeing it again. Keep, stated exactly: every fact " +
  "found in tool results that may matter later (names, numbers, paths, errors), the user's " +
  "instructions and constraints, what has been done and what is left to do. Say how many " +
  "times a repeated call was made instead of repeating it. If an earlier summary is given, " +
  "fold it in. Write plain text, as short as the facts allow. Do not call tools.";

/** Longest line kept per message in the text to summarize. */
const MAX_LINE_CHARS = 20_000;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_LINE_CHARS ? `${flat.slice(0, MAX_LINE_CHARS)}…` : flat;
}

/** One line per message: `[user] …`, `[assistant] …`, `[call ID] name ARGS`, `[result ID] …`. */
function lines(m: ChatMessage): string[] {
  switch (m.role) {
    case "system":
    case "user":
      return [`[${m.role}] ${oneLine(m.content)}`];
    case "assistant": {
      const out = m.content ? [`[assistant] ${oneLine(m.content)}`] : [];
      for (const c of m.tool_calls ?? []) {
        out.push(`[call ${c.id}] ${c.function.name} ${oneLine(c.function.arguments)}`);
      }
      return out;
    }
    case "tool":
      return [`[result ${m.tool_call_id}] ${oneLine(m.content)}`];
  }
}

/**
 * The two messages of a summary call: {@link SUMMARY_PROMPT}, then the
 * earlier summary (if any) and the messages to fold in, one line each.
 *
 * @example
 * ```ts
 * import { summaryRequest } from "./summary_prompt.ts";
 * const [, user] = summaryRequest(null, [{ role: "user", content: "hi" }]);
 * console.log(user.content); // "[conversation]\n[user] hi"
 * ```
 */
export function summaryRequest(
  earlier: string | null,
  messages: readonly ChatMessage[],
): [ChatMessage, ChatMessage] {
  const parts: string[] = [];
  if (earlier !== null) parts.push("[earlier summary]", earlier.trim());
  parts.push("[conversation]", ...messages.flatMap(lines));
  return [{ role: "system", content: SUMMARY_PROMPT }, { role: "user", content: parts.join("\n") }];
}
