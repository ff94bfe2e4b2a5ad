import {
  openTelemetry
} from "./chunk-otel_message_content.js";
import {
  KvRunStore,
  RecordError,
  decodeValue,
  encodeValue,
  localHostname,
  retryLocked,
  stopEpochKey,
  stopKey
} from "./chunk-kv_record_error.js";
import {
  approveInTree,
  describeAgent,
  hashOf,
  loadRoot,
  loadTree,
  rejectInTree,
  toolTable
} from "./chunk-subagents_tree.js";
import {
  RESUMABLE_STATUSES,
  agentOptionsSchema,
  agentRunOptions,
  checkLimits,
  combineSinks,
  createOpenAIModel,
  followUp,
  isAgent,
  isoNow,
  pending,
  priceTableSchema,
  pricesSchema,
  run,
  runLimitsSchema,
  treeSettled,
  unjudgedAnswer
} from "./chunk-harness_limits.js";
import {
  MAX_TIMER_MS,
  ReinsError,
  RunConflictError,
  RunNotFoundError,
  RunStateError
} from "./chunk-harness_errors.js";

// runtime/execute_run.ts
var telemetry;
var active = /* @__PURE__ */ new Set();
async function claim(store, id, owner, leased) {
  const local = `${owner}\0${id}`;
  if (active.has(local)) throw new RunConflictError(id, `run is being executed by ${owner}`);
  active.add(local);
  if (leased) return local;
  try {
    if (!await store.acquireLease(id, owner)) {
      const holder = (await store.leaseHolder(id))?.owner ?? "another owner";
      throw new RunConflictError(id, `run is being executed by ${holder}`);
    }
  } catch (e) {
    active.delete(local);
    throw e;
  }
  return local;
}
function renewWhileRunning(store, id, owner, lost) {
  const stop = store.keepLease(id, () => {
    if (!lost.signal.aborted) lost.abort(`lease on run "${id}" was lost`);
  }, owner);
  return {
    stop
  };
}
async function stateUnderLease(store, id, given, claim2, leased) {
  if (typeof given === "string") return await store.load(id);
  if (leased || await store.isCurrent(id)) return given;
  if (claim2) return await store.load(id);
  throw new RunConflictError(id, "it changed since this store loaded it");
}
async function executeRun(store, runIdOrState, options) {
  const id = typeof runIdOrState === "string" ? runIdOrState : runIdOrState?.runId;
  if (typeof id !== "string" || id === "") {
    throw new TypeError("executeRun(store, runIdOrState): expected a run id or a RunState");
  }
  const { owner = store.owner, onlyIfRunning, leased, settle, mapTrace, ...runOptions } = options;
  if (leased && typeof runIdOrState === "string") {
    throw new TypeError(`executeRun("${id}", { leased }): leased needs the state just saved`);
  }
  const local = await claim(store, id, owner, leased);
  const lost = new AbortController();
  const renewal = renewWhileRunning(store, id, owner, lost);
  const exitRelease = store.releaseLeaseOnExit(id, owner);
  try {
    const state = await stateUnderLease(store, id, runIdOrState, onlyIfRunning, leased);
    if (onlyIfRunning && state.status !== "running") {
      throw new RunStateError(id, state.status, "execute");
    }
    const signal = options.signal ? AbortSignal.any([
      options.signal,
      lost.signal
    ]) : lost.signal;
    const trace = combineSinks(options.trace, store.traceSink());
    const done = await run(state, {
      ...runOptions,
      signal,
      store,
      trace: mapTrace ? mapTrace(trace) : trace,
      observe: runOptions.observe ?? (telemetry ??= openTelemetry())
    });
    return settle ? await settle(done) : done;
  } finally {
    await Promise.all([
      renewal.stop(),
      store.flushEvents(id).catch(() => {
      })
    ]);
    active.delete(local);
    if (!exitRelease()) await store.releaseLease(id, owner).catch(() => false);
  }
}
async function startRun(store, state, options) {
  await store.save(state);
  return await executeRun(store, state, options);
}

