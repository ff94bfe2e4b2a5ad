/**
 * `deno task runs`: list stored runs, show one, print its trace or its tree.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { runCli, UsageError } from "./args.ts";
import { EXIT_CODES } from "./exit_codes.ts";
import { RESUMABLE_STATUSES, RUN_STATUSES, type RunStatus } from "../harness/state.ts";
import { defaultKvPath, openKv } from "../kv/open_kv.ts";
import { readEnv } from "../runtime/env.ts";
import { KvRunStore, type RunSummary } from "../kv/kv_run_store.ts";
import { describeRun } from "./summary.ts";
import { table } from "./table.ts";
import { loadTree } from "../subagents/tree.ts";
import { cutText } from "../harness/text.ts";
import type { ChatMessage } from "../harness/messages.ts";
import { storedTask } from "../kv/stored_task.ts";

/**
 * The `--help` text, naming the command as `command` (a `cli()` of your own:
 * `deno run -A cli.ts runs`).
 *
 * @example
 * ```ts
 * import { runsUsage } from "./runs.ts";
 * console.log(runsUsage("deno run -A cli.ts runs").split("\n")[0]);
 * // Usage: deno run -A cli.ts runs [list] [--status S] [--limit N] [--json]
 * ```
 */
export function runsUsage(command = "deno task runs"): string {
  return `Usage: ${command} [list] [--status S] [--limit N] [--json]
       ${command} show ID [--json]
       ${command} trace ID
       ${command} tree ID [--json]
${RUNS_REST}`;
}

const RUNS_REST = `Flags: --kv PATH (env REINS_KV_PATH, default .reins/runs.sqlite)
Exit codes:
  0  printed what was asked, whatever the run's status (read it from --json's "status")
  2  usage error: bad flag or value, unknown command, unknown run id (one line on stderr)`;

/** `deno task runs --help`: this repository's {@link runsUsage}. */
export const RUNS_USAGE: string = runsUsage();

const STATUSES = RUN_STATUSES;

/** "3 s", "4 min", "2 h", "5 d" since an ISO time. */
export function age(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86400) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

function tableText(headers: string[], rows: string[][]): string {
  return table(headers, rows).join("\n");
}

/** A task as one short line of the list. */
function taskCell(task: string): string {
  const line = task.replace(/\s+/g, " ").trim();
  return line.length > 40 ? `${cutText(line, 39)}…` : line;
}

async function listTable(store: KvRunStore, runs: RunSummary[]): Promise<string> {
  const withTasks = await Promise.all(
    runs.map(async (r) => ({ r, task: await storedTask(store, r.runId) })),
  );
  return tableText(
    ["id", "status", "turns", "cost", "age", "task", "why"],
    withTasks.map(({ r, task }) => [
      r.runId,
      r.status,
      String(r.turns),
      `$${r.costUsd.toFixed(6)}`,
      age(r.createdAt),
      taskCell(task),
      r.stopReason ?? "",
    ]),
  );
}

/** What `deno task runs` was asked. */
interface RunsArgs {
  sub: "list" | "show" | "trace" | "tree";
  id: string;
  json: boolean;
  kv?: string | undefined;
  status?: RunStatus | undefined;
  limit: number;
  help: boolean;
}

function parseRunsArgs(argv: string[]): RunsArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: "boolean" },
        kv: { type: "string" },
        status: { type: "string" },
        limit: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    // parseArgs may add hint lines; the first says what is wrong.
    const [firstLine = ""] = (e as Error).message.split("\n");
    throw new UsageError(firstLine);
  }
  const { values: v, positionals: pos } = parsed;
  const [sub = "list", id = "", ...rest] = pos;
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if (!["list", "show", "trace", "tree"].includes(sub)) {
    throw new UsageError(`unknown command "${sub}"; see --help`);
  }
  if (sub !== "list" && !id) throw new UsageError(`runs ${sub} needs a run id`);
  if (sub === "list" && id) throw new UsageError(`runs list takes no run id (got "${id}")`);
  if (v.status !== undefined && !STATUSES.includes(v.status as RunStatus)) {
    throw new UsageError(`--status: expected ${STATUSES.join("|")}, got "${v.status}"`);
  }
  const limit = v.limit === undefined ? 100 : Number(v.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    throw new UsageError(`--limit: expected a positive integer, got "${v.limit}"`);
  }
  return {
    sub: sub as RunsArgs["sub"],
    id,
    json: v.json ?? false,
    kv: v.kv,
    status: v.status as RunStatus | undefined,
    limit,
    help: v.help ?? false,
  };
}

