import {
  RUN_SCHEMA_VERSION,
  RUN_STATUSES,
  cutText,
  isDrivenByRun,
  runLimitsSchema
} from "./chunk-harness_limits.js";
import {
  ReinsError,
  RunConflictError,
  RunNotFoundError,
  RunTooLargeError,
  isObject,
  messageOf,
  sleep
} from "./chunk-harness_errors.js";

// kv/record_error.ts
var RecordError = class extends ReinsError {
  /** The run concerned. */
  runId;
  /** Dotted path of the invalid field. */
  field;
  /** Creates the error; `what` names a record that is not a run's own (default `run "<id>"`). */
  constructor(runId, field, problem, what = `run "${runId}"`) {
    super(`Stored ${what} is invalid at "${field}": ${problem}`);
    this.runId = runId;
    this.field = field;
  }
};

// kv/value_codec.ts
var VALUE_SCHEMA_VERSION = 1;
var encoder = new TextEncoder();
var decoder = new TextDecoder("utf-8", {
  fatal: true
});
var NEWLINE = 10;
var MARK = encoder.encode('{"$schemaVersion":');
function encodeValue(value) {
  const json = JSON.stringify(value);
  return json === void 0 ? encoder.encode(`{"$schemaVersion":${VALUE_SCHEMA_VERSION}}`) : encodeJson(json);
}
function encodeJson(json) {
  return encoder.encode(`{"$schemaVersion":${VALUE_SCHEMA_VERSION},"value":${json}}`);
}
function encodeChunk(chunk) {
  const head = encoder.encode(`${JSON.stringify({
    $schemaVersion: VALUE_SCHEMA_VERSION,
    parts: chunk.parts
  })}
`);
  const out = new Uint8Array(head.byteLength + chunk.data.byteLength);
  out.set(head);
  out.set(chunk.data, head.byteLength);
  return out;
}
function decodeValue(stored2) {
  if (!(stored2 instanceof Uint8Array) || !startsWithMark(stored2)) return stored2;
  const nl = stored2.indexOf(NEWLINE);
  const line = nl < 0 ? stored2 : stored2.subarray(0, nl);
  let envelope;
  try {
    envelope = JSON.parse(decoder.decode(line));
  } catch (e) {
    throw new RangeError(`a stored value is not valid UTF-8 JSON: ${e.message}`);
  }
  if (envelope.$schemaVersion !== VALUE_SCHEMA_VERSION) {
    throw new RangeError(`a stored value has encoding $schemaVersion ${JSON.stringify(envelope.$schemaVersion)}; this reins reads ${VALUE_SCHEMA_VERSION}`);
  }
  if (nl < 0) return envelope.value;
  return {
    parts: envelope.parts,
    data: stored2.subarray(nl + 1)
  };
}
function startsWithMark(bytes) {
  if (bytes.byteLength < MARK.byteLength) return false;
  for (let i = 0; i < MARK.byteLength; i++) if (bytes[i] !== MARK[i]) return false;
  return true;
}

// kv/keys.ts
function runKey(id2) {
  return [
    "run",
    id2
  ];
}
function messagePrefix(id2) {
  return [
    "run",
    id2,
    "msg"
  ];
}
function messageKey(id2, seq, part) {
  return [
    "run",
    id2,
    "msg",
    seq,
    part
  ];
}
function headerChunkKey(id2, part) {
  return [
    "run",
    id2,
    "head",
    part
  ];
}
function headerChunkPrefix(id2) {
  return [
    "run",
    id2,
    "head"
  ];
}
function eventPrefix(id2) {
  return [
    "run",
    id2,
    "event"
  ];
}
function eventKey(id2, seq) {
  return [
    "run",
    id2,
    "event",
    seq
  ];
}
function leaseKey(id2) {
  return [
    "run",
    id2,
    "lease"
  ];
}
function stagingKey(id2) {
  return [
    "run",
    id2,
    "staging"
  ];
}
function runsByTimeKey(createdAtMs, id2) {
  return [
    "runs_by_time",
    createdAtMs,
    id2
  ];
}
function runsByStatusKey(status, createdAtMs, id2) {
  return [
    "runs_by_status",
    status,
    createdAtMs,
    id2
  ];
}
function runsByParentKey(parentId, createdAtMs, id2) {
  return [
    "runs_by_parent",
    parentId,
    createdAtMs,
    id2
  ];
}
function stopEpochKey() {
  return [
    "stop_epoch"
  ];
}
function stopKey(rootId) {
  return [
    "cancel",
    rootId
  ];
}
function runSettingsKey(id2) {
  return [
    "run",
    id2,
    "server_options"
  ];
}
function idempotencyRecordKey(route, key, runId = "") {
  return [
    "idempotency",
    route,
    runId,
    key
  ];
}
function indexKeys(f) {
  const keys = [
    runsByTimeKey(f.createdAtMs, f.runId),
    runsByStatusKey(f.status, f.createdAtMs, f.runId)
  ];
  if (f.parentId !== null) keys.push(runsByParentKey(f.parentId, f.createdAtMs, f.runId));
  return keys;
}

// kv/retry.ts
function isLocked(e) {
  return /database is locked|database is busy|SQLITE_BUSY/i.test(messageOf(e));
}
async function retryLocked(fn, options = {}) {
  const attempts = options.attempts ?? 20;
  const delayMs = options.delayMs ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (attempt >= attempts || !isLocked(e)) throw e;
      const wait = Math.min(250, delayMs * 2 ** (attempt - 1));
      await sleep(wait * (0.5 + Math.random()));
    }
  }
}

