/**
 * Streaming: time to the first streamed words of a reply against the time to
 * the whole reply (the scripted provider pacing its chunks as the demo does),
 * and what streaming costs per turn: wall time, KV writes of the trace and
 * USD, with streaming on and off, over a KV store on a SQLite file.
 *
 * @module
 */
import { join } from "node:path";
import { newRun } from "../harness/state.ts";
import type { AnyTool } from "../harness/run_options.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { executeRun } from "../runtime/execute_run.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { SCRIPTED_CHUNK_MS } from "../testing/scripted_provider.ts";
import { median, progress } from "./instrument.ts";
import { TASK } from "./overhead.ts";

/** Per-turn figures of one mode (streaming on or off). */
export interface StreamMode {
  /** Median wall ms per turn. */
  wallMs: number;
  /** Median trace events written to KV per turn. */
  eventWrites: number;
  /** Median `text_delta` writes per turn. */
  deltaWrites: number;
  /** USD per turn (the same in every run). */
  usd: number;
}

/** What {@link benchStreaming} measured. */
export interface StreamResult {
  runs: number;
  chunkMs: number;
  /** Words in the paced reply. */
  words: number;
  /** Median ms from the request to its first delta, and to the whole reply. */
  firstDeltaMs: number;
  wholeReplyMs: number;
  on: StreamMode;
  off: StreamMode;
}

const WORDS = 60;

/** Measures time to first delta (paced) and the per-turn cost of streaming on vs off (plan). */
export async function benchStreaming(
  tools: readonly AnyTool[],
  options: { runs?: number; chunkMs?: number } = {},
): Promise<StreamResult> {
  const runs = options.runs ?? 5;
  const chunkMs = options.chunkMs ?? SCRIPTED_CHUNK_MS;
  progress(`streaming: ${runs} paced replies of ${WORDS} words (${chunkMs} ms a chunk)`);
  const text = Array.from({ length: WORDS }, (_, i) => `word${i}`).join(" ");
  const request = { messages: [{ role: "user" as const, content: text }], tools: [] };
  const first: number[] = [], whole: number[] = [];
  for (let i = 0; i < runs; i++) {
    const model = scriptedModel("echo", { chunkMs });
    const t0 = performance.now();
    let firstAt = 0;
    await model.complete({
      ...request,
      onText: () => void (firstAt ||= performance.now()),
    }, new AbortController().signal);
    first.push(firstAt - t0);
    whole.push(performance.now() - t0);
  }
  progress(`streaming: ${runs} runs of plan over a KV file, streaming on, then off`);
  const dir = await Deno.makeTempDir({ prefix: "reins-stream-bench-" });
  try {
    const figures = () => ({
      wall: [] as number[],
      writes: [] as number[],
      deltas: [] as number[],
      usd: [] as number[],
    });
    const seen = { on: figures(), off: figures() };
    const once = async (stream: boolean, i: number) => {
      const { wall, writes, deltas, usd } = stream ? seen.on : seen.off;
      const kv = await Deno.openKv(join(dir, `${stream ? "on" : "off"}-${i}.sqlite`));
      try {
        const store = new KvRunStore(kv);
        const s = newRun(TASK);
        await store.save(s);
        const t0 = performance.now();
        const done = await executeRun(store, s.runId, {
          model: scriptedModel("plan", { stream }),
          tools: [...tools],
        });
        wall.push((performance.now() - t0) / done.turns);
        const events = await store.events(s.runId);
        writes.push(events.length / done.turns);
        deltas.push(events.filter((e) => e.event.type === "text_delta").length / done.turns);
        usd.push(done.costUsd / done.turns);
      } finally {
        kv.close();
      }
    };
    // Interleaved, so the machine's drift is shared by both modes.
    for (let i = 0; i < runs; i++) {
      await once(true, i);
      await once(false, i);
    }
    const mode = (f: ReturnType<typeof figures>): StreamMode => ({
      wallMs: median(f.wall),
      eventWrites: median(f.writes),
      deltaWrites: median(f.deltas),
      usd: median(f.usd),
    });
    const on = mode(seen.on);
    const off = mode(seen.off);
    return {
      runs,
      chunkMs,
      words: WORDS,
      firstDeltaMs: median(first),
      wholeReplyMs: median(whole),
      on,
      off,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
