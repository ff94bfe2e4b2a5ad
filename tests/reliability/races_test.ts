// Races against the real KV store, 100 trials each: concurrent resume,
// approve vs reject, Stop vs approve, Stop vs completion. Two KvRunStore
// instances on one KV handle stand for two processes; half the trials use two
// handles on one temp SQLite file instead. Each trial jitters both sides so
// they interleave differently; exactly one outcome must win, and the run
// record, the transcript and the event log must all say which.
// Seed: REINS_RACE_SEED (default 0x5eed); every outcome count is printed.
import { decodeValue } from "../../kv/value_codec.ts";
import assert from "node:assert/strict";
import { RunConflictError, RunStateError } from "../../harness/errors.ts";
import { newRun, type RunState } from "../../harness/state.ts";
import { KvRunStore } from "../../kv/kv_run_store.ts";
import { executeRun } from "../../runtime/execute_run.ts";
import { readStop } from "../../kv/stop_record.ts";
import { requestStop } from "../../runtime/stop_tree.ts";
import { executeTree } from "../../runtime/execute_tree.ts";
import { approveInTree, rejectInTree } from "../../subagents/tree.ts";
import {
  assertEventLog,
  assertWellFormed,
  awaitingRun,
  CALL,
  type Effects,
  hookWrite,
  jitter,
  newEffects,
  outcomeOf,
  type Prng,
  prng,
  raceModel,
  raceTools,
  READ,
  resultsFor,
  Tally,
  tick,
  toolsSettled,
  withFileKvs,
  withMemoryKv,
  withRaceApp,
} from "./races_helpers.ts";

const TRIALS = 100;
const SEED = Number(Deno.env.get("REINS_RACE_SEED") ?? 0x5eed) >>> 0;
const STOP_REASON = "stopped in a race";
const POLL_MS = 2;

/** Two "processes": their KV handles (the same one in memory, two on one file). */
type Pair = { a: Deno.Kv; b: Deno.Kv; where: "memory" | "file" };

/** Runs `trial` TRIALS times: the first half on one in-memory handle, the rest on one file. */
async function trials(
  label: string,
  trial: (pair: Pair, r: Prng, i: number, tally: Tally) => Promise<void>,
): Promise<Tally> {
  const tally = new Tally(label);
  const r = prng(SEED ^ label.length * 0x9e3779b1);
  const half = TRIALS / 2;
  await withMemoryKv(async (kv) => {
    for (let i = 0; i < half; i++) await trial({ a: kv, b: kv, where: "memory" }, r, i, tally);
  });
  await withFileKvs(async (a, b) => {
    for (let i = half; i < TRIALS; i++) await trial({ a, b, where: "file" }, r, i, tally);
  });
  tally.print();
  assert.equal(tally.total, TRIALS);
  return tally;
}

/** Saves `state` through a store of its own (so neither racer "knows" it yet). */
async function seed(kv: Deno.Kv, state: RunState): Promise<RunState> {
  await new KvRunStore(kv).save(state);
  return state;
}

/** Only a clear error may tell a racer it lost. */
function assertClearLoss(r: PromiseSettledResult<unknown>, what: string): void {
  if (r.status === "fulfilled") return;
  assert.ok(
    r.reason instanceof RunConflictError || r.reason instanceof RunStateError,
    `${what}: lost with ${r.reason}`,
  );
}

