/**
 * Every built-in scenario in one table: what it shows, a default task that
 * fits it, and what a run needs to play it (levels of `research`, write tools
 * for research children). The CLI, the server and the provider's banner read
 * this table, so a scenario cannot work in one and not the other.
 *
 * @module
 */
import { SCENARIOS } from "./scenarios.ts";
import { TREE_SCENARIOS } from "./tree_scenarios.ts";
import { type Scenario, TIMEOUT_LOCATION } from "./scenarios.ts";
import type { OutputSchema } from "../harness/output.ts";

/** What a run needs to play a scenario, and a task that fits it. */
export interface ScenarioSpec {
  /** One line: what the scenario shows. */
  summary: string;
  /** A task that fits it (never one of a tree scenario's child questions). */
  task: string;
  /** Levels of `research` subagents the run needs at least (absent: none). */
  researchDepth?: number;
  /** Research children need the write tools (delete_file, which asks a person first). */
  researchWrites?: boolean;
  /** The output schema a run of it is given (its answer is a typed value). */
  output?: OutputSchema;
}

/**
 * Named scripted scenarios a process lets a run play instead of a model (the
 * demo's): `POST /runs { scenario }`, `--scenario NAME`.
 */
export interface ScenarioCatalog {
  /** The names a request may give. */
  readonly names: readonly string[];
  /** The task of a scenario, for a request that gives none. */
  task(name: string): string | undefined;
  /** The agent a scenario needs, for a request that names none. */
  agent?(name: string): string | undefined;
}

/** The task of the `extract` scenarios. */
const EXTRACT_TASK = "Where is the timeout logged? Answer with the file and its line number.";

/**
 * The built-in scenarios by name (the same names as `BUILT_IN_SCENARIOS`).
 *
 * @example
 * ```ts
 * import { SCENARIO_CATALOG } from "./scenario_catalog.ts";
 * console.log(SCENARIO_CATALOG["research-deep"].researchDepth); // 2
 * ```
 */
export const SCENARIO_CATALOG: Readonly<Record<string, Readonly<ScenarioSpec>>> = Object.freeze({
  plan: { summary: "lists, reads errors.log, answers", task: "Which file mentions a timeout?" },
  runaway: {
    summary: "calls list_files forever (stops at a cap)",
    task: "Account for every file in the workspace.",
  },
  recover: {
    summary: "reads a missing file, recovers from the error",
    task: "Find the timeout in the logs.",
  },
  repeat: {
    summary: "reads errors.log twice (dedupe)",
    task: "Check errors.log, then check again.",
  },
  destructive: {
    summary: "deletes access.log: needs approval",
    task: "Free some space in the workspace.",
  },
  "destructive-twice": {
    summary: "deletes access.log twice: needs approval",
    task: "Delete access.log, and make sure.",
  },
  forbidden: { summary: "reads outside the workspace: fails", task: "Show me /etc/shadow." },
  slow: { summary: "runs the slow scan_archive", task: "Scan the archive for anything odd." },
  echo: { summary: "answers the task text", task: "Say this back to me." },
  recall: {
    summary: "a long run whose answer is in its first tool result (compaction)",
    task: "Read errors.log, look around, then tell me what timed out.",
  },
  extract: {
    summary: "typed answer: a wrong type first, repaired on the next turn",
    task: EXTRACT_TASK,
    output: TIMEOUT_LOCATION,
  },
  "extract-twice": {
    summary: "typed answer: prose, a wrong type, then valid (2 repairs)",
    task: EXTRACT_TASK,
    output: TIMEOUT_LOCATION,
  },
  "extract-never": {
    summary: "typed answer never valid: fails invalid_output",
    task: EXTRACT_TASK,
    output: TIMEOUT_LOCATION,
  },
  research: {
    summary: "two research children in one turn",
    task: "Research the timeout and the db pool notes.",
    researchDepth: 1,
  },
  "research-runaway": {
    summary: "a research child that never finishes",
    task: "Have every file accounted for.",
    researchDepth: 1,
  },
  "research-runaway-pair": {
    summary: "two research children that never finish",
    task: "Have the workspace listed, twice over.",
    researchDepth: 1,
  },
  "research-slow": {
    summary: "two research children running scan_archive",
    task: "Have the archive scanned, twice.",
    researchDepth: 1,
  },
  "research-deep": {
    summary: "research two levels deep",
    task: "Research the timeout, and why it happened.",
    researchDepth: 2,
  },
  "research-deep-slow": {
    summary: "research two levels deep, two slow leaves",
    task: "Have the archive researched in depth.",
    researchDepth: 2,
  },
  "research-approval": {
    summary: "a research child deletes access.log: needs approval",
    task: "Have some space freed.",
    researchDepth: 1,
    researchWrites: true,
  },
});

/** Every built-in scenario function: the single-run ones and the tree ones. */
const FUNCTIONS: Readonly<Record<string, Scenario>> = { ...SCENARIOS, ...TREE_SCENARIOS };

/**
 * The names of the built-in scenarios, sorted: the one list the provider's
 * banner, its errors, the CLI and the server show.
 *
 * @example
 * ```ts
 * import { builtInScenarioNames } from "./scenario_catalog.ts";
 * console.log(builtInScenarioNames().includes("research-approval")); // true
 * ```
 */
export function builtInScenarioNames(): string[] {
  return Object.keys(FUNCTIONS).sort();
}

/**
 * The spec of a built-in scenario, or undefined for any other name.
 *
 * @example
 * ```ts
 * import { scenarioSpec } from "./scenario_catalog.ts";
 * console.log(scenarioSpec("plan")?.task, scenarioSpec("gpt-4.1")); // Which file mentions a timeout? undefined
 * ```
 */
export function scenarioSpec(name: string): Readonly<ScenarioSpec> | undefined {
  return Object.hasOwn(SCENARIO_CATALOG, name) ? SCENARIO_CATALOG[name] : undefined;
}
