import assert from "node:assert/strict";
import { newRun } from "../../harness/state.ts";
import { run } from "../../harness/run.ts";
import type { Model, ModelRequest } from "../../harness/model.ts";
import { countPromptTokens } from "../../harness/tokens.ts";
import { memorySink } from "../../harness/trace.ts";
import { defineTool } from "../../harness/tool.ts";
import { z } from "zod";

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
