/**
 * `deno task run`: the demo with no arguments; otherwise one run, persisted in
 * Deno KV, or a continuation of one (resume, approve, reject, stop).
 *
 * @module
 */
import { parseRunArgs, RUN_USAGE, runCli, type RunFlags, UsageError } from "./args.ts";
import { describeRun, summarize } from "./summary.ts";
import { streamPrinter } from "./stream_printer.ts";
import { loadConfig, type ReinsConfig } from "../runtime/config.ts";
import { newRun, type RunState } from "../harness/state.ts";
import type { Model } from "../harness/model.ts";
import { createOpenAIModel } from "../openai/openai_model.ts";
import { checkPrices } from "../harness/cost.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import {
  BUILT_IN_SCENARIOS as SCENARIOS,
  SCRIPTED_CHUNK_MS,
} from "../testing/scripted_provider.ts";
import { combineSinks, fileSink, type TraceSink } from "../harness/trace.ts";
import { createWorkspace, openWorkspace } from "../tools/workspace.ts";
import { defaultKvPath, openKv } from "../kv/open_kv.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { continueTree, type Verdict } from "../runtime/continue_tree.ts";
import { executeTree } from "../runtime/execute_tree.ts";
import { runOptionsFor } from "../runtime/run_settings.ts";
import { awaitLease } from "../runtime/await_lease.ts";
import { runDemo } from "./demo.ts";
import { exitCodeOf } from "./exit_codes.ts";
import { mcpServerTools } from "../mcp/mod.ts";
import { checkBaseUrl, checkTracePath } from "./preflight.ts";
import { stopCommand } from "./stop_command.ts";
import { mcpToolLines } from "./mcp_lines.ts";

const env = (k: string) => Deno.env.get(k);

function chooseModel(flags: RunFlags, config: ReinsConfig, stored: string | null): Model {
  const baseUrl = flags.baseUrl ??
    (flags.scenario ? undefined : config.baseUrl ?? env("LLM_BASE_URL"));
  if (baseUrl) {
    const source = flags.baseUrl
      ? "--base-url"
      : config.baseUrl
      ? "reins.jsonc baseUrl"
      : "LLM_BASE_URL";
    checkBaseUrl(baseUrl, source);
    const model = flags.model ?? config.model ?? env("LLM_MODEL") ?? stored;
    if (!model) throw new UsageError("--base-url needs --model (or LLM_MODEL)");
    return createOpenAIModel({ baseUrl, model, apiKey: env(config.apiKeyEnv ?? "LLM_API_KEY") });
  }
  const scenario = flags.scenario ?? flags.model ??
    (stored && stored in SCENARIOS ? stored : "plan");
  if (!(scenario in SCENARIOS)) {
    throw new UsageError(
      `unknown scenario "${scenario}"; known: ${Object.keys(SCENARIOS).join(", ")}`,
    );
  }
  const chunkMs = Number(env("REINS_SCRIPTED_CHUNK_MS") ?? SCRIPTED_CHUNK_MS);
  if (!(chunkMs >= 0)) throw new UsageError("REINS_SCRIPTED_CHUNK_MS: expected milliseconds");
  return scriptedModel(scenario, { latencyMs: flags.latencyMs, chunkMs });
}

