/**
 * `mcpServers` (the `reins.jsonc` shape other MCP clients use): every named
 * server's tools at once, each name prefixed with its server's (`fs__read_file`).
 *
 * @module
 */
import { messageOf, type Tool } from "./reins.ts";
import type { McpArgs } from "./json_schema_args.ts";
import { type McpToolOptions, mcpTools, type McpToolSet } from "./mcp_tools.ts";
import { McpStartError } from "./mcp_start_error.ts";

/** One named server: a command (stdio) or a URL (Streamable HTTP), and per-tool overrides. */
export interface McpServerEntry extends Omit<McpToolOptions, "name" | "prefix"> {
  /** `stdio` or `http` (`streamable-http`); implied by `command` or `url`. */
  type?: "stdio" | "http" | "streamable-http" | undefined;
  /** The program that starts the server, e.g. `npx`. */
  command?: string | undefined;
  /** Its arguments. */
  args?: string[] | undefined;
  /** Environment variables for it. */
  env?: Record<string, string> | undefined;
  /** Its working directory. */
  cwd?: string | undefined;
  /** The server's MCP endpoint. */
  url?: string | undefined;
  /** Headers sent to it. */
  headers?: Record<string, string> | undefined;
}

/** The tools of several servers, and the handle that closes them all. */
export interface McpServerTools {
  /** Every server's tools, named `<server>__<tool>`. */
  readonly tools: Tool<McpArgs>[];
  /** The open servers by name. */
  readonly servers: Readonly<Record<string, McpToolSet>>;
  /** Closes every server. */
  close(): Promise<void>;
  /** Same as `close`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Opens every server of an `mcpServers` map (in parallel) and gathers their
 * tools, each named `<server>__<tool>`. If one server fails, the others are
 * closed and an {@link McpStartError} names it.
 *
 * @example
 * ```ts
 * import { mcpServerTools } from "./mcp_servers.ts";
 * await using mcp = await mcpServerTools({
 *   fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] },
 * });
 * console.log(mcp.tools.map((t) => t.name)); // ["fs__read_file", …]
 * ```
 */
export async function mcpServerTools(
  servers: Readonly<Record<string, McpServerEntry>> = {},
  defaults: { stderr?: "inherit" | "ignore" | "pipe" | undefined } = {},
): Promise<McpServerTools> {
  const entries = Object.entries(servers);
  const settled = await Promise.allSettled(entries.map(([name, entry]) => {
    const { type: _type, command, url, ...rest } = entry;
    const options = { ...rest, name, prefix: `${name}__` };
    return url !== undefined
      ? mcpTools({ ...options, url, headers: entry.headers })
      : mcpTools({ ...options, command: command!, stderr: defaults.stderr });
  }));
  const open: Record<string, McpToolSet> = {};
  // allSettled answers each entry, in order.
  settled.forEach((s, i) => {
    if (s.status === "fulfilled") open[entries[i]![0]] = s.value;
  });
  const close = async () => void await Promise.all(Object.values(open).map((s) => s.close()));
  const failed = settled.findIndex((s) => s.status === "rejected");
  if (failed >= 0) {
    await close();
    // Whatever stopped it (no such program, no handshake, an override naming a
    // tool it lacks), the error names the server of the map.
    const e = (settled[failed] as PromiseRejectedResult).reason;
    if (e instanceof McpStartError) throw e;
    throw new McpStartError(`"${entries[failed]![0]}"`, messageOf(e), {
      cause: e,
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
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Two servers whose `<server>__<tool>` names meet (`a` with `b__c`, `a__b`
 * with `c`): the model would be offered one name twice, and one of the two
 * tools could never be called. Within a server, mcpTools refuses it already.
 */
function sameName(open: Readonly<Record<string, McpToolSet>>): McpStartError | null {
  const owner = new Map<string, string>();
  for (const [server, set] of Object.entries(open)) {
    for (const t of set.tools) {
      const first = owner.get(t.name);
      if (first !== undefined) {
        return new McpStartError(
          `"${server}"`,
          `its tool "${t.name}" has the name of a tool of "${first}" (<server>__<tool>): ` +
            "rename one of the servers",
        );
      }
      owner.set(t.name, server);
    }
  }
  return null;
}
