import assert from "node:assert/strict";
import { newRun } from "../../harness/state.ts";
import { run } from "../../harness/run.ts";
import type { Model, ModelRequest } from "../../harness/model.ts";
import { countPromptTokens } from "../../harness/tokens.ts";
import { memorySink } from "../../harness/trace.ts";
import { defineTool } from "../../harness/tool.ts";
import { z } from "zod";
import { KvRunStore } from "../../kv/kv_run_store.ts";
import { researchTool } from "../../subagents/research.ts";

const note = defineTool({
  name: "note",
  description: "Takes a note.",
  parameters: z.object({ text: z.string() }),
  readOnly: true,
  run: ({ text }) => `noted ${text}`,
});

/**
 * A provider that counts prompts 30% higher than reins and ignores max_tokens
 * (returns 50 more completion tokens than asked), calling a tool every turn.
 */
function foreignModel(requests: ModelRequest[]): Model {
  return {
    name: "foreign",
    complete: (req) => {
      requests.push(req);
      const prompt = Math.ceil(countPromptTokens(req.messages, req.tools) * 1.3);
      return Promise.resolve({
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: `c${requests.length}`,
            type: "function",
            function: { name: "note", arguments: '{"text":"x"}' },
          }],
        },
        usage: { prompt_tokens: prompt, completion_tokens: (req.maxTokens ?? 100) + 50 },
        finishReason: "tool_calls",
      });
    },
  };
}

Deno.test("hard mode never asks for more than the model's output limit", async () => {
  const requests: ModelRequest[] = [];
  await run(newRun("go"), {
    model: foreignModel(requests),
    tools: [note],
    budgetMode: "hard",
    limits: { maxBudgetUsd: 5, maxTurns: 2 },
  });
  assert.ok(requests.length > 0);
  for (const r of requests) assert.ok((r.maxTokens ?? 0) <= 16_384, `max_tokens ${r.maxTokens}`);
  const custom: ModelRequest[] = [];
  await run(newRun("go"), {
    model: foreignModel(custom),
    tools: [note],
    budgetMode: "hard",
    prices: { inputPerMillion: 2, outputPerMillion: 12, maxOutputTokens: 1000 },
    limits: { maxBudgetUsd: 5, maxTurns: 1 },
  });
  assert.ok((custom[0].maxTokens ?? 0) <= 1000, `max_tokens ${custom[0].maxTokens}`);
});

Deno.test("a provider that overspends a hard budget ends the run budget_exceeded, traced", async () => {
  const requests: ModelRequest[] = [];
  const trace = memorySink();
  const done = await run(newRun("go"), {
    model: foreignModel(requests),
    tools: [note],
    budgetMode: "hard",
    limits: { maxBudgetUsd: 0.02, maxTurns: 50 },
    trace: trace.sink,
  });
  assert.equal(done.status, "budget_exceeded", done.stopReason ?? "");
  assert.match(done.stopReason ?? "", /overspent/);
  assert.ok(done.costUsd > done.limits.maxBudgetUsd);
  const ev = trace.events.find((e) => e.type === "budget_overspent");
  assert.ok(ev, "the overspend is traced");
  // The ratio it learned is kept in the state (it survives JSON and resume).
  const ratio = JSON.parse(JSON.stringify(done)).promptRatio;
  assert.ok(ratio >= 1.25 && ratio <= 1.35, `learned ratio ${ratio}`);
});

Deno.test("the learned prompt ratio keeps the prompt estimate honest on later turns", async () => {
  const requests: ModelRequest[] = [];
  const s = await run(newRun("go"), {
    model: foreignModel(requests),
    tools: [note],
    budgetMode: "hard",
    limits: { maxBudgetUsd: 1, maxTurns: 1 },
  });
  assert.ok((s.promptRatio ?? 0) > 1.2, `ratio ${s.promptRatio}`);
});

Deno.test("parallel children under a hard budget with a store: each call sees its siblings' reservations", async () => {
  // The root asks 6 research questions at once; each child asks for a tool, then answers.
  // The provider counts prompts no higher than reins and honours max_tokens.
  const requests: ModelRequest[] = [];
  const model: Model = {
    name: "fair",
    complete: async (req) => {
      requests.push(req);
      await new Promise((r) => setTimeout(r, 5));
      const child = req.messages[0]?.role === "system";
      const usage = {
        prompt_tokens: countPromptTokens(req.messages, req.tools),
        completion_tokens: Math.min(req.maxTokens ?? 300, 300),
      };
      const calls = child
        ? [{
          id: "n",
          type: "function" as const,
          function: { name: "note", arguments: '{"text":"x"}' },
        }]
        : Array.from({ length: 6 }, (_, i) => ({
          id: `r${i}`,
          type: "function" as const,
          function: { name: "research", arguments: JSON.stringify({ question: `q${i}` }) },
        }));
      const first = req.messages.filter((m) => m.role === "assistant").length === 0;
      return first
        ? {
          message: { role: "assistant", content: null, tool_calls: calls },
          usage,
          finishReason: "tool_calls",
        }
        : { message: { role: "assistant", content: "done" }, usage, finishReason: "stop" };
    },
  };
  const research = researchTool({
    tools: [note],
    depth: 1,
    limits: { maxTurns: 4, maxBudgetUsd: 0.05 },
  });
  await using kv = await Deno.openKv(":memory:");
  const done = await run(newRun("investigate"), {
    model: { ...model, prices: { inputPerMillion: 1, outputPerMillion: 2 } },
    tools: [research],
    store: new KvRunStore(kv),
    budgetMode: "hard",
    concurrency: 8,
    limits: { maxTurns: 5, maxBudgetUsd: 0.004 },
  });
  // Before: every child planned during its sibling's save, before any reservation, so all
  // got the same max_tokens and the tree spent 34% over its hard budget.
  const caps = requests.filter((r) => r.messages[0]?.role === "system").map((r) => r.maxTokens);
  assert.ok(new Set(caps).size > 1, `children's caps all alike: ${caps}`);
  assert.ok(done.costUsd <= 0.004, `${done.costUsd} over the hard budget`);
});
