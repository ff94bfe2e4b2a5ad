import assert from "node:assert/strict";
import { run } from "../harness/run.ts";
import { newRun, pending, type RunState } from "../harness/state.ts";
import { approve } from "../harness/verdict.ts";
import { memorySink, type TraceEvent } from "../harness/trace.ts";
import { MemoryRunStore } from "../harness/run_store.ts";
import { RunStateError } from "../harness/errors.ts";
import type { AnyTool } from "../harness/run_options.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { DECLINED_ANSWER, DELETED_ANSWER, PLAN_ANSWER } from "../testing/scenarios.ts";
import {
  NOTES_QUESTION,
  RUNAWAY_QUESTION_2,
  SUMMARY_PREFIX,
  TIMEOUT_QUESTION,
  TREE_SCENARIOS,
} from "../testing/tree_scenarios.ts";
import { agentTool, childRunId, treeSettled } from "../subagents/agent_tool.ts";
import { RESEARCH_SYSTEM, researchTool } from "../subagents/research.ts";
import {
  approveInTree,
  formatTree,
  loadTree,
  rejectInTree,
  resumeTree,
} from "../subagents/tree.ts";
import { demoTools } from "../tools/catalog.ts";
import { listFilesTool } from "../tools/list_files.ts";
import { readFileTool } from "../tools/read_file.ts";
import { scanArchiveTool } from "../tools/scan_archive.ts";
import { isStepCount } from "../harness/stop_conditions.ts";
import { sleep } from "../harness/sleep.ts";
import type { Model } from "../harness/model.ts";
import { exists, fixture } from "./helpers.ts";

const task = "Investigate the workspace.";
const tree = (scenario: string) => fixture(scenario, { scenarios: TREE_SCENARIOS });
const near = (a: number, b: number) => Math.abs(a - b) < 1e-9;

function research(f: { ws: Parameters<typeof demoTools>[0] }, extra = {}): AnyTool {
  return researchTool({ workspace: f.ws, scan: { ms: 300 }, ...extra });
}

Deno.test("a child has its own window: the parent's transcript gets only the answers", async () => {
  await using f = await tree("research");
  const store = new MemoryRunStore();
  const root = await run(newRun(task), { model: f.model, tools: [research(f)], store });
  assert.equal(root.status, "completed");
  const notes = "notes.txt says: The db pool is sized at 20; raise it before the Friday import.";
  assert.equal(root.output, `${SUMMARY_PREFIX}${PLAN_ANSWER} | ${notes}`);
  // user, assistant (two research calls), two answers, final answer
  assert.deepEqual(root.messages.map((m) => m.role), [
    "user",
    "assistant",
    "tool",
    "tool",
    "assistant",
  ]);
  assert.deepEqual(root.messages.filter((m) => m.role === "tool").map((m) => m.content), [
    PLAN_ANSWER,
    notes,
  ]);
  const child = await store.load(childRunId(root.runId, "call_0_0"));
  assert.deepEqual(child.messages.slice(0, 2), [
    { role: "system", content: RESEARCH_SYSTEM },
    { role: "user", content: TIMEOUT_QUESTION },
  ]);
  assert.ok(
    !child.messages.some((m) => m.content === task),
    "the parent's task leaked into the child",
  );
  assert.equal(child.turns, 3);
  assert.equal(
    (await store.load(childRunId(root.runId, "call_0_1"))).messages[1].content,
    NOTES_QUESTION,
  );
});

