// @ts-self-types="../../subagents/mod.ts"
import {
  listFilesTool,
  readFileTool,
  scanArchiveTool
} from "../chunk-tools_list_files.js";
import {
  approveInTree,
  describeAgent,
  formatTree,
  loadRoot,
  loadTree,
  rejectInTree,
  resumeTree,
  toolTable
} from "../chunk-subagents_tree.js";
import {
  agentTool,
  agentTools,
  checkLimits,
  defineAgent,
  isAgent
} from "../chunk-harness_limits.js";
import {
  SuspendRun
} from "../chunk-harness_errors.js";

// subagents/research.ts
var RESEARCH_SYSTEM = "You are a research assistant working for another agent. Answer the one question you are given using your tools, then reply with a short finding and stop. Your final reply is all the other agent will see, so put the answer in it.";
var RESEARCH_DESCRIPTION = "Delegates one question to a research assistant with its own context and read-only tools (list_files, read_file, scan_archive). Returns only its finding, or how it stopped. Independent questions may be asked in one turn; they run concurrently.";
var RESEARCH_LIMITS = Object.freeze({
  maxTurns: 6,
  maxBudgetUsd: 0.05
});
function researchTool(options = {}) {
  const depth = options.depth ?? 1;
  if (!Number.isInteger(depth) || depth < 1) {
    throw new RangeError(`researchTool: depth must be a positive integer, got ${depth}`);
  }
  let tools;
  if (options.tools) tools = [
    ...options.tools
  ];
  else if (options.workspace) {
    const ws = options.workspace;
    tools = [
      listFilesTool(ws),
      readFileTool(ws, options.read),
      scanArchiveTool(ws, options.scan)
    ];
  } else throw new TypeError("researchTool: give a workspace or the tools");
  if (depth > 1) tools.push(researchTool({
    ...options,
    depth: depth - 1
  }));
  return agentTool({
    name: options.name ?? "research",
    description: RESEARCH_DESCRIPTION,
    system: options.system ?? RESEARCH_SYSTEM,
    tools,
    limits: checkLimits(options.limits ?? {}, RESEARCH_LIMITS),
    model: options.model
  });
}
export {
  SuspendRun,
  agentTool,
  agentTools,
  approveInTree,
  defineAgent,
  describeAgent,
  formatTree,
  isAgent,
  loadRoot,
  loadTree,
  rejectInTree,
  researchTool,
  resumeTree,
  toolTable
};
