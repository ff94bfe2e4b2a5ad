/**
 * The error of a stored record that fails validation on load.
 *
 * @module
 */
import { ReinsError } from "../harness/errors.ts";

/**
 * A stored record failed validation: it names the run (or, given `what`,
 * the record) and the field.
 *
 * @example
 * ```ts
 * import { RecordError } from "./record_error.ts";
 * const e = new RecordError("r1", "status", "expected one of running, completed, …");
 * console.log(e.message);
 * // Stored run "r1" is invalid at "status": expected one of running, completed, …
 * ```
 */
export class RecordError extends ReinsError {
  /** The run concerned. */
  readonly runId: string;
  /** Dotted path of the invalid field. */
  readonly field: string;
  /** Creates the error; `what` names a record that is not a run's own (default `run "<id>"`). */
  constructor(runId: string, field: string, problem: string, what = `run "${runId}"`) {
    super(`Stored ${what} is invalid at "${field}": ${problem}`);
    this.runId = runId;
    this.field = field;
  }
}
