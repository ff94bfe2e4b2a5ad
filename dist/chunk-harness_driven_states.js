// harness/driven_states.ts
var driving = /* @__PURE__ */ new WeakSet();
var markDrivenByRun = (function markDrivenByRun(state, driven) {
  if (driven) driving.add(state);
  else driving.delete(state);
});
var isDrivenByRun = (function isDrivenByRun(state) {
  return driving.has(state);
});

export {
  markDrivenByRun,
  isDrivenByRun
};
