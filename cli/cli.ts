/**
 * The command line for your agents: `cli({ agents })` as the main of a
 * `deno task run`, so `deno task run --agent support "Where is order 42?"`
 * starts a run persisted in Deno KV (progress and streamed text as it goes,
 * the summary, an exit code by status), and `--resume`, `--approve`,
 * `--reject`, `--stop`, `--json` and `runs` work as in reins's own demo.
 *
 * @module
 */
import { parseRunArgs, type RunFlags, runUsage, UsageError } from "./args.ts";
import { describeRun, summarize } from "./summary.ts";
import { streamPrinter } from "./stream_printer.ts";
import { loadConfig, type ReinsConfig } from "../runtime/config.ts";
import { newRun, type RunState } from "../harness/state.ts";
import type { Model } from "../harness/model.ts";
import { checkPrices } from "../harness/cost.ts";
import { ReinsError } from "../harness/errors.ts";
import { messageOf } from "../harness/message_of.ts";
import { combineSinks, fileSink, type TraceSink } from "../harness/trace.ts";
import { defaultKvPath, openKv } from "../kv/open_kv.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import type { Agent } from "../subagents/define_agent.ts";
import { type AgentRegistry, agentRegistry, UnknownAgentError } from "../runtime/agent_registry.ts";
import { checkRunAgent, failRun, stampOf } from "../runtime/agent_check.ts";
import { continueTree, type Verdict } from "../runtime/continue_tree.ts";
import { followUpRun } from "../runtime/follow_up_run.ts";
import { executeTree } from "../runtime/execute_tree.ts";
import { modelOf } from "../runtime/executor.ts";
import type { RunSettings } from "../runtime/run_settings.ts";
import {
  agentRunOptions,
  limitsWidening,
  narrowRun,
  type Widening,
} from "../subagents/agent_run_options.ts";
import { awaitLease } from "../runtime/await_lease.ts";
import { type ModelSettings, modelSettings, readEnv } from "../runtime/env.ts";
import { defaultMakeModel } from "../runtime/make_model.ts";
import type { ScenarioCatalog } from "../testing/scenario_catalog.ts";
import { EXIT_CODES, exitCodeOf } from "./exit_codes.ts";
import { checkBaseUrl, checkTracePath } from "./preflight.ts";
import { stopCommand } from "./stop_command.ts";
import { mcpToolLines } from "./mcp_lines.ts";
import { openProcessTools } from "../runtime/process_tools.ts";
import { runsMain } from "./runs.ts";

/** What {@link cli} serves: the agents, and how it makes their models. */
export interface CliOptions {
  /** The agents it runs; `--agent NAME` picks one (default: `defaultAgent`, or the only one). */
  agents: readonly Agent[];
  /** The agent of a run that names none (default: the only one, if one). */
  defaultAgent?: string;
  /**
   * Makes the model factory from the model settings (`LLM_*` over
   * `reins.jsonc`, `--latency-ms`); default: every name goes to `baseUrl`.
   */
  models?: (
    settings: ModelSettings & { latencyMs?: number | undefined },
  ) => (name: string) => Model;
  /** The model of a run whose agent, flags and settings name none. */
  defaultModel?: string | undefined;
  /** Scenarios `--scenario NAME` may play (their agent, when `--agent` is not given). */
  scenarios?: ScenarioCatalog;
  /** What `--help` says the command is, after the usage line. */
  intro?: string;
  /**
   * How `--help` and the printed hints (approve, reject, resume) name this
   * command (default: `deno run -A <the main module's file name>`).
   */
  command?: string;
  /** The arguments (default `Deno.args`). */
  args?: readonly string[];
}

/** Everything one command works with. */
interface Session {
  flags: RunFlags;
  config: ReinsConfig;
  registry: AgentRegistry;
  makeModel: (name: string) => Model;
  store: KvRunStore;
  kv: Deno.Kv;
  options: CliOptions;
  settings: ModelSettings;
}

/** The agent of a new run: `--agent`, else the scenario's, else the default. */
function pickAgent(s: Session): Agent {
  const byScenario = s.flags.scenario === undefined
    ? undefined
    : s.options.scenarios?.agent?.(s.flags.scenario);
  try {
    return s.registry.pick(s.flags.agent ?? byScenario);
  } catch (e) {
    if (e instanceof UnknownAgentError) throw new UsageError(`--agent: ${e.message}`);
    throw e;
  }
}

