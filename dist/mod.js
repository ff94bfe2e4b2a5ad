// @ts-self-types="../mod.ts"
import {
  jsonlSink,
  memorySink
} from "./chunk-2LGH6LS5.js";
import {
  approve,
  defineAgent,
  followUp,
  hasToolCall,
  isBudgetSpent,
  isStepCount,
  reject,
  run
} from "./chunk-CX4HGGMU.js";
import {
  defineTool
} from "./chunk-II5LUMME.js";
import "./chunk-CT6FU4E4.js";
import {
  DEFAULT_LIMITS,
  newRun
} from "./chunk-DP3QUJMC.js";
import {
  createOpenAIModel
} from "./chunk-7C45D6AL.js";
import "./chunk-BJGHO7P5.js";
import {
  SUMMARY_PROMPT
} from "./chunk-AOQWFOCM.js";
import "./chunk-SJAJQEIF.js";
import "./chunk-DSOFEU5A.js";
import "./chunk-VHWLCFOY.js";
import "./chunk-HYL4LFLN.js";
import {
  ModelError,
  PermanentToolError,
  ReinsError,
  RunNotFoundError,
  RunStateError
} from "./chunk-LVT2ZGFI.js";
import "./chunk-IYXQD7XI.js";
import {
  __name
} from "./chunk-OSOEW62Q.js";

// harness/run_store.ts
var MemoryRunStore = class {
  static {
    __name(this, "MemoryRunStore");
  }
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
