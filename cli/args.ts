/**
 * Flags of `deno task run`: parsed strictly, so a wrong flag or value is a
 * one-line error (the caller prints it and exits 2).
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { BudgetMode } from "../harness/run_options.ts";
import { ReinsError } from "../harness/errors.ts";
import { GIVEN_BUDGET } from "../harness/limits.ts";
import { EXIT_CODES, EXIT_CODES_HELP } from "./exit_codes.ts";

const DEFAULT_TASK = "Which file mentions a timeout?";

/** A usage error: one line, exit code 2. */
export class UsageError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Runs a CLI entry point: a usage error or a harness error the user can act
 * on (unknown run, wrong status, conflict) is one line on stderr and exit 2.
 */
export async function runCli(main: (argv: string[]) => Promise<number>): Promise<void> {
  try {
    Deno.exitCode = await main(Deno.args);
  } catch (e) {
    if (e instanceof UsageError || e instanceof ReinsError) {
      console.error(`error: ${e.message}`);
      Deno.exitCode = EXIT_CODES.usage;
    } else throw e;
  }
}

/** What `deno task run` was asked to do. */
export type RunCommand =
  | { kind: "help" }
  | { kind: "demo" }
  | { kind: "new"; task: string }
  | { kind: "resume"; runId: string }
  | { kind: "continue"; runId: string; message: string }
  | { kind: "approve"; runId: string; callId: string }
  | { kind: "reject"; runId: string; callId: string; reason?: string | undefined }
  | { kind: "stop"; runId: string; reason: string };

/** Parsed flags shared by every command (a flag not given is undefined). */
export interface RunFlags {
  command: RunCommand;
  /** `--agent NAME`: the agent of a new run (default: the process's default agent). */
  agent?: string | undefined;
  scenario?: string | undefined;
  baseUrl?: string | undefined;
  model?: string | undefined;
  maxTurns?: number | undefined;
  budget?: number | undefined;
  budgetMode?: BudgetMode | undefined;
  dedupe: boolean;
  toolErrors?: "describe" | "generic" | "fatal" | undefined;
  json: boolean;
  trace?: string | undefined;
  kv?: string | undefined;
  config?: string | undefined;
  workspace?: string | undefined;
  latencyMs?: number | undefined;
  /** `--wait`: longest wait for another process's lease, in seconds. */
  waitSeconds?: number | undefined;
  /** `--compact-at`: compact the prompt before a call over this many tokens. */
  compactAt?: number | undefined;
}

function wrap(text: string, indent: number, width: number): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && indent + line.length + 1 + word.length > width) (lines.push(line), line = word);
    else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => " ".repeat(indent) + l).join("\n");
}

/** What `--help` says besides the flags (a project's own command line gives its own). */
export interface UsageOptions {
  /** How the usage names the command (default `deno task run`, this repository's). */
  command?: string | undefined;
  /** The paragraph after the usage line: what the command is, what it does with no arguments. */
  intro?: string | undefined;
  /** The scenarios `--scenario` may play, listed under it. */
  scenarios?: readonly string[] | undefined;
}

/**
 * The `--help` text.
 *
 * @example
 * ```ts
 * import { runUsage } from "./args.ts";
 * console.log(runUsage({ scenarios: ["plan"] }).includes("--agent NAME")); // true
 * ```
 */