// kv/leases.ts
function asLease(stored2) {
  const value = decodeValue(stored2);
  if (typeof value !== "object" || value === null) return null;
  const { owner, expiresAt, host, pid } = value;
  if (typeof owner !== "string" || typeof expiresAt !== "number") return null;
  const lease = {
    owner,
    expiresAt
  };
  if (typeof host === "string") lease.host = host;
  if (typeof pid === "number") lease.pid = pid;
  return lease;
}
function leaseValue(owner, ttlMs, info) {
  const value = {
    owner,
    expiresAt: Date.now() + ttlMs
  };
  if (info.host !== void 0) value.host = info.host;
  if (info.pid !== void 0) value.pid = info.pid;
  return value;
}
function setLease(op, id2, owner, ttlMs, info = {}) {
  checkTtl(ttlMs);
  return op.set(leaseKey(id2), encodeValue(leaseValue(owner, ttlMs, info)), {
    expireIn: ttlMs
  });
}
async function heldLease(kv, id2, owner) {
  const entry = await kv.get(leaseKey(id2), {
    consistency: "strong"
  });
  return entry.versionstamp !== null && asLease(entry.value)?.owner === owner ? entry : null;
}
function localHostname() {
  if (hostname !== void 0) return hostname;
  try {
    const p = Deno.permissions.querySync({
      name: "sys",
      kind: "hostname"
    });
    return p.state === "granted" ? hostname = Deno.hostname() : void 0;
  } catch {
    return void 0;
  }
}
var hostname;
function checkTtl(ttlMs) {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`lease ttlMs must be a positive number, got ${ttlMs}`);
  }
}
async function leaseHolder(kv, id2) {
  const lease = asLease((await kv.get(leaseKey(id2), {
    consistency: "strong"
  })).value);
  return lease && lease.expiresAt > Date.now() ? lease : null;
}
async function acquireLease(kv, id2, owner, ttlMs, info = {}) {
  checkTtl(ttlMs);
  for (; ; ) {
    const entry = await kv.get(leaseKey(id2), {
      consistency: "strong"
    });
    const lease = asLease(entry.value);
    if (lease && lease.owner !== owner && lease.expiresAt > Date.now()) return false;
    const value = leaseValue(owner, ttlMs, info);
    const op = kv.atomic().check(entry).set(leaseKey(id2), encodeValue(value), {
      expireIn: ttlMs
    });
    const res = await retryLocked(() => op.commit());
    if (res.ok) return true;
  }
}
async function renewLease(kv, id2, owner, ttlMs, info = {}) {
  checkTtl(ttlMs);
  const entry = await kv.get(leaseKey(id2), {
    consistency: "strong"
  });
  const lease = asLease(entry.value);
  if (!lease || lease.owner !== owner) return false;
  const value = leaseValue(owner, ttlMs, info);
  const op = kv.atomic().check(entry).set(leaseKey(id2), encodeValue(value), {
    expireIn: ttlMs
  });
  return (await retryLocked(() => op.commit())).ok;
}
var RENEW_PER_ATOMIC = 50;
async function renewLeases(kv, ids, owner, ttlMs, info = {}) {
  checkTtl(ttlMs);
  const reads = [];
  for (let i = 0; i < ids.length; i += 10) {
    reads.push(kv.getMany(ids.slice(i, i + 10).map(leaseKey), {
      consistency: "strong"
    }));
  }
  const entries = (await Promise.all(reads)).flat();
  const held = /* @__PURE__ */ new Map();
  const mine = [];
  ids.forEach((id2, i) => {
    const e = entries[i];
    if (e && asLease(e.value)?.owner === owner) mine.push([
      id2,
      e
    ]);
    else held.set(id2, false);
  });
  for (let i = 0; i < mine.length; i += RENEW_PER_ATOMIC) {
    const batch = mine.slice(i, i + RENEW_PER_ATOMIC);
    const op = kv.atomic();
    for (const [id2, entry] of batch) {
      const value = encodeValue(leaseValue(owner, ttlMs, info));
      op.check(entry).set(leaseKey(id2), value, {
        expireIn: ttlMs
      });
    }
    if ((await retryLocked(() => op.commit())).ok) {
      for (const [id2] of batch) held.set(id2, true);
    } else {
      for (const [id2] of batch) held.set(id2, await renewLease(kv, id2, owner, ttlMs, info));
    }
  }
  return held;
}
async function releaseLease(kv, id2, owner) {
  const entry = await heldLease(kv, id2, owner);
  if (!entry) return false;
  const op = kv.atomic().check(entry).delete(leaseKey(id2));
  return (await retryLocked(() => op.commit())).ok;
}

