/**
 * Which exits the demo's runs ended with, and in which experiment: every run
 * the demo plays is recorded here, and the demo ends with a table naming each
 * of the chapter's exits and interruptions beside the experiments that showed
 * it (so `cancelled`, which a table row prints as "interrupted", is named too).
 *
 * @module
 */
import type { RunState } from "../../harness/state.ts";
import { table } from "../table.ts";

/** The chapter's exits: each status, with the interruption it carries. */
export const CHAPTER_EXITS: readonly { status: RunState["status"]; interruption: string }[] = [
  { status: "completed", interruption: "-" },
  { status: "failed", interruption: "-" },
  { status: "max_turns_exceeded", interruption: "max_turns" },
  { status: "budget_exceeded", interruption: "max_budget" },
  { status: "interrupted", interruption: "approval" },
  { status: "interrupted", interruption: "cancelled" },
];

/**
 * A run's exit as the demo's tables print it: the status, and for an
 * interrupted run its interruption (`interrupted/cancelled`).
 *
 * @example
 * ```ts
 * import { exitName } from "./exit_log.ts";
 * console.log(exitName({ status: "interrupted", interruption: { type: "cancelled", reason: "x" } }));
 * // interrupted/cancelled
 * ```
 */
export function exitName(s: Pick<RunState, "status" | "interruption">): string {
  return s.status === "interrupted" && s.interruption
    ? `${s.status}/${s.interruption.type}`
    : s.status;
}

/** Runs' exits by experiment number. */
export class ExitLog {
  /** The experiment being played ("1", "12", ...); set from the demo's headings. */
  section = "";
  #seen = new Map<string, Set<string>>();

  /** Forgets everything (a new demo). */
  clear(): void {
    this.#seen.clear();
    this.section = "";
  }

  /** Notes the exit of a finished run under the current section. */
  record(s: Pick<RunState, "status" | "interruption">): void {
    const key = `${s.status}/${s.interruption?.type ?? "-"}`;
    const where = this.#seen.get(key) ?? new Set();
    if (this.section) where.add(this.section);
    this.#seen.set(key, where);
  }

  /** Follows `line` for a `== N. ... ==` heading, which sets the section. */
  follow(line: string): void {
    const number = line.match(/^== (\d+)\./)?.[1];
    if (number !== undefined) this.section = number;
  }

  /**
   * The closing table: one row per exit of the chapter, with the experiments
   * whose runs ended so ("not shown" when none did).
   *
   * @example
   * ```ts
   * import { ExitLog } from "./exit_log.ts";
   * const log = new ExitLog();
   * log.follow("== 10. a slow tool ==");
   * log.record({ status: "interrupted", interruption: { type: "cancelled", reason: "Stop" } });
   * console.log(log.lines().find((l) => l.includes("cancelled")));
   * // "  interrupted         cancelled     10"
   * ```
   */
  lines(): string[] {
    const rows = CHAPTER_EXITS.map(({ status, interruption }) => {
      const where = [...this.#seen.get(`${status}/${interruption}`) ?? []];
      return [status, interruption, where.sort((a, b) => +a - +b).join(", ") || "not shown"];
    });
    return table(["exit", "interruption", "experiments"], rows);
  }
}

/** The demo's log (one demo at a time in a process). */
export const demoExits: ExitLog = new ExitLog();
