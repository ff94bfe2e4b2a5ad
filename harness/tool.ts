/**
 * The tool contract: a name, a description, a zod schema for the arguments,
 * and a `run` that receives a {@link ToolContext}.
 *
 * @module
 */
import {
  adaptSchema,
  type AnySchema,
  type SchemaIssue,
  type ToolSchema,
} from "./schema_adapter.ts";
export type { SchemaIssue, ToolSchema } from "./schema_adapter.ts";
import type { ToolDefinition } from "./messages.ts";
import { isPlainName, PLAIN_NAME } from "./plain_name.ts";
import type { Model } from "./model.ts";
import type { LimitsInput } from "./limits.ts";
import type { StopCondition } from "./stop_conditions.ts";
import type { RunState } from "./state.ts";
import type { OutputSchema } from "./output.ts";

/** What a tool receives besides its arguments. */
export interface ToolContext {
  /** Aborts when the run is cancelled: pass it to every wait and fetch. */
  signal: AbortSignal;
  /** Reports progress (a `tool_progress` trace event); `fraction` in [0, 1] if known. */
  progress(label: string, fraction?: number): void;
  /** The id of the run making the call. */
  runId: string;
  /** The root of the run's tree (subagents); absent means the run is its own root. */
  rootId?: string;
  /** The model's id for this tool call. */
  callId: string;
  /**
   * Stable for this call across retries and resumes (`runId:callId`): pass it to
   * the system the tool writes to, so a retried write is applied once.
   */
  idempotencyKey: string;
  /**
   * Runs (or continues) a child run for this call, under every option the run
   * was started with: model, prices, `stopWhen`, tool-error policy,
   * `stopOnPermanentError`, dedupe, budget mode, concurrency, trace, store and
   * signal. Its budget is capped by what this run and its ancestors have left,
   * every dollar it spends is added to them as it is spent, and it shares the
   * tree's budget gate. The root's `stopWhen` conditions apply to the child
   * too unless `inheritStopWhen` is false. `child` must be a run made for this
   * call (`newRun(task, { parent: { runId, rootId, callId } })`); if the store
   * already holds it (the call is resumed), the stored one is continued, and
   * one that has already ended (`completed`, `failed`, a cap) is returned as is.
   */
  runChild(child: RunState, options: ChildRunOptions): Promise<RunState>;
}

/** What a tool gives {@link ToolContext.runChild} besides the child run. */
export interface ChildRunOptions {
  /** The child's tools (not inherited). */
  // deno-lint-ignore no-explicit-any
  tools: readonly Tool<any>[];
  /** The child's own limits; `maxBudgetUsd` is further capped by what the parent has left. */
  limits?: LimitsInput | undefined;
  /** The child's model (default: the parent's). */
  model?: Model | undefined;
  /** More stop conditions for the child, after the inherited ones. */
  stopWhen?: readonly StopCondition[] | undefined;
  /** Apply the parent's `stopWhen` to the child as well. Default true. */
  inheritStopWhen?: boolean | undefined;
  /** The child's output schema (not inherited: the parent's is for the parent's answer). */
  output?: OutputSchema | undefined;
}

/**
 * A {@link ToolContext} for calling a tool outside `run()` (scripts, tests,
 * benchmarks): a fresh signal unless given, progress dropped unless given,
 * and a `runChild` that throws, as there is no run to be a child of.
 *
 * @example
 * ```ts
 * import { standaloneContext } from "./tool.ts";
 * const ctx = standaloneContext({ runId: "r", callId: "c" });
 * console.log(ctx.idempotencyKey); // "r:c"
 * ```
 */
export function standaloneContext(
  fields: Partial<Omit<ToolContext, "runChild">> = {},
): ToolContext {
  const runId = fields.runId ?? "standalone";
  const callId = fields.callId ?? "call";
  return {
    signal: new AbortController().signal,
    progress: () => {},
    idempotencyKey: `${runId}:${callId}`,
    ...fields,
    runId,
    callId,
    runChild: () =>
      Promise.reject(
        new TypeError("runChild: this tool is called outside run(); call it from run()"),
      ),
  };
}

