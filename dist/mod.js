// @ts-self-types="../mod.ts"
import {
  jsonlSink,
  memorySink
} from "./chunk-HH6XPTGR.js";
import {
  approve,
  defineAgent,
  followUp,
  hasToolCall,
  isBudgetSpent,
  isStepCount,
  reject,
  run
} from "./chunk-3MK63NMH.js";
import {
  defineTool
} from "./chunk-BTFBEYKY.js";
import "./chunk-WQU7Y35Y.js";
import {
  DEFAULT_LIMITS,
  newRun
} from "./chunk-VR6MMKNT.js";
import {
  createOpenAIModel
} from "./chunk-66TY2CTK.js";
import "./chunk-4GB4C2DK.js";
import {
  SUMMARY_PROMPT
} from "./chunk-7G4NOGG5.js";
import "./chunk-PLNGLDD7.js";
import "./chunk-V35EBTLI.js";
import "./chunk-UPPPGWUO.js";
import "./chunk-KDAN4KL7.js";
import {
  ModelError,
  PermanentToolError,
  ReinsError,
  RunNotFoundError,
  RunStateError
} from "./chunk-ISIFESS6.js";
import "./chunk-O3LUTIO5.js";
import "./chunk-SC5ASBGQ.js";

// harness/run_store.ts
var MemoryRunStore = class {
  #runs = /* @__PURE__ */ new Map();
  /** How many times `save` was called (for tests). */
  saves = 0;
  /** Stores a deep copy. */
  save(state) {
    this.saves++;
    this.#runs.set(state.runId, structuredClone(state));
    return Promise.resolve();
  }
  /** Returns a deep copy. */
  load(runId) {
    const s = this.#runs.get(runId);
    if (!s) return Promise.reject(new RunNotFoundError(runId));
    return Promise.resolve(structuredClone(s));
  }
  /** Every stored run. */
  list() {
    return [
      ...this.#runs.values()
    ].map((s) => structuredClone(s));
  }
};
export {
  DEFAULT_LIMITS,
  MemoryRunStore,
  ModelError,
  PermanentToolError,
  ReinsError,
  RunStateError,
  SUMMARY_PROMPT,
  approve,
  createOpenAIModel,
  defineAgent,
  defineTool,
  followUp,
  hasToolCall,
  isBudgetSpent,
  isStepCount,
  jsonlSink,
  memorySink,
  newRun,
  reject,
  run
};
