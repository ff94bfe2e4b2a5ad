/**
 * The scripted provider's summarizer: a deterministic answer to reins's
 * summary call (recognised by its fixed system prompt, `SUMMARY_PROMPT`), so
 * tests can show exactly what survives a compaction.
 *
 * The summary keeps, per distinct tool call (name and arguments), how many
 * times it was made, the first line of its latest result and every line of
 * any of its results that says `ERROR` (a summary keeps the errors); and each
 * user message of the summarized turns. An earlier summary is folded in. Any
 * other detail is lost, as in a real summary.
 *
 * @module
 */
import type { ChatMessage } from "../harness/messages.ts";
import { SUMMARY_PROMPT } from "../harness/summary_prompt.ts";

/**
 * Whether a chat request is reins's summary call.
 *
 * @example
 * ```ts
 * import { isSummaryRequest } from "./scripted_summarizer.ts";
 * console.log(isSummaryRequest([{ role: "user", content: "hi" }])); // false
 * ```
 */
export function isSummaryRequest(messages: readonly ChatMessage[]): boolean {
  const first = messages[0];
  return first?.role === "system" && first.content === SUMMARY_PROMPT;
}

interface Fact {
  count: number;
  first: string;
  errors: string[];
}

const MAX_LINE = 200;
const cut = (s: string) => (s.length > MAX_LINE ? `${s.slice(0, MAX_LINE)}…` : s);

/** Folds one bullet of an earlier summary back into the facts. */
function foldBullet(facts: Map<string, Fact>, users: string[], line: string): void {
  const [, user] = /^- user: (.*)$/.exec(line) ?? [];
  if (user !== undefined) return void users.push(user);
  const [, key, count, first] = /^- (.+?) \((\d+)x\): (.*)$/.exec(line) ?? [];
  if (key !== undefined && first !== undefined) {
    facts.set(key, { count: Number(count), first, errors: [] });
  }
  const [, error] = /^ {2}! (.*)$/.exec(line) ?? [];
  const last = [...facts.values()].at(-1);
  if (error !== undefined && last) last.errors.push(error);
}

/** Adds one result of call `key` (its text flattened to one line by reins). */
function addResult(facts: Map<string, Fact>, key: string, text: string): void {
  const f = facts.get(key) ?? { count: 0, first: "", errors: [] };
  f.count++;
  // reins flattens a result to one line: split it again at each timestamped log line.
  const lines = text.split(/ (?=\d{4}-\d{2}-\d{2}T)/);
  f.first = cut(lines[0] ?? "");
  for (const l of lines) {
    if (/\bERROR\b/.test(l) && !f.errors.includes(cut(l))) f.errors.push(cut(l));
  }
  facts.delete(key);
  facts.set(key, f);
}

/**
 * The summary of a summary request's text (see the module doc).
 *
 * @example
 * ```ts
 * import { scriptedSummary } from "./scripted_summarizer.ts";
 * const text = "[conversation]\n[call c1] list_files {}\n[result c1] a.log (3 bytes)";
 * console.log(scriptedSummary(text)); // "Facts so far:\n- list_files {} (1x): a.log (3 bytes)"
 * ```
 */
export function scriptedSummary(text: string): string {
  const facts = new Map<string, Fact>();
  const users: string[] = [];
  const calls = new Map<string, string>();
  let section = "";
  for (const line of text.split("\n")) {
    if (line === "[earlier summary]" || line === "[conversation]") {
      section = line;
      continue;
    }
    if (section === "[earlier summary]") foldBullet(facts, users, line);
    const m = /^\[(user|call|result)(?: ([^\]]+))?\] (.*)$/.exec(line);
    if (section !== "[conversation]" || !m) continue;
    // An id-less call and its result still pair up, under "".
    const [, kind, id = "", body = ""] = m;
    if (kind === "user") users.push(cut(body));
    else if (kind === "call") calls.set(id, body);
    else addResult(facts, calls.get(id) ?? "a call", body);
  }
  const out = ["Facts so far:", ...users.map((u) => `- user: ${u}`)];
  for (const [key, f] of facts) {
    out.push(`- ${key} (${f.count}x): ${f.first}`, ...f.errors.map((e) => `  ! ${e}`));
  }
  return out.join("\n");
}