// kv/stop_record.ts
function asRequest(stored) {
  const v = decodeValue(stored);
  return v && typeof v.reason === "string" ? v : null;
}
async function writeStop(kv, request) {
  const key = stopKey(request.rootId);
  let seen = null;
  for (; ; ) {
    const written = await retryLocked(() => kv.atomic().check({
      key,
      versionstamp: seen
    }).set(key, encodeValue(request)).sum(stopEpochKey(), 1n).commit());
    if (written.ok) return request;
    const entry = await kv.get(key, {
      consistency: "strong"
    });
    const recorded = asRequest(entry.value);
    if (recorded) return recorded;
    seen = entry.versionstamp;
  }
}
async function readStops(kv, rootIds) {
  const out = /* @__PURE__ */ new Map();
  const reads = [];
  for (let i = 0; i < rootIds.length; i += 10) {
    const ids = rootIds.slice(i, i + 10);
    reads.push(kv.getMany(ids.map(stopKey), {
      consistency: "strong"
    }).then((entries) => ids.forEach((id, j) => {
      const request = asRequest(entries[j]?.value);
      if (request) out.set(id, request);
    })));
  }
  await Promise.all(reads);
  return out;
}
async function stopEpoch(kv) {
  return (await kv.get(stopEpochKey(), {
    consistency: "strong"
  })).versionstamp;
}
async function readStop(kv, rootId) {
  return asRequest((await kv.get(stopKey(rootId), {
    consistency: "strong"
  })).value);
}
async function stopVersion(kv, rootId) {
  return (await kv.get(stopKey(rootId), {
    consistency: "strong"
  })).versionstamp;
}
async function clearStop(kv, rootId, seen) {
  const key = stopKey(rootId);
  if (seen === void 0) {
    const had = (await kv.get(key, {
      consistency: "strong"
    })).versionstamp !== null;
    await kv.delete(key);
    return had;
  }
  if (seen === null) return false;
  return (await kv.atomic().check({
    key,
    versionstamp: seen
  }).delete(key).commit()).ok;
}
function watchStopEpoch(kv) {
  return kv.watch([
    stopEpochKey()
  ]).pipeThrough(new TransformStream({
    transform: (entries, out) => out.enqueue(entries[0].versionstamp)
  }));
}

// runtime/stop_watcher.ts
var SWEEP_POLLS = 20;
var watchers = /* @__PURE__ */ new WeakMap();
function onTreeStop(kv, rootId, pollMs, onStop) {
  let byPoll = watchers.get(kv);
  if (!byPoll) watchers.set(kv, byPoll = /* @__PURE__ */ new Map());
  let watcher = byPoll.get(pollMs);
  if (!watcher) {
    const created = new StopWatcher(kv, pollMs, () => {
      if (byPoll.get(pollMs) === created) byPoll.delete(pollMs);
    });
    byPoll.set(pollMs, watcher = created);
  }
  return watcher.add(rootId, onStop);
}
var announced = /* @__PURE__ */ new WeakMap();
function announceStop(kv, request) {
  let byRoot = announced.get(kv);
  if (!byRoot) announced.set(kv, byRoot = /* @__PURE__ */ new Map());
  const first = byRoot.get(request.rootId);
  if (first) return first;
  byRoot.set(request.rootId, request);
  for (const watcher of watchers.get(kv)?.values() ?? []) watcher.fire(request);
  return request;
}
function forgetAnnounced(kv, request) {
  const byRoot = announced.get(kv);
  if (byRoot?.get(request.rootId) === request) byRoot.delete(request.rootId);
}
var StopWatcher = class {
  kv;
  onEmpty;
  #roots;
  #epoch;
  #polls;
  #checking;
  #again;
  #timer;
  #reader;
  #watching;
  #closed;
  constructor(kv, pollMs, onEmpty) {
    this.kv = kv;
    this.onEmpty = onEmpty;
    this.#roots = /* @__PURE__ */ new Map();
    this.#epoch = void 0;
    this.#polls = 0;
    this.#checking = Promise.resolve();
    this.#again = false;
    this.#closed = false;
    const reader = this.#reader = watchStopEpoch(kv).getReader();
    this.#watching = (async () => {
      try {
        for (; ; ) {
          const { value, done } = await reader.read();
          if (done) return;
          this.#sawEpoch(value);
        }
      } catch {
      }
    })();
    this.#timer = setInterval(() => this.#poll(), pollMs);
  }
  add(rootId, onStop) {
    let set = this.#roots.get(rootId);
    if (!set) this.#roots.set(rootId, set = /* @__PURE__ */ new Set());
    let fired = false;
    const once = (request) => {
      if (fired) return;
      fired = true;
      onStop(request);
    };
    set.add(once);
    this.#check([
      rootId
    ]);
    return async () => {
      set.delete(once);
      if (!set.size && this.#roots.get(rootId) === set) this.#roots.delete(rootId);
      if (this.#roots.size || this.#closed) return await this.#checking;
      this.#closed = true;
      this.onEmpty();
      clearInterval(this.#timer);
      await this.#reader.cancel().catch(() => {
      });
      await this.#watching;
      await this.#checking;
    };
  }
  /** Calls the watchers of tree `rootId` (by default `request`'s). */
  fire(request, rootId = request.rootId) {
    for (const onStop of [
      ...this.#roots.get(rootId) ?? []
    ]) onStop(request);
  }
  #poll() {
    if (this.#closed) return;
    if (++this.#polls % SWEEP_POLLS === 0) return this.#check(null);
    this.#checking = this.#checking.then(async () => {
      if (this.#closed) return;
      this.#sawEpoch(await stopEpoch(this.kv));
    }).catch(() => {
    });
  }
  #sawEpoch(epoch) {
    if (epoch === this.#epoch) return;
    this.#epoch = epoch;
    if (epoch !== null) this.#check(null);
  }
  /** Reads the Stops of `roots` (null: of every watched tree), one read at a time. */
  #check(roots) {
    if (roots === null) {
      if (this.#again) return;
      this.#again = true;
    }
    this.#checking = this.#checking.then(async () => {
      if (roots === null) this.#again = false;
      const ids = roots ?? [
        ...this.#roots.keys()
      ];
      if (this.#closed || !ids.length) return;
      for (const [id, request] of await readStops(this.kv, ids)) this.fire(request, id);
    }).catch(() => {
    });
  }
};

