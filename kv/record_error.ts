/**
 * The error of a stored record that fails validation on load.
 *
 * @module
 */
import { ReinsError } from "../harness/errors.ts";

/**
 * A stored record failed validation: it names the run and the field.
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
  /** Creates the error. */
  constructor(runId: string, field: string, problem: string) {
    super(`Stored run "${runId}" is invalid at "${field}": ${problem}`);
    this.runId = runId;
    this.field = field;
  }
}
