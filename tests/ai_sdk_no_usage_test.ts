// aiSdkModel with a real AI SDK provider (@ai-sdk/openai-compatible) against a
// loopback endpoint that reports no usage: counted locally, exactly as reins's
// own client counts, in a fresh process where nothing loaded the tokenizer first.
import assert from "node:assert/strict";
import { runScript } from "./run_script.ts";
import { NO_USAGE_TEXT } from "./fixtures/no_usage_server.ts";

for (const mode of ["stream", "plain"] as const) {
  Deno.test(`aiSdkModel counts a ${mode} reply without usage as reins's client does`, async () => {
    const out = await runScript("tests/fixtures/ai_sdk_no_usage_child.ts", [mode], {
      timeoutMs: 60_000,
    });
    assert.equal(out.code, 0, out.stderr);
    const r = JSON.parse(out.stdout.trim().split("\n").at(-1)!);
    assert.equal(r.before, false, "the child must start without the tokenizer");
    assert.equal(r.requests, 2);
    assert.equal(r.own.status, "completed", r.own.reason);
    assert.equal(r.sdk.status, "completed", r.sdk.reason);
    assert.equal(r.sdk.output, NO_USAGE_TEXT);
    assert.ok(r.own.usage.prompt_tokens > 0 && r.own.usage.completion_tokens > 0);
    assert.deepEqual(r.sdk.usage, r.own.usage);
  });
}
