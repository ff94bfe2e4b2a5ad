/**
 * The standard `research` tool: a child run that answers one question with
 * the read-only demo tools and returns only its finding.
 *
 * @module
 */
import { checkLimits, type LimitsInput, type RunLimits } from "../harness/limits.ts";
import type { Model } from "../harness/model.ts";
import type { AnyTool } from "../harness/run_options.ts";
import type { Tool } from "../harness/tool.ts";
import type { Workspace } from "../tools/workspace.ts";
import { listFilesTool } from "../tools/list_files.ts";
import { type ReadFileOptions, readFileTool } from "../tools/read_file.ts";
import { type ScanArchiveOptions, scanArchiveTool } from "../tools/scan_archive.ts";
import { agentTool, type QuestionArgs } from "./agent_tool.ts";

/** The system prompt of a `research` child run. */
export const RESEARCH_SYSTEM: string =
  "You are a research assistant working for another agent. Answer the one question you are " +
  "given using your tools, then reply with a short finding and stop. Your final reply is " +
  "all the other agent will see, so put the answer in it.";

/** The description of the `research` tool, as the model sees it. */
export const RESEARCH_DESCRIPTION: string =
  "Delegates one question to a research assistant with its own context and read-only tools " +
  "(list_files, read_file, scan_archive). Returns only its finding, or how it stopped. " +
  "Independent questions may be asked in one turn; they run concurrently.";

/** The default limits of a `research` child: 6 turns, $0.05 (and never more than the parent has). */
export const RESEARCH_LIMITS: Readonly<RunLimits> = Object.freeze({
  maxTurns: 6,
  maxBudgetUsd: 0.05,
});

/** Options of {@link researchTool}. */
export interface ResearchToolOptions {
  /** Where the default tools work (needed unless `tools` is given). */
  workspace?: Workspace | undefined;
  /** The child's tools (default: list_files, read_file, scan_archive over `workspace`). */
  tools?: readonly AnyTool[] | undefined;
  /** Options of the default `read_file`. */
  read?: ReadFileOptions | undefined;
  /** Options of the default `scan_archive` (e.g. `{ ms: 300 }` in tests). */
  scan?: ScanArchiveOptions | undefined;
  /** The child's limits (default {@link RESEARCH_LIMITS}). */
  limits?: LimitsInput | undefined;
  /**
   * Levels of research below the caller (default 1). With 2, each child also
   * has a `research` tool of its own (a depth-3 tree counting the root).
   */
  depth?: number | undefined;
  /** The tool's name (default `research`). */
  name?: string | undefined;
  /** The child's system prompt (default {@link RESEARCH_SYSTEM}). */
  system?: string | undefined;
  /** The child's model (default: the parent's). */
  model?: Model | undefined;
}

/**
 * The `research` tool (`{ question: string }`, read-only): a child run with
 * {@link RESEARCH_SYSTEM}, the read-only demo tools (no delete_file) and
 * {@link RESEARCH_LIMITS}, under the parent's budget and signal.
 *
 * @example
 * ```ts
 * import { researchTool } from "./research.ts";
 * import { newRun, run } from "../mod.ts";
 * import { createWorkspace } from "../demo/mod.ts";
 * import { scriptedModel } from "../testing/mod.ts";
 * import { TREE_SCENARIOS } from "../testing/tree_scenarios.ts";
 * const ws = await createWorkspace();
 * const model = scriptedModel("research-deep", { scenarios: TREE_SCENARIOS });
 * const done = await run(newRun("Investigate."), {
 *   model,
 *   tools: [researchTool({ workspace: ws, depth: 2 })],
 * });
 * console.log(done.output);
 * await ws.remove();
 * ```
 */
export function researchTool(options: ResearchToolOptions = {}): Tool<QuestionArgs> {
  const depth = options.depth ?? 1;
  if (!Number.isInteger(depth) || depth < 1) {
    throw new RangeError(`researchTool: depth must be a positive integer, got ${depth}`);
  }
  let tools: AnyTool[];
  if (options.tools) tools = [...options.tools];
  else if (options.workspace) {
    const ws = options.workspace;
    tools = [listFilesTool(ws), readFileTool(ws, options.read), scanArchiveTool(ws, options.scan)];
  } else throw new TypeError("researchTool: give a workspace or the tools");
  if (depth > 1) tools.push(researchTool({ ...options, depth: depth - 1 }));
  return agentTool({
    name: options.name ?? "research",
    description: RESEARCH_DESCRIPTION,
    system: options.system ?? RESEARCH_SYSTEM,
    tools,
    limits: checkLimits(options.limits ?? {}, RESEARCH_LIMITS),
    model: options.model,
  });
}
