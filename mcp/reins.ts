/**
 * The one place this folder imports reins's own contracts from, so moving
 * them (the tool contract is bound for `harness/tool.ts`) touches one file.
 *
 * @module
 */
export type { SchemaIssue, Tool, ToolContext, ToolSchema } from "../harness/tool.ts";
export { ReinsError } from "../harness/errors.ts";
export { messageOf } from "../harness/message_of.ts";
export { MAX_TIMER_MS } from "../harness/sleep.ts";
