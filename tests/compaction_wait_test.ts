// A summary call refused only because a sibling's call in flight holds the rest of the
// tree's budget in reserve waits for it to settle, as a model turn does: how the calls
// overlap (a loaded machine) must not decide the run's exit.
import assert from "node:assert/strict";
import { z } from "zod";
import { run } from "../harness/run.ts";
import { newRun } from "../harness/state.ts";
import type { TraceEvent } from "../harness/trace.ts";
import type { Model, ModelReply } from "../harness/model.ts";
import type { ChatMessage } from "../harness/messages.ts";
import type { ContextPolicy } from "../harness/context_policy.ts";
import { defineTool } from "../harness/tool.ts";
import { MemoryRunStore } from "../harness/run_store.ts";
import { sleep } from "../harness/sleep.ts";
import { ModelError } from "../harness/errors.ts";
import { agentTool, childRunId, treeSettled } from "../subagents/agent_tool.ts";

const A = "Read the big file, then the small one.";
const B = "Answer after a look.";
/** About 1,200 tokens: over the trigger below once a turn follows it. */
const BIG = Array.from({ length: 400 }, (_, i) => `line ${i} of the big file`).join("\n");

const usage = { prompt_tokens: 100, completion_tokens: 10 };
const say = (content: string): ModelReply => ({
  message: { role: "assistant", content },
  usage,
  finishReason: "stop",
});
const calls = (...c: [string, object][]): ModelReply => ({
  message: {
    role: "assistant",
    content: null,
    tool_calls: c.map(([name, args], i) => ({
      id: `c${i}`,
      type: "function" as const,
      function: { name, arguments: JSON.stringify(args) },
    })),
  },
  usage,
  finishReason: "tool_calls",
});

const latch = () => Promise.withResolvers<void>();
const firstUser = (m: ChatMessage[]) => m.find((x) => x.role === "user")?.content;

/** How the tree of {@link tree} runs. */
interface TreeOptions {
  budgetMode: "soft" | "hard";
  /** Settles B's reserved call. */
  release(signal: AbortSignal): Promise<void>;
  /** No trigger: A's third call is refused as too long, and A compacts for that. */
  tooLong?: boolean;
}

/**
 * A tree: the root asks two research children at once. Child A reads a big file (turn 1)
 * and a small one (turn 2); its prompt is then over the trigger (or, `tooLong`, its next
 * call is refused as too long) and it summarizes turn 1 before its answer. Child B waits in
 * a tool until A is near its summary, then makes a call that `release` holds: it reserves
 * all the tree has left ($0.03 buys fewer than 4,096 reply tokens), so A's summary call is
 * refused while it is in flight.
 */
function tree({ budgetMode, release, tooLong = false }: TreeOptions) {
  const log: string[] = [];
  const [bGo, bCalled] = [latch(), latch()];
  /** Lets B make its reserved call; resolves once it has. */
  const bCalls = () => {
    bGo.resolve();
    return bCalled.promise;
  };
  const turns = new Map<string, number>();
  const model: Model = {
    name: "tree",
    complete: async (req, signal) => {
      const q = firstUser(req.messages);
      const who = q === A ? "A" : q === B ? "B" : "root";
      const n = (turns.get(who) ?? 0) + 1;
      turns.set(who, n);
      log.push(`${who} ${n} start${req.maxTokens === undefined ? "" : " reserved"}`);
      const results = req.messages.filter((m) => m.role === "tool").map((m) => m.content);
      if (who === "root") {
        return n === 1
          ? calls(["research", { question: A }], ["research", { question: B }])
          : say(`root done: ${results.join(" | ")}`);
      }
      if (who === "B") {
        if (n === 1) return calls(["hold", {}]);
        bCalled.resolve();
        await release(signal);
        log.push("B 2 end");
        return say("B done");
      }
      if (!results.length) return calls(["big", {}]);
      // Soft mode reserves only beside a call in flight: B calls while this one is.
      const held = budgetMode === "soft";
      if (!results.includes("small file")) {
        if (held && !tooLong) await bCalls();
        return calls(["small", {}]);
      }
      if (tooLong && results.includes(BIG)) {
        if (held) await bCalls();
        log.push(`A ${n} too long`);
        throw new ModelError("context_length", "maximum context length is 4000 tokens", 400);
      }
      return say("A done");
    },
  };
  const summaryModel: Model = {
    name: "summary",
    complete: () => {
      log.push("summary");
      return Promise.resolve(say("A read the big file and the small one."));
    },
  };
  const tool = (name: string, run: () => Promise<string>) =>
    defineTool({ name, description: name, parameters: z.object({}), readOnly: true, run });
  const research = agentTool({
    name: "research",
    description: "Researches a question.",
    system: "Answer briefly.",
    tools: [
      tool("big", () => Promise.resolve(BIG)),
      // Hard mode reserves every call of a child: B calls while A runs this tool.
      tool("small", async () => {
        if (budgetMode === "hard") await bCalls();
        return "small file";
      }),
      tool("hold", () => bGo.promise.then(() => "held")),
    ],
  });
  const context: ContextPolicy = {
    ...(tooLong ? { windowTokens: 1_000_000 } : { trigger: { tokens: 600 } }),
    strategies: ["summarize"],
    keepTurns: 1,
    summaryMaxTokens: 200,
    summaryModel,
  };
  const prices = { inputPerMillion: 3, outputPerMillion: 12 };
  return {
    log,
    options: {
      model,
      tools: [research],
      context,
      prices,
      budgetMode,
      limits: { maxBudgetUsd: 0.03 },
    },
  };
}