// runtime/stop_tree.ts
var DEFAULT_STOP_REASON = "stopped by a person";
async function requestStop(kv, id, reason = DEFAULT_STOP_REASON) {
  if (typeof reason !== "string" || !reason.trim()) {
    throw new TypeError("requestStop(kv, id, reason): reason must be a non-empty string");
  }
  const mine = [
    {
      rootId: id,
      reason,
      at: Date.now()
    }
  ];
  const first = announceStop(kv, mine[0]);
  try {
    const { rootId } = await new KvRunStore(kv).summary(id);
    if (rootId === id) return await writeStop(kv, first);
    mine.push({
      ...first,
      rootId
    });
    return await writeStop(kv, announceStop(kv, mine[1]));
  } finally {
    for (const request of mine) forgetAnnounced(kv, request);
  }
}
function watchStop(kv, rootId, controller, options = {}) {
  const pollMs = options.pollMs ?? 100;
  if (!(pollMs > 0)) throw new RangeError(`watchStop: pollMs must be positive, got ${pollMs}`);
  return onTreeStop(kv, rootId, pollMs, (request) => {
    if (!controller.signal.aborted) controller.abort(request.reason);
  });
}

// runtime/execute_tree.ts
async function executeTree(store, kv, idOrState, options) {
  const { pollMs, ...rest } = options;
  const { rootId } = typeof idOrState === "string" ? await store.summary(idOrState) : idOrState;
  const controller = new AbortController();
  const dispose = watchStop(kv, rootId, controller, {
    pollMs
  });
  try {
    const request = await readStop(kv, rootId);
    if (request) controller.abort(request.reason);
    const signal = options.signal ? AbortSignal.any([
      options.signal,
      controller.signal
    ]) : controller.signal;
    const settle = async (state) => {
      await treeSettled(rootId);
      return rest.settle ? await rest.settle(state) : state;
    };
    return await executeRun(store, idOrState, {
      ...rest,
      signal,
      settle
    });
  } finally {
    await treeSettled(rootId);
    await dispose();
  }
}

// runtime/holder_gone.ts
function granted(desc) {
  try {
    return Deno.permissions.querySync(desc).state === "granted";
  } catch {
    return false;
  }
}
function goneByProc(pid) {
  try {
    if (!Deno.statSync("/proc/self").isDirectory) return void 0;
  } catch {
    return void 0;
  }
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "Z" || state === "X";
  } catch (e) {
    return e instanceof Deno.errors.NotFound ? true : void 0;
  }
}
function goneByKill(pid) {
  if (Deno.build.os === "windows" || !granted({
    name: "run"
  })) return void 0;
  try {
    Deno.kill(pid, 0);
    return false;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return true;
    return e instanceof Deno.errors.PermissionDenied ? false : void 0;
  }
}
function holderGone(lease, host = localHostname()) {
  if (host === void 0 || lease.host !== host || lease.pid === void 0) return false;
  if (lease.pid === Deno.pid) return false;
  if (!Number.isInteger(lease.pid) || lease.pid <= 0) return false;
  return goneByProc(lease.pid) ?? goneByKill(lease.pid) ?? false;
}
async function liveLease(store, id, isGone = (l) => holderGone(l)) {
  const lease = await store.leaseHolder(id);
  if (!lease || lease.owner === store.owner || !isGone(lease)) return lease;
  await store.releaseLease(id, lease.owner);
  return await store.leaseHolder(id);
}

