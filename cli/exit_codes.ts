/**
 * The exit codes of `deno task run`: one per way a run can end, so a script
 * can branch on it. Documented in `--help` and the README.
 *
 * @module
 */
import type { RunState } from "../harness/state.ts";

/** Every exit code, by name. */
export const EXIT_CODES = Object.freeze({
  /** The run completed (and this repository's demo, when every experiment ran). */
  completed: 0,
  /** The run failed (a permanent tool error, a model error, `toolErrors: fatal`). */
  failed: 1,
  /** Bad input: a wrong flag or value, an unknown run, a run in the wrong state, a lease held. */
  usage: 2,
  /** The run stopped at its turn cap (`max_turns_exceeded`); resume with more turns. */
  max_turns_exceeded: 3,
  /** The run stopped at its budget (`budget_exceeded`); resume with more budget. */
  budget_exceeded: 4,
  /** The run awaits a person's verdict (`interrupted`, approval): approve or reject. */
  approval: 5,
  /** The run was stopped (`interrupted`, cancelled: Ctrl-C, `--stop`); resume to go on. */
  cancelled: 6,
  /** The run is still `running` (its execution ended without an exit). */
  running: 7,
});

/**
 * The exit code for a run's state.
 *
 * @example
 * ```ts
 * import { exitCodeOf } from "./exit_codes.ts";
 * import { newRun } from "../harness/state.ts";
 * console.log(exitCodeOf({ ...newRun("x"), status: "budget_exceeded" })); // 4
 * ```
 */
export function exitCodeOf(state: Pick<RunState, "status" | "interruption">): number {
  switch (state.status) {
    case "completed":
      return EXIT_CODES.completed;
    case "failed":
      return EXIT_CODES.failed;
    case "max_turns_exceeded":
      return EXIT_CODES.max_turns_exceeded;
    case "budget_exceeded":
      return EXIT_CODES.budget_exceeded;
    case "interrupted":
      return state.interruption?.type === "approval" ? EXIT_CODES.approval : EXIT_CODES.cancelled;
    case "running":
      return EXIT_CODES.running;
  }
}

/** The exit-code table of `--help`. */
export const EXIT_CODES_HELP = `Exit codes:
  0  completed
  1  failed
  2  usage error: bad flag or value, unknown run, wrong state, lease still held
  3  max_turns_exceeded (resume with --max-turns N)
  4  budget_exceeded (resume with --budget USD)
  5  interrupted: a call awaits a verdict (--approve / --reject)
  6  interrupted: cancelled (Ctrl-C, --stop); --resume goes on
  7  still running (the execution ended without an exit)
`;
