// KvRunStore over a real Deno KV: round trips, constant bytes per turn,
// chunking, optimistic concurrency, validation, indexes and deletion.
import { decodeValue, encodeValue } from "../kv/value_codec.ts";
import assert from "node:assert/strict";
import { HEADER_CEILING_BYTES } from "../kv/header_chunks.ts";
import { newRun, type RunState } from "../harness/state.ts";
import { run } from "../harness/run.ts";
import { RunConflictError, RunNotFoundError, RunTooLargeError } from "../harness/errors.ts";
import { RecordError } from "../kv/record_error.ts";
import type { RunStore } from "../harness/run_store.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { messageKey, messagePrefix, runKey } from "../kv/keys.ts";
import { encodeMessage } from "../kv/chunks.ts";
import {
  allKeys,
  constantTool,
  countingKv,
  listFiles,
  oneCallModel,
  runawayModel,
  withKv,
} from "./kv_helpers.ts";

Deno.test("a run saved after several turns loads back equal to the in-memory state", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const done = await run(newRun("list forever", { system: "Be brief." }), {
      model: runawayModel(),
      tools: [listFiles],
      store,
      limits: { maxTurns: 5 },
    });
    assert.equal(done.status, "max_turns_exceeded");
    assert.equal(done.messages.length, 12);
    assert.deepEqual(await new KvRunStore(kv).load(done.runId), done);
  }));

Deno.test("bytes written per turn do not grow with the transcript", () =>
  withKv(async (raw) => {
    const { kv, bytes } = countingKv(raw);
    const store = new KvRunStore(kv);
    const measured = new Map<number, number>(); // turn -> bytes actually set
    const reported = new Map<number, number>(); // turn -> store.lastCommitBytes
    const recording: RunStore = {
      load: (id) => store.load(id),
      async save(state) {
        const before = bytes.n;
        await store.save(state);
        // The exit save (header only) is kept apart: turn 100 is then comparable to turn 1.
        const turn = state.status === "running" ? state.turns : -1;
        measured.set(turn, (measured.get(turn) ?? 0) + bytes.n - before);
        reported.set(turn, (reported.get(turn) ?? 0) + store.lastCommitBytes);
      },
    };
    const done = await run(newRun("list forever"), {
      model: runawayModel(),
      tools: [listFiles],
      store: recording,
      limits: { maxTurns: 100, maxBudgetUsd: 100 },
    });
    assert.equal(done.turns, 100);
    const [m1, m100] = [measured.get(1)!, measured.get(100)!];
    const [r1, r100] = [reported.get(1)!, reported.get(100)!];
    console.log(
      `bytes written: turn 1 ${m1} (reported ${r1}), turn 99 ${measured.get(99)}, ` +
        `turn 100 ${m100} (reported ${r100}), the exit save ${measured.get(-1)}`,
    );
    assert.ok(m1 > 0 && m100 < 1.1 * m1, `turn 100 wrote ${m100} bytes, turn 1 ${m1}`);
    assert.ok(r100 < 1.1 * r1, `reported: turn 100 ${r100}, turn 1 ${r1}`);
    assert.ok(measured.get(99)! < 1.1 * m1, `turn 99 wrote ${measured.get(99)}, turn 1 ${m1}`);
    assert.ok(measured.get(-1)! < m1, `the exit save wrote ${measured.get(-1)}`);
    assert.deepEqual(await new KvRunStore(raw).load(done.runId), done);
  }));

Deno.test("a 200 KB tool result round-trips exactly, split into chunks", () =>
  withKv(async (kv) => {
    const big = ("é🙂 line of a large log\n" + "x".repeat(977)).repeat(200);
    assert.ok(new TextEncoder().encode(big).byteLength > 200_000);
    const store = new KvRunStore(kv);
    const done = await run(newRun("read the log"), {
      model: oneCallModel("read_log"),
      tools: [constantTool("read_log", big)],
      store,
    });
    assert.equal(done.status, "completed");
    const loaded = await new KvRunStore(kv).load(done.runId);
    const seq = loaded.messages.findIndex((m) => m.role === "tool");
    assert.equal(loaded.messages[seq].content, big);
    let parts = 0;
    for await (const _ of kv.list({ prefix: [...messagePrefix(done.runId), seq] })) parts++;
    assert.ok(parts >= 4, `expected the result in several chunks, got ${parts}`);
  }));

