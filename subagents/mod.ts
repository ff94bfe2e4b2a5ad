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
export * from "./agent_tool.ts";
export * from "./research.ts";
export * from "./tree.ts";
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