// runtime/continue_tree.ts
async function markRunning(store, id, change) {
  const state = await store.load(id);
  if (state.status === "running" && !change) return state;
  change?.(state);
  state.status = "running";
  state.interruption = null;
  state.stopReason = null;
  state.updatedAt = isoNow();
  await store.save(state);
  return state;
}
async function checkResumable(store, root) {
  if (!RESUMABLE_STATUSES.includes(root.status)) {
    throw new RunStateError(root.runId, root.status, "resume");
  }
  if (root.status === "running") {
    const lease = await liveLease(store, root.runId);
    if (lease) {
      throw new RunStateError(root.runId, root.status, "resume", `it is executing (${lease.owner})`);
    }
  }
  const i = root.interruption;
  if (root.status === "interrupted" && i?.type === "approval") {
    const holder = !i.runId || i.runId === root.runId ? root : await store.load(i.runId);
    const decided = holder.approved.includes(i.callId) || holder.rejected.some((r) => r.callId === i.callId);
    if (!decided) {
      throw new RunStateError(root.runId, root.status, "resume", `call "${i.callId}" of run "${holder.runId}" awaits a verdict: approve or reject it`);
    }
  }
}
async function continueTree(store, kv, id, verdict, options = {}) {
  const seen = await stopVersion(kv, (await store.summary(id)).rootId);
  let rootId;
  if (verdict.kind === "approve") {
    rootId = (await approveInTree(store, id, verdict.callId)).rootId;
  } else if (verdict.kind === "reject") {
    rootId = (await rejectInTree(store, id, verdict.callId, verdict.reason)).rootId;
  } else {
    const root2 = await loadRoot(store, id);
    await checkResumable(store, root2);
    rootId = root2.runId;
  }
  const { limits } = options;
  if (limits) checkLimits(limits);
  const root = await markRunning(store, rootId, limits ? (s) => void (s.limits = checkLimits(limits, s.limits)) : void 0);
  await clearStop(kv, rootId, seen);
  return root;
}

// runtime/executor.ts
import { join } from "node:path";

// runtime/run_settings.ts
import { z } from "zod";
var RUN_SETTINGS_VERSION = 1;
var storedSchema = z.strictObject({
  $schemaVersion: z.literal(RUN_SETTINGS_VERSION),
  agent: z.string(),
  fingerprint: z.string(),
  tools: z.record(z.string(), z.record(z.string(), z.string())),
  options: agentOptionsSchema()
});
var legacySchema = agentOptionsSchema().extend({
  researchDepth: z.int().min(0).optional(),
  researchWrites: z.boolean().optional(),
  prices: z.union([
    pricesSchema(),
    priceTableSchema()
  ]).optional(),
  limits: runLimitsSchema().partial().optional()
});
function parseStoredSettings(runId, value) {
  if (value === null || value === void 0) return null;
  const isStamp = typeof value === "object" && "$schemaVersion" in value;
  const result = (isStamp ? storedSchema : legacySchema).safeParse(value);
  if (!result.success) {
    const [issue] = result.error.issues;
    if (!issue) throw new RecordError(runId, "settings", result.error.message);
    throw new RecordError(runId, [
      "settings",
      ...issue.path.map(String)
    ].join("."), issue.message);
  }
  if ("$schemaVersion" in result.data) return result.data;
  const { budgetMode, dedupe, toolErrors, concurrency, stopOnPermanentError } = result.data;
  const legacy = {
    budgetMode,
    dedupe,
    toolErrors,
    concurrency,
    stopOnPermanentError
  };
  return {
    legacy: JSON.parse(JSON.stringify(legacy))
  };
}
async function loadRunSettings(store, id) {
  return parseStoredSettings(id, await store.settings(id));
}