// kv/lease_keeper.ts
var keepers = /* @__PURE__ */ new WeakMap();
function keepLease(kv, id2, owner, ttlMs, info, onLost) {
  let groups = keepers.get(kv);
  if (!groups) keepers.set(kv, groups = /* @__PURE__ */ new Map());
  const name = `${owner}\0${ttlMs}`;
  let keeper = groups.get(name);
  if (!keeper) {
    const created = new LeaseKeeper({
      kv,
      owner,
      ttlMs,
      info
    }, () => {
      if (groups.get(name) === created) groups.delete(name);
    });
    groups.set(name, keeper = created);
  }
  return keeper.add(id2, onLost);
}
var LeaseKeeper = class {
  group;
  onEmpty;
  #runs;
  #renewing;
  #timer;
  #closed;
  constructor(group, onEmpty) {
    this.group = group;
    this.onEmpty = onEmpty;
    this.#runs = /* @__PURE__ */ new Map();
    this.#renewing = Promise.resolve();
    this.#closed = false;
    this.#timer = setInterval(() => this.#renew(), Math.max(1, Math.floor(group.ttlMs / 3)));
  }
  add(id2, onLost) {
    let lost = false;
    const once = () => void (lost || (lost = true, onLost()));
    this.#runs.set(id2, once);
    return async () => {
      if (this.#runs.get(id2) === once) this.#runs.delete(id2);
      if (this.#runs.size || this.#closed) return await this.#renewing;
      this.#closed = true;
      this.onEmpty();
      clearInterval(this.#timer);
      await this.#renewing;
    };
  }
  #renew() {
    this.#renewing = this.#renewing.then(async () => {
      const ids = [
        ...this.#runs.keys()
      ];
      if (this.#closed || !ids.length) return;
      const { kv, owner, ttlMs, info } = this.group;
      const held = await renewLeases(kv, ids, owner, ttlMs, info);
      for (const [id2, ok] of held) if (!ok) this.#runs.get(id2)?.();
    }).catch(() => {
    });
  }
};

// kv/delta_coalescer.ts
var DELTA_INTERVAL_MS = 250;
function coalesceDeltas(sink, intervalMs = DELTA_INTERVAL_MS) {
  if (!Number.isFinite(intervalMs) || intervalMs < 0) {
    throw new RangeError(`coalesceDeltas: intervalMs must be >= 0, got ${intervalMs}`);
  }
  const runs = /* @__PURE__ */ new Map();
  const flush = (p) => {
    clearTimeout(p.timer);
    p.timer = void 0;
    if (!p.first) return Promise.resolve();
    const event = {
      ...p.first,
      delta: p.text
    };
    p.first = null;
    p.text = "";
    p.lastWrite = performance.now();
    try {
      return Promise.resolve(sink(event)).catch(() => {
      });
    } catch {
      return Promise.resolve();
    }
  };
  return async (event) => {
    const id2 = event.runId;
    if (event.type !== "text_delta") {
      const p2 = runs.get(id2);
      if (p2) {
        if (event.type === "run_stopped" || event.type === "run_handed_over") runs.delete(id2);
        await flush(p2);
      }
      return sink(event);
    }
    let p = runs.get(id2);
    if (!p) runs.set(id2, p = {
      first: null,
      text: "",
      timer: void 0,
      lastWrite: -Infinity
    });
    if (p.first && p.first.turn !== event.turn) void flush(p);
    if (event.reset) {
      p.first = event;
      p.text = "";
    }
    p.first ??= event;
    p.text += event.delta;
    const wait = p.lastWrite + intervalMs - performance.now();
    if (wait <= 0) return void flush(p);
    if (p.timer === void 0) {
      const pending = p;
      p.timer = setTimeout(() => void flush(pending), wait);
    }
  };
}

// kv/record.ts
import { z } from "zod";
var count = z.number().int().nonnegative();
var usd = z.number().nonnegative().finite();
var id = z.string().min(1);
var interruptionSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("approval"),
    callId: id,
    toolName: z.string(),
    args: z.unknown(),
    why: z.enum([
      "needs_approval",
      "uncertain_effect"
    ]),
    runId: id.optional()
  }),
  z.strictObject({
    type: z.literal("max_turns")
  }),
  z.strictObject({
    type: z.literal("max_budget")
  }),
  z.strictObject({
    type: z.literal("cancelled"),
    reason: z.string()
  })
]);
var failureSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("invalid_output"),
    raw: z.string(),
    issues: z.array(z.strictObject({
      path: z.string(),
      message: z.string()
    }))
  }),
  z.strictObject({
    kind: z.literal("refusal"),
    raw: z.string()
  })
]);
var headerSchema = z.strictObject({
  $schemaVersion: z.literal(RUN_SCHEMA_VERSION),
  runId: id,
  parentId: id.nullable(),
  parentCallId: id.nullable(),
  rootId: id,
  status: z.enum(RUN_STATUSES),
  interruption: interruptionSchema.nullable(),
  stopReason: z.string().nullable(),
  messageCount: count,
  model: z.string().nullable(),
  agent: z.string().min(1).max(64).optional(),
  // A turn cap of 0 was accepted before it was refused everywhere: such a record still loads.
  limits: runLimitsSchema().extend({
    maxTurns: count
  }),
  turns: count,
  toolRuns: count,
  usage: z.strictObject({
    prompt_tokens: count,
    completion_tokens: count
  }),
  costUsd: usd,
  childCostUsd: usd,
  promptRatio: z.number().positive().finite().optional(),
  traceparent: z.string().regex(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/).optional(),
  approved: z.array(id),
  rejected: z.array(z.strictObject({
    callId: id,
    reason: z.string()
  })),
  inFlight: z.array(id),
  // Absent from records written before calls were marked: none in flight, nothing estimated.
  modelCall: z.strictObject({
    turn: count,
    since: z.iso.datetime(),
    promptTokens: count.nullable(),
    kind: z.literal("compaction").optional()
  }).nullable().default(null),
  estimatedUsd: usd.default(0),
  // Absent until a run's first compaction (and in every record written before compaction).
  context: z.strictObject({
    summary: z.string().nullable(),
    summaryTurns: count,
    summarizedTo: count,
    elidedTo: count,
    compactions: count,
    costUsd: usd,
    usage: z.strictObject({
      prompt_tokens: count,
      completion_tokens: count
    })
  }).optional(),
  resultCache: z.record(z.string(), z.string()),
  callSpend: z.record(z.string(), usd),
  // Text, or a typed run's value (records of schema 1 hold text or null).
  output: z.json().nullable(),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  outputRepairs: z.array(count).optional(),
  error: z.string().nullable(),
  failure: failureSchema.optional(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  overflow: z.strictObject({
    parts: z.number().int().positive()
  }).optional(),
  forkedFrom: z.strictObject({
    runId: id,
    turn: count
  }).optional()
});
var toolCallSchema = z.strictObject({
  id: z.string(),
  wireId: z.string().optional(),
  type: z.literal("function"),
  function: z.strictObject({
    name: z.string(),
    arguments: z.string()
  })
});
var messageSchema = z.discriminatedUnion("role", [
  z.strictObject({
    role: z.literal("system"),
    content: z.string()
  }),
  z.strictObject({
    role: z.literal("user"),
    content: z.string()
  }),
  z.strictObject({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    tool_calls: z.array(toolCallSchema).optional()
  }),
  z.strictObject({
    role: z.literal("tool"),
    tool_call_id: z.string(),
    name: z.string(),
    content: z.string()
  })
]);
function firstProblem(prefix, issues) {
  const [issue] = issues;
  if (!issue) return [
    prefix || "(root)",
    "does not match its schema"
  ];
  const path = issue.path.map(String);
  const key = issue.keys?.[0];
  if (issue.code === "unrecognized_keys" && key !== void 0) path.push(key);
  const field = [
    prefix,
    ...path
  ].filter((p) => p !== "").join(".");
  return [
    field || "(root)",
    issue.message
  ];
}
function parseHeader(runId, value) {
  if (!isObject(value)) {
    throw new RecordError(runId, "(root)", `expected an object, got ${describe(value)}`);
  }
  if (value["$schemaVersion"] !== RUN_SCHEMA_VERSION) {
    throw new RecordError(runId, "$schemaVersion", `unknown schema version ${JSON.stringify(value["$schemaVersion"])} (this version of reins reads ${RUN_SCHEMA_VERSION})`);
  }
  const parsed = headerSchema.safeParse(value);
  if (!parsed.success) throw new RecordError(runId, ...firstProblem("", parsed.error.issues));
  if (parsed.data.runId !== runId) {
    throw new RecordError(runId, "runId", `stored under "${runId}" but says "${parsed.data.runId}"`);
  }
  return parsed.data;
}
function parseMessage(runId, seq, value) {
  const parsed = messageSchema.safeParse(value);
  if (!parsed.success) {
    throw new RecordError(runId, ...firstProblem(`messages.${seq}`, parsed.error.issues));
  }
  return parsed.data;
}
function toHeader(state) {
  const { messages, ...rest } = state;
  return {
    ...rest,
    messageCount: messages.length
  };
}
function fromHeader(header, messages) {
  const { messageCount: _count, overflow: _overflow, ...rest } = header;
  return {
    ...rest,
    messages
  };
}
function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

// kv/chunks.ts
var CHUNK_BYTES = 6e4;
var ATOMIC_BYTES = 640 * 1024;
var ATOMIC_MUTATIONS = 900;
var encoder2 = new TextEncoder();
var decoder2 = new TextDecoder("utf-8", {
  fatal: true
});
function encodeMessage(message) {
  const bytes = encoder2.encode(JSON.stringify(message));
  const parts = Math.max(1, Math.ceil(bytes.byteLength / CHUNK_BYTES));
  const chunks = [];
  for (let i = 0; i < parts; i++) {
    chunks.push({
      parts,
      data: bytes.slice(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES)
    });
  }
  return chunks;
}
function decodeMessage(runId, seq, chunks) {
  const field = `messages.${seq}`;
  const first = chunks[0];
  if (!isChunk(first)) throw new RecordError(runId, field, "missing or malformed chunk 0");
  const datas = [];
  for (let part = 0; part < first.parts; part++) {
    const c = chunks[part];
    if (!isChunk(c) || c.parts !== first.parts) {
      throw new RecordError(runId, field, `missing or malformed chunk ${part} of ${first.parts}`);
    }
    datas.push(c.data);
  }
  const joined = new Uint8Array(datas.reduce((n, d) => n + d.byteLength, 0));
  let at = 0;
  for (const d of datas) {
    joined.set(d, at);
    at += d.byteLength;
  }
  let value;
  try {
    value = JSON.parse(decoder2.decode(joined));
  } catch (e) {
    throw new RecordError(runId, field, `not valid UTF-8 JSON: ${e.message}`);
  }
  return parseMessage(runId, seq, value);
}
function isChunk(c) {
  if (typeof c !== "object" || c === null) return false;
  const { parts, data } = c;
  return Number.isInteger(parts) && parts >= 1 && data instanceof Uint8Array;
}
function keyBytes(key) {
  let n = 0;
  for (const part of key) {
    if (typeof part === "string") n += utf8Bytes(part) + 2;
    else if (part instanceof Uint8Array) n += part.byteLength + 2;
    else n += 9;
  }
  return n;
}
function utf8Bytes(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) continue;
    if (c < 2048) n += 1;
    else if (c >= 55296 && c <= 56319 && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 56320 && next <= 57343) {
        n += 2;
        i++;
      } else n += 2;
    } else n += 2;
  }
  return n;
}
function valueBytes(value) {
  if (value instanceof Uint8Array) return value.byteLength;
  if (isChunk(value)) return value.data.byteLength + 40;
  return encoder2.encode(JSON.stringify(value) ?? "").byteLength + 40;
}
function write(key, value) {
  const stored2 = isChunk(value) ? encodeChunk(value) : encodeValue(value);
  return {
    key,
    value: stored2,
    bytes: keyBytes(key) + stored2.byteLength
  };
}
function planBatches(writes, reserve) {
  let current = [];
  const batches = [
    current
  ];
  let bytes = 0;
  for (const w of writes) {
    if (current.length && (bytes + w.bytes > ATOMIC_BYTES || current.length >= ATOMIC_MUTATIONS)) {
      current = [];
      batches.push(current);
      bytes = 0;
    }
    current.push(w);
    bytes += w.bytes;
  }
  if (current.length && (bytes + reserve.bytes > ATOMIC_BYTES || current.length + reserve.mutations > ATOMIC_MUTATIONS)) {
    batches.push([]);
  }
  return batches;
}

