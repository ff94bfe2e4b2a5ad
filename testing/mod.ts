/**
 * Testing: the scripted provider (an OpenAI-compatible endpoint whose reply is
 * a pure function of the conversation, with faults on demand), the in-process
 * scripted model, and the scenarios they play.
 *
 * @example
 * ```ts
 * import { scriptedModel } from "./mod.ts";
 * import { newRun, run } from "../mod.ts";
 * import { createWorkspace, demoTools } from "../demo/mod.ts";
 * const ws = await createWorkspace();
 * const done = await run(newRun("Which file mentions a timeout?"), {
 *   model: scriptedModel("plan"),
 *   tools: demoTools(ws),
 * });
 * console.log(done.status, done.turns); // completed 3
 * await ws.remove();
 * ```
 *
 * @module
 */
export { type Fault, FAULTS } from "./faults.ts";
export {
  createScriptedProvider,
  type ProviderRequestInfo,
  scriptedFetch,
  type ScriptedProvider,
  type ScriptedProviderOptions,
} from "./scripted_provider.ts";
export { scriptedModel, type ScriptedModelOptions } from "./scripted_model.ts";
// Scripting your own agents (children included) and reading a request's task.
export { type ScriptableAgent, scriptAgents, taskOf } from "./script_agents.ts";
export {
  callId,
  callTool,
  say,
  type Scenario,
  type ScenarioInput,
  scenarioNames,
  SCENARIOS,
  type ScriptedReply,
  type ScriptedToolCall,
} from "./scenarios.ts";
export { isSummaryRequest, scriptedSummary } from "./scripted_summarizer.ts";