Deno.test("child cost is added to the parent as it is spent, and up the tree", async () => {
  await using f = await tree("research-deep");
  const store = new MemoryRunStore();
  const { sink, events } = memorySink();
  // A link above the root sees every dollar of the tree, in the order it is spent.
  const log: (TraceEvent | number)[] = [];
  const root = await run(newRun(task), {
    model: f.model,
    tools: [research(f, { depth: 2 })],
    store,
    trace: (e) => {
      log.push(e);
      return sink(e);
    },
    budgetLink: {
      remainingUsd: () => Infinity,
      spend: (usd) => {
        log.push(usd);
        return Promise.resolve();
      },
    },
  });
  assert.equal(root.status, "completed");
  const mid = await store.load(childRunId(root.runId, "call_0_0"));
  const leaf = await store.load(childRunId(mid.runId, "call_0_0"));
  const own = (s: RunState) =>
    events.filter((e) => e.type === "turn" && e.runId === s.runId)
      .reduce((n, e) => n + (e.type === "turn" ? e.turnCostUsd : 0), 0);
  assert.ok(near(leaf.costUsd, own(leaf)) && leaf.childCostUsd === 0);
  assert.ok(near(mid.childCostUsd, leaf.costUsd));
  assert.ok(near(mid.costUsd, own(mid) + leaf.costUsd));
  assert.ok(near(root.childCostUsd, mid.costUsd));
  assert.ok(near(root.costUsd, own(root) + mid.costUsd));
  // Every model call of the tree reached the root's link before the next event: as spent.
  const turns = log.filter((x) => typeof x !== "number" && x.type === "turn");
  assert.equal(turns.length, root.turns + mid.turns + leaf.turns);
  log.forEach((x, i) => {
    if (typeof x !== "number" && x.type === "turn") assert.equal(log[i - 1], x.turnCostUsd);
  });
  assert.ok(
    near(
      log.filter((x) => typeof x === "number").reduce<number>((a, b) => a + (b as number), 0),
      root.costUsd,
    ),
  );
});

Deno.test("a runaway child stops at its turn cap; the parent finishes with the stop sentence", async () => {
  await using f = await tree("research-runaway");
  const root = await run(newRun(task), { model: f.model, tools: [research(f)] });
  assert.equal(root.status, "completed");
  const sentence = "research stopped at its turn cap after 6 turns; partial finding: none";
  assert.equal(root.messages.find((m) => m.role === "tool")?.content, sentence);
  assert.equal(root.output, `The research did not finish. ${sentence}`);
  assert.equal(f.calls.n, 2 + 6);
});

Deno.test("a tree never overspends the root's budget by more than one model call", async () => {
  for (const budgetMode of ["soft", "hard"] as const) {
    await using f = await tree("research-runaway");
    const { sink, events } = memorySink();
    const budget = 0.02;
    const root = await run(newRun(task), {
      model: f.model,
      tools: [research(f, { limits: { maxTurns: 1000, maxBudgetUsd: 1 } })],
      limits: { maxBudgetUsd: budget },
      budgetMode,
      trace: sink,
    });
    // Hard mode stops the runaway child while a useful reply is still affordable: the root
    // may then answer within the budget.
    const ends = budgetMode === "hard" ? ["budget_exceeded", "completed"] : ["budget_exceeded"];
    assert.ok(ends.includes(root.status), `${budgetMode}: ${root.status} ${root.stopReason}`);
    assert.match(
      root.messages.find((m) => m.role === "tool")?.content ?? "",
      /^research stopped at its budget after \d+ turns/,
    );
    const turns = events.filter((e) => e.type === "turn");
    const biggest = Math.max(...turns.map((e) => e.type === "turn" ? e.turnCostUsd : 0));
    assert.ok(
      root.costUsd - budget <= biggest,
      `${root.costUsd} overspends ${budget} by more than ${biggest}`,
    );
    if (budgetMode === "hard") assert.ok(root.costUsd <= budget + 1e-12, `${root.costUsd}`);
    assert.ok(root.costUsd > budget * 0.8, `${root.costUsd} spends too little`);
    assert.ok(
      near(root.costUsd, turns.reduce((n, e) => n + (e.type === "turn" ? e.turnCostUsd : 0), 0)),
    );
  }
});

Deno.test("read-only research calls of one message run concurrently", async () => {
  await using f = await tree("research-slow");
  const { sink, events } = memorySink();
  const root = await run(newRun(task), { model: f.model, tools: [research(f)], trace: sink });
  assert.equal(root.status, "completed");
  const mine = events.filter((e) => e.runId === root.runId);
  const starts = mine.flatMap((e, i) => e.type === "tool_start" ? [i] : []);
  const firstResult = mine.findIndex((e) => e.type === "tool_result");
  assert.equal(starts.length, 2);
  assert.ok(starts[1] < firstResult, "the second research call waited for the first");
});

