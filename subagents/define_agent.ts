/**
 * An agent: a name, instructions, tools, child agents, limits and run
 * options, defined once in code. A process (server, worker, CLI) is built
 * from a list of agents and executes only their runs; a request may narrow
 * what an agent may do (lower limits, a budget mode), never widen it.
 *
 * @module
 */
import type { Prices, PriceTable } from "../harness/cost.ts";
import { checkLimits, GIVEN_BUDGET, type LimitsInput, type RunLimits } from "../harness/limits.ts";
import type { Model } from "../harness/model.ts";
import type { AnyTool } from "../harness/run_options.ts";
import { issueLine } from "../harness/schema_issue.ts";
import type { OutputSchema } from "../harness/output.ts";
import { agentTool } from "./agent_tool.ts";
import { type AgentOptions, agentOptionsSchema } from "./agent_options.ts";

/** What a per-tree `tools` function receives: the tree it serves and a folder of its own. */
export interface AgentContext {
  /** The id of the tree's root run ("" when the agent is only being described). */
  readonly rootId: string;
  /**
   * A folder for this tree's own resources (the demo puts its workspace
   * there). A path: it may not exist yet, and stays after the run, so a
   * resumed tree finds what it left.
   */
  readonly dir: string;
}

/** The tools of an agent: a list, or a function of the tree (for resources a tree owns). */
export type AgentTools =
  | readonly AnyTool[]
  | ((ctx: AgentContext) => readonly AnyTool[] | Promise<readonly AnyTool[]>);

/** A schema of an agent's final answer (typed output), as `run()`'s `output` takes it. */
export type AgentOutputSchema = OutputSchema;

/** What {@link defineAgent} takes. */
export interface AgentSpec {
  /** URL-safe and unique among the agents of a process: 1-64 of `A-Z a-z 0-9 _ -`. */
  name: string;
  /** One line for people and, for a child agent, for the parent's model (its tool description). */
  description?: string | undefined;
  /** The system prompt every run of the agent starts with. */
  instructions: string;
  /** A model, or a model name the process resolves (default: the process's model). */
  model?: Model | string | undefined;
  /** Its tools: a list, or a function of the tree ({@link AgentContext}). */
  tools: AgentTools;
  /**
   * Child agents: the parent gets one tool per child, named after it
   * (`{ question: string }`): a child run with its own window and limits,
   * under the parent's budget, options and signal; one Stop ends the tree.
   */
  agents?: readonly Agent[] | undefined;
  /** Its limits (default 20 turns, $1.00); a request may only lower them. */
  limits?: LimitsInput | undefined;
  /** Prices of its model's tokens (default: the process's). */
  prices?: Prices | PriceTable | undefined;
  /** Its run options; a request may only narrow them (a hard budget mode, ...). */
  options?: AgentOptions | undefined;
  /**
   * The schema its final answer must pass (typed output, `run()`'s `output`):
   * a run's `output` is then the parsed value.
   */
  output?: AgentOutputSchema | undefined;
}

/**
 * An agent, as {@link defineAgent} returns it: its spec, checked and frozen.
 * `Output`: what its runs' `output` is (`string`, or its typed output's value).
 */
export interface Agent<Output = unknown> {
  /** As in {@link AgentSpec}. */
  readonly name: string;
  /** As in {@link AgentSpec} ("" when not given). */
  readonly description: string;
  /** As in {@link AgentSpec}. */
  readonly instructions: string;
  /** As in {@link AgentSpec}. */
  readonly model?: Model | string;
  /** As in {@link AgentSpec}. */
  readonly tools: AgentTools;
  /** As in {@link AgentSpec} (`[]` when none). */
  readonly agents: readonly Agent[];
  /** As in {@link AgentSpec}, checked (`{}` when none). */
  readonly limits: Readonly<Partial<RunLimits>>;
  /** As in {@link AgentSpec}. */
  readonly prices?: Prices | PriceTable;
  /** As in {@link AgentSpec} (`{}` when none). */
  readonly options: Readonly<AgentOptions>;
  /** As in {@link AgentSpec}. */
  readonly output?: OutputSchema<Output>;
}

