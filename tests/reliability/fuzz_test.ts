// Bad model output: a fuzzing endpoint behind the real OpenAI-compatible client
// answers 10,000 requests, chosen by a seeded PRNG, with malformed arguments,
// unknown tools, missing and duplicate ids, empty choices, huge content, wrong
// usage types, non-JSON and truncated bodies, interleaved with valid replies.
// Set REINS_FUZZ_SEED to replay another sequence.
import assert from "node:assert/strict";
import { run } from "../../harness/run.ts";
import { newRun, type RunState } from "../../harness/state.ts";
import { createOpenAIModel } from "../../openai/openai_model.ts";
import { memorySink } from "../../harness/trace.ts";
import type { ChatMessage } from "../../harness/messages.ts";
import type { AnyTool } from "../../harness/run_options.ts";
import { createWorkspace } from "../../tools/workspace.ts";
import { demoTools } from "../../tools/catalog.ts";
import { FIXTURES } from "../../tools/fixtures.ts";
import { assertSaneExit, EXITS, prng, seedFromEnv } from "./invariants.ts";

const TARGET_REPLIES = 10_000;
const MAX_TURNS = 10;
const SEED = seedFromEnv(0x7e1e5);

type Rng = ReturnType<typeof prng>;
/** What a fuzz reply sees of the request. */
interface Seen {
  /** Assistant messages in the request (0 on a run's first call). */
  turn: number;
}
type Maker = (rng: Rng, seen: Seen) => Response;

const JSON_HEADERS = { "content-type": "application/json" };
const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
const text = (body: string, status = 200, type = "application/json") =>
  new Response(body, { status, headers: { "content-type": type } });

let nextId = 0;
const freshId = () => `fz_${(nextId++).toString(36)}`;
const call = (id: unknown, name: unknown, args: unknown) => ({
  id,
  type: "function",
  function: { name, arguments: args },
});
const usage = (rng: Rng) => ({
  prompt_tokens: 50 + rng.int(2000),
  completion_tokens: 1 + rng.int(300),
});
/** A chat.completion body with one choice. */
const completion = (
  message: unknown,
  rng: Rng,
  extra: Record<string, unknown> = { usage: usage(rng) },
) => ({
  id: `chatcmpl-${freshId()}`,
  object: "chat.completion",
  model: "fuzz",
  choices: [{ index: 0, message, finish_reason: "stop" }],
  ...extra,
});
const reply = (message: unknown, rng: Rng, extra?: Record<string, unknown>) =>
  json(completion(message, rng, extra));

/** A valid call of a demo tool (read_file of a missing file now and then). */
function validCall(rng: Rng, id: unknown = freshId()) {
  switch (rng.int(4)) {
    case 0:
      return call(id, "list_files", "{}");
    case 1:
      return call(id, "scan_archive", "{}");
    default: {
      const path = rng.pick([...Object.keys(FIXTURES), "missing.txt", "notes.txt"]);
      return call(id, "read_file", JSON.stringify({ path }));
    }
  }
}
const toolReply = (rng: Rng, calls: unknown[], extra?: Record<string, unknown>) =>
  reply(
    { role: "assistant", content: rng.chance(0.3) ? "Let me look." : null, tool_calls: calls },
    rng,
    extra,
  );

// ~1 MB of words (BPE-friendly, so a local token count stays fast).
const WORDS = ["timeout", "worker", "queue", "batch", "retry", "ingest", "log", "db", "pool"];
const HUGE = Array.from({ length: 131_072 }, (_, i) => WORDS[i % WORDS.length]).join(" ")
  .slice(0, 1 << 20);

