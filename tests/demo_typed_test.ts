// Demo section 13 on its own: a typed answer repaired once, its cost shown,
// and a never-complying run failing invalid_output with every turn's cost.
import assert from "node:assert/strict";
import { typedOutputExperiment } from "../cli/experiments/typed.ts";
import { usd } from "../cli/table.ts";

function dollars(text: string): number {
  return Number(text.replace(/[$,+]/g, ""));
}

Deno.test("demo 13: the first answer is invalid, repaired on the next turn, the repair's cost shown", async () => {
  const lines: string[] = [];
  await typedOutputExperiment((l) => lines.push(l));
  assert.equal(lines[1], "== 13. a typed answer: { file: string, line: number }, repaired once ==");
  const rows = lines.filter((l) => /^ +\d+ {2}/.test(l)).map((l) => l.trim().split(/\s{2,}/));
  assert.deepEqual(rows.map((r) => r[2]), [
    "tool call",
    "invalid: line: Invalid input: expected number, received string",
    "valid",
  ]);
  assert.equal(rows[1][1], '{"file":"errors.log","line":"12"}');
  const done = lines.find((l) => l.startsWith("  completed; output: "));
  assert.equal(done, '  completed; output: {"file":"errors.log","line":12} (passes the schema)');
  const repair = lines.find((l) => l.startsWith("  the repair: "))!;
  const [spent, total] = [...repair.matchAll(/\$[\d.]+/g)].map((m) => dollars(m[0]));
  assert.equal(spent, dollars(rows[2][3]), "the repair is the third turn's cost");
  const sum = rows.reduce((s, r) => s + dollars(r[3]), 0);
  assert.equal(usd(total), usd(sum));
  const never = lines.find((l) => l.startsWith("  extract-never: "));
  assert.match(never ?? "", /failed invalid_output after 2 repairs; issues: line: /);
  const cost = lines.find((l) => l.startsWith("  its cost "))!;
  const [whole, ...turns] = [...cost.matchAll(/\$[\d.]+/g)].map((m) => dollars(m[0]));
  assert.equal(turns.length, 3);
  assert.equal(usd(whole), usd(turns.reduce((a, b) => a + b, 0)));
});