/** Invariants of a run after a Stop raced it (run record, transcript, events, tools, model). */
async function assertAfterStop(
  kv: Deno.Kv,
  final: RunState,
  effects: Effects,
  billed: number,
  turnsBefore: number,
): Promise<void> {
  assertWellFormed(final);
  assert.ok(
    final.status === "completed" || final.status === "interrupted",
    `unexpected status ${final.status}`,
  );
  if (final.status === "interrupted") {
    assert.deepEqual(final.interruption, { type: "cancelled", reason: STOP_REASON });
  } else assert.equal(final.output, "done");
  // Every reply the model gave was recorded (none billed and lost), and no tool began after the Stop was seen.
  assert.equal(final.turns - turnsBefore, billed, "model replies vs recorded turns");
  assert.equal(effects.startedAborted, 0, "a tool started after its run saw the Stop");
  const store = new KvRunStore(kv);
  const events = await store.events(final.runId);
  const stopped = assertEventLog(events, final);
  assert.equal(stopped.status, final.status);
  // A tool the event log says finished has its result in the transcript (none is thrown away).
  for (const { event } of events) {
    if (event.type !== "tool_result") continue;
    assert.equal(
      resultsFor(final, event.callId).length,
      1,
      `${event.callId}: logged, not recorded`,
    );
  }
  // Nothing happens after run_stopped, even from a tool that ignored the Stop.
  await toolsSettled(effects);
  await tick(3);
  assert.equal((await store.events(final.runId)).length, events.length, "events after run_stopped");
}

Deno.test("race: concurrent resume — one executor runs it, the other gets a clear error, no fork", async () => {
  await trials("concurrent resume", async ({ a, b, where }, r, _i, tally) => {
    const start = newRun("Read the note.", { model: "race" });
    if (r.chance(0.5)) { // as a Stop left it, else as a crash left it (still "running")
      start.status = "interrupted";
      start.interruption = { type: "cancelled", reason: "earlier stop" };
    }
    await seed(a, start);
    const id = start.runId;
    const model = raceModel({ tool: READ, args: {}, delayMs: r.int(3) });
    const effects = newEffects();
    const tools = raceTools(effects);
    const storeA = new KvRunStore(a);
    const storeB = new KvRunStore(b);
    // By id (the CLI's and the server's way), or each racer with the copy it loaded (library use).
    const stale = r.chance(0.3);
    const inputA = stale ? await storeA.load(id) : id;
    const inputB = stale ? await storeB.load(id) : id;
    const results = await Promise.allSettled([
      jitter(r).then(() => executeRun(storeA, inputA, { model, tools })),
      jitter(r).then(() => executeRun(storeB, inputB, { model, tools })),
    ]);
    const won = results.filter((x) => x.status === "fulfilled");
    assert.equal(won.length, 1, `exactly one executes: ${results.map(outcomeOf)}`);
    results.forEach((x, k) => assertClearLoss(x, `racer ${k}`));
    const loser = results.find((x) => x.status === "rejected")!;
    tally.add(
      `${where}, ${stale ? "stale copies" : "by id"}: ${
        results[0] === won[0] ? "A ran" : "B ran"
      }, loser ${outcomeOf(loser)}`,
    );

    const final = await new KvRunStore(a).load(id);
    assert.equal(final.status, "completed");
    assert.deepEqual(final.messages.map((m) => m.role), ["user", "assistant", "tool", "assistant"]);
    assertWellFormed(final);
    assert.equal(final.turns, 2);
    assert.equal(model.answered, 2, "a model turn billed twice (or billed and thrown away)");
    assert.equal(effects.reads, 1, "the tool ran twice");
    assert.deepEqual(await readStop(a, id), null);
    const events = await new KvRunStore(b).events(id);
    assertEventLog(events, final);
    assert.equal(events.filter((e) => e.event.type === "turn").length, 2);
    assert.equal(events.filter((e) => e.event.type === "tool_start").length, 1);
    assert.equal(await new KvRunStore(a).leaseHolder(id), null, "lease left behind");
  });
});