const BAD_JSON_ARGS = [
  '{"path": "errors.log"',
  "{path: errors.log}",
  "not json at all",
  '{"path":',
  "{'path': 'notes.txt'}",
  '{"path": "notes.txt"}}',
  "\u0000",
];
const BAD_SCHEMA_ARGS = [
  '{"path": 42}',
  "{}",
  '{"path": ""}',
  "null",
  "[]",
  '"errors.log"',
  "7",
  '{"path": null}',
  '{"path": ["a"]}',
];
const UNKNOWN_TOOLS = [
  "rm_rf",
  "__proto__",
  "constructor",
  "toString",
  "READ_FILE",
  "read-file",
  "list files",
  "x".repeat(300),
  "shell\nexec",
  "hasOwnProperty",
];
const NON_JSON = [
  "",
  "<html><body>502 Bad Gateway</body></html>",
  "null",
  "[]",
  "42",
  '"choices"',
  "\u0000\u0001\u0002",
  "data: [DONE]",
  "true",
  "{}",
];
const BAD_USAGE: unknown[] = [
  { prompt_tokens: "12", completion_tokens: 3 },
  { prompt_tokens: -1, completion_tokens: 3 },
  { prompt_tokens: 10, completion_tokens: -5 },
  { prompt_tokens: 1.5, completion_tokens: 3 },
  { prompt_tokens: "NaN", completion_tokens: "Infinity" },
  { prompt_tokens: null, completion_tokens: 3 },
  { prompt_tokens: 1e308, completion_tokens: 1e308 },
  { prompt_tokens: 2 ** 60, completion_tokens: 1 },
  { prompt_tokens: 10 },
  { prompt_tokens: true, completion_tokens: false },
  { prompt_tokens: [1], completion_tokens: { n: 1 } },
  "12 tokens",
  [12, 3],
  42,
];

