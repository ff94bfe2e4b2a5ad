/**
 * The `reins.jsonc` configuration file, read by the CLI and the server alike:
 * JSON with comments, validated strictly
 * (unknown keys are errors). Every error names the file and the field, and a
 * syntax error names its line and column.
 *
 * @module
 */
import { z } from "zod";
import { parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import { ReinsError } from "../harness/errors.ts";
import { messageOf } from "../harness/message_of.ts";
import { issueLine, objectError } from "../harness/schema_issue.ts";
import { readEnv } from "./env.ts";
import { type Prices, pricesSchemaOf, type PriceTable } from "../harness/cost.ts";
import { GIVEN_BUDGET, runLimitsSchema } from "../harness/limits.ts";
import { agentOptionsSchema } from "../subagents/agent_options.ts";
import type { ContextSettings } from "../harness/context_policy.ts";
import { MAX_TIMER_MS } from "../harness/sleep.ts";
import type { Model } from "../harness/model.ts";
import { createOpenAIModel, type OpenAIModelOptions } from "../openai/openai_model.ts";
import type { McpServerEntry } from "../mcp/mod.ts";

/**
 * A configuration file or value is invalid; the message names the file and field.
 *
 * @example
 * ```ts
 * import { ConfigError } from "./config.ts";
 * const e = new ConfigError("reins.jsonc: limits.maxTurns: expected a non-negative integer");
 * console.log(e.message);
 * // reins.jsonc: limits.maxTurns: expected a non-negative integer
 * ```
 */
export class ConfigError extends ReinsError {}

/** The default configuration file, relative to the working directory. */
export const DEFAULT_CONFIG_PATH = "reins.jsonc";

/** The contents of `reins.jsonc`. Every field is optional; absent means "use the default". */
export interface ReinsConfig {
  /** OpenAI-compatible endpoint base, e.g. `http://127.0.0.1:8788/v1`. */
  baseUrl?: string;
  /** Model name to request (and to look prices up by). */
  model?: string;
  /** Name of the environment variable holding the API key (default `LLM_API_KEY`). */
  apiKeyEnv?: string;
  /** Flat prices, or a table with per-model prices and a default. */
  prices?: Prices | PriceTable;
  /** Run limits (defaults: 20 turns, $1.00). */
  limits?: { maxTurns?: number; maxBudgetUsd?: number };
  /** `soft` (default): check before each call; `hard`: also cap `max_tokens` at what the rest buys. */
  budgetMode?: "soft" | "hard";
  /** Serve repeated identical read-only tool calls from cache (default false). */
  dedupe?: boolean;
  /** How tool errors reach the model: `describe` (default), `generic`, or `fatal` to the run. */
  toolErrors?: "describe" | "generic" | "fatal";
  /** Compact the prompt of long runs (a context policy, the summary model by name; default off). */
  context?: ContextSettings;
  /** Directory the file tools are confined to. */
  workspace?: string;
  /** MCP servers whose tools runs are offered, by name (the shape other MCP clients use). */
  mcpServers?: Record<string, McpServerConfig>;
}

/**
 * One entry of `mcpServers`: a command to start (stdio) or a URL (Streamable
 * HTTP), and optional per-tool overrides of the server's annotations.
 */
export type McpServerConfig = McpServerEntry;

const TIMEOUT = `expected milliseconds, more than 0 and at most ${MAX_TIMER_MS}`;
const STRING = "expected a non-empty string";

const text = z.string({ error: STRING }).min(1, { error: STRING });

const names = z.array(z.string({ error: "expected a tool name" }), { error: "expected an array" });
const strings = z.record(z.string(), z.string({ error: "expected a string" }), {
  error: objectError,
});
const mcpServerSchema = z.strictObject({
  type: z.enum(["stdio", "http", "streamable-http"], {
    error: 'expected "stdio", "http" or "streamable-http"',
  }).optional(),
  command: text.optional(),
  args: z.array(z.string({ error: "expected a string" }), { error: "expected an array" })
    .optional(),
  env: strings.optional(),
  cwd: text.optional(),
  url: z.url({ protocol: /^https?$/, error: "expected an http(s) URL" }).optional(),
  headers: strings.optional(),
  only: names.optional(),
  approve: names.optional(),
  noApproval: names.optional(),
  readOnly: names.optional(),
  idempotent: names.optional(),
  timeoutMs: z.number({ error: TIMEOUT }).positive({ error: TIMEOUT }).max(MAX_TIMER_MS, {
    error: TIMEOUT,
  }).optional(),
}, { error: objectError }).refine((s) => (s.command === undefined) !== (s.url === undefined), {
  error: 'expected "command" (a stdio server) or "url" (an HTTP server), not both',
});

const configSchema = z.strictObject({
  baseUrl: z.url({ protocol: /^https?$/, error: "expected an http(s) URL" }).optional(),
  model: text.optional(),
  apiKeyEnv: z.string({ error: "expected an environment variable name" })
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "expected an environment variable name" })
    .optional(),
  // Checked below against the flat or the table shape, for clearer messages than a union's.
  prices: z.unknown().optional(),
  limits: runLimitsSchema().partial().extend({
    maxBudgetUsd: z.number({ error: GIVEN_BUDGET }).positive({ error: GIVEN_BUDGET }).optional(),
  }).optional(),
  budgetMode: agentOptionsSchema().shape.budgetMode,
  dedupe: agentOptionsSchema().shape.dedupe,
  toolErrors: agentOptionsSchema().shape.toolErrors,
  context: agentOptionsSchema().shape.context,
  workspace: text.optional(),
  mcpServers: z.record(z.string(), mcpServerSchema, { error: objectError }).superRefine(
    (servers, ctx) => {
      for (const name of Object.keys(servers)) {
        if (!/^[a-zA-Z0-9_-]{1,32}$/.test(name)) {
          ctx.addIssue({
            code: "custom",
            path: [name],
            message: "a server name is 1-32 of a-z A-Z 0-9 _ -",
          });
        }
      }
    },
  ).optional(),
}, { error: "expected an object at the top level" });

