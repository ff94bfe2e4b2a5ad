// The support desk over HTTP, served as `deno task dev` serves it, against the
// scripted OpenAI-compatible endpoint of scenarios.ts (LLM_BASE_URL).
import { assert, assertEquals, assertMatch } from "./assert.ts";
import {
  api,
  followEvents,
  openSite,
  refundLines,
  type RunView,
  startProvider,
  startRun,
  waitRun,
} from "./helpers.ts";

const ended = (r: RunView) => r.status !== "running";
const awaitingApproval = (r: RunView) => r.interruption?.type === "approval";

Deno.test("GET /agents lists the support desk's tools and its policy child", async () => {
  await using provider = startProvider();
  await using site = await openSite();
  const server = await site.serve(provider.baseUrl);
  const { agents } = await api<
    { agents: { name: string; tools: { name: string }[] }[] }
  >(
    server,
    "/agents",
  );
  assertEquals(agents.map((a) => a.name), ["support"]);
  assertEquals(agents[0]?.tools.map((t) => t.name).sort(), [
    "lookup_order",
    "policy",
    "refund",
  ]);
});

Deno.test("a question completes with lookup_order's result, followed over SSE", async () => {
  await using provider = startProvider();
  await using site = await openSite();
  const server = await site.serve(provider.baseUrl);
  const runId = await startRun(server, "Where is order 42?");
  const events = await followEvents(
    server,
    runId,
    (e) => e.type === "run_stopped",
  );
  assertEquals(
    events.filter((e) => e.type === "tool_result").map((e) => e["toolName"]),
    [
      "lookup_order",
    ],
  );
  assertEquals(events.at(-1)?.["status"], "completed");
  const { messages } = await api<
    { messages: { role: string; content: string }[] }
  >(
    server,
    `/runs/${runId}/messages`,
  );
  assertMatch(
    messages.find((m) => m.role === "tool")!.content,
    /"carrier":"DHL"/,
  );
  const run = await api<RunView>(server, `/runs/${runId}`);
  assertEquals(
    run.output,
    "Order 42 (Kettle) has shipped with DHL; ETA 2026-12-05.",
  );
});

Deno.test("a refund waits for approval; the verdict continues it; it is written once", async () => {
  await using provider = startProvider();
  await using site = await openSite();
  const server = await site.serve(provider.baseUrl);
  const runId = await startRun(server, "Please refund order 43.");
  const waiting = await waitRun(server, runId, ended);
  assertEquals([waiting.status, waiting.interruption?.type], [
    "interrupted",
    "approval",
  ]);
  assertEquals(waiting.interruption?.toolName, "refund");
  assertEquals(await refundLines(site), []);
  const tree = await api<{ nodes: { agent?: string; status: string }[] }>(
    server,
    `/runs/${runId}/tree`,
  );
  assertEquals(tree.nodes.map((n) => [n.agent, n.status]), [
    ["support", "interrupted"],
    ["policy", "completed"],
  ]);
  await api(server, `/runs/${runId}/approve`, {
    callId: waiting.interruption!.callId,
  });
  const done = await waitRun(server, runId, ended);
  assertEquals(done.status, "completed");
  assertMatch(done.output!, /^Refunded \$24\.5 for order 43/);
  assertEquals((await refundLines(site)).map((l) => [l.key, l.orderId]), [
    [`${runId}:${waiting.interruption!.callId}`, "43"],
  ]);
});

Deno.test("one Stop ends the tree: the support run and its policy child", async () => {
  await using provider = startProvider(150);
  await using site = await openSite();
  const server = await site.serve(provider.baseUrl);
  const runId = await startRun(server, "Audit order 42, please.");
  const events = await followEvents(
    server,
    runId,
    (e) => e.type === "tool_start",
  );
  assertEquals(events.at(-1)?.["toolName"], "policy");
  await api(server, `/runs/${runId}/stop`, { reason: "the customer hung up" });
  const stopped = await waitRun(server, runId, ended);
  assertEquals([stopped.status, stopped.interruption?.type], [
    "interrupted",
    "cancelled",
  ]);
  const tree = await api<{ nodes: { agent?: string; status: string }[] }>(
    server,
    `/runs/${runId}/tree`,
  );
  assertEquals(tree.nodes.map((n) => [n.agent, n.status]), [
    ["support", "interrupted"],
    ["policy", "interrupted"],
  ]);
});

Deno.test("a SIGKILLed server's run is resumed by another process", async () => {
  await using provider = startProvider(150);
  await using site = await openSite();
  const first = await site.serve(provider.baseUrl);
  const runId = await startRun(first, "Please refund order 43.");
  await followEvents(
    first,
    runId,
    (e) => e.type === "tool_result" && e["toolName"] === "lookup_order",
  );
  await first.kill();
  const second = await site.serve(provider.baseUrl);
  const waiting = await waitRun(second, runId, awaitingApproval);
  await api(second, `/runs/${runId}/approve`, {
    callId: waiting.interruption!.callId,
  });
  const done = await waitRun(second, runId, ended);
  assertEquals(done.status, "completed");
  assertEquals((await refundLines(site)).length, 1);
  const tree = await api<{ nodes: { status: string }[] }>(
    second,
    `/runs/${runId}/tree`,
  );
  assertEquals(tree.nodes.map((n) => n.status), ["completed", "completed"]);
});

Deno.test("a changed tool list meets old runs: same refund resumes, changed refund fails", async () => {
  await using provider = startProvider();
  await using site = await openSite();
  const old = await site.serve(provider.baseUrl);
  const a = await startRun(old, "Please refund order 43.");
  const b = await startRun(old, "Please refund order 43 too.");
  const waitingA = await waitRun(old, a, awaitingApproval);
  const waitingB = await waitRun(old, b, awaitingApproval);
  await old.stop();

  const extra = await site.serve(
    provider.baseUrl,
    "tests/variants/extra_tool.ts",
  );
  await api(extra, `/runs/${a}/approve`, {
    callId: waitingA.interruption!.callId,
  });
  assertEquals((await waitRun(extra, a, ended)).status, "completed");
  await extra.stop();

  const changed = await site.serve(
    provider.baseUrl,
    "tests/variants/changed_refund.ts",
  );
  await api(changed, `/runs/${b}/approve`, {
    callId: waitingB.interruption!.callId,
  });
  const failed = await waitRun(changed, b, ended);
  assertEquals(failed.status, "failed");
  assertMatch(
    failed.stopReason ?? "",
    /the parameters of tool "refund" changed/,
  );
  assert(!/Refunded/.test(failed.output ?? ""));
  assertEquals((await refundLines(site)).map((l) => l.key), [
    `${a}:${waitingA.interruption!.callId}`,
  ]);
});
