/**
 * Subagents: a tool whose work is a child run with its own transcript, its
 * own limits under the parent's budget, and the parent's signal. The parent's
 * transcript receives only the child's answer, or a sentence saying how it stopped.
 *
 * @module
 */
import { z } from "zod";
import { newRun, type RunState } from "../harness/state.ts";
import { checkLimits, type LimitsInput } from "../harness/limits.ts";
import type { StopCondition } from "../harness/stop_conditions.ts";
import { SuspendRun } from "../harness/errors.ts";
import type { Model } from "../harness/model.ts";
import type { AnyTool } from "../harness/run_options.ts";
import {
  type ChildRunOptions,
  defineTool,
  type Tool,
  type ToolContext,
  type ToolSchema,
} from "../harness/tool.ts";

/** Arguments of an agent tool without custom parameters. */
export interface QuestionArgs {
  /** The task for the child run (its first user message). */
  question: string;
}

/** What {@link agentTool} takes. */
export interface AgentToolOptions<T = QuestionArgs> {
  /** The tool's name, as the model calls it. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** The child run's system prompt. */
  system: string;
  /** The child run's tools (put another agent tool here for a deeper tree). */
  tools: readonly AnyTool[];
  /** The child's own limits; its budget is further capped by what the parent has left. */
  limits?: LimitsInput | undefined;
  /** Custom arguments (default `{ question: string }`); give `task` with them. */
  parameters?: ToolSchema<T> | undefined;
  /** The child's task from the arguments (default `args.question`). */
  task?: ((args: T) => string) | undefined;
  /** The child's model (default: the parent's). */
  model?: Model | undefined;
  /** More stop conditions for the child, after those it inherits from the parent. */
  stopWhen?: readonly StopCondition[] | undefined;
  /**
   * The parent's `stopWhen` (and so the root's) applies to the child too, by
   * default: `hasToolCall("final_answer")` given to the root also ends a child
   * that calls it. False gives the child only the turn cap, the budget and
   * this tool's `stopWhen`.
   */
  inheritStopWhen?: boolean | undefined;
  /** The agent name recorded on each child run (`RunState.agent`; `defineAgent` sets it). */
  agent?: string | undefined;
}

/**
 * The default parameters, one schema for every agent tool: a server builds
 * the tools of each run it executes, and each new zod object costs a fresh
 * JSON Schema and compiled parser (about 15 KB per run, kept while it runs).
 * Built on first use: a process that defines no agent tool never pays for it.
 */
let question: z.ZodObject<{ question: z.ZodString }> | undefined;
const questionSchema = () =>
  question ??= z.object({ question: z.string().min(1).describe("The question to research") });

/** In-flight child runs per tree root, so an executor can wait for every descendant. */
const active = new Map<string, Set<Promise<unknown>>>();

function track<T>(rootId: string, p: Promise<T>): Promise<T> {
  let set = active.get(rootId);
  if (!set) active.set(rootId, set = new Set());
  const settled = p.then(() => {}, () => {}).finally(() => {
    set.delete(settled);
    if (!set.size && active.get(rootId) === set) active.delete(rootId);
  });
  set.add(settled);
  return p;
}

/**
 * Resolves once no child run of the tree `rootId` (of any tree, without it)
 * is running in this process. A Stop ends the parent at once while its
 * children save and emit `run_stopped` a few ms later: await this before
 * reading the tree back or closing the store.
 *
 * @example
 * ```ts
 * import { treeSettled } from "./agent_tool.ts";
 * await treeSettled("no-such-root"); // resolves at once
 * ```
 */
export async function treeSettled(rootId?: string): Promise<void> {
  for (;;) {
    const sets = rootId === undefined ? [...active.values()] : [active.get(rootId)];
    const pending = sets.flatMap((s) => (s ? [...s] : []));
    if (!pending.length) return;
    await Promise.all(pending);
  }
}

/**
 * The id of the child run started by call `callId` of run `parentId`. It is
 * deterministic so a resumed parent finds (and resumes) the same child.
 *
 * @example
 * ```ts
 * import { childRunId } from "./agent_tool.ts";
 * console.log(childRunId("root", "call_0_1")); // "root.call_0_1"
 * ```
 */
export function childRunId(parentId: string, callId: string): string {
  return `${parentId}.${callId}`;
}

/**
 * What the parent's transcript receives for a child that stopped: its answer
 * when it completed, else one sentence saying how it stopped and, for a cap
 * or a budget, its last words ("partial finding").
 *
 * @example
 * ```ts
 * import { describeChildStop } from "./agent_tool.ts";
 * import { newRun } from "../harness/state.ts";
 * const s = { ...newRun("q"), status: "max_turns_exceeded" as const, turns: 6 };
 * console.log(describeChildStop("research", s));
 * // research stopped at its turn cap after 6 turns; partial finding: none
 * ```
 */
