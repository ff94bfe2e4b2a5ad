/**
 * Turning one tool call into data: parse and validate the arguments, run the
 * tool under the run's signal, and report a result or an error, never a throw.
 *
 * @module
 */
import { raceSignal } from "./race_signal.ts";
import type { ToolCall } from "./messages.ts";
import { describeIssues, type ToolContext } from "./tool.ts";
import type { AnyTool } from "./run_options.ts";
import { PermanentToolError, SuspendRun } from "./errors.ts";
import { messageOf } from "./message_of.ts";
import type { Interruption } from "./exit.ts";

/** A tool call's outcome, as data. */
export type ToolOutcome =
  | { type: "tool-result"; output: string }
  | { type: "tool-error"; error: string; permanent: boolean; cause?: unknown }
  /** The tool stopped its run for now (the call stays pending), e.g. a child awaits approval. */
  | { type: "tool-suspended"; interruption: Interruption; reason: string };

/** A call whose tool and arguments are known good, or the error the model should read. */
export type PreparedCall =
  | { type: "ready"; call: ToolCall; tool: AnyTool; args: unknown }
  | { type: "invalid"; call: ToolCall; error: string };

/**
 * Looks the tool up and validates the model's arguments against its schema.
 *
 * @example
 * ```ts
 * import { prepareCall } from "./execute_tool.ts";
 * const p = prepareCall({ id: "c1", type: "function", function: { name: "nope", arguments: "{}" } }, new Map());
 * console.log(p.type); // "invalid"
 * ```
 */
export function prepareCall(call: ToolCall, tools: ReadonlyMap<string, AnyTool>): PreparedCall {
  const name = call.function?.name;
  const tool = tools.get(name);
  if (!tool) {
    const known = [...tools.keys()].join(", ") || "none";
    return { type: "invalid", call, error: `Unknown tool "${name}". Available tools: ${known}.` };
  }
  const raw = call.function.arguments;
  let parsed: unknown;
  try {
    parsed = raw === undefined || raw === "" ? {} : JSON.parse(raw);
  } catch (e) {
    return {
      type: "invalid",
      call,
      error: `Invalid arguments for ${name}: not valid JSON (${(e as Error).message}). ` +
        `Send a JSON object matching the tool's schema.`,
    };
  }
  const checked = tool.parameters.safeParse(parsed);
  if (!checked.success) {
    return {
      type: "invalid",
      call,
      error: `Invalid arguments for ${name}: ${describeIssues(checked.error.issues)}.`,
    };
  }
  return { type: "ready", call, tool, args: checked.data };
}

/** The args of a call as a person should see them: parsed JSON, else the raw text. */
export function displayArgs(call: ToolCall): unknown {
  try {
    return JSON.parse(call.function.arguments);
  } catch {
    return call.function.arguments;
  }
}

/** True when a tool's error can be fixed by no message (the run should stop). */
export function isPermanent(e: unknown): boolean {
  return e instanceof PermanentToolError ||
    (typeof e === "object" && e !== null && (e as { permanent?: unknown }).permanent === true);
}

/**
 * Runs a tool, racing its promise against the signal so a tool that ignores
 * the signal still cannot hold the run past a Stop. Rejects with the signal's
 * reason when aborted; every other failure is returned as a `tool-error`.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { invokeTool } from "./execute_tool.ts";
 * import { defineTool, standaloneContext } from "./tool.ts";
 * const t = defineTool({ name: "t", description: "", parameters: z.object({}), run: () => "ok" });
 * console.log(await invokeTool(t, {}, standaloneContext())); // { type: "tool-result", output: "ok" }
 * ```
 */
export async function invokeTool(
  tool: AnyTool,
  args: unknown,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const signal = ctx.signal;
  signal.throwIfAborted();
  try {
    const value = tool.run(args, ctx);
    // A tool that answered at once has nothing to race (a Stop cannot come in
    // between); a promise races the signal, so ignoring it cannot hold the run.
    return resultOf(isPromiseLike(value) ? await raceSignal(value, signal) : value);
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    if (e instanceof SuspendRun) {
      return { type: "tool-suspended", interruption: e.interruption, reason: e.message };
    }
    return { type: "tool-error", error: messageOf(e), permanent: isPermanent(e), cause: e };
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}

function resultOf(value: unknown): ToolOutcome {
  const output = typeof value === "string"
    ? value
    : value === undefined
    ? ""
    : JSON.stringify(value);
  return { type: "tool-result", output };
}
