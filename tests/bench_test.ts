// The bench's own arithmetic and its floor loop (no timings are asserted).
import assert from "node:assert/strict";
import { perTurn, Recorder, totals } from "../bench/instrument.ts";
import { bareLoop } from "../bench/bare_loop.ts";
import { dur, renderTable, verdict } from "../bench/table.ts";
import { tinyLoop } from "../bench/tiny_loop.ts";
import { createScriptedProvider, scriptedFetch } from "../testing/scripted_provider.ts";
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

/** The scripted provider on a loopback port while `body` runs. */
async function served(body: (baseUrl: string) => Promise<void>): Promise<void> {
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {} },
    createScriptedProvider({ latencyMs: 0 }).fetch,
  );
  try {
    await body(`http://127.0.0.1:${server.addr.port}/v1`);
  } finally {
    ac.abort();
    await server.finished;
  }
}

Deno.test("bench tiny loop runs plan in 3 turns, plain and streamed, and stops runaway at its cap", async () => {
  await served(async (baseUrl) => {
    for (const stream of [false, true]) {
      const done = await tinyLoop(baseUrl, "plan", "Which file?", 10, stream);
      assert.deepEqual(done, { output: PLAN_ANSWER, turns: 3 });
      assert.deepEqual(await tinyLoop(baseUrl, "runaway", "Which file?", 4, stream), {
        output: null,
        turns: 4,
      });
    }
  });
});

Deno.test("bench tiny loop loads zod and nothing of reins (its harness imports are types)", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--frozen", "--lock=deno.dev.lock", "bench/tiny_loop.ts"],
    cwd: new URL("..", import.meta.url).pathname,
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const graph = JSON.parse(new TextDecoder().decode(out.stdout));
  const byUrl = new Map<string, { dependencies?: { code?: { specifier: string } }[] }>(
    graph.modules.map((m: { specifier: string }) => [m.specifier, m]),
  );
  const loaded = new Set<string>();
  const visit = (url: string) => {
    if (loaded.has(url)) return;
    loaded.add(url);
    for (const d of byUrl.get(url)?.dependencies ?? []) if (d.code) visit(d.code.specifier);
  };
  visit(graph.roots[0]);
  const names = [...loaded].map((u) =>
    u.replace(/^.*\/(bench\/)/, "$1").replace(/^npm:\/?([^@]+)@.*$/, "npm:$1")
  ).sort();
  assert.deepEqual(names, [
    "bench/bare_body.ts",
    "bench/bare_stream.ts",
    "bench/tiny_loop.ts",
    "bench/tiny_tools.ts",
    "npm:zod",
  ]);
});

Deno.test("bench fresh child: the bare loop and reins plain run plan with the tiny tools", async () => {
  await served(async (baseUrl) => {
    for (const mode of ["bare", "reins-plain"]) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--frozen",
          "--lock=deno.dev.lock",
          "-A",
          "bench/fresh_child.ts",
          mode,
          baseUrl,
        ],
        cwd: new URL("..", import.meta.url).pathname,
      }).output();
      assert.ok(out.success, new TextDecoder().decode(out.stderr));
      const line = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
      assert.equal(line.mode, mode);
      assert.equal(line.turns, 3);
      assert.equal(line.output, PLAN_ANSWER);
      assert.ok(line.importedMs < line.planMs && line.planMs < line.doneMs, JSON.stringify(line));
    }
  });
});
