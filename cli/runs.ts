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
import { KvRunStore, type RunSummary } from "../kv/kv_run_store.ts";
import { describeRun } from "./summary.ts";
import { table } from "./table.ts";
import { loadTree } from "../subagents/tree.ts";
import { cutText } from "../harness/text.ts";

/** `--help` text. */
export const RUNS_USAGE = `Usage: deno task runs [list] [--status S] [--limit N] [--json]
       deno task runs show ID [--json]
       deno task runs trace ID
       deno task runs tree ID [--json]
Flags: --kv PATH (env REINS_KV_PATH, default .reins/runs.sqlite)
Exit codes:
  0  printed what was asked, whatever the run's status (read it from --json's "status")
  2  usage error: bad flag or value, unknown command, unknown run id (one line on stderr)`;

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

function listTable(runs: RunSummary[]): string {
  return tableText(
    ["id", "status", "turns", "cost", "age", "why"],
    runs.map((r) => [
      r.runId,
      r.status,
      String(r.turns),
      `$${r.costUsd.toFixed(6)}`,
      age(r.createdAt),
      r.stopReason ?? "",
    ]),
  );
}

/**
 * `deno task runs ARGS` (and `cli()`'s `runs ARGS`): list, show, trace, tree.
 *
 * @example
 * ```ts ignore
 * import { runsMain } from "./runs.ts";
 * Deno.exitCode = await runsMain(["list", "--json"]);
 * ```
 */
export async function runsMain(argv: string[]): Promise<number> {
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
    throw new UsageError((e as Error).message.split("\n")[0]);
  }
  const { values: v, positionals: pos } = parsed;
  if (v.help) return (console.log(RUNS_USAGE), EXIT_CODES.completed);
  const [sub = "list", id, ...rest] = pos;
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
  const kv = await openKv(v.kv ?? await defaultKvPath());
  try {
    const store = new KvRunStore(kv);
    if (sub === "list") {
      const runs = await store.list({ status: v.status as RunStatus | undefined, limit });
      console.log(v.json ? JSON.stringify(runs) : runs.length ? listTable(runs) : "no runs");
    } else if (sub === "show") {
      const s = await store.load(id);
      if (v.json) console.log(JSON.stringify(s));
      else {
        for (const line of describeRun(s)) console.log(line);
        if (RESUMABLE_STATUSES.includes(s.status) && s.status !== "running") {
          console.log(`  resume: deno task run --resume ${s.runId}`);
        }
        console.log("transcript:");
        for (const m of s.messages) {
          const text = m.role === "assistant"
            ? [
              m.content ?? "",
              ...(m.tool_calls ?? []).map((c) =>
                `-> ${c.function.name}(${c.function.arguments}) [${c.id}]`
              ),
            ]
              .filter(Boolean).join(" ")
            : m.role === "tool"
            ? `[${m.tool_call_id}] ${m.content}`
            : m.content;
          console.log(
            `  ${m.role.padEnd(9)} ${text.length > 300 ? cutText(text, 300) + "…" : text}`,
          );
        }
      }
    } else if (sub === "trace") {
      await store.load(id); // a clear error for an unknown id
      for (const e of await store.events(id)) console.log(JSON.stringify(e.event));
    } else {
      const nodes = await loadTree(store, id);
      console.log(
        v.json ? JSON.stringify(nodes) : tableText(
          ["id", "parent", "status", "turns", "costUsd"],
          nodes.map((n) => [
            `${"  ".repeat(n.depth)}${n.runId}`,
            n.parentId ?? "-",
            n.status,
            String(n.turns),
            `$${n.costUsd.toFixed(6)}`,
          ]),
        ),
      );
    }
    // Showing a run is not running it: its status is in what was printed.
    return EXIT_CODES.completed;
  } finally {
    kv.close();
  }
}

if (import.meta.main) await runCli(runsMain);
