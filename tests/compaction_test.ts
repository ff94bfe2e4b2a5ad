// Compaction (issue 26): each strategy on the scripted provider, what survives
// it (recall: the fact is in the first tool result), the budget, the turn cap,
// context-length errors, and the compacted prompt persisted in KV.
import assert from "node:assert/strict";
import { run } from "../harness/run.ts";
import { newRun, type RunState } from "../harness/state.ts";
import { memorySink, type TraceEvent } from "../harness/trace.ts";
import { computeCost, roundUsd } from "../harness/cost.ts";
import type { ChatMessage } from "../harness/messages.ts";
import type { Model } from "../harness/model.ts";
import type { ContextPolicy } from "../harness/context_policy.ts";
import { contextForPrefix, contextView } from "../harness/context_view.ts";
import { ERRORS_LOG } from "../tools/fixtures.ts";
import { PLAN_ANSWER, RECALL_TURNS } from "../testing/scenarios.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { fixture } from "./helpers.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { defineAgent } from "../subagents/define_agent.ts";
import { forkState } from "../harness/fork.ts";
import { agentRunOptions } from "../subagents/agent_run_options.ts";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { aiSdkModel } from "../ai_sdk/mod.ts";
import { scriptedFetch } from "../testing/scripted_provider.ts";
import { pad } from "./fixtures/padding.ts";

const task = "Read errors.log, look around, then tell me what timed out.";

/** The model, keeping every request's messages. */
function watched(model: Model): { model: Model; prompts: ChatMessage[][] } {
  const prompts: ChatMessage[][] = [];
  return {
    prompts,
    model: {
      name: model.name,
      complete: (
        req,
        signal,
      ) => (prompts.push(structuredClone(req.messages)), model.complete(req, signal)),
    },
  };
}

async function recall(context: ContextPolicy | undefined, extra = {}) {
  await using f = await fixture("recall");
  const w = watched(f.model);
  const { sink, events } = memorySink();
  const s = await run(newRun(task), {
    model: w.model,
    tools: f.tools,
    limits: { maxTurns: 40 },
    trace: sink,
    ...(context ? { context } : {}),
    ...extra,
  });
  return { s, events, prompts: w.prompts };
}

/** Summaries only, the last 2 turns kept, over 3,000 tokens. */
const SUMMARIZE: ContextPolicy = {
  trigger: { tokens: 3000 },
  strategies: ["summarize"],
  keepTurns: 2,
};

const of = <T extends TraceEvent["type"]>(events: TraceEvent[], type: T) =>
  events.filter((e): e is Extract<TraceEvent, { type: T }> => e.type === type);
const promptsOf = (events: TraceEvent[]) => of(events, "turn").map((e) => e.prompt_tokens);

function assertFullRecord(s: RunState): void {
  // The record keeps every message: task, then a reply and a result per tool turn, then the answer.
  assert.equal(s.messages.length, 1 + 2 * (s.turns - 1) + 1);
  const first = s.messages[2];
  assert.equal(first.role === "tool" && first.content, ERRORS_LOG);
}

Deno.test("recall without a policy: the answer is right and every prompt carries everything", async () => {
  const { s, events } = await recall(undefined);
  assert.equal(s.output, PLAN_ANSWER);
  assert.equal(s.turns, RECALL_TURNS + 1);
  assert.equal(of(events, "compaction").length, 0);
  assert.equal(s.context, undefined);
  assert.ok(Math.max(...promptsOf(events)) > 4500);
});

