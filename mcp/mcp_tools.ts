/**
 * `mcpTools()`: the tools of an MCP server as reins tools. The server's
 * annotations say how the harness may treat each tool: `readOnlyHint` makes it
 * dedupable, `destructiveHint` (true unless said otherwise, as the MCP spec
 * defaults it) makes it wait for approval, `idempotentHint` lets a write be
 * re-run on resume instead of stopping as `uncertain_effect`.
 *
 * @module
 */
import { MAX_TIMER_MS, type Tool, type ToolContext } from "./reins.ts";
import { jsonSchemaArgs, type McpArgs } from "./json_schema_args.ts";
import { resultText } from "./mcp_result.ts";
import {
  McpConnection,
  type McpServerSpec,
  type McpStdioServer,
  type McpToolInfo,
  serverLabel,
} from "./mcp_connection.ts";

/** How to treat a server's tools; every list names tools as the server does. */
export interface McpToolOptions {
  /** The server's name in error messages (and in `mcpServers`). Default: its command or URL. */
  name?: string | undefined;
  /** Put before every tool name, e.g. `fs__` (names are cut to 64 of `a-z A-Z 0-9 _ -`). */
  prefix?: string | undefined;
  /** Offer only these tools. Default all. */
  only?: readonly string[] | undefined;
  /** These tools wait for approval, whatever their annotations say. */
  approve?: readonly string[] | undefined;
  /** These tools never wait for approval, whatever their annotations say. */
  noApproval?: readonly string[] | undefined;
  /** These tools only read (dedupable, safe to re-run, no approval). */
  readOnly?: readonly string[] | undefined;
  /** These writes are safe to repeat (re-run on resume). */
  idempotent?: readonly string[] | undefined;
  /** A call that gets no reply or progress for this long fails. Default 60,000 ms. */
  timeoutMs?: number | undefined;
}

/** What {@link mcpTools} takes: where the server is, and how to treat its tools. */
export type McpToolsOptions = McpServerSpec & McpToolOptions;

