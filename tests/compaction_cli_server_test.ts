// A run's context policy through the HTTP API and the CLI (issue 26): POST /runs takes
// options.context, the run compacts, GET /runs/:id and the inspector show it; and the
// done-when of deno task run --compact-at 2000 --json at 100 and 200 turns.
import assert from "node:assert/strict";
import { settled, withServer } from "./server_helpers.ts";
import { runScript } from "./run_script.ts";

Deno.test("POST /runs with options.context: the run compacts; the view, the events and the page say so", () =>
  withServer({}, async (s) => {
    const created = await s.call("POST", "/runs", {
      scenario: "runaway",
      limits: { maxTurns: 20 },
      options: { context: { trigger: { tokens: 700 }, keepTurns: 2 } },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.compaction, null);
    const id = created.body.runId;
    await settled(s, id);
    const view = (await s.call("GET", `/runs/${id}`)).body;
    assert.equal(view.status, "max_turns_exceeded");
    assert.ok(view.compaction.compactions >= 1, JSON.stringify(view.compaction));
    assert.ok(view.compaction.costUsd > 0 && view.compaction.costUsd < view.costUsd);
    const events = (await s.store.events(id)).map((e) => e.event);
    const compactions = events.filter((e) => e.type === "compaction");
    assert.equal(compactions.length, view.compaction.compactions);
    const page = await (await s.app.request(`/ui/runs/${id}`)).text();
    assert.match(page, /<dt>Compactions<\/dt>\s*<dd>\d+ · \$/);
  }));

Deno.test("POST /runs refuses a bad context policy, naming the field", () =>
  withServer({}, async (s) => {
    const bad = await s.call("POST", "/runs", {
      scenario: "runaway",
      options: { context: { trigger: 2 } },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.field, /^options\.context\.trigger/);
    const unknown = await s.call("POST", "/runs", {
      scenario: "runaway",
      options: { context: { summaryModel: "no-such-model" } },
    });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.field, "options.context.summaryModel");
  }));

Deno.test("deno task run --compact-at 2000 --json: 200 turns cost at most 2.3x 100 turns, compactions reported", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-compact-cli-" });
  // The demo agent sets no limits: the configured defaults raise its ceiling (a flag may not).
  await Deno.writeTextFile(
    `${dir}/reins.jsonc`,
    JSON.stringify({ limits: { maxTurns: 200, maxBudgetUsd: 100 } }),
  );
  try {
    const go = async (n: number) => {
      const args = ["--scenario", "runaway", "--max-turns", String(n), "--budget", "100", "--json"];
      args.push("--compact-at", "2000", "--trace", `${dir}/t${n}.jsonl`);
      const out = await runScript("demo/cli.ts", args, {
        cwd: dir,
        env: { REINS_SCRIPTED_CHUNK_MS: "0" },
      });
      assert.equal(out.code, 3, out.stderr); // max_turns_exceeded
      return JSON.parse(out.stdout.trim().split("\n").at(-1)!);
    };
    const [a, b] = [await go(100), await go(200)];
    assert.equal(b.turns, 200);
    assert.ok(b.compactions >= 3 && b.compactionCostUsd > 0, JSON.stringify(b));
    assert.ok(b.costUsd <= 2.3 * a.costUsd, `${b.costUsd} vs ${a.costUsd}`);
    const trace = (await Deno.readTextFile(`${dir}/t200.jsonl`)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    const prompts = trace.filter((e) => e.type === "turn").map((e) => e.prompt_tokens);
    assert.ok(Math.max(...prompts) <= 2000, String(Math.max(...prompts)));
    const summed = trace.filter((e) => e.type === "compaction")
      .reduce((n: number, e) => n + e.compactionCostUsd, 0);
    assert.ok(Math.abs(summed - b.compactionCostUsd) < 1e-9);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
