// A program of your own: import reins, define a tool with zod, run it against
// the scripted provider. Run: deno run -A examples/custom_tool.ts
import { z } from "zod";
import { defineTool, memorySink, newRun, run } from "../mod.ts";
import { type Scenario, scriptedModel } from "../testing/mod.ts";

// A tool of our own: read-only, validated by zod, reports progress.
const weather = defineTool({
  name: "weather",
  description: "Current weather for a city.",
  parameters: z.object({ city: z.string().min(1) }),
  readOnly: true,
  run: ({ city }, ctx) => {
    ctx.progress(`looking up ${city}`);
    return `${city}: 21 °C, clear`;
  },
});

// A scripted scenario for it: a pure function of the turn and the tool texts.
const weatherScenario: Scenario = ({ turn, toolTexts }) =>
  turn === 0
    ? { content: null, tool_calls: [{ id: "call_0_0", name: "weather", args: { city: "Prague" } }] }
    : { content: `It is ${toolTexts.at(-1)}.` };

const { sink, events } = memorySink();
const result = await run(newRun("What's the weather in Prague?"), {
  model: scriptedModel("weather", { scenarios: { weather: weatherScenario } }),
  tools: [weather],
  limits: { maxTurns: 5, maxBudgetUsd: 0.01 },
  trace: sink,
});
console.log(result.status, JSON.stringify(result.output), `$${result.costUsd.toFixed(6)}`);
console.log(events.map((e) => e.type).join(" -> "));
