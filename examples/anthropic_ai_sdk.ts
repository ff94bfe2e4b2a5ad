// A run on an Anthropic model through the AI SDK provider @ai-sdk/anthropic, with
// Anthropic's prompt-cache prices (cache reads and writes are reported and priced).
// Needs ANTHROPIC_API_KEY and network. Run: deno run -A examples/anthropic_ai_sdk.ts
import { createAnthropic } from "@ai-sdk/anthropic";
import { aiSdkModel } from "../ai_sdk/mod.ts";
import { newRun, run } from "../mod.ts";
import { createWorkspace, demoTools } from "../demo/mod.ts";

// The provider reads ANTHROPIC_API_KEY itself (and says so when it is missing).
const anthropic = createAnthropic();
const model = aiSdkModel(anthropic("claude-sonnet-4-5"), {
  prices: {
    inputPerMillion: 3,
    outputPerMillion: 15,
    cachedInputPerMillion: 0.3,
    cacheWritePerMillion: 3.75,
  },
});

const ws = await createWorkspace();
try {
  const done = await run(newRun("Which file in the workspace mentions a timeout?"), {
    model,
    tools: demoTools(ws),
    limits: { maxTurns: 8, maxBudgetUsd: 0.25 },
  });
  console.log(done.status, `$${done.costUsd.toFixed(4)}`, done.output);
} finally {
  await ws.remove();
}