// runtime/agent_check.ts
function stampOf(info, options) {
  return {
    $schemaVersion: RUN_SETTINGS_VERSION,
    agent: info.agent.name,
    fingerprint: info.description.fingerprint,
    tools: info.table,
    options
  };
}
async function agentPaths(store, root, rootAgent, nodes) {
  const paths = /* @__PURE__ */ new Map();
  for (const n of nodes) {
    const parent = n.parentId === null ? void 0 : paths.get(n.parentId);
    if (parent === void 0 || n.parentId === null) {
      paths.set(n.runId, rootAgent);
      continue;
    }
    let name = n.agent;
    if (name === void 0) {
      const callId = n.runId.slice(n.parentId.length + 1);
      const state = n.parentId === root.runId ? root : await store.load(n.parentId);
      const calls = state.messages.flatMap((m) => m.role === "assistant" ? m.tool_calls ?? [] : []);
      name = calls.find((c) => c.id === callId)?.function.name ?? "?";
    }
    paths.set(n.runId, `${parent}/${name}`);
  }
  return paths;
}
async function firstMismatch(store, root, rootAgent, then, now) {
  const nodes = await loadTree(store, root.runId);
  const paths = await agentPaths(store, root, rootAgent, nodes);
  for (const node of nodes) {
    if (node.status === "completed" || node.status === "failed") continue;
    const state = node.runId === root.runId ? root : await store.load(node.runId);
    const path = paths.get(node.runId) ?? rootAgent;
    for (const call of pending(state)) {
      const tool = call.function.name;
      const current = now[path]?.[tool];
      const before = then ? then[path]?.[tool] : current;
      if (current === before && (then !== void 0 || current !== void 0)) continue;
      const where = `pending call ${call.id} of run ${node.runId}`;
      if (current === void 0) return `its ${where} names tool "${tool}", which it no longer has`;
      if (before === void 0) return `its ${where} names tool "${tool}", which it did not have`;
      return `the parameters of tool "${tool}" changed (${where})`;
    }
  }
  return null;
}
async function outputMismatch(root, now) {
  if (now === null) return null;
  const then = root.outputSchema;
  if (then !== void 0 && await hashOf(then) === await hashOf(now)) return null;
  const answer = unjudgedAnswer(root);
  if (answer === null) return null;
  const what = then === void 0 ? "it has an output schema now" : "its output schema changed";
  return `${what} while ${answer} of run ${root.runId} awaited its check`;
}
async function checkRunAgent(store, root, registry, settings) {
  const agent = registry.forRun(root);
  if (!agent) return {
    kind: "unknown",
    agent: root.agent
  };
  const info = await registry.info(agent);
  const stored = settings === void 0 ? await loadRunSettings(store, root.runId) : parseStoredSettings(root.runId, settings);
  const stamp = stored && "fingerprint" in stored ? stored : void 0;
  const options = stamp?.options ?? (stored && "legacy" in stored ? stored.legacy : {});
  if (stamp?.agent === agent.name && stamp.fingerprint === info.description.fingerprint) {
    return {
      kind: "ready",
      agent,
      info,
      options
    };
  }
  const mismatch = await firstMismatch(store, root, agent.name, stamp?.tools, info.table) ?? await outputMismatch(root, info.description.output);
  if (mismatch) {
    const was = stamp ? ` since run ${root.runId} started (${stamp.fingerprint})` : "";
    return {
      kind: "refused",
      reason: `agent "${agent.name}" changed${was} and ${mismatch}`
    };
  }
  await store.saveSettings(root.runId, stampOf(info, options));
  return {
    kind: "ready",
    agent,
    info,
    options
  };
}
async function failRun(store, id, reason) {
  if (!await store.acquireLease(id, store.owner)) return false;
  try {
    const state = await store.load(id);
    if (state.status !== "running") return false;
    state.status = "failed";
    state.interruption = null;
    state.stopReason = reason;
    state.error = reason;
    state.updatedAt = isoNow();
    await store.traceSink()({
      type: "run_stopped",
      runId: id,
      at: state.updatedAt,
      status: "failed",
      reason,
      interruption: null,
      turns: state.turns,
      costUsd: state.costUsd
    });
    await store.save(state);
    return true;
  } finally {
    await store.releaseLease(id, store.owner).catch(() => false);
  }
}

// runtime/hand_over.ts
function handOverTrace(sink, options) {
  return async (event) => {
    if (event.type !== "run_stopped" || !await options.isHandOver(event)) return sink(event);
    const { runId, at, turns, costUsd, interruption: i } = event;
    const reason = i?.type === "cancelled" ? i.reason : event.reason;
    return sink({
      type: "run_handed_over",
      runId,
      at,
      reason,
      by: options.by,
      turns,
      costUsd
    });
  };
}

