/**
 * Before a process executes a stored tree: is it a run of an agent this
 * process serves, and does the definition it has still fit the run? A run
 * of an unknown agent is left alone (a rolling deploy: an old instance must
 * not fail a new agent's runs). A definition whose fingerprint differs from
 * the run's resumes it when every tool its pending calls name (in any run of
 * the tree) still exists with the same parameters, and its typed output's
 * schema is unchanged or no answer awaits its check; otherwise the run ends
 * `failed` with a reason naming the difference: never a silent re-run under
 * other tools, never "Unknown tool" after an approval, never an answer written
 * for one output schema judged against another.
 *
 * @module
 */
import type { JsonSchema } from "../harness/output.ts";
import { unjudgedAnswer } from "../harness/output_turn.ts";
import { pending, type RunState } from "../harness/state.ts";
import { isoNow } from "../harness/iso_now.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";
import type { Agent } from "../subagents/define_agent.ts";
import { hashOf, type ToolTable } from "../subagents/describe_agent.ts";
import { loadTree } from "../subagents/tree.ts";
import type { AgentInfo, AgentRegistry } from "./agent_registry.ts";
import {
  loadRunSettings,
  parseStoredSettings,
  RUN_SETTINGS_VERSION,
  type RunSettings,
  type StoredRunSettings,
} from "./run_settings.ts";

/** What {@link checkRunAgent} found. */
export type AgentCheck =
  /** The run's agent is not served here: leave the run (and its lease) alone. */
  | { kind: "unknown"; agent: string | undefined }
  /** The definition changed under a pending call: end the run `failed` with `reason`. */
  | { kind: "refused"; reason: string }
  /** Execute it with `agent`, narrowed by `options`. */
  | { kind: "ready"; agent: Agent; info: AgentInfo; options: RunSettings };

/**
 * The settings stored for a new root run of `info`'s agent.
 *
 * @example
 * ```ts
 * import { agentRegistry } from "./agent_registry.ts";
 * import { stampOf } from "./agent_check.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const a = defineAgent({ name: "a", instructions: "", tools: [] });
 * const stamp = stampOf(await agentRegistry([a]).info(a), {});
 * console.log(stamp.agent, stamp.tools); // a { a: {} }
 * ```
 */
export function stampOf(info: AgentInfo, options: RunSettings): StoredRunSettings {
  return {
    $schemaVersion: RUN_SETTINGS_VERSION,
    agent: info.agent.name,
    fingerprint: info.description.fingerprint,
    tools: info.table,
    options,
  };
}

/**
 * Agent paths (`demo`, `demo/research`) of every run of a tree, by run id. A
 * child stored without an agent name (made before agents) is named by the
 * tool of the parent's call that started it (`research`).
 */
async function agentPaths(
  store: KvRunStore,
  root: RunState,
  rootAgent: string,
  nodes: readonly { runId: string; parentId: string | null; agent?: string }[],
): Promise<Map<string, string>> {
  const paths = new Map<string, string>();
  for (const n of nodes) {
    const parent = n.parentId === null ? undefined : paths.get(n.parentId);
    if (parent === undefined || n.parentId === null) {
      paths.set(n.runId, rootAgent);
      continue;
    }
    let name = n.agent;
    if (name === undefined) {
      const callId = n.runId.slice(n.parentId.length + 1);
      const state = n.parentId === root.runId ? root : await store.load(n.parentId);
      const calls = state.messages.flatMap((m) => m.role === "assistant" ? m.tool_calls ?? [] : []);
      name = calls.find((c) => c.id === callId)?.function.name ?? "?";
    }
    paths.set(n.runId, `${parent}/${name}`);
  }
  return paths;
}

/** The first pending call of the tree whose tool differs between `then` and `now`. */
async function firstMismatch(
  store: KvRunStore,
  root: RunState,
  rootAgent: string,
  then: ToolTable | undefined,
  now: ToolTable,
): Promise<string | null> {
  const nodes = await loadTree(store, root.runId);
  const paths = await agentPaths(store, root, rootAgent, nodes);
  for (const node of nodes) {
    if (node.status === "completed" || node.status === "failed") continue;
    const state = node.runId === root.runId ? root : await store.load(node.runId);
    const path = paths.get(node.runId) ?? rootAgent;
    for (const call of pending(state)) {
      const tool = call.function.name;
      const current = now[path]?.[tool];
      // Without a stored table (a run from before agents), the tool only has to exist.
      const before = then ? then[path]?.[tool] : current;
      if (current === before && (then !== undefined || current !== undefined)) continue;
      const where = `pending call ${call.id} of run ${node.runId}`;
      if (current === undefined) return `its ${where} names tool "${tool}", which it no longer has`;
      if (before === undefined) return `its ${where} names tool "${tool}", which it did not have`;
      return `the parameters of tool "${tool}" changed (${where})`;
    }
  }
  return null;
}

