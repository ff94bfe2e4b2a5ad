/**
 * A run's state in words: a tone (for colour), a label and a sentence, the
 * same in the list, the run page and the tree.
 *
 * @module
 */
import type { Interruption, RunStatus } from "../../harness/state.ts";
import type { StopRequest } from "../../kv/stop_record.ts";
import { type Html, html } from "./html.ts";

/** How a run's state reads at a glance: a tone (for colour), a label and a sentence. */
export interface StatusWords {
  /** running | waiting | done | stopped | limit | failed | stopping: drives the colour. */
  tone: "running" | "waiting" | "done" | "stopped" | "limit" | "failed" | "stopping";
  /** One or two words: `Running`, `Waiting for your verdict`, `Completed`, … */
  label: string;
  /** Why, in a sentence (empty when there is nothing to add). */
  detail: string;
}

/** The fields {@link statusWords} reads. */
export type StatusFields = {
  status: RunStatus;
  interruption?: Interruption | null;
  stopReason?: string | null;
  error?: string | null;
  runId?: string;
};

/**
 * The state of a run in words: running, waiting for a verdict, or which of
 * the five exits it took (completed, failed, turn limit, budget, interrupted:
 * stopped by a person or awaiting a verdict) and why.
 *
 * @example
 * ```ts
 * import { statusWords } from "./status_words.ts";
 * console.log(statusWords({ status: "budget_exceeded", stopReason: "budget spent" }).label); // Budget spent
 * ```
 */
export function statusWords(run: StatusFields, stop?: StopRequest | null): StatusWords {
  const reason = run.stopReason ?? "";
  const i = run.interruption ?? null;
  switch (run.status) {
    case "running":
      return stop
        ? { tone: "stopping", label: "Stopping", detail: `Stop requested: ${stop.reason}` }
        : { tone: "running", label: "Running", detail: "" };
    case "completed":
      return { tone: "done", label: "Completed", detail: reason || "the model answered" };
    case "failed":
      return { tone: "failed", label: "Failed", detail: run.error ?? reason };
    case "max_turns_exceeded":
      return { tone: "limit", label: "Turn limit reached", detail: reason };
    case "budget_exceeded":
      return { tone: "limit", label: "Budget spent", detail: reason };
    case "interrupted": {
      if (i?.type === "approval") {
        const why = i.why === "uncertain_effect"
          ? "may or may not have run before a crash: decide whether to run it again"
          : "needs your approval";
        const holder = i.runId && i.runId !== run.runId ? " (in a subagent)" : "";
        return {
          tone: "waiting",
          label: "Waiting for your verdict",
          detail: `${i.toolName} ${why}${holder}`,
        };
      }
      if (i?.type === "cancelled") {
        return { tone: "stopped", label: "Stopped", detail: i.reason || reason };
      }
      if (i?.type === "max_turns") {
        return { tone: "limit", label: "Turn limit reached", detail: reason };
      }
      if (i?.type === "max_budget") return { tone: "limit", label: "Budget spent", detail: reason };
      return { tone: "stopped", label: "Interrupted", detail: reason };
    }
    default: // a status this page does not know (a newer writer's): shown as it is
      return { tone: "failed", label: String(run.status), detail: reason };
  }
}

/** The coloured label of a state. */
export function badge(words: StatusWords): Html {
  return html`<span class="badge tone-${words.tone}">${words.label}</span>`;
}