// kv/header_chunks.ts
var HEADER_INLINE_BYTES = 6e4;
var HEADER_CEILING_BYTES = 512 * 1024;
var PREVIEW_CHARS = 2e3;
var encoder3 = new TextEncoder();
var decoder3 = new TextDecoder("utf-8", {
  fatal: true
});
function serializeHeader(header) {
  const text = JSON.stringify(header);
  const stored2 = encodeJson(text);
  return {
    text,
    stored: stored2,
    bytes: stored2.byteLength + 11
  };
}
function headerWrites(runKey2, header, json = serializeHeader(header)) {
  if (json.bytes <= HEADER_INLINE_BYTES) {
    return [
      {
        key: runKey2,
        value: json.stored,
        bytes: keyBytes(runKey2) + json.stored.byteLength
      }
    ];
  }
  const bytes = encoder3.encode(json.text);
  const parts = Math.ceil(bytes.byteLength / CHUNK_BYTES);
  const writes = [
    write(runKey2, {
      ...preview(header),
      overflow: {
        parts
      }
    })
  ];
  for (let i = 0; i < parts; i++) {
    const chunk = {
      parts,
      data: bytes.slice(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES)
    };
    writes.push(write(headerChunkKey(header.runId, i), chunk));
  }
  return writes;
}
function overCeiling(header, json = serializeHeader(header)) {
  const size = json.bytes;
  if (size <= HEADER_CEILING_BYTES) return null;
  const cut = preview(header);
  const reason = `the run's record (${size} bytes without its messages) is over the ceiling of ${HEADER_CEILING_BYTES} bytes a run may store; long texts were cut`;
  return {
    ...cut,
    status: "failed",
    interruption: null,
    stopReason: reason,
    error: cut.error ?? reason
  };
}
function preview(h) {
  const i = h.interruption;
  return {
    ...h,
    output: typeof h.output === "string" ? cutMarked(h.output) : previewValue(h.output),
    error: cutMarked(h.error),
    ...h.failure ? {
      failure: {
        ...h.failure,
        raw: cutMarked(h.failure.raw)
      }
    } : {},
    stopReason: cutMarked(h.stopReason),
    interruption: i?.type === "approval" ? {
      ...i,
      args: cutMarked(JSON.stringify(i.args) ?? "")
    } : i?.type === "cancelled" ? {
      ...i,
      reason: cutMarked(i.reason) ?? ""
    } : i,
    rejected: h.rejected.map((r) => ({
      ...r,
      reason: cutMarked(r.reason) ?? ""
    })),
    ...h.context ? {
      context: {
        ...h.context,
        summary: cutMarked(h.context.summary)
      }
    } : {},
    resultCache: {},
    approved: [],
    inFlight: []
  };
}
function previewValue(value) {
  const json = JSON.stringify(value);
  return json.length <= PREVIEW_CHARS ? value : cutMarked(json);
}
function cutMarked(text) {
  if (text === null || text.length <= PREVIEW_CHARS) return text;
  return `${cutText(text, PREVIEW_CHARS)}\u2026 [${text.length - cutText(text, PREVIEW_CHARS).length} characters cut]`;
}
function overflowParts(value) {
  if (typeof value !== "object" || value === null) return null;
  const parts = value.overflow?.parts;
  return Number.isInteger(parts) && parts > 0 ? parts : null;
}
function joinHeader(runId, parts, chunks) {
  const datas = [];
  for (let part = 0; part < parts; part++) {
    const c = chunks[part];
    if (!c || c.parts !== parts || !(c.data instanceof Uint8Array)) {
      throw new RecordError(runId, "(header)", `missing or malformed chunk ${part} of ${parts}`);
    }
    datas.push(c.data);
  }
  const joined = new Uint8Array(datas.reduce((n, d) => n + d.byteLength, 0));
  let at = 0;
  for (const d of datas) joined.set(d, at), at += d.byteLength;
  try {
    return JSON.parse(decoder3.decode(joined));
  } catch (e) {
    throw new RecordError(runId, "(header)", `not valid UTF-8 JSON: ${e.message}`);
  }
}

// kv/save_plan.ts
var MAX_ID_BYTES = 512;
var encoder4 = new TextEncoder();
function planSave(state, known, trusted = false, extra = []) {
  const id2 = state.runId;
  for (const [what, value] of [
    [
      "runId",
      id2
    ],
    [
      "parentId",
      state.parentId ?? ""
    ]
  ]) {
    if (encoder4.encode(value).byteLength > MAX_ID_BYTES) {
      throw new TypeError(`save: ${what} is longer than ${MAX_ID_BYTES} bytes (KV keys hold 2,048)`);
    }
  }
  const start = known?.count ?? 0;
  if (start > state.messages.length) {
    throw new RunConflictError(id2, `${start} messages are stored but the state has ${state.messages.length} (messages are append-only: this is an older copy)`);
  }
  const full = trusted ? toHeader(state) : checked(id2, () => parseHeader(id2, toHeader(state)));
  const json = serializeHeader(full);
  const cut = overCeiling(full, json);
  const header = cut ?? full;
  const writes = [];
  for (let seq = start; seq < state.messages.length; seq++) {
    const message = checked(id2, () => parseMessage(id2, seq, state.messages[seq]));
    encodeMessage(message).forEach((c, part) => writes.push(write(messageKey(id2, seq, part), c)));
  }
  const index = {
    runId: id2,
    status: header.status,
    createdAtMs: Date.parse(header.createdAt),
    parentId: header.parentId
  };
  const { adds, drops } = indexChanges(known?.index, index);
  const final = [
    ...headerWrites(runKey(id2), header, cut ? void 0 : json),
    ...adds,
    ...extra
  ];
  const reserve = final.reduce((n, w) => n + w.bytes, 0) + drops.length * 100 + 200;
  return {
    header,
    cut,
    writes,
    final,
    drops,
    reserve,
    index
  };
}
function indexChanges(before, after) {
  if (before && before.status === after.status && before.parentId === after.parentId && before.createdAtMs === after.createdAtMs && before.runId === after.runId) return {
    adds: [],
    drops: []
  };
  const oldKeys = before ? indexKeys(before) : [];
  const newKeys = indexKeys(after);
  const has = (keys, k) => keys.some((o) => JSON.stringify(o) === JSON.stringify(k));
  return {
    adds: newKeys.filter((k) => !has(oldKeys, k)).map((k) => write(k, after.runId)),
    drops: oldKeys.filter((k) => !has(newKeys, k))
  };
}
function checked(id2, parse) {
  try {
    return parse();
  } catch (e) {
    if (!(e instanceof RecordError)) throw e;
    const problem = e.message.slice(e.message.indexOf(`"${e.field}": `) + e.field.length + 4);
    throw new TypeError(`save("${id2}"): invalid state at "${e.field}": ${problem}`, {
      cause: e
    });
  }
}