/**
 * Whether the root run's typed output changed under an answer that awaits its
 * check. Child runs take no output schema (an agent tool asks for text), and a
 * definition without one leaves the run its stored schema (`planOutput`): only
 * a new or different schema of the root's agent can meet an answer written for
 * another. Without such an answer the run goes on under the new schema.
 */
async function outputMismatch(root: RunState, now: JsonSchema | null): Promise<string | null> {
  if (now === null) return null;
  const then = root.outputSchema;
  if (then !== undefined && await hashOf(then) === await hashOf(now)) return null;
  const answer = unjudgedAnswer(root);
  if (answer === null) return null;
  const what = then === undefined ? "it has an output schema now" : "its output schema changed";
  return `${what} while ${answer} of run ${root.runId} awaited its check`;
}

/**
 * Checks stored root run `root` against `registry` (see the module doc); a
 * run that may resume under a changed definition gets the new stamp.
 * `settings`: the run's settings as just stored with it (a run created
 * here), so they are not read back.
 *
 * @example
 * ```ts
 * import { agentRegistry } from "./agent_registry.ts";
 * import { checkRunAgent } from "./agent_check.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const a = defineAgent({ name: "a", instructions: "", tools: [] });
 * const s = newRun("hi", { agent: "b" });
 * await store.save(s);
 * console.log((await checkRunAgent(store, s, agentRegistry([a]))).kind); // unknown
 * kv.close();
 * ```
 */
export async function checkRunAgent(
  store: KvRunStore,
  root: RunState,
  registry: AgentRegistry,
  settings?: unknown,
): Promise<AgentCheck> {
  const agent = registry.forRun(root);
  if (!agent) return { kind: "unknown", agent: root.agent };
  const info = await registry.info(agent);
  const stored = settings === undefined
    ? await loadRunSettings(store, root.runId)
    : parseStoredSettings(root.runId, settings);
  const stamp = stored && "fingerprint" in stored ? stored : undefined;
  const options = stamp?.options ?? (stored && "legacy" in stored ? stored.legacy : {});
  if (stamp?.agent === agent.name && stamp.fingerprint === info.description.fingerprint) {
    return { kind: "ready", agent, info, options };
  }
  const mismatch = await firstMismatch(store, root, agent.name, stamp?.tools, info.table) ??
    await outputMismatch(root, info.description.output);
  if (mismatch) {
    const was = stamp ? ` since run ${root.runId} started (${stamp.fingerprint})` : "";
    return {
      kind: "refused",
      reason: `agent "${agent.name}" changed${was} and ${mismatch}`,
    };
  }
  // It may go on under this definition: from now on, its calls are checked against it.
  await store.saveSettings(root.runId, stampOf(info, options));
  return { kind: "ready", agent, info, options };
}

/**
 * Ends stored root run `id` `failed` with `reason`, under its lease (false
 * when another process holds it, or it is no longer `running`).
 *
 * @example
 * ```ts
 * import { failRun } from "./agent_check.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const s = newRun("hi");
 * await store.save(s);
 * await failRun(store, s.runId, "agent changed");
 * console.log((await store.load(s.runId)).stopReason); // agent changed
 * kv.close();
 * ```
 */
export async function failRun(store: KvRunStore, id: string, reason: string): Promise<boolean> {
  if (!(await store.acquireLease(id, store.owner))) return false;
  try {
    const state = await store.load(id);
    if (state.status !== "running") return false;
    state.status = "failed";
    state.interruption = null;
    state.stopReason = reason;
    state.error = reason;
    state.updatedAt = isoNow();
    // Its event stream ends too: the `run_stopped` rides in the save.
    await store.traceSink()({
      type: "run_stopped",
      runId: id,
      at: state.updatedAt,
      status: "failed",
      reason,
      interruption: null,
      turns: state.turns,
      costUsd: state.costUsd,
    });
    await store.save(state);
    return true;
  } finally {
    await store.releaseLease(id, store.owner).catch(() => false);
  }
}