Deno.test("a turn larger than one atomic is split across atomics and round-trips", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const s = newRun("big");
    await store.save(s);
    for (let i = 0; i < 12; i++) {
      s.messages.push({ role: "user", content: `${i}:` + "y".repeat(100_000) });
    }
    await store.save(s); // ~1.2 MB in one save: over KV's 800 KiB per atomic
    assert.deepEqual(await new KvRunStore(kv).load(s.runId), s);
  }));

Deno.test("two stores saving the same run: one wins, the other gets RunConflictError", () =>
  withKv(async (kv) => {
    const s = newRun("race");
    await new KvRunStore(kv).save(s);
    const [a, b] = [new KvRunStore(kv), new KvRunStore(kv)];
    const [sa, sb] = [await a.load(s.runId), await b.load(s.runId)];
    sa.messages.push({ role: "assistant", content: "from a" });
    sb.messages.push({ role: "assistant", content: "from b" }, { role: "user", content: "more" });
    const results = await Promise.allSettled([a.save(sa), b.save(sb)]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected");
    assert.equal(won.length, 1);
    assert.ok(lost[0].status === "rejected" && lost[0].reason instanceof RunConflictError);
    const winner = results[0].status === "fulfilled" ? sa : sb;
    assert.deepEqual((await new KvRunStore(kv).load(s.runId)).messages, winner.messages);
    // The loser stays refused until it reloads.
    const loser = winner === sa ? b : a;
    await assert.rejects(loser.save(winner === sa ? sb : sa), RunConflictError);
  }));

Deno.test("saving a run id this store never saw is a create: refused when it exists", () =>
  withKv(async (kv) => {
    const s = newRun("one");
    await new KvRunStore(kv).save(s);
    await assert.rejects(new KvRunStore(kv).save(s), RunConflictError);
    await assert.rejects(new KvRunStore(kv).load("nope"), RunNotFoundError);
  }));

Deno.test("messages are append-only: saving fewer messages than stored throws", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const s = newRun("x");
    s.messages.push({ role: "assistant", content: "y" });
    await store.save(s);
    // A RunConflictError, which callers catch (before: a plain Error).
    await assert.rejects(
      store.save({ ...s, messages: s.messages.slice(0, 1) }),
      (e) => e instanceof RunConflictError && /append-only: this is an older copy/.test(e.message),
    );
  }));

Deno.test("stray chunks beyond a message's parts (a lost large save) are ignored", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const s = newRun("x");
    await store.save(s);
    // A loser staged a 3-chunk message at seq 1, then lost its final commit.
    const stray = encodeMessage({ role: "user", content: "z".repeat(150_000) });
    for (const [part, c] of stray.entries()) await kv.set(messageKey(s.runId, 1, part), c);
    assert.deepEqual(await new KvRunStore(kv).load(s.runId), s); // seq 1 >= messageCount
    s.messages.push({ role: "assistant", content: "winner" });
    await store.save(s);
    assert.deepEqual((await new KvRunStore(kv).load(s.runId)).messages, s.messages);
  }));

async function refusedRecord(kv: Deno.Kv, id: string, field: string, bad: unknown) {
  await kv.set(runKey(id), encodeValue(bad));
  const e = await new KvRunStore(kv).load(id).then(() => null, (e) => e);
  assert.ok(e instanceof RecordError, `expected RecordError, got ${e}`);
  assert.equal(e.runId, id);
  assert.equal(e.field, field);
  assert.ok(e.message.includes(`"${id}"`) && e.message.includes(`"${field}"`), e.message);
  assert.deepEqual(decodeValue((await kv.get(runKey(id))).value), bad); // not overwritten
}