/** Reply makers by kind, with weights. */
const KINDS: Record<string, [number, Maker]> = {
  "valid-text": [4, (rng) => reply({ role: "assistant", content: `answer ${rng.int(1000)}` }, rng)],
  "valid-tools": [
    26,
    (rng) => toolReply(rng, Array.from({ length: 1 + rng.int(3) }, () => validCall(rng))),
  ],
  "valid-no-usage": [3, (rng) => toolReply(rng, [validCall(rng)], {})],
  "valid-weird-fields": [2, (rng) =>
    json({
      choices: [{
        index: "zero",
        finish_reason: rng.pick([7, null, "tool_calls", "content_filter"]),
        message: {
          role: rng.pick(["system", "user", 5]),
          content: "",
          tool_calls: [{ ...validCall(rng), type: "other", extra: { deep: [1, 2] } }],
          refusal: null,
        },
        logprobs: "junk",
      }],
      usage: { ...usage(rng), total_tokens: "many" },
      model: 5,
      system_fingerprint: { x: 1 },
    })],
  "args-object": [
    4,
    (rng) =>
      toolReply(rng, [
        call(freshId(), "read_file", { path: rng.pick(["notes.txt", "errors.log"]) }),
      ]),
  ],
  "bad-json-args": [
    8,
    (rng) =>
      toolReply(rng, [
        call(
          freshId(),
          rng.pick(["read_file", "list_files", "delete_file"]),
          rng.pick(BAD_JSON_ARGS),
        ),
      ]),
  ],
  "bad-schema-args": [
    6,
    (rng) =>
      toolReply(rng, [
        call(freshId(), rng.pick(["read_file", "delete_file"]), rng.pick(BAD_SCHEMA_ARGS)),
      ]),
  ],
  "unknown-tool": [
    6,
    (rng) =>
      toolReply(rng, [
        call(freshId(), rng.pick(UNKNOWN_TOOLS), "{}"),
        ...(rng.chance(0.5) ? [validCall(rng)] : []),
      ]),
  ],
  "duplicate-ids": [6, (rng, { turn }) => {
    const ids = rng.chance(0.5) ? ["dup", "dup", "dup"] : [`dup_${turn}_2`, "dup", "dup"];
    return toolReply(rng, ids.slice(0, 2 + rng.int(2)).map((id) => validCall(rng, id)));
  }],
  "missing-id": [
    2,
    (rng) => toolReply(rng, [validCall(rng, rng.pick([undefined, "", null, 5, { id: "x" }]))]),
  ],
  "missing-name": [
    1,
    (rng) => toolReply(rng, [call(freshId(), rng.pick([undefined, "", 5, null]), "{}")]),
  ],
  "empty-choices": [
    2,
    (rng) =>
      json(
        rng.pick([{ choices: [] }, { id: "x" }, { choices: {} }, { choices: null }, {
          choices: "none",
        }]),
      ),
  ],
  "missing-message": [
    1,
    (rng) =>
      json(rng.pick([{ choices: [{}] }, { choices: [{ message: null }] }, { choices: [null] }, {
        choices: [{ message: "hi" }],
      }, { choices: [{ delta: { content: "hi" } }] }])),
  ],
  "tool-calls-not-array": [
    1,
    (rng) =>
      reply({
        role: "assistant",
        content: null,
        tool_calls: rng.pick([{}, "list_files", 5, true, { 0: validCall(rng) }]),
      }, rng),
  ],
  "tool-call-not-object": [1, (rng) => toolReply(rng, [rng.pick([null, "list_files", 5, []])])],
  "args-wrong-type": [
    1,
    (rng) => toolReply(rng, [call(freshId(), "read_file", rng.pick([5, true, ["a"], null]))]),
  ],
  "content-wrong-type": [
    1,
    (rng) =>
      reply({
        role: "assistant",
        content: rng.pick([42, { text: "hi" }, [{ type: "text", text: "hi" }], false]),
      }, rng),
  ],
  "null-content": [
    2,
    (rng) =>
      reply({
        role: "assistant",
        content: null,
        ...rng.pick([{}, { tool_calls: [] }, { tool_calls: null }]),
      }, rng),
  ],
  "huge-content": [
    1,
    (rng) =>
      rng.chance(0.5) ? reply({ role: "assistant", content: HUGE }, rng) : reply(
        { role: "assistant", content: HUGE, tool_calls: [validCall(rng)] },
        rng,
        rng.chance(0.5) ? {} : { usage: usage(rng) },
      ),
  ],
  "bad-usage": [
    4,
    (rng) =>
      rng.chance(0.5)
        ? toolReply(rng, [validCall(rng)], { usage: rng.pick(BAD_USAGE) })
        : reply({ role: "assistant", content: "done" }, rng, { usage: rng.pick(BAD_USAGE) }),
  ],
  "expensive-usage": [2, (rng) =>
    toolReply(rng, [validCall(rng)], {
      usage: { prompt_tokens: 200_000 + rng.int(400_000), completion_tokens: rng.int(10_000) },
    })],
  "non-json": [
    2,
    (rng) => text(rng.pick(NON_JSON), 200, rng.pick(["application/json", "text/html"])),
  ],
  "truncated-json": [2, (rng) => {
    const full = JSON.stringify(
      completion({ role: "assistant", content: null, tool_calls: [validCall(rng)] }, rng),
    );
    return text(full.slice(0, 1 + rng.int(full.length - 2)));
  }],
  "truncated-sse": [1, (rng) => {
    const chunk = JSON.stringify({
      id: "c",
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: { role: "assistant", content: "Hello wor" } }],
    });
    const sse = `data: ${chunk}\n\ndata: ${chunk}`;
    return text(sse.slice(0, sse.length - rng.int(40)), 200, "text/event-stream");
  }],
  "broken-body": [2, (rng) => {
    const full = JSON.stringify(completion({ role: "assistant", content: "cut" }, rng));
    const cut = new TextEncoder().encode(full.slice(0, rng.int(full.length)));
    return new Response(
      new ReadableStream({
        start(c) {
          c.enqueue(cut);
          c.error(new TypeError("connection reset by peer mid-body"));
        },
      }),
      { status: 200, headers: JSON_HEADERS },
    );
  }],
  "http-error": [2, (rng) => {
    const status = rng.pick([500, 502, 503, 429, 429, 400, 404, 413, 401]);
    const headers: Record<string, string> = status === 429 && rng.chance(0.5)
      ? { "retry-after": "0" }
      : {};
    return json({ error: { message: `fuzzed ${status}` } }, status, headers);
  }],
  "delete": [
    1,
    (rng) =>
      toolReply(rng, [call(freshId(), "delete_file", JSON.stringify({ path: "notes.txt" }))]),
  ],
  "escape-path": [
    1,
    (rng) =>
      toolReply(rng, [
        call(freshId(), "read_file", JSON.stringify({ path: rng.pick(["../x", "/etc/passwd"]) })),
      ]),
  ],
};
const KIND_NAMES = Object.keys(KINDS);
const TOTAL_WEIGHT = KIND_NAMES.reduce((n, k) => n + KINDS[k][0], 0);
function pickKind(rng: Rng): string {
  let r = rng.next() * TOTAL_WEIGHT;
  for (const k of KIND_NAMES) {
    r -= KINDS[k][0];
    if (r < 0) return k;
  }
  return KIND_NAMES.at(-1)!;
}

