// The few assertions these tests use (the app depends on reins and zod only).
export function assert(cond: unknown, msg = "assertion failed"): asserts cond {
  if (!cond) throw new Error(msg);
}
export function assertEquals(actual: unknown, expected: unknown): void {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== e) throw new Error(`expected ${e}\n     got ${a}`);
}
export function assertMatch(actual: string, re: RegExp): void {
  if (!re.test(actual)) {
    throw new Error(`expected ${JSON.stringify(actual)} to match ${re}`);
  }
}