Deno.test("aborting the parent aborts every descendant mid-tool within milliseconds", async () => {
  await using f = await tree("research-slow");
  const store = new MemoryRunStore();
  const ac = new AbortController();
  const progressed = new Set<string>();
  const stoppedAt = new Map<string, number>();
  let abortedAt = 0;
  let lateEvents = 0;
  const root = newRun(task);
  const done = await run(root, {
    model: f.model,
    tools: [research(f, { scan: { ms: 1200 } })],
    store,
    signal: ac.signal,
    trace: (e) => {
      if (abortedAt && e.type === "tool_progress") lateEvents++;
      if (e.type === "run_stopped") stoppedAt.set(e.runId, performance.now());
      if (e.type === "tool_progress") progressed.add(e.runId);
      if (progressed.size === 2 && !abortedAt) {
        abortedAt = performance.now();
        ac.abort("user pressed Stop");
      }
    },
  });
  await treeSettled(root.runId);
  assert.deepEqual(done.interruption, { type: "cancelled", reason: "user pressed Stop" });
  assert.equal(stoppedAt.size, 3);
  for (const [id, at] of stoppedAt) {
    assert.ok(
      at - abortedAt < 100,
      `${id} stopped ${(at - abortedAt).toFixed(1)} ms after the abort`,
    );
    const s = await store.load(id);
    assert.deepEqual(s.interruption, { type: "cancelled", reason: "user pressed Stop" }, id);
    if (id !== root.runId) assert.equal(pending(s)[0]?.function.name, "scan_archive");
  }
  await new Promise((r) => setTimeout(r, 250)); // a scan still running would report progress
  assert.equal(lateEvents, 0);
  // Resuming the root resumes each child where it stopped (no model call is repeated).
  const calls = f.calls.n;
  const resumed = await resumeTree(store, root.runId, { model: f.model, tools: [research(f)] });
  assert.equal(resumed.status, "completed");
  assert.equal(f.calls.n - calls, 1 + 2); // the root's summary, one answer per child
});

Deno.test("approval inside a child stops the root naming the child; approve from the root, resume", async () => {
  for (const verdict of ["approve", "reject"] as const) {
    await using f = await tree("research-approval");
    await using kv = await Deno.openKv(":memory:");
    const store = new KvRunStore(kv);
    const cleanup = agentTool({
      name: "research",
      description: "Does a chore in the workspace.",
      system: "You tidy the workspace.",
      tools: demoTools(f.ws),
    });
    const opts = { model: f.model, tools: [cleanup], store, trace: store.traceSink() };
    const root = await run(newRun(task), opts);
    const childId = childRunId(root.runId, "call_0_0");
    assert.equal(root.status, "interrupted");
    assert.deepEqual(root.interruption, {
      type: "approval",
      callId: "call_1_0",
      toolName: "delete_file",
      args: { path: "access.log" },
      why: "needs_approval",
      runId: childId,
    });
    assert.match(
      root.stopReason ?? "",
      new RegExp(`child run "${childId.replaceAll(".", "\\.")}"`),
    );
    assert.equal((await store.load(childId)).status, "interrupted");
    // The root's trace says the research call holds it, not that it returned.
    const held = (await store.events(root.runId)).map((e) => e.event).find((e) =>
      e.type === "tool_result" && e.callId === "call_0_0"
    );
    assert.ok(held?.type === "tool_result");
    assert.equal(held.ok, false);
    assert.deepEqual(held.suspended?.interruption, root.interruption);
    assert.throws(() => approve(root, "call_1_0"), RunStateError);
    if (verdict === "approve") await approveInTree(store, root.runId, "call_1_0");
    else await rejectInTree(store, childId, "call_1_0", "keep the logs");
    const done = await resumeTree(store, root.runId, opts);
    assert.equal(done.status, "completed");
    const answer = verdict === "approve" ? DELETED_ANSWER : DECLINED_ANSWER;
    assert.equal(done.output, SUMMARY_PREFIX + answer);
    assert.equal(await exists(`${f.ws.dir}/access.log`), verdict === "reject");
    assert.equal((await store.load(childId)).status, "completed");
    await assert.rejects(() => approveInTree(store, root.runId, "call_1_0"), RunStateError);
  }
});