// kv/fit_event.ts
var WORTH_CUTTING = 200;
function fitEvent(event, maxBytes, size) {
  if (size(event) <= maxBytes) return event;
  const copy = JSON.parse(JSON.stringify(event));
  for (let over = size(copy) - maxBytes; over > 0; over = size(copy) - maxBytes) {
    const text = longest(copy, (v) => typeof v === "string" ? v.length : -1);
    const value = text && text.holder[text.key];
    if (text && value && value.length > WORTH_CUTTING && value.length * 4 > over) {
      const keep = Math.max(0, Math.min(Math.floor(value.length / 2), value.length - over - 64));
      text.holder[text.key] = `${cutText(value, keep)}\u2026 [${value.length - keep} characters cut]`;
      continue;
    }
    if (!cutLargest(copy, size)) break;
  }
  return copy;
}
function cutLargest(root, size) {
  let node = root;
  let parent = null;
  for (; ; ) {
    let best = null;
    let most = -1;
    for (const key of Object.keys(node)) {
      const v2 = node[key];
      const heavy = typeof v2 === "object" && v2 !== null || typeof v2 === "string" && v2.length > 40;
      if (heavy && size(v2) > most) [best, most] = [
        key,
        size(v2)
      ];
    }
    if (parent && (best === null || most < parent.bytes / 2)) {
      parent.spot.holder[parent.spot.key] = `[${parent.bytes} bytes cut]`;
      return true;
    }
    if (best === null) return false;
    const v = node[best];
    if (typeof v !== "object" || v === null) {
      node[best] = `[${most} bytes cut]`;
      return true;
    }
    parent = {
      spot: {
        holder: node,
        key: best
      },
      bytes: most
    };
    node = v;
  }
}
function longest(root, measure) {
  let best = null;
  let most = -1;
  const walk = (node) => {
    for (const key of Object.keys(node)) {
      const v = node[key];
      const m = measure(v);
      if (m > most) [best, most] = [
        {
          holder: node,
          key
        },
        m
      ];
      if (typeof v === "object" && v !== null) walk(v);
    }
  };
  walk(root);
  return best;
}

// kv/events.ts
var EVENT_BYTES = 6e4;
var MAX_HELD_PER_SAVE = 64;
var MAX_HELD_BYTES = 24e4;
var TOOL_START_LIVE_MS = 250;
var TEXT_LIVE_MS = 50;
var PROGRESS_LIVE_MS = 1e3;
var KvEventLog = class {
  #kv;
  /** Per run: the promise of the next free seq (rejected after a failed write). */
  #next = /* @__PURE__ */ new Map();
  /** Runs whose events wait for their next save, and those events in order. */
  #held = /* @__PURE__ */ new Map();
  /** Per run: the timer that flushes a held `tool_start` (see {@link TOOL_START_LIVE_MS}). */
  #live = /* @__PURE__ */ new Map();
  /** Per run: the timer of a quiet spell after a progress flush (see {@link PROGRESS_LIVE_MS}). */
  #quiet = /* @__PURE__ */ new Map();
  /** Wraps a KV handle (not closed by this class). */
  constructor(kv) {
    this.#kv = kv;
  }
  /** Appends one event under its run; resolves once it is committed. */
  append(event) {
    const id2 = event?.runId;
    if (typeof id2 !== "string" || id2 === "") {
      return Promise.reject(new TypeError("trace event without a runId cannot be stored"));
    }
    return this.#step(id2, (seq) => this.#appendAll(id2, [
      event
    ], seq)).then(() => void 0);
  }
  /**
   * A `TraceSink` appending to this log. Events of held runs (see {@link hold})
   * wait for the run's next save; a `tool_progress` or `text_delta` event flushes them.
   */
  sink() {
    return (event) => {
      const held = typeof event?.runId === "string" ? this.#held.get(event.runId) : void 0;
      if (!held) return this.append(event);
      held.push(event);
      if (event.type === "tool_progress") return this.#progress(event.runId);
      const liveMs = event.type === "tool_start" ? TOOL_START_LIVE_MS : event.type === "text_delta" ? TEXT_LIVE_MS : null;
      if (liveMs !== null) this.#flushLater(this.#live, event.runId, liveMs);
      return void 0;
    };
  }
  /**
   * Run `id` is being created (its save checks that no header exists): its
   * events start at seq 0 without a read. Were one stored, its key's check
   * refuses the write and the seq is read then.
   */
  created(id2) {
    if (!this.#next.has(id2)) this.#next.set(id2, Promise.resolve(0));
  }
  /** From now on, the events of run `id` wait for its next save ({@link withHeld}). */
  hold(id2) {
    if (!this.#held.has(id2)) this.#held.set(id2, []);
  }
  /** Commits the held events of run `id` on their own (no-op when none). */
  flush(id2) {
    if (!this.#held.get(id2)?.length) return Promise.resolve();
    return this.#step(id2, (seq) => this.#appendAll(id2, this.#take(id2, Infinity), seq)).then(() => void 0);
  }
  /**
   * Runs `commit` in run `id`'s write order with its held events keyed from
   * the next free seq, for `commit` to set in its own atomic (with a
   * `versionstamp: null` check each). Events it did not commit are appended
   * on their own, so a refused or lost save never loses the trace.
   */
  async withHeld(id2, extraBytes, commit2) {
    let value;
    this.#stopLive(id2, this.#quiet);
    await this.#step(id2, async (first) => {
      let seq = first;
      const held = this.#held.get(id2) ?? [];
      let bytes = extraBytes, fits = 0;
      for (; fits < held.length && fits < MAX_HELD_PER_SAVE; fits++) {
        bytes += eventBytes(held[held.length - 1 - fits]) + 100;
        if (bytes > MAX_HELD_BYTES) break;
      }
      if (held.length > fits) {
        seq = await this.#appendAll(id2, this.#take(id2, held.length - fits), seq);
      }
      const events = this.#take(id2, Infinity);
      for (; ; ) {
        const writes = events.map((e, i) => {
          const v = fit(e);
          return {
            key: eventKey(id2, seq + i),
            value: v,
            bytes: eventBytes(v) + 100
          };
        });
        let res;
        try {
          res = await commit2(writes);
        } catch (e) {
          const kept2 = notStopped(events);
          if (kept2.length) await this.#appendAll(id2, kept2, seq).catch(() => {
          });
          throw e;
        }
        value = res.value;
        if (res.ok) return seq + events.length;
        const kept = notStopped(events);
        if (!res.seqTaken) return kept.length ? await this.#appendAll(id2, kept, seq) : seq;
        seq = await this.#lastSeq(id2) + 1;
      }
    });
    return value;
  }
  /** The events of a run in order, optionally only those after `afterSeq`. */
  async read(id2, options = {}) {
    const after = options.afterSeq ?? -1;
    const selector = after >= 0 ? {
      prefix: eventPrefix(id2),
      start: eventKey(id2, Math.floor(after) + 1)
    } : {
      prefix: eventPrefix(id2)
    };
    const out = [];
    for await (const entry of this.#kv.list(selector, {
      consistency: "strong"
    })) {
      const seq = entry.key[3];
      const event = decodeValue(entry.value);
      if (typeof seq !== "number" || typeof event?.type !== "string") {
        throw new RecordError(id2, `events.${String(seq)}`, "not a trace event");
      }
      out.push({
        seq,
        event
      });
    }
    return out;
  }
  /** A progress event of run `id` was held: flushed now, or when the quiet spell ends. */
  #progress(id2) {
    if (this.#quiet.has(id2)) return void 0;
    this.#flushLater(this.#quiet, id2, PROGRESS_LIVE_MS);
    return this.flush(id2);
  }
  /** Flushes run `id` in `ms` unless `timers` already holds a timer for it. */
  #flushLater(timers, id2, ms) {
    if (timers.has(id2)) return;
    timers.set(id2, setTimeout(() => {
      timers.delete(id2);
      this.flush(id2).catch(() => {
      });
    }, ms));
  }
  #stopLive(id2, timers = this.#live) {
    const timer = timers.get(id2);
    if (timer === void 0) return;
    clearTimeout(timer);
    timers.delete(id2);
  }
  /** Drops what this instance remembers of a run (after it is deleted). */
  forget(id2) {
    this.#stopLive(id2);
    this.#stopLive(id2, this.#quiet);
    this.#next.delete(id2);
    this.#held.delete(id2);
  }
  /** Chains `write` (given the next free seq, returning the next one after it) on run `id`. */
  #step(id2, write2) {
    const previous = this.#next.get(id2) ?? Promise.resolve(-1);
    const next = previous.catch(() => -1).then(async (known) => write2(known < 0 ? await this.#lastSeq(id2) + 1 : known));
    this.#next.set(id2, next);
    return next;
  }
  /** Removes and returns the first `n` held events of run `id` (it stays held). */
  #take(id2, n) {
    const held = this.#held.get(id2);
    if (held && n >= held.length) this.#stopLive(id2);
    return held ? held.splice(0, Math.min(n, held.length)) : [];
  }
  /** Commits `events` from `seq` on (one atomic per ≤ 64), re-reading the seq when taken. */
  async #appendAll(id2, events, seq) {
    for (let from = 0; from < events.length; ) {
      const part = events.slice(from, from + MAX_HELD_PER_SAVE);
      const op = this.#kv.atomic();
      let bytes = 0, n = 0;
      for (const e of part) {
        const value = fit(e);
        bytes += eventBytes(value) + 100;
        if (n > 0 && bytes > MAX_HELD_BYTES) break;
        const key = eventKey(id2, seq + n++);
        op.check({
          key,
          versionstamp: null
        }).set(key, storedEvent(value));
      }
      const res = await retryLocked(() => op.commit());
      if (res.ok) {
        seq += n;
        from += n;
      } else seq = await this.#lastSeq(id2) + 1;
    }
    return seq;
  }
  /** The seq of run `id`'s last stored event (-1 when none). */
  lastSeq(id2) {
    return this.#lastSeq(id2);
  }
  async #lastSeq(id2) {
    const iter = this.#kv.list({
      prefix: eventPrefix(id2)
    }, {
      reverse: true,
      limit: 1,
      consistency: "strong"
    });
    for await (const entry of iter) {
      const seq = entry.key[3];
      if (typeof seq === "number") return seq;
    }
    return -1;
  }
};
var stored = /* @__PURE__ */ new WeakMap();
function storedEvent(event) {
  let bytes = stored.get(event);
  if (!bytes) stored.set(event, bytes = encodeValue(event));
  return bytes;
}
function eventBytes(event) {
  return storedEvent(event).byteLength + 11;
}
function fit(event) {
  return eventBytes(event) <= EVENT_BYTES ? event : fitEvent(event, EVENT_BYTES, valueBytes);
}
function notStopped(events) {
  return events.filter((e) => e.type !== "run_stopped");
}

