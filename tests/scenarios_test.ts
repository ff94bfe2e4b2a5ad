// Every built-in scenario, played with no extra flags or options from the CLI
// (a real subprocess, --json) and through the API (createApp + app.request, in
// process), ends in the exit it is written for: never an unknown tool.
import assert from "node:assert/strict";
import { BUILT_IN_SCENARIOS } from "../testing/scripted_provider.ts";
import { builtInScenarioNames, SCENARIO_CATALOG } from "../testing/scenario_catalog.ts";
import { settled, withServer } from "./server_helpers.ts";
import { lastJson, runScript } from "./run_script.ts";

/** The exit each scenario is written for: status, and the interruption's type if any. */
const EXPECTED: Record<
  string,
  { status: string; interruption?: string; children?: number; code: number }
> = {
  plan: { status: "completed", code: 0 },
  runaway: { status: "max_turns_exceeded", interruption: "max_turns", code: 3 },
  recover: { status: "completed", code: 0 },
  repeat: { status: "completed", code: 0 },
  destructive: { status: "interrupted", interruption: "approval", code: 5 },
  "destructive-twice": { status: "interrupted", interruption: "approval", code: 5 },
  forbidden: { status: "failed", code: 1 },
  slow: { status: "completed", code: 0 },
  echo: { status: "completed", code: 0 },
  recall: { status: "completed", code: 0 },
  extract: { status: "completed", code: 0 },
  "extract-twice": { status: "completed", code: 0 },
  "extract-never": { status: "failed", code: 1 },
  research: { status: "completed", children: 2, code: 0 },
  "research-runaway": { status: "completed", children: 1, code: 0 },
  "research-runaway-pair": { status: "completed", children: 2, code: 0 },
  "research-slow": { status: "completed", children: 2, code: 0 },
  "research-deep": { status: "completed", children: 2, code: 0 },
  "research-deep-slow": { status: "completed", children: 3, code: 0 },
  "research-approval": { status: "interrupted", interruption: "approval", children: 1, code: 5 },
};

// deno-lint-ignore no-explicit-any
function checkExit(name: string, s: any, where: string): void {
  const want = EXPECTED[name];
  assert.equal(s.status, want.status, `${where} ${name}: ${JSON.stringify(s)}`);
  assert.equal(s.interruption?.type, want.interruption, `${where} ${name}`);
  assert.doesNotMatch(JSON.stringify(s), /Unknown tool/, `${where} ${name}`);
  // A typed scenario's output is its value (as JSON), or its failure says why.
  if (name.startsWith("extract") && want.status === "completed") {
    assert.deepEqual(s.output, { file: "errors.log", line: 12 }, `${where} ${name}`);
  }
  if (name === "extract-never") {
    assert.equal(s.failure?.kind, "invalid_output", `${where} ${name}`);
    assert.deepEqual(s.failure.issues.map((i: { path: string }) => i.path), ["line"]);
  }
}

/** `f` over `items`, at most `size` at a time; the results in the order of `items`. */
async function inPool<T, R>(items: T[], size: number, f: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await f(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
  return results;
}

Deno.test("the scenario catalog names every built-in scenario, once, and the test covers each", () => {
  const names = Object.keys(BUILT_IN_SCENARIOS).sort();
  assert.deepEqual(Object.keys(SCENARIO_CATALOG).sort(), names);
  assert.deepEqual(builtInScenarioNames(), names);
  assert.deepEqual(Object.keys(EXPECTED).sort(), names);
});

Deno.test("every scenario from the CLI, with no task and no extra flags, ends in its exit", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-scenarios-" });
  try {
    // The children mostly wait (scripted pauses, slow tools): a few at a time, each in its
    // own folder (its own .reins/ KV file), keeps this test's time near its longest scenario.
    const names = builtInScenarioNames();
    const outs = await inPool(names, 4, async (name) => {
      const cwd = `${dir}/${name}`;
      await Deno.mkdir(cwd);
      return await runScript("demo/cli.ts", ["--scenario", name, "--json"], { cwd });
    });
    for (const [i, name] of names.entries()) {
      const out = outs[i];
      const s = lastJson(out.stdout);
      checkExit(name, s, "cli");
      assert.equal(out.code, EXPECTED[name].code, `cli ${name}: exit code`);
      const want = EXPECTED[name];
      if (want.interruption === "approval" && want.children) {
        assert.notEqual(s.interruption.runId, s.runId, "the child awaits the verdict");
        assert.equal(s.interruption.toolName, "delete_file");
      }
      if (name.startsWith("research") && want.status === "completed") {
        assert.match(s.output, /^(Research found|The research did not finish)/, name);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("every scenario through the API, with no task and no options, ends in its exit", () =>
  withServer({}, async (s) => {
    for (const name of builtInScenarioNames()) {
      const res = await s.call("POST", "/runs", { scenario: name });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.task ?? SCENARIO_CATALOG[name].task, SCENARIO_CATALOG[name].task);
      const done = await settled(s, res.body.runId, 30_000);
      checkExit(name, done, "api");
      const nodes = (await s.call("GET", `/runs/${res.body.runId}/tree`)).body.nodes;
      assert.equal(nodes.length - 1, EXPECTED[name].children ?? 0, `api ${name}: tree`);
      if (name.startsWith("research") && EXPECTED[name].status === "completed") {
        assert.match(done.output, /^(Research found|The research did not finish)/, name);
      }
    }
  }));

Deno.test("from the CLI, a research call whose child awaits a verdict is said to wait, not to be ok", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-scenarios-" });
  try {
    const out = await runScript("demo/cli.ts", ["--scenario", "research-approval"], { cwd: dir });
    const stdout = out.stdout;
    assert.equal(out.code, 5, stdout);
    assert.match(
      stdout,
      /^ {2}tool research waits: child call_0_0 awaits a verdict on delete_file \(call_1_0\)/m,
    );
    assert.match(stdout, /^ {2}\[research:call_0_0\] tool delete_file awaits a verdict/m);
    assert.doesNotMatch(stdout, /^ {2}tool research (ok|error)/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