Deno.test("the tree is persisted in KV and read back with loadTree", async () => {
  await using f = await tree("research-deep");
  await using kv = await Deno.openKv(":memory:");
  const store = new KvRunStore(kv);
  const root = await run(newRun(task), {
    model: f.model,
    tools: [research(f, { depth: 2 })],
    store,
    trace: store.traceSink(),
  });
  assert.equal(root.status, "completed");
  const mid = await store.load(childRunId(root.runId, "call_0_0"));
  const leaf = await store.load(childRunId(mid.runId, "call_0_0"));
  assert.deepEqual([mid.parentId, mid.rootId, mid.parentCallId], [
    root.runId,
    root.runId,
    "call_0_0",
  ]);
  assert.deepEqual([leaf.parentId, leaf.rootId, leaf.parentCallId], [
    mid.runId,
    root.runId,
    "call_0_0",
  ]);
  assert.deepEqual((await store.list({ parentId: root.runId })).map((s) => s.runId), [mid.runId]);
  for (const id of [leaf.runId, mid.runId, root.runId]) {
    const nodes = await loadTree(store, id);
    assert.deepEqual(nodes.map((n) => [n.runId, n.depth, n.status, n.turns]), [
      [root.runId, 0, "completed", 2],
      [mid.runId, 1, "completed", 2],
      [leaf.runId, 2, "completed", 3],
    ]);
    assert.ok(near(nodes[0].childCostUsd, nodes[1].costUsd));
    assert.ok(near(nodes[1].childCostUsd, nodes[2].costUsd));
  }
  const text = formatTree(await loadTree(store, root.runId));
  assert.equal(text.split("\n").length, 3);
  assert.match(text.split("\n")[2], /^ {3}└─ .*completed {2}3 turns {2}\$0\.\d{6}/);
  assert.ok((await store.events(leaf.runId)).some((e) => e.event.type === "run_stopped"));
});

Deno.test("a parent resumed after a crash re-adds child spend its record missed, never twice", async () => {
  await using f = await tree("research");
  const store = new MemoryRunStore();
  const { sink, events } = memorySink();
  const done = await run(newRun(task), {
    model: f.model,
    tools: [research(f)],
    store,
    trace: sink,
  });
  assert.equal(done.status, "completed");
  const turn1 = events.find((e): e is Extract<TraceEvent, { type: "turn" }> =>
    e.type === "turn" && e.runId === done.runId && e.turn === 1
  )!;
  // The parent as saved right after its first reply: its children then finished,
  // but the process died before the parent recorded their answers or their spend.
  const crashed: RunState = {
    ...structuredClone(done),
    status: "running",
    stopReason: null,
    output: null,
    messages: done.messages.slice(0, 2),
    turns: 1,
    usage: { prompt_tokens: turn1.prompt_tokens, completion_tokens: turn1.completion_tokens },
    costUsd: turn1.turnCostUsd,
    childCostUsd: 0,
    callSpend: {},
  };
  const callsBefore = f.calls.n;
  const resumed = await run(crashed, { model: f.model, tools: [research(f)], store });
  assert.equal(resumed.status, "completed");
  assert.equal(f.calls.n - callsBefore, 1); // only the parent's summary: children answered from the store
  assert.ok(near(resumed.costUsd, done.costUsd), `${resumed.costUsd} vs ${done.costUsd}`);
  assert.ok(near(resumed.childCostUsd, done.childCostUsd));
  // Resuming a parent whose record already holds the spend adds nothing.
  const again = await run({
    ...crashed,
    costUsd: turn1.turnCostUsd + done.childCostUsd,
    childCostUsd: done.childCostUsd,
    callSpend: done.callSpend,
  }, {
    model: f.model,
    tools: [research(f)],
    store,
  });
  assert.ok(near(again.costUsd, done.costUsd), `${again.costUsd} vs ${done.costUsd}`);
});