// kv/staged_commit.ts
async function stageBatches(kv, id2, check, batches, owner) {
  let staging = null;
  let bytes = 0;
  for (const batch of batches) {
    staging ??= await kv.get(stagingKey(id2), {
      consistency: "strong"
    });
    const op = kv.atomic().check(check, staging);
    for (const w of batch) op.set(w.key, w.value);
    const mark = encodeValue({
      owner,
      at: Date.now()
    });
    const res = await commit(id2, op.set(stagingKey(id2), mark));
    if (!res.ok) return null;
    staging = {
      key: stagingKey(id2),
      versionstamp: res.versionstamp
    };
    bytes += batch.reduce((n, w) => n + w.bytes, 0);
  }
  return {
    staging,
    bytes
  };
}
async function commit(id2, op) {
  try {
    return await retryLocked(() => op.commit());
  } catch (e) {
    if (!(e instanceof Error) || !/too large/i.test(e.message)) throw e;
    throw new RangeError(`save("${id2}"): ${e.message}; one commit holds at most 800 KiB`, {
      cause: e
    });
  }
}
async function commitSave(kv, events, save) {
  const { id: id2, check, final, drops } = save;
  const batches = planBatches(save.writes, {
    bytes: save.reserve + events.reduce((n, e) => n + e.bytes, 0),
    mutations: final.length + drops.length + 2 + events.length
  });
  const staged = await stageBatches(kv, id2, check, batches.slice(0, -1), save.owner);
  if (!staged) return {
    ok: false,
    seqTaken: false,
    value: null
  };
  let { staging, bytes } = staged;
  const op = kv.atomic().check(check);
  if (staging) op.check(staging).delete(stagingKey(id2));
  for (const w of [
    ...batches.at(-1) ?? [],
    ...final
  ]) {
    op.set(w.key, w.value, w.expireIn === void 0 ? void 0 : {
      expireIn: w.expireIn
    });
    bytes += w.bytes;
  }
  for (const e of events) {
    op.set(e.key, storedEvent(e.value));
    bytes += e.bytes;
  }
  for (const e of events) op.check({
    key: e.key,
    versionstamp: null
  });
  for (const k of drops) op.delete(k);
  save.lease?.(op);
  const lease = save.release === void 0 ? null : await heldLease(kv, id2, save.release);
  if (lease) op.check(lease).delete(leaseKey(id2));
  const res = await commit(id2, op);
  if (res.ok) {
    return {
      ok: true,
      value: {
        versionstamp: res.versionstamp,
        bytes,
        released: !!lease
      }
    };
  }
  const now = await kv.get(runKey(id2), {
    consistency: "strong"
  });
  return {
    ok: false,
    seqTaken: now.versionstamp === check.versionstamp,
    value: null
  };
}

// kv/run_reader.ts
async function readHeader(kv, id2, value) {
  const parts = overflowParts(value);
  if (parts === null) return parseHeader(id2, value);
  parseHeader(id2, value);
  const chunks = [];
  for await (const e of kv.list({
    prefix: headerChunkPrefix(id2)
  }, {
    consistency: "strong"
  })) {
    const part = e.key[3];
    if (typeof part === "number" && part < parts) chunks[part] = decodeValue(e.value);
  }
  return parseHeader(id2, joinHeader(id2, parts, chunks));
}
async function readChunks(kv, id2, from, to) {
  const chunks = /* @__PURE__ */ new Map();
  const prefix = messagePrefix(id2);
  const selector = {
    start: [
      ...prefix,
      from
    ],
    end: [
      ...prefix,
      to
    ]
  };
  for await (const e of kv.list(selector, {
    consistency: "strong",
    batchSize: 500
  })) {
    const [seq, part] = [
      e.key[3],
      e.key[4]
    ];
    if (!Number.isInteger(seq) || !Number.isInteger(part)) {
      throw new RecordError(id2, "messages", `unexpected key ${JSON.stringify(e.key)}`);
    }
    const list = chunks.get(seq) ?? [];
    list[part] = decodeValue(e.value);
    chunks.set(seq, list);
  }
  return chunks;
}

