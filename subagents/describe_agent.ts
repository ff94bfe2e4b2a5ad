/**
 * What an agent is, as data: its tools with their JSON Schema parameters,
 * its typed output's JSON Schema, its child agents, and a fingerprint of the
 * definition (instructions, tool names and parameter schemas, output schema,
 * model, limits, children). A stored run keeps
 * its agent's fingerprint and a table of its tools' parameter hashes, so a
 * process whose definition changed can tell whether the run's pending calls
 * still mean the same thing.
 *
 * @module
 */
import type { AnyTool } from "../harness/run_options.ts";
import { messageOf } from "../harness/message_of.ts";
import { type JsonSchema, outputFormat } from "../harness/output.ts";
import { type Agent, agentTools, type ResolveModel } from "./define_agent.ts";

/** One tool of an agent, as `GET /agents` shows it. */
export interface ToolDescription {
  /** The name the model calls it by. */
  name: string;
  /** What it does, for the model. */
  description: string;
  /** Its arguments, as JSON Schema. */
  parameters: Record<string, unknown>;
}

/** An agent as data; see {@link describeAgent}. */
export interface AgentDescription {
  /** The agent's name. */
  name: string;
  /** Its description ("" when none). */
  description: string;
  /** Its system prompt. */
  instructions: string;
  /** Its model's name (null: the process's model). */
  model: string | null;
  /** Its own limits (the defaults apply to the rest). */
  limits: { maxTurns?: number; maxBudgetUsd?: number };
  /** Every tool a run of it gets, child agents' tools included. */
  tools: ToolDescription[];
  /** The JSON Schema its final answer must pass (typed output), or null: a text answer. */
  output: JsonSchema | null;
  /** Its child agents. */
  agents: AgentDescription[];
  /** A hash of the definition: equal fingerprints mean the same agent. */
  fingerprint: string;
}

/**
 * Tool parameter hashes by agent path (`demo`, `demo/research`) and tool name:
 * what a run stores to check its pending calls against a changed definition.
 */
export type ToolTable = Record<string, Record<string, string>>;

/** Options of {@link describeAgent}. */
export interface DescribeOptions {
  /** Tools the process adds to every root run (the MCP servers of `reins.jsonc`). */
  extraTools?: readonly AnyTool[] | undefined;
  /** Resolves a child agent's model name. */
  resolveModel?: ResolveModel | undefined;
}

/** JSON with object keys sorted, so equal values hash equally. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The first 16 hex digits of the SHA-256 of `value`'s canonical JSON.
 *
 * @example
 * ```ts
 * import { hashOf } from "./describe_agent.ts";
 * console.log(await hashOf({ b: 1, a: 2 }) === await hashOf({ a: 2, b: 1 })); // true
 * ```
 */
export async function hashOf(value: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(canonical(value));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

function usesTree(agent: Agent): boolean {
  return typeof agent.tools === "function" || agent.agents.some(usesTree);
}

async function describeWith(
  agent: Agent,
  tools: readonly AnyTool[],
  dir: string,
  resolveModel?: ResolveModel,
): Promise<AgentDescription> {
  const agents: AgentDescription[] = [];
  for (const child of agent.agents) {
    const childTools = await agentTools(child, { rootId: "", dir }, resolveModel);
    agents.push(await describeWith(child, childTools, dir, resolveModel));
  }
  const described = tools.map((t) => ({
    name: t.name,
    description: t.description,
    parameters: t.jsonSchema,
  }));
  const model = agent.model === undefined
    ? null
    : typeof agent.model === "string"
    ? agent.model
    : agent.model.name;
  const limits = { ...agent.limits };
  const output = outputOf(agent);
  const fingerprint = await hashOf({
    instructions: agent.instructions,
    model,
    limits,
    tools: described.map((t) => ({ name: t.name, parameters: t.parameters })),
    // Only a typed agent's: the fingerprints of the others stay what they were.
    output: output ?? undefined,
    agents: agents.map((a) => a.fingerprint),
  });
  return {
    name: agent.name,
    description: agent.description,
    instructions: agent.instructions,
    model,
    limits,
    tools: described,
    output,
    agents,
    fingerprint,
  };
}

/** The JSON Schema of the agent's typed output (what a run stores as `outputSchema`), or null. */
function outputOf(agent: Agent): JsonSchema | null {
  if (agent.output === undefined) return null;
  try {
    return outputFormat(agent.output).valueSchema;
  } catch (e) {
    throw new TypeError(`agent ${agent.name}: ${messageOf(e)}`);
  }
}

/**
 * Describes `agent`: its tools (a `tools` function is called once, with a
 * throw-away folder as `ctx.dir` and `ctx.rootId` ""), its children, and its
 * fingerprint. Throws `TypeError` when two of its tools share a name.
 *
 * @example
 * ```ts
 * import { defineAgent } from "./define_agent.ts";
 * import { describeAgent } from "./describe_agent.ts";
 * const a = defineAgent({ name: "a", instructions: "Be brief.", tools: [] });
 * const d = await describeAgent(a);
 * console.log(d.tools.length, d.fingerprint.length); // 0 16
 * ```
 */
export async function describeAgent(
  agent: Agent,
  options: DescribeOptions = {},
): Promise<AgentDescription> {
  const temp = usesTree(agent) ? await Deno.makeTempDir({ prefix: "reins-describe-" }) : "";
  try {
    const dir = temp ? `${temp}/tree` : "";
    const own = await agentTools(agent, { rootId: "", dir }, options.resolveModel);
    const tools = [...own, ...options.extraTools ?? []];
    const names = new Set(own.map((t) => t.name));
    const clash = (options.extraTools ?? []).find((t) => names.has(t.name));
    if (clash) {
      throw new TypeError(`agent ${agent.name}: a process tool is also named "${clash.name}"`);
    }
    return await describeWith(agent, tools, dir, options.resolveModel);
  } finally {
    if (temp) await Deno.remove(temp, { recursive: true }).catch(() => {});
  }
}

/**
 * The {@link ToolTable} of a description: each agent path's tools and their
 * parameter hashes.
 *
 * @example
 * ```ts
 * import { defineAgent } from "./define_agent.ts";
 * import { describeAgent, toolTable } from "./describe_agent.ts";
 * const leaf = defineAgent({ name: "leaf", instructions: "Answer.", tools: [] });
 * const root = defineAgent({ name: "root", instructions: "Ask.", tools: [], agents: [leaf] });
 * console.log(Object.keys(await toolTable(await describeAgent(root)))); // ["root", "root/leaf"]
 * ```
 */
export async function toolTable(d: AgentDescription, prefix = ""): Promise<ToolTable> {
  const path = prefix ? `${prefix}/${d.name}` : d.name;
  const own: Record<string, string> = {};
  for (const t of d.tools) own[t.name] = await hashOf(t.parameters);
  let table: ToolTable = { [path]: own };
  for (const child of d.agents) table = { ...table, ...await toolTable(child, path) };
  return table;
}