Deno.test("concurrent children overshoot the root's budget by at most one model call", async () => {
  for (const budgetMode of ["soft", "hard"] as const) {
    await using f = await tree("research-runaway-pair");
    const { sink, events } = memorySink();
    const budget = 0.02;
    // The second child's calls are slow, so they are in flight when the first crosses the line.
    const model: Model = {
      name: f.model.name,
      complete: async (req, signal) => {
        const q = req.messages.find((m) => m.role === "user")?.content;
        if (q === RUNAWAY_QUESTION_2) await sleep(15, signal);
        return f.model.complete(req, signal);
      },
    };
    const root = await run(newRun(task), {
      model,
      tools: [research(f, { limits: { maxTurns: 1000, maxBudgetUsd: 1 } })],
      limits: { maxBudgetUsd: budget },
      budgetMode,
      trace: sink,
    });
    await treeSettled(root.runId);
    // Hard mode stops the runaway child while a useful reply is still affordable: the root
    // may then answer within the budget.
    const ends = budgetMode === "hard" ? ["budget_exceeded", "completed"] : ["budget_exceeded"];
    assert.ok(ends.includes(root.status), `${budgetMode}: ${root.status} ${root.stopReason}`);
    const turns = events.filter((e) => e.type === "turn");
    // Both children really ran at once: the second research call started before the first ended.
    const mine = events.filter((e) => e.runId === root.runId);
    const starts = mine.flatMap((e, i) => e.type === "tool_start" ? [i] : []);
    assert.ok(starts.length === 2 && starts[1] < mine.findIndex((e) => e.type === "tool_result"));
    // In completion order, no call lands once the tree's spend already reached the
    // budget: only the one call that crossed it is over.
    let total = 0;
    const late = turns.filter((e) => {
      const over = total >= budget - 1e-12;
      total += e.type === "turn" ? e.turnCostUsd : 0;
      return over;
    });
    assert.equal(late.length, 0, `${budgetMode}: ${late.length} calls after the budget was spent`);

    if (budgetMode === "hard") assert.ok(root.costUsd <= budget + 1e-12, `${root.costUsd}`);
    assert.ok(
      near(root.costUsd, turns.reduce((n, e) => n + (e.type === "turn" ? e.turnCostUsd : 0), 0)),
    );
  }
});

Deno.test("budget reservations do not starve concurrent children that fit the budget", async () => {
  for (const budgetMode of ["soft", "hard"] as const) {
    await using f = await tree("research");
    const root = await run(newRun(task), { model: f.model, tools: [research(f)], budgetMode });
    assert.equal(root.status, "completed", budgetMode);
    assert.ok(
      root.output?.startsWith(`${SUMMARY_PREFIX}${PLAN_ANSWER} | notes.txt says:`),
      root.output ?? "",
    );
  }
});

