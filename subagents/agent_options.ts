/**
 * The run options an agent may set, and their one schema: `defineAgent`
 * checks an agent's with it, the HTTP API's run options are it (capped), and
 * a stored run's settings are validated with it when the run is executed.
 *
 * @module
 */
import { z } from "zod";
import type { BudgetMode } from "../harness/run_options.ts";
import { type ContextSettings, contextSettingsSchema } from "../harness/context_policy.ts";

/** The run options an agent may set (`run()`'s, by the same names). */
export interface AgentOptions {
  /** `soft` (default): check before each call; `hard`: also cap `max_tokens`. */
  budgetMode?: BudgetMode | undefined;
  /** Serve repeated identical read-only tool calls from cache (default false). */
  dedupe?: boolean | undefined;
  /** How tool errors reach the model (default `describe`). */
  toolErrors?: "describe" | "generic" | "fatal" | undefined;
  /** Read-only tool calls of one turn run at most this many at once (default 4). */
  concurrency?: number | undefined;
  /** A permanent tool error fails the run (default true). */
  stopOnPermanentError?: boolean | undefined;
  /**
   * Compact the prompt of long runs (`run()`'s `context`, the summary model by
   * name): a request may set its own (it only bounds the prompt).
   */
  context?: ContextSettings | undefined;
}

const POSITIVE = "expected a positive integer";
const BOOLEAN = "expected true or false";

let schema: ReturnType<typeof agentOptionsSchema> | undefined;

/**
 * The one schema of {@link AgentOptions}. Built on first use: importing
 * `mod.ts` (which exports `defineAgent`) does not build it, nor the context
 * settings' schema inside it, for a plain run that defines no agent.
 *
 * @example
 * ```ts
 * import { agentOptionsSchema } from "./agent_options.ts";
 * console.log(agentOptionsSchema().safeParse({ budgetMode: "hard", dedupe: true }).success); // true
 * ```
 */
export function agentOptionsSchema(): z.ZodObject<{
  budgetMode: z.ZodOptional<z.ZodEnum<{ soft: "soft"; hard: "hard" }>>;
  dedupe: z.ZodOptional<z.ZodBoolean>;
  toolErrors: z.ZodOptional<
    z.ZodEnum<{ describe: "describe"; generic: "generic"; fatal: "fatal" }>
  >;
  concurrency: z.ZodOptional<z.ZodInt>;
  stopOnPermanentError: z.ZodOptional<z.ZodBoolean>;
  context: z.ZodOptional<ReturnType<typeof contextSettingsSchema>>;
}, z.core.$strict> {
  return schema ??= z.strictObject({
    budgetMode: z.enum(["soft", "hard"], { error: 'expected "soft" or "hard"' }).optional(),
    dedupe: z.boolean({ error: BOOLEAN }).optional(),
    toolErrors: z.enum(["describe", "generic", "fatal"], {
      error: 'expected "describe", "generic" or "fatal"',
    }).optional(),
    concurrency: z.int({ error: POSITIVE }).min(1, { error: POSITIVE }).optional(),
    stopOnPermanentError: z.boolean({ error: BOOLEAN }).optional(),
    context: contextSettingsSchema().optional().describe(
      "Compact the prompt of a long run: old tool results elided, older turns summarized " +
        "(the summary model by name)",
    ),
  });
}

// Compile-time guard: AgentOptions and its schema describe the same fields. Compared
// without `undefined`, at every depth: zod infers `?: T | undefined` for `.optional()`,
// which differs from `?: T` only under exactOptionalPropertyTypes.
type Flat<T> = T extends readonly unknown[] ? T
  : T extends object ? { [K in keyof T]: Flat<Exclude<T[K], undefined>> }
  : T;
type Same<A, B> = (<T>() => T extends Flat<A> ? 1 : 2) extends (<T>() => T extends Flat<B> ? 1 : 2)
  ? true
  : false;
true satisfies Same<z.infer<ReturnType<typeof agentOptionsSchema>>, AgentOptions>;
