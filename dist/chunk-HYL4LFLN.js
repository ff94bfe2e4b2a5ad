import {
  __name
} from "./chunk-OSOEW62Q.js";

// harness/sleep.ts
function sleep(ms, signal) {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = /* @__PURE__ */ __name(() => {
      clearTimeout(timer);
      reject(signal.reason);
    }, "onAbort");
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener("abort", onAbort, {
      once: true
    });
  });
}
__name(sleep, "sleep");
function raced(p, signal) {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = /* @__PURE__ */ __name(() => reject(signal.reason), "onAbort");
    signal.addEventListener("abort", onAbort, {
      once: true
    });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
__name(raced, "raced");

export {
  sleep,
  raced
};
