// Typed results against code reins did not write: the official `openai`
// client's JSON-schema request shape (zodResponseFormat), and an AI SDK
// provider (@ai-sdk/openai-compatible) through aiSdkModel over loopback HTTP.
import assert from "node:assert/strict";
import OpenAI from "npm:openai@7.59.0";
import { zodResponseFormat } from "npm:openai@7.59.0/helpers/zod";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { z } from "zod";
import { aiSdkModel } from "../ai_sdk/mod.ts";
import { createOpenAIModel, newRun, run } from "../mod.ts";
import { outputFormat } from "../harness/output.ts";
import { repairText } from "../harness/output.ts";
import { createScriptedProvider, scriptedFetch } from "../testing/scripted_provider.ts";
import type { ProviderRequestInfo } from "../testing/scripted_provider.ts";
import { LOCATION_ANSWER, PROSE_ANSWER, WRONG_TYPE_ANSWER } from "../testing/scenarios.ts";

const TASK = "Where is the timeout logged?";
// The same shape as TIMEOUT_LOCATION, as a zod object the openai helper accepts.
const location = z.object({ file: z.string().min(1), line: z.number().int().positive() });
const nested = z.object({
  file: z.string(),
  hits: z.array(z.object({ line: z.number(), level: z.enum(["WARN", "ERROR"]) })),
  note: z.string().nullable(),
});

/** A fetch over the scripted provider that keeps each request body reins sends. */
function capturing() {
  const bodies: Record<string, unknown>[] = [];
  const inner = scriptedFetch();
  const fetch: typeof globalThis.fetch = async (input, init) => {
    bodies.push(JSON.parse(String(init?.body)));
    return await inner(input, init);
  };
  return { fetch, bodies };
}

/** What the openai client itself would send as response_format, minus its `$schema` tag. */
function openaiFormat(schema: z.ZodType) {
  const f = zodResponseFormat(schema, "output") as unknown as {
    type: string;
    json_schema: { name: string; strict: boolean; schema: Record<string, unknown> };
  };
  const { $schema: _tag, ...rest } = f.json_schema.schema;
  return { type: f.type, json_schema: { ...f.json_schema, schema: rest } };
}

Deno.test("reins's request carries the response_format the official openai client builds for the same schema", async () => {
  for (const schema of [location, nested]) {
    const { fetch, bodies } = capturing();
    const model = createOpenAIModel({
      baseUrl: "http://scripted.reins.local/v1",
      model: "extract-twice",
      fetch,
      stream: false,
    });
    const done = await run(newRun(TASK), { model, output: schema });
    assert.equal(done.status, schema === location ? "completed" : "failed");
    assert.ok(bodies.length >= 1);
    for (const body of bodies) assert.deepEqual(body.response_format, openaiFormat(schema));
  }
});

Deno.test("a schema openai's strict mode refuses is sent unstrict, as the API would otherwise reject it", () => {
  const optional = z.object({ file: z.string(), line: z.number().optional() });
  assert.throws(() => zodResponseFormat(optional, "output"), /optional/);
  assert.equal(outputFormat(optional).strict, false);
  assert.equal(outputFormat(nested).strict, true);
});

Deno.test("the official openai client's json_schema request is accepted by reins's provider, which plays the repairs", async () => {
  const seen: ProviderRequestInfo[] = [];
  const client = new OpenAI({
    apiKey: "test",
    baseURL: "http://scripted.local/v1",
    fetch: scriptedFetch({ onRequest: (info) => seen.push(info) }),
  });
  const issue = { path: "(root)", message: "not JSON" };
  const completion = await client.chat.completions.parse({
    model: "extract-twice",
    response_format: zodResponseFormat(location, "output"),
    messages: [
      { role: "user", content: TASK },
      { role: "assistant", content: PROSE_ANSWER },
      { role: "user", content: repairText([issue]) },
      { role: "assistant", content: WRONG_TYPE_ANSWER },
      { role: "user", content: repairText([{ path: "line", message: "expected number" }]) },
    ],
  });
  assert.deepEqual(completion.choices[0].message.parsed, { file: "errors.log", line: 12 });
  assert.equal(seen[0].responseFormat?.type, "json_schema");
  assert.equal(seen[0].responseFormat?.json_schema?.strict, true);
  // A malformed response_format is refused with a 400 naming the field.
  await assert.rejects(
    () =>
      client.chat.completions.create({
        model: "extract",
        messages: [{ role: "user", content: TASK }],
        response_format: { type: "json_schema", json_schema: { name: "has spaces" } },
      }),
    (e: unknown) => e instanceof OpenAI.BadRequestError && /response_format/.test(e.message),
  );
});

Deno.test("through aiSdkModel and @ai-sdk/openai-compatible over loopback HTTP: response_format sent, answer repaired", async () => {
  const provider = createScriptedProvider();
  const bodies: Record<string, unknown>[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const text = await req.text();
    if (req.method === "POST") bodies.push(JSON.parse(text));
    return await provider.fetch(
      new Request(req.url, { method: req.method, headers: req.headers, body: text || undefined }),
    );
  });
  try {
    const sdk = createOpenAICompatible({
      name: "loopback",
      baseURL: `http://127.0.0.1:${server.addr.port}/v1`,
      includeUsage: true,
      supportsStructuredOutputs: true,
    });
    const model = aiSdkModel(sdk.chatModel("extract-twice"), { maxRetries: 0 });
    const done = await run(newRun(TASK), { model, output: location });
    assert.equal(done.status, "completed", done.stopReason ?? "");
    assert.deepEqual(done.output, { file: "errors.log", line: 12 });
    assert.equal(done.turns, 3);
    assert.equal(bodies.length, 3);
    const format = bodies[0].response_format as {
      type: string;
      json_schema: { name: string; schema: unknown };
    };
    assert.equal(format.type, "json_schema");
    assert.equal(format.json_schema.name, "output");
    assert.deepEqual(format.json_schema.schema, outputFormat(location).schema);
    assert.equal(done.messages[3].content, WRONG_TYPE_ANSWER);
    assert.equal(done.messages.at(-1)?.content, LOCATION_ANSWER);
  } finally {
    await server.shutdown();
  }
});
