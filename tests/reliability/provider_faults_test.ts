// Provider faults through the scripted provider and the real client: 429 with
// and without Retry-After, 500s, timeouts, connection refused, 401 mid-run.
// Retries are bounded (attempts counted at the provider), failures name their
// kind, and nothing is retried after a Stop.
import assert from "node:assert/strict";
import { run } from "../../harness/run.ts";
import { newRun, type RunState } from "../../harness/state.ts";
import { createOpenAIModel, type OpenAIModelOptions } from "../../openai/openai_model.ts";
import { computeCost } from "../../harness/cost.ts";
import { memorySink } from "../../harness/trace.ts";
import {
  type ProviderRequestInfo,
  scriptedFetch,
  type ScriptedProviderOptions,
} from "../../testing/scripted_provider.ts";
import { SCRIPTED_BASE_URL } from "../../testing/scripted_model.ts";
import { PLAN_ANSWER } from "../../testing/scenarios.ts";
import { createWorkspace } from "../../tools/workspace.ts";
import { demoTools } from "../../tools/catalog.ts";
import { assertSaneExit } from "./invariants.ts";
import { sleep } from "../../harness/sleep.ts";

const task = "Which file mentions a timeout?";
const URL_ = `${SCRIPTED_BASE_URL}/chat/completions`;
const MAX_RETRIES = 2;

/** A fresh workspace, removed at the end of the scope. */
async function tempWorkspace() {
  const ws = await createWorkspace();
  return Object.assign(ws, { [Symbol.asyncDispose]: () => ws.remove() });
}

/** Every case's figures, printed at the end. */
const table: { name: string; status: string; attempts: number; ms: number }[] = [];

interface Setup {
  /** Options of the scripted provider (faults, latency). */
  provider?: ScriptedProviderOptions;
  /** Options of the client (timeouts, headers, retry bounds). */
  client?: Partial<OpenAIModelOptions>;
  /** Wraps the provider's fetch (connection refused, hangs). */
  wrap?: (inner: typeof fetch) => typeof fetch;
  /** Aborts the run: given the controller and each request as it arrives. */
  onRequest?: (info: ProviderRequestInfo, n: number, stop: AbortController) => void;
  scenario?: string;
}

/** Runs `plan` (by default) through a faulty provider; counts attempts at the fetch. */
async function faultRun(name: string, setup: Setup) {
  await using ws = await tempWorkspace();
  const stop = new AbortController();
  /** Every request that reached the (possibly wrapped) fetch, with its time. */
  const attempts: number[] = [];
  /** Requests the provider itself saw (after the wrapper). */
  const atProvider: ProviderRequestInfo[] = [];
  let stoppedAt = Infinity;
  stop.signal.addEventListener("abort", () => stoppedAt = performance.now());
  const inner = scriptedFetch({
    ...setup.provider,
    onRequest: (info) => {
      atProvider.push(info);
      setup.onRequest?.(info, atProvider.length, stop);
    },
  });
  const wrapped = setup.wrap ? setup.wrap(inner) : inner;
  const counted: typeof fetch = (input, init) => {
    attempts.push(performance.now());
    return wrapped(input, init);
  };
  const model = createOpenAIModel({
    baseUrl: SCRIPTED_BASE_URL,
    model: setup.scenario ?? "plan",
    fetch: counted,
    maxRetries: MAX_RETRIES,
    retryBaseMs: 1,
    ...setup.client,
  });
  const { sink, events } = memorySink();
  const t0 = performance.now();
  const s = await run(newRun(task), {
    model,
    tools: demoTools(ws, { scan: { ms: 0 } }),
    signal: stop.signal,
    trace: sink,
  });
  const ms = performance.now() - t0;
  assertSaneExit(s, events, name);
  // A failed attempt is never billed: cost is the usage of the replies that arrived, and
  // an estimate of those the provider may have billed (a malformed 200 reply).
  assert.ok(Math.abs(s.costUsd - s.estimatedUsd - computeCost(s.usage)) < 1e-12, name);
  // Nothing reached the endpoint after Stop.
  for (const at of attempts) assert.ok(at < stoppedAt, `${name}: an attempt after Stop`);
  table.push({ name, status: s.status, attempts: attempts.length, ms: Math.round(ms) });
  return { s, attempts: attempts.length, times: attempts, atProvider, ms, stop, stoppedAt };
}

