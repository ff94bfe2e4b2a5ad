/**
 * Scripting your own agents: one scripted model plays a whole tree, because
 * a child agent's run calls the same model as its parent. Each request is
 * sent to the script of the agent whose instructions open it (its system
 * message), so a parent and its children each get their own script.
 *
 * @module
 */
import type { ChatMessage } from "../harness/messages.ts";
import type { Scenario } from "./scenarios.ts";

/** What {@link scriptAgents} needs of an agent (a `defineAgent` result is one). */
export interface ScriptableAgent {
  /** The agent's name, the key of its script. */
  readonly name: string;
  /** Its instructions: the system message its runs start with. */
  readonly instructions: string;
  /** Its child agents, scripted by name too. */
  readonly agents?: readonly ScriptableAgent[] | undefined;
}

/**
 * The task of the run a request belongs to: its first user message.
 *
 * @example
 * ```ts
 * import { taskOf } from "./script_agents.ts";
 * console.log(taskOf([{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }]));
 * // "Hi"
 * ```
 */
export function taskOf(messages: readonly ChatMessage[]): string {
  const first = messages.find((m) => m.role === "user");
  return first?.role === "user" ? first.content : "";
}

function instructionsByName(
  agents: readonly ScriptableAgent[],
  into = new Map<string, string>(),
): Map<string, string> {
  for (const a of agents) {
    const known = into.get(a.name);
    if (known !== undefined && known !== a.instructions) {
      throw new TypeError(`scriptAgents: two agents are named "${a.name}"`);
    }
    into.set(a.name, a.instructions);
    instructionsByName(a.agents ?? [], into);
  }
  return into;
}

/**
 * One scenario that plays each agent of a tree by its own script, chosen by
 * the request's system message (the agent's instructions). Every agent of
 * the tree needs a script (a `TypeError` names the one without: a child left
 * unscripted would only fail its own run, which its parent reads as a tool
 * error and may well answer past); a request with no agent's system message
 * is an error the provider answers with a 500 naming it.
 *
 * @example
 * ```ts
 * import { callTool, say, scriptAgents, scriptedModel } from "./mod.ts";
 * import { defineAgent, defineTool, newRun, run } from "../mod.ts";
 * import { agentTools } from "../subagents/mod.ts";
 * import { z } from "zod";
 * const notes = defineTool({
 *   name: "notes",
 *   description: "The notes.",
 *   parameters: z.object({}),
 *   readOnly: true,
 *   run: () => "the pool holds 20",
 * });
 * const researcher = defineAgent({ name: "researcher", instructions: "Read notes.", tools: [notes] });
 * const lead = defineAgent({ name: "lead", instructions: "Ask.", tools: [], agents: [researcher] });
 * const script = scriptAgents([lead], {
 *   lead: ({ turn, toolTexts }) =>
 *     turn === 0 ? callTool(0, "researcher", { question: "Pool size?" }) : say(toolTexts[0]),
 *   researcher: ({ turn, toolTexts }) => turn === 0 ? callTool(0, "notes") : say(toolTexts[0]),
 * });
 * const model = scriptedModel("team", { scenarios: { team: script } });
 * // In process: the lead's tools, its child included (a server builds the same).
 * const tools = await agentTools(lead, { rootId: "", dir: "" });
 * const done = await run(newRun("Pool?", { system: lead.instructions }), { model, tools });
 * console.log(done.output); // "the pool holds 20"
 * ```
 */
export function scriptAgents(
  agents: readonly ScriptableAgent[],
  scripts: Readonly<Record<string, Scenario>>,
): Scenario {
  const byInstructions = new Map<string, string>();
  for (const [name, instructions] of instructionsByName(agents)) {
    byInstructions.set(instructions, name);
  }
  for (const name of Object.keys(scripts)) {
    if (![...byInstructions.values()].includes(name)) {
      throw new TypeError(
        `scriptAgents: a script for "${name}", which is none of the agents`,
      );
    }
  }
  for (const name of byInstructions.values()) {
    if (!Object.hasOwn(scripts, name)) {
      throw new TypeError(
        `scriptAgents: no script for agent "${name}" (give every agent of the tree one; ` +
          `one that must not be asked: () => { throw new Error("not asked") })`,
      );
    }
  }
  return (input) => {
    const system = input.messages.find((m) => m.role === "system");
    const name = system?.role === "system" ? byInstructions.get(system.content) : undefined;
    if (name === undefined) {
      throw new Error(
        "scriptAgents: the request's system message is none of the agents' instructions",
      );
    }
    const script = Object.hasOwn(scripts, name) ? scripts[name] : undefined;
    if (!script) throw new Error(`scriptAgents: no script for agent "${name}"`);
    return script(input);
  };
}
