/**
 * The demo as agents, like any user's: an operations assistant over a
 * workspace of demo files (one per run tree, in the tree's own folder) with
 * a `research` child agent. Three variants, as the scripted scenarios need
 * them: `demo` (read-only research one level deep), `demo-deep` (research
 * that researches), `demo-cleanup` (research children that may delete,
 * with approval) and `demo-typed` (its answer a typed value: where the
 * timeout is logged).
 *
 * @module
 */
import type { AnyTool } from "../harness/run_options.ts";
import { type Agent, type AgentContext, defineAgent } from "../subagents/define_agent.ts";
import { RESEARCH_DESCRIPTION, RESEARCH_LIMITS, RESEARCH_SYSTEM } from "../subagents/research.ts";
import { demoTools } from "../tools/catalog.ts";
import { TIMEOUT_LOCATION } from "../testing/scenarios.ts";
import type { ScanArchiveOptions } from "../tools/scan_archive.ts";
import { createWorkspace, type Workspace } from "../tools/workspace.ts";

/** The demo agent's instructions. */
export const DEMO_INSTRUCTIONS =
  "You are an operations assistant. Use the tools to answer; be brief. Delegate independent " +
  "questions to research when that helps.";

/** The names of the demo agents, the default first. */
export const DEMO_AGENT_NAMES = ["demo", "demo-deep", "demo-cleanup", "demo-typed"] as const;

/** Options of {@link demoAgents}. */
export interface DemoAgentsOptions {
  /** Options of `scan_archive` (e.g. `{ ms: 300 }` in tests). */
  scan?: ScanArchiveOptions | undefined;
}

/**
 * The workspace of a tree: its folder, made with the demo files on first use
 * (and left as the tree left it after that: a resumed tree keeps its deletions).
 *
 * @example
 * ```ts
 * import { treeWorkspace } from "./agents.ts";
 * const dir = await Deno.makeTempDir();
 * const ws = await treeWorkspace(`${dir}/tree`);
 * console.log((await ws.files()).includes("errors.log")); // true
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function treeWorkspace(dir: string): Promise<Workspace> {
  return await createWorkspace({ dir, keep: true });
}

/** The workspace of each tree context: a root's tools and its children's are made with one. */
const workspaces = new WeakMap<AgentContext, Promise<Workspace>>();

function toolsOf(scan: ScanArchiveOptions | undefined, readOnly: boolean) {
  return async (ctx: AgentContext): Promise<AnyTool[]> => {
    let ws = workspaces.get(ctx);
    if (!ws) {
      workspaces.set(ctx, ws = treeWorkspace(ctx.dir));
      ws.catch(() => workspaces.delete(ctx)); // a failure is tried again by the next caller
    }
    const tools = demoTools(await ws, { scan });
    return readOnly ? tools.filter((t) => t.readOnly) : tools;
  };
}

function research(tools: (ctx: AgentContext) => Promise<AnyTool[]>, agents: Agent[] = []): Agent {
  return defineAgent({
    name: "research",
    description: RESEARCH_DESCRIPTION,
    instructions: RESEARCH_SYSTEM,
    tools,
    agents,
    limits: RESEARCH_LIMITS,
  });
}

/**
 * The demo agents ({@link DEMO_AGENT_NAMES}), `demo` first.
 *
 * @example
 * ```ts
 * import { demoAgents } from "./agents.ts";
 * console.log(demoAgents().map((a) => a.name)); // ["demo", "demo-deep", "demo-cleanup", "demo-typed"]
 * ```
 */
export function demoAgents(options: DemoAgentsOptions = {}): Agent[] {
  const all = toolsOf(options.scan, false);
  const readOnly = toolsOf(options.scan, true);
  const root = (name: string, description: string, child: Agent) =>
    defineAgent({
      name,
      description,
      instructions: DEMO_INSTRUCTIONS,
      tools: all,
      agents: [child],
    });
  return [
    root(
      "demo",
      "Answers questions about a workspace of log files; read-only research children.",
      research(readOnly),
    ),
    root(
      "demo-deep",
      "As demo, with research children that research in turn (a depth-3 tree).",
      research(readOnly, [research(readOnly)]),
    ),
    root(
      "demo-cleanup",
      "As demo, with research children that may delete files (each delete asks a person).",
      research(all),
    ),
    defineAgent({
      name: "demo-typed",
      description: "As demo, answering with where the timeout is logged: { file, line }.",
      instructions: DEMO_INSTRUCTIONS,
      tools: all,
      agents: [research(readOnly)],
      output: TIMEOUT_LOCATION,
    }),
  ];
}
