/**
 * What is stored beside a root run: what the request that made it asked for
 * (a hard budget mode, lower concurrency, ...; checked to narrow its agent's
 * options by subagents/agent_run_options.ts) and the stamp of the agent it
 * started under (name, fingerprint, tool parameter hashes), so another
 * process can tell whether it may resume it.
 *
 * @module
 */
import { z } from "zod";
import { pricesSchema, priceTableSchema } from "../harness/cost.ts";
import { runLimitsSchema } from "../harness/limits.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";
import { RecordError } from "../kv/record_error.ts";
import { type AgentOptions, agentOptionsSchema } from "../subagents/agent_options.ts";
import type { ToolTable } from "../subagents/describe_agent.ts";

/** What a request may ask of a run besides its limits: only narrowing (an agent's options). */
export type RunSettings = AgentOptions;

/** The version of {@link StoredRunSettings}. */
export const RUN_SETTINGS_VERSION = 1;

/** What is stored beside a root run: its agent's stamp and the request's options. */
export interface StoredRunSettings {
  /** {@link RUN_SETTINGS_VERSION}. */
  $schemaVersion: typeof RUN_SETTINGS_VERSION;
  /** The agent's name. */
  agent: string;
  /** The fingerprint of the definition the run last executed under. */
  fingerprint: string;
  /** Its tools' parameter hashes by agent path. */
  tools: ToolTable;
  /** What the request asked for (already checked to narrow the agent's options). */
  options: RunSettings;
}

const storedSchema = z.strictObject({
  $schemaVersion: z.literal(RUN_SETTINGS_VERSION),
  agent: z.string(),
  fingerprint: z.string(),
  tools: z.record(z.string(), z.record(z.string(), z.string())),
  options: agentOptionsSchema(),
});

/** Settings written before agents: the options, research ones, prices and limits of a request. */
const legacySchema = agentOptionsSchema().extend({
  researchDepth: z.int().min(0).optional(),
  researchWrites: z.boolean().optional(),
  prices: z.union([pricesSchema(), priceTableSchema()]).optional(),
  limits: runLimitsSchema().partial().optional(),
});

/** Settings as stored: an agent's stamp, or (written before agents) options only. */
export type LoadedRunSettings = StoredRunSettings | { legacy: RunSettings };

/**
 * The settings stored for run `runId`, validated: null when none were
 * stored; `{ legacy }` for a record written before agents (its options kept;
 * research depth and writes are its agent's now, its prices the process's,
 * its limits the run's own).
 *
 * @throws {RecordError} naming the first invalid field.
 *
 * @example
 * ```ts
 * import { parseStoredSettings } from "./run_settings.ts";
 * console.log(parseStoredSettings("r1", { dedupe: true, researchDepth: 2 })); // { legacy: { dedupe: true } }
 * ```
 */
export function parseStoredSettings(runId: string, value: unknown): LoadedRunSettings | null {
  if (value === null || value === undefined) return null;
  const isStamp = typeof value === "object" && "$schemaVersion" in value;
  const result = (isStamp ? storedSchema : legacySchema).safeParse(value);
  if (!result.success) {
    const [issue] = result.error.issues;
    // A failed parse has an issue; without one, the settings as a whole are named.
    if (!issue) throw new RecordError(runId, "settings", result.error.message);
    throw new RecordError(runId, ["settings", ...issue.path.map(String)].join("."), issue.message);
  }
  if ("$schemaVersion" in result.data) return result.data;
  const { budgetMode, dedupe, toolErrors, concurrency, stopOnPermanentError } = result.data;
  const legacy = { budgetMode, dedupe, toolErrors, concurrency, stopOnPermanentError };
  return { legacy: JSON.parse(JSON.stringify(legacy)) };
}

/**
 * The settings stored beside run `id` ({@link parseStoredSettings}).
 *
 * @example
 * ```ts
 * import { loadRunSettings } from "./run_settings.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * const kv = await Deno.openKv(":memory:");
 * console.log(await loadRunSettings(new KvRunStore(kv), "nope")); // null
 * kv.close();
 * ```
 */
export async function loadRunSettings(
  store: KvRunStore,
  id: string,
): Promise<LoadedRunSettings | null> {
  return parseStoredSettings(id, await store.settings(id));
}
