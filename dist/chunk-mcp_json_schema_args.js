import {
  settlesWithin
} from "./chunk-harness_settles_within.js";
import {
  McpStartError
} from "./chunk-mcp_mcp_start_error.js";
import {
  MAX_TIMER_MS,
  isObject,
  messageOf
} from "./chunk-harness_errors.js";

// mcp/json_schema_args.ts
function typeOf(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}
function fits(value, type) {
  const types = Array.isArray(type) ? type : [
    type
  ];
  if (!types.every((t) => typeof t === "string")) return true;
  const actual = typeOf(value);
  return types.some((t) => t === actual || t === "number" && actual === "integer");
}
function jsonSchemaArgs(schema) {
  const required = Array.isArray(schema["required"]) ? schema["required"].filter((k) => typeof k === "string") : [];
  const properties = isObject(schema["properties"]) ? schema["properties"] : {};
  return {
    safeParse(data) {
      if (!isObject(data)) {
        const issues2 = [
          {
            path: [],
            message: `expected an object, received ${typeOf(data)}`
          }
        ];
        return {
          success: false,
          error: {
            issues: issues2
          }
        };
      }
      const issues = [];
      for (const key of required) {
        if (!(key in data)) issues.push({
          path: [
            key
          ],
          message: "required"
        });
      }
      for (const [key, value] of Object.entries(data)) {
        const property = properties[key];
        if (!isObject(property) || property["type"] === void 0 || value === void 0) continue;
        if (!fits(value, property["type"])) {
          const expected = Array.isArray(property["type"]) ? property["type"].join(" or ") : property["type"];
          issues.push({
            path: [
              key
            ],
            message: `expected ${expected}, received ${typeOf(value)}`
          });
        }
      }
      return issues.length ? {
        success: false,
        error: {
          issues
        }
      } : {
        success: true,
        data
      };
    }
  };
}

// mcp/mcp_result.ts
function block(b) {
  switch (b.type) {
    case "text":
      return b.text ?? "";
    case "image":
    case "audio":
      return `[${b.type} ${b.mimeType ?? ""}, ${Math.floor((b.data?.length ?? 0) * 3 / 4)} bytes]`;
    case "resource": {
      const r = b.resource ?? {};
      if (typeof r.text === "string") return r.text;
      return `[resource ${r.uri ?? ""} ${r.mimeType ?? ""}]`.replace(/ +]/, "]");
    }
    case "resource_link":
      return `[resource link ${b.name ?? ""} ${b.uri ?? ""}]`.replace(/ +]/, "]");
    default:
      return `[${b.type} content]`;
  }
}
function resultText(result) {
  if (result.toolResult !== void 0) {
    return typeof result.toolResult === "string" ? result.toolResult : JSON.stringify(result.toolResult);
  }
  const blocks = Array.isArray(result.content) ? result.content.filter((b) => typeof b === "object" && b !== null && typeof b.type === "string") : [];
  if (blocks.length === 0 && result.structuredContent !== void 0) {
    return JSON.stringify(result.structuredContent);
  }
  return blocks.map(block).join("\n");
}

// mcp/mcp_connection.ts
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioClientTransport2 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";