Deno.test("race: approve vs reject — exactly one verdict lands and the record says which", async () => {
  await trials("approve vs reject", async ({ a, b, where }, r, _i, tally) => {
    const { runId: id } = await seed(a, awaitingRun());
    // Jitter up to 10 turns: sometimes they overlap, sometimes one comes after the other.
    const results = await Promise.allSettled([
      jitter(r, 10).then(() => approveInTree(new KvRunStore(a), id, CALL)),
      jitter(r, 10).then(() => rejectInTree(new KvRunStore(b), id, CALL, "not today")),
    ]);
    const [approval, rejection] = results;
    assert.equal(
      results.filter((x) => x.status === "fulfilled").length,
      1,
      `exactly one verdict lands: ${results.map(outcomeOf)}`,
    );
    assertClearLoss(approval, "approve");
    assertClearLoss(rejection, "reject");
    const approvedWon = approval.status === "fulfilled";
    tally.add(
      `${where}: ${approvedWon ? "approve won, reject" : "reject won, approve"} ${
        outcomeOf(approvedWon ? rejection : approval)
      }`,
    );

    const held = await new KvRunStore(b).load(id);
    const approved = held.approved.includes(CALL);
    const rejected = held.rejected.some((x) => x.callId === CALL);
    assert.ok(approved !== rejected, `approved ${approved} XOR rejected ${rejected}`);
    assert.equal(approved, approvedWon, "the record names the winner");
    assert.equal(held.approved.length + held.rejected.length, 1);
    assert.equal(resultsFor(held).length, approvedWon ? 0 : 1);

    // Resumed, the winner's verdict is what happens: one result for the call, one write at most.
    const effects = newEffects();
    const model = raceModel();
    const done = await executeRun(new KvRunStore(a), id, { model, tools: raceTools(effects) });
    assert.equal(done.status, "completed");
    assertWellFormed(done);
    const results1 = resultsFor(done);
    assert.equal(results1.length, 1, "exactly one result for the call");
    assert.equal(effects.writes, approvedWon ? 1 : 0);
    if (approvedWon) assert.equal(results1[0], "written");
    else assert.match(results1[0], /declined this write_note call: not today/);
    assert.deepEqual(done.approved, []); // spent by the write
    assert.equal(model.answered, 1);
  });
});

Deno.test("race: Stop vs approve — the run is stopped or completes after the approve, never both", async () => {
  await trials("stop vs approve", async ({ a, b, where }, r, _i, tally) => {
    const { runId: id } = await seed(a, awaitingRun());
    const effects = newEffects();
    const model = raceModel({ delayMs: r.int(3) });
    const tools = raceTools(effects, { writeMs: r.int(4) });
    let execStart = Infinity;
    let stopDone = Infinity;
    const results = await Promise.allSettled([
      (async () => {
        await jitter(r);
        const store = new KvRunStore(a);
        await approveInTree(store, id, CALL);
        execStart = performance.now();
        return await executeTree(store, a, id, { model, tools, pollMs: POLL_MS });
      })(),
      (async () => {
        await jitter(r, 12);
        await requestStop(b, id, STOP_REASON);
        stopDone = performance.now();
      })(),
    ]);
    assert.deepEqual(results.map(outcomeOf), ["ok", "ok"]);
    const final = (results[0] as PromiseFulfilledResult<RunState>).value;
    assert.deepEqual(await new KvRunStore(b).load(id), final);
    await assertAfterStop(a, final, effects, model.answered, 1);
    const results1 = resultsFor(final);
    let outcome: string;
    if (final.status === "completed") {
      outcome = "completed (Stop came after)";
      assert.equal(effects.writes, 1);
      assert.deepEqual(results1, ["written"]);
      assert.ok(!(stopDone < execStart), "completed although the Stop was recorded before it ran");
    } else if (effects.writes === 0) {
      outcome = "cancelled before the write";
      assert.deepEqual(results1, []);
      // The approval stands (unspent, or spent with the intent and the call known in flight).
      assert.ok(final.approved.includes(CALL) || final.inFlight.includes(CALL));
    } else {
      outcome = final.inFlight.includes(CALL)
        ? "cancelled mid-write (effect uncertain, call in flight)"
        : "cancelled after the write";
      assert.equal(effects.writes, 1);
      assert.ok(!(stopDone < execStart), "wrote although the Stop was recorded before it ran");
    }
    if (stopDone < execStart) {
      assert.equal(final.status, "interrupted", "a Stop recorded first must win");
      assert.equal(final.turns, 1, "no model call after a Stop recorded first");
    }
    tally.add(`${where}: ${outcome}`);
  });
});

