// One race of a promise against a Stop, for tools and for a caller's fetch
// (harness/race_signal.ts): the abort wins at once, a late value is handed
// over, and nothing stays listening on the signal.
import assert from "node:assert/strict";
import { raceSignal } from "../harness/race_signal.ts";

/** An AbortSignal that counts its abort listeners. */
function countedSignal(): { ac: AbortController; listening: () => number } {
  const ac = new AbortController();
  let n = 0;
  const add = ac.signal.addEventListener.bind(ac.signal);
  const remove = ac.signal.removeEventListener.bind(ac.signal);
  ac.signal.addEventListener = ((type: string, l: EventListener) => (n++, add(type, l))) as never;
  ac.signal.removeEventListener =
    ((type: string, l: EventListener) => (n--, remove(type, l))) as never;
  return { ac, listening: () => n };
}

Deno.test("raceSignal settles as its promise does and leaves no listener", async () => {
  const { ac, listening } = countedSignal();
  assert.equal(await raceSignal(Promise.resolve(7), ac.signal), 7);
  await assert.rejects(
    raceSignal(Promise.reject(new Error("tool broke")), ac.signal),
    /tool broke/,
  );
  assert.equal(listening(), 0);
});

Deno.test("raceSignal rejects with the reason at the abort; a late value goes to onLate", async () => {
  const { ac, listening } = countedSignal();
  let release!: (v: string) => void;
  const late: string[] = [];
  const raced = raceSignal(new Promise<string>((r) => release = r), ac.signal, (v) => late.push(v));
  ac.abort(new Error("Stop"));
  await assert.rejects(raced, /Stop/);
  assert.equal(listening(), 0);
  release("body");
  await Promise.resolve();
  assert.deepStrictEqual(late, ["body"]);
});

Deno.test("raceSignal on a signal aborted already rejects at once", async () => {
  const ac = new AbortController();
  ac.abort(new Error("stopped before"));
  await assert.rejects(raceSignal(new Promise(() => {}), ac.signal), /stopped before/);
});
