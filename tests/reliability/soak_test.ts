// A small crash soak for `deno task test`: 8 runs (a tree, a deep tree, both
// destructive scenarios, the idempotent write, a turn cap, a slow tool, a plan),
// each killed with SIGKILL in a child process and resumed by another, checked
// against every invariant of tests/reliability/soak.ts. `deno task soak` runs 300.
import assert from "node:assert/strict";
import { formatReport, soak } from "./soak.ts";

Deno.test("crash soak (8 runs): every run killed, resumed elsewhere, nothing lost or billed twice", async () => {
  const report = await soak({
    runs: 8,
    seed: 7,
    concurrency: 3,
    kv: "shared",
    // Fewer fresh processes than the full soak (each loads the tokenizer for ~2 s).
    doubleKillChance: 0.25,
    childResumeChance: 0.15,
    scenarios: [
      "research",
      "destructive",
      "ledger",
      "runaway",
      "research-deep",
      "destructive-twice",
      "slow",
      "plan",
    ],
  });
  const text = formatReport(report);
  assert.deepEqual(report.violations, [], text);
  assert.equal(Object.keys(report.byScenario).length, 8, text);
  assert.ok(report.kills.total >= 6, `too few kills:\n${text}`);
  assert.ok(report.resumes.byChild >= 1 && report.resumes.inProcess >= 1, text);
  assert.ok(report.resumes.byChild + report.resumes.inProcess >= report.kills.total, text);
  assert.equal(
    report.requests.total,
    report.requests.committedTurns + report.requests.inFlightAtKill,
    text,
  );
  assert.deepEqual(report.exits, { completed: 7, max_turns_exceeded: 1 }, text);
});
