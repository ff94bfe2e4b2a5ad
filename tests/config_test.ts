import assert from "node:assert/strict";
import { ConfigError, DEFAULT_CONFIG_PATH, loadConfig, parseConfig } from "../runtime/config.ts";
import { run } from "../harness/run.ts";
import { newRun } from "../harness/state.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { demoTools } from "../tools/catalog.ts";
import { createWorkspace } from "../tools/workspace.ts";

/** The ConfigError message `fn` throws. */
function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ConfigError, `expected ConfigError, got ${e}`);
    return e.message;
  }
  assert.fail("expected a ConfigError");
}

Deno.test("valid JSONC with comments and trailing commas parses", () => {
  const text = `// top comment
{
  /* the endpoint */
  "baseUrl": "http://127.0.0.1:8788/v1",
  "model": "gpt-x", // trailing comment
  "apiKeyEnv": "MY_KEY",
  "prices": { "inputPerMillion": 1.5, "outputPerMillion": 6 },
  "limits": { "maxTurns": 1, "maxBudgetUsd": 0.25, },
  "budgetMode": "hard",
  "dedupe": true,
  "toolErrors": "fatal",
  "workspace": "./ws",
}`;
  assert.deepEqual(parseConfig(text, "reins.jsonc"), {
    baseUrl: "http://127.0.0.1:8788/v1",
    model: "gpt-x",
    apiKeyEnv: "MY_KEY",
    prices: { inputPerMillion: 1.5, outputPerMillion: 6 },
    limits: { maxTurns: 1, maxBudgetUsd: 0.25 },
    budgetMode: "hard",
    dedupe: true,
    toolErrors: "fatal",
    workspace: "./ws",
  });
});

Deno.test("a price table with per-model prices parses", () => {
  const text = `{ "prices": { "default": { "inputPerMillion": 2, "outputPerMillion": 12 },
    "models": { "gpt-4.1": { "inputPerMillion": 3, "outputPerMillion": 9 } } } }`;
  assert.deepEqual(parseConfig(text, "x.jsonc").prices, {
    default: { inputPerMillion: 2, outputPerMillion: 12 },
    models: { "gpt-4.1": { inputPerMillion: 3, outputPerMillion: 9 } },
  });
});

Deno.test("an empty file is an empty config", () => {
  assert.deepEqual(parseConfig("  \n", "reins.jsonc"), {});
});

Deno.test("bad JSON names the file, line and column", () => {
  const text = `{\n  "model": "x",\n  "limits": { 3: 1 }\n}`;
  assert.equal(
    configError(() => parseConfig(text, "reins.jsonc")),
    "reins.jsonc:3:15: invalid JSON (PropertyNameExpected)",
  );
  assert.equal(
    configError(() => parseConfig(`{ "model": "x" `, "a.jsonc")),
    "a.jsonc:1:16: invalid JSON (CloseBraceExpected)",
  );
});

Deno.test("an unknown key is named, at the top level and nested", () => {
  assert.equal(
    configError(() => parseConfig(`{ "modle": "x" }`, "reins.jsonc")),
    'reins.jsonc: unknown key "modle"',
  );
  assert.equal(
    configError(() => parseConfig(`{ "limits": { "maxTurn": 3 } }`, "reins.jsonc")),
    'reins.jsonc: limits: unknown key "maxTurn"',
  );
  assert.equal(
    configError(() =>
      parseConfig(
        `{ "prices": { "default": { "inputPerMillion": 1, "outputPerMillion": 1, "x": 1 } } }`,
        "r",
      )
    ),
    'r: prices.default: unknown key "x"',
  );
});