/** Fault the first `k` requests, then answer normally. */
const firstK = (k: number, fault: "429" | "429-no-retry-after" | "500") => {
  let n = 0;
  return () => n++ < k ? fault : undefined;
};

const connectionRefused = () =>
  new TypeError(
    `error sending request for url (${URL_}): client error (Connect): tcp connect error: ` +
      `Connection refused (os error 111)`,
  );

Deno.test("429 with Retry-After: the header's wait is honoured, then the run completes", async () => {
  // A 60 s backoff base proves the 50 ms wait came from Retry-After, not the backoff.
  const { s, attempts, times } = await faultRun("429 Retry-After x2, then ok", {
    provider: { faults: firstK(2, "429") },
    client: { headers: { "x-reins-retry-after": "0.05" }, retryBaseMs: 60_000 },
  });
  assert.equal(s.status, "completed");
  assert.equal(s.output, PLAN_ANSWER);
  assert.equal(attempts, 2 + 3); // two 429s, then plan's three turns
  assert.equal(s.turns, 3);
  for (const gap of [times[1] - times[0], times[2] - times[1]]) {
    assert.ok(gap >= 45 && gap < 1_000, `waited ${gap} ms for Retry-After: 0.05`);
  }
});

Deno.test("429 with Retry-After on every attempt fails rate_limited after maxRetries+1 attempts", async () => {
  const { s, attempts } = await faultRun("429 Retry-After always", {
    provider: { fault: "429" },
    client: { headers: { "x-reins-retry-after": "0.01" } },
  });
  assert.equal(s.status, "failed");
  assert.equal(attempts, MAX_RETRIES + 1);
  assert.equal(s.turns, 0);
  assert.equal(s.costUsd, 0);
  assert.match(
    s.stopReason!,
    /^model call failed \(rate_limited\): 429 Too Many Requests from \S+ after 3 attempts: /,
  );
  assert.match(s.error!, /Rate limit reached/);
});

Deno.test("429 with a Retry-After longer than maxRetryAfterMs waits only the cap", async () => {
  const { s, attempts, ms } = await faultRun("429 Retry-After 1 h, capped", {
    provider: { fault: "429" },
    client: { headers: { "x-reins-retry-after": "3600" }, maxRetryAfterMs: 20 },
  });
  assert.equal(s.status, "failed");
  assert.equal(attempts, MAX_RETRIES + 1);
  assert.ok(ms < 2_000, `${ms} ms`);
  assert.match(s.stopReason!, /\(rate_limited\)/);
});

Deno.test("429 without Retry-After backs off, then completes; on every attempt it fails", async () => {
  const ok = await faultRun("429 no Retry-After x2, then ok", {
    provider: { faults: firstK(2, "429-no-retry-after") },
    client: { retryBaseMs: 20 },
  });
  assert.equal(ok.s.status, "completed");
  assert.equal(ok.attempts, 5);
  // Backoff 20·(0.5..1) + 40·(0.5..1) ms at least.
  assert.ok(ok.ms >= 30, `${ok.ms} ms`);
  const bad = await faultRun("429 no Retry-After always", {
    provider: { fault: "429-no-retry-after" },
  });
  assert.equal(bad.s.status, "failed");
  assert.equal(bad.attempts, MAX_RETRIES + 1);
  assert.match(bad.s.stopReason!, /\(rate_limited\): 429 .* after 3 attempts/);
});