/** The tool problems the model was told about, as it read them (new tool messages of a request). */
interface Told {
  unknownTool: number;
  badJson: number;
  badSchema: number;
}

function fuzzEndpoint(rng: Rng) {
  const counts = { replies: 0, byKind: {} as Record<string, number> };
  const told: Told = { unknownTool: 0, badJson: 0, badSchema: 0 };
  const fetch: typeof globalThis.fetch = (_input, init) => {
    const body = JSON.parse(String(init?.body)) as { messages: ChatMessage[] };
    let turn = 0;
    let last = -1;
    body.messages.forEach((m, i) => {
      if (m.role === "assistant") (turn++, last = i);
    });
    for (const m of body.messages.slice(last + 1)) {
      if (m.role !== "tool") continue;
      if (m.content.startsWith("Error: Unknown tool ")) told.unknownTool++;
      else if (/^Error: Invalid arguments for \S+: not valid JSON/.test(m.content)) told.badJson++;
      else if (m.content.startsWith("Error: Invalid arguments for ")) told.badSchema++;
    }
    const kind = pickKind(rng);
    counts.replies++;
    counts.byKind[kind] = (counts.byKind[kind] ?? 0) + 1;
    return Promise.resolve(KINDS[kind][1](rng, { turn }));
  };
  return { fetch, counts, told };
}

/**
 * Every call that got a result got the right one: an unknown tool is named with
 * the tools that exist, bad JSON and schema misfits say so, good calls ran.
 * Returns how many calls were checked per problem.
 */
