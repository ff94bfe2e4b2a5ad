/**
 * The process the demo's crash experiment kills: it runs `plan` persisted in
 * Deno KV and prints one JSON line per trace event (`{"kind":"event",...}`)
 * and one after each commit to KV (`{"kind":"committed","turns":2,...}`), so
 * the parent can send SIGKILL at a known point. The scripted provider answers
 * after `--latency-ms`; model calls from turn `--slow-from-turn` on take
 * `--slow-ms` more, so a kill sent after a commit lands while the child waits.
 *
 * ```sh
 * deno run --allow-read --allow-write --allow-env cli/crash_child.ts \
 *   --kv /tmp/runs.sqlite --workspace /tmp/ws --run-id r1 [--latency-ms 50] [--lease-ms 1000] \
 *   [--slow-from-turn 3 --slow-ms 5000]
 * ```
 *
 * @module
 */
import { printLine } from "./child_lines.ts";
import { parseArgs } from "node:util";
import { newRun, pending, type RunState } from "../harness/state.ts";
import type { Model } from "../harness/model.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { sleep } from "../harness/sleep.ts";
import { demoTools } from "../tools/catalog.ts";
import { openWorkspace } from "../tools/workspace.ts";
import { openKv } from "../kv/open_kv.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { startRun } from "../runtime/execute_run.ts";
import { SYSTEM, TASK } from "./experiments/common.ts";

/** A line the child prints: a trace event, a commit, or the end. */
export type ChildLine =
  | { kind: "event"; type: string; toolName?: string; args?: string; turn?: number }
  | { kind: "committed"; turns: number; messages: number; pending: number; costUsd: number }
  | { kind: "done"; status: string };

function say(line: ChildLine): void {
  printLine(line);
}

/** A KV store that announces each commit once it is durable. */
class AnnouncingStore extends KvRunStore {
  override async save(state: Readonly<RunState>): Promise<void> {
    await super.save(state);
    say({
      kind: "committed",
      turns: state.turns,
      messages: state.messages.length,
      pending: pending(state).length,
      costUsd: state.costUsd,
    });
  }
}

/** The model, with calls for turn `turn` and later delayed by `ms` (0: never). */
function slowFrom(model: Model, turn: number, ms: number): Model {
  if (!(turn > 0 && ms > 0)) return model;
  return {
    name: model.name,
    async complete(request, signal) {
      const asked = request.messages.filter((m) => m.role === "assistant").length + 1;
      if (asked >= turn) await sleep(ms, signal);
      return model.complete(request, signal);
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      kv: { type: "string" },
      workspace: { type: "string" },
      "run-id": { type: "string" },
      "latency-ms": { type: "string", default: "50" },
      "slow-from-turn": { type: "string", default: "0" },
      "slow-ms": { type: "string", default: "0" },
      "lease-ms": { type: "string", default: "1000" },
    },
  });
  const runId = values["run-id"];
  if (!values.kv || !values.workspace || !runId) {
    throw new Error("usage: crash_child.ts --kv PATH --workspace DIR --run-id ID");
  }
  const kv = await openKv(values.kv);
  try {
    const store = new AnnouncingStore(kv, { leaseMs: Number(values["lease-ms"]) });
    const ws = openWorkspace(values.workspace);
    const done = await startRun(store, newRun(TASK, { system: SYSTEM, runId, model: "plan" }), {
      model: slowFrom(
        scriptedModel("plan", { latencyMs: Number(values["latency-ms"]) }),
        Number(values["slow-from-turn"]),
        Number(values["slow-ms"]),
      ),
      tools: demoTools(ws),
      trace: (e) => {
        say({
          kind: "event",
          type: e.type,
          ...(e.type === "tool_start" ? { toolName: e.toolName, args: e.args } : {}),
          ...(e.type === "turn" ? { turn: e.turn } : {}),
        });
      },
    });
    say({ kind: "done", status: done.status });
  } finally {
    kv.close();
  }
}

if (import.meta.main) await main();