Deno.test("a corrupted header is refused naming the run and field, and left as it is", () =>
  withKv(async (kv) => {
    const s = newRun("x");
    const store = new KvRunStore(kv);
    await store.save(s);
    const header = decodeValue((await kv.get(runKey(s.runId))).value) as Record<string, unknown>;
    await refusedRecord(kv, s.runId, "status", { ...header, status: "zombie" });
    await refusedRecord(kv, s.runId, "turns", { ...header, turns: "x" });
    await refusedRecord(kv, s.runId, "usage.prompt_tokens", {
      ...header,
      usage: { prompt_tokens: -1, completion_tokens: 0 },
    });
    await refusedRecord(kv, s.runId, "interruption.why", {
      ...header,
      interruption: { type: "approval", callId: "c1", toolName: "t", args: {}, why: "whim" },
    });
    await refusedRecord(kv, s.runId, "$schemaVersion", { ...header, $schemaVersion: 2 });
    // A store that knew the good version cannot overwrite the bad one either.
    await assert.rejects(store.save(s), RunConflictError);
    const stored = decodeValue((await kv.get(runKey(s.runId))).value);
    assert.equal((stored as { $schemaVersion: number }).$schemaVersion, 2);
  }));

Deno.test("a corrupted message is refused naming the run and the message field", () =>
  withKv(async (kv) => {
    const s = newRun("x");
    await new KvRunStore(kv).save(s);
    const [bad] = encodeMessage({ role: "robot", content: "x" } as never);
    await kv.set(messageKey(s.runId, 0, 0), bad);
    await assert.rejects(new KvRunStore(kv).load(s.runId), (e: RecordError) => {
      assert.equal(e.field, "messages.0.role");
      return true;
    });
  }));

function at(ms: number, task: string, parent?: RunState): RunState {
  const s = newRun(task, parent ? { parent: { ...parent, callId: "c1" } } : {});
  s.createdAt = s.updatedAt = new Date(1_700_000_000_000 + ms).toISOString();
  return s;
}

Deno.test("list is newest first, filters by status and parent; the status index moves", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const [a, b, c] = [at(0, "a"), at(1000, "b"), at(2000, "c")];
    const child = at(3000, "child", b);
    for (const s of [b, a, c, child]) await store.save(s);
    const ids = async (o = {}) => (await store.list(o)).map((r) => r.runId);
    assert.deepEqual(await ids(), [child.runId, c.runId, b.runId, a.runId]);
    assert.deepEqual(await ids({ limit: 2 }), [child.runId, c.runId]);
    assert.deepEqual(await ids({ parentId: b.runId }), [child.runId]);
    b.status = "completed";
    b.output = "ok";
    await store.save(b);
    assert.deepEqual(await ids({ status: "running" }), [child.runId, c.runId, a.runId]);
    assert.deepEqual(await ids({ status: "completed" }), [b.runId]);
    const statusKeys = (await allKeys(kv)).filter((k) =>
      k[0] === "runs_by_status" && k[3] === b.runId
    );
    assert.deepEqual(statusKeys, [[
      "runs_by_status",
      "completed",
      Date.parse(b.createdAt),
      b.runId,
    ]]);
    const summary = (await store.list({ status: "completed" }))[0];
    assert.equal(summary.output, "ok");
    assert.equal("messages" in summary, false);
  }));

Deno.test("delete removes the header, messages, events, lease and indexes", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const keep = newRun("keep");
    await store.save(keep);
    const parent = newRun("parent");
    await store.save(parent);
    const doomed = await run(at(0, "doomed", parent), {
      model: runawayModel(),
      tools: [listFiles],
      store,
      trace: store.traceSink(),
      limits: { maxTurns: 3 },
    });
    assert.ok(await store.acquireLease(doomed.runId));
    const mentions = (keys: Deno.KvKey[]) => keys.filter((k) => k.includes(doomed.runId));
    assert.ok(mentions(await allKeys(kv)).length > 10);
    assert.equal(await store.delete(doomed.runId), true);
    assert.deepEqual(mentions(await allKeys(kv)), []);
    await assert.rejects(store.load(doomed.runId), RunNotFoundError);
    assert.deepEqual(
      (await store.list()).map((r) => r.runId).sort(),
      [keep.runId, parent.runId].sort(),
    );
    assert.equal(await store.delete(doomed.runId), false);
  }));