async function main(argv: string[]): Promise<number> {
  const flags = parseRunArgs(argv);
  const cmd = flags.command;
  if (cmd.kind === "help") return (console.log(RUN_USAGE), 0);
  if (cmd.kind === "demo") return (await runDemo(), 0);
  const config = await loadConfig(flags.config);
  // Before anything is stored: a wrong folder must not leave a run behind.
  const explicitWs = flags.workspace ?? config.workspace;
  if (explicitWs !== undefined) {
    await requireFolder(flags.workspace ? "--workspace" : "workspace", explicitWs);
  }
  if (flags.trace !== undefined) await checkTracePath(flags.trace);
  await using kvHandle = await openKvDisposable(flags.kv);
  const kv = kvHandle.kv;
  const store = new KvRunStore(kv);
  if (cmd.kind === "stop") {
    return (console.log(await stopCommand(store, kv, cmd.runId, cmd.reason)), 0);
  }
  const limits = {
    ...(flags.maxTurns !== undefined ? { maxTurns: flags.maxTurns } : {}),
    ...(flags.budget !== undefined ? { maxBudgetUsd: flags.budget } : {}),
  };
  // Everything that can refuse (model, scenario, workspace, prices, limits) is
  // checked before anything is saved: a run that cannot start is never stored
  // as `running` for another process to execute.
  const stored = cmd.kind === "new" ? null : await store.summary(cmd.runId);
  if (stored) {
    // A process killed mid-run leaves its lease behind: wait for it (or take it over).
    await awaitLease(store, stored.rootId, {
      waitMs: flags.waitSeconds === undefined ? undefined : flags.waitSeconds * 1000,
      onWait: (line) => console.error(line),
    });
  }
  const model = chooseModel(flags, config, stored?.model ?? null);
  const runId = stored?.rootId ?? crypto.randomUUID();
  const wsDir = flags.workspace ?? config.workspace ?? `.reins/workspaces/${runId}`;
  // The scenario (or model) is stored, so a resume plays the same one.
  const fresh = cmd.kind === "new"
    ? newRun(cmd.task, {
      runId,
      model: flags.scenario ?? flags.model ?? config.model,
      limits: { ...config.limits, ...limits },
    })
    : null;
  checkPrices(config.prices);
  if (!fresh && explicitWs === undefined) {
    await requireFolder(`the workspace of run ${runId}`, wsDir, "give --workspace DIR");
  }
  const ws = fresh && explicitWs === undefined
    ? await createWorkspace({ dir: wsDir })
    : openWorkspace(wsDir);
  const t0 = performance.now();
  const bytes = new TextEncoder();
  const printer: TraceSink | undefined = flags.json
    ? undefined
    : streamPrinter(runId, t0, (text) => Deno.stdout.writeSync(bytes.encode(text)));
  const ac = new AbortController();
  // Tools of the MCP servers named in reins.jsonc, as `<server>__<tool>`; stopped when done.
  // Piped: a server's start-up banner is not the run's output (its last line is quoted if it fails).
  await using mcp = await mcpServerTools(config.mcpServers, { stderr: "pipe" });
  if (!flags.json) { for (const line of mcpToolLines(mcp.servers)) console.log(line); }
  const options = runOptionsFor({
    budgetMode: flags.budgetMode ?? config.budgetMode,
    dedupe: flags.dedupe || (config.dedupe ?? false),
    toolErrors: flags.toolErrors ?? config.toolErrors,
    prices: config.prices,
    // --compact-at turns compaction on (or sets the trigger of the config file's policy).
    context: flags.compactAt
      ? { ...config.context, trigger: { tokens: flags.compactAt } }
      : config.context,
  }, {
    model,
    workspace: ws,
    extraTools: mcp.tools,
    signal: ac.signal,
    trace: combineSinks(printer, flags.trace ? fileSink(flags.trace) : undefined),
  });
  let state: RunState;
  if (cmd.kind === "new") {
    state = fresh!;
    if (!flags.json) console.log(`run ${state.runId}`);
    await store.save(state);
  } else {
    // A verdict lands on whichever run of the tree holds the call; then the root resumes.
    const verdict: Verdict = cmd.kind === "approve"
      ? { kind: "approve", callId: cmd.callId }
      : cmd.kind === "reject"
      ? { kind: "reject", callId: cmd.callId, reason: cmd.reason }
      : { kind: "resume" };
    const changed = Object.keys(limits).length ? limits : undefined;
    state = await continueTree(store, kv, cmd.runId, verdict, { limits: changed });
  }
  const onSigint = () => ac.abort("interrupted by Ctrl-C");
  Deno.addSignalListener("SIGINT", onSigint);
  try {
    const done = await executeTree(store, kv, state.runId, options).catch(async (e) => {
      await endUnstarted(store, state.runId, e);
      throw e;
    });
    if (flags.json) console.log(JSON.stringify(summarize(done)));
    else for (const line of describeRun(done)) console.log(line);
    return exitCodeOf(done);
  } finally {
    Deno.removeSignalListener("SIGINT", onSigint);
  }
}

/**
 * A run that failed before its first turn (executeTree threw) ends `failed`
 * with the reason, so no other process picks it up as a run to execute.
 */
async function endUnstarted(store: KvRunStore, id: string, e: unknown): Promise<void> {
  try {
    const s = await store.load(id);
    if (s.status !== "running" || s.turns > 0 || await store.leaseHolder(id)) return;
    const why = e instanceof Error ? e.message : String(e);
    s.status = "failed";
    s.stopReason = `the run could not start: ${why}`;
    s.error = why;
    s.updatedAt = new Date().toISOString();
    await store.save(s);
  } catch { /* the original error is what the user needs to see */ }
}

/** A one-line usage error unless `dir` is an existing folder. */
async function requireFolder(what: string, dir: string, hint?: string): Promise<void> {
  let ok = false;
  try {
    ok = (await Deno.stat(dir)).isDirectory;
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) {
      throw new UsageError(`${what} "${dir}": ${(e as Error).message.split("\n")[0]}`);
    }
  }
  if (!ok) throw new UsageError(`${what} "${dir}": no such folder${hint ? ` (${hint})` : ""}`);
}

async function openKvDisposable(path?: string) {
  const kv = await openKv(path ?? await defaultKvPath());
  return { kv, [Symbol.asyncDispose]: () => Promise.resolve(kv.close()) };
}

if (import.meta.main) await runCli(main);
