import assert from "node:assert/strict";
import { startService } from "../server/service.ts";
import { ConfigError } from "../runtime/config.ts";
import { modelSettings, readEnv } from "../runtime/env.ts";
import { demoServeOptions } from "../demo/process.ts";
import { jsonCaller, waitFor } from "./server_http.ts";

Deno.test("one reader: reins.jsonc's model, endpoint, prices and limits, the environment winning", () => {
  const file = {
    baseUrl: "http://file.invalid/v1",
    model: "file-model",
    apiKeyEnv: "MY_KEY",
    limits: { maxTurns: 4 },
    budgetMode: "hard" as const,
    toolErrors: "generic" as const,
  };
  const fromFile = modelSettings(file, { MY_KEY: "k1" });
  assert.deepEqual(fromFile, {
    baseUrl: "http://file.invalid/v1",
    apiKey: "k1",
    model: "file-model",
    limits: { maxTurns: 4 },
  });
  const env = modelSettings(file, {
    LLM_BASE_URL: "http://env.invalid/v1",
    LLM_MODEL: "env-model",
  });
  assert.deepEqual([env.baseUrl, env.model, env.apiKey], [
    "http://env.invalid/v1",
    "env-model",
    undefined,
  ]);
  assert.equal(readEnv({ REINS_CONFIG: "x.jsonc" }).configPath, "x.jsonc");
  assert.throws(() => readEnv({ REINS_LEASE_MS: "abc" }), /REINS_LEASE_MS: expected milliseconds/);
  assert.throws(() => readEnv({ REINS_SCRIPTED: "yes" }), /REINS_SCRIPTED: expected 1 or 0/);
});

Deno.test("a server started with REINS_CONFIG gives new runs the file's limits and settings", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-server-config-" });
  try {
    const path = `${dir}/reins.jsonc`;
    await Deno.writeTextFile(path, '{ "limits": { "maxTurns": 3 }, // capped\n "dedupe": true }');
    const env = {
      ...readEnv({ REINS_CONFIG: path, REINS_WORKSPACES: `${dir}/ws` }),
      kvPath: ":memory:",
    };
    const service = await startService(demoServeOptions(env), env);
    try {
      const call = jsonCaller(service.app);
      const created = await call("POST", "/runs", { scenario: "runaway" });
      assert.equal(created.status, 201);
      assert.equal(created.body.limits.maxTurns, 3);
      const done = await waitFor(async () => {
        const r = await call("GET", `/runs/${created.body.runId}`);
        return r.body.status === "running" ? undefined : r.body;
      }, "the run to stop");
      assert.equal(done.status, "max_turns_exceeded");
      assert.equal(done.turns, 3);
      // A request's own limits win over the file's.
      const own = await call("POST", "/runs", { scenario: "runaway", limits: { maxTurns: 2 } });
      assert.equal(own.body.limits.maxTurns, 2);
      await waitFor(async () => {
        const r = await call("GET", `/runs/${own.body.runId}`);
        return r.body.status === "running" ? undefined : r.body;
      }, "the second run to stop");
    } finally {
      await service.close();
    }
    await Deno.writeTextFile(path, '{ "limits": { "maxTurns": -1 } }');
    await assert.rejects(
      () => {
        const env = { ...readEnv({ REINS_CONFIG: path }), kvPath: ":memory:" };
        return startService(demoServeOptions(env), env);
      },
      (e: Error) => e instanceof ConfigError && /limits\.maxTurns/.test(e.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
