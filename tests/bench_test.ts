// The bench's own arithmetic and its floor loop (no timings are asserted).
import assert from "node:assert/strict";
import { perTurn, Recorder, totals } from "../bench/instrument.ts";
import { bareLoop } from "../bench/bare_loop.ts";
import { dur, renderTable, verdict } from "../bench/table.ts";
import { scriptedFetch } from "../testing/scripted_provider.ts";
import { PLAN_ANSWER } from "../testing/scenarios.ts";
import { fixture } from "./helpers.ts";

Deno.test("bench perTurn splits wall time into model, tools and own time", () => {
  const rec = new Recorder();
  rec.start = 0;
  rec.model = [[10, 20], [50, 55]];
  rec.provider = [[12, 18], [51, 54]];
  rec.tools = [[25, 35], [30, 40]]; // overlapping (parallel) tools count once
  rec.end = 70;
  const turns = perTurn(rec);
  assert.deepEqual(turns[0], { wall: 40, model: 10, provider: 6, tools: 15, own: 15 });
  assert.deepEqual(turns[1], { wall: 20, model: 5, provider: 3, tools: 0, own: 15 });
  const t = totals(rec);
  assert.equal(t.turns, 2);
  assert.equal(t.own, 70 - 15 - 15);
});

Deno.test("bench bare loop runs plan to its answer in 3 turns, recording 3 model spans", async () => {
  await using f = await fixture("plan");
  const rec = new Recorder();
  rec.reset();
  const done = await bareLoop(scriptedFetch(), "plan", "Which file?", f.tools, rec);
  assert.equal(done.output, PLAN_ANSWER);
  assert.equal(done.turns, 3);
  assert.equal(rec.model.length, 3);
  assert.equal(done.messages.filter((m) => m.role === "tool").length, 2);
});

Deno.test("bench table and verdicts are reports, not assertions", () => {
  const lines = renderTable(["#", "measure", "value"], [{ section: "s" }, ["1", "a", "1.00x"]]);
  assert.equal(lines.length, 4);
  assert.match(lines[3], /^1 +a +1\.00x$/);
  assert.equal(verdict("r", 1.07, 1.5), "r = 1.07x (target <= 1.5x) PASS");
  assert.equal(verdict("r", 2, 1.3), "r = 2.00x (target <= 1.3x) MISS");
  assert.equal(dur(0.0004), "0.4 µs");
  assert.equal(dur(0.085), "85 µs");
  assert.equal(dur(1.234), "1.23 ms");
});