export function runUsage(options: UsageOptions = {}): string {
  const intro = options.intro ??
    "Runs an agent: one run, persisted in Deno KV, or a continuation of one.";
  // Only a command line that can play scenarios (the demo's, a test's) offers their flags.
  const scenarios = options.scenarios?.length
    ? `  --scenario NAME             a scripted scenario to play instead of a model;
                              without TASK, the scenario's own task. One of:
${wrap([...options.scenarios].sort().join(", "), 30, 100)}
`
    : "";
  const latency = options.scenarios?.length
    ? "  --latency-ms N              scripted provider latency per request\n"
    : "";
  const command = options.command ?? "deno task run";
  return `Usage: ${command} [flags] [TASK]
       ${command} runs [list | show ID | trace ID | tree ID] (--help: its own flags)

${intro}

A run (persisted in Deno KV; prints its id):
  ${command} --agent NAME "Which file mentions a timeout?"
  ${command} --base-url URL --model M "Which file mentions a timeout?"

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

function num(flag: string, v: string | undefined, integer: boolean): number | undefined {
  return parsed(
    flag,
    v,
    `a non-negative ${integer ? "integer" : "number"}`,
    (n) => n >= 0 && (!integer || Number.isInteger(n)),
  );
}

/** A flag's integer of at least 1 (`--max-turns`, `--compact-at`), as everywhere a turn cap is given. */
function atLeastOne(flag: string, v: string | undefined): number | undefined {
  return parsed(flag, v, "an integer of at least 1", (n) => n >= 1 && Number.isInteger(n));
}

/** `--budget`: more than 0 USD, as everywhere a budget is given. */
function usd(flag: string, v: string | undefined): number | undefined {
  return parsed(flag, v, GIVEN_BUDGET.replace(/^expected /, ""), (n) => n > 0);
}

/** A flag's finite number that passes `ok`, else a usage error saying what was `expected`. */
function parsed(
  flag: string,
  v: string | undefined,
  expected: string,
  ok: (n: number) => boolean,
): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || !ok(n)) {
    throw new UsageError(`--${flag}: expected ${expected}, got "${v}"`);
  }
  return n;
}

function oneOf<T extends string>(
  flag: string,
  v: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (v === undefined) return undefined;
  if (!allowed.includes(v as T)) {
    throw new UsageError(`--${flag}: expected ${allowed.join("|")}, got "${v}"`);
  }
  return v as T;
}

const VALUE_FLAGS = new Set([
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
  "--reason",
]);

/**
 * `--max-turns -3` as `--max-turns=-3`: node's parser calls a value that
 * starts with "-" ambiguous; glued, it reaches the flag's own check and its
 * clear message.
 */
function glueNegativeValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    if (VALUE_FLAGS.has(arg) && next !== undefined && /^-\.?\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

const OPTIONS = {
  help: { type: "boolean", short: "h" },
  agent: { type: "string" },
  scenario: { type: "string" },
  "base-url": { type: "string" },
  model: { type: "string" },
  "max-turns": { type: "string" },
  budget: { type: "string" },
  "budget-mode": { type: "string" },
  dedupe: { type: "boolean" },
  "tool-errors": { type: "string" },
  json: { type: "boolean" },
  trace: { type: "string" },
  kv: { type: "string" },
  config: { type: "string" },
  workspace: { type: "string" },
  "latency-ms": { type: "string" },
  wait: { type: "string" },
  "compact-at": { type: "string" },
  resume: { type: "string" },
  continue: { type: "string" },
  approve: { type: "string" },
  reject: { type: "string" },
  stop: { type: "string" },
  reason: { type: "string" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>["values"];

/** The flags' values, each checked. */
function flagsOf(v: Values): Omit<RunFlags, "command"> {
  return {
    agent: v.agent,
    scenario: v.scenario,
    baseUrl: v["base-url"],
    model: v.model,
    maxTurns: atLeastOne("max-turns", v["max-turns"]),
    budget: usd("budget", v.budget),
    budgetMode: oneOf("budget-mode", v["budget-mode"], ["soft", "hard"] as const),
    dedupe: v.dedupe ?? false,
    toolErrors: oneOf("tool-errors", v["tool-errors"], ["describe", "generic", "fatal"] as const),
    json: v.json ?? false,
    trace: v.trace,
    kv: v.kv,
    config: v.config,
    workspace: v.workspace,
    latencyMs: num("latency-ms", v["latency-ms"], true),
    waitSeconds: num("wait", v.wait, false),
    compactAt: atLeastOne("compact-at", v["compact-at"]),
  };
}

/** What to do: help, the demo, a new run, or a continuation of one. */
function commandOf(
  v: Values,
  pos: string[],
  argv: readonly string[],
  scenarioTask?: (name: string) => string | undefined,
): RunCommand {
  const actions = (["resume", "continue", "approve", "reject", "stop"] as const).filter((k) =>
    v[k] !== undefined
  );
  if (actions.length > 1) {
    throw new UsageError(`--${actions[0]} and --${actions[1]} cannot be combined`);
  }
  const callArg = (flag: string) => {
    const [callId] = pos;
    if (callId === undefined || pos.length !== 1) {
      throw new UsageError(`--${flag} ID CALL: expected one call id after the run id`);
    }
    return callId;
  };
  const noTask = (flag: string) => {
    if (pos.length) throw new UsageError(`--${flag} takes no task text, got "${pos.join(" ")}"`);
  };
  if (v.help) return { kind: "help" };
  if (v.resume !== undefined) return (noTask("resume"), { kind: "resume", runId: v.resume });
  if (v.continue !== undefined) {
    if (!pos.length || pos.join(" ").trim() === "") {
      throw new UsageError("--continue ID MESSAGE: expected the message after the run id");
    }
    return { kind: "continue", runId: v.continue, message: pos.join(" ") };
  }
  if (v.approve !== undefined) {
    return { kind: "approve", runId: v.approve, callId: callArg("approve") };
  }
  if (v.reject !== undefined) {
    return { kind: "reject", runId: v.reject, callId: callArg("reject"), reason: v.reason };
  }
  if (v.stop !== undefined) {
    noTask("stop");
    return { kind: "stop", runId: v.stop, reason: v.reason ?? "stopped from the command line" };
  }
  if (pos.length) return { kind: "new", task: pos.join(" ") };
  if (argv.length === 0) return { kind: "demo" };
  // Each scenario's own task (a tree scenario's root must not be asked a child's question).
  if (v.scenario !== undefined) {
    return { kind: "new", task: scenarioTask?.(v.scenario) ?? DEFAULT_TASK };
  }
  throw new UsageError("missing TASK text (or --scenario NAME); see --help");
}

/** Flags that go only with some commands, or not together. */
function checkCombinations(v: Values, command: RunCommand): void {
  if (v.reason !== undefined && command.kind !== "reject" && command.kind !== "stop") {
    throw new UsageError("--reason goes with --reject or --stop");
  }
  if (v.wait !== undefined && !["resume", "continue", "approve", "reject"].includes(command.kind)) {
    throw new UsageError("--wait goes with --resume, --continue, --approve or --reject");
  }
  if (v.scenario !== undefined && v["base-url"] !== undefined) {
    throw new UsageError(
      "--scenario and --base-url cannot be combined (a scenario is the scripted provider)",
    );
  }
}

/**
 * Parses the arguments of `deno task run`; `scenarioTask` gives a scenario's
 * own task, for `--scenario NAME` with no task text.
 *
 * @example
 * ```ts
 * import { parseRunArgs } from "./args.ts";
 * console.log(parseRunArgs(["--scenario", "runaway", "--max-turns", "8", "go"]).maxTurns); // 8
 * ```
 */
export function parseRunArgs(
  argv: readonly string[],
  scenarioTask?: (name: string) => string | undefined,
): RunFlags {
  let parsed;
  try {
    parsed = parseArgs({
      args: glueNegativeValues(argv),
      allowPositionals: true,
      strict: true,
      options: OPTIONS,
    });
  } catch (e) {
    // parseArgs may add hint lines; the first says what is wrong.
    const [firstLine = ""] = (e as Error).message.split("\n");
    throw new UsageError(firstLine);
  }
  const flags = flagsOf(parsed.values);
  const command = commandOf(parsed.values, parsed.positionals, argv, scenarioTask);
  checkCombinations(parsed.values, command);
  return { command, ...flags };
}