// runtime/executor.ts
var EVICTION_REASON = "the process executing the run stopped (the run resumes elsewhere)";
var SHUTDOWN_REASON = "the server shut down (the run resumes when it restarts)";
function failingModel(name, error) {
  return {
    name,
    complete: () => Promise.reject(error)
  };
}
function modelOf(agent, state, deps) {
  if (agent.model !== void 0 && typeof agent.model !== "string") return agent.model;
  const name = agent.model ?? state.model ?? deps.defaultModel ?? "unknown";
  try {
    return deps.makeModel(name);
  } catch (e) {
    return failingModel(name, e);
  }
}
function createExecutor(deps) {
  const running = /* @__PURE__ */ new Set();
  const shutdown = new AbortController();
  const unknown = /* @__PURE__ */ new Set();
  async function execute(runId, created) {
    if (shutdown.signal.aborted) throw new Error("the executor is stopped");
    return await executeRoot(deps, runId, shutdown.signal, unknown, created);
  }
  function counted(p) {
    const settled = p.then(() => {
    }, () => {
    }).finally(() => running.delete(settled));
    running.add(settled);
    return p;
  }
  const tracked = (runId, created) => counted(execute(runId, created));
  const background = (runId, created) => void tracked(runId, created).catch((e) => console.error(`reins: executing run ${runId} failed:`, e));
  return {
    execute: (runId) => tracked(runId),
    spawn(runId) {
      if (!shutdown.signal.aborted) background(runId);
      return Promise.resolve();
    },
    start(state, settings) {
      return counted((async () => {
        const store = deps.freshStore();
        await store.save(state, {
          settings,
          lease: !shutdown.signal.aborted
        });
        if (shutdown.signal.aborted) await store.releaseLease(state.runId).catch(() => false);
        else background(state.runId, {
          store,
          state,
          settings
        });
      })());
    },
    async idle() {
      while (running.size) await Promise.all([
        ...running
      ]);
    },
    async stop() {
      if (!shutdown.signal.aborted) shutdown.abort(EVICTION_REASON);
      while (running.size) await Promise.all([
        ...running
      ]);
    },
    get stopped() {
      return shutdown.signal.aborted;
    },
    get executing() {
      return running.size;
    }
  };
}
async function loadRoot2(store, runId) {
  let state;
  try {
    state = await store.load(runId);
  } catch (e) {
    if (e instanceof RunNotFoundError) return null;
    throw e;
  }
  return state.parentId !== null || state.status !== "running" ? null : state;
}
async function executeRoot(deps, runId, shutdown, unknown, created) {
  if (!created) return await executeLoaded(deps, deps.freshStore(), runId, shutdown, unknown);
  const { store, state, settings } = created;
  let claimed = false;
  let threw = true;
  try {
    const done = await executeLoaded(deps, store, state, shutdown, unknown, {
      settings,
      onExecute: () => claimed = true
    });
    threw = false;
    return done;
  } finally {
    if (!claimed || threw) await store.releaseLease(runId).catch(() => false);
  }
}
async function executeLoaded(deps, store, runOrState, shutdown, unknown, created) {
  const runId = typeof runOrState === "string" ? runOrState : runOrState.runId;
  const state = typeof runOrState === "string" ? await loadRoot2(store, runId) : runOrState;
  if (!state) return null;
  const check = await checkRunAgent(store, state, deps.agents, created?.settings);
  if (check.kind === "unknown") {
    if (!unknown.has(runId)) {
      unknown.add(runId);
      const name = check.agent ?? "(none)";
      console.warn(`reins: leaving run ${runId}: its agent "${name}" is not served here`);
    }
    return null;
  }
  if (check.kind === "refused") {
    return await failRun(store, runId, check.reason) ? await store.load(runId) : null;
  }
  const runOptions = await agentRunOptions(check.agent, check.options, {
    model: modelOf(check.agent, state, deps),
    context: {
      rootId: state.rootId,
      dir: join(deps.workspaceRoot, state.rootId)
    },
    resolveModel: deps.makeModel,
    prices: deps.prices,
    signal: shutdown,
    extraTools: deps.agents.extraTools
  });
  const handOver = handOverOnEviction(deps.kv, store, state.rootId, shutdown);
  try {
    created?.onExecute();
    return await executeTree(store, deps.kv, state, {
      ...runOptions,
      pollMs: deps.pollMs,
      onlyIfRunning: true,
      leased: created !== void 0,
      settle: handOver.settle,
      mapTrace: handOver.mapTrace
    });
  } catch (e) {
    if (e instanceof RunConflictError || e instanceof RunStateError) return null;
    throw e;
  }
}
function handOverOnEviction(kv, store, rootId, shutdown) {
  const handedOver = /* @__PURE__ */ new Set();
  return {
    mapTrace: (sink) => handOverTrace(sink, {
      by: store.owner,
      async isHandOver(e) {
        const i = e.interruption;
        const evicted = shutdown.aborted && e.status === "interrupted" && i?.type === "cancelled" && i.reason === EVICTION_REASON;
        if (!evicted || await readStop(kv, rootId)) return false;
        handedOver.add(e.runId);
        return true;
      }
    }),
    settle: async (done) => handedOver.has(done.runId) ? await markRunning(store, done.runId) : done
  };
}

// runtime/agent_registry.ts
var UnknownAgentError = class extends ReinsError {
  agent;
  known;
  /** Creates the error; `name` undefined means none was given and there is no default. */
  constructor(agent, known) {
    super(agent === void 0 ? `name an agent: this process serves ${known.length} (${known.join(", ")})` : `unknown agent "${agent}"; known: ${known.join(", ") || "none"}`), this.agent = agent, this.known = known;
  }
};
function agentRegistry(agents, options = {}) {
  if (!Array.isArray(agents) || agents.length === 0) {
    throw new TypeError("agents: expected a non-empty list of agents (defineAgent)");
  }
  const byName = /* @__PURE__ */ new Map();
  for (const a of agents) {
    if (!isAgent(a)) throw new TypeError("agents: every agent must be made by defineAgent");
    if (byName.has(a.name)) throw new TypeError(`agents: two agents are named "${a.name}"`);
    byName.set(a.name, a);
  }
  const names = [
    ...byName.keys()
  ];
  const defaultName = options.defaultAgent ?? (names.length === 1 ? names[0] : void 0);
  if (defaultName !== void 0 && !byName.has(defaultName)) {
    throw new TypeError(`defaultAgent: "${defaultName}" is not among the agents (${names})`);
  }
  const extraTools = options.extraTools ?? [];
  const infos = /* @__PURE__ */ new Map();
  const info = (agent) => {
    let p = infos.get(agent);
    if (!p) {
      p = (async () => {
        const { resolveModel } = options;
        const description = await describeAgent(agent, {
          extraTools,
          resolveModel
        });
        return {
          agent,
          description,
          table: await toolTable(description)
        };
      })();
      infos.set(agent, p);
    }
    return p;
  };
  return {
    agents: [
      ...byName.values()
    ],
    names,
    defaultName,
    extraTools,
    pick(name) {
      const chosen = name ?? defaultName;
      const agent = chosen === void 0 ? void 0 : byName.get(chosen);
      if (!agent) throw new UnknownAgentError(chosen, names);
      return agent;
    },
    forRun(state) {
      const name = state.agent ?? defaultName;
      return name === void 0 ? void 0 : byName.get(name);
    },
    info
  };
}

