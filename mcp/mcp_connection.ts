/**
 * One MCP server connection (stdio or Streamable HTTP) through the official
 * SDK's `Client`: connects lazily again after the server went away, and turns
 * the SDK's failures into errors that name the server.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpCallResult } from "./mcp_result.ts";
import { McpStartError } from "./mcp_start_error.ts";
import { messageOf } from "./reins.ts";
import { isHttp, makeTransport, type McpServerSpec } from "./mcp_transport.ts";

export type { McpHttpServer, McpServerSpec, McpStdioServer } from "./mcp_transport.ts";

/** The tool as the server lists it (the fields reins reads). */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
  };
}

/** Options of one `tools/call`. */
export interface CallOptions {
  /** Aborting sends `notifications/cancelled` to the server and rejects with the reason. */
  signal: AbortSignal;
  /** Receives the server's progress notifications. */
  onProgress?:
    | ((progress: { progress: number; total?: number; message?: string }) => void)
    | undefined;
  /** Give up after this long without a reply or progress. */
  timeoutMs: number;
}

/** `fs`, `npx -y pkg dir`, or the URL's host: how errors name a server. */
export function serverLabel(spec: McpServerSpec, name?: string): string {
  if (name) return `"${name}"`;
  if (isHttp(spec)) return String(spec.url);
  return [spec.command, ...spec.args ?? []].join(" ");
}

/** A connection to one MCP server. */
export class McpConnection {
  readonly #spec: McpServerSpec;
  readonly #label: string;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #opening: Promise<Client> | undefined;
  #closed = false;

  constructor(spec: McpServerSpec, label: string) {
    this.#spec = spec;
    this.#label = label;
  }

  /** The stdio server's process id, or null (HTTP, or not running). */
  get pid(): number | null {
    return this.#transport instanceof StdioClientTransport ? this.#transport.pid : null;
  }

  /** The server's name and version from the handshake. */
  serverInfo(): { name: string; version: string } | undefined {
    return this.#client?.getServerVersion();
  }

  /** The connected client, connecting (again) if need be. */
  client(timeoutMs: number): Promise<Client> {
    if (this.#closed) return Promise.reject(new Error(`MCP server ${this.#label} is closed`));
    if (this.#client) return Promise.resolve(this.#client);
    this.#opening ??= this.#open(timeoutMs).finally(() => this.#opening = undefined);
    return this.#opening;
  }

  async #open(timeoutMs: number): Promise<Client> {
    const { client, transport } = await connect(this.#spec, this.#label, timeoutMs);
    // A server that exits or ends its stream is forgotten: the next call connects again.
    client.onclose = () => {
      if (this.#client === client) this.#client = this.#transport = undefined;
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
  async listTools(timeoutMs: number): Promise<McpToolInfo[]> {
    return listAll(await this.client(timeoutMs), timeoutMs);
  }

  /**
   * Calls a tool. Rejects with the signal's reason on abort (the SDK sends the
   * server `notifications/cancelled`), and with an error naming the server
   * and the tool when the server goes away or does not answer in time.
   */
  async callTool(name: string, args: Record<string, unknown>, opts: CallOptions) {
    const client = await this.client(opts.timeoutMs);
    return await callOne(client, name, args, opts).catch((e) => {
      if (opts.signal.aborted) throw opts.signal.reason;
      throw explain(e, this.#label, this.#client === undefined, name, opts.timeoutMs);
    });
  }

  /** Closes the connection (a stdio server's process is ended); later calls fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const opening = this.#opening;
    const client = this.#client;
    const transport = this.#transport;
    this.#client = this.#transport = undefined;
    if (client && transport) await release(client, transport);
    // A connection still opening sees #closed and releases its server itself.
    await opening?.catch(() => {});
  }
}

/** One `tools/call`, the timeout reset by each progress notification. */
function callOne(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  opts: CallOptions,
): Promise<McpCallResult> {
  return client.callTool({ name, arguments: args }, undefined, {
    signal: opts.signal,
    onprogress: opts.onProgress,
    timeout: opts.timeoutMs,
    resetTimeoutOnProgress: true,
  }) as Promise<McpCallResult>;
}

/** Every page of a server's tool list. */
async function listAll(client: Client, timeoutMs: number): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs })
      .catch((e: unknown) => Promise.reject(invalidList(e)));
    tools.push(...page.tools as McpToolInfo[]);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/**
 * A tools/list reply the SDK's schema refused (e.g. an `inputSchema` that is
 * no object) as one line naming the first field, not the schema library's
 * list of issues; anything else as it is.
 */
function invalidList(e: unknown): unknown {
  const issues = (e as { issues?: unknown } | null)?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return e;
  const first = issues[0] as { path?: unknown[]; message?: string };
  const path = (first.path ?? []).map((p) => typeof p === "number" ? `[${p}]` : `.${p}`).join("")
    .replace(/^\./, "");
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return new Error(
    `its tools/list reply is not valid MCP: ${path || "the reply"}: ${first.message}${more}`,
    { cause: e },
  );
}

/**
 * The last line a piped stderr said (read as it comes, so a chatty server
 * never blocks on a full pipe); "" for any other transport.
 */
function stderrTail(transport: Transport): () => string {
  let text = "";
  const stream = transport instanceof StdioClientTransport ? transport.stderr : null;
  stream?.on("data", (chunk: unknown) => void (text = (text + String(chunk)).slice(-2000)));
  return () => text.trim().split("\n").at(-1)?.trim().slice(0, 300) ?? "";
}

/** Connects a new client to the server; a server that fails to start is ended. */
async function connect(
  spec: McpServerSpec,
  label: string,
  timeoutMs: number,
): Promise<{ client: Client; transport: Transport }> {
  const transport = makeTransport(spec);
  const said = stderrTail(transport);
  const client = new Client({ name: "reins", version: "0.1.0" }, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (e) {
    await release(client, transport);
    const tail = said() ? ` (its stderr: ${said()})` : "";
    throw new McpStartError(
      label,
      `Cannot connect to MCP server ${label}: ${messageOf(e)}${tail}`,
      {
        cause: e,
      },
    );
  }
  return { client, transport };
}

/**
 * Lets go of a server: the transport is closed first and awaited (the SDK's
 * client may have forgotten it already, after a failed start), which ends a
 * stdio server's process (see mcp_transport.ts).
 */
async function release(client: Client, transport: Transport): Promise<void> {
  await transport.close().catch(() => {});
  await client.close().catch(() => {});
}

/** An error of `tools/call` that names the server and the tool. */
function explain(
  e: unknown,
  label: string,
  disconnected: boolean,
  tool: string,
  timeoutMs: number,
): Error {
  const at = `MCP server ${label}`;
  // By code, not class: a second copy of the SDK would fail an instanceof.
  const code = typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
  if (code === ErrorCode.ConnectionClosed) {
    return new Error(
      `${at} closed the connection during "${tool}" (the server exited or its stream ended); ` +
        `the next call starts it again`,
      { cause: e },
    );
  }
  if (code === ErrorCode.RequestTimeout) {
    return new Error(`${at} did not answer "${tool}" within ${timeoutMs} ms`, { cause: e });
  }
  if (disconnected) {
    return new Error(`${at} is not connected ("${tool}" was not run): ${messageOf(e)}`, {
      cause: e,
    });
  }
  return new Error(`${at} failed "${tool}": ${messageOf(e)}`, { cause: e });
}
