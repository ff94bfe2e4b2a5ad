/**
 * One MCP server connection (stdio or Streamable HTTP) through the official
 * SDK's `Client`: connects lazily again after the server went away, and turns
 * the SDK's failures into errors that name the server.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpCallResult } from "./mcp_result.ts";
import { McpStartError } from "./mcp_start_error.ts";

/** An MCP server started as a child process, spoken to over its stdin and stdout. */
export interface McpStdioServer {
  /** The program, e.g. `npx`. */
  command: string;
  /** Its arguments, e.g. `["-y", "@modelcontextprotocol/server-filesystem", "."]`. */
  args?: string[];
  /** Environment variables added to a minimal inherited set (`PATH`, `HOME`, …). */
  env?: Record<string, string>;
  /** Working directory of the process. */
  cwd?: string;
  /**
   * What to do with the server's stderr (default `inherit`). `pipe` keeps it
   * out of the process's output (start-up banners) and quotes its last line
   * in the error when the server cannot be reached.
   */
  stderr?: "inherit" | "ignore" | "pipe";
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpServer {
  /** The MCP endpoint, e.g. `https://example.com/mcp`. */
  url: string | URL;
  /** Headers sent with every request, e.g. `{ Authorization: "Bearer …" }`. */
  headers?: Record<string, string>;
  /** The `fetch` to use (default the global one). */
  fetch?: typeof fetch;
}

/** Where an MCP server is: a command to start, or a URL. */
export type McpServerSpec = McpStdioServer | McpHttpServer;

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
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Give up after this long without a reply or progress. */
  timeoutMs: number;
}

const isHttp = (spec: McpServerSpec): spec is McpHttpServer => "url" in spec;

/** `fs`, `npx -y pkg dir`, or the URL's host: how errors name a server. */
export function serverLabel(spec: McpServerSpec, name?: string): string {
  if (name) return `"${name}"`;
  if (isHttp(spec)) return String(spec.url);
  return [spec.command, ...spec.args ?? []].join(" ");
}

const messageOf = (e: unknown) => e instanceof Error ? e.message : String(e);

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
    const spec = this.#spec;
    const transport = isHttp(spec)
      ? new StreamableHTTPClientTransport(new URL(spec.url), {
        requestInit: spec.headers ? { headers: spec.headers } : undefined,
        fetch: spec.fetch,
      })
      : new StdioClientTransport({
        command: spec.command,
        args: spec.args,
        env: spec.env,
        cwd: spec.cwd,
        stderr: spec.stderr ?? "inherit",
      });
    const said = stderrTail(transport);
    const client = new Client({ name: "reins", version: "0.1.0" }, { capabilities: {} });
    // A server that exits or ends its stream is forgotten: the next call connects again.
    client.onclose = () => {
      if (this.#client === client) this.#client = this.#transport = undefined;
    };
    try {
      await client.connect(transport, { timeout: timeoutMs });
    } catch (e) {
      await client.close().catch(() => {});
      throw new McpStartError(
        this.#label,
        `Cannot connect to MCP server ${this.#label}: ${messageOf(e)}${
          said() ? ` (its stderr: ${said()})` : ""
        }`,
        { cause: e },
      );
    }
    if (this.#closed) {
      await client.close();
      throw new Error(`MCP server ${this.#label} is closed`);
    }
    this.#client = client;
    this.#transport = transport;
    return client;
  }

  /** All the server's tools (every page). */
  async listTools(timeoutMs: number): Promise<McpToolInfo[]> {
    const client = await this.client(timeoutMs);
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
      tools.push(...page.tools as McpToolInfo[]);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  /**
   * Calls a tool. Rejects with the signal's reason on abort (the SDK sends the
   * server `notifications/cancelled`), and with an error naming the server
   * and the tool when the server goes away or does not answer in time.
   */
  async callTool(name: string, args: Record<string, unknown>, opts: CallOptions) {
    const client = await this.client(opts.timeoutMs);
    try {
      return await client.callTool({ name, arguments: args }, undefined, {
        signal: opts.signal,
        onprogress: opts.onProgress,
        timeout: opts.timeoutMs,
        resetTimeoutOnProgress: true,
      }) as McpCallResult;
    } catch (e) {
      if (opts.signal.aborted) throw opts.signal.reason;
      throw this.#explain(e, name, opts.timeoutMs);
    }
  }

  #explain(e: unknown, tool: string, timeoutMs: number): Error {
    const at = `MCP server ${this.#label}`;
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
    if (this.#client === undefined) {
      return new Error(`${at} is not connected ("${tool}" was not run): ${messageOf(e)}`, {
        cause: e,
      });
    }
    return new Error(`${at} failed "${tool}": ${messageOf(e)}`, { cause: e });
  }

  /** Closes the connection (a stdio server is stopped); later calls fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const opening = this.#opening;
    const client = this.#client;
    const transport = this.#transport;
    this.#client = this.#transport = undefined;
    if (client && transport instanceof StdioClientTransport) await stop(client, transport);
    await client?.close();
    await opening?.then((c) => c.close(), () => {});
  }
}

/**
 * Stops a stdio server: SIGTERM, then SIGKILL after 2 s. Done here rather than
 * by the SDK's `close()` so no timer outlives the close (the SDK leaves one).
 */
async function stop(client: Client, transport: StdioClientTransport): Promise<void> {
  const pid = transport.pid;
  if (pid === null) return;
  const exited = new Promise<void>((resolve) => {
    const previous = client.onclose;
    client.onclose = () => (previous?.(), resolve());
  });
  const signal = (s: Deno.Signal) => {
    try {
      Deno.kill(pid, s);
    } catch { /* already gone */ }
  };
  signal("SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), 2000));
  if (await Promise.race([exited, late]) === "late") {
    signal("SIGKILL");
    await exited;
  }
  clearTimeout(timer);
}
