/**
 * The transport of one MCP server, and the end of a stdio server's process
 * however reins lets go of it: a failed or timed-out start (the SDK's own
 * `connect()` closes the transport), `close()`, a shutdown. The SDK's
 * `close()` sends one SIGTERM, and its follow-up SIGKILL does nothing under
 * Deno (`ChildProcess.kill()` returns false once a signal was sent), so a
 * server that hangs and ignores SIGTERM would outlive reins; here the signals
 * go through `Deno.kill`, SIGKILL 2 s after SIGTERM.
 *
 * @module
 */
import type { ChildProcess } from "node:child_process";
import {
  StdioClientTransport,
  type StdioServerParameters,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { settlesWithin } from "../harness/settles_within.ts";

/** An MCP server started as a child process, spoken to over its stdin and stdout. */
export interface McpStdioServer {
  /** The program, e.g. `npx`. */
  command: string;
  /** Its arguments, e.g. `["-y", "@modelcontextprotocol/server-filesystem", "."]`. */
  args?: string[] | undefined;
  /** Environment variables added to a minimal inherited set (`PATH`, `HOME`, …). */
  env?: Record<string, string> | undefined;
  /** Working directory of the process. */
  cwd?: string | undefined;
  /**
   * What to do with the server's stderr (default `inherit`). `pipe` keeps it
   * out of the process's output (start-up banners) and quotes its last line
   * in the error when the server cannot be reached.
   */
  stderr?: "inherit" | "ignore" | "pipe" | undefined;
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpServer {
  /** The MCP endpoint, e.g. `https://example.com/mcp`. */
  url: string | URL;
  /** Headers sent with every request, e.g. `{ Authorization: "Bearer …" }`. */
  headers?: Record<string, string> | undefined;
  /** The `fetch` to use (default the global one). */
  fetch?: typeof fetch | undefined;
}

/** Where an MCP server is: a command to start, or a URL. */
export type McpServerSpec = McpStdioServer | McpHttpServer;

/** Whether the spec is a URL (Streamable HTTP). */
export const isHttp = (spec: McpServerSpec): spec is McpHttpServer => "url" in spec;

/** How long a server has between SIGTERM and SIGKILL, and after SIGKILL to close its pipes. */
const GRACE_MS = 2_000;

/**
 * A stdio transport whose `close()` ends the process for sure (see the module
 * doc). Every close, the SDK's included, waits for the same end.
 */
export class OwnedStdioTransport extends StdioClientTransport {
  #child: ChildProcess | undefined;
  #closed: Promise<void> | undefined;
  #ending: Promise<void> | undefined;

  /** A transport that will start the server `params` describe. */
  constructor(params: StdioServerParameters) {
    super(params);
  }

  /** Spawns the server, keeping its process to end it later. */
  start(): Promise<void> {
    const started = super.start();
    // spawn() ran synchronously inside start(): the process is there now.
    const child = (this as unknown as { _process?: ChildProcess })._process;
    if (child?.pid !== undefined) {
      this.#child = child;
      this.#closed = new Promise((resolve) => child.once("close", () => resolve()));
    }
    return started;
  }

  /** Ends the process (SIGTERM, SIGKILL 2 s later), then closes the transport. */
  async close(): Promise<void> {
    this.#ending ??= this.#end();
    await this.#ending;
    // The process has closed: the SDK's close finds nothing to wait for (no timer left).
    await super.close();
  }

  async #end(): Promise<void> {
    const child = this.#child, closed = this.#closed;
    if (!child || !closed) return;
    const running = () => child.exitCode === null && child.signalCode === null;
    if (running()) signal(child.pid!, "SIGTERM");
    if (await settlesWithin(closed, GRACE_MS)) return;
    if (running()) signal(child.pid!, "SIGKILL");
    // A grandchild may hold the pipes open: do not wait for them forever.
    await settlesWithin(closed, GRACE_MS);
  }
}

function signal(pid: number, s: Deno.Signal): void {
  try {
    Deno.kill(pid, s);
  } catch { /* already gone */ }
}

/** The transport for a server spec: Streamable HTTP for a URL, else an owned stdio process. */
export function makeTransport(spec: McpServerSpec): Transport {
  return isHttp(spec)
    ? new StreamableHTTPClientTransport(new URL(spec.url), {
      requestInit: spec.headers ? { headers: spec.headers } : undefined,
      fetch: spec.fetch,
    })
    : new OwnedStdioTransport({
      command: spec.command,
      args: spec.args,
      env: spec.env,
      cwd: spec.cwd,
      stderr: spec.stderr ?? "inherit",
    });
}
