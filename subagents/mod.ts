/**
 * Subagents: tools that run a child run with its own window and limits, under
 * the parent's budget, options and signal (`agentTool`, the ready-made
 * `researchTool`), and the functions that read and continue a tree.
 *
 * @example
 * ```ts
 * import { researchTool } from "./mod.ts";
 * import { createWorkspace } from "../mod.ts";
 * const ws = await createWorkspace();
 * console.log(researchTool({ workspace: ws }).name); // research
 * await ws.remove();
 * ```
 *
 * @module
 */
export { agentTool, type AgentToolOptions, type QuestionArgs } from "./agent_tool.ts";
export { researchTool, type ResearchToolOptions } from "./research.ts";
export {
  approveInTree,
  formatTree,
  type ListingStore,
  loadRoot,
  loadTree,
  rejectInTree,
  resumeTree,
  type TreeNode,
} from "./tree.ts";
// The options of a child run, and of the demo tools a research child gets.
export type { ChildRunOptions } from "../harness/tool.ts";
export type { ReadFileOptions } from "../tools/read_file.ts";
export type { ScanArchiveOptions } from "../tools/scan_archive.ts";
// Thrown by a tool whose child run stopped, to suspend the parent with the call pending.
export { SuspendRun } from "../harness/errors.ts";
// Agents, as `defineAgent` makes them, and what a process computes of them.
export {
  type Agent,
  type AgentContext,
  type AgentSpec,
  agentTools,
  defineAgent,
  isAgent,
  type ResolveModel,
} from "./define_agent.ts";
export {
  type AgentDescription,
  describeAgent,
  type DescribeOptions,
  type ToolTable,
  toolTable,
} from "./describe_agent.ts";