export function describeChildStop(name: string, child: Readonly<RunState>): string {
  const partial = partialFinding(child);
  switch (child.status) {
    case "completed":
      // A typed child's answer is a value: the parent reads its JSON.
      if (child.output !== null && typeof child.output !== "string") {
        return JSON.stringify(child.output);
      }
      return child.output || `${name} finished without an answer.`;
    case "max_turns_exceeded":
      return `${name} stopped at its turn cap after ${child.turns} turns; partial finding: ${partial}`;
    case "budget_exceeded":
      return `${name} stopped at its budget after ${child.turns} turns ($${
        child.costUsd.toFixed(6)
      } spent); partial finding: ${partial}`;
    case "failed":
      return `${name} failed: ${child.stopReason ?? child.error ?? "unknown error"}`;
    default:
      return `${name} stopped (${child.status}): ${child.stopReason ?? "no reason given"}`;
  }
}

function partialFinding(child: Readonly<RunState>): string {
  const last = child.messages.findLast((m) => m.role === "assistant" && m.content?.trim());
  return last?.content?.trim() || "none";
}

/**
 * Makes a tool (read-only) that runs a child run through `ctx.runChild`: own
 * window (its system prompt and the task), own limits with `maxBudgetUsd`
 * capped by what the parent has left, every other run option of the parent
 * (model, store, trace, prices, signal, tool-error policy, dedupe, budget
 * mode, and `stopWhen` unless `inheritStopWhen` is false), and every dollar it
 * spends added to the parent as it is spent. With a store, a
 * finished child is answered from the store and an interrupted one is resumed.
 * A child awaiting approval stops the parent `interrupted/approval` naming the
 * child run (`interruption.runId`); a cancelled child rethrows the abort.
 *
 * @example
 * ```ts
 * import { agentTool } from "./agent_tool.ts";
 * import { newRun, run } from "../mod.ts";
 * import { createWorkspace, demoTools } from "../demo/mod.ts";
 * import { scriptedModel } from "../testing/mod.ts";
 * import { TREE_SCENARIOS } from "../testing/tree_scenarios.ts";
 * const ws = await createWorkspace();
 * const research = agentTool({
 *   name: "research",
 *   description: "Researches a question in the workspace and returns the finding.",
 *   system: "Answer the question with the tools, briefly.",
 *   tools: demoTools(ws).filter((t) => t.readOnly),
 *   limits: { maxTurns: 6 },
 * });
 * const model = scriptedModel("research", { scenarios: TREE_SCENARIOS });
 * const done = await run(newRun("Investigate."), { model, tools: [research] });
 * console.log(done.output, done.childCostUsd > 0);
 * await ws.remove();
 * ```
 */
export function agentTool<T = QuestionArgs>(options: AgentToolOptions<T>): Tool<T> {
  const { name, description, system, tools, limits = {}, model, stopWhen, inheritStopWhen, agent } =
    options;
  if (!Array.isArray(tools)) throw new TypeError(`agentTool(${name}): tools must be an array`);
  if (typeof system !== "string") {
    throw new TypeError(`agentTool(${name}): system must be a string`);
  }
  const own = checkLimits(limits);
  const parameters = options.parameters ??
    (questionSchema() as ToolSchema<unknown> as ToolSchema<T>);
  const task = options.task ?? ((args: T) => (args as QuestionArgs).question);
  return defineTool<T>({
    name,
    description,
    parameters,
    readOnly: true,
    run: (args, ctx) => runChild(args, ctx),
  });

  async function runChild(args: T, ctx: ToolContext): Promise<string> {
    const rootId = ctx.rootId ?? ctx.runId;
    const child = newRun(task(args), {
      system,
      runId: childRunId(ctx.runId, ctx.callId),
      parent: { runId: ctx.runId, rootId, callId: ctx.callId },
      limits: own,
      agent,
    });
    const childOptions: ChildRunOptions = {
      tools,
      limits: own,
      model,
      stopWhen,
      inheritStopWhen,
    };
    const done = await track(rootId, ctx.runChild(child, childOptions));
    const i = done.interruption;
    if (done.status === "interrupted" && i?.type === "approval") {
      const holder = i.runId ?? done.runId;
      const what = i.why === "needs_approval" ? "needs approval" : "has an uncertain effect";
      throw new SuspendRun(
        { ...i, runId: holder },
        `awaiting a verdict in child run "${holder}" (via ${name} call ${ctx.callId}): ` +
          `${i.toolName} (${i.callId}) ${what}`,
      );
    }
    if (done.status === "interrupted" && i?.type === "cancelled") {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw new SuspendRun(i, `child run "${done.runId}" was cancelled: ${i.reason}`);
    }
    return describeChildStop(name, done);
  }
}