/** Checks a model name can be served (a one-line UsageError otherwise). */
function checkModel(s: Session, name: string): string {
  try {
    s.makeModel(name);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  return name;
}

/** The model name of a new run of `agent` (UsageError when it cannot be served). */
function modelNameOf(s: Session, agent: Agent): string | undefined {
  const { flags } = s;
  if (agent.model !== undefined && (flags.model ?? flags.scenario) !== undefined) {
    throw new UsageError(`agent ${agent.name} has its own model: no --model or --scenario`);
  }
  if (agent.model !== undefined) {
    return typeof agent.model === "string" ? agent.model : agent.model.name;
  }
  const name = flags.scenario ?? flags.model ?? s.settings.model ?? s.options.defaultModel;
  if (name === undefined) throw new UsageError("no model: give --model NAME (or set LLM_MODEL)");
  return checkModel(s, name);
}

/** The flag that asked for a run option or limit. */
const FLAG_OF: Record<string, string> = {
  maxTurns: "--max-turns",
  maxBudgetUsd: "--budget",
  budgetMode: "--budget-mode",
  toolErrors: "--tool-errors",
};

/** A run whose agent this CLI does not serve: a usage error (nothing is written). */
function notServed(s: Session, run: { runId: string; agent?: string | undefined }): UsageError {
  return new UsageError(
    `run ${run.runId} is of agent "${run.agent}", which is not among ${s.registry.names}`,
  );
}

/** A flag that would widen what `agent` allows: a usage error, as HTTP's 400. */
function widenedBy(agent: Agent, widened: Widening): UsageError {
  const flag = FLAG_OF[widened.field] ?? widened.field;
  const whose = widened.problem.includes(`agent ${agent.name}`) ? "" : ` (agent ${agent.name})`;
  return new UsageError(`${flag}: ${widened.problem}${whose}`);
}

/** Creates and stores a new run (and its agent's stamp); nothing is stored if anything refuses. */
async function createRun(s: Session, task: string): Promise<RunState> {
  const agent = pickAgent(s);
  const model = modelNameOf(s, agent);
  const { flags, config } = s;
  // The flags are the request (they may only narrow the agent); reins.jsonc gives defaults.
  const run = narrowRun(agent, {
    options: {
      budgetMode: flags.budgetMode,
      dedupe: flags.dedupe || undefined,
      toolErrors: flags.toolErrors,
      // --compact-at turns compaction on (or sets the trigger of the config file's policy).
      context: flags.compactAt ? { trigger: { tokens: flags.compactAt } } : undefined,
    },
    limits: { maxTurns: flags.maxTurns, maxBudgetUsd: flags.budget },
  }, {
    settings: {
      budgetMode: config.budgetMode,
      dedupe: config.dedupe,
      toolErrors: config.toolErrors,
      context: config.context,
    },
    limits: config.limits,
  });
  if ("widened" in run) throw widenedBy(agent, run.widened);
  const state = newRun(task, {
    ...(agent.instructions ? { system: agent.instructions } : {}),
    model,
    limits: run.limits,
    agent: agent.name,
  });
  const asked: RunSettings = JSON.parse(JSON.stringify(run.options));
  await s.store.saveSettings(state.runId, stampOf(await s.registry.info(agent), asked));
  if (!flags.json) console.log(`run ${state.runId}`);
  await s.store.save(state);
  return state;
}

/** Continues the tree of a stored run (a verdict, a plain resume, or a follow-up). */
async function continueRun(s: Session): Promise<RunState> {
  const cmd = s.flags.command;
  if (
    cmd.kind !== "resume" && cmd.kind !== "approve" && cmd.kind !== "reject" &&
    cmd.kind !== "continue"
  ) {
    throw new TypeError(`continueRun: not a continuation (${cmd.kind})`);
  }
  const stored = await s.store.summary(cmd.runId);
  // Another model for the rest of the run: checked before anything is written.
  const other = s.flags.scenario ?? s.flags.model;
  if (other !== undefined) checkModel(s, other);
  const limits = {
    ...(s.flags.maxTurns !== undefined ? { maxTurns: s.flags.maxTurns } : {}),
    ...(s.flags.budget !== undefined ? { maxBudgetUsd: s.flags.budget } : {}),
  };
  const changed = Object.keys(limits).length ? { limits } : {};
  // Checked before anything is written: a run of an agent not served here is left as it is,
  // and new limits may not exceed its agent's ceiling (as HTTP's resume and follow-up).
  const root = stored.rootId === stored.runId ? stored : await s.store.summary(stored.rootId);
  const agent = s.registry.forRun(root);
  if (!agent) throw notServed(s, root);
  const over = changed.limits && limitsWidening(agent, changed.limits, s.config.limits);
  if (over) throw widenedBy(agent, over);
  // A process killed mid-run leaves its lease behind: wait for it (or take it over).
  await awaitLease(s.store, stored.rootId, {
    waitMs: s.flags.waitSeconds === undefined ? undefined : s.flags.waitSeconds * 1000,
    onWait: (line) => console.error(line),
  });
  // A follow-up: the run answers the message, in the same run.
  if (cmd.kind === "continue") {
    return await followUpRun(s.store, s.kv, cmd.runId, cmd.message, changed);
  }
  // A verdict lands on whichever run of the tree holds the call; then the root resumes.
  const verdict: Verdict = cmd.kind === "approve"
    ? { kind: "approve", callId: cmd.callId }
    : cmd.kind === "reject"
    ? { kind: "reject", callId: cmd.callId, reason: cmd.reason }
    : { kind: "resume" };
  return await continueTree(s.store, s.kv, cmd.runId, verdict, changed);
}

/** Executes the tree of `root` (its agent checked first) and prints how it ended. */
async function execute(s: Session, root: RunState): Promise<number> {
  const check = await checkRunAgent(s.store, root, s.registry);
  if (check.kind === "unknown") throw notServed(s, { runId: root.runId, agent: check.agent });
  if (check.kind === "refused") {
    await failRun(s.store, root.runId, check.reason);
    return report(s, await s.store.load(root.runId));
  }
  const t0 = performance.now();
  const bytes = new TextEncoder();
  const printer: TraceSink | undefined = s.flags.json
    ? undefined
    : streamPrinter(root.runId, t0, (text) => Deno.stdout.writeSync(bytes.encode(text)));
  const ac = new AbortController();
  const dir = s.flags.workspace ?? s.config.workspace ?? `.reins/workspaces/${root.runId}`;
  const options = await agentRunOptions(check.agent, check.options, {
    model: modelOf(
      check.agent,
      { ...root, model: s.flags.scenario ?? s.flags.model ?? root.model },
      {
        makeModel: s.makeModel,
      },
    ),
    context: { rootId: root.runId, dir },
    resolveModel: s.makeModel,
    prices: s.config.prices,
    signal: ac.signal,
    trace: combineSinks(printer, s.flags.trace ? fileSink(s.flags.trace) : undefined),
    extraTools: s.registry.extraTools,
  });
  const onSigint = () => ac.abort("interrupted by Ctrl-C");
  Deno.addSignalListener("SIGINT", onSigint);
  try {
    const done = await executeTree(s.store, s.kv, root.runId, options).catch(async (e) => {
      await endUnstarted(s.store, root.runId, e);
      throw e;
    });
    return report(s, done);
  } finally {
    Deno.removeSignalListener("SIGINT", onSigint);
  }
}

function report(s: Session, done: RunState): number {
  if (s.flags.json) console.log(JSON.stringify(summarize(done)));
  else for (const line of describeRun(done, commandOf(s.options))) console.log(line);
  return exitCodeOf(done);
}

/** How this command is named to its user: given, else `deno run -A <main module's file>`. */
function commandOf(options: CliOptions): string {
  if (options.command !== undefined) return options.command;
  const file = new URL(Deno.mainModule).pathname.split("/").at(-1) || "cli.ts";
  return `deno run -A ${decodeURIComponent(file)}`;
}

/**
 * A run that failed before its first turn (executeTree threw) ends `failed`
 * with the reason, so no other process picks it up as a run to execute.
 */
async function endUnstarted(store: KvRunStore, id: string, e: unknown): Promise<void> {
  try {
    const s = await store.load(id);
    if (s.status !== "running" || s.turns > 0 || await store.leaseHolder(id)) return;
    await failRun(store, id, `the run could not start: ${messageOf(e)}`);
  } catch { /* the original error is what the user needs to see */ }
}

/** A one-line usage error unless `dir` is an existing folder. */
async function requireFolder(what: string, dir: string): Promise<void> {
  let ok = false;
  try {
    ok = (await Deno.stat(dir)).isDirectory;
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) {
      throw new UsageError(`${what} "${dir}": ${(e as Error).message.split("\n")[0]}`);
    }
  }
  if (!ok) throw new UsageError(`${what} "${dir}": no such folder`);
}

