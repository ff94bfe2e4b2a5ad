import {
  __name
} from "./chunk-OSOEW62Q.js";

// harness/driven_states.ts
var driving = /* @__PURE__ */ new WeakSet();
function markDrivenByRun(state, driven) {
  if (driven) driving.add(state);
  else driving.delete(state);
}
__name(markDrivenByRun, "markDrivenByRun");
function isDrivenByRun(state) {
  return driving.has(state);
}
__name(isDrivenByRun, "isDrivenByRun");

export {
  markDrivenByRun,
  isDrivenByRun
};
