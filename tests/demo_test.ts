import assert from "node:assert/strict";
import { runDemo } from "../cli/demo.ts";
import { int, quote, signedUsd, table, usd } from "../cli/table.ts";
import { DECLINED_ANSWER, DELETED_ANSWER, PLAN_ANSWER } from "../testing/scenarios.ts";

/** The lines of section `n` (from its `== n.` title to the next title). */
function section(lines: string[], n: number | string): string[] {
  const start = lines.findIndex((l) => l.startsWith(`== ${n}.`));
  assert.ok(start >= 0, `section ${n} missing`);
  const end = lines.findIndex((l, i) => i > start && l.startsWith("== "));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** A table row's cells (columns are separated by two or more spaces). */
function cells(line: string): string[] {
  return line.trim().split(/\s{2,}/);
}

/** The rows of the table whose header starts with `first`, as header -> cell. */
function rows(lines: string[], first: string): Record<string, string>[] {
  const at = lines.findIndex((l) => cells(l)[0] === first);
  assert.ok(at >= 0, `no table with column "${first}" in:\n${lines.join("\n")}`);
  const header = cells(lines[at]);
  const out = [];
  for (const line of lines.slice(at + 1)) {
    const c = cells(line);
    if (c.length !== header.length) break;
    out.push(Object.fromEntries(header.map((h, i) => [h, c[i]])));
  }
  return out;
}

/** The lines of a section's part `(tag)`, from its `  -- (tag)` line to the next `  -- `. */
function part(lines: string[], tag: string): string[] {
  const start = lines.findIndex((l) => l.startsWith(`  -- (${tag})`));
  assert.ok(start >= 0, `part (${tag}) missing`);
  const end = lines.findIndex((l, i) => i > start && l.startsWith("  -- "));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

function dollars(text: string): number {
  return Number(text.replace(/[$,+]/g, ""));
}

Deno.test("runDemo (quick) prints every experiment with the facts the chapter reports", async () => {
  const lines: string[] = [];
  await runDemo((line) => lines.push(line), { quick: true });
  for (let n = 1; n <= 13; n++) assert.ok(section(lines, n).length > 0, `section ${n} empty`);
  // Every exit appears by name in some table.
  const statusCells = new Set(lines.flatMap(cells));
  for (const status of ["completed", "failed", "max_turns_exceeded", "budget_exceeded"]) {
    assert.ok(statusCells.has(status), `no table shows ${status}`);
  }
  assert.ok(lines.some((l) => / interrupted(\s|$)/.test(l)), "no table shows interrupted");
  // The closing table names every exit and interruption, with experiments whose runs ended so.
  const closing = lines.slice(lines.findIndex((l) => l.startsWith("== the five exits")));
  const exits = rows(closing, "exit").map((r) => [r.exit, r.interruption, r.experiments]);
  assert.deepEqual(exits.map((r) => `${r[0]}/${r[1]}`), [
    "completed/-",
    "failed/-",
    "max_turns_exceeded/max_turns",
    "budget_exceeded/max_budget",
    "interrupted/approval",
    "interrupted/cancelled",
  ]);
  for (const [exit, interruption, where] of exits) {
    assert.match(where, /^\d+(, \d+)*$/, `${exit}/${interruption} is not shown`);
  }
  assert.deepEqual(exits[5][2], "10, 12");

  // 1. plan: completed in 3 turns, 2 tool runs; prompt tokens grow every turn.
  const [plan] = rows(section(lines, 1), "turns");
  assert.equal(plan.turns, "3");
  assert.equal(plan.tools, "2");
  assert.equal(plan.status, "completed");
  assert.equal(plan.answer, JSON.stringify(PLAN_ANSWER));
  const perTurn = section(lines, 1).find((l) => l.includes("per-turn prompt tokens:"))!;
  const prompts = perTurn.split(":")[1].split(", ").map((t) => Number(t.replace(/,/g, "")));
  assert.equal(prompts.length, 3);
  assert.ok(prompts[0] < prompts[1] && prompts[1] < prompts[2], perTurn);

  // 2. runaway: doubling the cap from 50 to 100 more than doubles the cost.
  const caps = rows(section(lines, 2), "cap");
  assert.deepEqual(caps.map((r) => r.turns), ["8", "20", "50", "100"]);
  assert.ok(dollars(caps[3].cost) > 2 * dollars(caps[2].cost));

  // 2b. compaction: the runaway at 200 turns costs at most 2.3x its 100 turns (3.7x without),
  // and no prompt passes the 2,000-token trigger.
  const compacted = rows(section(lines, "2b"), "cap");
  const at = (cap: string, on: string) =>
    compacted.find((r) => r.cap === cap && r.compaction === on)!;
  assert.equal(compacted.length, 6);
  assert.ok(dollars(at("200", "on").cost) <= 2.3 * dollars(at("100", "on").cost));
  assert.ok(dollars(at("200", "off").cost) > 3.5 * dollars(at("100", "off").cost));
  assert.ok(Number(at("200", "on").compactions) >= 3);
  for (const r of compacted.filter((r) => r.compaction === "on")) {
    assert.ok(Number(r["max prompt"].replace(/,/g, "")) <= 2000, r["max prompt"]);
  }
  assert.ok(section(lines, "2b").some((l) => /^\s+6,813 \|\s+\*+$/.test(l)), "the curve's top");

  // 3. budgets: soft overshoots by less than a turn, hard never exceeds.
  const budgets = rows(section(lines, 3), "budget");
  assert.equal(budgets.length, 3);
  for (const r of budgets) {
    const budget = dollars(r.budget);
    assert.ok(dollars(r["hard spent"]) <= budget, `hard ${r["hard spent"]} > ${r.budget}`);
    assert.ok(dollars(r["hard spent"]) > budget * 0.8, `hard spent too little of ${r.budget}`);
    assert.ok(dollars(r["soft spent"]) >= budget, `soft ${r["soft spent"]} < ${r.budget}`);
    assert.ok(r["soft over"].startsWith("+$"), r["soft over"]);
    assert.ok(!r["hard over"].startsWith("+") || dollars(r["hard over"]) === 0, r["hard over"]);
    // The exit is shown by name, not only the spend.
    assert.equal(r["soft status"], "budget_exceeded");
    assert.equal(r["hard status"], "budget_exceeded");
  }

  // 4. only describe answers; 5. the permanent-error stop ends at turn 1.
  const policies = rows(section(lines, 4), "policy");
  assert.deepEqual(policies.map((r) => r.status), ["completed", "completed", "failed"]);
  assert.equal(policies[0].answer, JSON.stringify("errors.log mentions a timeout."));
  const forbidden = rows(section(lines, 5), "policy");
  assert.deepEqual(forbidden.map((r) => [r.turns, r.status]), [
    ["12", "max_turns_exceeded"],
    ["1", "failed"],
  ]);

  // 6. dedupe saves a tool run, not a turn (nor a cent).
  const [, plain, deduped] = rows(section(lines, 6), "run");
  assert.equal(plain.turns, deduped.turns);
  assert.equal(plain.cost, deduped.cost);
  assert.deepEqual([plain["tool runs"], deduped["tool runs"]], ["2", "1"]);

  // 7. the naive cache runs one delete; the read-only gate runs both.
  const caches = rows(section(lines, 7), "cache");
  assert.deepEqual(caches.map((r) => r["deletes run"]), ["1", "2"]);

  // 8. approval: the default sentence tells the truth, the naive empty result lies.
  const approval = section(lines, 8);
  assert.ok(
    approval.some((l) =>
      l.includes('interrupted / approval -> delete_file({"path":"access.log"})')
    ),
  );
  const verdicts = rows(approval, "verdict");
  const byVerdict = Object.fromEntries(verdicts.map((r) => [r.verdict, r]));
  assert.equal(byVerdict["approve"].deleted, '["access.log"]');
  const truthful = byVerdict["reject, no reason (reins default)"];
  assert.equal(truthful.deleted, "[]");
  assert.equal(truthful["agent told the user"], JSON.stringify(DECLINED_ANSWER));
  assert.equal(truthful.report, "true");
  const naive = byVerdict["NAIVE harness: empty tool result"];
  assert.equal(naive.deleted, "[]");
  assert.equal(naive["model read"], '""');
  assert.equal(naive["agent told the user"], JSON.stringify(DELETED_ANSWER));
  assert.equal(naive.report, "LIE");

  // 9. crash and resume: two tool runs across both processes, same cost as no crash.
  const crash = section(lines, 9).join("\n");
  assert.match(crash, /restored from KV: turns=2 .* status=running/);
  assert.match(
    crash,
    /tool runs across BOTH processes \(the KV trace\): list_files, read_file:errors.log$/m,
  );
  assert.match(crash, /model calls in process 2: 1; tool runs in process 2: none/);
  assert.match(crash, /-> identical/);

  // 10. progress lines, and Stop lands as interrupted with the user's reason.
  const cancel = section(lines, 10);
  assert.ok(
    cancel.some((l) => /^ {2}progress: scanned \d+ of 1200 files {2}\(t\+[\d,]+ ms\)$/.test(l)),
  );
  const stops = rows(cancel, "run");
  assert.equal(stops[0].status, "completed");
  assert.equal(stops[1].status, "interrupted/cancelled");
  assert.equal(stops[1]["reason / answer"], '"user pressed Stop"');

  // 11. latency: wall time grows with the provider's latency.
  const latency = rows(section(lines, 11), "latency");
  assert.ok(latency.length >= 2);

  // 12. subagents: a tree under a $0.02 root budget, read back from KV.
  const tree = section(lines, 12);
  assert.ok(lines.includes("== 12. subagents: a tree under one budget ($0.020000 at the root) =="));
  const shortId = /^[0-9a-f]{8}(\.call_\d+_\d+)*$/;
  /** Every node: total = own turns + its children, to the printed cent-millionth. */
  const checkCosts = (nodes: Record<string, string>[]) => {
    for (const n of nodes) {
      assert.match(n.node, shortId);
      const sum = dollars(n.own) + dollars(n.children);
      assert.ok(Math.abs(dollars(n.total) - sum) < 2e-6, `${n.node}: ${n.total} != own + children`);
      const kids = nodes.filter((k) => k.parent === n.node);
      const kidsSum = kids.reduce((a, k) => a + dollars(k.total), 0);
      assert.ok(Math.abs(dollars(n.children) - kidsSum) < 2e-6, `${n.node}: children`);
    }
    assert.equal(nodes[0].parent, "-");
    assert.ok(dollars(nodes[0].total) <= 0.02, nodes[0].total);
  };
  // (a) two research children, both completed; the parent's total is its own turns + theirs.
  const a = part(tree, "a");
  const aNodes = rows(a, "node");
  assert.equal(aNodes.length, 3);
  checkCosts(aNodes);
  assert.deepEqual(aNodes.map((n) => [n.parent, n.status, n.turns]), [
    ["-", "completed", "2"],
    [aNodes[0].node, "completed", "3"],
    [aNodes[0].node, "completed", "3"],
  ]);
  assert.ok(dollars(aNodes[0].own) > 0 && dollars(aNodes[0].children) > 0);
  assert.match(
    a.join("\n"),
    /^ {2}parent total \$[\d.]+ = own turns \$[\d.]+ \+ children \$[\d.]+ \+ \$[\d.]+: equal$/m,
  );
  assert.match(a.join("\n"), /parent completed; its answer: "Research found: /);
  // (b) the runaway child stops at its turn cap; the parent completes, quoting it.
  const b = part(tree, "b");
  const bNodes = rows(b, "node");
  checkCosts(bNodes);
  assert.deepEqual(bNodes.map((n) => [n.status, n.turns]), [
    ["completed", "2"],
    ["max_turns_exceeded", "6"],
  ]);
  assert.match(b.join("\n"), /: equal$/m);
  assert.match(
    b.join("\n"),
    /parent completed; its answer: ".*research stopped at its turn cap after 6 turns/,
  );
  // (c) one Stop interrupts every node of a depth-3 tree; leaves were mid-scan; no tool runs on.
  const c = part(tree, "c");
  const cNodes = rows(c, "node");
  assert.equal(cNodes.length, 4);
  for (const n of cNodes) {
    assert.equal(n.status, "interrupted/cancelled", n.node);
    assert.equal(n.reason, '"user pressed Stop"', n.node);
    assert.equal(n["tool events after"], "0", n.node);
    assert.match(n["run_stopped (after Stop)"], /^\+[\d,]+ ms$/);
  }
  assert.deepEqual(cNodes.map((n) => n["pending call"]), [
    "research",
    "research, research",
    "scan_archive",
    "scan_archive",
  ]);
  const lastStop = c.join("\n").match(
    /4 nodes, every one interrupted; stop\(\) -> last run_stopped \(from the KV events\): ([\d,]+) ms/,
  );
  assert.ok(lastStop, c.join("\n"));
  // The Stop went out once the tree had grown (both leaves scanning), not at a fixed time.
  assert.match(
    c.join("\n"),
    /^ {2}requestStop\(kv, rootId, "user pressed Stop"\) at [\d,]+ ms, once all 2 leaves had reported scan_archive progress; /m,
  );
  // Interrupted mid-tool: every node stopped before a leaf's scan could have finished (the
  // pending calls above say the same); how soon is the bench's to show, not a test's.
  const header = tree.find((l) => l.startsWith("  -- (c)")) ?? "";
  const scan = header.match(/leaves scan ~([\d,]+) ms /);
  assert.ok(scan, header);
  const scanMs = Number(scan[1].replace(/,/g, ""));
  assert.ok(Number(lastStop[1].replace(/,/g, "")) < scanMs, `${lastStop[0]} (scan ${scanMs} ms)`);
  assert.ok(c.some((l) => l.endsWith(": 0: no tool still running")), c.join("\n"));
});

Deno.test("table() aligns columns and right-aligns numbers; formatters", () => {
  assert.deepEqual(table(["name", "n", "cost"], [["a", 1234, usd(0.00247)], ["bb", 5, usd(1)]]), [
    "  name      n       cost",
    "  a     1,234  $0.002470",
    "  bb        5  $1.000000",
  ]);
  assert.equal(int(337299), "337,299");
  assert.equal(signedUsd(-0.00001), "-$0.000010");
  assert.equal(quote("x".repeat(10), 5), '"xxxx…"');
});
