/**
 * Conversations and forks, measured: the bytes a 200-message conversation
 * persists per message (the follow-up's save and its turn's commits) at
 * message 1 and message 200, and, for forks of a `plan` run at each turn, the
 * quote of the fork's next call against the prompt tokens the scripted
 * provider then reports for it.
 *
 * `deno run -A bench/conversation_bench.ts` prints both tables; `deno task
 * bench` includes them.
 *
 * @module
 */
import { newRun, type RunState } from "../harness/state.ts";
import type { AnyTool } from "../harness/run_options.ts";
import type { TraceEvent } from "../harness/trace.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { executeRun, startRun } from "../runtime/execute_run.ts";
import { followUpRun } from "../runtime/follow_up_run.ts";
import { forkRun } from "../runtime/fork_run.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { bytes, type Row, verdict, x } from "./table.ts";

/** Bytes one message of a conversation persisted. */
export interface MessageBytes {
  /** The message's number (1: the task). */
  message: number;
  /** Bytes committed for it: the follow-up's save and every save of its turn. */
  bytes: number;
  /** Saves (commits) it took. */
  saves: number;
  /** Wall time of the follow-up and its turn, ms (the load of the transcript included). */
  ms: number;
}

/** One fork's quote and what the provider reported for the call quoted. */
export interface QuoteRow {
  /** The source's turn the fork starts after. */
  atTurn: number;
  /** Quoted prompt tokens. */
  quoted: number;
  /** Prompt tokens the provider reported for that call. */
  actual: number;
  /** Quoted prompt USD. */
  quotedUsd: number;
  /** The reply reservation in USD. */
  replyUsd: number;
  /** What the call cost (prompt and reply). */
  actualUsd: number;
  /** Tool calls replayed from the source ($0). */
  replayed: number;
}

/** A store that sums the bytes of its commits. */
class CountingStore extends KvRunStore {
  bytes = 0;
  saves = 0;
  override async save(state: Readonly<RunState>): Promise<void> {
    await super.save(state);
    this.bytes += this.lastCommitBytes;
    this.saves++;
  }
}

/**
 * Runs an `echo` conversation of `messages` messages in KV (one turn each)
 * and returns the bytes each message persisted.
 */
export async function benchConversationBytes(messages = 200): Promise<MessageBytes[]> {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new CountingStore(kv);
    const model = scriptedModel("echo");
    const out: MessageBytes[] = [];
    const text = (n: number) => `Message ${n}: please say this back, word for word, thank you.`;
    let t0 = performance.now();
    let state = await startRun(store, newRun(text(1), { system: "Echo." }), { model });
    out.push({ message: 1, bytes: store.bytes, saves: store.saves, ms: performance.now() - t0 });
    for (let n = 2; n <= messages; n++) {
      const [bytes, saves] = [store.bytes, store.saves];
      t0 = performance.now();
      await followUpRun(store, kv, state.runId, text(n), { limits: { maxBudgetUsd: 100 } });
      state = await executeRun(store, state.runId, { model });
      const ms = performance.now() - t0;
      out.push({ message: n, bytes: store.bytes - bytes, saves: store.saves - saves, ms });
    }
    if (state.turns !== messages) throw new Error(`expected ${messages} turns, ran ${state.turns}`);
    return out;
  } finally {
    kv.close();
  }
}

/** Forks a completed `plan` run at each turn it can be forked at; quotes and runs each fork. */
export async function benchForkQuotes(tools: readonly AnyTool[]): Promise<QuoteRow[]> {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const model = scriptedModel("plan");
    const source = await startRun(
      store,
      newRun("Which file mentions a timeout?", {
        system: "You are an operations assistant. Use the tools to answer; be brief.",
      }),
      { model, tools },
    );
    const rows: QuoteRow[] = [];
    for (const atTurn of [0, 1, 2]) {
      const { state, quote } = await forkRun(store, source.runId, {
        atTurn,
        runWith: () => Promise.resolve({ model, tools }),
      });
      const events: TraceEvent[] = [];
      await executeRun(store, state.runId, { model, tools, trace: (e) => void events.push(e) });
      const first = events.find((e) => e.type === "turn");
      if (first?.type !== "turn") throw new Error(`the fork at turn ${atTurn} made no call`);
      rows.push({
        atTurn,
        quoted: quote.promptTokens,
        actual: first.prompt_tokens,
        quotedUsd: quote.promptUsd,
        replyUsd: quote.replyUsd,
        actualUsd: first.turnCostUsd,
        replayed: events.filter((e) => e.type === "tool_result" && e.replayed).length,
      });
    }
    return rows;
  } finally {
    kv.close();
  }
}

if (import.meta.main) {
  const { createWorkspace } = await import("../tools/workspace.ts");
  const { demoTools } = await import("../tools/catalog.ts");
  const perMessage = await benchConversationBytes(200);
  const [m1, m2, m200] = [perMessage[0], perMessage[1], perMessage[199]];
  console.log("200-message conversation (echo, KV), bytes persisted per message:");
  for (const m of [m1, m2, perMessage[99], m200]) {
    console.log(
      `  message ${m.message}: ${m.bytes} B in ${m.saves} commits, ${m.ms.toFixed(1)} ms`,
    );
  }
  console.log(`  message 200 / message 2: ${(m200.bytes / m2.bytes).toFixed(2)}x`);
  const ws = await createWorkspace();
  try {
    console.log("\nfork of plan at turn N: quote vs the provider's count for that call");
    console.log(
      "  atTurn  quoted tok  actual tok  prompt $ quoted  reply $ reserved  call $  replayed",
    );
    for (const r of await benchForkQuotes(demoTools(ws))) {
      console.log(
        `  ${String(r.atTurn).padStart(6)}  ${String(r.quoted).padStart(10)}  ${
          String(r.actual).padStart(10)
        }  ${r.quotedUsd.toFixed(6).padStart(15)}  ${r.replyUsd.toFixed(6).padStart(16)}  ${
          r.actualUsd.toFixed(6)
        }  ${r.replayed}`,
      );
    }
  } finally {
    await ws.remove();
  }
}

/**
 * The conversation section of `deno task bench`: bytes per message of a
 * 200-message conversation, and quote vs actual for forks of `plan`.
 */
export async function conversationReport(
  tools: readonly AnyTool[],
): Promise<{ rows: Row[]; targets: string[] }> {
  const perMessage = await benchConversationBytes(200);
  const quotes = await benchForkQuotes(tools);
  const [m1, m2, m200] = [perMessage[0], perMessage[1], perMessage[199]];
  const rows: Row[] = [
    { section: "10. conversations and forks (KV in memory, scripted provider)" },
    ["10", "200-message conversation: bytes persisted, message 1 (task)", bytes(m1.bytes)],
    [
      "10",
      "  message 2 (first follow-up) / message 200",
      `${bytes(m2.bytes)} / ${bytes(m200.bytes)}`,
    ],
    ["10", "  message 200 / message 2", x(m200.bytes, m2.bytes)],
    ...quotes.map((q): Row => [
      "10",
      `fork of plan at turn ${q.atTurn}: quoted / reported prompt tokens (replayed reads)`,
      `${q.quoted} / ${q.actual} (${q.replayed})`,
    ]),
  ];
  const exact = quotes.every((q) => q.quoted === q.actual);
  return {
    rows,
    targets: [
      verdict("conversation bytes, message 200 / message 2", m200.bytes / m2.bytes, 1.1),
      `fork quotes equal the provider's prompt count: ${exact ? "PASS" : "MISS"}`,
    ],
  };
}
