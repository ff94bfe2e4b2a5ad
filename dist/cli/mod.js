// @ts-self-types="../../cli/mod.ts"
import {
  McpStartError
} from "../chunk-mcp_mcp_start_error.js";
import {
  ConfigError,
  loadConfig,
  openProcessTools,
  spentText,
  storedTask
} from "../chunk-runtime_config.js";
import {
  KvOpenError,
  defaultKvPath,
  isKvUrl,
  openKv
} from "../chunk-kv_open_kv.js";
import {
  UnknownAgentError,
  agentRegistry,
  checkRunAgent,
  continueTree,
  defaultMakeModel,
  executeTree,
  failRun,
  followUpRun,
  holderGone,
  modelOf,
  modelSettings,
  readEnv,
  requestStop,
  stampOf,
  startWorker
} from "../chunk-runtime_execute_run.js";
import "../chunk-otel_message_content.js";
import {
  KvRunStore
} from "../chunk-kv_record_error.js";
import {
  loadTree
} from "../chunk-subagents_tree.js";
import {
  GIVEN_BUDGET,
  RESUMABLE_STATUSES,
  RUN_STATUSES,
  agentRunOptions,
  checkPrices,
  combineSinks,
  cutText,
  fileSink,
  limitsWidening,
  narrowRun,
  newRun
} from "../chunk-harness_limits.js";
import {
  MAX_TIMER_MS,
  ReinsError,
  RunConflictError,
  messageOf,
  sleep
} from "../chunk-harness_errors.js";

// cli/args.ts
import { parseArgs } from "node:util";

// cli/exit_codes.ts
var EXIT_CODES = Object.freeze({
  /** The run completed (and this repository's demo, when every experiment ran). */
  completed: 0,
  /** The run failed (a permanent tool error, a model error, `toolErrors: fatal`). */
  failed: 1,
  /** Bad input: a wrong flag or value, an unknown run, a run in the wrong state, a lease held. */
  usage: 2,
  /** The run stopped at its turn cap (`max_turns_exceeded`); resume with more turns. */
  max_turns_exceeded: 3,
  /** The run stopped at its budget (`budget_exceeded`); resume with more budget. */
  budget_exceeded: 4,
  /** The run awaits a person's verdict (`interrupted`, approval): approve or reject. */
  approval: 5,
  /** The run was stopped (`interrupted`, cancelled: Ctrl-C, `--stop`); resume to go on. */
  cancelled: 6,
  /** The run is still `running` (its execution ended without an exit). */
  running: 7
});
function exitCodeOf(state) {
  switch (state.status) {
    case "completed":
      return EXIT_CODES.completed;
    case "failed":
      return EXIT_CODES.failed;
    case "max_turns_exceeded":
      return EXIT_CODES.max_turns_exceeded;
    case "budget_exceeded":
      return EXIT_CODES.budget_exceeded;
    case "interrupted":
      return state.interruption?.type === "approval" ? EXIT_CODES.approval : EXIT_CODES.cancelled;
    case "running":
      return EXIT_CODES.running;
  }
}
var EXIT_CODES_HELP = `Exit codes:
  0  completed
  1  failed
  2  usage error: bad flag or value, unknown run, wrong state, lease still held
  3  max_turns_exceeded (resume with --max-turns N)
  4  budget_exceeded (resume with --budget USD)
  5  interrupted: a call awaits a verdict (--approve / --reject)
  6  interrupted: cancelled (Ctrl-C, --stop); --resume goes on
  7  still running (the execution ended without an exit)
`;