Deno.test("race: Stop vs completion — one final status, matching one final run_stopped", async () => {
  await trials("stop vs completion", async ({ a, b, where }, r, _i, tally) => {
    const { runId: id } = await seed(a, newRun("Read the note.", { model: "race" }));
    const effects = newEffects();
    const model = raceModel({ tool: READ, args: {}, delayMs: r.int(3) });
    const stubborn = r.chance(0.3);
    const tools = raceTools(effects, { readMs: r.int(4), stubbornRead: stubborn });
    let execStart = Infinity;
    let stopDone = Infinity;
    const results = await Promise.allSettled([
      (async () => {
        await jitter(r, 2);
        execStart = performance.now();
        return await executeTree(new KvRunStore(a), a, id, { model, tools, pollMs: POLL_MS });
      })(),
      (async () => {
        await tick(r.int(14));
        await requestStop(b, id, STOP_REASON);
        stopDone = performance.now();
      })(),
    ]);
    assert.deepEqual(results.map(outcomeOf), ["ok", "ok"]);
    const final = (results[0] as PromiseFulfilledResult<RunState>).value;
    assert.deepEqual(await new KvRunStore(b).load(id), final);
    await assertAfterStop(a, final, effects, model.answered, 0);
    let outcome: string;
    if (final.status === "completed") {
      outcome = "completed";
      assert.equal(final.turns, 2);
      assert.ok(!(stopDone < execStart));
    } else {
      const where = final.turns === 0
        ? model.aborted ? "during the first model call" : "before the first model call"
        : final.turns === 1
        ? resultsFor(final, CALL).length ? "after the tool" : "during the tool"
        : "during the answer";
      outcome = `cancelled ${where}`;
    }
    if (stopDone < execStart) assert.equal(final.turns, 0, "ran although stopped first");
    tally.add(`${where}${stubborn ? ", stubborn tool" : ""}: ${outcome}`);
  });
});

Deno.test("race (HTTP): approve vs reject of one awaited call — 202 for one, 409 for the other", async () => {
  const tally = new Tally("HTTP approve vs reject");
  const r = prng(SEED + 1);
  await withRaceApp({}, async (s) => {
    for (let i = 0; i < TRIALS; i++) {
      const st = awaitingRun({ toolName: "delete_file", args: { path: "notes.txt" } });
      await seed(s.kv, st);
      const [approval, rejection] = await Promise.all([
        jitter(r, 10).then(() => s.call("POST", `/runs/${st.runId}/approve`, { callId: CALL })),
        jitter(r, 10).then(() =>
          s.call("POST", `/runs/${st.runId}/reject`, { callId: CALL, reason: "keep it" })
        ),
      ]);
      const statuses = [approval.status, rejection.status].sort();
      assert.deepEqual(statuses, [202, 409], JSON.stringify([approval.body, rejection.body]));
      const loser = approval.status === 409 ? approval : rejection;
      assert.match(loser.body.error.code, /^run_(conflict|state)$/);
      const approvedWon = approval.status === 202;
      tally.add(`${approvedWon ? "approve" : "reject"} won, loser ${loser.body.error.code}`);
      await s.executor.idle();
      const final = await new KvRunStore(s.kv).load(st.runId);
      assert.equal(final.status, "completed");
      assertWellFormed(final);
      const results = resultsFor(final);
      assert.equal(results.length, 1, "exactly one result for the call");
      assert.equal(await s.effects(st.runId), approvedWon ? 1 : 0);
      assert.equal(final.rejected.length, approvedWon ? 0 : 1);
      assert.match(results[0], approvedWon ? /^deleted notes\.txt$/ : /declined .*keep it/);
    }
  });
  tally.print();
});