Deno.test("500s: transient ones are retried away, persistent ones fail server", async () => {
  const ok = await faultRun("500 x2, then ok", { provider: { faults: firstK(2, "500") } });
  assert.equal(ok.s.status, "completed");
  assert.equal(ok.attempts, 5);
  const bad = await faultRun("500 always", { provider: { fault: "500" } });
  assert.equal(bad.s.status, "failed");
  assert.equal(bad.attempts, MAX_RETRIES + 1);
  assert.match(
    bad.s.stopReason!,
    /^model call failed \(server\): 500 Internal Server Error from \S+ after 3 attempts: /,
  );
  // A 500 on the second turn fails after the first turn was billed once.
  const mid = await faultRun("500 from turn 2", {
    provider: { faults: (i) => i.turn >= 1 ? "500" : undefined },
  });
  assert.equal(mid.s.status, "failed");
  assert.equal(mid.attempts, 1 + MAX_RETRIES + 1);
  assert.equal(mid.s.turns, 1);
});

Deno.test("timeouts: a slow provider past timeoutMs fails network, saying it timed out", async () => {
  const bad = await faultRun("timeout always", {
    provider: { latencyMs: 5_000 },
    client: { timeoutMs: 30 },
  });
  assert.equal(bad.s.status, "failed");
  assert.equal(bad.attempts, MAX_RETRIES + 1);
  assert.equal(bad.atProvider.length, MAX_RETRIES + 1);
  assert.match(
    bad.s.stopReason!,
    /^model call failed \(network\): Network error calling \S+ after 3 attempts: timed out after 30 ms$/,
  );
  assert.ok(bad.ms < 2_000, `waited ${bad.ms} ms for a 5 s provider`);
  // One slow attempt, then fast ones: the retry wins.
  let slow = 1;
  const ok = await faultRun("timeout x1, then ok", {
    provider: { latencyMs: 0 },
    client: { timeoutMs: 200 },
    wrap: (inner) => (input, init) => {
      const headers = new Headers(init?.headers);
      if (slow-- > 0) headers.set("x-reins-latency-ms", "5000");
      return inner(input, { ...init, headers });
    },
  });
  assert.equal(ok.s.status, "completed");
  assert.equal(ok.attempts, 4);
});

Deno.test("connection refused (fetch throws TypeError) fails network at once: nothing listens there", async () => {
  const bad = await faultRun("connection refused always", {
    wrap: () => () => Promise.reject(connectionRefused()),
  });
  assert.equal(bad.s.status, "failed");
  assert.equal(bad.attempts, 1); // retries are for 429/5xx and dropped connections
  assert.equal(bad.atProvider.length, 0);
  assert.match(
    bad.s.stopReason!,
    /^model call failed \(network\): Nothing listens at \S+: connection refused$/,
  );
  // A connection dropped mid-way (not refused) is still retried.
  let reset = 2;
  const ok = await faultRun("connection reset x2, then ok", {
    wrap: (inner) => (input, init) =>
      reset-- > 0
        ? Promise.reject(new TypeError(`error sending request for url (${URL_}): connection reset`))
        : inner(input, init),
  });
  assert.equal(ok.s.status, "completed");
  assert.equal(ok.attempts, 5);
});

Deno.test("401 mid-run (from turn 2): fails auth after exactly one attempt, turn 1 kept", async () => {
  const { s, attempts, atProvider } = await faultRun("401 from turn 2", {
    provider: { faults: (i) => i.turn >= 1 ? "401" : undefined },
  });
  assert.equal(s.status, "failed");
  assert.equal(attempts, 2);
  assert.deepEqual(atProvider.map((i) => i.turn), [0, 1]);
  assert.equal(s.turns, 1);
  assert.match(
    s.stopReason!,
    /^model call failed \(auth\): 401 Unauthorized from \S+: check LLM_API_KEY$/,
  );
  // The first turn's work is in the transcript, answered.
  assert.equal(s.messages.filter((m) => m.role === "tool").length, 1);
  assert.ok(s.costUsd > 0);
});

Deno.test("malformed and bad-shape replies fail malformed without a retry", async () => {
  for (const fault of ["malformed", "bad-shape"] as const) {
    const { s, attempts } = await faultRun(`${fault} reply`, { provider: { fault } });
    assert.equal(s.status, "failed");
    assert.equal(attempts, 1);
    assert.match(s.stopReason!, /^model call failed \(malformed\): Malformed reply from /);
    // Both begin like the provider's JSON answer: it may have billed them.
    assert.ok(s.estimatedUsd > 0 && s.costUsd === s.estimatedUsd, fault);
  }
});