/** A message of the transcript as one line. */
function messageLine(m: ChatMessage): string {
  const text = m.role === "assistant"
    ? [
      m.content ?? "",
      ...(m.tool_calls ?? []).map((c) =>
        `-> ${c.function.name}(${c.function.arguments}) [${c.id}]`
      ),
    ].filter(Boolean).join(" ")
    : m.role === "tool"
    ? `[${m.tool_call_id}] ${m.content}`
    : m.content ?? "";
  return `  ${m.role.padEnd(9)} ${text.length > 300 ? cutText(text, 300) + "…" : text}`;
}

async function showRun(
  store: KvRunStore,
  id: string,
  json: boolean,
  command = "deno task run",
): Promise<void> {
  const s = await store.load(id);
  if (json) return console.log(JSON.stringify(s));
  for (const line of describeRun(s, command)) console.log(line);
  if (RESUMABLE_STATUSES.includes(s.status) && s.status !== "running") {
    console.log(`  resume: ${command} --resume ${s.runId}`);
  }
  console.log("transcript:");
  for (const m of s.messages) console.log(messageLine(m));
}

async function printTree(store: KvRunStore, id: string, json: boolean): Promise<void> {
  const nodes = await loadTree(store, id);
  if (json) return console.log(JSON.stringify(nodes));
  console.log(tableText(
    ["id", "parent", "status", "turns", "costUsd"],
    nodes.map((n) => [
      `${"  ".repeat(n.depth)}${n.runId}`,
      n.parentId ?? "-",
      n.status,
      String(n.turns),
      `$${n.costUsd.toFixed(6)}`,
    ]),
  ));
}

/** `REINS_KV_PATH`, read by the one reader of the environment; a bad variable is a usage error. */
function envKvPath(): string | undefined {
  try {
    return readEnv().kvPath;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/**
 * `deno task runs ARGS` (and `cli()`'s `runs ARGS`): list, show, trace, tree.
 * `runCommand` is how its hints name the command that runs agents (default
 * `deno task run`; `cli()` gives its own, and its usage is that + ` runs`).
 *
 * @example
 * ```ts ignore
 * import { runsMain } from "./runs.ts";
 * Deno.exitCode = await runsMain(["list", "--json"]);
 * ```
 */
export async function runsMain(argv: string[], runCommand?: string): Promise<number> {
  const a = parseRunsArgs(argv);
  const usage = runsUsage(runCommand === undefined ? undefined : `${runCommand} runs`);
  if (a.help) return (console.log(usage), EXIT_CODES.completed);
  const kv = await openKv(a.kv ?? await defaultKvPath(envKvPath()));
  try {
    const store = new KvRunStore(kv);
    if (a.sub === "list") {
      const { status, limit } = a;
      const runs = await store.list({ status, limit });
      const text = a.json
        ? JSON.stringify(runs)
        : runs.length
        ? await listTable(store, runs)
        : "no runs";
      console.log(text);
    } else if (a.sub === "show") await showRun(store, a.id, a.json, runCommand);
    else if (a.sub === "trace") {
      await store.load(a.id); // a clear error for an unknown id
      for (const e of await store.events(a.id)) console.log(JSON.stringify(e.event));
    } else await printTree(store, a.id, a.json);
    // Showing a run is not running it: its status is in what was printed.
    return EXIT_CODES.completed;
  } finally {
    kv.close();
  }
}

if (import.meta.main) await runCli(runsMain);