Deno.test("a child waits for a sibling's reserved call to settle rather than stopping over it", async () => {
  // $0.02 is less than a reserved reply (4,096 tokens at $12/M): a call in flight beside a
  // sibling's reserves all the tree has left. The sibling that plans meanwhile must wait for
  // it to settle, not end budget_exceeded: how the calls overlap (a loaded machine) must not
  // decide the exit. The holds below make the overlap happen every time.
  for (const budgetMode of ["soft", "hard"] as const) {
    await using f = await tree("research");
    const log: string[] = [];
    const latch = () => Promise.withResolvers<void>();
    const [bothStarted, secondCalled, firstToolDone] = [latch(), latch(), latch()];
    let tools = 0;
    let first: string | undefined;
    const trace = (e: TraceEvent) => {
      if (e.type === "tool_start" && !e.runId.includes(".") && ++tools === 2) {
        bothStarted.resolve();
      }
      // A child's first tool result is the first child's (the second is held in its call).
      if (e.type === "tool_result" && e.runId.includes(".")) firstToolDone.resolve();
    };
    const turns = new Map<string, number>();
    const model: Model = {
      name: f.model.name,
      complete: async (req, signal) => {
        const q = req.messages.find((m) => m.role === "user")?.content;
        const who = q === TIMEOUT_QUESTION ? "timeout" : q === NOTES_QUESTION ? "notes" : "root";
        const n = (turns.get(who) ?? 0) + 1;
        turns.set(who, n);
        log.push(`${who} ${n} start${req.maxTokens === undefined ? "" : " reserved"}`);
        if (who !== "root" && n === 1) {
          if (first === undefined) {
            first = who;
            // Held until the sibling is ready to plan (hard) or has reserved and called (soft).
            await (budgetMode === "hard" ? bothStarted.promise : secondCalled.promise);
            await sleep(10, signal); // the sibling's planning is all microtasks
          } else if (budgetMode === "soft") {
            secondCalled.resolve();
            await firstToolDone.promise; // held while the first child plans its next call
            await sleep(10, signal);
          }
        }
        const reply = await f.model.complete(req, signal);
        log.push(`${who} ${n} end`);
        return reply;
      },
    };
    const root = await run(newRun(task), {
      model,
      tools: [research(f)],
      limits: { maxBudgetUsd: 0.02 },
      budgetMode,
      trace,
    });
    const children = (await treeSettled(root.runId),
      root.messages.filter((m) => m.role === "tool"));
    assert.equal(root.status, "completed", `${budgetMode}: ${root.stopReason}\n${log.join("\n")}`);
    assert.equal(children.length, 2);
    for (const c of children) {
      assert.doesNotMatch(c.content, /budget/, `${budgetMode}: ${c.content}`);
    }
    // The overlap happened: a reserved call was in flight while the other child had to plan.
    const second = first === "timeout" ? "notes" : "timeout";
    const at = (line: string) => log.findIndex((l) => l.startsWith(line));
    if (budgetMode === "soft") {
      assert.ok(log.includes(`${second} 1 start reserved`), log.join("\n"));
      assert.ok(at(`${first} 2 start`) > at(`${second} 1 end`), log.join("\n"));
    } else {
      assert.ok(at(`${second} 1 start`) > at(`${first} 1 end`), log.join("\n"));
    }
    assert.ok(root.costUsd <= 0.02, `${root.costUsd}`);
  }
});

Deno.test("a root stopWhen reaches its children, unless the agent tool opts out", async () => {
  for (const inherit of [true, false]) {
    await using f = await tree("research");
    const store = new MemoryRunStore();
    const tool = agentTool({
      name: "research",
      description: "Researches a question.",
      system: RESEARCH_SYSTEM,
      tools: [listFilesTool(f.ws), readFileTool(f.ws), scanArchiveTool(f.ws, { ms: 300 })],
      limits: { maxTurns: 6 },
      inheritStopWhen: inherit,
    });
    const root = await run(newRun(task), {
      model: f.model,
      tools: [tool],
      store,
      stopWhen: [isStepCount(2)],
    });
    await treeSettled(root.runId);
    // The timeout research takes 3 turns; the root's condition caps every run of the tree at 2.
    const child = await store.load(childRunId(root.runId, "call_0_0"));
    assert.equal(child.messages[1].content, TIMEOUT_QUESTION);
    if (inherit) {
      assert.equal(child.status, "max_turns_exceeded");
      assert.equal(child.turns, 2);
      assert.match(
        root.messages[2].content ?? "",
        /research stopped at its turn cap after 2 turns/,
      );
    } else {
      assert.equal(child.status, "completed");
      assert.equal(child.turns, 3);
    }
  }
});

Deno.test("agent tools share their default parameters: a run's tools build no schema", () => {
  // A server builds the tools of each run it executes: a zod object per agent
  // tool meant a JSON Schema and a compiled parser per run, held while it ran.
  const make = () => agentTool({ name: "research", description: "d", system: "s", tools: [] });
  const [a, b] = [make(), make()];
  assert.equal(a.jsonSchema, b.jsonSchema);
  assert.deepEqual(a.jsonSchema.required, ["question"]);
  assert.equal(a.parameters.safeParse({ question: "" }).success, false);
});