/** A tool as the loop sees it. */
export interface Tool<T = unknown> {
  /** The name the model calls it by. */
  readonly name: string;
  /** What it does, written for the model. */
  readonly description: string;
  /** Validates the model's arguments. */
  readonly parameters: ToolSchema<T>;
  /** The JSON schema sent to the model. */
  readonly jsonSchema: Record<string, unknown>;
  /** Reads only: safe to run again and to serve from the dedupe cache. */
  readonly readOnly: boolean;
  /** A write that is safe to repeat with the same idempotency key (retried after a crash). */
  readonly idempotent: boolean;
  /** Stop the run for a person's verdict before running. */
  readonly needsApproval: boolean | ((args: T) => boolean);
  /** Does the work. Return text (or JSON-able data); throw to report an error. */
  run(args: T, ctx: ToolContext): Promise<unknown> | unknown;
}

/** What {@link defineTool} takes. */
export interface ToolSpec<T> {
  /** The name the model calls it by: 1-64 of `a-z A-Z 0-9 _ -`. */
  name: string;
  /** What it does, written for the model. */
  description: string;
  /**
   * The arguments' schema: zod 4, or any Standard Schema that gives a JSON
   * Schema (arktype, valibot's converter). The model sees its JSON Schema. A
   * zod 3 schema is a `TypeError` here.
   */
  parameters: AnySchema<T>;
  /** Reads only: safe to run again and to serve from the dedupe cache. Default false. */
  readOnly?: boolean | undefined;
  /** A write that is safe to repeat with the same idempotency key. Default `readOnly`. */
  idempotent?: boolean | undefined;
  /** Stop the run for a person's verdict before running (or decide per call). Default false. */
  needsApproval?: boolean | ((args: T) => boolean) | undefined;
  /** Does the work. Return text (or JSON-able data); throw to report an error. */
  run(args: T, ctx: ToolContext): Promise<unknown> | unknown;
}

/**
 * Defines a tool. The JSON schema the model sees is derived from its parameters' schema
 * (zod 4, or a Standard JSON Schema such as arktype's).
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineTool } from "./tool.ts";
 * const shout = defineTool({
 *   name: "shout",
 *   description: "Upper-cases a text.",
 *   parameters: z.object({ text: z.string() }),
 *   readOnly: true,
 *   run: ({ text }) => text.toUpperCase(),
 * });
 * console.log(shout.jsonSchema.type); // "object"
 * ```
 */
export function defineTool<T>(spec: ToolSpec<T>): Tool<T> {
  if (!spec || typeof spec !== "object") {
    throw new TypeError("defineTool(spec): spec must be an object");
  }
  if (typeof spec.name !== "string" || !isPlainName(spec.name)) {
    throw new TypeError(
      `defineTool: name must match ${PLAIN_NAME}, got ${JSON.stringify(spec.name)}`,
    );
  }
  if (typeof spec.description !== "string") {
    throw new TypeError(`defineTool(${spec.name}): description must be a string`);
  }
  if (typeof spec.run !== "function") {
    throw new TypeError(`defineTool(${spec.name}): run must be a function`);
  }
  const { check, jsonSchema } = adaptSchema(spec.parameters, `defineTool(${spec.name})`);
  return {
    name: spec.name,
    description: spec.description,
    parameters: check,
    jsonSchema,
    readOnly: spec.readOnly ?? false,
    idempotent: spec.idempotent ?? spec.readOnly ?? false,
    needsApproval: spec.needsApproval ?? false,
    run: spec.run,
  };
}

/**
 * The `tools` array of a chat-completions request.
 *
 * @example
 * ```ts
 * import { toolDefinitions } from "./tool.ts";
 * console.log(toolDefinitions([])); // []
 * ```
 */
// deno-lint-ignore no-explicit-any
export function toolDefinitions(tools: readonly Tool<any>[]): ToolDefinition[] {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.jsonSchema },
  }));
}

/**
 * One line naming each problem of a failed validation, for the model to read.
 *
 * @example
 * ```ts
 * import { describeIssues } from "./tool.ts";
 * console.log(describeIssues([{ path: ["path"], message: "expected string, received number" }]));
 * ```
 */
export function describeIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((i) =>
    `${i.path.length ? i.path.map(String).join(".") : "(root)"}: ${i.message}`
  )
    .join("; ");
}
