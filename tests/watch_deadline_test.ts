// One timeout signal watches every pending deadline (harness/watch_deadline.ts).
import assert from "node:assert/strict";
import { sleep } from "../harness/sleep.ts";
import { watchDeadline } from "../harness/watch_deadline.ts";

const expired = (ms: number) => {
  let forget = () => {};
  const done = new Promise<number>((resolve) => {
    const t0 = performance.now();
    forget = watchDeadline(ms, () => resolve(performance.now() - t0));
  });
  return { done, forget };
};

Deno.test("a deadline expires once its time has passed, not before", async () => {
  const waited = await expired(30).done;
  assert.ok(waited >= 29, `expired after ${waited} ms`);
});

Deno.test("a forgotten deadline never expires; the others still do", async () => {
  let called = 0;
  const forget = watchDeadline(10, () => called++);
  forget();
  forget(); // harmless
  await expired(40).done;
  assert.equal(called, 0);
});

Deno.test("an earlier deadline watched after a later one expires first", async () => {
  const order: string[] = [];
  const late = watchDeadline(60_000, () => order.push("late"));
  const soon = expired(10);
  const sooner = expired(5);
  await Promise.all([soon.done, sooner.done].map((p, i) => p.then(() => order.push(`${i}`))));
  assert.deepEqual(order, ["1", "0"]);
  late();
});

Deno.test("deadlines expire again after the timer ran out with none pending", async () => {
  watchDeadline(5, () => {})();
  await sleep(30); // the 5 ms timer runs out unheard: nothing is pending, nothing re-arms it
  const waited = await expired(10).done; // must arm a new timer, not wait on the spent one
  assert.ok(waited >= 9, `expired after ${waited} ms`);
});

Deno.test("a forgotten deadline does not keep the process alive", async () => {
  const code = `
    import { watchDeadline } from ${
    JSON.stringify(new URL("../harness/watch_deadline.ts", import.meta.url).href)
  };
    const forget = watchDeadline(600_000, () => console.log("expired"));
    await new Promise<void>((done) => watchDeadline(5, done));
    forget();
    console.log("done");
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", code],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Ten minutes pending: a child still alive after 20 s is held by the forgotten deadline.
  const t = setTimeout(() => child.kill(), 20_000);
  const out = await child.output();
  clearTimeout(t);
  assert.equal(new TextDecoder().decode(out.stdout).trim(), "done");
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
});