/** Whether an event is child A's (call c0 of the root) small-file result. */
const aSmallDone = (e: TraceEvent) =>
  e.type === "tool_result" && e.runId.endsWith(".c0") && e.toolName === "small";

/** Runs the tree with B's call settling 10 ms after A's step before its summary call. */
async function waitedRun(budgetMode: "soft" | "hard", tooLong = false) {
  const before = latch();
  const t = tree({
    budgetMode,
    tooLong,
    release: async (signal) => {
      await before.promise;
      await sleep(10, signal); // A plans its summary call in microtasks: it is refused by then
    },
  });
  const compactions: string[] = [];
  const trace = (e: TraceEvent) => {
    if (aSmallDone(e)) t.log.push("A small done");
    if (aSmallDone(e) && !tooLong) before.resolve();
    if (e.type === "compaction") compactions.push(`${e.runId} ${e.strategy} ${e.reason}`);
  };
  // Too long: A's refused call is the step (held until B has called, in soft mode).
  if (tooLong) before.resolve();
  const root = await run(newRun("Research both."), { ...t.options, trace });
  await treeSettled(root.runId);
  const why = `${budgetMode}: ${root.stopReason}\n${t.log.join("\n")}`;
  assert.equal(root.status, "completed", why);
  // A compacted and answered: before the fix it stopped at the budget.
  assert.equal(root.output, "root done: A done | B done", why);
  const reason = tooLong ? "context_length" : "trigger";
  assert.deepEqual(compactions, [`${childRunId(root.runId, "c0")} summarize ${reason}`], why);
  assert.ok(root.costUsd <= 0.03, `${root.costUsd}`);
  const at = (line: string) => t.log.indexOf(line);
  return { at, why };
}

Deno.test("a summary call refused for a sibling's reservation waits for it, then summarizes", async () => {
  for (const budgetMode of ["soft", "hard"] as const) {
    const { at, why } = await waitedRun(budgetMode);
    // The overlap happened: B's reserved call was in flight when A went on to its summary
    // call, and the summary was asked only once that call had settled.
    assert.ok(at("B 2 start reserved") >= 0, why);
    assert.ok(at("B 2 start reserved") < at("A small done"), why);
    assert.ok(at("A small done") < at("B 2 end") && at("B 2 end") < at("summary"), why);
  }
});

Deno.test("after a wait, a prompt the provider refused as too long is still summarized", async () => {
  // No trigger: only the refusal compacts. After the wait the loop must compact for it
  // again, not send the refused prompt once more (the run would fail).
  const { at, why } = await waitedRun("soft", true);
  assert.ok(at("B 2 start reserved") >= 0 && at("B 2 start reserved") < at("A 3 too long"), why);
  assert.ok(at("A 3 too long") < at("B 2 end") && at("B 2 end") < at("summary"), why);
  assert.ok(at("A 4 start") > at("summary"), why);
});

Deno.test("a Stop while a summary call waits for a sibling's reservation is the cancelled exit", async () => {
  for (const budgetMode of ["soft", "hard"] as const) {
    const aStopped = latch();
    // B's call ignores the Stop and settles only once A has stopped: A wakes by the Stop.
    const t = tree({ budgetMode, release: () => aStopped.promise });
    const ac = new AbortController();
    const trace = (e: TraceEvent) => {
      // A plans its summary call in microtasks: it is refused and waiting by then.
      if (aSmallDone(e)) sleep(10).then(() => ac.abort("stopped by the user"));
      if (e.type === "run_stopped" && e.runId.endsWith(".c0")) aStopped.resolve();
    };
    const store = new MemoryRunStore();
    const root = await run(newRun("Research both."), {
      ...t.options,
      trace,
      store,
      signal: ac.signal,
    });
    await treeSettled(root.runId);
    const a = await store.load(childRunId(root.runId, "c0"));
    const why = `${budgetMode}: ${a.stopReason}\n${t.log.join("\n")}`;
    assert.equal(a.status, "interrupted", why);
    assert.deepEqual(a.interruption, { type: "cancelled", reason: "stopped by the user" }, why);
    assert.equal(a.context, undefined, "no summary was asked");
    assert.ok(!t.log.includes("summary"), why);
    assert.equal(root.status, "interrupted");
    assert.deepEqual(root.interruption, { type: "cancelled", reason: "stopped by the user" });
  }
});