function fail(source: string, issues: readonly z.core.$ZodIssue[], prefix = ""): never {
  throw new ConfigError(issues.map((issue) => `${source}: ${issueLine(issue, prefix)}`).join("\n"));
}

/** 1-based line and column of a character offset. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - (before.lastIndexOf("\n") + 1) + 1;
  return `${line}:${column}`;
}

/**
 * Parses and validates the text of a configuration file. `source` names the
 * file in error messages. An empty text is an empty configuration.
 *
 * @throws {ConfigError} on a syntax error (`reins.jsonc:3:14: invalid JSON
 * (PropertyNameExpected)`) or an invalid field (`reins.jsonc: limits.maxTurns:
 * expected a non-negative integer`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "./config.ts";
 * const config = parseConfig('{ "model": "gpt-x", "limits": { "maxTurns": 8 } } // note', "inline");
 * console.log(config.limits?.maxTurns); // 8
 * ```
 */
export function parseConfig(text: string, source: string): ReinsConfig {
  if (text.trim() === "") return {};
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true });
  const [first] = errors;
  if (first) {
    const { error, offset } = first;
    throw new ConfigError(
      `${source}:${lineColumn(text, offset)}: invalid JSON (${printParseErrorCode(error)})`,
    );
  }
  const result = configSchema.safeParse(value);
  if (!result.success) fail(source, result.error.issues);
  const { prices, ...rest } = result.data;
  const config: ReinsConfig = {};
  for (const [k, v] of Object.entries(rest)) {
    if (v !== undefined) (config as Record<string, unknown>)[k] = v;
  }
  if (prices !== undefined) {
    const checked = pricesSchemaOf(prices).safeParse(prices);
    if (!checked.success) fail(source, checked.error.issues, "prices");
    config.prices = checked.data;
  }
  return config;
}

/**
 * Reads and validates a configuration file. With no `path`, reads
 * `reins.jsonc` in the working directory and returns `{}` if there is none;
 * a `path` given explicitly must exist.
 *
 * @throws {ConfigError} when an explicit file is missing or unreadable, or the file is invalid.
 *
 * @example
 * ```ts
 * import { loadConfig } from "./config.ts";
 * const config = await loadConfig(); // {} when ./reins.jsonc does not exist
 * console.log(config.model ?? "(no model configured)");
 * ```
 */
export async function loadConfig(path?: string): Promise<ReinsConfig> {
  const file = path ?? DEFAULT_CONFIG_PATH;
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      if (path === undefined) return {};
      throw new ConfigError(`${file}: config file not found`);
    }
    throw new ConfigError(`${file}: cannot read: ${messageOf(e)}`);
  }
  return parseConfig(text, file);
}

const LLM_VARS = ["LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY"] as const;

/**
 * Creates the OpenAI-compatible model from `LLM_BASE_URL`, `LLM_API_KEY` and
 * `LLM_MODEL` (`overrides` win over the environment). Throws `ConfigError`
 * when the base URL or model name is set nowhere.
 *
 * @example
 * ```ts
 * import { modelFromEnv } from "./config.ts";
 * const env = new Map([["LLM_BASE_URL", "http://127.0.0.1:8788/v1"], ["LLM_MODEL", "gpt-x"]]);
 * const model = modelFromEnv(env, { maxRetries: 1 });
 * console.log(model.name); // "gpt-x"
 * ```
 */
export function modelFromEnv(
  env: { get(key: string): string | undefined } = Deno.env,
  overrides: Partial<OpenAIModelOptions> = {},
): Model {
  // The one reader of the environment, over just the variables a model needs.
  const read = readEnv(Object.fromEntries(LLM_VARS.map((k) => [k, env.get(k)])));
  const baseUrl = overrides.baseUrl ?? read.baseUrl;
  const model = overrides.model ?? read.model;
  const apiKey = overrides.apiKey ?? read.apiKey;
  if (!baseUrl) {
    throw new ConfigError("LLM_BASE_URL is not set (e.g. LLM_BASE_URL=http://127.0.0.1:8788/v1)");
  }
  if (!model) throw new ConfigError("LLM_MODEL is not set (the model name to request)");
  // apiKey is undefined only if overrides.apiKey is: leaving it out changes nothing.
  return createOpenAIModel({
    ...overrides,
    baseUrl,
    model,
    apiKey,
  });
}