Deno.test("a header larger than one KV value is stored in chunks; over the ceiling it fails", () =>
  withKv(async (kv) => {
    const s = newRun("x");
    s.status = "interrupted";
    s.interruption = {
      type: "approval",
      callId: "c1",
      toolName: "write_file",
      args: { content: "w".repeat(100_000) },
      why: "needs_approval",
    };
    await new KvRunStore(kv).save(s);
    assert.deepEqual((await new KvRunStore(kv).load(s.runId)).interruption, s.interruption);
    const t = newRun("x");
    t.output = "o".repeat(HEADER_CEILING_BYTES);
    await assert.rejects(new KvRunStore(kv).save(t), (e: Error) => {
      assert.ok(e instanceof RunTooLargeError && e.message.includes(t.runId), e.message);
      return true;
    });
    assert.equal((await new KvRunStore(kv).summary(t.runId)).status, "failed");
    const long = newRun("y", { runId: "r".repeat(600) });
    await assert.rejects(new KvRunStore(kv).save(long), /runId is longer than 512 bytes/);
  }));

Deno.test("a message appended while a save is committing is written by the next save", () =>
  withKv(async (kv) => {
    // A parent's spend save commits while its tools run: the state grows meanwhile.
    const store = new KvRunStore(kv);
    const state = newRun("hi");
    await store.save(state);
    const saving = store.save(state);
    state.messages.push({ role: "assistant", content: "grown during the save" });
    await saving;
    await store.save(state);
    const loaded = await new KvRunStore(kv).load(state.runId);
    assert.deepEqual(loaded.messages, state.messages);
  }));

Deno.test("a state run() hands back is validated again: a caller's bad edit is refused", () =>
  withKv(async (kv) => {
    // Inside run() the header is validated on its first save, then trusted
    // (harness/driven_states.ts); the state run() returns is the caller's again.
    const store = new KvRunStore(kv);
    const done = await run(newRun("list forever"), {
      model: runawayModel(),
      tools: [listFiles],
      store,
      limits: { maxTurns: 2 },
    });
    (done as { turns: unknown }).turns = -1;
    await assert.rejects(store.save(done), (e: Error) => {
      assert.ok(e instanceof TypeError);
      assert.match(e.message, /invalid state at "turns"/);
      return true;
    });
  }));

Deno.test("run() validates its first save: a loaded state with a stray key is refused", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const s = newRun("hi");
    await store.save(s);
    const loaded = await store.load(s.runId);
    (loaded as unknown as Record<string, unknown>).stray = 1;
    await assert.rejects(
      run(loaded, { model: runawayModel(), tools: [listFiles], store, limits: { maxTurns: 1 } }),
      /invalid state at "stray"/,
    );
    assert.deepEqual(await new KvRunStore(kv).load(s.runId), s);
  }));

Deno.test("an approval's args are stored as they were when saved, not as changed after", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const s = newRun("hi");
    const args = { path: "a.txt" };
    s.status = "interrupted";
    s.interruption = {
      type: "approval",
      callId: "c1",
      toolName: "write",
      args,
      why: "needs_approval",
    };
    const saving = store.save(s);
    args.path = "changed.txt";
    await saving;
    const back = await new KvRunStore(kv).load(s.runId);
    assert.deepEqual(back.interruption, { ...s.interruption, args: { path: "a.txt" } });
  }));

Deno.test("a new run and its settings are stored in one commit, and refused together", () =>
  withKv(async (raw) => {
    const { kv, commits } = countingKv(raw);
    const store = new KvRunStore(kv);
    const s = newRun("hi");
    await store.save(s, { settings: { budgetMode: "hard" } });
    assert.equal(commits.n, 1);
    assert.deepEqual(await new KvRunStore(kv).settings(s.runId), { budgetMode: "hard" });
    // Created again elsewhere: neither the run nor the settings change.
    await assert.rejects(
      new KvRunStore(kv).save(s, { settings: { budgetMode: "soft" } }),
      RunConflictError,
    );
    assert.deepEqual(await new KvRunStore(kv).settings(s.runId), { budgetMode: "hard" });
  }));
