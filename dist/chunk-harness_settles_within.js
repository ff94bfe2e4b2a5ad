import {
  sleep
} from "./chunk-harness_errors.js";

// harness/settles_within.ts
async function settlesWithin(p, ms) {
  const timer = new AbortController();
  const late = sleep(ms, timer.signal).then(() => false, () => false);
  try {
    return await Promise.race([
      Promise.resolve(p).then(() => true),
      late
    ]);
  } finally {
    timer.abort();
  }
}

export {
  settlesWithin
};