/** An agent's name: URL-safe, and a valid tool name (a child agent is its parent's tool). */
export const AGENT_NAME: RegExp = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The agent's options, checked against their schema (a TypeError names the field). */
function checkOptions(name: string, options: AgentOptions | undefined): AgentOptions {
  if (options === undefined) return {};
  const issue = agentOptionsSchema().safeParse(options).error?.issues[0];
  if (!issue) return { ...options };
  const known = issue.code === "unrecognized_keys"
    ? ` (known: ${Object.keys(agentOptionsSchema().shape).join(", ")})`
    : "";
  throw new TypeError(`defineAgent(${name}): ${issueLine(issue, "options", options)}${known}`);
}

/** Throws a TypeError naming a tool name given twice (the model would see both). */
export function checkUniqueToolNames(agent: string, names: readonly string[]): void {
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) {
      throw new TypeError(`defineAgent(${agent}): two tools are named "${n}"`);
    }
    seen.add(n);
  }
}

function checkSpec(spec: AgentSpec): void {
  if (!spec || typeof spec !== "object") {
    throw new TypeError("defineAgent(spec): spec must be an object");
  }
  if (typeof spec.name !== "string" || !AGENT_NAME.test(spec.name)) {
    throw new TypeError(
      `defineAgent: name must match ${AGENT_NAME} (URL-safe), got ${JSON.stringify(spec.name)}`,
    );
  }
  const name = spec.name;
  if (typeof spec.instructions !== "string") {
    throw new TypeError(`defineAgent(${name}): instructions must be a string`);
  }
  if (spec.description !== undefined && typeof spec.description !== "string") {
    throw new TypeError(`defineAgent(${name}): description must be a string`);
  }
  if (!Array.isArray(spec.tools) && typeof spec.tools !== "function") {
    throw new TypeError(`defineAgent(${name}): tools must be a list or a function of the tree`);
  }
  const model = spec.model;
  if (model !== undefined && typeof model !== "string" && typeof model?.complete !== "function") {
    throw new TypeError(`defineAgent(${name}): model must be a Model or a model name`);
  }
  if (spec.agents !== undefined && !Array.isArray(spec.agents)) {
    throw new TypeError(`defineAgent(${name}): agents must be a list of agents`);
  }
  for (const child of spec.agents ?? []) {
    if (!isAgent(child)) {
      throw new TypeError(`defineAgent(${name}): agents must be made by defineAgent`);
    }
  }
}

const AGENTS = new WeakSet<object>();

/**
 * Whether `value` was made by {@link defineAgent}.
 *
 * @example
 * ```ts
 * import { isAgent } from "./define_agent.ts";
 * console.log(isAgent({ name: "x" })); // false
 * ```
 */
export function isAgent(value: unknown): value is Agent {
  return typeof value === "object" && value !== null && AGENTS.has(value);
}

/**
 * Defines an agent. Throws `TypeError` for a bad field, or two tools (its
 * own, or a child agent's) of the same name; `RangeError` for bad limits.
 * A `tools` function is checked when it is called (at the latest when a
 * process describes the agent, as it starts).
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineAgent, defineTool } from "../mod.ts";
 * const lookup = defineTool({
 *   name: "lookup_order",
 *   description: "Looks an order up by its number.",
 *   parameters: z.object({ id: z.number().int() }),
 *   readOnly: true,
 *   run: ({ id }) => ({ id, status: "shipped" }),
 * });
 * const support = defineAgent({
 *   name: "support",
 *   description: "Answers questions about orders.",
 *   instructions: "You answer customers' questions about their orders. Be brief.",
 *   tools: [lookup],
 *   limits: { maxTurns: 8, maxBudgetUsd: 0.1 },
 * });
 * console.log(support.name, support.limits.maxTurns); // support 8
 * ```
 */