/** The endpoint a new run's or resume's model may go to, checked (a one-line UsageError). */
function checkEndpoint(flags: RunFlags, settings: ModelSettings): void {
  if (flags.baseUrl !== undefined) return checkBaseUrl(flags.baseUrl, "--base-url");
  if (settings.baseUrl === undefined || flags.scenario !== undefined) return;
  const fromEnv = readEnv().baseUrl === settings.baseUrl;
  checkBaseUrl(settings.baseUrl, fromEnv ? "LLM_BASE_URL" : "reins.jsonc baseUrl");
}

/** One command: everything that can refuse is checked before anything is stored. */
async function command(options: CliOptions, flags: RunFlags): Promise<number> {
  const config = await loadConfig(flags.config);
  const explicitWs = flags.workspace ?? config.workspace;
  if (explicitWs !== undefined) {
    await requireFolder(flags.workspace ? "--workspace" : "workspace", explicitWs);
  }
  checkPrices(config.prices);
  if (flags.trace !== undefined) await checkTracePath(flags.trace);
  const settings = { ...modelSettings(config), latencyMs: flags.latencyMs };
  checkEndpoint(flags, settings);
  const kv = await openKv(flags.kv ?? await defaultKvPath(readEnv().kvPath));
  try {
    const store = new KvRunStore(kv);
    const cmd = flags.command;
    if (cmd.kind === "stop") {
      console.log(await stopCommand(store, kv, cmd.runId, cmd.reason));
      return EXIT_CODES.completed;
    }
    const makeModel = flags.baseUrl
      ? defaultMakeModel({ baseUrl: flags.baseUrl, apiKey: settings.apiKey })
      : (options.models ?? ((m) => defaultMakeModel(m)))(settings);
    // Tools of the MCP servers named in reins.jsonc, as `<server>__<tool>`; stopped when done
    // (the MCP client is loaded only when a server is named). Piped: a server's start-up
    // banner is not the run's output (its last line is quoted if it fails).
    const mcp = await openProcessTools(config.mcpServers, { stderr: "pipe" });
    try {
      if (!flags.json) { for (const line of mcpToolLines(mcp.servers)) console.log(line); }
      const registry = agentRegistry(options.agents, {
        defaultAgent: options.defaultAgent,
        extraTools: mcp.tools,
        resolveModel: makeModel,
      });
      const s: Session = { flags, config, registry, makeModel, store, kv, options, settings };
      const root = cmd.kind === "new" ? await createRun(s, cmd.task) : await continueRun(s);
      return await execute(s, root);
    } finally {
      await mcp.close();
    }
  } finally {
    kv.close();
  }
}

