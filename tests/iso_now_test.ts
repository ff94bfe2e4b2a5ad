// Time stamps written out in JS (harness/iso_now.ts) agree with Date's own toISOString.
import assert from "node:assert/strict";
import { isoNow, isoTime } from "../harness/iso_now.ts";

const DAY = 86_400_000;

Deno.test("isoTime matches toISOString on month, leap-day and century edges", () => {
  const edges = [
    0,
    1,
    DAY - 1,
    Date.UTC(1972, 1, 29, 12, 30, 45, 678), // a leap day
    Date.UTC(2000, 1, 29), // a 400-year leap day
    Date.UTC(2000, 2, 1) - 1,
    Date.UTC(2100, 1, 28, 23, 59, 59, 999), // 2100 is not a leap year
    Date.UTC(2100, 2, 1),
    Date.UTC(1999, 11, 31, 23, 59, 59, 999),
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
  ];
  for (const ms of edges) assert.equal(isoTime(ms), new Date(ms).toISOString(), `at ${ms}`);
});

Deno.test("isoTime matches toISOString at every day of 1970-2400 and at random instants", () => {
  for (let day = 0; day < 157_000; day++) {
    const ms = day * DAY + ((day * 7_919_311) % DAY);
    assert.equal(isoTime(ms), new Date(ms).toISOString());
  }
  for (let i = 0; i < 100_000; i++) {
    const ms = Math.floor(Math.random() * 253_402_300_800_000);
    assert.equal(isoTime(ms), new Date(ms).toISOString(), `at ${ms}`);
  }
});

Deno.test("isoTime leaves years before 1970 and after 9999 to toISOString", () => {
  for (const ms of [-1, -DAY * 400, 253_402_300_800_000, 8.64e15]) {
    assert.equal(isoTime(ms), new Date(ms).toISOString());
  }
  assert.throws(() => isoTime(NaN), RangeError); // as toISOString does
});

Deno.test("isoNow is now, in the ISO format", () => {
  const before = Date.now();
  const now = isoNow();
  const after = Date.now();
  assert.match(now, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const ms = Date.parse(now);
  assert.ok(before <= ms && ms <= after, `${now} is not between ${before} and ${after}`);
});