export function defineAgent<T>(spec: AgentSpec & { output: OutputSchema<T> }): Agent<T>;
/** An agent whose answer is its text (no `output`). */
export function defineAgent(spec: AgentSpec & { output?: undefined }): Agent<string>;
/** An agent whose spec's `output` is not known statically. */
export function defineAgent(spec: AgentSpec): Agent;
export function defineAgent(spec: AgentSpec): Agent {
  checkSpec(spec);
  const name = spec.name;
  const agents = Object.freeze([...spec.agents ?? []]);
  if (Array.isArray(spec.tools)) {
    checkUniqueToolNames(name, [...spec.tools.map((t) => t.name), ...agents.map((a) => a.name)]);
  } else checkUniqueToolNames(name, agents.map((a) => a.name));
  const limits = spec.limits === undefined ? {} : checkPartialLimits(spec.limits);
  const agent: Agent = Object.freeze({
    name,
    description: spec.description ?? "",
    instructions: spec.instructions,
    ...(spec.model === undefined ? {} : { model: spec.model }),
    tools: Array.isArray(spec.tools) ? Object.freeze([...spec.tools]) : spec.tools,
    agents,
    limits: Object.freeze(limits),
    ...(spec.prices === undefined ? {} : { prices: spec.prices }),
    options: Object.freeze(checkOptions(name, spec.options)),
    ...(spec.output === undefined ? {} : { output: spec.output }),
  });
  AGENTS.add(agent);
  return agent;
}

function checkPartialLimits(limits: LimitsInput): Partial<RunLimits> {
  const usd = limits.maxBudgetUsd;
  if (typeof usd === "number" && usd <= 0) {
    throw new RangeError(`limits.maxBudgetUsd: ${GIVEN_BUDGET}, got ${usd}`);
  }
  const full = checkLimits(limits); // throws RangeError on a bad value
  const out: Partial<RunLimits> = {};
  if (limits.maxTurns !== undefined) out.maxTurns = full.maxTurns;
  if (limits.maxBudgetUsd !== undefined) out.maxBudgetUsd = full.maxBudgetUsd;
  return out;
}

/** Resolves a model name of a child agent (the process's model factory). */
export type ResolveModel = (name: string) => Model;

/**
 * The tools a run of `agent` gets in the tree of `ctx`: its own, then one
 * agent tool per child agent (whose tools are resolved in the same tree).
 * `everyModel`: the model every child runs on, their own ignored (a test's
 * scripted model, see `runAgent`). Throws `TypeError` when two have the same
 * name, or a child names a model and no `resolveModel` is given.
 *
 * @example
 * ```ts
 * import { agentTools, defineAgent } from "./define_agent.ts";
 * const leaf = defineAgent({ name: "leaf", instructions: "Answer.", tools: [] });
 * const root = defineAgent({ name: "root", instructions: "Delegate.", tools: [], agents: [leaf] });
 * const tools = await agentTools(root, { rootId: "r", dir: "/tmp/r" });
 * console.log(tools.map((t) => t.name)); // ["leaf"]
 * ```
 */
export async function agentTools(
  agent: Agent,
  ctx: AgentContext,
  resolveModel?: ResolveModel,
  everyModel?: Model,
): Promise<AnyTool[]> {
  const own = typeof agent.tools === "function" ? await agent.tools(ctx) : agent.tools;
  if (!Array.isArray(own)) {
    throw new TypeError(`agent ${agent.name}: its tools function must return a list of tools`);
  }
  const children: AnyTool[] = [];
  for (const child of agent.agents) {
    children.push(agentTool({
      name: child.name,
      description: child.description || `Delegates one question to the ${child.name} agent.`,
      system: child.instructions,
      tools: await agentTools(child, ctx, resolveModel, everyModel),
      limits: child.limits,
      model: everyModel ?? childModel(child, resolveModel),
      agent: child.name,
    }));
  }
  const tools = [...own, ...children];
  checkUniqueToolNames(agent.name, tools.map((t) => t.name));
  return tools;
}

function childModel(child: Agent, resolveModel?: ResolveModel): Model | undefined {
  if (child.model === undefined || typeof child.model !== "string") return child.model;
  if (!resolveModel) {
    throw new TypeError(`agent ${child.name}: model "${child.model}" needs the process's models`);
  }
  return resolveModel(child.model);
}