// runtime/env.ts
function msVar(env, name, min, emptyOk = true) {
  const raw = env[name];
  if (raw === void 0 || emptyOk && raw === "") return void 0;
  const ms = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(ms) || ms < min || ms > MAX_TIMER_MS) {
    throw new TypeError(`${name}: expected milliseconds from ${min} to ${MAX_TIMER_MS}, got "${raw}"`);
  }
  return ms;
}
function readEnv(env = Deno.env.toObject()) {
  const deploy = Boolean(env["DENO_DEPLOYMENT_ID"]);
  const port = env["PORT"] ? Number(env["PORT"]) : 8e3;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`PORT: expected a port number, got "${env["PORT"]}"`);
  }
  const scripted = env["REINS_SCRIPTED"];
  if (scripted !== void 0 && scripted !== "0" && scripted !== "1") {
    throw new TypeError(`REINS_SCRIPTED: expected 1 or 0, got "${scripted}"`);
  }
  const out = {
    host: env["HOST"] || "127.0.0.1",
    port,
    deploy,
    workspaceRoot: env["REINS_WORKSPACES"] || (deploy ? "/tmp/reins-workspaces" : ".reins/workspaces"),
    leaseMs: msVar(env, "REINS_LEASE_MS", 1),
    sweepMs: msVar(env, "REINS_SWEEP_MS", 0),
    chunkMs: msVar(env, "REINS_SCRIPTED_CHUNK_MS", 0, false),
    scanMs: msVar(env, "REINS_SCAN_MS", 0),
    ...scripted === void 0 ? {} : {
      scripted: scripted === "1"
    }
  };
  const url = env["LLM_BASE_URL"];
  if (url && !/^https?:$/.test(URL.parse(url)?.protocol ?? "")) {
    throw new TypeError(`LLM_BASE_URL: expected an http(s) URL, got "${url}"`);
  }
  const text = {
    baseUrl: env["LLM_BASE_URL"],
    model: env["LLM_MODEL"],
    apiKey: env["LLM_API_KEY"],
    token: env["REINS_TOKEN"],
    kvPath: env["REINS_KV_PATH"],
    configPath: env["REINS_CONFIG"]
  };
  for (const [k, v] of Object.entries(text)) if (v) out[k] = v;
  return out;
}
function modelSettings(file, env = Deno.env.toObject()) {
  const read = readEnv(env);
  const out = {};
  const baseUrl = read.baseUrl ?? file.baseUrl;
  const model = read.model ?? file.model;
  const apiKey = env[file.apiKeyEnv ?? "LLM_API_KEY"] || void 0;
  if (baseUrl) out.baseUrl = baseUrl;
  if (model) out.model = model;
  if (apiKey) out.apiKey = apiKey;
  if (file.prices) out.prices = file.prices;
  if (file.limits) out.limits = file.limits;
  return out;
}

// runtime/make_model.ts
function defaultMakeModel(options = {}) {
  const env = options.baseUrl === void 0 || options.apiKey === void 0 ? readEnv() : {};
  const baseUrl = options.baseUrl ?? env.baseUrl;
  const apiKey = options.apiKey ?? env.apiKey;
  return (name) => {
    if (baseUrl) {
      return createOpenAIModel({
        baseUrl,
        model: name,
        apiKey
      });
    }
    throw new TypeError(`cannot serve model "${name}": LLM_BASE_URL is not set`);
  };
}

// runtime/sweep.ts
function stoppedByShutdown(s) {
  const i = s.interruption;
  return s.status === "interrupted" && i?.type === "cancelled" && (i.reason === SHUTDOWN_REASON || i.reason === EVICTION_REASON);
}
async function sweepRunnable(executor, store, kv, options = {}) {
  if (executor.stopped) return [];
  const limit = options.limit ?? 1e3;
  const roots = (await store.list({
    status: "running",
    limit
  })).filter((s) => s.parentId === null).map((s) => s.runId);
  if (options.full) {
    for (const s of await store.list({
      status: "interrupted",
      limit
    })) {
      if (s.parentId !== null || !stoppedByShutdown(s)) continue;
      if (await readStop(kv, s.runId)) continue;
      try {
        await markRunning(store, s.runId);
      } catch (e) {
        if (e instanceof RunConflictError) continue;
        throw e;
      }
      roots.push(s.runId);
    }
  }
  const held = await Promise.all(roots.map((id) => liveLease(store, id)));
  const free = roots.filter((_, i) => held[i] === null);
  if (executor.stopped) return [];
  for (const id of free) await executor.spawn(id);
  return free;
}

