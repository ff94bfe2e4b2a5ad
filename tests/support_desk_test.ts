// The example app examples/support_desk is a project of its own (its deno.json links this
// repository as @reins/reins): its tests run as its users run them, `deno task test` in
// its folder, so `deno task test` here and CI cover it from a fresh clone.
import assert from "node:assert/strict";
import { ROOT } from "./run_script.ts";

Deno.test("examples/support_desk: its own deno task test passes", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "test"],
    cwd: `${ROOT}examples/support_desk`,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, text);
  assert.match(text, /ok \| 7 passed \| 0 failed/, text);
});