function checkToolTexts(s: RunState, tools: ReadonlyMap<string, AnyTool>, label: string) {
  const checked = { unknownTool: 0, badJson: 0, badSchema: 0, ran: 0 };
  const results = new Map<string, string>();
  for (let i = s.messages.length - 1; i >= 0; i--) {
    const m = s.messages[i];
    if (m.role === "tool") results.set(m.tool_call_id, m.content);
    if (m.role !== "assistant") continue;
    for (const c of m.tool_calls ?? []) {
      const content = results.get(c.id);
      if (content === undefined) continue;
      const { name, arguments: raw } = c.function;
      const tool = tools.get(name);
      const at = `${label}: ${name}(${raw.slice(0, 60)}) -> ${content.slice(0, 120)}`;
      if (!tool) {
        assert.ok(content.startsWith(`Error: Unknown tool "${name}". Available tools: `), at);
        assert.ok(content.includes("read_file"), at);
        checked.unknownTool++;
        continue;
      }
      let parsed: unknown;
      try {
        parsed = raw === "" ? {} : JSON.parse(raw);
      } catch {
        assert.ok(content.startsWith(`Error: Invalid arguments for ${name}: not valid JSON`), at);
        assert.match(content, /Send a JSON object matching the tool's schema/, at);
        checked.badJson++;
        continue;
      }
      if (!tool.parameters.safeParse(parsed).success) {
        assert.match(content, new RegExp(`^Error: Invalid arguments for ${name}: \\S.*: `), at);
        checked.badSchema++;
        continue;
      }
      assert.ok(!content.startsWith("Error: Unknown tool"), at);
      assert.ok(!content.startsWith("Error: Invalid arguments"), at);
      checked.ran++;
    }
    results.clear();
  }
  return checked;
}

Deno.test(`fuzz: ${TARGET_REPLIES} bad and good replies, the harness never throws and every run exits sanely`, async () => {
  console.log(`fuzz seed: ${SEED} (0x${SEED.toString(16)}); replay with REINS_FUZZ_SEED=${SEED}`);
  const rng = prng(SEED);
  const ws = await createWorkspace();
  try {
    const tools = demoTools(ws, { scan: { ms: 0, files: 1, every: 1 } });
    const byName = new Map(tools.map((t) => [t.name, t]));
    const endpoint = fuzzEndpoint(rng);
    const model = createOpenAIModel({
      baseUrl: "http://fuzz.reins.local/v1",
      model: "fuzz",
      fetch: endpoint.fetch,
      maxRetries: 1,
      retryBaseMs: 1,
    });
    const exits: Record<string, number> = {};
    const checked = { unknownTool: 0, badJson: 0, badSchema: 0, ran: 0 };
    const failedKinds: Record<string, number> = {};
    let runs = 0;
    let maxCost = 0;
    const t0 = performance.now();
    while (endpoint.counts.replies < TARGET_REPLIES) {
      const label = `seed ${SEED} run ${runs}`;
      const { sink, events } = memorySink();
      let s: RunState;
      try {
        s = await run(newRun(`Fuzz task ${runs}: which file mentions a timeout?`), {
          model,
          tools,
          limits: { maxTurns: MAX_TURNS, maxBudgetUsd: 1 },
          trace: sink,
          // Vary the policies across runs: hard budgets, dedupe, lenient errors.
          budgetMode: runs % 4 === 3 ? "hard" : "soft",
          dedupe: runs % 3 === 1,
          stopOnPermanentError: runs % 5 !== 2,
          concurrency: 1 + (runs % 4),
        });
      } catch (e) {
        assert.fail(`${label}: run() threw ${e instanceof Error ? e.stack : e}`);
      }
      runs++;
      exits[s.status] = (exits[s.status] ?? 0) + 1;
      assertSaneExit(s, events, label);
      assert.ok(s.turns <= MAX_TURNS, label);
      maxCost = Math.max(maxCost, s.costUsd);
      if (s.status === "failed") {
        const kind = /^model call failed \((\w+)\)/.exec(s.stopReason!)?.[1] ?? "tool";
        failedKinds[kind] = (failedKinds[kind] ?? 0) + 1;
        assert.ok(s.error, `${label}: failed without an error`);
      }
      const c = checkToolTexts(s, byName, label);
      for (const k of Object.keys(checked) as (keyof typeof checked)[]) checked[k] += c[k];
    }
    const ms = performance.now() - t0;
    const { replies, byKind } = endpoint.counts;
    console.log(`fuzz: ${replies} replies over ${runs} runs in ${(ms / 1000).toFixed(1)} s`);
    console.log(`fuzz: exits ${JSON.stringify(exits)}`);
    console.log(`fuzz: failed by kind ${JSON.stringify(failedKinds)}`);
    console.log(`fuzz: replies by kind ${JSON.stringify(byKind)}`);
    console.log(`fuzz: tool texts checked ${JSON.stringify(checked)}`);
    console.log(`fuzz: problems the model read ${JSON.stringify(endpoint.told)}`);
    console.log(`fuzz: highest run cost $${maxCost.toFixed(6)}`);

    assert.ok(replies >= TARGET_REPLIES);
    for (const k of KIND_NAMES) assert.ok(byKind[k] > 0, `kind ${k} never fuzzed`);
    for (const e of EXITS) {
      assert.ok(exits[e] > 0, `exit ${e} never reached: ${JSON.stringify(exits)}`);
    }
    // Recoverable problems reached the model as text naming the problem, and
    // the next request carried them.
    assert.ok(checked.unknownTool > 0 && checked.badJson > 0 && checked.badSchema > 0);
    const told = endpoint.told;
    assert.ok(told.unknownTool > 0 && told.badJson > 0 && told.badSchema > 0, JSON.stringify(told));
    // Malformed replies fail the run, naming the kind, never crash it.
    assert.ok(failedKinds.malformed > 0, JSON.stringify(failedKinds));
    // The whole fuzz must stay quick: ~10-15 s on an idle 2-core box. The bound is
    // loose so a loaded machine does not flake; the count is never lowered.
    assert.ok(ms < 60_000, `fuzz took ${ms.toFixed(0)} ms`);
  } finally {
    await ws.remove();
  }
});