// kv/indexes.ts
async function listRuns(kv, options = {}) {
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`limit must be an integer >= 1, got ${limit}`);
  }
  const prefix = options.parentId !== void 0 ? [
    "runs_by_parent",
    options.parentId
  ] : options.status ? [
    "runs_by_status",
    options.status
  ] : [
    "runs_by_time"
  ];
  const out = [];
  let ids = [];
  const flush = async () => {
    const entries = await kv.getMany(ids.map(runKey), {
      consistency: "strong"
    });
    ids = [];
    for (const e of entries) {
      if (e.versionstamp === null || out.length >= limit) continue;
      const h = parseHeader(String(e.key[1]), decodeValue(e.value));
      if (options.status && h.status !== options.status) continue;
      out.push(summaryOf(h));
    }
  };
  for await (const e of kv.list({
    prefix
  }, {
    reverse: true,
    consistency: "strong"
  })) {
    ids.push(String(e.key[e.key.length - 1]));
    if (ids.length === 10) await flush();
    if (out.length >= limit) break;
  }
  if (ids.length && out.length < limit) await flush();
  return out;
}
function summaryOf(h) {
  return {
    runId: h.runId,
    parentId: h.parentId,
    rootId: h.rootId,
    status: h.status,
    interruption: h.interruption,
    stopReason: h.stopReason,
    model: h.model,
    ...h.agent === void 0 ? {} : {
      agent: h.agent
    },
    turns: h.turns,
    toolRuns: h.toolRuns,
    usage: h.usage,
    costUsd: h.costUsd,
    childCostUsd: h.childCostUsd,
    estimatedUsd: h.estimatedUsd,
    output: h.output,
    error: h.error,
    createdAt: h.createdAt,
    updatedAt: h.updatedAt,
    messageCount: h.messageCount
  };
}
function indexFieldsOf(h) {
  return {
    runId: h.runId,
    status: h.status,
    createdAtMs: Date.parse(h.createdAt),
    parentId: h.parentId
  };
}
function looseIndexKeys(id2, value) {
  const v = typeof value === "object" && value !== null ? value : {};
  const createdAtMs = Date.parse(String(v["createdAt"]));
  if (Number.isNaN(createdAtMs)) return [];
  return indexKeys({
    runId: id2,
    status: String(v["status"]),
    createdAtMs,
    parentId: typeof v["parentId"] === "string" ? v["parentId"] : null
  });
}