Deno.test("elide: old results become stubs in the prompt, never in the record; the model calls again and dedupe serves it in full", async () => {
  const policy = { trigger: { tokens: 3000 }, strategies: ["elide" as const], keepTurns: 2 };
  const { s, events, prompts } = await recall(policy, { dedupe: true });
  const compactions = of(events, "compaction");
  assert.ok(compactions.length >= 2);
  assert.ok(compactions.every((c) => c.strategy === "elide" && c.compactionCostUsd === 0));
  assert.ok(compactions.every((c) => c.tokensAfter < c.tokensBefore && c.elided > 0));
  assert.ok(promptsOf(events).every((p) => p <= 3000), String(promptsOf(events)));
  // The stub names the call, its size, and says it can be called again.
  const stub = prompts.at(-2)!.find((m) => m.role === "tool" && m.tool_call_id === "call_0_0");
  assert.match(
    stub?.content ?? "",
    /^\[result elided .*read_file \{"path":"errors.log"\} returned 2\d{3} characters\. Call the tool again/,
  );
  // The model read errors.log again: served from the cache (no tool run), in full, not as the stub.
  assert.equal(s.turns, RECALL_TURNS + 2);
  assert.equal(s.output, PLAN_ANSWER);
  const again = of(events, "tool_result").at(-1)!;
  assert.equal(again.cached, true);
  assert.equal(prompts.at(-1)!.at(-1)?.content, ERRORS_LOG);
  assertFullRecord(s);
  assert.equal(s.context?.summary, null);
  assert.equal(s.context?.compactions, compactions.length);
});

Deno.test("summarize: the summary keeps the fact, the answer comes without reading again", async () => {
  const policy = { trigger: { tokens: 3000 }, strategies: ["summarize" as const], keepTurns: 2 };
  const { s, events, prompts } = await recall(policy);
  const compactions = of(events, "compaction");
  assert.ok(compactions.length >= 1);
  assert.ok(compactions.every((c) => c.strategy === "summarize" && c.compactionCostUsd > 0));
  assert.equal(s.output, PLAN_ANSWER);
  assert.equal(s.turns, RECALL_TURNS + 1, "no second read of errors.log");
  assert.match(s.context?.summary ?? "", /ERROR worker 7 timed out after 30000 ms/);
  // The last prompt: task, summary, the kept turns; the first result only in the summary.
  const last = prompts.at(-1)!;
  assert.match(last[1].content ?? "", /^\[Summary of turns 1-\d+,/);
  assert.ok(!last.some((m) => m.content === ERRORS_LOG));
  assertFullRecord(s);
  // Billed like a turn: the run's cost is its turns plus its summaries, quoted at the cap first.
  const turnsUsd = of(events, "turn").reduce((n, e) => n + e.turnCostUsd, 0);
  const summariesUsd = compactions.reduce((n, e) => n + e.compactionCostUsd, 0);
  assert.equal(roundUsd(turnsUsd + summariesUsd), s.costUsd);
  assert.equal(roundUsd(summariesUsd), s.context?.costUsd);
  for (const c of compactions) {
    assert.ok(c.quotedUsd >= c.compactionCostUsd);
    assert.equal(c.compactionCostUsd, computeCost(c));
  }
  assert.equal(
    s.usage.prompt_tokens,
    of(events, "turn").reduce((n, e) => n + e.prompt_tokens, 0) + s.context!.usage.prompt_tokens,
  );
});

Deno.test("both strategies: elision first while it is enough, then a summary", async () => {
  const { s, events } = await recall({ trigger: { tokens: 3000 }, keepTurns: 2 });
  const kinds = of(events, "compaction").map((c) => c.strategy);
  assert.deepEqual(kinds, ["elide", "summarize"]);
  assert.equal(s.status, "completed");
  assert.equal(s.output, PLAN_ANSWER);
  // The summary came after the elision: it kept the stub, so the model read errors.log again.
  assert.match(s.context?.summary ?? "", /result elided to save context: read_file/);
  assert.equal(s.turns, RECALL_TURNS + 2);
});

Deno.test("runaway at 200 turns with a 2,000-token trigger: no prompt over it, cost linear", async () => {
  await using f = await fixture("runaway");
  const go = async (maxTurns: number, context?: ContextPolicy) => {
    const { sink, events } = memorySink();
    const s = await run(newRun(task), {
      model: f.model,
      tools: f.tools,
      limits: { maxTurns, maxBudgetUsd: 100 },
      trace: sink,
      ...(context ? { context } : {}),
    });
    return { s, events };
  };
  const policy = { trigger: { tokens: 2000 } };
  const [a, b] = [await go(100, policy), await go(200, policy)];
  // Compactions do not count under maxTurns.
  assert.equal(b.s.turns, 200);
  assert.equal(b.s.status, "max_turns_exceeded");
  assert.ok(Math.max(...promptsOf(b.events)) <= 2000);
  assert.ok(b.s.context!.compactions >= 3);
  assert.ok(b.s.costUsd <= 2.3 * a.s.costUsd, `${b.s.costUsd} vs ${a.s.costUsd}`);
  const bare = await go(100);
  assert.ok(a.s.costUsd < bare.s.costUsd);
  // A sawtooth: the prompt drops after each compaction.
  const p = promptsOf(b.events);
  assert.ok(p.some((x, i) => i > 0 && x < p[i - 1] / 2));
});

Deno.test("hard budget: a compaction starts only if the budget pays for it and the next turn", async () => {
  await using f = await fixture("runaway");
  const context = { trigger: { tokens: 600 }, summaryMaxTokens: 200 };
  const go = async (maxBudgetUsd: number, budgetMode: "soft" | "hard") => {
    const { sink, events } = memorySink();
    const s = await run(newRun(task), {
      model: f.model,
      tools: f.tools,
      limits: { maxTurns: 30, maxBudgetUsd },
      budgetMode,
      context,
      trace: sink,
    });
    return { s, compactions: of(events, "compaction") };
  };
  // Where the first compaction comes, and what it is quoted at.
  const first = (await go(1, "soft")).compactions[0];
  const spentBefore = roundUsd(first.costUsd - first.compactionCostUsd);
  const tight = await go(roundUsd(spentBefore + first.quotedUsd - 0.000001), "hard");
  assert.equal(tight.s.status, "budget_exceeded");
  assert.equal(tight.compactions.length, 0);
  assert.match(tight.s.stopReason ?? "", /a compaction \(quoted \$[\d.]+\) and the next turn/);
  assert.equal(tight.s.costUsd, spentBefore);
  const enough = await go(roundUsd(spentBefore + first.quotedUsd + 0.002), "hard");
  assert.equal(enough.compactions.length >= 1, true);
  assert.equal(enough.compactions[0].quotedUsd, first.quotedUsd);
  assert.ok(enough.s.costUsd <= roundUsd(spentBefore + first.quotedUsd + 0.002));
});

Deno.test("a context-length error: without a policy the run fails, with one it compacts once and goes on", async () => {
  await using f = await fixture("recall", { contextTokens: 4000 });
  const plain = await run(newRun(task), {
    model: f.model,
    tools: f.tools,
    limits: { maxTurns: 40 },
  });
  assert.equal(plain.status, "failed");
  assert.match(plain.stopReason ?? "", /\(context_length\).*maximum context length is 4000/);
  const { sink, events } = memorySink();
  // A trigger that never fires: only the provider's refusal compacts.
  const s = await run(newRun(task), {
    model: f.model,
    tools: f.tools,
    limits: { maxTurns: 40 },
    context: { windowTokens: 1_000_000 },
    trace: sink,
  });
  assert.equal(s.status, "completed");
  const compactions = of(events, "compaction");
  assert.ok(compactions.length >= 1);
  // The real window is unknown after a refusal: summarized, only the last turn kept.
  assert.ok(compactions.every((c) => c.reason === "context_length" && c.strategy === "summarize"));
});

Deno.test("a bad policy is a RangeError naming the field", async () => {
  await using f = await fixture("plan");
  for (
    const [context, field] of [[{ trigger: 1.5 }, "trigger"], [{ keepTurns: 0 }, "keepTurns"], [{
      strategies: ["shrink"],
    }, "strategies"]] as const
  ) {
    await assert.rejects(
      run(newRun(task), { model: f.model, context: context as ContextPolicy }),
      (e) => e instanceof RangeError && e.message.includes(`context.${field}`),
    );
  }
});

Deno.test("the compacted prompt is stored: a resume from KV sends what the run would have sent", async () => {
  await using f = await fixture("runaway");
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const w = watched(f.model);
    const opts = { model: w.model, tools: f.tools, store, context: { trigger: { tokens: 1000 } } };
    const first = await run(newRun(task), { ...opts, limits: { maxTurns: 40 } });
    assert.ok(first.context && first.context.summary !== null);
    const store2 = new KvRunStore(kv);
    const loaded = await store2.load(first.runId);
    assert.deepEqual(loaded.context, first.context);
    assert.deepEqual(
      contextView(loaded.messages, loaded.context),
      contextView(first.messages, first.context),
    );
    // A save after the compaction writes the new messages and the header, not the transcript.
    assert.ok(store.lastCommitBytes < 8000, `${store.lastCommitBytes} bytes`);
    // Resumed without the policy: the stored prompt still applies.
    const more = await run(loaded, {
      ...opts,
      context: undefined,
      store: store2,
      limits: { maxTurns: 41 },
    });
    const sent = w.prompts.at(-1)!;
    assert.equal(more.turns, 41);
    assert.match(sent[1].content ?? "", /^\[Summary of turns 1-/);
    assert.ok(sent.length < loaded.messages.length);
  } finally {
    kv.close();
  }
});

Deno.test("the AI SDK's context-length error (@ai-sdk/openai-compatible) is classified: compact once, go on", async () => {
  await using f = await fixture("recall");
  const provider = createOpenAICompatible({
    name: "scripted",
    baseURL: "http://scripted.reins.local/v1",
    fetch: scriptedFetch({ contextTokens: 4000 }),
    includeUsage: true,
  });
  const model = aiSdkModel(provider.chatModel("recall"), { maxRetries: 0 });
  const plain = await run(newRun(task), { model, tools: f.tools, limits: { maxTurns: 40 } });
  assert.equal(plain.status, "failed");
  assert.match(plain.stopReason ?? "", /\(context_length\)/);
  const { sink, events } = memorySink();
  const s = await run(newRun(task), {
    model,
    tools: f.tools,
    limits: { maxTurns: 40 },
    context: { windowTokens: 1_000_000 },
    trace: sink,
  });
  assert.equal(s.status, "completed");
  assert.ok(of(events, "compaction").some((c) => c.reason === "context_length"));
});

Deno.test("a fork from before the summary's end drops the summary; from after it keeps it", async () => {
  const { s } = await recall(SUMMARIZE);
  const c = s.context!;
  assert.ok(c.summary !== null && c.summarizedTo > 4);
  const early = contextForPrefix(c, c.summarizedTo - 2)!;
  assert.equal(early.summary, null);
  const view = contextView(s.messages.slice(0, c.summarizedTo - 2), early);
  assert.deepEqual(view, s.messages.slice(0, c.summarizedTo - 2));
  assert.deepEqual(contextForPrefix(c, s.messages.length), c);
  assert.equal(contextForPrefix(undefined, 3), undefined);
});

Deno.test("a cheaper summary model writes the summaries, at its own prices", async () => {
  await using f = await fixture("runaway");
  let summaryCalls = 0;
  const cheap = scriptedModel("runaway", { onRequest: () => summaryCalls++ });
  const prices = { inputPerMillion: 0.1, outputPerMillion: 0.4 };
  const summaryModel: Model = { name: "cheap", prices, complete: cheap.complete };
  const { sink, events } = memorySink();
  const s = await run(newRun(task), {
    model: f.model,
    tools: f.tools,
    limits: { maxTurns: 100, maxBudgetUsd: 100 },
    context: { trigger: { tokens: 2000 }, summaryModel },
    trace: sink,
  });
  const compactions = of(events, "compaction");
  assert.ok(compactions.length >= 1);
  assert.equal(summaryCalls, compactions.length);
  assert.equal(f.calls.n, s.turns, "the run's model made the turns only");
  for (const c of compactions) assert.equal(c.compactionCostUsd, computeCost(c, prices));
});

Deno.test("defineAgent takes a context policy in its options; run options carry it, a bad one is named", async () => {
  assert.throws(
    () =>
      defineAgent({ name: "a", instructions: "", tools: [], options: { context: { trigger: 2 } } }),
    (e) => e instanceof TypeError && e.message.includes("options.context.trigger"),
  );
  const agent = defineAgent({
    name: "long",
    instructions: "",
    tools: [],
    options: { context: { trigger: { tokens: 2000 }, summaryModel: "mini" } },
  });
  const mini = scriptedModel("echo");
  const o = await agentRunOptions(agent, {}, {
    model: scriptedModel("runaway"),
    context: { rootId: "r", dir: "/tmp/r" },
    resolveModel: (name) => (assert.equal(name, "mini"), mini),
  });
  assert.deepEqual(o.context?.trigger, { tokens: 2000 });
  assert.equal(o.context?.summaryModel, mini);
  // A request's own settings go over the agent's field by field: its summary model stays
  // (before: the request's policy replaced the agent's, and summaries left "mini").
  const asked = await agentRunOptions(agent, { context: { keepTurns: 1 } }, {
    model: scriptedModel("runaway"),
    context: { rootId: "r", dir: "/tmp/r" },
    resolveModel: () => mini,
  });
  assert.deepEqual(asked.context, { trigger: { tokens: 2000 }, keepTurns: 1, summaryModel: mini });
});

Deno.test("a fork of a compacted run sends the compacted prompt of its prefix", async () => {
  const { s } = await recall(SUMMARIZE);
  const c = s.context!;
  const late = forkState(s, { atTurn: s.turns - 1 });
  assert.equal(late.context?.summary, c.summary);
  assert.equal(late.context?.compactions, 0);
  assert.equal(late.costUsd, 0);
  assert.deepEqual(
    contextView(late.messages, late.context),
    contextView(s.messages.slice(0, late.messages.length), c),
  );
  const early = forkState(s, { atTurn: 2 });
  assert.equal(early.context, undefined);
});

Deno.test("a summary that spends past a soft budget is checked before the next model call", async () => {
  const calls: string[] = [];
  const pricey = { inputPerMillion: 1, outputPerMillion: 1 };
  const model: Model = {
    name: "worker",
    prices: pricey,
    complete: () => {
      calls.push("turn");
      const id = `c${calls.length}`;
      return Promise.resolve({
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{ id, type: "function", function: { name: "pad", arguments: "{}" } }],
        },
        usage: { prompt_tokens: 100, completion_tokens: 10 },
        finishReason: "tool_calls",
      });
    },
  };
  // Each summary costs $0.30: the first one spends the $0.25 budget.
  const summaryModel: Model = {
    name: "summarizer",
    prices: pricey,
    complete: () => (calls.push("summary"),
      Promise.resolve({
        message: { role: "assistant", content: "summary" },
        usage: { prompt_tokens: 100_000, completion_tokens: 200_000 },
        finishReason: "stop",
      })),
  };
  const done = await run(newRun("go"), {
    model,
    tools: [pad],
    context: { trigger: { tokens: 600 }, keepTurns: 1, strategies: ["summarize"], summaryModel },
    limits: { maxTurns: 20, maxBudgetUsd: 0.25 },
  });
  // Before: a model turn went out after the summary had spent the budget, then another.
  assert.equal(done.status, "budget_exceeded");
  assert.equal(calls.at(-1), "summary", calls.join(","));
});