Deno.test("race (HTTP): Stop vs approve — an acknowledged Stop is never lifted by a concurrent approve", async () => {
  const tally = new Tally("HTTP stop vs approve");
  const r = prng(SEED + 2);
  await withRaceApp({}, async (s) => {
    for (let i = 0; i < TRIALS; i++) {
      const st = awaitingRun({ toolName: "delete_file", args: { path: "notes.txt" } });
      await seed(s.kv, st);
      const t = { approveDone: Infinity, stopSent: -Infinity };
      const [approval, stop] = await Promise.all([
        jitter(r, 6).then(async () => {
          const res = await s.call("POST", `/runs/${st.runId}/approve`, { callId: CALL });
          t.approveDone = performance.now();
          return res;
        }),
        jitter(r, 12).then(() => {
          t.stopSent = performance.now();
          return s.call("POST", `/runs/${st.runId}/stop`, { reason: STOP_REASON });
        }),
      ]);
      assert.equal(approval.status, 202);
      assert.equal(stop.status, 202);
      await s.executor.idle();
      const final = await new KvRunStore(s.kv).load(st.runId);
      assertWellFormed(final);
      const effects = await s.effects(st.runId);
      const stopKept = (await readStop(s.kv, st.runId)) !== null;
      const events = await s.store.events(st.runId);
      assertEventLog(events, final);
      let outcome: string;
      if (final.status === "completed") {
        assert.equal(effects, 1);
        outcome = stopKept ? "completed, then the Stop came" : "Stop lifted by the approve";
      } else {
        assert.equal(final.status, "interrupted");
        assert.deepEqual(final.interruption, { type: "cancelled", reason: STOP_REASON });
        assert.ok(stopKept, "the Stop that cancelled it is still recorded");
        outcome = effects ? "cancelled after the delete" : "cancelled before the delete";
        if (!effects) assert.ok(final.approved.includes(CALL) || final.inFlight.includes(CALL));
      }
      // A Stop sent after the approve answered must never be lifted by it.
      if (t.stopSent > t.approveDone) assert.ok(stopKept, "a later Stop was lifted");
      tally.add(outcome);
    }
  });
  tally.print();
});

Deno.test("regression: a Stop recorded while an approve is being applied is not lifted by it", async () => {
  let kv!: Deno.Kv;
  let id = "";
  let acknowledged = false;
  // The Stop lands exactly between the verdict's save and the root being marked running.
  const wrapKv = (real: Deno.Kv) => {
    kv = real;
    const marksRunning = (key: Deno.KvKey, value: unknown) =>
      key.length === 2 && key[0] === "run" && key[1] === id &&
      (decodeValue(value) as { status?: string })?.status === "running";
    return hookWrite(real, marksRunning, async () => {
      await requestStop(real, id, STOP_REASON);
      acknowledged = true;
    });
  };
  await withRaceApp({ wrapKv }, async (s) => {
    const st = awaitingRun({ toolName: "delete_file", args: { path: "notes.txt" } });
    id = st.runId;
    await seed(kv, st);
    const res = await s.call("POST", `/runs/${id}/approve`, { callId: CALL });
    assert.equal(res.status, 202);
    await s.executor.idle();
    assert.ok(acknowledged);
    const final = await new KvRunStore(kv).load(id);
    assert.equal(final.status, "interrupted");
    assert.deepEqual(final.interruption, { type: "cancelled", reason: STOP_REASON });
    assert.equal(await s.effects(id), 0, "the file was deleted despite the Stop");
    assert.ok(final.approved.includes(CALL), "the approval stands for a later resume");
    assert.notEqual(await readStop(kv, id), null);

    // Resuming on purpose lifts that Stop; the approved call runs once.
    assert.equal((await s.call("POST", `/runs/${id}/resume`)).status, 202);
    await s.executor.idle();
    const done = await new KvRunStore(kv).load(id);
    assert.equal(done.status, "completed");
    assert.equal(await s.effects(id), 1);
    assert.equal(await readStop(kv, id), null);
  });
});

Deno.test("regression: a second verdict on an already-decided call is refused (RunStateError)", async () => {
  await withMemoryKv(async (kv) => {
    for (
      const [first, second] of [["approve", "reject"], ["approve", "approve"], [
        "reject",
        "approve",
      ], ["reject", "reject"]] as const
    ) {
      const { runId: id } = await seed(kv, awaitingRun());
      const verdict = (v: "approve" | "reject") =>
        v === "approve"
          ? approveInTree(new KvRunStore(kv), id, CALL)
          : rejectInTree(new KvRunStore(kv), id, CALL);
      await verdict(first);
      const before = await new KvRunStore(kv).load(id);
      await assert.rejects(verdict(second), RunStateError, `${first} then ${second}`);
      assert.deepEqual(await new KvRunStore(kv).load(id), before);
      assert.equal(before.approved.length + before.rejected.length, 1);
    }
  });
});