// kv/kv_run_store.ts
var DELETE_BATCH = 500;
var KvRunStore = class {
  /** Where this instance runs (host, pid), stored in its leases. */
  holder;
  /** This instance's name in leases. */
  owner;
  /** Lease time to live in ms. */
  leaseMs;
  /** Estimated bytes (keys + values) written by the last `save` (for benchmarks). */
  lastCommitBytes = 0;
  #kv;
  #known = /* @__PURE__ */ new Map();
  /** States run() drives whose header this instance validated (their first save here). */
  #validated = /* @__PURE__ */ new WeakSet();
  #events;
  /** Runs whose exit save gives up a lease (see {@link releaseLeaseOnExit}). */
  #exitRelease = /* @__PURE__ */ new Map();
  /** Wraps an open KV handle; closing it stays the caller's job. */
  constructor(kv, options = {}) {
    if (!kv || typeof kv.atomic !== "function") {
      throw new TypeError("new KvRunStore(kv): kv must be an open Deno.Kv");
    }
    this.#kv = kv;
    this.leaseMs = options.leaseMs ?? 3e4;
    if (!(this.leaseMs > 0)) throw new RangeError(`leaseMs must be positive, got ${this.leaseMs}`);
    this.owner = options.owner ?? `pid${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
    this.holder = options.holder ?? {
      host: localHostname(),
      pid: Deno.pid
    };
    this.#events = new KvEventLog(kv);
  }
  /**
   * Commits the new messages, the header and the indexes in one atomic
   * checked against the version this instance last saw (a run it never saw
   * must not exist yet). Throws `RunConflictError` when that check fails.
   * `settings`: stored with it in the same atomic (as {@link saveSettings}
   * does alone): a new run and its settings appear together, in one commit.
   * `lease` (a new run only): this instance's lease on it is taken in that
   * commit too, for a run about to execute here (`executeRun` with `leased`).
   * `answer`: a keyed request's answer, recorded in that commit too (see
   * `answerRecord`): a crash keeps both or neither.
   */
  async save(state, options = {}) {
    const id2 = state?.runId;
    if (typeof id2 !== "string" || id2 === "") {
      throw new TypeError("save(state): state.runId missing");
    }
    const known = this.#known.get(id2);
    if (options.lease && known) {
      throw new TypeError(`save("${id2}", { lease }): only a new run is leased with its save`);
    }
    const release = this.#exitRelease.get(id2);
    const releasing = release && !release.released && endsExecution(state) ? release : null;
    const driven = isDrivenByRun(state);
    const trusted = known !== void 0 && driven && this.#validated.has(state);
    const extra = "settings" in options ? [
      write(runSettingsKey(id2), options.settings)
    ] : [];
    if (options.answer) extra.push(options.answer);
    const { cut, writes, final, drops, reserve, index } = planSave(state, known, trusted, extra);
    if (driven) this.#validated.add(state);
    const count2 = state.messages.length;
    const check = {
      key: runKey(id2),
      versionstamp: known?.versionstamp ?? null
    };
    if (!known) this.#events.created(id2);
    const held = this.#events.withHeld(id2, reserve, async (events) => {
      if (cut) {
        for (const e of events) {
          if (e.value.type === "run_stopped") e.value = asFailed(e.value, cut);
        }
      }
      const lease = options.lease ? (op) => setLease(op, id2, this.owner, this.leaseMs, this.holder) : void 0;
      const res = await commitSave(this.#kv, events, {
        id: id2,
        check,
        writes,
        final,
        drops,
        reserve,
        owner: this.owner,
        lease,
        release: releasing?.owner
      });
      if (res.ok && res.value?.released && releasing) releasing.released = true;
      return res;
    });
    const done = await held;
    if (!done) {
      throw new RunConflictError(id2, known ? void 0 : "a run with this id already exists");
    }
    this.#known.set(id2, {
      versionstamp: done.versionstamp,
      count: count2,
      index
    });
    this.#events.hold(id2);
    this.lastCommitBytes = done.bytes;
    if (cut) throw new RunTooLargeError(id2, cut.stopReason ?? "over the ceiling");
  }
  /** Loads and validates a run (`RunNotFoundError`, `RecordError`). */
  async load(id2) {
    const { versionstamp, header, state } = await this.#read(id2);
    this.#known.set(id2, {
      versionstamp,
      count: header.messageCount,
      index: indexFieldsOf(header)
    });
    this.#events.hold(id2);
    return state;
  }
  /** Loads and validates a run only to read it: remembers nothing, holds no events. */
  async read(id2) {
    return (await this.#read(id2)).state;
  }
  async #read(id2) {
    const entry = await this.#kv.get(runKey(id2), {
      consistency: "strong"
    });
    if (entry.versionstamp === null) throw new RunNotFoundError(id2);
    const header = await readHeader(this.#kv, id2, decodeValue(entry.value));
    const chunks = await readChunks(this.#kv, id2, 0, header.messageCount);
    const messages = [];
    for (let seq = 0; seq < header.messageCount; seq++) {
      messages.push(decodeMessage(id2, seq, chunks.get(seq) ?? []));
    }
    return {
      versionstamp: entry.versionstamp,
      header,
      state: fromHeader(header, messages)
    };
  }
  /** Whether run `id` is stored (its header is there, valid or not). */
  async exists(id2) {
    return (await this.#kv.get(runKey(id2), {
      consistency: "strong"
    })).versionstamp !== null;
  }
  /**
   * Run `id` without its transcript, from its validated header alone
   * (`RunNotFoundError`, `RecordError`): cheap whatever the transcript's size.
   */
  async summary(id2) {
    const entry = await this.#kv.get(runKey(id2), {
      consistency: "strong"
    });
    if (entry.versionstamp === null) throw new RunNotFoundError(id2);
    return summaryOf(parseHeader(id2, decodeValue(entry.value)));
  }
  /**
   * Message number `seq` of run `id`, without loading the rest of the
   * transcript: null when there is none, `RecordError` when it is unreadable.
   */
  async message(id2, seq) {
    if (!Number.isInteger(seq) || seq < 0) {
      throw new RangeError(`message(id, seq): seq must be an integer >= 0, got ${seq}`);
    }
    const chunks = (await readChunks(this.#kv, id2, seq, seq + 1)).get(seq);
    return chunks ? decodeMessage(id2, seq, chunks) : null;
  }
  /**
   * Stores the execution settings of run `id` (any JSON value, e.g. the
   * options of a server run); they are deleted with the run.
   */
  async saveSettings(id2, settings) {
    const value = encodeValue(settings);
    await retryLocked(() => this.#kv.set(runSettingsKey(id2), value));
  }
  /** The execution settings stored for run `id`, or null. */
  async settings(id2) {
    return decodeValue((await this.#kv.get(runSettingsKey(id2), {
      consistency: "strong"
    })).value);
  }
  /**
   * Whether run `id` is stored as this instance last loaded or saved it (true
   * too for a run neither stored nor known: a new run). A state that is not
   * current would lose its first save, so executors check before running it.
   */
  async isCurrent(id2) {
    const entry = await this.#kv.get(runKey(id2), {
      consistency: "strong"
    });
    return entry.versionstamp === (this.#known.get(id2)?.versionstamp ?? null);
  }
  /** Runs newest first, optionally of one status and/or one parent. */
  list(options = {}) {
    return listRuns(this.#kv, options);
  }
  /**
   * Deletes a run: header and indexes first (one checked atomic), then its
   * messages, events, lease and staging keys in batches. True if it existed.
   */
  async delete(id2) {
    const entry = await this.#kv.get(runKey(id2), {
      consistency: "strong"
    });
    if (entry.versionstamp !== null) {
      const op = this.#kv.atomic().check(entry).delete(runKey(id2));
      for (const k of looseIndexKeys(id2, readable(entry.value))) op.delete(k);
      if (!(await commit(id2, op)).ok) {
        throw new RunConflictError(id2, "it changed while being deleted");
      }
    }
    let keys = [];
    for await (const e of this.#kv.list({
      prefix: runKey(id2)
    }, {
      consistency: "strong"
    })) {
      keys.push(e.key);
      if (keys.length === DELETE_BATCH) keys = await this.#deleteAll(keys);
    }
    await this.#deleteAll(keys);
    this.#known.delete(id2);
    this.#events.forget(id2);
    return entry.versionstamp !== null;
  }
  /** The seq of run `id`'s last stored trace event (-1 when none): where its stream goes on. */
  lastEventSeq(id2) {
    return this.#events.lastSeq(id2);
  }
  /** The stored trace events of a run, in order (after `afterSeq` if given). */
  events(id2, options = {}) {
    return this.#events.read(id2, options);
  }
  /**
   * A sink storing each event under its run (`["run", id, "event", seq]`);
   * streamed text (`text_delta`) is joined into a few writes a second. Events
   * of a run this instance has loaded or saved wait for its next save and are committed
   * in the same atomic (see kv/events.ts); {@link flushEvents} writes them earlier.
   */
  traceSink() {
    return coalesceDeltas(this.#events.sink());
  }
  /** Commits the events of run `id` still waiting for a save (after a run ended abnormally). */
  flushEvents(id2) {
    return this.#events.flush(id2);
  }
  /** Takes the run's lease (see `acquireLease` in leases.ts). */
  acquireLease(id2, owner = this.owner, ttlMs = this.leaseMs) {
    return acquireLease(this.#kv, id2, owner, ttlMs, this.holder);
  }
  /** Extends the run's lease if `owner` holds it. */
  renewLease(id2, owner = this.owner, ttlMs = this.leaseMs) {
    return renewLease(this.#kv, id2, owner, ttlMs, this.holder);
  }
  /** Renews the run's lease every third of the lease time (shared timer) until disposed; see lease_keeper.ts. */
  keepLease(id2, onLost, owner = this.owner) {
    return keepLease(this.#kv, id2, owner, this.leaseMs, this.holder, onLost);
  }
  /** Gives up the run's lease if `owner` holds it. */
  releaseLease(id2, owner = this.owner) {
    return releaseLease(this.#kv, id2, owner);
  }
  /**
   * Until the returned function is called, the exit save of run `id` (a save
   * of it no longer `running`, and not `interrupted/cancelled`) also gives up
   * `owner`'s lease, in its atomic: one commit fewer per execution. A
   * cancelled run keeps it: what follows a Stop or an eviction (children
   * still saving, a hand-over) happens under the lease. The function returns
   * whether the lease went with an exit save; if not, release it yourself.
   */
  releaseLeaseOnExit(id2, owner = this.owner) {
    const entry = {
      owner,
      released: false
    };
    this.#exitRelease.set(id2, entry);
    return () => {
      if (this.#exitRelease.get(id2) === entry) this.#exitRelease.delete(id2);
      return entry.released;
    };
  }
  /** The run's live lease, or null. */
  leaseHolder(id2) {
    return leaseHolder(this.#kv, id2);
  }
  async #deleteAll(keys) {
    if (!keys.length) return [];
    const op = this.#kv.atomic();
    for (const k of keys) op.delete(k);
    await retryLocked(() => op.commit());
    return [];
  }
};
function readable(stored2) {
  try {
    return decodeValue(stored2);
  } catch {
    return null;
  }
}
function endsExecution(state) {
  if (state.status === "running") return false;
  return !(state.status === "interrupted" && state.interruption?.type === "cancelled");
}
function asFailed(event, cut) {
  return {
    ...event,
    status: "failed",
    interruption: null,
    reason: cut.stopReason ?? event.reason
  };
}

export {
  encodeValue,
  decodeValue,
  stopEpochKey,
  stopKey,
  idempotencyRecordKey,
  retryLocked,
  localHostname,
  RecordError,
  interruptionSchema,
  failureSchema,
  messageSchema,
  firstProblem,
  CHUNK_BYTES,
  keyBytes,
  KvRunStore
};
