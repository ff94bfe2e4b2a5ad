/**
 * A run's transcript, oldest first, rendered on the server.
 *
 * @module
 */
import type { ChatMessage } from "../../harness/messages.ts";
import { clip, prettyArgs } from "./format.ts";
import { type Html, html } from "./html.ts";
import { forkButton, forkPoints } from "./conversation.ts";

/** Where the repair prompts are, and the replies that answer them (indexes). */
interface Repairs {
  prompts: ReadonlySet<number>;
  replies: ReadonlySet<number>;
}

function repairsOf(messages: readonly ChatMessage[], prompts: readonly number[]): Repairs {
  const replies = new Set<number>();
  for (const at of prompts) {
    const next = messages.findIndex((m, i) => i > at && m.role === "assistant");
    if (next >= 0) replies.add(next);
  }
  return { prompts: new Set(prompts), replies };
}

function messageBlock(m: ChatMessage, index: number, repairs: Repairs, fork: Html | ""): Html {
  if (repairs.prompts.has(index)) return repairBlock(m, fork);
  switch (m.role) {
    case "system":
      return html`
        <li class="msg system">
          <details>
            <summary><span class="role">system prompt</span></summary>
            <pre>${m.content}</pre>
          </details>
        </li>
      `;
    case "user":
      return html`<li class="msg user"><span class="role">${
        index <= 1 ? "task" : "user"
      }</span><pre>${m.content}</pre>${fork}</li>`;
    case "assistant": {
      const calls = (m.tool_calls ?? []).map((c) =>
        html`
          <div
            class="call"><span class="call-name">${c.function.name}</span> <code class="call-id">${c
              .id}</code><pre class="args">${prettyArgs(c.function.arguments)}</pre></div>
        `
      );
      const role = repairs.replies.has(index) ? "model · repair turn" : "model";
      return html`
        <li
          class="msg assistant"><span class="role">${role}</span>${m.content
            ? html`<pre>${m.content}</pre>`
            : ""}${calls}${fork}</li>
      `;
    }
    case "tool": {
      const long = m.content.length > 1500;
      const body = long
        ? html`
          <details>
            <summary>${clip(m.content, 160)}</summary>
            <pre>${m.content}</pre>
          </details>
        `
        : html`<pre>${m.content}</pre>`;
      return html`
        <li
          class="msg tool"><span class="role">result of <b>${m.name}</b> <code class="call-id">${m
            .tool_call_id}</code></span>${body}${fork}</li>
      `;
    }
  }
}

/** A repair prompt: the answer before it failed the run's output schema. */
function repairBlock(m: ChatMessage, fork: Html | ""): Html {
  return html`
    <li
      class="msg repair"><span class="role">repair: the answer failed the output schema</span><pre>${m
        .content}</pre>${fork}</li>
  `;
}

/**
 * A transcript, oldest first: the system prompt folded, the task, the model's
 * replies with their tool calls, and each tool result. The messages at
 * `repairs` (a typed run's `outputRepairs`) are shown as repair prompts, and
 * the model turns answering them as repair turns. With `forkRunId` (a root
 * run), "Fork from here" on each turn a fork can start from.
 *
 * @example
 * ```ts
 * import { renderTranscript } from "./transcript.ts";
 * console.log(String(renderTranscript([{ role: "user", content: "<b>hi</b>" }])).includes("&lt;b&gt;")); // true
 * ```
 */
export function renderTranscript(
  messages: readonly ChatMessage[],
  repairs: readonly number[] = [],
  options: { forkRunId?: string } = {},
): Html {
  if (!messages.length) return html`<p class="muted">No messages.</p>`;
  const marked = repairsOf(messages, repairs);
  const { forkRunId } = options;
  const points = forkRunId === undefined ? new Map<number, number>() : forkPoints(messages);
  return html`<ol class="transcript">${
    messages.map((m, i) => {
      const turn = points.get(i);
      return messageBlock(m, i, marked, turn === undefined ? "" : forkButton(forkRunId!, turn));
    })
  }</ol>`;
}
