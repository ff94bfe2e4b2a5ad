import {
  RecordError
} from "./chunk-kv_record_error.js";
import {
  GIVEN_BUDGET,
  agentOptionsSchema,
  issueLine,
  objectError,
  pricesSchemaOf,
  runLimitsSchema
} from "./chunk-harness_limits.js";
import {
  MAX_TIMER_MS,
  ReinsError,
  messageOf
} from "./chunk-harness_errors.js";

// runtime/config.ts
import { z } from "zod";
import { parse, printParseErrorCode } from "jsonc-parser";
var ConfigError = class extends ReinsError {
};
var DEFAULT_CONFIG_PATH = "reins.jsonc";
var TIMEOUT = `expected milliseconds, more than 0 and at most ${MAX_TIMER_MS}`;
var STRING = "expected a non-empty string";
var text = z.string({
  error: STRING
}).min(1, {
  error: STRING
});
var names = z.array(z.string({
  error: "expected a tool name"
}), {
  error: "expected an array"
});
var strings = z.record(z.string(), z.string({
  error: "expected a string"
}), {
  error: objectError
});
var mcpServerSchema = z.strictObject({
  type: z.enum([
    "stdio",
    "http",
    "streamable-http"
  ], {
    error: 'expected "stdio", "http" or "streamable-http"'
  }).optional(),
  command: text.optional(),
  args: z.array(z.string({
    error: "expected a string"
  }), {
    error: "expected an array"
  }).optional(),
  env: strings.optional(),
  cwd: text.optional(),
  url: z.url({
    protocol: /^https?$/,
    error: "expected an http(s) URL"
  }).optional(),
  headers: strings.optional(),
  only: names.optional(),
  approve: names.optional(),
  noApproval: names.optional(),
  readOnly: names.optional(),
  idempotent: names.optional(),
  timeoutMs: z.number({
    error: TIMEOUT
  }).positive({
    error: TIMEOUT
  }).max(MAX_TIMER_MS, {
    error: TIMEOUT
  }).optional()
}, {
  error: objectError
}).refine((s) => s.command === void 0 !== (s.url === void 0), {
  error: 'expected "command" (a stdio server) or "url" (an HTTP server), not both'
});
var configSchema = z.strictObject({
  baseUrl: z.url({
    protocol: /^https?$/,
    error: "expected an http(s) URL"
  }).optional(),
  model: text.optional(),
  apiKeyEnv: z.string({
    error: "expected an environment variable name"
  }).regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    error: "expected an environment variable name"
  }).optional(),
  // Checked below against the flat or the table shape, for clearer messages than a union's.
  prices: z.unknown().optional(),
  limits: runLimitsSchema().partial().extend({
    maxBudgetUsd: z.number({
      error: GIVEN_BUDGET
    }).positive({
      error: GIVEN_BUDGET
    }).optional()
  }).optional(),
  budgetMode: agentOptionsSchema().shape.budgetMode,
  dedupe: agentOptionsSchema().shape.dedupe,
  toolErrors: agentOptionsSchema().shape.toolErrors,
  context: agentOptionsSchema().shape.context,
  workspace: text.optional(),
  mcpServers: z.record(z.string(), mcpServerSchema, {
    error: objectError
  }).superRefine((servers, ctx) => {
    for (const name of Object.keys(servers)) {
      if (!/^[a-zA-Z0-9_-]{1,32}$/.test(name)) {
        ctx.addIssue({
          code: "custom",
          path: [
            name
          ],
          message: "a server name is 1-32 of a-z A-Z 0-9 _ -"
        });
      }
    }
  }).optional()
}, {
  error: "expected an object at the top level"
});
function fail(source, issues, prefix = "") {
  throw new ConfigError(issues.map((issue) => `${source}: ${issueLine(issue, prefix)}`).join("\n"));
}
function lineColumn(text2, offset) {
  const before = text2.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - (before.lastIndexOf("\n") + 1) + 1;
  return `${line}:${column}`;
}
function parseConfig(text2, source) {
  if (text2.trim() === "") return {};
  const errors = [];
  const value = parse(text2, errors, {
    allowTrailingComma: true
  });
  const [first] = errors;
  if (first) {
    const { error, offset } = first;
    throw new ConfigError(`${source}:${lineColumn(text2, offset)}: invalid JSON (${printParseErrorCode(error)})`);
  }
  const result = configSchema.safeParse(value);
  if (!result.success) fail(source, result.error.issues);
  const { prices, ...rest } = result.data;
  const config = {};
  for (const [k, v] of Object.entries(rest)) {
    if (v !== void 0) config[k] = v;
  }
  if (prices !== void 0) {
    const checked = pricesSchemaOf(prices).safeParse(prices);
    if (!checked.success) fail(source, checked.error.issues, "prices");
    config.prices = checked.data;
  }
  return config;
}
async function loadConfig(path) {
  const file = path ?? DEFAULT_CONFIG_PATH;
  let text2;
  try {
    text2 = await Deno.readTextFile(file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      if (path === void 0) return {};
      throw new ConfigError(`${file}: config file not found`);
    }
    throw new ConfigError(`${file}: cannot read: ${messageOf(e)}`);
  }
  return parseConfig(text2, file);
}

// runtime/process_tools.ts
async function openProcessTools(servers, options = {}) {
  if (!servers || Object.keys(servers).length === 0) {
    return {
      tools: [],
      servers: {},
      close: () => Promise.resolve()
    };
  }
  const { mcpServerTools } = await import("./mcp_servers.js");
  const mcp = await mcpServerTools(servers, options);
  let closed;
  return {
    tools: mcp.tools,
    servers: mcp.servers,
    close: () => closed ??= mcp.close()
  };
}

// kv/stored_task.ts
async function storedTask(store, id) {
  for (const seq of [
    0,
    1
  ]) {
    try {
      const m = await store.message(id, seq);
      if (m?.role === "user") return m.content ?? "";
    } catch (e) {
      if (!(e instanceof RecordError)) throw e;
    }
  }
  return "";
}

// harness/spend_text.ts
function usdPair(a, b) {
  let digits = 6;
  while (digits < 12 && a !== b && a.toFixed(digits) === b.toFixed(digits)) digits++;
  return [
    `$${a.toFixed(digits)}`,
    `$${b.toFixed(digits)}`
  ];
}
function percentOf(spent, budget) {
  if (!(budget > 0)) return spent > 0 ? "over a zero budget" : "0%";
  const p = spent / budget * 100;
  let digits = 0;
  const hides = (d) => spent !== budget && Number(p.toFixed(d)) === 100 || spent > 0 && Number(p.toFixed(d)) === 0;
  while (digits < 6 && hides(digits)) digits++;
  return `${p.toFixed(digits)}%`;
}
function spentText(spent, budget) {
  const [s, b] = usdPair(spent, budget);
  return `spent ${s} of ${b} (${percentOf(spent, budget)})`;
}

export {
  storedTask,
  usdPair,
  percentOf,
  spentText,
  ConfigError,
  loadConfig,
  openProcessTools
};