Deno.test("Stop during a backoff: no further attempt, the run stops interrupted at once", async () => {
  const { s, attempts, ms } = await faultRun("Stop during 500 backoff", {
    provider: { fault: "500" },
    client: { retryBaseMs: 60_000 },
    onRequest: (_i, _n, stop) => setTimeout(() => stop.abort("user pressed Stop"), 20),
  });
  assert.equal(s.status, "interrupted");
  assert.deepEqual(s.interruption, { type: "cancelled", reason: "user pressed Stop" });
  assert.equal(s.stopReason, "cancelled: user pressed Stop");
  assert.equal(attempts, 1);
  assert.ok(ms < 2_000, `${ms} ms`);
  // Well after the Stop, still one attempt (the sanitizers also prove no timer is left).
  await sleep(50);
  assert.equal(table.at(-1)!.attempts, 1);
});

Deno.test("Stop during a Retry-After wait: no further attempt", async () => {
  const { s, attempts, ms } = await faultRun("Stop during 429 Retry-After", {
    provider: { fault: "429" },
    client: { headers: { "x-reins-retry-after": "20" } },
    onRequest: (_i, _n, stop) => setTimeout(() => stop.abort("user pressed Stop"), 20),
  });
  assert.equal(s.status, "interrupted");
  assert.equal(attempts, 1);
  assert.ok(ms < 2_000, `${ms} ms`);
});

Deno.test("Stop during a slow reply: no second request, the reply is never billed", async () => {
  const { s, attempts, atProvider, ms } = await faultRun("Stop during a slow reply", {
    provider: { latencyMs: 60_000 },
    onRequest: (_i, _n, stop) => setTimeout(() => stop.abort("user pressed Stop"), 20),
  });
  assert.equal(s.status, "interrupted");
  assert.equal(s.stopReason, "cancelled: user pressed Stop");
  assert.equal(attempts, 1);
  assert.equal(atProvider.length, 1);
  assert.equal(s.turns, 0);
  assert.equal(s.costUsd, 0);
  assert.ok(ms < 2_000, `${ms} ms`);
});

Deno.test("Stop during timeout retries: nothing after the Stop, then a resume completes unbilled twice", async () => {
  const { s, attempts, stoppedAt } = await faultRun("Stop amid timeouts", {
    provider: { latencyMs: 5_000 },
    client: { timeoutMs: 25, retryBaseMs: 5, maxRetries: 10 },
    onRequest: (_i, n, stop) => n === 2 && setTimeout(() => stop.abort("user pressed Stop"), 10),
  });
  assert.equal(s.status, "interrupted");
  assert.ok(Number.isFinite(stoppedAt));
  assert.ok(attempts >= 2 && attempts <= 3, `${attempts} attempts`);
  // The cancelled run resumes against a healthy provider; no turn was billed before.
  await using ws = await tempWorkspace();
  let requests = 0;
  const model = createOpenAIModel({
    baseUrl: SCRIPTED_BASE_URL,
    model: "plan",
    fetch: scriptedFetch({ onRequest: () => requests++ }),
  });
  const done: RunState = await run(s, { model, tools: demoTools(ws) });
  assert.equal(done.status, "completed");
  assert.equal(done.turns, 3);
  assert.equal(requests, 3);
});

Deno.test("fault figures", () => {
  const total = table.reduce((n, r) => n + r.attempts, 0);
  console.log(`provider faults: ${table.length} cases, ${total} attempts counted`);
  for (const r of table) {
    console.log(
      `  ${r.name.padEnd(34)} ${r.status.padEnd(12)} ${String(r.attempts).padStart(2)} attempts ${
        String(r.ms).padStart(5)
      } ms`,
    );
  }
  assert.ok(table.length >= 15);
});