// mcp/mcp_transport.ts
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
var isHttp = (spec) => "url" in spec;
var GRACE_MS = 2e3;
var OwnedStdioTransport = class extends StdioClientTransport {
  #child;
  #closed;
  #ending;
  /** A transport that will start the server `params` describe. */
  constructor(params) {
    super(params);
  }
  /** Spawns the server, keeping its process to end it later. */
  start() {
    const started = super.start();
    const child = this._process;
    if (child?.pid !== void 0) {
      this.#child = child;
      this.#closed = new Promise((resolve) => child.once("close", () => resolve()));
    }
    return started;
  }
  /** Ends the process (SIGTERM, SIGKILL 2 s later), then closes the transport. */
  async close() {
    this.#ending ??= this.#end();
    await this.#ending;
    await super.close();
  }
  async #end() {
    const child = this.#child, closed = this.#closed;
    if (!child || !closed) return;
    const running = () => child.exitCode === null && child.signalCode === null;
    if (running()) signal(child.pid, "SIGTERM");
    if (await settlesWithin(closed, GRACE_MS)) return;
    if (running()) signal(child.pid, "SIGKILL");
    await settlesWithin(closed, GRACE_MS);
  }
};
function signal(pid, s) {
  try {
    Deno.kill(pid, s);
  } catch {
  }
}
function makeTransport(spec) {
  return isHttp(spec) ? new StreamableHTTPClientTransport(new URL(spec.url), {
    requestInit: spec.headers ? {
      headers: spec.headers
    } : void 0,
    fetch: spec.fetch
  }) : new OwnedStdioTransport({
    command: spec.command,
    args: spec.args,
    env: spec.env,
    cwd: spec.cwd,
    stderr: spec.stderr ?? "inherit"
  });
}

