/**
 * The agents a process serves, by name: every process (server instance,
 * `serve --parallel` isolate, worker, CLI) is built from one list, and
 * executes only runs of the agents in it. Descriptions and fingerprints are
 * computed once per process.
 *
 * @module
 */
import { ReinsError } from "../harness/errors.ts";
import type { AnyTool } from "../harness/run_options.ts";
import { type Agent, isAgent, type ResolveModel } from "../subagents/define_agent.ts";
import {
  type AgentDescription,
  describeAgent,
  type ToolTable,
  toolTable,
} from "../subagents/describe_agent.ts";

/**
 * A run names an agent this process does not serve (or names none and the
 * process has no default): the message names the agents it knows.
 *
 * @example
 * ```ts
 * import { UnknownAgentError } from "./agent_registry.ts";
 * console.log(new UnknownAgentError("x", ["a", "b"]).message);
 * // unknown agent "x"; known: a, b
 * ```
 */
export class UnknownAgentError extends ReinsError {
  /** Creates the error; `name` undefined means none was given and there is no default. */
  constructor(readonly agent: string | undefined, readonly known: readonly string[]) {
    super(
      agent === undefined
        ? `name an agent: this process serves ${known.length} (${known.join(", ")})`
        : `unknown agent "${agent}"; known: ${known.join(", ") || "none"}`,
    );
  }
}

/** What a process knows of one agent, computed once. */
export interface AgentInfo {
  /** The agent. */
  readonly agent: Agent;
  /** Its description (tools as JSON Schema, fingerprint). */
  readonly description: AgentDescription;
  /** Its tools' parameter hashes by agent path. */
  readonly table: ToolTable;
}

/** Options of {@link agentRegistry}. */
export interface AgentRegistryOptions {
  /** The agent of a request or a run that names none (default: the only one, if one). */
  defaultAgent?: string | undefined;
  /** Tools this process adds to every root run (MCP servers of `reins.jsonc`). */
  extraTools?: readonly AnyTool[] | undefined;
  /** Resolves a child agent's model name. */
  resolveModel?: ResolveModel | undefined;
}

/** The agents of a process; see {@link agentRegistry}. */
export interface AgentRegistry {
  /** The agents, in the order given. */
  readonly agents: readonly Agent[];
  /** Their names. */
  readonly names: readonly string[];
  /** The default agent's name, if any. */
  readonly defaultName?: string | undefined;
  /** The agent called `name`, or (no name) the default; `UnknownAgentError` otherwise. */
  pick(name?: string): Agent;
  /** The agent of a stored run (its `agent`, else the default), or undefined. */
  forRun(state: { agent?: string }): Agent | undefined;
  /** Description, fingerprint and tool table of an agent of this registry. */
  info(agent: Agent): Promise<AgentInfo>;
  /** Tools this process adds to every root run. */
  readonly extraTools: readonly AnyTool[];
}

/**
 * A registry over `agents`: throws `TypeError` when the list is empty, holds
 * something not made by `defineAgent`, names an agent twice, or names an
 * unknown default.
 *
 * @example
 * ```ts
 * import { agentRegistry } from "./agent_registry.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const a = defineAgent({ name: "a", instructions: "Be brief.", tools: [] });
 * const registry = agentRegistry([a]);
 * console.log(registry.pick().name, (await registry.info(a)).description.tools); // a []
 * ```
 */
export function agentRegistry(
  agents: readonly Agent[],
  options: AgentRegistryOptions = {},
): AgentRegistry {
  if (!Array.isArray(agents) || agents.length === 0) {
    throw new TypeError("agents: expected a non-empty list of agents (defineAgent)");
  }
  const byName = new Map<string, Agent>();
  for (const a of agents) {
    if (!isAgent(a)) throw new TypeError("agents: every agent must be made by defineAgent");
    if (byName.has(a.name)) throw new TypeError(`agents: two agents are named "${a.name}"`);
    byName.set(a.name, a);
  }
  const names = [...byName.keys()];
  const defaultName = options.defaultAgent ?? (names.length === 1 ? names[0] : undefined);
  if (defaultName !== undefined && !byName.has(defaultName)) {
    throw new TypeError(`defaultAgent: "${defaultName}" is not among the agents (${names})`);
  }
  const extraTools = options.extraTools ?? [];
  const infos = new Map<Agent, Promise<AgentInfo>>();
  const info = (agent: Agent) => {
    let p = infos.get(agent);
    if (!p) {
      p = (async () => {
        const { resolveModel } = options;
        const description = await describeAgent(agent, {
          extraTools,
          resolveModel,
        });
        return { agent, description, table: await toolTable(description) };
      })();
      infos.set(agent, p);
    }
    return p;
  };
  return {
    agents: [...byName.values()],
    names,
    defaultName,
    extraTools,
    pick(name) {
      const chosen = name ?? defaultName;
      const agent = chosen === undefined ? undefined : byName.get(chosen);
      if (!agent) throw new UnknownAgentError(chosen, names);
      return agent;
    },
    forRun(state) {
      const name = state.agent ?? defaultName;
      return name === undefined ? undefined : byName.get(name);
    },
    info,
  };
}