Deno.test("a wrong type names the field path", () => {
  const cases: [string, string][] = [
    [`{ "limits": { "maxTurns": -1 } }`, "limits.maxTurns: expected an integer of at least 1"],
    [`{ "limits": { "maxTurns": 2.5 } }`, "limits.maxTurns: expected an integer of at least 1"],
    [`{ "limits": { "maxTurns": "5" } }`, "limits.maxTurns: expected an integer of at least 1"],
    [`{ "limits": { "maxTurns": 0 } }`, "limits.maxTurns: expected an integer of at least 1"],
    [`{ "limits": { "maxBudgetUsd": -0.1 } }`, "limits.maxBudgetUsd: expected more than 0 USD"],
    [`{ "limits": { "maxBudgetUsd": 0 } }`, "limits.maxBudgetUsd: expected more than 0 USD"],
    [`{ "limits": 5 }`, "limits: expected an object"],
    [`{ "baseUrl": "not a url" }`, "baseUrl: expected an http(s) URL"],
    [`{ "budgetMode": "medium" }`, 'budgetMode: expected "soft" or "hard"'],
    [`{ "dedupe": "yes" }`, "dedupe: expected true or false"],
    [`{ "toolErrors": "loud" }`, 'toolErrors: expected "describe", "generic" or "fatal"'],
    [`{ "model": "" }`, "model: expected a non-empty string"],
    [`{ "apiKeyEnv": "my key" }`, "apiKeyEnv: expected an environment variable name"],
    [
      `{ "prices": { "inputPerMillion": 1 } }`,
      "prices.outputPerMillion: expected a non-negative number",
    ],
    [
      `{ "prices": { "default": { "inputPerMillion": 1, "outputPerMillion": 1 }, "models": { "gpt-4.1": { "inputPerMillion": -1, "outputPerMillion": 1 } } } }`,
      'prices.models["gpt-4.1"].inputPerMillion: expected a non-negative number',
    ],
  ];
  for (const [text, expected] of cases) {
    assert.equal(configError(() => parseConfig(text, "reins.jsonc")), `reins.jsonc: ${expected}`);
  }
});

Deno.test("a non-object top level is an error", () => {
  assert.equal(
    configError(() => parseConfig(`[1, 2]`, "reins.jsonc")),
    "reins.jsonc: expected an object at the top level",
  );
});

Deno.test("loadConfig reads and validates a file, naming it in errors", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const good = `${dir}/good.jsonc`;
    await Deno.writeTextFile(good, `{ "model": "m" /* ok */ }`);
    assert.deepEqual(await loadConfig(good), { model: "m" });
    const bad = `${dir}/bad.jsonc`;
    await Deno.writeTextFile(bad, `{ "dedupe": 1 }`);
    await assert.rejects(loadConfig(bad), (e: Error) => {
      assert.ok(e instanceof ConfigError);
      assert.equal(e.message, `${bad}: dedupe: expected true or false`);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a missing default reins.jsonc gives {}", async () => {
  const dir = await Deno.makeTempDir();
  const cwd = Deno.cwd();
  Deno.chdir(dir);
  try {
    assert.deepEqual(await loadConfig(), {});
    await Deno.writeTextFile(DEFAULT_CONFIG_PATH, `{ "model": "here" }`);
    assert.deepEqual(await loadConfig(), { model: "here" });
  } finally {
    Deno.chdir(cwd);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a missing explicitly given file is a ConfigError", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/nope.jsonc`;
    await assert.rejects(loadConfig(path), (e: Error) => {
      assert.ok(e instanceof ConfigError);
      assert.equal(e.message, `${path}: config file not found`);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("reins.example.jsonc is a valid config", async () => {
  const path = new URL("../reins.example.jsonc", import.meta.url).pathname;
  const config = await loadConfig(path);
  assert.equal(config.baseUrl, "http://127.0.0.1:8788/v1");
  assert.equal(config.apiKeyEnv, "LLM_API_KEY");
  assert.deepEqual(config.limits, { maxTurns: 20, maxBudgetUsd: 1 });
  // Copied as is, it must not point the tools (delete_file included) at the project itself.
  assert.equal(config.workspace, undefined);
});

Deno.test("reins.example.jsonc describes toolErrors: generic as what the model reads", async () => {
  const text = await Deno.readTextFile(new URL("../reins.example.jsonc", import.meta.url));
  const said = text.match(/"generic": just "([^"]*)"/)?.[1];
  assert.ok(said !== undefined, "the example describes generic");
  const ws = await createWorkspace();
  try {
    const s = await run(newRun("Find the timeout in the logs."), {
      model: scriptedModel("recover"),
      tools: demoTools(ws),
      toolErrors: "generic",
    });
    const first = s.messages.find((m) => m.role === "tool");
    assert.equal(first?.content, said);
  } finally {
    await ws.remove();
  }
});

Deno.test("a context policy (compaction) parses; a bad trigger is named", () => {
  const text =
    `{ "context": { "trigger": { "tokens": 50000 }, "keepTurns": 2, "summaryModel": "m" } }`;
  assert.deepEqual(parseConfig(text, "reins.jsonc").context, {
    trigger: { tokens: 50000 },
    keepTurns: 2,
    summaryModel: "m",
  });
  assert.match(
    configError(() => parseConfig(`{ "context": { "trigger": 3 } }`, "reins.jsonc")),
    /^reins\.jsonc: context\.trigger: /,
  );
});