// mcp/mcp_connection.ts
function serverLabel(spec, name) {
  if (name) return `"${name}"`;
  if (isHttp(spec)) return String(spec.url);
  return [
    spec.command,
    ...spec.args ?? []
  ].join(" ");
}
var McpConnection = class {
  #spec;
  #label;
  #client;
  #transport;
  #opening;
  #closed = false;
  constructor(spec, label) {
    this.#spec = spec;
    this.#label = label;
  }
  /** The stdio server's process id, or null (HTTP, or not running). */
  get pid() {
    return this.#transport instanceof StdioClientTransport2 ? this.#transport.pid : null;
  }
  /** The server's name and version from the handshake. */
  serverInfo() {
    return this.#client?.getServerVersion();
  }
  /** The connected client, connecting (again) if need be. */
  client(timeoutMs) {
    if (this.#closed) return Promise.reject(new Error(`MCP server ${this.#label} is closed`));
    if (this.#client) return Promise.resolve(this.#client);
    this.#opening ??= this.#open(timeoutMs).finally(() => this.#opening = void 0);
    return this.#opening;
  }
  async #open(timeoutMs) {
    const { client, transport } = await connect(this.#spec, this.#label, timeoutMs);
    client.onclose = () => {
      if (this.#client === client) this.#client = this.#transport = void 0;
    };
    if (this.#closed) {
      await release(client, transport);
      throw new Error(`MCP server ${this.#label} is closed`);
    }
    this.#client = client;
    this.#transport = transport;
    return client;
  }
  /** All the server's tools (every page). */
  async listTools(timeoutMs) {
    return listAll(await this.client(timeoutMs), timeoutMs);
  }
  /**
   * Calls a tool. Rejects with the signal's reason on abort (the SDK sends the
   * server `notifications/cancelled`), and with an error naming the server
   * and the tool when the server goes away or does not answer in time.
   */
  async callTool(name, args, opts) {
    const client = await this.client(opts.timeoutMs);
    return await callOne(client, name, args, opts).catch((e) => {
      if (opts.signal.aborted) throw opts.signal.reason;
      throw explain(e, this.#label, this.#client === void 0, name, opts.timeoutMs);
    });
  }
  /** Closes the connection (a stdio server's process is ended); later calls fail. */
  async close() {
    this.#closed = true;
    const opening = this.#opening;
    const client = this.#client;
    const transport = this.#transport;
    this.#client = this.#transport = void 0;
    if (client && transport) await release(client, transport);
    await opening?.catch(() => {
    });
  }
};
function callOne(client, name, args, opts) {
  return client.callTool({
    name,
    arguments: args
  }, void 0, {
    signal: opts.signal,
    onprogress: opts.onProgress,
    timeout: opts.timeoutMs,
    resetTimeoutOnProgress: true
  });
}
async function listAll(client, timeoutMs) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? {
      cursor
    } : void 0, {
      timeout: timeoutMs
    }).catch((e) => Promise.reject(invalidList(e)));
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}
function invalidList(e) {
  const issues = e?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return e;
  const first = issues[0];
  const path = (first.path ?? []).map((p) => typeof p === "number" ? `[${p}]` : `.${p}`).join("").replace(/^\./, "");
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return new Error(`its tools/list reply is not valid MCP: ${path || "the reply"}: ${first.message}${more}`, {
    cause: e
  });
}
function stderrTail(transport) {
  let text = "";
  const stream = transport instanceof StdioClientTransport2 ? transport.stderr : null;
  stream?.on("data", (chunk) => void (text = (text + String(chunk)).slice(-2e3)));
  return () => text.trim().split("\n").at(-1)?.trim().slice(0, 300) ?? "";
}
async function connect(spec, label, timeoutMs) {
  const transport = makeTransport(spec);
  const said = stderrTail(transport);
  const client = new Client({
    name: "reins",
    version: "0.1.0"
  }, {
    capabilities: {}
  });
  try {
    await client.connect(transport, {
      timeout: timeoutMs
    });
  } catch (e) {
    await release(client, transport);
    const tail = said() ? ` (its stderr: ${said()})` : "";
    throw new McpStartError(label, `Cannot connect to MCP server ${label}: ${messageOf(e)}${tail}`, {
      cause: e
    });
  }
  return {
    client,
    transport
  };
}
async function release(client, transport) {
  await transport.close().catch(() => {
  });
  await client.close().catch(() => {
  });
}
function explain(e, label, disconnected, tool, timeoutMs) {
  const at = `MCP server ${label}`;
  const code = typeof e === "object" && e !== null ? e.code : void 0;
  if (code === ErrorCode.ConnectionClosed) {
    return new Error(`${at} closed the connection during "${tool}" (the server exited or its stream ended); the next call starts it again`, {
      cause: e
    });
  }
  if (code === ErrorCode.RequestTimeout) {
    return new Error(`${at} did not answer "${tool}" within ${timeoutMs} ms`, {
      cause: e
    });
  }
  if (disconnected) {
    return new Error(`${at} is not connected ("${tool}" was not run): ${messageOf(e)}`, {
      cause: e
    });
  }
  return new Error(`${at} failed "${tool}": ${messageOf(e)}`, {
    cause: e
  });
}

// mcp/mcp_tools.ts
var NAME_CHARS = /[^a-zA-Z0-9_-]/g;
function check(options) {
  if (!options || typeof options !== "object") {
    throw new TypeError("mcpTools(options): options must be an object");
  }
  const hasCommand = "command" in options && options.command !== void 0;
  const hasUrl = "url" in options && options.url !== void 0;
  if (hasCommand === hasUrl) {
    throw new TypeError("mcpTools(options): give either `command` (stdio) or `url` (HTTP)");
  }
  if (hasCommand && (typeof options.command !== "string" || !options.command)) {
    throw new TypeError("mcpTools(options): command must be a non-empty string");
  }
  const t = options.timeoutMs;
  if (t !== void 0 && !(Number.isFinite(t) && t > 0 && t <= MAX_TIMER_MS)) {
    throw new RangeError(`mcpTools(options): timeoutMs must be more than 0 and at most ${MAX_TIMER_MS}, got ${t}`);
  }
}
function specOf(options) {
  if ("url" in options && options.url !== void 0) {
    return {
      url: options.url,
      headers: options.headers,
      fetch: options.fetch
    };
  }
  const o = options;
  return {
    command: o.command,
    args: o.args,
    env: o.env,
    cwd: o.cwd,
    stderr: o.stderr
  };
}
async function mcpTools(options) {
  check(options);
  const timeoutMs = options.timeoutMs ?? 6e4;
  const label = serverLabel(options, options.name);
  const connection = new McpConnection(specOf(options), label);
  let listed;
  try {
    listed = await connection.listTools(timeoutMs);
    const known = new Set(listed.map((t) => t.name));
    for (const key of [
      "only",
      "approve",
      "noApproval",
      "readOnly",
      "idempotent"
    ]) {
      const unknown = (options[key] ?? []).filter((n) => !known.has(n));
      if (unknown.length) {
        throw new TypeError(`mcpTools(${label}): ${key} names ${unknown.map((n) => `"${n}"`).join(", ")}, which the server does not have; it has: ${[
          ...known
        ].join(", ") || "no tools"}`);
      }
    }
  } catch (e) {
    await connection.close();
    throw e;
  }
  const only = options.only ? new Set(options.only) : void 0;
  const tools = listed.filter((t) => !only || only.has(t.name)).map((info) => reinsTool(info, connection, options, timeoutMs));
  const names = /* @__PURE__ */ new Set();
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
    [Symbol.asyncDispose]: close
  };
}
function reinsTool(info, connection, options, timeoutMs) {
  const has = (list) => list?.includes(info.name) ?? false;
  const hints = info.annotations ?? {};
  const readOnly = has(options.readOnly) || hints.readOnlyHint === true;
  const destructive = !readOnly && hints.destructiveHint !== false;
  const needsApproval = has(options.approve) || !has(options.noApproval) && destructive;
  const idempotent = readOnly || has(options.idempotent) || hints.idempotentHint === true;
  const { $schema: _drop, ...jsonSchema } = info.inputSchema ?? {
    type: "object"
  };
  const name = `${options.prefix ?? ""}${info.name}`.replace(NAME_CHARS, "_").slice(0, 64);
  return {
    name,
    description: info.description ?? "",
    parameters: jsonSchemaArgs(jsonSchema),
    jsonSchema,
    readOnly,
    idempotent,
    needsApproval,
    async run(args, ctx) {
      const result = await connection.callTool(info.name, args, {
        signal: ctx.signal,
        timeoutMs,
        onProgress: ({ progress, total, message }) => {
          const fraction = total ? Math.min(1, Math.max(0, progress / total)) : void 0;
          ctx.progress(message ?? `${progress}${total ? ` of ${total}` : ""}`, fraction);
        }
      });
      const text = resultText(result);
      if (result.isError) throw new Error(text || `"${info.name}" failed (no message)`);
      return text;
    }
  };
}

// mcp/mcp_servers.ts
async function mcpServerTools(servers = {}, defaults = {}) {
  const entries = Object.entries(servers);
  const settled = await Promise.allSettled(entries.map(([name, entry]) => {
    const { type: _type, command, url, ...rest } = entry;
    const options = {
      ...rest,
      name,
      prefix: `${name}__`
    };
    return url !== void 0 ? mcpTools({
      ...options,
      url,
      headers: entry.headers
    }) : mcpTools({
      ...options,
      command,
      stderr: defaults.stderr
    });
  }));
  const open = {};
  settled.forEach((s, i) => {
    if (s.status === "fulfilled") open[entries[i][0]] = s.value;
  });
  const close = async () => void await Promise.all(Object.values(open).map((s) => s.close()));
  const failed = settled.findIndex((s) => s.status === "rejected");
  if (failed >= 0) {
    await close();
    const e = settled[failed].reason;
    if (e instanceof McpStartError) throw e;
    throw new McpStartError(`"${entries[failed][0]}"`, messageOf(e), {
      cause: e
    });
  }
  const tools = Object.values(open).flatMap((s) => s.tools);
  const clash = sameName(open);
  if (clash) {
    await close();
    throw clash;
  }
  return {
    tools,
    servers: open,
    close,
    [Symbol.asyncDispose]: close
  };
}
function sameName(open) {
  const owner = /* @__PURE__ */ new Map();
  for (const [server, set] of Object.entries(open)) {
    for (const t of set.tools) {
      const first = owner.get(t.name);
      if (first !== void 0) {
        return new McpStartError(`"${server}"`, `its tool "${t.name}" has the name of a tool of "${first}" (<server>__<tool>): rename one of the servers`);
      }
      owner.set(t.name, server);
    }
  }
  return null;
}

export {
  mcpTools,
  mcpServerTools
};
