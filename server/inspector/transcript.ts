/**
 * A run's transcript, oldest first, rendered on the server.
 *
 * @module
 */
import type { ChatMessage } from "../../harness/messages.ts";
import { clip, prettyArgs } from "./format.ts";
import { type Html, html } from "./html.ts";
import { forkButton, forkPoints } from "./conversation.ts";

function messageBlock(m: ChatMessage, index: number, fork: Html | ""): Html {
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
      return html`<li class="msg assistant"><span class="role">model</span>${
        m.content ? html`<pre>${m.content}</pre>` : ""
      }${calls}${fork}</li>`;
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

/**
 * A transcript, oldest first: the system prompt folded, the task, the model's
 * replies with their tool calls, and each tool result. With `forkRunId` (a
 * root run), "Fork from here" on each turn a fork can start from.
 *
 * @example
 * ```ts
 * import { renderTranscript } from "./transcript.ts";
 * console.log(String(renderTranscript([{ role: "user", content: "<b>hi</b>" }])).includes("&lt;b&gt;")); // true
 * ```
 */
export function renderTranscript(
  messages: readonly ChatMessage[],
  options: { forkRunId?: string } = {},
): Html {
  if (!messages.length) return html`<p class="muted">No messages.</p>`;
  const { forkRunId } = options;
  const points = forkRunId === undefined ? new Map<number, number>() : forkPoints(messages);
  return html`<ol class="transcript">${
    messages.map((m, i) => {
      const turn = points.get(i);
      return messageBlock(m, i, turn === undefined ? "" : forkButton(forkRunId!, turn));
    })
  }</ol>`;
}