/**
 * Runs the command line of `options.args` (default `Deno.args`) over
 * `options.agents`; sets `Deno.exitCode` and resolves with it. A usage error
 * or an error the user can act on (unknown run, wrong status) is one line on
 * stderr and exit 2. `runs ...` lists and shows stored runs.
 *
 * @example
 * ```ts ignore
 * import { cli } from "@reins/reins/cli";
 * import { support } from "./agents.ts";
 * await cli({ agents: [support] });
 * ```
 */
export async function cli(options: CliOptions): Promise<number> {
  const argv = [...options.args ?? Deno.args];
  let code: number;
  try {
    if (argv[0] === "runs") code = await runsMain(argv.slice(1), commandOf(options));
    else {
      const flags = parseRunArgs(argv, options.scenarios?.task);
      if (flags.command.kind === "help" || flags.command.kind === "demo") {
        const { intro, scenarios } = options;
        console.log(runUsage({ command: commandOf(options), intro, scenarios: scenarios?.names }));
        code = flags.command.kind === "help" ? EXIT_CODES.completed : EXIT_CODES.usage;
      } else code = await command(options, flags);
    }
  } catch (e) {
    if (!(e instanceof UsageError || e instanceof ReinsError)) throw e;
    console.error(`error: ${e.message}`);
    code = EXIT_CODES.usage;
  }
  Deno.exitCode = code;
  return code;
}