/** The tools of one MCP server, and the handle to close it. */
export interface McpToolSet {
  /** The server's tools as reins tools, in the server's order. */
  readonly tools: Tool<McpArgs>[];
  /** The server's name and version, as it said in the handshake. */
  readonly server: { name: string; version: string } | undefined;
  /** The stdio server's process id, or null (HTTP, or not running). */
  readonly pid: number | null;
  /** Closes the connection and stops a stdio server. */
  close(): Promise<void>;
  /** Same as `close`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

const NAME_CHARS = /[^a-zA-Z0-9_-]/g;

function check(options: McpToolsOptions): void {
  if (!options || typeof options !== "object") {
    throw new TypeError("mcpTools(options): options must be an object");
  }
  const hasCommand = "command" in options && options.command !== undefined;
  const hasUrl = "url" in options && options.url !== undefined;
  if (hasCommand === hasUrl) {
    throw new TypeError("mcpTools(options): give either `command` (stdio) or `url` (HTTP)");
  }
  if (hasCommand && (typeof options.command !== "string" || !options.command)) {
    throw new TypeError("mcpTools(options): command must be a non-empty string");
  }
  const t = options.timeoutMs;
  if (t !== undefined && !(Number.isFinite(t) && t > 0 && t <= MAX_TIMER_MS)) {
    throw new RangeError(
      `mcpTools(options): timeoutMs must be more than 0 and at most ${MAX_TIMER_MS}, got ${t}`,
    );
  }
}

/** The spec alone, without reins's options (so they are not passed to the SDK). */
function specOf(options: McpToolsOptions): McpServerSpec {
  if ("url" in options && options.url !== undefined) {
    return { url: options.url, headers: options.headers, fetch: options.fetch };
  }
  const o = options as McpStdioServer;
  return { command: o.command, args: o.args, env: o.env, cwd: o.cwd, stderr: o.stderr };
}

/**
 * Connects to an MCP server (starting it, over stdio) and returns its tools.
 * A call's abort reaches the server as a cancellation, its progress
 * notifications become `tool_progress` events, a result with `isError` is a
 * tool error (the run's `toolErrors` policy applies), and a server that dies
 * mid-call fails that call with an error saying so; the next call starts it
 * again. Close the set when done.
 *
 * @throws {TypeError} for bad options or an option naming a tool the server lacks.
 * @throws {McpStartError} when the server cannot be started or reached.
 *
 * @example
 * ```ts
 * import { mcpTools } from "./mcp_tools.ts";
 * import { newRun, run } from "../mod.ts";
 * import { scriptedModel } from "../testing/mod.ts";
 * const fs = await mcpTools({
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-filesystem", "."],
 *   approve: ["create_directory"],
 * });
 * try {
 *   const done = await run(newRun("List the files"), { model: scriptedModel("echo"), tools: fs.tools });
 *   console.log(done.status);
 * } finally {
 *   await fs.close();
 * }
 * ```
 */
export async function mcpTools(options: McpToolsOptions): Promise<McpToolSet> {
  check(options);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const label = serverLabel(options, options.name);
  const connection = new McpConnection(specOf(options), label);
  let listed: McpToolInfo[];
  try {
    listed = await connection.listTools(timeoutMs);
    const known = new Set(listed.map((t) => t.name));
    for (const key of ["only", "approve", "noApproval", "readOnly", "idempotent"] as const) {
      const unknown = (options[key] ?? []).filter((n) => !known.has(n));
      if (unknown.length) {
        throw new TypeError(
          `mcpTools(${label}): ${key} names ${unknown.map((n) => `"${n}"`).join(", ")}, ` +
            `which the server does not have; it has: ${[...known].join(", ") || "no tools"}`,
        );
      }
    }
  } catch (e) {
    await connection.close();
    throw e;
  }
  const only = options.only ? new Set(options.only) : undefined;
  const tools = listed.filter((t) => !only || only.has(t.name))
    .map((info) => reinsTool(info, connection, options, timeoutMs));
  const names = new Set<string>();
  for (const t of tools) {
    if (names.has(t.name)) {
      await connection.close();
      throw new TypeError(`mcpTools(${label}): two tools are named "${t.name}" once cleaned up`);
    }
    names.add(t.name);
  }
  const close = () => connection.close();
  return {
    tools,
    get server() {
      return connection.serverInfo();
    },
    get pid() {
      return connection.pid;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

function reinsTool(
  info: McpToolInfo,
  connection: McpConnection,
  options: McpToolOptions,
  timeoutMs: number,
): Tool<McpArgs> {
  const has = (list?: readonly string[]) => list?.includes(info.name) ?? false;
  const hints = info.annotations ?? {};
  const readOnly = has(options.readOnly) || hints.readOnlyHint === true;
  // The MCP spec: destructiveHint defaults to true, and means nothing for a read-only tool.
  const destructive = !readOnly && hints.destructiveHint !== false;
  const needsApproval = has(options.approve) || (!has(options.noApproval) && destructive);
  const idempotent = readOnly || has(options.idempotent) || hints.idempotentHint === true;
  const { $schema: _drop, ...jsonSchema } = info.inputSchema ?? { type: "object" };
  const name = `${options.prefix ?? ""}${info.name}`.replace(NAME_CHARS, "_").slice(0, 64);
  return {
    name,
    description: info.description ?? "",
    parameters: jsonSchemaArgs(jsonSchema),
    jsonSchema,
    readOnly,
    idempotent,
    needsApproval,
    async run(args: McpArgs, ctx: ToolContext): Promise<string> {
      const result = await connection.callTool(info.name, args, {
        signal: ctx.signal,
        timeoutMs,
        onProgress: ({ progress, total, message }) => {
          const fraction = total ? Math.min(1, Math.max(0, progress / total)) : undefined;
          ctx.progress(message ?? `${progress}${total ? ` of ${total}` : ""}`, fraction);
        },
      });
      const text = resultText(result);
      if (result.isError) throw new Error(text || `"${info.name}" failed (no message)`);
      return text;
    },
  };
}