// cli/args.ts
var DEFAULT_TASK = "Which file mentions a timeout?";
var UsageError = class extends Error {
  /** Creates the error. */
  constructor(message) {
    super(message);
    this.name = "UsageError";
  }
};
function wrap(text, indent, width) {
  const lines = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && indent + line.length + 1 + word.length > width) lines.push(line), line = word;
    else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => " ".repeat(indent) + l).join("\n");
}
function runUsage(options = {}) {
  const intro = options.intro ?? "Runs an agent: one run, persisted in Deno KV, or a continuation of one.";
  const scenarios = options.scenarios?.length ? `  --scenario NAME             a scripted scenario to play instead of a model;
                              without TASK, the scenario's own task. One of:
${wrap([
    ...options.scenarios
  ].sort().join(", "), 30, 100)}
` : "";
  const latency = options.scenarios?.length ? "  --latency-ms N              scripted provider latency per request\n" : "";
  const command2 = options.command ?? "deno task run";
  return `Usage: ${command2} [flags] [TASK]
       ${command2} runs [list | show ID | trace ID | tree ID] (--help: its own flags)

${intro}

A run (persisted in Deno KV; prints its id):
  ${command2} --agent NAME "Which file mentions a timeout?"
  ${command2} --base-url URL --model M "Which file mentions a timeout?"

Continue a run (in this process):
  --resume ID                 run what is pending, then continue
  --continue ID MESSAGE       send a follow-up to run ID (completed or stopped at a limit):
                              it answers in the same run; --max-turns counts turns since
                              this message, --budget is the whole conversation's
  --approve ID CALL           approve the call run ID awaits, then continue
  --reject ID CALL            reject it (the reason is written into the transcript)
  --reason TEXT               reason for --reject / --stop
  --stop ID                   stop the whole tree of run ID (from any process)
  --wait SECONDS              how long --resume/--approve/--reject wait for another
                              process's lease on the run (default: until it lapses,
                              + 2 s); a holder on this machine whose process is gone
                              (killed, crashed) is taken over at once

Flags:
  --agent NAME                the agent of a new run (default: the default agent)
${scenarios}  --base-url URL              OpenAI-compatible endpoint (env LLM_BASE_URL)
  --model NAME                model name (env LLM_MODEL); the API key is env LLM_API_KEY
  --max-turns N               turn cap, at least 1 (default: the agent's or reins.jsonc's, else 20)
  --budget USD                budget in USD (default: the agent's or reins.jsonc's, else 1.00)
  --budget-mode soft|hard     soft: checked before each call; hard: never exceeded
  --dedupe                    serve repeated identical read-only calls from cache
  --compact-at TOKENS         compact the prompt before a call over TOKENS tokens: old
                              tool results elided, else older turns summarized (the
                              rest of the context policy at its defaults)
  --tool-errors describe|generic|fatal
  --json                      print the final run summary as JSON on the last line
  --trace FILE                append the trace (JSONL) to FILE
  --kv PATH                   Deno KV file (env REINS_KV_PATH, default .reins/runs.sqlite)
  --config FILE               configuration file (default reins.jsonc if present)
  --workspace DIR             the run tree's folder, for an agent whose tools are a function
                              of the tree (default .reins/workspaces/RUN_ID)
${latency}  -h, --help                  this text

${EXIT_CODES_HELP}`;
}
function num(flag, v, integer) {
  return parsed(flag, v, `a non-negative ${integer ? "integer" : "number"}`, (n) => n >= 0 && (!integer || Number.isInteger(n)));
}
function atLeastOne(flag, v) {
  return parsed(flag, v, "an integer of at least 1", (n) => n >= 1 && Number.isInteger(n));
}
function usd(flag, v) {
  return parsed(flag, v, GIVEN_BUDGET.replace(/^expected /, ""), (n) => n > 0);
}
function parsed(flag, v, expected, ok) {
  if (v === void 0) return void 0;
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || !ok(n)) {
    throw new UsageError(`--${flag}: expected ${expected}, got "${v}"`);
  }
  return n;
}
function oneOf(flag, v, allowed) {
  if (v === void 0) return void 0;
  if (!allowed.includes(v)) {
    throw new UsageError(`--${flag}: expected ${allowed.join("|")}, got "${v}"`);
  }
  return v;
}
var VALUE_FLAGS = /* @__PURE__ */ new Set([
  "--agent",
  "--scenario",
  "--base-url",
  "--model",
  "--max-turns",
  "--budget",
  "--budget-mode",
  "--tool-errors",
  "--trace",
  "--kv",
  "--config",
  "--workspace",
  "--latency-ms",
  "--wait",
  "--compact-at",
  "--resume",
  "--continue",
  "--approve",
  "--reject",
  "--stop",
  "--reason"
]);
function glueNegativeValues(argv) {
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = argv[i + 1];
    if (VALUE_FLAGS.has(arg) && next !== void 0 && /^-\.?\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}
var OPTIONS = {
  help: {
    type: "boolean",
    short: "h"
  },
  agent: {
    type: "string"
  },
  scenario: {
    type: "string"
  },
  "base-url": {
    type: "string"
  },
  model: {
    type: "string"
  },
  "max-turns": {
    type: "string"
  },
  budget: {
    type: "string"
  },
  "budget-mode": {
    type: "string"
  },
  dedupe: {
    type: "boolean"
  },
  "tool-errors": {
    type: "string"
  },
  json: {
    type: "boolean"
  },
  trace: {
    type: "string"
  },
  kv: {
    type: "string"
  },
  config: {
    type: "string"
  },
  workspace: {
    type: "string"
  },
  "latency-ms": {
    type: "string"
  },
  wait: {
    type: "string"
  },
  "compact-at": {
    type: "string"
  },
  resume: {
    type: "string"
  },
  continue: {
    type: "string"
  },
  approve: {
    type: "string"
  },
  reject: {
    type: "string"
  },
  stop: {
    type: "string"
  },
  reason: {
    type: "string"
  }
};
function flagsOf(v) {
  return {
    agent: v.agent,
    scenario: v.scenario,
    baseUrl: v["base-url"],
    model: v.model,
    maxTurns: atLeastOne("max-turns", v["max-turns"]),
    budget: usd("budget", v.budget),
    budgetMode: oneOf("budget-mode", v["budget-mode"], [
      "soft",
      "hard"
    ]),
    dedupe: v.dedupe ?? false,
    toolErrors: oneOf("tool-errors", v["tool-errors"], [
      "describe",
      "generic",
      "fatal"
    ]),
    json: v.json ?? false,
    trace: v.trace,
    kv: v.kv,
    config: v.config,
    workspace: v.workspace,
    latencyMs: num("latency-ms", v["latency-ms"], true),
    waitSeconds: num("wait", v.wait, false),
    compactAt: atLeastOne("compact-at", v["compact-at"])
  };
}
function commandOf(v, pos, argv, scenarioTask) {
  const actions = [
    "resume",
    "continue",
    "approve",
    "reject",
    "stop"
  ].filter((k) => v[k] !== void 0);
  if (actions.length > 1) {
    throw new UsageError(`--${actions[0]} and --${actions[1]} cannot be combined`);
  }
  const callArg = (flag) => {
    const [callId] = pos;
    if (callId === void 0 || pos.length !== 1) {
      throw new UsageError(`--${flag} ID CALL: expected one call id after the run id`);
    }
    return callId;
  };
  const noTask = (flag) => {
    if (pos.length) throw new UsageError(`--${flag} takes no task text, got "${pos.join(" ")}"`);
  };
  if (v.help) return {
    kind: "help"
  };
  if (v.resume !== void 0) return noTask("resume"), {
    kind: "resume",
    runId: v.resume
  };
  if (v.continue !== void 0) {
    if (!pos.length || pos.join(" ").trim() === "") {
      throw new UsageError("--continue ID MESSAGE: expected the message after the run id");
    }
    return {
      kind: "continue",
      runId: v.continue,
      message: pos.join(" ")
    };
  }
  if (v.approve !== void 0) {
    return {
      kind: "approve",
      runId: v.approve,
      callId: callArg("approve")
    };
  }
  if (v.reject !== void 0) {
    return {
      kind: "reject",
      runId: v.reject,
      callId: callArg("reject"),
      reason: v.reason
    };
  }
  if (v.stop !== void 0) {
    noTask("stop");
    return {
      kind: "stop",
      runId: v.stop,
      reason: v.reason ?? "stopped from the command line"
    };
  }
  if (pos.length) return {
    kind: "new",
    task: pos.join(" ")
  };
  if (argv.length === 0) return {
    kind: "demo"
  };
  if (v.scenario !== void 0) {
    return {
      kind: "new",
      task: scenarioTask?.(v.scenario) ?? DEFAULT_TASK
    };
  }
  throw new UsageError("missing TASK text (or --scenario NAME); see --help");
}
function checkCombinations(v, command2) {
  if (v.reason !== void 0 && command2.kind !== "reject" && command2.kind !== "stop") {
    throw new UsageError("--reason goes with --reject or --stop");
  }
  if (v.wait !== void 0 && ![
    "resume",
    "continue",
    "approve",
    "reject"
  ].includes(command2.kind)) {
    throw new UsageError("--wait goes with --resume, --continue, --approve or --reject");
  }
  if (v.scenario !== void 0 && v["base-url"] !== void 0) {
    throw new UsageError("--scenario and --base-url cannot be combined (a scenario is the scripted provider)");
  }
}
function parseRunArgs(argv, scenarioTask) {
  let parsed2;
  try {
    parsed2 = parseArgs({
      args: glueNegativeValues(argv),
      allowPositionals: true,
      strict: true,
      options: OPTIONS
    });
  } catch (e) {
    const [firstLine = ""] = e.message.split("\n");
    throw new UsageError(firstLine);
  }
  const flags = flagsOf(parsed2.values);
  const command2 = commandOf(parsed2.values, parsed2.positionals, argv, scenarioTask);
  checkCombinations(parsed2.values, command2);
  return {
    command: command2,
    ...flags
  };
}

// cli/node_labels.ts
function nodeLabels(rootId) {
  const toolOf = /* @__PURE__ */ new Map();
  return {
    see(e) {
      if (e.type === "tool_start") toolOf.set(`${e.runId}.${e.callId}`, e.toolName);
    },
    label(runId) {
      if (runId === rootId || !runId.startsWith(`${rootId}.`)) return "";
      let parent = rootId;
      const parts = [];
      for (const callId of runId.slice(rootId.length + 1).split(".")) {
        const id = `${parent}.${callId}`;
        const tool = toolOf.get(id);
        parts.push(tool ? `${tool}:${callId}` : callId);
        parent = id;
      }
      return `[${parts.join(" > ")}] `;
    }
  };
}

// cli/summary.ts
function summarize(s) {
  return {
    runId: s.runId,
    ...s.agent === void 0 ? {} : {
      agent: s.agent
    },
    status: s.status,
    interruption: s.interruption,
    stopReason: s.stopReason,
    turns: s.turns,
    toolRuns: s.toolRuns,
    usage: s.usage,
    costUsd: Number(s.costUsd.toFixed(9)),
    compactions: s.context?.compactions ?? 0,
    compactionCostUsd: s.context?.costUsd ?? 0,
    output: s.output,
    error: s.error,
    ...s.failure ? {
      failure: s.failure
    } : {}
  };
}
function describeRun(s, command2 = "deno task run") {
  const lines = [
    `run ${s.runId}: ${s.status}${s.stopReason ? ` (${s.stopReason})` : ""}`,
    `  turns=${s.turns}  toolRuns=${s.toolRuns}  in=${s.usage.prompt_tokens}  out=${s.usage.completion_tokens}`
  ];
  if (s.context) {
    lines.push(`  compactions=${s.context.compactions}  compaction cost=$${s.context.costUsd.toFixed(6)}  (summary covers ${s.context.summaryTurns} turns)`);
  }
  const i = s.interruption;
  if (i?.type === "approval") {
    lines.push(`  awaiting a verdict on ${i.toolName}(${JSON.stringify(i.args)}) call ${i.callId}${i.runId && i.runId !== s.runId ? ` in child run ${i.runId}` : ""}`, `  approve: ${command2} --approve ${s.runId} ${i.callId}`, `  reject:  ${command2} --reject ${s.runId} ${i.callId} --reason "..."`);
  }
  if (s.outputSchema && s.output !== null) {
    lines.push("  output:", ...JSON.stringify(s.output, null, 2).split("\n").map((l) => `    ${l}`));
  } else if (s.output !== null) lines.push(`  answer: ${JSON.stringify(s.output)}`);
  for (const i2 of s.failure?.kind === "invalid_output" ? s.failure.issues : []) {
    lines.push(`  invalid output at ${i2.path}: ${i2.message}`);
  }
  if (s.error !== null && !s.stopReason?.includes(s.error)) lines.push(`  error: ${s.error}`);
  lines.push(`  ${spentText(s.costUsd, s.limits.maxBudgetUsd)}`);
  return lines;
}
function progressPrinter(rootId, t0, labels = nodeLabels(rootId)) {
  return (e) => {
    labels.see(e);
    const tag = labels.label(e.runId);
    if (e.type === "run_stopped") {
      return tag ? `  ${tag}stopped ${e.status}: ${e.reason}` : null;
    }
    const line = progressLine(e, t0);
    return line === null || !tag ? line : line.replace(/^ {2}/, `  ${tag}`);
  };
}
function progressLine(e, t0) {
  const t = `(t+${Math.round(performance.now() - t0)} ms)`;
  switch (e.type) {
    case "turn":
      return `  turn ${e.turn}: in=${e.prompt_tokens} out=${e.completion_tokens} cost=$${e.costUsd.toFixed(6)} ${e.finish}  ${t}`;
    case "compaction":
      return `  compaction ${e.compaction} (${e.strategy}, ${e.reason}): prompt ${e.tokensBefore} -> ${e.tokensAfter} tokens, cost=$${e.compactionCostUsd.toFixed(6)}  ${t}`;
    case "tool_start":
      return `  tool ${e.toolName}(${e.args})  ${t}`;
    case "tool_progress":
      return `  progress: ${e.label}  ${t}`;
    case "tool_result":
      if (e.suspended) return `  tool ${e.toolName} ${suspendedWords(e.runId, e.suspended)}  ${t}`;
      return `  tool ${e.toolName} ${e.ok ? "ok" : `error: ${e.error}`}${e.cached ? " (cached)" : e.replayed ? ` (replayed from run ${e.replayed.runId})` : ""} in ${Math.round(e.ms)} ms`;
    case "user_message":
      return `  you> ${e.content}  ${t}`;
    case "approval_required":
      return `  tool ${e.toolName} awaits a verdict (${e.why === "uncertain_effect" ? "its effect is uncertain" : "needs approval"})  ${t}`;
    case "run_handed_over":
      return `  handed over by ${e.by} (it goes on elsewhere): ${e.reason}  ${t}`;
    case "output_invalid":
      return `  output invalid (${e.repair ? `repair ${e.repair} asked` : "no repair left"}): ${e.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}  ${t}`;
    default:
      return null;
  }
}
function suspendedWords(runId, { interruption: i, reason }) {
  if (i.type !== "approval") return `stopped: ${reason}`;
  const holder = i.runId ?? runId;
  const child = holder.startsWith(`${runId}.`) ? holder.slice(runId.length + 1) : holder;
  return `waits: child ${child} awaits a verdict on ${i.toolName} (${i.callId})`;
}

// cli/stream_printer.ts
var CHILD_LINE_CHARS = 100;
function completeLines(buffer) {
  const lines = buffer.split("\n");
  let rest = lines.pop();
  while (rest.length > CHILD_LINE_CHARS) {
    const cut = rest.lastIndexOf(" ", CHILD_LINE_CHARS);
    if (cut <= 0) break;
    lines.push(rest.slice(0, cut));
    rest = rest.slice(cut + 1);
  }
  return {
    lines,
    rest
  };
}
function streamPrinter(rootId, t0, write) {
  let open = false;
  const labels = nodeLabels(rootId);
  const progress = progressPrinter(rootId, t0, labels);
  const pending = /* @__PURE__ */ new Map();
  const close = () => {
    if (open) write("\n");
    open = false;
  };
  const lines = (runId, texts) => {
    if (!texts.length) return;
    close();
    for (const t of texts) write(`  ${labels.label(runId)}${t}
`);
  };
  const flush = (runId) => {
    const rest = pending.get(runId);
    pending.delete(runId);
    if (rest) lines(runId, [
      rest
    ]);
  };
  const root = (e) => {
    if (e.reset) {
      write(`${open ? " " : "  root> "}\u21BA retrying
`);
      open = false;
      if (!e.delta) return;
    }
    if (!open) write("  root> "), open = true;
    write(e.delta.replaceAll("\n", "\n  root> "));
  };
  const child = (e) => {
    if (e.reset) {
      pending.delete(e.runId);
      lines(e.runId, [
        "\u21BA retrying"
      ]);
    }
    const { lines: done, rest } = completeLines((pending.get(e.runId) ?? "") + e.delta);
    pending.set(e.runId, rest);
    lines(e.runId, done);
  };
  return (e) => {
    labels.see(e);
    if (e.type === "text_delta") return labels.label(e.runId) ? child(e) : root(e);
    if (e.type === "turn" || e.type === "run_stopped") flush(e.runId);
    close();
    const line = progress(e);
    if (line) write(line + "\n");
  };
}

// runtime/await_lease.ts
var LEASE_MARGIN_MS = 2e3;
function describe(lease) {
  const where = lease.host !== void 0 && lease.pid !== void 0 ? ` (pid ${lease.pid} on ${lease.host})` : "";
  return `${lease.owner}${where}`;
}
var seconds = (ms) => `${Math.max(0, Math.ceil(ms / 1e3))} s`;
async function awaitLease(store, id, options = {}) {
  const { onWait, pollMs = 250, progressMs = 5e3, isGone = (l) => holderGone(l) } = options;
  let lease = await store.leaseHolder(id);
  if (!lease || lease.owner === store.owner) return;
  const started = Date.now();
  const deadline = started + (options.waitMs ?? lease.expiresAt - started + LEASE_MARGIN_MS);
  let nextProgress = started;
  while (lease && lease.owner !== store.owner) {
    if (isGone(lease)) {
      onWait?.(`run ${id}: its lease holder ${describe(lease)} is gone; taking over`);
      await store.releaseLease(id, lease.owner);
    } else {
      const now = Date.now();
      if (now >= deadline) {
        throw new RunConflictError(id, `run is being executed by ${describe(lease)}; its lease lapses in ${seconds(lease.expiresAt - now)} unless renewed (gave up after ${seconds(now - started)})`);
      }
      if (now >= nextProgress) {
        onWait?.(`run ${id}: waiting for the lease of ${describe(lease)}, which lapses in ${seconds(lease.expiresAt - now)} (giving up in ${seconds(deadline - now)})`);
        nextProgress = now + progressMs;
      }
      await sleep(Math.min(pollMs, Math.max(1, deadline - now)), options.signal);
    }
    lease = await store.leaseHolder(id);
  }
}

// cli/preflight.ts
async function checkTracePath(path) {
  try {
    const file = await Deno.open(path, {
      append: true,
      create: true
    });
    file.close();
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound ? "no such folder" : e instanceof Deno.errors.IsADirectory ? "is a folder" : e.message.split("\n")[0];
    throw new UsageError(`--trace "${path}": ${why}`);
  }
}
function checkBaseUrl(value, source) {
  let ok = false;
  try {
    ok = [
      "http:",
      "https:"
    ].includes(new URL(value).protocol);
  } catch {
  }
  if (!ok) {
    throw new UsageError(`${source} "${value}": expected an http:// or https:// URL, e.g. http://127.0.0.1:8788/v1`);
  }
}

// cli/stop_command.ts
async function stopCommand(store, kv, runId, reason) {
  const { rootId } = await store.summary(runId);
  const root = await store.summary(rootId);
  if (root.status !== "running") {
    const tree = rootId === runId ? `run ${runId}` : `the tree of run ${runId} (root ${rootId})`;
    const why = root.interruption ? `${root.status}/${root.interruption.type}` : root.status;
    return `nothing to stop: ${tree} is ${why}, not executing`;
  }
  const recorded = await requestStop(kv, runId, reason);
  const note = recorded.reason === reason ? "" : " (a Stop was requested before yours)";
  return `stop requested for the tree of run ${runId} (root ${rootId}): ${recorded.reason}${note}`;
}

// cli/mcp_lines.ts
function mcpToolLines(servers) {
  return Object.entries(servers).map(([name, set]) => {
    const who = set.server ? ` (${set.server.name} ${set.server.version})` : "";
    const n = set.tools.length;
    const names = set.tools.map((t) => t.name).join(", ");
    return `mcp ${name}${who}: ${n} tool${n === 1 ? "" : "s"}${n ? `: ${names}` : ""}`;
  });
}

// cli/runs.ts
import { parseArgs as parseArgs2 } from "node:util";

// cli/table.ts
var NUMERIC = /^[+\-]?\$?\d[\d,]*(\.\d+)?( ?(ms|x|%|s))?$/;
function int(n) {
  return Math.round(n).toLocaleString("en-US");
}
function table(headers, rows, options = {}) {
  const indent = options.indent ?? "  ";
  const gap = " ".repeat(options.gap ?? 2);
  const columns = headers.map((h, i) => ({
    right: rows.length > 0 && rows.every((row) => readsAsNumber(row[i])),
    width: Math.max(h.length, ...rows.map((row) => cellText(row[i]).length))
  }));
  const line = (cells) => (indent + columns.map(({ right, width }, i) => {
    const c = cellText(cells[i]);
    if (right) return c.padStart(width);
    return i === columns.length - 1 ? c : c.padEnd(width);
  }).join(gap)).trimEnd();
  return [
    line(headers),
    ...rows.map(line)
  ];
}
function cellText(cell) {
  if (cell === void 0) return "";
  return typeof cell === "number" ? int(cell) : cell;
}
function readsAsNumber(cell) {
  if (typeof cell === "number") return true;
  const text = cellText(cell);
  return text === "" || text === "-" || NUMERIC.test(text);
}

// cli/runs.ts
function runsUsage(command2 = "deno task runs") {
  return `Usage: ${command2} [list] [--status S] [--limit N] [--json]
       ${command2} show ID [--json]
       ${command2} trace ID
       ${command2} tree ID [--json]
${RUNS_REST}`;
}
var RUNS_REST = `Flags: --kv PATH (env REINS_KV_PATH, default .reins/runs.sqlite)
Exit codes:
  0  printed what was asked, whatever the run's status (read it from --json's "status")
  2  usage error: bad flag or value, unknown command, unknown run id (one line on stderr)`;
var RUNS_USAGE = runsUsage();
var STATUSES = RUN_STATUSES;
function age(iso, now = Date.now()) {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1e3));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86400) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}
function tableText(headers, rows) {
  return table(headers, rows).join("\n");
}
function taskCell(task) {
  const line = task.replace(/\s+/g, " ").trim();
  return line.length > 40 ? `${cutText(line, 39)}\u2026` : line;
}
async function listTable(store, runs) {
  const withTasks = await Promise.all(runs.map(async (r) => ({
    r,
    task: await storedTask(store, r.runId)
  })));
  return tableText([
    "id",
    "status",
    "turns",
    "cost",
    "age",
    "task",
    "why"
  ], withTasks.map(({ r, task }) => [
    r.runId,
    r.status,
    String(r.turns),
    `$${r.costUsd.toFixed(6)}`,
    age(r.createdAt),
    taskCell(task),
    r.stopReason ?? ""
  ]));
}
function parseRunsArgs(argv) {
  let parsed2;
  try {
    parsed2 = parseArgs2({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: {
          type: "boolean"
        },
        kv: {
          type: "string"
        },
        status: {
          type: "string"
        },
        limit: {
          type: "string"
        },
        help: {
          type: "boolean",
          short: "h"
        }
      }
    });
  } catch (e) {
    const [firstLine = ""] = e.message.split("\n");
    throw new UsageError(firstLine);
  }
  const { values: v, positionals: pos } = parsed2;
  const [sub = "list", id = "", ...rest] = pos;
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if (![
    "list",
    "show",
    "trace",
    "tree"
  ].includes(sub)) {
    throw new UsageError(`unknown command "${sub}"; see --help`);
  }
  if (sub !== "list" && !id) throw new UsageError(`runs ${sub} needs a run id`);
  if (sub === "list" && id) throw new UsageError(`runs list takes no run id (got "${id}")`);
  if (v.status !== void 0 && !STATUSES.includes(v.status)) {
    throw new UsageError(`--status: expected ${STATUSES.join("|")}, got "${v.status}"`);
  }
  const limit = v.limit === void 0 ? 100 : Number(v.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    throw new UsageError(`--limit: expected a positive integer, got "${v.limit}"`);
  }
  return {
    sub,
    id,
    json: v.json ?? false,
    kv: v.kv,
    status: v.status,
    limit,
    help: v.help ?? false
  };
}
function messageLine(m) {
  const text = m.role === "assistant" ? [
    m.content ?? "",
    ...(m.tool_calls ?? []).map((c) => `-> ${c.function.name}(${c.function.arguments}) [${c.id}]`)
  ].filter(Boolean).join(" ") : m.role === "tool" ? `[${m.tool_call_id}] ${m.content}` : m.content ?? "";
  return `  ${m.role.padEnd(9)} ${text.length > 300 ? cutText(text, 300) + "\u2026" : text}`;
}
async function showRun(store, id, json, command2 = "deno task run") {
  const s = await store.load(id);
  if (json) return console.log(JSON.stringify(s));
  for (const line of describeRun(s, command2)) console.log(line);
  if (RESUMABLE_STATUSES.includes(s.status) && s.status !== "running") {
    console.log(`  resume: ${command2} --resume ${s.runId}`);
  }
  console.log("transcript:");
  for (const m of s.messages) console.log(messageLine(m));
}
async function printTree(store, id, json) {
  const nodes = await loadTree(store, id);
  if (json) return console.log(JSON.stringify(nodes));
  console.log(tableText([
    "id",
    "parent",
    "status",
    "turns",
    "costUsd"
  ], nodes.map((n) => [
    `${"  ".repeat(n.depth)}${n.runId}`,
    n.parentId ?? "-",
    n.status,
    String(n.turns),
    `$${n.costUsd.toFixed(6)}`
  ])));
}
function envKvPath() {
  try {
    return readEnv().kvPath;
  } catch (e) {
    throw new UsageError(e.message);
  }
}
async function runsMain(argv, runCommand) {
  const a = parseRunsArgs(argv);
  const usage = runsUsage(runCommand === void 0 ? void 0 : `${runCommand} runs`);
  if (a.help) return console.log(usage), EXIT_CODES.completed;
  const kv = await openKv(a.kv ?? await defaultKvPath(envKvPath()));
  try {
    const store = new KvRunStore(kv);
    if (a.sub === "list") {
      const { status, limit } = a;
      const runs = await store.list({
        status,
        limit
      });
      const text = a.json ? JSON.stringify(runs) : runs.length ? await listTable(store, runs) : "no runs";
      console.log(text);
    } else if (a.sub === "show") await showRun(store, a.id, a.json, runCommand);
    else if (a.sub === "trace") {
      await store.load(a.id);
      for (const e of await store.events(a.id)) console.log(JSON.stringify(e.event));
    } else await printTree(store, a.id, a.json);
    return EXIT_CODES.completed;
  } finally {
    kv.close();
  }
}
if (false) await runCli(runsMain);