Deno.test("regression: an executor handed a stale copy refuses before paying for a model call", async () => {
  await withMemoryKv(async (kv) => {
    const { runId: id } = await seed(kv, newRun("Read the note.", { model: "race" }));
    const stale = new KvRunStore(kv);
    const copy = await stale.load(id);
    const model = raceModel({ tool: READ, args: {} });
    const tools = raceTools(newEffects());
    await executeRun(new KvRunStore(kv), id, { model, tools });
    assert.equal(model.answered, 2);
    await assert.rejects(executeRun(stale, copy, { model, tools }), RunConflictError);
    assert.equal(model.answered, 2, "the stale executor asked the model");
    assert.equal(await stale.leaseHolder(id), null);
  });
});

Deno.test("regression: a tool that ignores the Stop adds no event after run_stopped", async () => {
  await withMemoryKv(async (kv) => {
    const { runId: id } = await seed(kv, newRun("Read the note.", { model: "race" }));
    const effects = newEffects();
    // Longer than TOOL_START_LIVE_MS, so its tool_start is stored while it runs.
    const tools = raceTools(effects, { stubbornRead: true, readMs: 400 });
    const store = new KvRunStore(kv);
    const running = executeTree(store, kv, id, {
      model: raceModel({ tool: READ, args: {} }),
      tools,
      pollMs: POLL_MS,
    });
    while (!(await store.events(id)).some((e) => e.event.type === "tool_start")) await tick(1);
    await requestStop(kv, id, STOP_REASON);
    const final = await running;
    assert.equal(final.status, "interrupted");
    await toolsSettled(effects);
    await tick(5);
    assert.equal(effects.reads, 1); // it did finish, after its run had stopped
    assertEventLog(await store.events(id), final);
  });
});

Deno.test("regression: a write that finished as the Stop arrived is recorded, not left uncertain", async () => {
  await withMemoryKv(async (kv) => {
    const { runId: id } = await seed(kv, awaitingRun());
    await approveInTree(new KvRunStore(kv), id, CALL);
    const effects = newEffects();
    const stop = new AbortController();
    // The Stop lands while the finished write's result is being traced.
    const trace = (e: { type: string }) => {
      if (e.type === "tool_result") stop.abort(STOP_REASON);
    };
    const cut = await executeRun(new KvRunStore(kv), id, {
      model: raceModel(),
      tools: raceTools(effects),
      signal: stop.signal,
      trace,
    });
    assert.equal(cut.status, "interrupted");
    assert.equal(effects.writes, 1);
    assert.deepEqual(resultsFor(cut), ["written"], "the known result was thrown away");
    assert.deepEqual(cut.inFlight, []);
    // Resumed, it goes on (no person asked about an "uncertain" write) and writes nothing again.
    const done = await executeRun(new KvRunStore(kv), id, {
      model: raceModel(),
      tools: raceTools(effects),
    });
    assert.equal(done.status, "completed");
    assert.equal(effects.writes, 1);
  });
});

Deno.test("KvRunStore: two instances that loaded one version — the second save conflicts, nothing lost", async () => {
  await withFileKvs(async (kvA, kvB) => {
    for (const [a, b] of [[kvA, kvA], [kvA, kvB]]) {
      const { runId: id } = await seed(a, awaitingRun());
      const one = new KvRunStore(a);
      const two = new KvRunStore(b);
      const [x, y] = [await one.load(id), await two.load(id)];
      x.stopReason = "first";
      y.stopReason = "second";
      await one.save(x);
      await assert.rejects(two.save(y), RunConflictError);
      assert.equal((await new KvRunStore(b).load(id)).stopReason, "first");
      // The loser reloads and then may write on top of the winner.
      const fresh = await two.load(id);
      fresh.stopReason = "second, after reloading";
      await two.save(fresh);
      assert.equal((await new KvRunStore(a).load(id)).stopReason, "second, after reloading");
    }
  });
});
