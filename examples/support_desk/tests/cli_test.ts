// `deno task run --agent support "..."` (cli.ts) against the scripted endpoint named by LLM_BASE_URL.
import { assertEquals, assertMatch } from "./assert.ts";
import { openSite, refundLines, startProvider } from "./helpers.ts";
import { MODEL } from "../scenarios.ts";

Deno.test("deno task run: a question, then a refund approved from the command line", async () => {
  await using provider = startProvider();
  await using site = await openSite();
  const run = async (...args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", "run", ...args],
      cwd: new URL("..", import.meta.url),
      env: {
        LLM_BASE_URL: provider.baseUrl,
        LLM_MODEL: MODEL,
        REINS_KV_PATH: site.kvPath,
        SUPPORT_DESK_REFUNDS: site.refunds,
        NO_COLOR: "1",
      },
    }).output();
    const text = new TextDecoder().decode(out.stdout) +
      new TextDecoder().decode(out.stderr);
    return { code: out.code, text };
  };
  const asked = await run("--agent", "support", "Where is order 42?");
  assertEquals(asked.code, 0);
  assertMatch(asked.text, /tool lookup_order\(\{"orderId":"42"\}\)/);
  assertMatch(
    asked.text,
    /answer: "Order 42 \(Kettle\) has shipped with DHL; ETA 2026-12-05\."/,
  );

  const refund = await run("--agent", "support", "Please refund order 43.");
  assertEquals(refund.code, 5); // awaiting a verdict
  assertMatch(refund.text, /\[policy:call_1_0\] tool read_policy/);
  const approve = refund.text.match(
    /approve: deno task run (--approve \S+ \S+)/,
  )?.[1];
  const approved = await run(...approve!.split(" "));
  assertEquals(approved.code, 0);
  assertMatch(approved.text, /completed/);
  assertEquals((await refundLines(site)).map((l) => l.orderId), ["43"]);
});