// cli/cli.ts
function pickAgent(s) {
  const byScenario = s.flags.scenario === void 0 ? void 0 : s.options.scenarios?.agent?.(s.flags.scenario);
  try {
    return s.registry.pick(s.flags.agent ?? byScenario);
  } catch (e) {
    if (e instanceof UnknownAgentError) throw new UsageError(`--agent: ${e.message}`);
    throw e;
  }
}
function checkModel(s, name) {
  try {
    s.makeModel(name);
  } catch (e) {
    throw new UsageError(e.message);
  }
  return name;
}
function modelNameOf(s, agent) {
  const { flags } = s;
  if (agent.model !== void 0 && (flags.model ?? flags.scenario) !== void 0) {
    throw new UsageError(`agent ${agent.name} has its own model: no --model or --scenario`);
  }
  if (agent.model !== void 0) {
    return typeof agent.model === "string" ? agent.model : agent.model.name;
  }
  const name = flags.scenario ?? flags.model ?? s.settings.model ?? s.options.defaultModel;
  if (name === void 0) throw new UsageError("no model: give --model NAME (or set LLM_MODEL)");
  return checkModel(s, name);
}
var FLAG_OF = {
  maxTurns: "--max-turns",
  maxBudgetUsd: "--budget",
  budgetMode: "--budget-mode",
  toolErrors: "--tool-errors"
};
function notServed(s, run) {
  return new UsageError(`run ${run.runId} is of agent "${run.agent}", which is not among ${s.registry.names}`);
}
function widenedBy(agent, widened) {
  const flag = FLAG_OF[widened.field] ?? widened.field;
  const whose = widened.problem.includes(`agent ${agent.name}`) ? "" : ` (agent ${agent.name})`;
  return new UsageError(`${flag}: ${widened.problem}${whose}`);
}
async function createRun(s, task) {
  const agent = pickAgent(s);
  const model = modelNameOf(s, agent);
  const { flags, config } = s;
  const run = narrowRun(agent, {
    options: {
      budgetMode: flags.budgetMode,
      dedupe: flags.dedupe || void 0,
      toolErrors: flags.toolErrors,
      // --compact-at turns compaction on (or sets the trigger of the config file's policy).
      context: flags.compactAt ? {
        trigger: {
          tokens: flags.compactAt
        }
      } : void 0
    },
    limits: {
      maxTurns: flags.maxTurns,
      maxBudgetUsd: flags.budget
    }
  }, {
    settings: {
      budgetMode: config.budgetMode,
      dedupe: config.dedupe,
      toolErrors: config.toolErrors,
      context: config.context
    },
    limits: config.limits
  });
  if ("widened" in run) throw widenedBy(agent, run.widened);
  const state = newRun(task, {
    ...agent.instructions ? {
      system: agent.instructions
    } : {},
    model,
    limits: run.limits,
    agent: agent.name
  });
  const asked = JSON.parse(JSON.stringify(run.options));
  await s.store.saveSettings(state.runId, stampOf(await s.registry.info(agent), asked));
  if (!flags.json) console.log(`run ${state.runId}`);
  await s.store.save(state);
  return state;
}
async function continueRun(s) {
  const cmd = s.flags.command;
  if (cmd.kind !== "resume" && cmd.kind !== "approve" && cmd.kind !== "reject" && cmd.kind !== "continue") {
    throw new TypeError(`continueRun: not a continuation (${cmd.kind})`);
  }
  const stored = await s.store.summary(cmd.runId);
  const other = s.flags.scenario ?? s.flags.model;
  if (other !== void 0) checkModel(s, other);
  const limits = {
    ...s.flags.maxTurns !== void 0 ? {
      maxTurns: s.flags.maxTurns
    } : {},
    ...s.flags.budget !== void 0 ? {
      maxBudgetUsd: s.flags.budget
    } : {}
  };
  const changed = Object.keys(limits).length ? {
    limits
  } : {};
  const root = stored.rootId === stored.runId ? stored : await s.store.summary(stored.rootId);
  const agent = s.registry.forRun(root);
  if (!agent) throw notServed(s, root);
  const over = changed.limits && limitsWidening(agent, changed.limits, s.config.limits);
  if (over) throw widenedBy(agent, over);
  await awaitLease(s.store, stored.rootId, {
    waitMs: s.flags.waitSeconds === void 0 ? void 0 : s.flags.waitSeconds * 1e3,
    onWait: (line) => console.error(line)
  });
  if (cmd.kind === "continue") {
    return await followUpRun(s.store, s.kv, cmd.runId, cmd.message, changed);
  }
  const verdict = cmd.kind === "approve" ? {
    kind: "approve",
    callId: cmd.callId
  } : cmd.kind === "reject" ? {
    kind: "reject",
    callId: cmd.callId,
    reason: cmd.reason
  } : {
    kind: "resume"
  };
  return await continueTree(s.store, s.kv, cmd.runId, verdict, changed);
}
async function execute(s, root) {
  const check = await checkRunAgent(s.store, root, s.registry);
  if (check.kind === "unknown") throw notServed(s, {
    runId: root.runId,
    agent: check.agent
  });
  if (check.kind === "refused") {
    await failRun(s.store, root.runId, check.reason);
    return report(s, await s.store.load(root.runId));
  }
  const t0 = performance.now();
  const bytes = new TextEncoder();
  const printer = s.flags.json ? void 0 : streamPrinter(root.runId, t0, (text) => Deno.stdout.writeSync(bytes.encode(text)));
  const ac = new AbortController();
  const dir = s.flags.workspace ?? s.config.workspace ?? `.reins/workspaces/${root.runId}`;
  const options = await agentRunOptions(check.agent, check.options, {
    model: modelOf(check.agent, {
      ...root,
      model: s.flags.scenario ?? s.flags.model ?? root.model
    }, {
      makeModel: s.makeModel
    }),
    context: {
      rootId: root.runId,
      dir
    },
    resolveModel: s.makeModel,
    prices: s.config.prices,
    signal: ac.signal,
    trace: combineSinks(printer, s.flags.trace ? fileSink(s.flags.trace) : void 0),
    extraTools: s.registry.extraTools
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
function report(s, done) {
  if (s.flags.json) console.log(JSON.stringify(summarize(done)));
  else for (const line of describeRun(done, commandOf2(s.options))) console.log(line);
  return exitCodeOf(done);
}
function commandOf2(options) {
  if (options.command !== void 0) return options.command;
  const file = new URL(Deno.mainModule).pathname.split("/").at(-1) || "cli.ts";
  return `deno run -A ${decodeURIComponent(file)}`;
}
async function endUnstarted(store, id, e) {
  try {
    const s = await store.load(id);
    if (s.status !== "running" || s.turns > 0 || await store.leaseHolder(id)) return;
    await failRun(store, id, `the run could not start: ${messageOf(e)}`);
  } catch {
  }
}
async function requireFolder(what, dir) {
  let ok = false;
  try {
    ok = (await Deno.stat(dir)).isDirectory;
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) {
      throw new UsageError(`${what} "${dir}": ${e.message.split("\n")[0]}`);
    }
  }
  if (!ok) throw new UsageError(`${what} "${dir}": no such folder`);
}
function checkEndpoint(flags, settings) {
  if (flags.baseUrl !== void 0) return checkBaseUrl(flags.baseUrl, "--base-url");
  if (settings.baseUrl === void 0 || flags.scenario !== void 0) return;
  const fromEnv = readEnv().baseUrl === settings.baseUrl;
  checkBaseUrl(settings.baseUrl, fromEnv ? "LLM_BASE_URL" : "reins.jsonc baseUrl");
}
async function command(options, flags) {
  const config = await loadConfig(flags.config);
  const explicitWs = flags.workspace ?? config.workspace;
  if (explicitWs !== void 0) {
    await requireFolder(flags.workspace ? "--workspace" : "workspace", explicitWs);
  }
  checkPrices(config.prices);
  if (flags.trace !== void 0) await checkTracePath(flags.trace);
  const settings = {
    ...modelSettings(config),
    latencyMs: flags.latencyMs
  };
  checkEndpoint(flags, settings);
  const kv = await openKv(flags.kv ?? await defaultKvPath(readEnv().kvPath));
  try {
    const store = new KvRunStore(kv);
    const cmd = flags.command;
    if (cmd.kind === "stop") {
      console.log(await stopCommand(store, kv, cmd.runId, cmd.reason));
      return EXIT_CODES.completed;
    }
    const makeModel = flags.baseUrl ? defaultMakeModel({
      baseUrl: flags.baseUrl,
      apiKey: settings.apiKey
    }) : (options.models ?? ((m) => defaultMakeModel(m)))(settings);
    const mcp = await openProcessTools(config.mcpServers, {
      stderr: "pipe"
    });
    try {
      if (!flags.json) {
        for (const line of mcpToolLines(mcp.servers)) console.log(line);
      }
      const registry = agentRegistry(options.agents, {
        defaultAgent: options.defaultAgent,
        extraTools: mcp.tools,
        resolveModel: makeModel
      });
      const s = {
        flags,
        config,
        registry,
        makeModel,
        store,
        kv,
        options,
        settings
      };
      const root = cmd.kind === "new" ? await createRun(s, cmd.task) : await continueRun(s);
      return await execute(s, root);
    } finally {
      await mcp.close();
    }
  } finally {
    kv.close();
  }
}
async function cli(options) {
  const argv = [
    ...options.args ?? Deno.args
  ];
  let code;
  try {
    if (argv[0] === "runs") code = await runsMain(argv.slice(1), commandOf2(options));
    else {
      const flags = parseRunArgs(argv, options.scenarios?.task);
      if (flags.command.kind === "help" || flags.command.kind === "demo") {
        const { intro, scenarios } = options;
        console.log(runUsage({
          command: commandOf2(options),
          intro,
          scenarios: scenarios?.names
        }));
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

// cli/run_worker.ts
import { parseArgs as parseArgs3 } from "node:util";
var USAGE = `deno task worker [--kv PATH_OR_URL] [--lease-ms N] [--sweep-ms N]

Executes reins runs from a KV, with no HTTP: every --sweep-ms it looks for runs
stored running with no live lease, claims each through its lease and executes it.

  --kv PATH_OR_URL  the KV: a file, :memory:, or a KV Connect URL
                    (https://api.deno.com/v2/databases/<id>/connect; the token
                    comes from DENO_KV_ACCESS_TOKEN); default REINS_KV_PATH,
                    else .reins/runs.sqlite
  --lease-ms N      lease time of a run it executes (default REINS_LEASE_MS, else 30000)
  --sweep-ms N      how often it looks for work (default REINS_SWEEP_MS, else 2000)
  --help            this text

Environment: LLM_BASE_URL, LLM_API_KEY, LLM_MODEL (the model runs call; over
reins.jsonc's), REINS_WORKSPACES (default .reins/workspaces: the trees' folders),
REINS_CONFIG (default reins.jsonc, if any: the tools of its mcpServers go to every run).
It executes only runs of the agents it serves; others are left to other processes.
SIGINT or SIGTERM: stop taking work, hand executing runs over, exit.`;
function positiveMs(raw, name) {
  if (raw === void 0 || raw === "") return void 0;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMER_MS) {
    throw new TypeError(`${name}: expected milliseconds from 1 to ${MAX_TIMER_MS}, got "${raw}"`);
  }
  return ms;
}
function parseWorkerArgs(args) {
  const { values } = parseArgs3({
    args,
    options: {
      kv: {
        type: "string"
      },
      "lease-ms": {
        type: "string"
      },
      "sweep-ms": {
        type: "string"
      },
      help: {
        type: "boolean"
      }
    },
    strict: true,
    allowPositionals: false
  });
  const env = readEnv();
  return {
    kv: values.kv,
    leaseMs: positiveMs(values["lease-ms"], "--lease-ms") ?? env.leaseMs,
    sweepMs: positiveMs(values["sweep-ms"], "--sweep-ms") ?? (env.sweepMs || void 0),
    help: values.help ?? false,
    env
  };
}
async function openResources(path, env) {
  let mcp;
  let settings;
  try {
    const config = await loadConfig(env.configPath);
    settings = modelSettings(config);
    mcp = await openProcessTools(config.mcpServers);
  } catch (e) {
    if (!(e instanceof ConfigError || e instanceof McpStartError)) throw e;
    return e.message;
  }
  try {
    return {
      mcp,
      kv: await openKv(path),
      settings
    };
  } catch (e) {
    await mcp.close();
    if (!(e instanceof KvOpenError)) throw e;
    return e.message;
  }
}
function signalled() {
  const { promise, resolve } = Promise.withResolvers();
  const listeners = [
    "SIGINT",
    "SIGTERM"
  ].map((signal) => {
    const fn = () => resolve(signal);
    Deno.addSignalListener(signal, fn);
    return [
      signal,
      fn
    ];
  });
  return promise.finally(() => {
    for (const [s, fn] of listeners) Deno.removeSignalListener(s, fn);
  });
}
async function runWorker(args, options) {
  let parsed2;
  try {
    parsed2 = parseWorkerArgs(args);
  } catch (e) {
    console.error(`reins worker: ${messageOf(e)} (see --help)`);
    return 2;
  }
  if (parsed2.help) return console.log(USAGE), 0;
  const path = parsed2.kv || await defaultKvPath(parsed2.env.kvPath);
  const remoteKv = isKvUrl(path);
  const opened = await openResources(path, parsed2.env);
  if (typeof opened === "string") return console.error(`reins worker: ${opened}`), 1;
  const { mcp, kv, settings } = opened;
  const makeModel = (options.models ?? defaultMakeModel)({
    ...settings,
    remoteKv
  });
  const owner = `worker${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
  const store = new KvRunStore(kv, {
    owner,
    leaseMs: parsed2.leaseMs
  });
  const agents = agentRegistry(options.agents, {
    defaultAgent: options.defaultAgent,
    extraTools: mcp.tools,
    resolveModel: makeModel
  });
  const sweepMs = parsed2.sweepMs ?? 2e3;
  const worker = startWorker({
    kv,
    store,
    agents,
    makeModel,
    defaultModel: settings.model ?? options.defaultModel,
    prices: settings.prices,
    workspaceRoot: parsed2.env.workspaceRoot
  }, {
    everyMs: sweepMs
  });
  const where = remoteKv ? path.replace(/\/\/[^/@]*@/, "//") : path;
  const tools = mcp.tools.length ? `, ${mcp.tools.length} MCP tool(s)` : "";
  console.log(`reins worker: executing runs of ${agents.names.join(", ")} from ${where} as ${owner} (sweep every ${sweepMs} ms, lease ${store.leaseMs} ms${tools})`);
  const signal = await signalled();
  const t0 = performance.now();
  const executing = worker.executor.executing;
  await worker.stop();
  kv.close();
  await mcp.close();
  const took = Math.round(performance.now() - t0);
  console.log(`reins worker: ${signal}: handed over ${executing} run(s) in ${took} ms`);
  return 0;
}
export {
  cli,
  runWorker
};
