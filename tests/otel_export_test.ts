// Deno's own OpenTelemetry exporter, end to end: instances of demo/main.ts (as the
// Deploy simulation starts them) with OTEL_DENO=true send OTLP (http/protobuf) to a
// receiver this test runs and decodes. A `research-slow` run started over HTTP on A
// is handed over on SIGINT mid-tool and completed by B: one trace holds both
// processes' spans.
import assert from "node:assert/strict";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { waitFor } from "./server_http.ts";
import { call, type Instance, startInstance, stopInstances } from "./deploy_sim_helpers.ts";
import { type ReceivedSpan, startOtlpReceiver } from "./otlp_receiver.ts";

/** An instance of demo/main.ts under this Deno, exporting OTLP to `endpoint`. */
function start(dir: string, name: string, endpoint: string): Promise<Instance> {
  return startInstance(Deno.execPath(), name, dir, 500, {
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
    OTEL_SERVICE_NAME: `reins-${name}`,
    OTEL_METRIC_EXPORT_INTERVAL: "500",
  });
}

const byId = (spans: ReceivedSpan[]) => new Map(spans.map((s) => [s.spanId, s]));

Deno.test("otel: OTEL_DENO=true exports a research tree as one trace, across a SIGINT hand-over", async () => {
  const receiver = startOtlpReceiver();
  const dir = await Deno.makeTempDir({ prefix: "reins-otel-" });
  const kv = await Deno.openKv(`${dir}/runs.sqlite`);
  const instances: Instance[] = [];
  try {
    const a = await start(dir, "a", receiver.endpoint);
    instances.push(a);
    const created = await call(a, "POST", "/runs", {
      task: "Look into the archive.",
      scenario: "research-slow",
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id: string = created.body.runId;
    const child = `${id}.call_0_0`;
    await waitFor(
      async () => {
        const events = await new KvRunStore(kv).events(child).catch(() => []);
        return events.some((e) => e.event.type === "tool_progress") || undefined;
      },
      "a child's scan under way on A",
      20_000,
    );
    const b = await start(dir, "b", receiver.endpoint);
    instances.push(b);
    a.child.kill("SIGINT");
    assert.equal((await a.exited).code, 0, a.log());
    await waitFor(
      async () => (await new KvRunStore(kv).load(id)).status === "completed" || undefined,
      "B to complete the run",
      30_000,
    );
    b.child.kill("SIGINT"); // exiting flushes B's exporter
    assert.equal((await b.exited).code, 0, b.log());
    checkTrace(receiver.spans, id);
    checkMetrics(receiver.points);
    assert.match(receiver.contentTypes.get("/v1/traces") ?? "", /protobuf/);
  } finally {
    await stopInstances(instances);
    kv.close();
    await receiver.close();
    await Deno.remove(dir, { recursive: true });
  }
});

function checkTrace(all: ReceivedSpan[], rootId: string): void {
  const ours = all.filter((s) => s.attributes["gen_ai.conversation.id"] === rootId);
  // The root's span is named after its agent (the demo's, since runs are of agents).
  const roots = ours.filter((s) =>
    s.name.startsWith("invoke_agent ") && s.attributes["reins.run.id"] === rootId
  );
  assert.equal(roots.length, 2, `one root span per process: ${ours.map((s) => s.name)}`);
  const [onA, onB] = roots.sort((x, y) => x.service.localeCompare(y.service));
  assert.deepEqual([onA.service, onB.service], ["reins-a", "reins-b"]);
  const traceId = onA.traceId;
  const trace = all.filter((s) => s.traceId === traceId);
  assert.ok(ours.every((s) => s.traceId === traceId), "every span of the tree in one trace");
  assert.equal(onB.parentSpanId, onA.spanId, "B's execution continues under A's span");
  assert.equal(onB.attributes["reins.run.resumed"], true);
  assert.equal(onA.attributes["reins.run.interruption"], "cancelled");
  assert.equal(onB.attributes["reins.run.status"], "completed");
  const spans = byId(trace);
  for (const agent of [onA, onB]) {
    const tools = trace.filter((s) =>
      s.name === "execute_tool research" && s.parentSpanId === agent.spanId
    );
    assert.equal(tools.length, 2, `${agent.service}: two research calls`);
    for (const tool of tools) {
      const kids = trace.filter((s) => s.parentSpanId === tool.spanId);
      assert.deepEqual(kids.map((s) => s.name), ["invoke_agent research"]);
      assert.equal(kids[0].service, agent.service);
    }
  }
  const chats = trace.filter((s) => s.name === "chat research-slow");
  assert.ok(chats.length >= 5, `chat spans: ${chats.length}`);
  for (const c of chats) {
    assert.equal(c.kind, 3 /* CLIENT */);
    assert.ok(Number(c.attributes["gen_ai.usage.input_tokens"]) > 0);
    assert.ok(Number(c.attributes["gen_ai.usage.output_tokens"]) > 0);
    assert.ok(Number(c.attributes["reins.cost_usd"]) > 0);
    assert.ok(spans.get(c.parentSpanId)?.name.startsWith("invoke_agent "));
  }
  console.log(describeTrace(trace, onA));
}

function checkMetrics(points: { metric: string; attributes: Record<string, unknown> }[]) {
  const names = new Set(points.map((p) => p.metric));
  for (
    const n of [
      "gen_ai.client.token.usage",
      "gen_ai.client.operation.duration",
      "reins.client.cost",
    ]
  ) {
    assert.ok(names.has(n), `metric ${n} exported: ${[...names]}`);
  }
  for (
    const p of points.filter((p) => p.metric.startsWith("gen_ai.") || p.metric.startsWith("reins."))
  ) {
    assert.equal(p.attributes["gen_ai.operation.name"], "chat", p.metric);
    assert.equal(p.attributes["gen_ai.provider.name"], "reins.scripted", p.metric);
    assert.equal(p.attributes["gen_ai.request.model"], "research-slow", p.metric);
  }
  const tokens = points.filter((p) => p.metric === "gen_ai.client.token.usage");
  assert.deepEqual([...new Set(tokens.map((p) => p.attributes["gen_ai.token.type"]))].sort(), [
    "input",
    "output",
  ]);
}

/** The trace as an indented tree with the attributes that matter, for the test's output. */
function describeTrace(trace: ReceivedSpan[], top: ReceivedSpan): string {
  const keep =
    /^(gen_ai\.(usage\.(in|out)put_tokens|tool\.call\.id)|reins\.(cost_usd|run\.(status|interruption|resumed|cost_usd)|budget\.left_usd))$/;
  const lines: string[] = [];
  const walk = (s: ReceivedSpan, depth: number) => {
    const attrs = Object.entries(s.attributes).filter(([k]) => keep.test(k))
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" ");
    lines.push(`${"  ".repeat(depth)}${s.name} [${s.service}] ${attrs}`);
    for (const c of trace.filter((x) => x.parentSpanId === s.spanId)) walk(c, depth + 1);
  };
  const tops = trace.filter((s) => !trace.some((p) => p.spanId === s.parentSpanId));
  for (const t of tops.length ? tops : [top]) walk(t, 0);
  return lines.join("\n");
}