// runtime/sweeper.ts
function periods(options) {
  const everyMs = options.everyMs ?? 5e3;
  const gapMs = options.nudgeGapMs ?? 2e3;
  if (!(everyMs >= 0) || !(gapMs >= 0)) {
    throw new RangeError(`sweeper: everyMs and nudgeGapMs must be >= 0, got ${everyMs}, ${gapMs}`);
  }
  return {
    everyMs,
    gapMs
  };
}
function startSweeper(pass, options = {}) {
  const { everyMs, gapMs } = periods(options);
  let current;
  let lastStart = -Infinity;
  let stopped = false;
  let timer;
  const start = (full) => {
    lastStart = Date.now();
    const done = pass(full).catch((e) => {
      if (!stopped) console.error("reins: sweeping for runnable runs failed:", e);
      return [];
    }).finally(() => {
      if (current?.done === done) current = void 0;
    });
    current = {
      full,
      done
    };
    return done;
  };
  const sweep = async (full = false) => {
    if (stopped) return [];
    if (current) {
      const joined = current;
      if (joined.full || !full) return await joined.done;
      await joined.done;
      if (stopped) return [];
      return await (current?.full ? current.done : start(true));
    }
    return await start(full);
  };
  const arm = () => {
    const t = setTimeout(tick, everyMs);
    Deno.unrefTimer(t);
    timer = t;
  };
  const tick = () => {
    if (stopped) return;
    if (!current) void start(false);
    arm();
  };
  if (everyMs > 0) arm();
  return {
    sweep,
    nudge() {
      if (stopped || current || Date.now() - lastStart < gapMs) return;
      void start(false);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current?.done;
    }
  };
}

// runtime/worker.ts
function resolveWorkerDeps(deps) {
  if (!deps?.kv || !deps.store) throw new TypeError("worker deps: kv and store are required");
  const { kv, store } = deps;
  const makeModel = deps.makeModel ?? defaultMakeModel();
  const agents = Array.isArray(deps.agents) ? agentRegistry(deps.agents, {
    defaultAgent: deps.defaultAgent,
    extraTools: deps.extraTools,
    resolveModel: makeModel
  }) : deps.agents;
  if (!agents || typeof agents.pick !== "function") {
    throw new TypeError("worker deps: agents (a list of defineAgent agents) are required");
  }
  return {
    kv,
    store,
    agents,
    makeModel,
    defaultModel: deps.defaultModel ?? readEnv().model,
    workspaceRoot: deps.workspaceRoot ?? ".reins/workspaces",
    prices: deps.prices,
    pollMs: deps.pollMs ?? 100,
    freshStore: () => new KvRunStore(kv, {
      owner: store.owner,
      leaseMs: store.leaseMs
    })
  };
}
function startWorker(deps, options = {}) {
  const resolved = resolveWorkerDeps(deps);
  const executor = createExecutor(resolved);
  const sweeper = startSweeper((full) => sweepRunnable(executor, resolved.freshStore(), resolved.kv, {
    full
  }), options);
  const recovered = sweeper.sweep(true).then(() => {
  });
  return {
    executor,
    recovered,
    schedule: (id) => executor.spawn(id),
    start: (state, settings) => executor.start(state, settings),
    nudge: () => sweeper.nudge(),
    sweep: (full) => sweeper.sweep(full),
    async stop() {
      await Promise.all([
        executor.stop(),
        sweeper.stop()
      ]);
    }
  };
}

// runtime/follow_up_run.ts
async function followUpRun(store, kv, id, message, options = {}) {
  const seen = await stopVersion(kv, (await store.summary(id)).rootId);
  const next = followUp(await store.load(id), message, options);
  await store.save(next, options.answer ? {
    answer: options.answer(next)
  } : {});
  await clearStop(kv, next.rootId, seen);
  return next;
}

export {
  executeRun,
  startRun,
  readStop,
  DEFAULT_STOP_REASON,
  requestStop,
  watchStop,
  executeTree,
  holderGone,
  continueTree,
  loadRunSettings,
  stampOf,
  checkRunAgent,
  failRun,
  modelOf,
  createExecutor,
  UnknownAgentError,
  agentRegistry,
  readEnv,
  modelSettings,
  defaultMakeModel,
  resolveWorkerDeps,
  startWorker,
  followUpRun
};
