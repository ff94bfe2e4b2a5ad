// @ts-self-types="../../server/mod.ts"
import {
  settlesWithin
} from "../chunk-harness_settles_within.js";
import {
  forkRun,
  forkRunOptions
} from "../chunk-runtime_fork_run.js";
import {
  loadConfig,
  openProcessTools,
  percentOf,
  spentText,
  storedTask,
  usdPair
} from "../chunk-runtime_config.js";
import {
  defaultKvPath,
  openKv
} from "../chunk-kv_open_kv.js";
import {
  DEFAULT_STOP_REASON,
  UnknownAgentError,
  agentRegistry,
  continueTree,
  defaultMakeModel,
  followUpRun,
  modelSettings,
  readEnv,
  readStop,
  requestStop,
  resolveWorkerDeps,
  stampOf,
  startWorker
} from "../chunk-runtime_execute_run.js";
import "../chunk-otel_message_content.js";
import {
  CHUNK_BYTES,
  KvRunStore,
  RecordError,
  decodeValue,
  encodeValue,
  failureSchema,
  firstProblem,
  idempotencyRecordKey,
  interruptionSchema,
  keyBytes,
  messageSchema
} from "../chunk-kv_record_error.js";
import {
  hashOf,
  loadTree
} from "../chunk-subagents_tree.js";
import {
  RESUMABLE_STATUSES,
  RUN_STATUSES,
  agentOptionsSchema,
  childRunId,
  cutText,
  followUpRefusal,
  forkableTurns,
  limitCeiling,
  limitsWidening,
  narrowRun,
  newRun,
  runLimitsSchema
} from "../chunk-harness_limits.js";
import {
  ReinsError,
  RunConflictError,
  RunNotFoundError,
  RunStateError,
  __template,
  messageOf,
  sleep
} from "../chunk-harness_errors.js";

// server/app.ts
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";

// server/errors.ts
var BadRequestError = class extends ReinsError {
  /** Dotted path of the offending field (`body` when the body is not JSON). */
  field;
  /** Creates the error. */
  constructor(field, problem) {
    super(`${field}: ${problem}`);
    this.field = field;
  }
};
var TooLargeError = class extends BadRequestError {
  /** Creates the error. */
  constructor(field, limit2) {
    super(field, `longer than the limit of ${limit2} characters`);
  }
};
var HttpError = class extends ReinsError {
  /** The HTTP status. */
  status;
  /** A stable machine-readable code. */
  code;
  /** Headers the answer carries (e.g. `Retry-After`). */
  headers;
  /** Creates the error. */
  constructor(status2, code, message, headers = {}) {
    super(message);
    this.status = status2;
    this.code = code;
    this.headers = headers;
  }
};
function errorAnswer(err) {
  const message = messageOf(err);
  const answer = (status2, code, field) => ({
    status: status2,
    body: {
      error: field === void 0 ? {
        code,
        message
      } : {
        code,
        message,
        field
      }
    }
  });
  if (err instanceof TooLargeError) return answer(413, "payload_too_large", err.field);
  if (err instanceof BadRequestError) return answer(400, "bad_request", err.field);
  if (err instanceof HttpError) return answer(err.status, err.code);
  if (err instanceof RunNotFoundError) return answer(404, "run_not_found");
  if (err instanceof RunStateError) return answer(409, "run_state");
  if (err instanceof RunConflictError) return answer(409, "run_conflict");
  if (err instanceof RecordError) return answer(500, "record_invalid", err.field);
  return {
    status: 500,
    body: {
      error: {
        code: "internal",
        message: "internal server error"
      }
    }
  };
}
function onError(err, c) {
  const { status: status2, body: body2 } = errorAnswer(err);
  if (err instanceof HttpError) {
    for (const [k, v] of Object.entries(err.headers)) {
      c.header(k, v);
    }
  }
  if (status2 === 500 && !(err instanceof RecordError)) {
    console.error(`${c.req.method} ${c.req.path}:`, err);
  }
  return c.json(body2, status2);
}

// server/auth.ts
var encoder = new TextEncoder();
async function digest(text) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}
async function safeEqual(a, b) {
  const [x, y] = await Promise.all([
    digest(a),
    digest(b)
  ]);
  if (x.length !== y.length) return false;
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}
function bearerToken(header) {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "")?.[1] ?? null;
}
function bearerAuth(token) {
  return async (c, next) => {
    if (!token) return await next();
    const given = bearerToken(c.req.header("authorization"));
    if (given === null || !await safeEqual(given, token)) {
      c.header("WWW-Authenticate", 'Bearer realm="reins"');
      throw new HttpError(401, "unauthorized", given !== null ? "the bearer token is wrong" : "a bearer token is required");
    }
    await next();
  };
}

// server/deps.ts
function resolveDeps(deps) {
  const worker = resolveWorkerDeps(deps);
  const schedule = deps.schedule ?? (() => Promise.resolve());
  return {
    ...worker,
    token: deps.token,
    closing: deps.closing,
    scenarios: deps.scenarios,
    schedule,
    start: deps.start ?? (async (state, settings) => {
      await worker.freshStore().save(state, {
        settings
      });
      await schedule(state.runId);
    }),
    onRequest: deps.onRequest ?? (() => {
    }),
    runDefaults: deps.runDefaults ?? {},
    mount: deps.mount ?? {}
  };
}

// server/inspector/spend.ts
var inSubtree = (id, runId) => id === runId || id.startsWith(`${runId}.`);
async function loadSpend(store, run, nodes) {
  const ids = nodes.map((n) => n.runId).filter((id) => inSubtree(id, run.runId));
  if (!ids.includes(run.runId)) ids.unshift(run.runId);
  const perRun = await Promise.all(ids.map(async (id) => (await store.events(id)).flatMap(({ event: e }) => e.type === "turn" ? [
    {
      runId: id,
      turn: e.turn,
      costUsd: e.turnCostUsd,
      at: e.at
    }
  ] : [])));
  const calls = perRun.flat().sort((a, b) => a.at < b.at ? -1 : a.at > b.at ? 1 : 0);
  return {
    budgetUsd: run.limits.maxBudgetUsd,
    spentUsd: run.costUsd,
    calls
  };
}

// server/inspector/html.ts
import { html as honoHtml, raw } from "hono/html";
function html(strings, ...values) {
  const out = honoHtml(strings, ...values);
  if (out instanceof Promise) throw new TypeError("html: a Promise was interpolated");
  return out;
}

// server/inspector/format.ts
function runHref(id) {
  return `/ui/runs/${encodeURIComponent(id)}`;
}
function formatUsd(usd3) {
  if (!Number.isFinite(usd3) || usd3 === 0) return "$0";
  if (Math.abs(usd3) >= 1) return `$${usd3.toFixed(2)}`;
  return `$${usd3.toFixed(6)}`;
}
function formatTime(iso) {
  const ms2 = Date.parse(iso);
  if (Number.isNaN(ms2)) return iso;
  return new Date(ms2).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}
function time(iso) {
  return html`<time datetime="${iso}">${formatTime(iso)}</time>`;
}
function clip(text, max) {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${cutText(flat, max - 1)}\u2026` : flat;
}
function runLabel(id, rootLabel) {
  const dot = id.indexOf(".");
  if (dot > 0) return id.slice(dot + 1);
  return rootLabel ?? id.slice(0, 8);
}
function prettyArgs(args) {
  if (typeof args === "string") {
    try {
      return JSON.stringify(JSON.parse(args), null, 2);
    } catch {
      return args;
    }
  }
  return JSON.stringify(args, null, 2) ?? String(args);
}
function taskOf(messages) {
  const m = messages.find((m2) => m2.role === "user");
  return m?.content ?? "";
}

// server/inspector/budget_picture.ts
var W = 1e3;
var BAR_H = 18;
var CHART_H = 200;
var PAD = {
  left: 8,
  right: 8,
  top: 10,
  bottom: 18
};
var n2 = (x) => Math.round(x * 100) / 100;
function renderBudgetBar(s) {
  const scale = Math.max(s.budgetUsd, s.spentUsd) || 1;
  const within = Math.min(s.spentUsd, s.budgetUsd) / scale * W;
  const over = Math.max(0, s.spentUsd - s.budgetUsd) / scale * W;
  const mark = s.budgetUsd / scale * W;
  return html`<svg class="budget-bar" viewBox="0 0 ${W} ${BAR_H}" preserveAspectRatio="none"
  role="img" aria-label="${spentText(s.spentUsd, s.budgetUsd)}">
<rect class="bar-room" x="0" y="0" width="${W}" height="${BAR_H}"></rect>
<rect class="bar-spent" x="0" y="0" width="${n2(within)}" height="${BAR_H}"></rect>
${over > 0 ? html`<rect class="bar-over" x="${n2(within)}" y="0" width="${n2(over)}" height="${BAR_H}"></rect>` : ""}
<line class="bar-budget" x1="${n2(mark)}" x2="${n2(mark)}" y1="0" y2="${BAR_H}"></line>
</svg>`;
}
function renderSpendChart(s, rootId) {
  const n = s.calls.length;
  if (n === 0) return html`<p class="muted">No model call yet.</p>`;
  let total = 0;
  const running = s.calls.map((call) => ({
    call,
    total: total += call.costUsd
  }));
  const top = Math.max(s.budgetUsd, total, 1e-9) * 1.08;
  const biggest = Math.max(...s.calls.map((c) => c.costUsd), 1e-9);
  const plotH = CHART_H - PAD.top - PAD.bottom;
  const step = (W - PAD.left - PAD.right) / n;
  const x = (i) => PAD.left + step * (i + 0.5);
  const y = (usd3) => PAD.top + plotH * (1 - usd3 / top);
  const barH = (usd3) => plotH * 0.35 * usd3 / biggest;
  const points = running.map(({ total: t }, i) => `${n2(x(i))},${n2(y(t))}`).join(" ");
  const calls = running.map(({ call: c, total: t }, i) => {
    const who = c.runId === rootId ? "root" : runLabel(c.runId);
    const words = `call ${i + 1} (${who}, turn ${c.turn}): $${c.costUsd.toFixed(6)}, total $${t.toFixed(6)}`;
    const over = t > s.budgetUsd ? " over" : "";
    const h = barH(c.costUsd);
    return html`
      <g class="call${over}" data-words="${words}">
        <title>${words}</title>
        <rect class="call-cost" x="${n2(x(i) - step * 0.3)}" y="${n2(CHART_H - PAD.bottom - h)}"
          width="${n2(step * 0.6)}" height="${n2(h)}"></rect>
        <circle class="call-total" cx="${n2(x(i))}" cy="${n2(y(t))}" r="${n > 60 ? 2 : 3.5}"></circle>
      </g>
    `;
  });
  const by = n2(y(s.budgetUsd));
  return html`<svg class="spend-chart" viewBox="0 0 ${W} ${CHART_H}" role="img"
  aria-label="running total after each of ${n} model calls against the budget">
<line class="axis" x1="${PAD.left}" x2="${W - PAD.right}" y1="${CHART_H - PAD.bottom}"
 y2="${CHART_H - PAD.bottom}"></line>
<line class="budget-line" x1="${PAD.left}" x2="${W - PAD.right}" y1="${by}" y2="${by}"></line>
<text class="budget-label" x="${PAD.left}" y="${n2(by - 5)}">budget $${s.budgetUsd.toFixed(6)}</text>
<polyline class="total-line" points="${points}"></polyline>
${calls}
<text class="axis-label" x="${PAD.left}" y="${CHART_H - 4}">call 1</text>
<text class="axis-label end" x="${W - PAD.right}" y="${CHART_H - 4}">call ${n}</text>
</svg>`;
}
function renderBudget(s, rootId) {
  const over = s.spentUsd - s.budgetUsd;
  const [spent, budget] = usdPair(s.spentUsd, s.budgetUsd);
  const overWords = over > 0 ? html`<span class="over-words">over by ${usdPair(over, 0)[0]}</span>` : html`<span class="muted">${usdPair(Math.max(0, -over), 0)[0]} left</span>`;
  return html`<div class="budget${over > 0 ? " is-over" : ""}">
<div class="budget-head"><h2>Budget</h2>
<p class="budget-words"><b>${spent}</b> of ${budget} (${percentOf(s.spentUsd, s.budgetUsd)}) ${overWords}</p></div>
${renderBudgetBar(s)}
<div class="spend-chart-wrap">${renderSpendChart(s, rootId)}</div>
<p class="spend-readout muted" aria-live="polite">Each dot: the running total after a model call;
each bar: that call's own cost. The dashed line is the budget.</p>
</div>`;
}

// server/inspector/static/activity.js
var activity_default = `// The activity log, newest first: one line per event, a call's progress
// updated in place.
import { $ } from "./api.js";
import { argsText, clock, el, exitWords, secs, usd } from "./words.js";

const LOG_MAX = 400;

// A call holding its run without a result: what it waits on.
function suspendedWords(ev) {
  const i = ev.suspended.interruption;
  if (i.type !== "approval") return "stopped: " + ev.suspended.reason;
  return "waits: " + i.toolName + " in a subagent awaits your verdict";
}

// "Budget spent: budget spent: $\u2026" and "Waiting for your verdict: awaiting a verdict: \u2026"
// said the same thing twice: the exit's words, then the reason without what repeats them.
function stopWords(ev) {
  const words = exitWords(ev);
  const reason = String(ev.reason || "").replace(/^awaiting a verdict: /, "");
  if (!reason) return words;
  if (reason.toLowerCase().startsWith(words.toLowerCase())) {
    return words + reason.slice(words.length);
  }
  return words + ": " + reason;
}

function describe(ev) {
  switch (ev.type) {
    case "turn":
      return "turn " + ev.turn + " \xB7 " + ev.total_tokens + " tokens \xB7 +" + usd(ev.turnCostUsd) +
        " \u2192 " + usd(ev.costUsd) + " \xB7 " + ev.finish + " \xB7 " + secs(ev.ms);
    case "compaction":
      return "compaction " + ev.compaction + " (" +
        (ev.strategy === "elide"
          ? ev.elided + " old results elided"
          : "turns 1\u2013" + ev.summarizedTurns + " summarized") +
        ") \xB7 prompt " + ev.tokensBefore +
        " \u2192 " + ev.tokensAfter + " tokens \xB7 +" + usd(ev.compactionCostUsd) + " \u2192 " +
        usd(ev.costUsd);
    case "tool_start": {
      const args = argsText(ev.args, 80);
      return ev.toolName + " started" + (args ? " \xB7 " + args : "");
    }
    case "tool_progress":
      return ev.toolName + ": " + ev.label +
        (typeof ev.fraction === "number" ? " (" + Math.round(ev.fraction * 100) + "%)" : "");
    case "tool_result":
      if (ev.suspended) return ev.toolName + " " + suspendedWords(ev);
      return ev.toolName + (ev.ok ? " done" : " failed: " + (ev.error || "")) +
        (ev.cached
          ? " (from cache)"
          : ev.replayed
          ? " (replayed from the source run, $0)"
          : " in " + secs(ev.ms));
    case "user_message":
      return "you: " + argsText(JSON.stringify(ev.content), 120);
    case "approval_required":
      return ev.toolName + " awaits your verdict (" +
        (ev.why === "uncertain_effect" ? "its effect is uncertain" : "needs approval") + ") " +
        argsText(ev.args, 80);
    case "run_handed_over":
      return "handed over by " + ev.by + " (it goes on elsewhere): " + ev.reason + " \xB7 " +
        ev.turns + (ev.turns === 1 ? " turn \xB7 " : " turns \xB7 ") + usd(ev.costUsd);
    case "run_stopped":
      return stopWords(ev) + " \xB7 " + ev.turns +
        (ev.turns === 1 ? " turn \xB7 " : " turns \xB7 ") +
        usd(ev.costUsd);
  }
  return ev.type;
}

/** Adds event \`ev\` of source \`s\` to the log, in time order. */
export function log(s, ev) {
  const list = $("activity");
  if (!list) return;
  const text = describe(ev);
  if (ev.type === "tool_progress") {
    // One line per call's progress, updated in place.
    const prev = list.querySelector(
      'li[data-progress="' + CSS.escape(s.runId + "|" + ev.callId) + '"]',
    );
    if (prev) {
      prev.querySelector(".ev-text").textContent = text;
      return;
    }
  }
  const li = el(
    "li",
    "ev ev-" + ev.type + (ev.type === "tool_result" && !ev.ok && !ev.suspended ? " failed" : ""),
  );
  li.dataset.at = ev.at;
  if (ev.type === "tool_progress") li.dataset.progress = s.runId + "|" + ev.callId;
  li.append(
    el("span", "ev-time", clock(ev.at)),
    el("span", "ev-node", s.label),
    el("span", "ev-text", text),
  );
  li.querySelector(".ev-node").title = s.runId;
  let before = list.firstElementChild;
  while (before && before.dataset.at > ev.at) before = before.nextElementSibling;
  list.insertBefore(li, before);
  while (list.children.length > LOG_MAX) list.lastElementChild.remove();
}
`;

// server/inspector/static/api.js
var api_default = '// The API from the page: the bearer token (asked once, kept for this tab),\n// fetch with it, JSON answers and the API\'s errors, and the live badge.\nconst TOKEN_KEY = "reins.token";\n\n/** The element with this id. */\nexport const $ = function (id) {\n  return document.getElementById(id);\n};\nexport const sleep = function (ms) {\n  return new Promise(function (r) {\n    setTimeout(r, ms);\n  });\n};\nexport const enc = encodeURIComponent;\n\nfunction ApiError(status, message, field) {\n  const e = new Error(message);\n  e.status = status;\n  e.field = field;\n  return e;\n}\n\n// ---- The bearer token: asked once, kept for this tab.\nlet tokenWaiter = null;\nfunction storedToken() {\n  try {\n    return sessionStorage.getItem(TOKEN_KEY);\n  } catch (_) {\n    return null;\n  }\n}\nfunction askToken(refusal) {\n  if (tokenWaiter) return tokenWaiter;\n  const form = $("auth"), input = $("auth-token"), err = $("auth-error");\n  form.hidden = false;\n  err.hidden = !refusal;\n  err.textContent = refusal ? "The server refused that token: " + refusal : "";\n  input.value = "";\n  input.focus();\n  setLive("needs a token", false);\n  tokenWaiter = new Promise(function (resolve) {\n    form.onsubmit = function (e) {\n      e.preventDefault();\n      const t = input.value.trim();\n      if (!t) return;\n      try {\n        sessionStorage.setItem(TOKEN_KEY, t);\n      } catch (_) { /* private mode */ }\n      form.hidden = true;\n      form.onsubmit = null;\n      tokenWaiter = null;\n      resolve();\n    };\n  });\n  return tokenWaiter;\n}\n\n/** fetch with the token; on a 401 asks for one and tries again. */\nexport async function api(path, init) {\n  init = init || {};\n  for (;;) {\n    const headers = new Headers(init.headers || {});\n    const sent = storedToken();\n    if (sent) headers.set("authorization", "Bearer " + sent);\n    if (init.json !== undefined) headers.set("content-type", "application/json");\n    if (init.idempotencyKey) headers.set("idempotency-key", init.idempotencyKey);\n    const res = await fetch(path, {\n      method: init.method || "GET",\n      headers: headers,\n      body: init.json !== undefined ? JSON.stringify(init.json) : undefined,\n      signal: init.signal,\n      cache: "no-store",\n    });\n    if (res.status !== 401) return res;\n    const answer = await res.json().catch(function () {\n      return null;\n    });\n    if (storedToken() !== sent) continue; // a token was entered meanwhile\n    await askToken(sent ? (answer && answer.error && answer.error.message) || "401" : null);\n  }\n}\n\n/** A fresh Idempotency-Key (`crypto.randomUUID` needs https; this does not). */\nfunction newKey() {\n  const bytes = crypto.getRandomValues(new Uint8Array(16));\n  return Array.from(bytes, function (b) {\n    return b.toString(16).padStart(2, "0");\n  }).join("");\n}\n\n/**\n * Idempotency-Keys for one kind of POST: the same key while the same request\n * is sent again (Send pressed again after a lost answer is then answered\n * once), a new one once it was answered (`done`) or the request changed.\n */\nexport function keyedSends() {\n  let sent = null;\n  let key = null;\n  return {\n    key: function (path, payload) {\n      const text = path + " " + JSON.stringify(payload);\n      if (text !== sent) {\n        sent = text;\n        key = newKey();\n      }\n      return key;\n    },\n    done: function () {\n      sent = null;\n      key = null;\n    },\n  };\n}\n\n/** The JSON answer, or throws the API\'s error (with its status and field). */\nexport async function apiJson(path, init) {\n  const res = await api(path, init);\n  const text = await res.text();\n  let data = null;\n  try {\n    data = text ? JSON.parse(text) : null;\n  } catch (_) {\n    data = null;\n  }\n  if (!res.ok) {\n    const e = data && data.error;\n    throw ApiError(res.status, e && e.message ? e.message : "HTTP " + res.status, e && e.field);\n  }\n  return data;\n}\n\n/** The badge in the header: live, offline, reconnecting, needs a token. */\nexport function setLive(text, ok) {\n  const el = $("live");\n  if (!el) return;\n  el.hidden = false;\n  el.textContent = text;\n  el.className = "live " + (ok ? "on" : "off");\n}\n';

// server/inspector/static/budget.js
var budget_default = `// The budget picture's readout: pointing at a call of the curve (or focusing
// it) says what it cost and the total after it; leaving restores the legend.
import { $ } from "./api.js";

function readout(target) {
  const card = $("budget");
  const line = card && card.querySelector(".spend-readout");
  if (!line) return;
  if (!line.dataset.legend) line.dataset.legend = line.textContent;
  const call = target && target.closest ? target.closest("g.call") : null;
  card.querySelectorAll("g.call.pointed").forEach(function (g) {
    g.classList.remove("pointed");
  });
  if (call) call.classList.add("pointed");
  line.textContent = call ? call.dataset.words : line.dataset.legend;
}

/** Follows the pointer over the budget card (its markup is replaced on refresh). */
export function followBudget() {
  const card = $("budget");
  if (!card) return;
  card.addEventListener("pointerover", function (e) {
    readout(e.target);
  });
  card.addEventListener("pointerleave", function () {
    readout(null);
  });
}
`;

// server/inspector/static/controls.js
var controls_default = '// Approve, Reject, Stop, Resume (raising a budget or a turn cap): the forms\n// post to the API; its error is shown under the buttons. `refresh` reloads\n// the run\'s parts afterwards. Each sends an Idempotency-Key: pressed again\n// after a lost answer, the same key (the verdict is given once and answered\n// as at first, not refused as "status is running"); a new one once answered.\nimport { $, apiJson, enc, keyedSends } from "./api.js";\n\nconst controls = keyedSends();\n\nlet noticeTimer = null;\n\nfunction notice(text, ok) {\n  const p = $("controls-error");\n  clearTimeout(noticeTimer);\n  p.hidden = false;\n  p.textContent = text;\n  p.className = "error" + (ok ? " ok" : "");\n  if (ok) noticeTimer = setTimeout(clearDoneNotice, 6000);\n}\n\n/**\n * The run\'s controls changed (it waits, runs or stopped anew): a key kept for\n * a request whose answer was lost belongs to the state before. Pressed now,\n * Stop (or Approve) is a new request, not a replay of the old one.\n */\nexport function forgetKeptKey() {\n  controls.done();\n}\n\n/** Hides "Approved: \u2026", "Resumed: \u2026" (not an error): the tree has moved on. */\nexport function clearDoneNotice() {\n  const p = $("controls-error");\n  if (p && p.classList.contains("ok")) p.hidden = true;\n}\n\n/** The limits a Resume form raises: `{ maxBudgetUsd }` and/or `{ maxTurns }`, or none. */\nfunction limitsOf(form) {\n  const limits = {};\n  ["maxBudgetUsd", "maxTurns"].forEach(function (name) {\n    const input = form.elements[name];\n    if (input && input.value.trim() !== "") limits[name] = Number(input.value);\n  });\n  return Object.keys(limits).length ? limits : null;\n}\n\n/** What a submitted form asks of the API: its name, path, body and the words once done. */\nfunction requestOf(form, submitter) {\n  const rootId = form.dataset.rootId, action = form.dataset.action;\n  const reason = form.elements.reason ? form.elements.reason.value : "";\n  const base = "/runs/" + enc(rootId) + "/";\n  if (action === "verdict") {\n    const callId = form.dataset.callId;\n    const verdict = submitter && submitter.value === "reject" ? "reject" : "approve";\n    return {\n      what: verdict === "approve" ? "Approve" : "Reject",\n      path: base + verdict,\n      payload: verdict === "reject" && reason !== ""\n        ? { callId: callId, reason: reason }\n        : { callId: callId },\n      done: verdict === "approve"\n        ? "Approved: the tree continues."\n        : "Rejected: the model is told why.",\n    };\n  }\n  if (action === "stop") {\n    return {\n      what: "Stop",\n      path: base + "stop",\n      payload: reason.trim() ? { reason: reason.trim() } : {},\n      done: "Stop sent: every run of the tree stops.",\n    };\n  }\n  if (action !== "resume") return null;\n  const limits = limitsOf(form);\n  return {\n    what: "Resume",\n    path: base + "resume",\n    payload: limits ? { limits: limits } : {},\n    done: limits\n      ? "Resumed with the new limit: the tree continues."\n      : "Resumed: the tree continues.",\n  };\n}\n\n/** Handles the submit of every `form[data-action]` on the page. */\nexport function handleControls(refresh) {\n  document.addEventListener("submit", async function (e) {\n    const form = e.target.closest && e.target.closest("form[data-action]");\n    if (!form) return;\n    e.preventDefault();\n    const r = requestOf(form, e.submitter);\n    if (!r) return;\n    const buttons = form.querySelectorAll("button");\n    buttons.forEach(function (b) {\n      b.disabled = true;\n    });\n    try {\n      await apiJson(r.path, {\n        method: "POST",\n        json: r.payload,\n        idempotencyKey: controls.key(r.path, r.payload),\n      });\n      controls.done();\n      notice(r.done, true);\n    } catch (err) {\n      notice(r.what + " refused (" + (err.status || "network") + "): " + err.message, false);\n    } finally {\n      buttons.forEach(function (b) {\n        b.disabled = false;\n      });\n      refresh();\n    }\n  });\n}\n';

// server/inspector/static/conversation.js
var conversation_default = `// The reply box (a follow-up, answered in the same run) and "Fork from here"
// on a turn: the fork's next call is quoted first (nothing is created), then
// the person confirms and the fork starts; the page moves to it.
import { $, apiJson, enc, keyedSends } from "./api.js";

// A reply or fork sent again after a lost answer carries the same key: done once.
const replies = keyedSends();
const forks = keyedSends();

function say(text, ok) {
  const p = $("controls-error");
  p.hidden = false;
  p.textContent = text;
  p.className = "error" + (ok ? " ok" : "");
}

function usd(n) {
  return "$" + n.toFixed(6);
}

/** The words of a quote: the next call's prompt and the reply reserved for it. */
export function quoteWords(q) {
  return "Turn " + q.turn + " would send " + q.promptTokens.toLocaleString("en-US") +
    " prompt tokens (" + usd(q.promptUsd) + ") and reserve up to " +
    q.replyTokens.toLocaleString("en-US") + " reply tokens (" + usd(q.replyUsd) +
    "): at most " + usd(q.totalUsd) + " for that call on " + q.model +
    ". Repeated reads are replayed from this run at $0.";
}

async function sendReply(form, refresh) {
  const input = form.elements.content;
  const content = input.value.trim();
  if (!content) return;
  const button = form.querySelector("button");
  button.disabled = true;
  try {
    const path = "/runs/" + enc(form.dataset.runId) + "/messages";
    const payload = { content: content };
    await apiJson(path, {
      method: "POST",
      json: payload,
      idempotencyKey: replies.key(path, payload),
    });
    replies.done();
    input.value = "";
    say("Sent: the run answers it.", true);
  } catch (err) {
    say("Reply refused (" + (err.status || "network") + "): " + err.message, false);
  } finally {
    button.disabled = false;
    refresh();
  }
}

function quotePanel(button, quote) {
  const old = button.parentElement.querySelector(".fork-quote");
  if (old) old.remove();
  const panel = document.createElement("div");
  panel.className = "fork-quote";
  const p = document.createElement("p");
  p.textContent = quoteWords(quote);
  const go = document.createElement("button");
  go.type = "button";
  go.className = "fork-confirm";
  go.textContent = "Fork and run";
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.textContent = "Cancel";
  cancel.onclick = function () {
    panel.remove();
  };
  panel.append(p, go, cancel);
  button.parentElement.append(panel);
  return go;
}

async function fork(button) {
  const path = "/runs/" + enc(button.dataset.runId) + "/fork";
  const atTurn = Number(button.dataset.turn);
  button.disabled = true;
  try {
    const { quote } = await apiJson(path, { method: "POST", json: { atTurn, quoteOnly: true } });
    const go = quotePanel(button, quote);
    go.onclick = async function () {
      go.disabled = true;
      try {
        const payload = { atTurn: atTurn };
        const idempotencyKey = forks.key(path, payload);
        const made = await apiJson(path, { method: "POST", json: payload, idempotencyKey });
        forks.done();
        location.href = "/ui/runs/" + enc(made.runId);
      } catch (err) {
        say("Fork refused (" + (err.status || "network") + "): " + err.message, false);
        go.disabled = false;
      }
    };
  } catch (err) {
    say("Quote refused (" + (err.status || "network") + "): " + err.message, false);
  } finally {
    button.disabled = false;
  }
}

/** Handles the reply form and the fork buttons of the run page. */
export function handleConversation(refresh) {
  document.addEventListener("submit", function (e) {
    const form = e.target.closest && e.target.closest("form[data-action=reply]");
    if (!form) return;
    e.preventDefault();
    sendReply(form, refresh);
  });
  document.addEventListener("click", function (e) {
    const button = e.target.closest && e.target.closest("button[data-action=fork]");
    if (button) fork(button);
  });
}
`;

// server/inspector/static/events.js
var events_default = '// A run\'s events: fetch streaming of the SSE endpoint (the token goes in a\n// header), or one poll of what is stored. Each event goes to `onEvent(s, seq, ev)`.\nimport { api, enc, setLive, sleep } from "./api.js";\n\nlet unloading = false;\nglobalThis.addEventListener("pagehide", function () {\n  unloading = true;\n});\n\nfunction parseBlocks(s, text, onEvent) {\n  text.split("\\n\\n").forEach(function (block) {\n    let id = null;\n    const data = [];\n    block.split("\\n").forEach(function (line) {\n      if (line.slice(0, 3) === "id:") id = line.slice(3).trim();\n      else if (line.slice(0, 5) === "data:") data.push(line.slice(5).replace(/^ /, ""));\n    });\n    if (id === null || !data.length) return;\n    let ev;\n    try {\n      ev = JSON.parse(data.join("\\n"));\n    } catch (_) {\n      return;\n    }\n    onEvent(s, Number(id), ev);\n  });\n}\n\n/** Follows the events of source `s` after `s.after`, reconnecting until the page goes. */\nexport async function stream(s, onEvent) {\n  s.streaming = true;\n  while (!unloading) {\n    try {\n      const res = await api("/runs/" + enc(s.runId) + "/events?after=" + s.after, {\n        headers: { accept: "text/event-stream" },\n      });\n      if (!res.ok) {\n        const err = await res.json().catch(function () {\n          return null;\n        });\n        throw new Error((err && err.error && err.error.message) || "HTTP " + res.status);\n      }\n      setLive("live", true);\n      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();\n      let buf = "";\n      for (;;) {\n        const chunk = await reader.read();\n        if (chunk.done) break;\n        buf += chunk.value.replace(/\\r\\n?/g, "\\n");\n        const at = buf.lastIndexOf("\\n\\n");\n        if (at >= 0) {\n          parseBlocks(s, buf.slice(0, at), onEvent);\n          buf = buf.slice(at + 2);\n        }\n      }\n    } catch (e) {\n      if (unloading) return;\n      setLive("reconnecting: " + e.message, false);\n    }\n    await sleep(1000);\n  }\n}\n\n/** Reads the events of source `s` stored after `s.after`, once. */\nexport async function poll(s, onEvent) {\n  if (s.polling) return;\n  s.polling = true;\n  try {\n    const res = await api("/runs/" + enc(s.runId) + "/events?follow=false&after=" + s.after);\n    if (res.ok) parseBlocks(s, (await res.text()).replace(/\\r\\n?/g, "\\n"), onEvent);\n  } catch (_) {\n    // The next refresh polls again.\n  } finally {\n    s.polling = false;\n  }\n}\n';

// server/inspector/static/main.js
var main_default = `// The page's entry module: marks the page as scripted (what is \`needs-js\`
// shows), then enhances the run list or a run's page. Without JavaScript
// both still read: the server renders them whole.
import { $, apiJson, setLive, sleep } from "./api.js";
import { runPage } from "./run_page.js";
import { newRunForm } from "./new_run.js";

document.documentElement.classList.add("js");

/** The run list, refreshed from the server's fragment. */
async function listPage() {
  const target = $("runs");
  let last = null;
  for (;;) {
    try {
      const data = await apiJson("/ui/parts/runs");
      if (data.html !== last) target.innerHTML = data.html;
      last = data.html;
      setLive("live", true);
    } catch (e) {
      setLive("offline: " + e.message, false);
    }
    await sleep(document.hidden ? 6000 : 2000);
  }
}

const body = document.body;
if (body.dataset.page === "list") (newRunForm(), listPage());
else if (body.dataset.page === "run") runPage(body.dataset.runId);
`;

// server/inspector/static/new_run.js
var new_run_default = `// The run list's "Start a run" form: posts { agent, task } to POST /runs
// (with an Idempotency-Key: Start pressed again after a lost answer makes one
// run) and opens the new run's page.
import { $, apiJson, keyedSends } from "./api.js";

const starts = keyedSends();

/** Wires the form, if the page has one. */
export function newRunForm() {
  const form = $("new-run");
  if (!form) return;
  const error = $("new-run-error");
  form.addEventListener("submit", async function (e) {
    e.preventDefault();
    const task = $("new-run-task").value.trim();
    if (!task) return;
    error.hidden = true;
    try {
      const payload = { agent: $("new-run-agent").value, task: task };
      const run = await apiJson("/runs", {
        method: "POST",
        json: payload,
        idempotencyKey: starts.key("/runs", payload),
      });
      starts.done();
      location.href = "/ui/runs/" + encodeURIComponent(run.runId);
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  });
}
`;

// server/inspector/static/run_page.js
var run_page_default = '// One run\'s page: refreshes the server-rendered parts (summary, budget,\n// controls, tree, transcript), streams the events of running runs (at most\n// MAX_STREAMS at once), polls the others when their status changes.\nimport { $, apiJson, enc, setLive, sleep } from "./api.js";\nimport { log } from "./activity.js";\nimport { followBudget } from "./budget.js";\nimport { clearDoneNotice, forgetKeptKey, handleControls } from "./controls.js";\nimport { handleConversation } from "./conversation.js";\nimport { poll, stream } from "./events.js";\nimport { readServerRows, renderTools, source, sources, tools } from "./tree.js";\nimport { renderTyping, typing } from "./typing.js";\n\nconst MAX_STREAMS = 4;\n\n/** The page of run `runId`: what was last shown, and what is being watched. */\nfunction pageState(runId) {\n  return {\n    runId: runId,\n    streams: 0,\n    last: { summary: null, budget: null, controls: null, tree: null, count: -1 },\n    running: true,\n    timer: null,\n    inFlight: null,\n    again: false,\n  };\n}\n\n/** Refreshes the parts soon (once, however often it is asked before then). */\nfunction scheduleRefresh(p, ms) {\n  if (p.timer) return;\n  p.timer = setTimeout(function () {\n    p.timer = null;\n    refresh(p);\n  }, ms == null ? 250 : ms);\n}\n\nasync function refresh(p) {\n  if (p.inFlight) {\n    p.again = true;\n    return p.inFlight;\n  }\n  p.inFlight = (async function () {\n    try {\n      apply(p, await apiJson("/ui/parts/runs/" + enc(p.runId)));\n    } catch (e) {\n      setLive("offline: " + e.message, false);\n      if (e.status === 404) $("summary").textContent = e.message;\n    }\n  })();\n  await p.inFlight;\n  p.inFlight = null;\n  if (p.again) {\n    p.again = false;\n    scheduleRefresh(p, 0);\n  }\n}\n\n/** Puts the parts that changed on the page. */\nfunction showParts(p, d) {\n  const last = p.last;\n  if (d.summary !== last.summary) $("summary").innerHTML = d.summary;\n  if (d.budget !== last.budget) $("budget").innerHTML = d.budget || "";\n  if (d.controls !== last.controls) {\n    replaceKeepingInput($("controls"), d.controls);\n    // "Approved: the tree continues" is stale once the tree waits or stops again.\n    if (last.controls !== null && d.rootStatus !== "running") clearDoneNotice();\n    if (last.controls !== null) forgetKeptKey();\n  }\n  $("controls-card").hidden = false;\n  $("controls").classList.remove("needs-js");\n  if (d.tree !== last.tree) {\n    $("tree").innerHTML = d.tree;\n    readServerRows();\n    sources.forEach(function (s) {\n      renderTools(s);\n      renderTyping(s, p.runId);\n    });\n  }\n  if (d.messageCount !== last.count) {\n    $("transcript").innerHTML = d.transcript;\n    const count = $("message-count");\n    if (count) count.textContent = "(" + d.messageCount + " messages)";\n    if (sources.has(p.runId)) renderTyping(sources.get(p.runId), p.runId);\n  }\n  p.last = {\n    summary: d.summary,\n    budget: d.budget,\n    controls: d.controls,\n    tree: d.tree,\n    count: d.messageCount,\n  };\n}\n\nfunction apply(p, d) {\n  setLive("live", true);\n  showParts(p, d);\n  p.running = d.nodes.some(function (n) {\n    return n.status === "running";\n  });\n  d.nodes.forEach(function (n) {\n    const s = source(n.runId, n.depth);\n    const changed = s.status !== n.status;\n    s.status = n.status;\n    if (s.streaming) return;\n    const onEvent = function (s, seq, ev) {\n      eventOf(p, s, seq, ev);\n    };\n    if (n.status === "running" && p.streams < MAX_STREAMS) {\n      p.streams++;\n      stream(s, onEvent);\n    } else if (changed || n.status === "running") poll(s, onEvent);\n  });\n}\n\nfunction eventOf(p, s, seq, ev) {\n  if (!(seq > s.after)) return;\n  s.after = seq;\n  // Streamed words are typed where they belong, not logged one by one.\n  typing(s, ev, p.runId);\n  if (ev.type === "text_delta") return;\n  log(s, ev);\n  tools(s, ev);\n  if (ev.type !== "tool_progress" && ev.type !== "tool_start") scheduleRefresh(p);\n}\n\n/** Runs the page of run `runId`, forever. */\nexport async function runPage(runId) {\n  const p = pageState(runId);\n  handleControls(function () {\n    return refresh(p);\n  });\n  handleConversation(function () {\n    return refresh(p);\n  });\n  followBudget();\n  await refresh(p);\n  for (;;) {\n    await sleep(p.running ? 1500 : 4000);\n    if (!document.hidden) await refresh(p);\n  }\n}\n\nfunction replaceKeepingInput(target, markup) {\n  // Keep what was typed (and the focus) in forms that survive the refresh.\n  const keep = {};\n  let focused = null;\n  const key = function (input) {\n    const f = input.form;\n    return f.dataset.action + "|" + (f.dataset.callId || "") + "|" + input.name;\n  };\n  target.querySelectorAll("form[data-action] input[name]").forEach(function (input) {\n    keep[key(input)] = input.value;\n    if (document.activeElement === input) focused = key(input);\n  });\n  target.innerHTML = markup;\n  target.querySelectorAll("form[data-action] input[name]").forEach(function (input) {\n    if (key(input) in keep) input.value = keep[key(input)];\n    if (key(input) === focused) input.focus();\n  });\n}\n';

// server/inspector/static/tree.js
var tree_default = '// The runs of the tree as event sources, and what each tool is doing under\n// its run: rows from live events merged with the rows the server rendered.\nimport { argsText, el, secs } from "./words.js";\n\n/** runId -> { runId, label, after, status, streaming, polling, tools, serverRows } */\nexport const sources = new Map();\n\n/** The source of run `id` (at `depth` in the tree), made on first sight. */\nexport function source(id, depth) {\n  let s = sources.get(id);\n  if (!s) {\n    const dot = id.indexOf(".");\n    s = {\n      runId: id,\n      label: depth === 0 ? "root" : dot > 0 ? id.slice(dot + 1) : id.slice(0, 8),\n      after: -1,\n      status: null,\n      streaming: false,\n      polling: false,\n      tools: new Map(), // callId -> row, from live events\n      serverRows: new Map(), // callId -> row, from the server\'s tree\n    };\n    sources.set(id, s);\n  }\n  return s;\n}\n\n/** A call\'s row once its result (or its suspension) is known. */\nfunction resultRow(x, ev) {\n  if (ev.suspended) {\n    // No result: the call holds its run (its subagent awaits a verdict).\n    const i = ev.suspended.interruption;\n    x.state = i.type === "approval" ? "child-waiting" : "stopped";\n    x.label = i.type === "approval"\n      ? "waits on your verdict on " + i.toolName + " in a subagent"\n      : ev.suspended.reason;\n    return x;\n  }\n  x.state = ev.ok ? "ok" : "failed";\n  if (ev.ok) x.fraction = 1;\n  x.label = ev.ok\n    ? (ev.cached ? "from cache" : ev.replayed ? "replayed, $0" : "done in " + secs(ev.ms))\n    : ev.error || "failed";\n  return x;\n}\n\n/** Rows still running when their run stops (or goes elsewhere) stop; the label keeps how far. */\nfunction stopRows(t, ev) {\n  t.forEach(function (v) {\n    if (v.state === "running") v.state = "stopped";\n    if (\n      ev.type === "run_stopped" && (v.state === "waiting" || v.state === "child-waiting") &&\n      ev.status !== "interrupted"\n    ) v.state = "stopped";\n  });\n}\n\n/** Updates the live tool rows of source `s` with event `ev`, and shows them. */\nexport function tools(s, ev) {\n  const t = s.tools;\n  let x;\n  switch (ev.type) {\n    case "turn":\n      t.forEach(function (v, k) {\n        if (v.state !== "running" && v.state !== "waiting") t.delete(k);\n      });\n      break;\n    case "tool_start":\n      t.set(ev.callId, {\n        name: ev.toolName,\n        state: "running",\n        label: argsText(ev.args, 80),\n        fraction: null,\n      });\n      break;\n    case "tool_progress":\n      x = t.get(ev.callId) || { name: ev.toolName, state: "running", fraction: null };\n      x.label = ev.label;\n      if (typeof ev.fraction === "number") x.fraction = ev.fraction;\n      t.set(ev.callId, x);\n      break;\n    case "tool_result":\n      x = t.get(ev.callId) || { name: ev.toolName, fraction: null, label: "" };\n      t.set(ev.callId, resultRow(x, ev));\n      break;\n    case "approval_required":\n      t.set(ev.callId, {\n        name: ev.toolName,\n        state: "waiting",\n        label: "awaits your verdict",\n        fraction: null,\n      });\n      break;\n    case "run_handed_over": // the run goes on elsewhere: a call cut short here starts again there\n    case "run_stopped":\n      stopRows(t, ev);\n      break;\n    default:\n      return;\n  }\n  renderTools(s);\n}\n\nconst STATE_WORDS = {\n  running: "running",\n  ok: "done",\n  failed: "failed",\n  stopped: "stopped",\n  waiting: "waiting",\n  "child-waiting": "waiting",\n  rejected: "rejected",\n};\n// What only the server knows (no event says it): a rejection, a call held\n// by its subagent\'s verdict, and that a call no longer awaits one.\nconst SERVER_WINS = { rejected: true, waiting: true, "child-waiting": true };\n\n/** Reads the tool rows the server put in the tree into each run\'s source. */\nexport function readServerRows() {\n  document.querySelectorAll("[data-tools-for]").forEach(function (slot) {\n    const node = slot.closest("[data-depth]");\n    const s = source(slot.dataset.toolsFor, node ? Number(node.dataset.depth) : 1);\n    s.serverRows = new Map();\n    slot.querySelectorAll(".tool[data-call-id]").forEach(function (row) {\n      s.serverRows.set(row.dataset.callId, {\n        name: row.querySelector(".tool-name").textContent,\n        state: row.dataset.state,\n        label: row.querySelector(".tool-label").textContent,\n        fraction: row.dataset.state === "ok" ? 1 : null,\n      });\n    });\n  });\n}\n\nfunction rowsOf(s) {\n  const rows = new Map(s.tools);\n  // A verdict awaited by a live row is over unless the server still says so.\n  rows.forEach(function (v, callId) {\n    const known = s.serverRows.get(callId);\n    if (\n      (v.state === "waiting" || v.state === "child-waiting") &&\n      !(known && known.state === v.state)\n    ) rows.delete(callId);\n  });\n  s.serverRows.forEach(function (v, callId) {\n    if (!rows.has(callId) || SERVER_WINS[v.state]) rows.set(callId, v);\n  });\n  return rows;\n}\n\n/** Shows the tool rows of source `s` under its run in the tree. */\nexport function renderTools(s) {\n  const slot = document.querySelector(\'[data-tools-for="\' + CSS.escape(s.runId) + \'"]\');\n  if (!slot) return;\n  const rows = [];\n  rowsOf(s).forEach(function (v, callId) {\n    const row = el("div", "tool state-" + v.state);\n    row.dataset.callId = callId;\n    row.dataset.state = v.state;\n    const bar = document.createElement("progress");\n    bar.max = 1;\n    if (v.fraction !== null && v.fraction !== undefined) bar.value = v.fraction;\n    else if (v.state !== "running") bar.value = 0;\n    row.append(\n      el("span", "tool-name", v.name),\n      bar,\n      el("span", "tool-label", v.label || ""),\n      el("span", "tool-state", STATE_WORDS[v.state] || v.state),\n    );\n    row.querySelector(".tool-label").title = v.label || "";\n    rows.push(row);\n  });\n  slot.replaceChildren.apply(slot, rows);\n}\n';

// server/inspector/static/typing.js
var typing_default = '// The model\'s words as they stream (text_delta events): typed into the run\'s\n// node in the tree and, for the page\'s own run, into a reply being written at\n// the end of the transcript. The committed reply (after the next refresh)\n// replaces them.\nimport { $ } from "./api.js";\nimport { el } from "./words.js";\n\n/** Shows `text_delta` event `ev` of source `s`; a turn or a stop ends the reply being typed. */\nexport function typing(s, ev, pageRunId) {\n  if (ev.type === "text_delta") {\n    // A reset: the call is retried, the words typed so far were void.\n    if (s.typingTurn !== ev.turn || ev.reset) s.typing = "";\n    s.typingTurn = ev.turn;\n    s.typing = (s.typing || "") + ev.delta;\n  } else if (ev.type === "turn" || ev.type === "run_stopped" || ev.type === "run_handed_over") {\n    s.typing = "";\n  } else return;\n  renderTyping(s, pageRunId);\n}\n\n/** Draws what source `s` is typing (or removes it when it types nothing). */\nexport function renderTyping(s, pageRunId) {\n  const text = s.typing || "";\n  const slot = document.querySelector(\'[data-tools-for="\' + CSS.escape(s.runId) + \'"]\');\n  if (slot) {\n    let line = slot.parentElement.querySelector(":scope > [data-typing-for]");\n    if (!text) {\n      if (line) line.remove();\n    } else {\n      if (!line) {\n        line = el("div", "typing");\n        line.dataset.typingFor = s.runId;\n        slot.before(line);\n      }\n      // The node shows the last words; the transcript has the whole reply.\n      line.textContent = text.length > 160 ? "\u2026" + text.slice(-160) : text;\n    }\n  }\n  if (s.runId !== pageRunId) return;\n  const list = $("transcript") && $("transcript").querySelector("ol.transcript");\n  if (!list) return;\n  let msg = list.querySelector(":scope > li.msg.typing");\n  if (!text) {\n    if (msg) msg.remove();\n    return;\n  }\n  if (!msg) {\n    msg = el("li", "msg assistant typing");\n    msg.append(el("span", "role", "model \xB7 writing"), el("pre", "", ""));\n    list.append(msg);\n  }\n  msg.querySelector("pre").textContent = text;\n}\n';

// server/inspector/static/words.js
var words_default = `// Formatting (mirrors the server's words) and the one element builder.
export function usd(n) {
  if (typeof n !== "number" || !isFinite(n) || n === 0) return "$0";
  const a = Math.abs(n);
  return "$" + n.toFixed(a >= 1 ? 2 : 6);
}
export function clock(iso) {
  const d = new Date(iso);
  return isNaN(d) ? "" : d.toLocaleTimeString([], { hour12: false });
}
export function secs(ms) {
  return ms >= 1000 ? (ms / 1000).toFixed(1) + " s" : Math.round(ms) + " ms";
}
// Never cut between the two halves of a surrogate pair (mirrors harness/text.ts).
function cutChars(text, max) {
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
function short(text, max) {
  text = String(text == null ? "" : text).replace(/\\s+/g, " ").trim();
  return text.length > max ? cutChars(text, max - 1) + "\u2026" : text;
}
export function argsText(raw, max) {
  // {"question":"Why?"} reads as: question: Why?
  let v;
  try {
    v = JSON.parse(raw);
  } catch (_) {
    return short(raw, max);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return short(raw, max);
  return short(
    Object.keys(v).map(function (k) {
      return k + ": " + (typeof v[k] === "string" ? v[k] : JSON.stringify(v[k]));
    }).join(", "),
    max,
  );
}
export function exitWords(ev) {
  const i = ev.interruption;
  switch (ev.status) {
    case "completed":
      return "Completed";
    case "failed":
      return "Failed";
    case "max_turns_exceeded":
      return "Turn limit reached";
    case "budget_exceeded":
      return "Budget spent";
    case "interrupted":
      if (i && i.type === "approval") return "Waiting for your verdict";
      if (i && i.type === "cancelled") return "Stopped";
      return "Interrupted";
  }
  return String(ev.status);
}
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
`;

// server/inspector/static/base.css
var base_default = ':root {\n  --bg: #f4f5f7;\n  --card: #ffffff;\n  --ink: #1b2230;\n  --muted: #667085;\n  --line: #e3e6eb;\n  --mono: ui-monospace, SFMono-Regular, "DejaVu Sans Mono", Menlo, Consolas, monospace;\n  --running: #1d4ed8;\n  --running-bg: #e6eeff;\n  --waiting: #b45309;\n  --waiting-bg: #fff3dc;\n  --done: #15803d;\n  --done-bg: #e5f5ea;\n  --stopped: #475467;\n  --stopped-bg: #eceef2;\n  --limit: #6d28d9;\n  --limit-bg: #efe9fe;\n  --failed: #b42318;\n  --failed-bg: #fdeceb;\n  --stopping: #c2410c;\n  --stopping-bg: #ffede3;\n}\n* {\n  box-sizing: border-box;\n}\nhtml {\n  background: var(--bg);\n  color: var(--ink);\n}\nbody {\n  margin: 0;\n  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans",\n    sans-serif;\n}\na {\n  color: #1f4fbf;\n  text-decoration: none;\n}\na:hover {\n  text-decoration: underline;\n}\ncode,\npre,\n.mono {\n  font-family: var(--mono);\n  font-size: 13px;\n}\npre {\n  margin: 0;\n  white-space: pre-wrap;\n  overflow-wrap: anywhere;\n}\nh1,\nh2 {\n  margin: 0;\n  line-height: 1.25;\n}\nh1 {\n  font-size: 20px;\n}\nh2 {\n  font-size: 15px;\n  text-transform: uppercase;\n  letter-spacing: .04em;\n  color: var(--muted);\n  margin-bottom: 12px;\n}\n.muted {\n  color: var(--muted);\n  font-weight: normal;\n  text-transform: none;\n  letter-spacing: 0;\n}\n[hidden] {\n  display: none !important;\n}\nhtml:not(.js) .needs-js {\n  display: none !important;\n}\n\n/* Header */\n.top {\n  display: flex;\n  align-items: center;\n  gap: 24px;\n  padding: 12px 28px;\n  background: #111827;\n  color: #e5e7eb;\n}\n.top a {\n  color: #e5e7eb;\n}\n.brand {\n  font-weight: 700;\n  font-size: 17px;\n  letter-spacing: .01em;\n}\n.brand span {\n  font-weight: 400;\n  color: #9ca3af;\n}\n.top nav {\n  flex: 1;\n}\n.live {\n  font-size: 13px;\n  color: #9ca3af;\n  display: inline-flex;\n  align-items: center;\n  gap: 6px;\n}\n.live::before {\n  content: "";\n  width: 8px;\n  height: 8px;\n  border-radius: 50%;\n  background: #6b7280;\n}\n.live.on::before {\n  background: #22c55e;\n}\n.live.off {\n  color: #fca5a5;\n}\n.live.off::before {\n  background: #ef4444;\n}\n\nmain {\n  max-width: 1200px;\n  margin: 0 auto;\n  padding: 22px 28px 60px;\n}\n.card {\n  background: var(--card);\n  border: 1px solid var(--line);\n  border-radius: 10px;\n  padding: 18px 22px;\n  margin-bottom: 16px;\n  box-shadow: 0 1px 2px rgba(16, 24, 40, .04);\n}\n.card-head {\n  display: flex;\n  align-items: baseline;\n  gap: 14px;\n  margin-bottom: 8px;\n}\n.columns {\n  display: grid;\n  grid-template-columns: minmax(0, 1.15fr) minmax(0, 1fr);\n  gap: 16px;\n}\n.columns > .card {\n  margin-bottom: 16px;\n}\n@media (max-width: 920px) {\n  .columns {\n    grid-template-columns: 1fr;\n  }\n}\n\n/* Token form */\n.auth {\n  max-width: 1200px;\n  margin: 18px auto 0;\n  padding: 16px 22px;\n  background: var(--waiting-bg);\n  border: 1px solid #f5c77e;\n  border-radius: 10px;\n}\n.auth label {\n  display: block;\n  margin-bottom: 8px;\n  font-weight: 600;\n}\n.locked {\n  color: var(--muted);\n}\n\n/* Status badges */\n.badge {\n  display: inline-flex;\n  align-items: center;\n  gap: 6px;\n  white-space: nowrap;\n  padding: 2px 10px 2px 8px;\n  border-radius: 999px;\n  font-size: 13px;\n  font-weight: 600;\n  color: var(--c);\n  background: var(--b);\n}\n.badge::before {\n  content: "";\n  width: 8px;\n  height: 8px;\n  border-radius: 50%;\n  background: var(--c);\n}\n.tone-running {\n  --c: var(--running);\n  --b: var(--running-bg);\n}\n.tone-waiting {\n  --c: var(--waiting);\n  --b: var(--waiting-bg);\n}\n.tone-done {\n  --c: var(--done);\n  --b: var(--done-bg);\n}\n.tone-stopped {\n  --c: var(--stopped);\n  --b: var(--stopped-bg);\n}\n.tone-limit {\n  --c: var(--limit);\n  --b: var(--limit-bg);\n}\n.tone-failed {\n  --c: var(--failed);\n  --b: var(--failed-bg);\n}\n.tone-stopping {\n  --c: var(--stopping);\n  --b: var(--stopping-bg);\n}\n.badge.tone-running::before,\n.badge.tone-stopping::before {\n  animation: pulse 1.2s ease-in-out infinite;\n}\n@keyframes pulse {\n  50% {\n    opacity: .25;\n  }\n}\n';

// server/inspector/static/runs.css
var runs_default = "/* Run list */\n.tally {\n  display: flex;\n  flex-wrap: wrap;\n  gap: 8px;\n  margin: 4px 0 14px;\n}\n.tally-item {\n  padding: 3px 12px;\n  border-radius: 8px;\n  background: var(--b);\n  color: var(--c);\n  font-size: 14px;\n}\n.tally-item.zero {\n  background: #f2f4f7;\n  color: var(--muted);\n}\n.empty {\n  color: var(--muted);\n}\ntable.runs {\n  width: 100%;\n  border-collapse: collapse;\n}\n.runs th {\n  text-align: left;\n  font-size: 12px;\n  text-transform: uppercase;\n  letter-spacing: .05em;\n  color: var(--muted);\n  font-weight: 600;\n  padding: 6px 10px;\n  border-bottom: 1px solid var(--line);\n}\n.runs td {\n  padding: 10px;\n  border-bottom: 1px solid var(--line);\n  vertical-align: top;\n}\n.runs tr:last-child td {\n  border-bottom: 0;\n}\n.runs tbody tr:hover {\n  background: #fafbfc;\n}\n.runs td.status {\n  border-left: 4px solid var(--c);\n  width: 260px;\n}\n.runs .why {\n  font-size: 13px;\n  color: var(--muted);\n  margin-top: 4px;\n}\n.runs .task a {\n  font-weight: 600;\n  color: var(--ink);\n}\n.runs .sub {\n  font-size: 12px;\n  color: var(--muted);\n}\n.num {\n  text-align: right;\n  font-variant-numeric: tabular-nums;\n  white-space: nowrap;\n}\n.runs .model {\n  font-family: var(--mono);\n  font-size: 13px;\n  color: var(--muted);\n  white-space: nowrap;\n}\n.runs .when {\n  font-size: 13px;\n  color: var(--muted);\n  white-space: nowrap;\n}\n\n/* Run head */\n.head {\n  border-left: 5px solid var(--c);\n  padding-left: 16px;\n}\n.head .state {\n  display: flex;\n  align-items: center;\n  gap: 12px;\n  flex-wrap: wrap;\n}\n.head .badge {\n  font-size: 15px;\n  padding: 4px 14px 4px 10px;\n}\n.head .why {\n  margin: 0;\n  color: var(--ink);\n}\n.task-title {\n  margin: 12px 0 6px;\n  font-size: 21px;\n  overflow-wrap: anywhere;\n}\n.crumb {\n  margin: 0 0 6px;\n  color: var(--muted);\n  font-size: 14px;\n}\n.facts {\n  display: flex;\n  flex-wrap: wrap;\n  gap: 8px 28px;\n  margin: 12px 0 0;\n}\n.facts dt {\n  font-size: 12px;\n  color: var(--muted);\n  text-transform: uppercase;\n  letter-spacing: .04em;\n}\n.facts dd {\n  margin: 0;\n  font-weight: 600;\n  font-variant-numeric: tabular-nums;\n}\n.facts dd.cost {\n  font-size: 18px;\n}\n.answer,\n.failure {\n  margin-top: 14px;\n  padding: 12px 14px;\n  border-radius: 8px;\n  background: var(--done-bg);\n}\n.failure {\n  background: var(--failed-bg);\n}\n.answer h2,\n.failure h2 {\n  margin-bottom: 6px;\n}\n";

// server/inspector/static/controls.css
var controls_default2 = '/* Controls */\n.controls-card:has(.verdict) {\n  border-color: #f5c77e;\n}\nform.verdict {\n  background: var(--waiting-bg);\n  margin: -6px -10px;\n  padding: 12px 14px;\n  border-radius: 8px;\n}\nform.verdict h2 {\n  color: var(--waiting);\n}\nform.verdict p {\n  margin: 0 0 8px;\n}\n.tool-ref {\n  font-family: var(--mono);\n  font-size: 14px;\n}\nform + form {\n  margin-top: 14px;\n}\n.row {\n  display: flex;\n  gap: 10px;\n  align-items: center;\n  flex-wrap: wrap;\n}\n.args {\n  background: #f8f9fb;\n  border: 1px solid var(--line);\n  border-radius: 6px;\n  padding: 8px 10px;\n  margin: 6px 0 10px;\n  max-height: 220px;\n  overflow: auto;\n}\n.hint {\n  margin: 6px 0 0;\n  font-size: 13px;\n  color: var(--muted);\n}\ninput[type="text"],\ninput[type="password"] {\n  flex: 1;\n  min-width: 220px;\n  padding: 8px 10px;\n  font: inherit;\n  border: 1px solid #cfd4dc;\n  border-radius: 6px;\n  background: #fff;\n}\ninput:focus,\nbutton:focus-visible {\n  outline: 2px solid #93b4ff;\n  outline-offset: 1px;\n}\nbutton {\n  font: inherit;\n  font-weight: 600;\n  padding: 8px 16px;\n  border-radius: 6px;\n  cursor: pointer;\n  border: 1px solid #cfd4dc;\n  background: #fff;\n  color: var(--ink);\n}\nbutton:hover {\n  background: #f2f4f7;\n}\nbutton:disabled {\n  opacity: .55;\n  cursor: progress;\n}\nbutton.approve {\n  background: var(--done);\n  border-color: var(--done);\n  color: #fff;\n}\nbutton.approve:hover {\n  background: #116932;\n}\nbutton.reject {\n  color: var(--failed);\n  border-color: #f0a8a1;\n}\nbutton.reject:hover {\n  background: var(--failed-bg);\n}\nbutton.danger {\n  background: var(--failed);\n  border-color: var(--failed);\n  color: #fff;\n}\nbutton.danger:hover {\n  background: #912018;\n}\n.error {\n  margin: 12px 0 0;\n  padding: 9px 12px;\n  border-radius: 6px;\n  background: var(--failed-bg);\n  color: var(--failed);\n  border: 1px solid #f5b8b2;\n  overflow-wrap: anywhere;\n}\n.error.ok {\n  background: var(--done-bg);\n  color: var(--done);\n  border-color: #a6dcb6;\n}\n';

// server/inspector/static/tree.css
var tree_default2 = `/* Tree */
.tree {
  list-style: none;
  margin: 0;
  padding: 0;
}
.node {
  padding: 8px 0;
  border-bottom: 1px solid var(--line);
}
.node:last-child {
  border-bottom: 0;
}
.node.here > .node-line .node-id {
  font-weight: 700;
  text-decoration: underline;
}
.node-line {
  display: flex;
  align-items: center;
  gap: 10px;
  min-width: 0;
}
.indent {
  flex: none;
  width: 0;
  height: 1px;
}
.indent[data-depth="1"] {
  width: 22px;
}
.indent[data-depth="2"] {
  width: 44px;
}
.indent[data-depth="3"] {
  width: 66px;
}
.indent[data-depth="4"] {
  width: 88px;
}
.indent[data-depth="5"] {
  width: 110px;
}
.indent[data-depth="6"] {
  width: 132px;
}
.node[data-depth]:not([data-depth="0"]) .indent {
  border-bottom: 1px dashed #cfd4dc;
}
.node-id {
  font-family: var(--mono);
  font-size: 13px;
}
.node-why {
  flex: 1;
  min-width: 0;
  color: var(--muted);
  font-size: 13px;
  white-space: nowrap;
  overflow: hidden;
  text-overflow: ellipsis;
}
.node-num {
  font-variant-numeric: tabular-nums;
  font-size: 13px;
  white-space: nowrap;
}
.node-num.cost {
  font-weight: 600;
  min-width: 80px;
  text-align: right;
}
.tools:empty {
  display: none;
}
.tools {
  margin: 6px 0 0 32px;
  display: grid;
  gap: 4px;
}
.node[data-depth="1"] .tools {
  margin-left: 54px;
}
.node[data-depth="2"] .tools {
  margin-left: 76px;
}
.node[data-depth="3"] .tools {
  margin-left: 98px;
}
/* Scoped to the tree: the transcript's tool results are \`.msg.tool\` and take the full width. */
.tools > .tool {
  display: grid;
  grid-template-columns: minmax(90px, max-content) 120px minmax(0, 1fr) auto;
  gap: 10px;
  align-items: center;
  font-size: 13px;
  padding: 3px 8px;
  border-radius: 6px;
  background: #f8f9fb;
}
.tool-name {
  font-family: var(--mono);
  font-weight: 600;
  overflow: hidden;
  text-overflow: ellipsis;
}
.tool-label {
  color: var(--muted);
  white-space: nowrap;
  overflow: hidden;
  text-overflow: ellipsis;
}
.tool-state {
  font-size: 12px;
  font-weight: 600;
  color: var(--c, var(--muted));
}
.tools > .tool.state-running {
  --c: var(--running);
}
.tools > .tool.state-ok {
  --c: var(--done);
}
.tools > .tool.state-failed {
  --c: var(--failed);
}
.tools > .tool.state-stopped {
  --c: var(--stopped);
}
.tools > .tool.state-waiting,
.tools > .tool.state-child-waiting {
  --c: var(--waiting);
  background: var(--waiting-bg);
}
.tools > .tool.state-rejected {
  --c: var(--failed);
  background: var(--failed-bg);
}
/* A rejection (the words the model read) and whose verdict a call waits on: read whole. */
.tools > .tool.state-rejected .tool-label,
.tools > .tool.state-child-waiting .tool-label {
  color: var(--ink);
  white-space: normal;
  overflow-wrap: anywhere;
}
progress {
  appearance: none;
  -webkit-appearance: none;
  width: 100%;
  height: 8px;
  border: 0;
  border-radius: 4px;
  background: #e4e7ec;
  overflow: hidden;
}
progress::-webkit-progress-bar {
  background: #e4e7ec;
  border-radius: 4px;
}
progress::-webkit-progress-value {
  background: var(--c, var(--running));
  border-radius: 4px;
  transition: width .3s;
}
progress::-moz-progress-bar {
  background: var(--c, var(--running));
}
progress:indeterminate {
  background: linear-gradient(90deg, #e4e7ec 0 35%, #9db8f5 50%, #e4e7ec 65% 100%);
  background-size: 300% 100%;
  animation: sweep 1.6s linear infinite;
}
progress:indeterminate::-webkit-progress-bar {
  background: transparent;
}
@keyframes sweep {
  from {
    background-position: 100% 0;
  }
  to {
    background-position: 0 0;
  }
}
/* The words a node's model is writing, as they stream (not the transcript's li.msg.typing). */
.typing[data-typing-for] {
  margin: 2px 0 4px 28px;
  font-family: var(--mono);
  font-size: 12px;
  color: var(--muted);
  white-space: pre-wrap;
  overflow-wrap: anywhere;
}
.typing[data-typing-for]::after {
  content: "\u258D";
  animation: typing-caret 1s steps(1) infinite;
}
@keyframes typing-caret {
  50% {
    opacity: 0;
  }
}
`;

// server/inspector/static/activity.css
var activity_default2 = `/* Activity */
.activity {
  list-style: none;
  margin: 0;
  padding: 0;
  max-height: 460px;
  overflow: auto;
  font-size: 13px;
  font-variant-numeric: tabular-nums;
}
.activity:empty::after {
  content: "Waiting for events\u2026";
  color: var(--muted);
}
.ev {
  display: grid;
  grid-template-columns: 66px 84px minmax(0, 1fr);
  gap: 8px;
  padding: 4px 2px;
  border-bottom: 1px solid #f0f1f4;
}
.ev-time {
  color: var(--muted);
}
/* A run's whole path below the root: two leaves may end in the same call id. */
.ev-node {
  font-family: var(--mono);
  color: var(--muted);
  overflow-wrap: anywhere;
}
.ev-text {
  overflow-wrap: anywhere;
}
.ev-turn .ev-text b {
  color: var(--ink);
}
.ev-approval_required .ev-text {
  color: var(--waiting);
  font-weight: 600;
}
.ev-run_stopped .ev-text,
.ev-run_handed_over .ev-text {
  font-weight: 600;
}
.ev-tool_result.failed .ev-text {
  color: var(--failed);
}
`;

// server/inspector/static/transcript.css
var transcript_default = '/* Transcript */\n.transcript {\n  list-style: none;\n  margin: 0;\n  padding: 0;\n  display: grid;\n  gap: 10px;\n}\n.msg {\n  border-left: 3px solid var(--c, #cfd4dc);\n  padding: 6px 12px;\n  background: #fafbfc;\n  border-radius: 0 6px 6px 0;\n}\n.msg .role {\n  display: block;\n  font-size: 12px;\n  text-transform: uppercase;\n  letter-spacing: .05em;\n  color: var(--muted);\n  margin-bottom: 4px;\n}\n.msg .role code {\n  text-transform: none;\n  letter-spacing: 0;\n}\n.msg .role b {\n  text-transform: none;\n  letter-spacing: 0;\n  color: var(--ink);\n  font-family: var(--mono);\n}\n.msg.user {\n  --c: var(--running);\n}\n.msg.assistant {\n  --c: #334155;\n  background: #fff;\n}\n.msg.tool {\n  --c: #0f766e;\n}\n.msg.repair {\n  --c: var(--waiting);\n  background: var(--waiting-bg);\n}\n.msg.system {\n  --c: #98a2b3;\n}\n.msg summary {\n  cursor: pointer;\n  color: var(--muted);\n}\n.call {\n  margin-top: 6px;\n}\n.call-name {\n  font-family: var(--mono);\n  font-weight: 700;\n}\n.call-id {\n  color: var(--muted);\n  font-size: 12px;\n}\n.msg.typing pre::after {\n  content: "\u258D";\n  animation: typing-caret 1s steps(1) infinite;\n}\n';

// server/inspector/static/conversation.css
var conversation_default2 = '/* Reply box and forks */\nform.reply input[name="content"] {\n  flex: 1;\n  min-width: 260px;\n}\n.fork-from {\n  margin-top: 6px;\n}\nbutton.fork {\n  font-size: 12px;\n  padding: 2px 8px;\n}\n.fork-quote {\n  margin-top: 8px;\n  padding: 8px 10px;\n  border: 1px solid var(--line);\n  border-radius: 6px;\n  background: #f8f9fb;\n}\n.fork-quote p {\n  margin: 0 0 8px;\n}\n.fork-quote button + button {\n  margin-left: 8px;\n}\n';

// server/inspector/static/budget.css
var budget_default2 = `/* The budget picture: the bar, the overshoot in red, the spend curve. */
.budget-card:empty {
  display: none;
}
.budget-head {
  display: flex;
  flex-wrap: wrap;
  align-items: baseline;
  gap: 0.25rem 1rem;
}
.budget-head h2 {
  margin: 0;
}
.budget-words {
  margin: 0;
  font-variant-numeric: tabular-nums;
}
.over-words {
  color: var(--failed, #b42318);
  font-weight: 600;
}
.budget-bar {
  display: block;
  width: 100%;
  height: 18px;
  margin: 0.6rem 0 0.4rem;
  border-radius: 4px;
  overflow: hidden;
}
.bar-room {
  fill: #e9edf2;
}
.bar-spent {
  fill: #3b82c4;
}
.bar-over {
  fill: #d92d20;
}
.bar-budget {
  stroke: #1d2939;
  stroke-width: 2;
}
.spend-chart {
  display: block;
  width: 100%;
  height: auto;
}
.spend-chart .axis {
  stroke: #98a2b3;
  stroke-width: 1;
}
.spend-chart .budget-line {
  stroke: #1d2939;
  stroke-width: 1.5;
  stroke-dasharray: 6 4;
}
.spend-chart .budget-label,
.spend-chart .axis-label {
  font-size: 13px;
  fill: #475467;
}
.spend-chart .axis-label.end {
  text-anchor: end;
}
.spend-chart .total-line {
  fill: none;
  stroke: #3b82c4;
  stroke-width: 2;
}
.spend-chart .call-cost {
  fill: #b2ccff;
}
.spend-chart .call-total {
  fill: #3b82c4;
  stroke: #fff;
  stroke-width: 1;
}
.spend-chart .call.over .call-total,
.spend-chart .call.over .call-cost {
  fill: #d92d20;
}
.spend-chart .call.pointed .call-total {
  stroke: #1d2939;
  stroke-width: 2;
}
.spend-readout {
  margin: 0.3rem 0 0;
  font-size: 0.85rem;
  min-height: 2.4em;
}
/* Each node's share of the tree's spend, in the tree. */
.node-share {
  display: inline-flex;
  flex: none;
  align-items: center;
  justify-content: flex-end;
  gap: 4px;
  min-width: 64px;
  font-size: 12px;
  font-variant-numeric: tabular-nums;
  color: var(--muted);
  white-space: nowrap;
}
.share-bar {
  width: 40px;
  height: 6px;
  border-radius: 3px;
}
.share-room {
  fill: #e9edf2;
}
.share-part {
  fill: #3b82c4;
}
/* The Resume form's limit field. */
.resume.raise label {
  display: inline-flex;
  align-items: center;
  gap: 6px;
}
.resume.raise input[type="number"] {
  width: 9em;
}
`;

// server/inspector/static/fit.css
var fit_default = "/* Fitting the window: run ids never wrap (cut with an ellipsis, the whole id in the\n   title), and on narrow windows (a phone, a side panel, 420 px) nothing is wider than it. */\n.node-id,\n.ev-node,\n.crumb a {\n  white-space: nowrap;\n  overflow-wrap: normal;\n  overflow: hidden;\n  text-overflow: ellipsis;\n}\n.node-id {\n  flex: 0 1 auto;\n  min-width: 0;\n}\n.crumb a {\n  display: inline-block;\n  max-width: 100%;\n  vertical-align: bottom;\n}\n#runs {\n  overflow-x: auto;\n}\n@media (max-width: 920px) {\n  .columns {\n    grid-template-columns: minmax(0, 1fr);\n  }\n}\n@media (max-width: 600px) {\n  .node-line {\n    flex-wrap: wrap;\n    row-gap: 2px;\n  }\n  /* The reason goes on a line of its own, under the node's badge and id. */\n  .node-why {\n    flex-basis: 100%;\n    order: 5;\n  }\n  .node-num.cost {\n    min-width: 0;\n  }\n  .tools,\n  .node[data-depth] .tools {\n    margin-left: 12px;\n  }\n  .tools > .tool {\n    grid-template-columns: minmax(0, max-content) 48px minmax(0, 1fr) auto;\n    gap: 6px;\n  }\n  .ev {\n    grid-template-columns: 58px 64px minmax(0, 1fr);\n    gap: 6px;\n  }\n}\n";

// server/inspector/static/new_run.css
var new_run_default2 = "/* Start a run: the agent, the task, Start */\nform.new-run {\n  display: grid;\n  grid-template-columns: minmax(140px, 220px) 1fr auto;\n  gap: 8px 12px;\n  align-items: end;\n}\nform.new-run h2,\nform.new-run .error {\n  grid-column: 1 / -1;\n  margin: 0;\n}\nform.new-run label {\n  display: flex;\n  flex-direction: column;\n  gap: 4px;\n  font-size: 13px;\n  color: var(--muted);\n}\nform.new-run select,\nform.new-run textarea {\n  font: inherit;\n  color: var(--ink);\n  border: 1px solid var(--line);\n  border-radius: 6px;\n  padding: 7px 9px;\n  background: #fff;\n}\nform.new-run textarea {\n  resize: vertical;\n  min-height: 38px;\n}\n";

// server/inspector/assets.ts
var JS = "text/javascript; charset=utf-8";
var SCRIPTS = {
  "activity.js": activity_default,
  "api.js": api_default,
  "budget.js": budget_default,
  "controls.js": controls_default,
  "conversation.js": conversation_default,
  "events.js": events_default,
  "main.js": main_default,
  "new_run.js": new_run_default,
  "run_page.js": run_page_default,
  "tree.js": tree_default,
  "typing.js": typing_default,
  "words.js": words_default
};
var STYLESHEET = [
  base_default,
  runs_default,
  controls_default2,
  tree_default2,
  activity_default2,
  transcript_default,
  conversation_default2,
  budget_default2,
  new_run_default2,
  fit_default
].join("\n");
var ASSETS = {
  ...Object.fromEntries(Object.entries(SCRIPTS).map(([name, text]) => [
    name,
    {
      type: JS,
      text
    }
  ])),
  "inspector.css": {
    type: "text/css; charset=utf-8",
    text: STYLESHEET
  }
};

// server/inspector/status_words.ts
function statusWords(run, stop) {
  const reason = run.stopReason ?? "";
  const i = run.interruption ?? null;
  switch (run.status) {
    case "running":
      return stop ? {
        tone: "stopping",
        label: "Stopping",
        detail: `Stop requested: ${stop.reason}`
      } : {
        tone: "running",
        label: "Running",
        detail: ""
      };
    case "completed":
      return {
        tone: "done",
        label: "Completed",
        detail: reason || "the model answered"
      };
    case "failed":
      return {
        tone: "failed",
        label: "Failed",
        detail: run.error ?? reason
      };
    case "max_turns_exceeded":
      return {
        tone: "limit",
        label: "Turn limit reached",
        detail: reason
      };
    case "budget_exceeded":
      return {
        tone: "limit",
        label: "Budget spent",
        detail: reason
      };
    case "interrupted": {
      if (i?.type === "approval") {
        const why = i.why === "uncertain_effect" ? "may or may not have run before a crash: decide whether to run it again" : "needs your approval";
        const holder = i.runId && i.runId !== run.runId ? " (in a subagent)" : "";
        return {
          tone: "waiting",
          label: "Waiting for your verdict",
          detail: `${i.toolName} ${why}${holder}`
        };
      }
      if (i?.type === "cancelled") {
        return {
          tone: "stopped",
          label: "Stopped",
          detail: i.reason || reason
        };
      }
      if (i?.type === "max_turns") {
        return {
          tone: "limit",
          label: "Turn limit reached",
          detail: reason
        };
      }
      if (i?.type === "max_budget") return {
        tone: "limit",
        label: "Budget spent",
        detail: reason
      };
      return {
        tone: "stopped",
        label: "Interrupted",
        detail: reason
      };
    }
    default:
      return {
        tone: "failed",
        label: String(run.status),
        detail: reason
      };
  }
}
function badge(words) {
  return html`<span class="badge tone-${words.tone}">${words.label}</span>`;
}

// server/inspector/resume_form.ts
var MAX_TURNS = 1e3;
var MAX_BUDGET_USD = 1e3;
function stoppedBy(root) {
  const i = root.interruption?.type;
  if (root.status === "budget_exceeded" || i === "max_budget") return "budget";
  if (root.status === "max_turns_exceeded" || i === "max_turns") return "turns";
  return null;
}
function suggestedBudget(root) {
  const wanted = Math.max(root.limits.maxBudgetUsd * 2, root.costUsd * 1.5, 1e-4);
  return Math.min(MAX_BUDGET_USD, Math.ceil(wanted * 1e4) / 1e4);
}
function renderRaiseForm(root) {
  const by = stoppedBy(root);
  if (!by) return null;
  const [spent, budget] = usdPair(root.costUsd, root.limits.maxBudgetUsd);
  const field = by === "budget" ? html`<label>New budget (USD) <input name="maxBudgetUsd" type="number" inputmode="decimal"
        step="any" min="${root.costUsd}" max="${MAX_BUDGET_USD}"
        value="${suggestedBudget(root)}" required></label>` : html`<label>New turn cap <input name="maxTurns" type="number" inputmode="numeric"
        step="1" min="${root.turns + 1}" max="${MAX_TURNS}"
        value="${Math.min(MAX_TURNS, Math.max(root.turns + 1, root.limits.maxTurns * 2))}"
        required></label>`;
  const words = by === "budget" ? html`It spent ${spent} of its ${budget} budget.` : html`It used ${root.turns} of its ${root.limits.maxTurns} turns.`;
  return html`
    <form class="resume raise" data-action="resume" data-root-id="${root.runId}">
      <h2>${by === "budget" ? "Stopped by its budget" : "Stopped by its turn cap"}</h2>
      <p>${words} Raise the limit to let the tree go on from where it stopped.</p>
      <div class="row">${field}<button type="submit">Resume with this ${by === "budget" ? "budget" : "cap"}</button></div>
    </form>
  `;
}

// server/inspector/conversation.ts
function renderReplyBox(d) {
  const { run } = d;
  if (followUpRefusal({
    ...run,
    messages: d.messages
  }) !== null) return "";
  return html`
    <form class="reply" data-action="reply" data-run-id="${run.runId}">
      <h2>Reply</h2>
      <div class="row">
        <input name="content" type="text" placeholder="Your next message (the run answers it)"
          aria-label="Your next message" autocomplete="off" required>
        <button type="submit">Send</button>
      </div>
      <p class="hint">Answered in this run: its spend, its turns and its trace go on. The turn
        cap counts from this message; the budget is the whole conversation's.</p>
    </form>
  `;
}
function forkButton(runId, turn) {
  return html`<div class="fork-from"><button type="button" class="fork" data-action="fork"
    data-run-id="${runId}" data-turn="${turn}" title="A new run from after this turn (its tool results included); its next call is quoted before it runs">Fork from here</button></div>`;
}
function forkPoints(messages) {
  const turns = forkableTurns(messages);
  const out = /* @__PURE__ */ new Map();
  let turn = 0;
  messages.forEach((m, i) => {
    if (m.role !== "assistant") return;
    if (i > 0 && turns.has(turn)) out.set(i - 1, turn);
    turn++;
  });
  if (turns.has(turn)) out.set(messages.length - 1, turn);
  return out;
}
function transcriptOptions(d) {
  return d.run.parentId === null ? {
    forkRunId: d.run.runId
  } : {};
}
function renderForkOrigin(run) {
  const origin = run.forkedFrom;
  if (!origin) return "";
  return html`<p class="crumb">Forked from <a href="${runHref(origin.runId)}">${runLabel(origin.runId)}</a> at turn ${origin.turn}</p>`;
}

// server/inspector/run_page.ts
function renderFacts(run) {
  const tokens = run.usage.prompt_tokens + run.usage.completion_tokens;
  const [cost, budget] = usdPair(run.costUsd, run.limits.maxBudgetUsd);
  const lease = run.lease ? html`
      <div>
        <dt>Executing on</dt>
        <dd>${run.lease.owner}</dd>
      </div>
    ` : "";
  const byChildren = run.childCostUsd ? html`
      <span class="muted">(${formatUsd(run.childCostUsd)} by subagents)</span>
    ` : "";
  return html`<dl class="facts">
<div><dt>Cost so far</dt><dd class="cost">${cost}${byChildren}</dd></div>
<div><dt>Turns</dt><dd>${run.turns} of ${run.limits.maxTurns}</dd></div>
<div><dt>Budget</dt><dd>${budget}</dd></div>
<div><dt>Tokens</dt><dd>${tokens.toLocaleString("en-US")}</dd></div>
<div><dt>Tool runs</dt><dd>${run.toolRuns}</dd></div>
${run.compaction ? html`
        <div>
          <dt>Compactions</dt>
          <dd>${run.compaction.compactions} · ${formatUsd(run.compaction.costUsd)}</dd>
        </div>
      ` : ""}
<div><dt>Agent</dt><dd>${run.agent ?? "\u2014"}</dd></div>
<div><dt>Model</dt><dd>${run.model ?? "\u2014"}</dd></div>
<div><dt>Started</dt><dd>${time(run.createdAt)}</dd></div>
${lease}
</dl>`;
}
function renderOutcome(run) {
  const answer = renderOutput(run);
  const error3 = run.error !== null ? html`
      <div class="failure">
        <h2>Error</h2>
        <pre>${run.error}</pre>
      </div>
    ` : "";
  return html`${answer}${error3}`;
}
function renderSummary(d) {
  const { run } = d;
  const words = statusWords(run, run.status === "running" ? d.stop : null);
  const isRoot = run.runId === run.rootId;
  const parent = run.parentId ?? run.rootId;
  const crumb = isRoot ? "" : html`
    <p class="crumb">Subagent of <a href="${runHref(parent)}">${runLabel(parent)}</a>
      · tree <a href="${runHref(run.rootId)}">${runLabel(run.rootId)}</a></p>
  `;
  return html`<div class="head tone-${words.tone}">
<div class="state">${badge(words)}${words.detail ? html`<p class="why">${words.detail}</p>` : ""}</div>
<h1 class="task-title">${clip(taskOf(d.messages), 300) || "(no task)"}</h1>
${renderForkOrigin(run)}
${crumb}
${renderFacts(run)}
${renderOutcome(run)}
</div>`;
}
function renderOutput(run) {
  if (run.output === null) return "";
  const text = typeof run.output === "string";
  const shown = text ? run.output : JSON.stringify(run.output, null, 2);
  return html`
    <div class="answer">
      <h2>${text ? "Answer" : "Output"}</h2>
      <pre class="${text ? "" : "json"}">${shown}</pre>
    </div>
  `;
}
function renderControls(d) {
  const { root } = d;
  const i = root.interruption;
  const forms = [];
  if (root.status === "interrupted" && i?.type === "approval") {
    const holder = i.runId && i.runId !== root.runId ? i.runId : root.runId;
    forms.push(html`
      <form class="verdict" data-action="verdict" data-root-id="${root.runId}" data-call-id="${i.callId}">
        <h2>Waiting for your verdict</h2>
        <p><b class="tool-ref">${i.toolName}</b> ${i.why === "uncertain_effect" ? "may or may not have run before a crash. Approve runs it again." : "needs approval before it runs."} Call <code>${i.callId}</code> of ${holder === root.runId ? "this tree's root" : html`subagent <a href="${runHref(holder)}">${runLabel(holder)}</a>`}.</p>
        <pre class="args">${prettyArgs(i.args)}</pre>
        <div class="row">
          <button type="submit" name="verdict" value="approve" class="approve">Approve</button>
          <input name="reason" type="text" placeholder="Why reject? (the model reads this)"
            aria-label="Reason for rejecting" autocomplete="off">
          <button type="submit" name="verdict" value="reject" class="reject">Reject</button>
        </div>
      </form>
    `);
  }
  if (root.status === "running") {
    forms.push(html`
      <form class="stop" data-action="stop" data-root-id="${root.runId}">
        <div class="row">
          <button type="submit" class="danger">${d.stop ? "Stop again" : "Stop the tree"}</button>
          <input name="reason" type="text" placeholder="Why stop? (optional)"
            aria-label="Reason for stopping" autocomplete="off">
        </div>
        <p class="hint">Stops every run of this tree, wherever it executes.</p>
      </form>
    `);
  } else if (renderRaiseForm(root)) {
    forms.push(renderRaiseForm(root));
  } else if (root.status === "interrupted" && i?.type === "cancelled") {
    forms.push(html`
      <form class="resume" data-action="resume" data-root-id="${root.runId}">
        <div class="row"><button type="submit">Resume the tree</button></div>
      </form>
    `);
  }
  const reply = renderReplyBox(d);
  if (reply) forms.push(reply);
  if (!forms.length) {
    return html`<p class="muted">The tree awaits nothing (${statusWords(root).label.toLowerCase()}).</p>`;
  }
  return html`${forms}`;
}

// server/inspector/tool_rows.ts
var TOOL_STATE_WORDS = {
  ok: "done",
  running: "running",
  stopped: "stopped",
  waiting: "waiting",
  "child-waiting": "waiting",
  rejected: "rejected"
};
function toolRows(state, nodes) {
  const last = state.messages.findLast((m) => m.role === "assistant" && !!m.tool_calls?.length);
  if (last?.role !== "assistant" || !last.tool_calls) return [];
  const results = new Set(state.messages.flatMap((m) => m.role === "tool" ? [
    m.tool_call_id
  ] : []));
  const i = state.interruption;
  return last.tool_calls.map((call) => {
    const base = {
      callId: call.id,
      name: call.function.name
    };
    const rejection = state.rejected.find((r) => r.callId === call.id);
    if (rejection) return {
      ...base,
      state: "rejected",
      label: rejection.reason
    };
    if (results.has(call.id)) return {
      ...base,
      state: "ok",
      label: ""
    };
    const child = nodes.get(childRunId(state.runId, call.id));
    const ci = child?.interruption;
    if (child?.status === "interrupted" && ci?.type === "approval") {
      const holder = ci.runId ?? child.runId;
      return {
        ...base,
        state: "child-waiting",
        label: `waits on your verdict on ${ci.toolName} in ${runLabel(holder)}`
      };
    }
    if (state.status === "interrupted" && i?.type === "approval" && i.callId === call.id) {
      return {
        ...base,
        state: "waiting",
        label: "awaits your verdict"
      };
    }
    return {
      ...base,
      state: state.status === "running" ? "running" : "stopped",
      label: ""
    };
  });
}
async function loadToolRows(store, runIds) {
  const states = /* @__PURE__ */ new Map();
  await Promise.all(runIds.map(async (id) => {
    try {
      states.set(id, await store.load(id));
    } catch {
    }
  }));
  const out = {};
  for (const [id, state] of states) out[id] = toolRows(state, states);
  return out;
}
function renderToolRow(r) {
  const fraction = r.state === "ok" ? "1" : "0";
  return html`
    <div class="tool state-${r.state}" data-call-id="${r.callId}"
      data-state="${r.state}"><span class="tool-name">${r.name}</span><progress max="1" value="${fraction}"></progress><span
          class="tool-label" title="${r.label}">${r.label}</span><span class="tool-state">${TOOL_STATE_WORDS[r.state]}</span></div>
  `;
}

// server/inspector/tree.ts
function share(n, total) {
  const own = Math.max(0, n.costUsd - n.childCostUsd);
  const part = total > 0 ? own / total : 0;
  const words = `own calls ${formatUsd(own)}: ${percentOf(own, total)} of the tree's ${formatUsd(total)}`;
  return html`<span class="node-share" title="${words}"><svg class="share-bar" viewBox="0 0 40 6"
    aria-hidden="true"><rect class="share-room" width="40" height="6"></rect><rect
    class="share-part" width="${Math.round(part * 4e3) / 100}" height="6"></rect></svg>${total > 0 ? Math.round(part * 100) : 0}%</span>`;
}
function renderTree(d) {
  const total = d.nodes[0]?.costUsd ?? 0;
  const rows = d.nodes.map((n) => {
    const words = statusWords(n, n.status === "running" ? d.stop : null);
    const here = n.runId === d.run.runId;
    return html`
      <li class="node tone-${words.tone}${here ? " here" : ""}" data-node="${n.runId}" data-status="${n.status}"
        data-depth="${n.depth}">
        <div class="node-line">
      <span class="indent" data-depth="${Math.min(n.depth, 6)}"></span>
      ${badge(words)}
      <a class="node-id" href="${runHref(n.runId)}" title="${n.runId}">${n.agent ? html`
          <span class="node-agent">${n.agent}</span>
        ` : ""}${n.depth === 0 ? "root" : runLabel(n.runId)}</a>
      <span class="node-why">${clip(words.detail, 120)}</span>
      <span class="node-num">${n.turns} turn${n.turns === 1 ? "" : "s"}</span>
      <span class="node-num cost">${formatUsd(n.costUsd)}</span>
      ${share(n, total)}
        </div>
        <div class="tools" data-tools-for="${n.runId}">${(d.tools?.[n.runId] ?? []).map(renderToolRow)}</div>
      </li>
    `;
  });
  return html`<ul class="tree">${rows}</ul>`;
}

// server/inspector/transcript.ts
function repairsOf(messages, prompts) {
  const replies = /* @__PURE__ */ new Set();
  for (const at of prompts) {
    const next = messages.findIndex((m, i) => i > at && m.role === "assistant");
    if (next >= 0) replies.add(next);
  }
  return {
    prompts: new Set(prompts),
    replies
  };
}
function messageBlock(m, index, repairs, fork) {
  if (repairs.prompts.has(index)) return repairBlock(m, fork);
  switch (m.role) {
    case "system":
      return html`
        <li class="msg system">
          <details>
            <summary><span class="role">system prompt</span></summary>
            <pre>${m.content}</pre>
          </details>
        </li>
      `;
    case "user":
      return html`<li class="msg user"><span class="role">${index <= 1 ? "task" : "user"}</span><pre>${m.content}</pre>${fork}</li>`;
    case "assistant": {
      const calls = (m.tool_calls ?? []).map((c) => html`
          <div
            class="call"><span class="call-name">${c.function.name}</span> <code class="call-id">${c.id}</code><pre class="args">${prettyArgs(c.function.arguments)}</pre></div>
        `);
      const role = repairs.replies.has(index) ? "model \xB7 repair turn" : "model";
      return html`
        <li
          class="msg assistant"><span class="role">${role}</span>${m.content ? html`<pre>${m.content}</pre>` : ""}${calls}${fork}</li>
      `;
    }
    case "tool": {
      const long = m.content.length > 1500;
      const body2 = long ? html`
          <details>
            <summary>${clip(m.content, 160)}</summary>
            <pre>${m.content}</pre>
          </details>
        ` : html`<pre>${m.content}</pre>`;
      return html`
        <li
          class="msg tool"><span class="role">result of <b>${m.name}</b> <code class="call-id">${m.tool_call_id}</code></span>${body2}${fork}</li>
      `;
    }
  }
}
function repairBlock(m, fork) {
  return html`
    <li
      class="msg repair"><span class="role">repair: the answer failed the output schema</span><pre>${m.content}</pre>${fork}</li>
  `;
}
function renderTranscript(messages, repairs = [], options = {}) {
  if (!messages.length) return html`<p class="muted">No messages.</p>`;
  const marked = repairsOf(messages, repairs);
  const { forkRunId } = options;
  const points = forkRunId === void 0 ? /* @__PURE__ */ new Map() : forkPoints(messages);
  return html`<ol class="transcript">${messages.map((m, i) => {
    const turn = points.get(i);
    return messageBlock(m, i, marked, turn === void 0 ? "" : forkButton(forkRunId, turn));
  })}</ol>`;
}

// server/inspector/page.ts
var _a;
function renderPage(o) {
  return html(_a || (_a = __template(['\n    <!doctype html>\n    <html lang="en">\n      <head>\n        <meta charset="utf-8">\n        <meta name="viewport" content="width=device-width, initial-scale=1">\n        <title>', '</title>\n        <link rel="icon" href="data:,">\n        <link rel="stylesheet" href="/ui/static/inspector.css">\n        <script type="module" src="/ui/static/main.js"><\/script>\n      </head>\n      <body data-page="', '" ', "", '>\n        <header class="top">\n          <a class="brand" href="/">reins <span>inspector</span></a>\n          <nav><a href="/">All runs</a></nav>\n          <span class="live" id="live" hidden></span>\n        </header>\n        <form id="auth" class="auth" hidden>\n          <label\n            for="auth-token">This server needs its bearer token (<code>REINS_TOKEN</code>). It stays in this tab only.</label>\n          <div class="row">\n            <input id="auth-token" name="token" type="password" autocomplete="off" required>\n            <button type="submit">Use token</button>\n          </div>\n          <p class="error" id="auth-error" role="alert" hidden></p>\n        </form>\n        <main>\n    ', "\n        </main>\n      </body>\n    </html>\n  "])), o.title, o.page, o.runId ? html`
          data-run-id="${o.runId}"
        ` : "", o.locked ? html`
          data-locked="true"
        ` : "", o.body);
}
function lockedNote() {
  return html`
    <div
      class="locked"><p>This server needs a bearer token. The page asks for it and sends it as <code>Authorization: Bearer</code>.</p>
    <noscript><p>Without JavaScript the page cannot send the token: use the API with <code>Authorization: Bearer &lt;token&gt;</code>.</p></noscript></div>
  `;
}
function renderNewRun(agents, defaultAgent) {
  const options = agents.map((name) => html`
      <option value="${name}" ${name === defaultAgent ? " selected" : ""}>${name}</option>
    `);
  return html`
    <section class="card needs-js">
      <form id="new-run" class="new-run">
        <h2>Start a run</h2>
        <label>Agent <select id="new-run-agent" name="agent">${options}</select></label>
        <label>Task <textarea id="new-run-task" name="task" rows="2" required></textarea></label>
        <button type="submit">Start</button>
        <p class="error" id="new-run-error" role="alert" hidden></p>
      </form>
    </section>
  `;
}
function renderListMain(list, before = "") {
  return html`
    ${before}<section class="card">
      <div class="card-head">
        <h1>Runs</h1>
        <p class="muted">Newest first. Costs include subagents.</p>
      </div>
      <div id="runs">${list ?? lockedNote()}</div>
    </section>
  `;
}
function renderRunMain(d) {
  if (!d) {
    return html`
      <section class="card" id="summary">${lockedNote()}</section>
      <section class="card budget-card" id="budget"></section>
      <section class="card" id="controls-card" hidden>
        <div id="controls"></div>
        <p class="error" id="controls-error" role="alert" hidden></p>
      </section>
      <div class="columns">
        <section class="card">
          <h2>Tree</h2>
          <div id="tree"></div>
        </section>
        <section class="card">
          <h2>Live activity</h2>
          <ol id="activity" class="activity"></ol>
        </section>
      </div>
      <section class="card">
        <h2>Transcript</h2>
        <div id="transcript"></div>
      </section>
    `;
  }
  return html`
    <section class="card" id="summary">${renderSummary(d)}</section>
    <section class="card budget-card" id="budget">${d.spend ? renderBudget(d.spend, d.root.runId) : ""}</section>
    <section class="card controls-card" id="controls-card">
      <noscript><p class="muted">Approve, Reject and Stop need JavaScript (or the API).</p></noscript>
      <div id="controls" class="needs-js">${renderControls(d)}</div>
      <p class="error" id="controls-error" role="alert" hidden></p>
    </section>
    <div class="columns">
      <section class="card">
        <h2>Tree</h2>
        <div id="tree">${renderTree(d)}</div>
      </section>
      <section class="card needs-js">
        <h2>Live activity</h2>
        <ol id="activity" class="activity"></ol>
      </section>
    </div>
    <section class="card">
      <h2>Transcript <span class="muted" id="message-count">(${d.messages.length} messages)</span></h2>
      <div id="transcript">${renderTranscript(d.messages, d.repairs, transcriptOptions(d))}</div>
    </section>
  `;
}
function renderErrorMain(title, message) {
  return html`
    <section class="card">
      <h1>${title}</h1>
      <p class="error">${message}</p>
      <p><a href="/">All runs</a></p>
    </section>
  `;
}

// server/inspector/run_list.ts
function listCounts(runs) {
  const counts = {
    running: 0,
    waiting: 0,
    done: 0,
    stopped: 0,
    limit: 0,
    failed: 0,
    stopping: 0
  };
  for (const r of runs) counts[statusWords(r.run, r.stop).tone]++;
  return counts;
}
function renderRunList(runs) {
  const c = listCounts(runs);
  const tally = [
    [
      c.running + c.stopping,
      "running",
      "running"
    ],
    [
      c.waiting,
      "waiting for a verdict",
      "waiting"
    ],
    [
      c.stopped,
      "stopped",
      "stopped"
    ],
    [
      c.limit,
      "at a limit",
      "limit"
    ],
    [
      c.failed,
      "failed",
      "failed"
    ],
    [
      c.done,
      "completed",
      "done"
    ]
  ];
  const summary = html`<p class="tally">${tally.map(([n, label, tone]) => html`<span class="tally-item tone-${tone}${n ? "" : " zero"}"><b>${n}</b> ${label}</span>`)}</p>`;
  if (!runs.length) {
    return html`${summary}<p class="empty">No runs yet. Start one above, or with <code>POST /runs</code>.</p>`;
  }
  const rows = runs.map(({ run, task, subagents, stop }) => {
    const words = statusWords(run, stop);
    return html`
      <tr class="run-row tone-${words.tone}" data-run-id="${run.runId}">
        <td class="status">${badge(words)}${words.detail ? html`<div class="why">${clip(words.detail, 160)}</div>` : ""}</td>
        <td class="task"><a href="${runHref(run.runId)}">${clip(task, 140) || "(no task)"}</a>${subagents ? html`<div class="sub">${subagents} subagent${subagents === 1 ? "" : "s"}</div>` : ""}</td>
        <td class="num cost">${formatUsd(run.costUsd)}</td>
        <td class="num">${run.turns}</td>
        <td class="agent">${run.agent ?? ""}</td>
        <td class="model">${run.model ?? ""}</td>
        <td class="when">${time(run.createdAt)}</td>
      </tr>
    `;
  });
  return html`
    ${summary}<table class="runs">
      <thead>
        <tr>
          <th>State</th>
          <th>Task</th>
          <th class="num">Cost so far</th>
          <th class="num">Turns</th>
          <th>Agent</th>
          <th>Model</th>
          <th>Started</th>
        </tr>
      </thead>
      <tbody>${rows}</tbody>
    </table>
  `;
}

// server/schemas.ts
import { z } from "zod";
var RunStatusSchema = z.enum(RUN_STATUSES);
var RunIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/, "expected a run id (letters, digits, '.', '_', ':', '-'; at most 200 characters)");
var limit = runLimitsSchema().shape;
var LimitsSchema = runLimitsSchema().extend({
  maxTurns: limit.maxTurns.max(1e3, {
    error: "expected an integer from 1 to 1000"
  }).exactOptional(),
  maxBudgetUsd: limit.maxBudgetUsd.positive({
    error: "expected more than 0 USD, at most 1000"
  }).max(1e3, {
    error: "expected more than 0 USD, at most 1000"
  }).exactOptional()
});
var agentOwned = (what) => z.never({
  error: `${what} belong to the agent's definition (see GET /agents)`
}).optional();
var setting = agentOptionsSchema().shape;
var RunOptionsSchema = agentOptionsSchema().extend({
  budgetMode: setting.budgetMode.describe("hard narrows a soft agent; soft cannot loosen a hard one"),
  concurrency: setting.concurrency.unwrap().max(16, {
    error: "expected an integer from 1 to 16"
  }).optional().describe("At most the agent's (default 4)"),
  stopOnPermanentError: setting.stopOnPermanentError.describe("Cannot turn off the agent's"),
  researchDepth: agentOwned("subagents"),
  researchWrites: agentOwned("tools")
});
var AgentNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, "expected an agent name (letters, digits, '_', '-'; at most 64 characters)");
var CreateRunSchema = z.strictObject({
  agent: AgentNameSchema.optional().describe("The agent to run (see GET /agents); optional when the server has a default one"),
  task: z.string().trim().min(1).max(1e5).optional().describe("The user's task (optional with `scenario`: the scenario's own task)"),
  system: agentOwned("instructions"),
  model: z.string().min(1).max(200).optional().describe("Model name (or a scenario name), for an agent that names no model of its own"),
  scenario: z.string().min(1).max(200).optional().describe("A scripted scenario to play instead of a model (needs the scripted provider)"),
  limits: LimitsSchema.optional(),
  options: RunOptionsSchema.optional()
});
var ApproveSchema = z.strictObject({
  callId: z.string().min(1).max(200).describe("The call awaiting a verdict")
});
var RejectSchema = z.strictObject({
  callId: z.string().min(1).max(200).describe("The call awaiting a verdict"),
  reason: z.string().max(1e4).optional().describe("Words written into the transcript")
});
var ResumeSchema = z.strictObject({
  limits: LimitsSchema.optional()
});
var StopSchema = z.strictObject({
  reason: z.string().trim().min(1).max(1e3).optional().describe("Why (default: stopped by a person)")
});
function decimalInt(min, max = Number.MAX_SAFE_INTEGER) {
  return z.string().regex(/^-?[0-9]{1,15}$/, "expected an integer in decimal digits").transform(Number).pipe(z.int().min(min).max(max));
}
var ListQuerySchema = z.strictObject({
  status: RunStatusSchema.exactOptional(),
  limit: decimalInt(1, 1e3).exactOptional().describe("At most this many runs, 1 to 1000")
});
var LastEventIdSchema = decimalInt(-1);
var EventsQuerySchema = z.strictObject({
  after: decimalInt(-1).optional().describe("Send only events after this seq, -1 or more (like Last-Event-ID); empty: from the start"),
  follow: z.enum([
    "true",
    "false",
    "1",
    "0"
  ]).optional().describe("false: send the stored events and close (default true: then live ones)")
});
function parseInput(schema2, value, where) {
  const result = schema2.safeParse(value);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  if (!issue) throw new BadRequestError(where || "body", result.error.message);
  let path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") path = [
    ...path,
    ...issue.keys.slice(0, 1)
  ];
  const field = [
    where,
    ...path
  ].filter((p) => p !== "").join(".") || "body";
  if (issue.code === "too_big" && issue.origin === "string") {
    throw new TooLargeError(field, issue.maximum);
  }
  throw new BadRequestError(field, issue.message);
}
function isJsonContentType(header) {
  const type = (header ?? "").replace(/;.*/s, "").trim().toLowerCase();
  return type === "application/json" || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
}
var STRICT_UTF8 = new TextDecoder("utf-8", {
  fatal: true
});
async function readBody(request, schema2, optional = false) {
  const bytes = await request.arrayBuffer();
  let text;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    throw new BadRequestError("body", "not valid UTF-8");
  }
  if (text.trim() === "") {
    if (optional) return parseInput(schema2, {}, "");
    throw new BadRequestError("body", "a JSON object is required");
  }
  const type = request.headers.get("content-type");
  if (!isJsonContentType(type)) {
    throw new HttpError(415, "unsupported_media_type", `body: expected content-type application/json, got ${type ? JSON.stringify(type) : "none"}`);
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadRequestError("body", "not valid JSON");
  }
  return parseInput(schema2, value, "");
}

// server/views.ts
function runView(state, lease) {
  return {
    runId: state.runId,
    parentId: state.parentId,
    rootId: state.rootId,
    status: state.status,
    interruption: state.interruption,
    stopReason: state.stopReason,
    model: state.model,
    ...state.agent === void 0 ? {} : {
      agent: state.agent
    },
    turns: state.turns,
    toolRuns: state.toolRuns,
    costUsd: state.costUsd,
    childCostUsd: state.childCostUsd,
    estimatedUsd: state.estimatedUsd,
    usage: state.usage,
    output: state.output,
    error: state.error,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    messageCount: state.messages.length,
    limits: state.limits,
    lease,
    compaction: state.context ? {
      compactions: state.context.compactions,
      costUsd: state.context.costUsd,
      summaryTurns: state.context.summaryTurns
    } : null,
    failure: state.failure ?? null,
    ...state.forkedFrom ? {
      forkedFrom: state.forkedFrom
    } : {}
  };
}
function runIdParam(c) {
  return parseInput(RunIdSchema, c.req.param("id"), "id");
}

// server/inspector.ts
var LIST_ROOTS = 100;
var LIST_SCAN = 1e3;
var PAGE_HEADERS = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'"
  ].join("; "),
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store"
};
function page(c, body2, status2 = 200) {
  return c.body(String(body2), status2, {
    ...PAGE_HEADERS,
    "content-type": "text/html; charset=utf-8"
  });
}
async function authorized(c, token) {
  if (!token) return true;
  const given = bearerToken(c.req.header("authorization"));
  return given !== null && await safeEqual(given, token);
}
async function loadRunList(deps) {
  const all = await deps.store.list({
    limit: LIST_SCAN
  });
  const subagents = /* @__PURE__ */ new Map();
  for (const r of all) {
    if (r.parentId !== null) subagents.set(r.rootId, (subagents.get(r.rootId) ?? 0) + 1);
  }
  const roots = all.filter((r) => r.parentId === null).slice(0, LIST_ROOTS);
  return await Promise.all(roots.map(async (run) => ({
    run,
    task: cutText(await storedTask(deps.store, run.runId), 1e3),
    subagents: subagents.get(run.runId) ?? 0,
    stop: run.status === "running" ? await readStop(deps.kv, run.runId) : null
  })));
}
async function loadRunPage(deps, id) {
  const store = deps.freshStore();
  const state = await store.load(id);
  const run = runView(state, await store.leaseHolder(id));
  const root = state.rootId === state.runId ? run : runView(await store.load(state.rootId), await store.leaseHolder(state.rootId));
  const [tree, stop] = await Promise.all([
    loadTree(store, id),
    readStop(deps.kv, root.runId)
  ]);
  const nodes = await Promise.all(tree.map(async (n) => ({
    ...n,
    interruption: (await store.summary(n.runId)).interruption
  })));
  const tools = await loadToolRows(store, tree.map((n) => n.runId));
  const spend = await loadSpend(store, state, tree);
  return {
    run,
    messages: state.messages,
    repairs: state.outputRepairs,
    root,
    nodes,
    stop,
    tools,
    spend
  };
}
function runParts(d) {
  return {
    runId: d.run.runId,
    rootId: d.root.runId,
    status: d.run.status,
    rootStatus: d.root.status,
    messageCount: d.messages.length,
    nodes: d.nodes.map((n) => ({
      runId: n.runId,
      status: n.status,
      depth: n.depth
    })),
    summary: String(renderSummary(d)),
    controls: String(renderControls(d)),
    tree: String(renderTree(d)),
    budget: d.spend ? String(renderBudget(d.spend, d.root.runId)) : "",
    transcript: String(renderTranscript(d.messages, d.repairs, transcriptOptions(d)))
  };
}
async function listPage(c, deps) {
  let list = null;
  if (await authorized(c, deps.token)) {
    try {
      list = renderRunList(await loadRunList(deps));
    } catch (e) {
      if (!(e instanceof RecordError)) throw e;
      const body3 = renderErrorMain("The runs could not be read", e.message);
      return page(c, renderPage({
        title: "Runs \xB7 reins",
        page: "list",
        body: body3
      }), 500);
    }
  }
  const form = renderNewRun(deps.agents.names, deps.agents.defaultName);
  const body2 = renderListMain(list, form);
  return page(c, renderPage({
    title: "Runs \xB7 reins",
    page: "list",
    body: body2,
    locked: !list
  }));
}
async function runPage(c, deps) {
  let id;
  try {
    id = runIdParam(c);
  } catch (e) {
    const message = e instanceof BadRequestError ? e.message : String(e);
    const body2 = renderErrorMain("Not a run id", message);
    return page(c, renderPage({
      title: "Bad run id \xB7 reins",
      page: "list",
      body: body2
    }), 400);
  }
  if (!await authorized(c, deps.token)) {
    const body2 = renderRunMain(null);
    return page(c, renderPage({
      title: "Run \xB7 reins",
      page: "run",
      runId: id,
      body: body2,
      locked: true
    }));
  }
  try {
    const d = await loadRunPage(deps, id);
    const title = `${d.run.status} \xB7 ${cutText(taskOf(d.messages), 60)} \xB7 reins`;
    return page(c, renderPage({
      title,
      page: "run",
      runId: id,
      body: renderRunMain(d)
    }));
  } catch (e) {
    if (e instanceof RecordError) {
      const body3 = renderErrorMain("The run could not be read", e.message);
      return page(c, renderPage({
        title: "Run \xB7 reins",
        page: "list",
        body: body3
      }), 500);
    }
    if (!(e instanceof RunNotFoundError)) throw e;
    const body2 = renderErrorMain("No such run", `There is no run "${id}".`);
    return page(c, renderPage({
      title: "No such run \xB7 reins",
      page: "list",
      body: body2
    }), 404);
  }
}
function registerInspectorPages(app, deps) {
  app.get("/", (c) => listPage(c, deps));
  app.get("/ui/runs/:id", (c) => runPage(c, deps));
  for (const [name, asset] of Object.entries(ASSETS)) {
    app.get(`/ui/static/${name}`, (c) => c.body(asset.text, 200, {
      ...PAGE_HEADERS,
      "content-type": asset.type,
      "cache-control": "no-cache"
    }));
  }
}
function registerInspectorParts(app, deps) {
  app.get("/ui/parts/runs", async (c) => {
    const runs = await loadRunList(deps);
    c.header("cache-control", "no-store");
    return c.json({
      count: runs.length,
      counts: listCounts(runs),
      html: String(renderRunList(runs))
    });
  });
  app.get("/ui/parts/runs/:id", async (c) => {
    const id = runIdParam(c);
    c.header("cache-control", "no-store");
    return c.json(runParts(await loadRunPage(deps, id)));
  });
}

// server/openapi.ts
import { z as z6 } from "zod";

// server/response_schemas.ts
import { z as z2 } from "zod";
var status = z2.enum(RUN_STATUSES);
var count = z2.int().min(0);
var usd = z2.number().min(0);
var RunSummaryResponse = z2.object({
  runId: z2.string(),
  parentId: z2.string().nullable(),
  rootId: z2.string(),
  status,
  interruption: interruptionSchema.nullable(),
  stopReason: z2.string().nullable(),
  model: z2.string().nullable(),
  agent: z2.string().optional().describe("The agent the run is of (absent on runs made without one)"),
  turns: count,
  toolRuns: count.describe("Tool executions started (a call cut short and run again counts each time; cached and rejected calls do not)"),
  costUsd: usd.describe("This run's spend, its descendants' included"),
  childCostUsd: usd,
  estimatedUsd: usd.describe("Of costUsd, the estimated prompts of model calls a crash left unanswered"),
  usage: z2.object({
    prompt_tokens: count,
    completion_tokens: count
  }),
  output: z2.json().nullable().describe("The final answer: its text, or, for a run with an output schema, the parsed value"),
  error: z2.string().nullable(),
  createdAt: z2.string(),
  updatedAt: z2.string(),
  messageCount: count
});
var LeaseResponse = z2.object({
  owner: z2.string(),
  expiresAt: z2.number().describe("Epoch ms"),
  host: z2.string().optional(),
  pid: z2.int().optional()
});
var RunViewResponse = RunSummaryResponse.extend({
  failure: failureSchema.nullable().describe("Why the run failed, as data, when the failure has a shape (invalid_output: the raw answer and each issue's path and message; refusal: a typed run's refused answer, its words)"),
  limits: runLimitsSchema(),
  lease: LeaseResponse.nullable(),
  compaction: z2.object({
    compactions: count,
    costUsd: usd.describe("Of costUsd, what the summary calls cost"),
    summaryTurns: count.describe("Turns the current summary stands for in the prompt")
  }).nullable().describe("The run's compactions (context policy); null before the first"),
  forkedFrom: z2.object({
    runId: z2.string(),
    turn: count
  }).optional().describe("Set on a fork: the run and turn it was forked from")
});
var AgentResponse = z2.object({
  name: z2.string(),
  description: z2.string(),
  default: z2.boolean().describe("Runs that name no agent are of this one"),
  tools: z2.array(z2.object({
    name: z2.string(),
    description: z2.string(),
    parameters: z2.record(z2.string(), z2.unknown()).describe("JSON Schema of the arguments")
  })).describe("Every tool a run of it gets, one per child agent included"),
  output: z2.record(z2.string(), z2.unknown()).nullable().describe("JSON Schema of its typed answer (a run's `output` is then that value); null: a text answer"),
  fingerprint: z2.string().describe("A hash of the definition (instructions, tools, output schema, model, limits, children): it changes with every deploy that changes the agent"),
  agents: z2.array(z2.string()).describe("Its child agents (each is one of its tools)"),
  limits: z2.object({
    maxTurns: count,
    maxBudgetUsd: usd
  }).describe("The highest limits a run may have (a request may only lower them)"),
  options: agentOptionsSchema().describe("Its run options as defined: a request may only narrow them (a hard budget mode, stricter tool errors, lower concurrency); unset ones take the server's defaults")
});
var AgentListResponse = z2.object({
  agents: z2.array(AgentResponse)
});
var RunListResponse = z2.object({
  runs: z2.array(RunSummaryResponse)
});
var MessagesResponse = z2.object({
  runId: z2.string(),
  messages: z2.array(messageSchema)
});
var TreeNodeResponse = z2.object({
  runId: z2.string(),
  parentId: z2.string().nullable(),
  agent: z2.string().optional().describe("The node's agent (a child's: its child agent's name)"),
  depth: count,
  status,
  turns: count,
  costUsd: usd,
  childCostUsd: usd,
  stopReason: z2.string().nullable(),
  createdAt: z2.string()
});
var TreeResponse = z2.object({
  rootId: z2.string(),
  nodes: z2.array(TreeNodeResponse)
});
var StopResponse = z2.object({
  runId: z2.string(),
  rootId: z2.string(),
  reason: z2.string(),
  at: z2.string().describe("When the Stop was recorded (ISO 8601, like every time in the API)")
});
var ErrorResponse = z2.object({
  error: z2.object({
    code: z2.string(),
    message: z2.string(),
    field: z2.string().optional()
  })
});

// server/openapi_conversation.ts
import { z as z5 } from "zod";

// server/routes_conversation.ts
import { z as z4 } from "zod";

// kv/idempotency.ts
import { z as z3 } from "zod";
var IDEMPOTENCY_SCHEMA_VERSION = 2;
var ms = z3.number().int().nonnegative();
var version = z3.union([
  z3.literal(1),
  z3.literal(IDEMPOTENCY_SCHEMA_VERSION)
]);
var recordSchema = z3.discriminatedUnion("state", [
  z3.strictObject({
    $schemaVersion: version,
    state: z3.literal("pending"),
    request: z3.string().min(1),
    until: ms,
    attempt: z3.string().min(1).optional()
  }),
  z3.strictObject({
    $schemaVersion: version,
    state: z3.literal("done"),
    request: z3.string().min(1),
    answer: z3.strictObject({
      status: z3.int().min(100).max(599),
      body: z3.unknown().optional(),
      location: z3.string().optional(),
      runId: z3.string().min(1).optional(),
      streamAfter: z3.int().min(-1).optional()
    }),
    at: ms,
    expiresAt: ms
  })
]);
function keyOf(scope) {
  return idempotencyRecordKey(scope.route, scope.key, scope.runId);
}
function parseRecord(scope, stored) {
  if (stored === null) return null;
  const what = `idempotency record of key ${JSON.stringify(scope.key)} (${scope.route})`;
  let value;
  try {
    value = decodeValue(stored);
  } catch (e) {
    throw new RecordError(scope.runId ?? "", "(value)", messageOf(e), what);
  }
  const parsed = recordSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const [field, problem] = firstProblem("", parsed.error.issues);
  throw new RecordError(scope.runId ?? "", field, problem, what);
}
function live(record2, now) {
  if (record2 === null) return false;
  return record2.state === "pending" ? record2.until > now : record2.expiresAt > now;
}
async function claimIdempotencyKey(kv, scope, request, options) {
  const key = keyOf(scope);
  for (; ; ) {
    const now = options.now ?? Date.now();
    const entry = await kv.get(key, {
      consistency: "strong"
    });
    const record2 = parseRecord(scope, entry.value);
    const found = record2;
    if (live(record2, now)) {
      return record2.state === "pending" ? {
        kind: "pending",
        record: record2
      } : {
        kind: "done",
        record: record2
      };
    }
    const lapsed = found?.state === "pending" && found.request === request ? found : null;
    const attempt = lapsed?.attempt ?? options.attempt;
    const claim = {
      $schemaVersion: IDEMPOTENCY_SCHEMA_VERSION,
      state: "pending",
      request,
      until: now + options.leaseMs,
      ...attempt === void 0 ? {} : {
        attempt
      }
    };
    const expireIn = Math.max(options.leaseMs, options.keepMs ?? 0);
    const done = await kv.atomic().check(entry).set(key, encodeValue(claim), {
      expireIn
    }).commit();
    if (done.ok) return {
      kind: "claimed",
      versionstamp: done.versionstamp,
      attempt
    };
  }
}
async function recordIdempotentAnswer(kv, scope, versionstamp, request, answer, options) {
  const { key, value, expireIn } = answerRecord(scope, request, answer, options);
  const done = await kv.atomic().check({
    key,
    versionstamp
  }).set(key, value, {
    expireIn
  }).commit();
  return done.ok;
}
function answerRecord(scope, request, answer, options) {
  const at = options.now ?? Date.now();
  const record2 = {
    $schemaVersion: IDEMPOTENCY_SCHEMA_VERSION,
    state: "done",
    request,
    answer,
    at,
    expiresAt: at + options.ttlMs
  };
  let value = encodeValue(record2);
  if (value.byteLength > CHUNK_BYTES) {
    const { body: _left, ...rest } = answer;
    value = encodeValue({
      ...record2,
      answer: rest
    });
  }
  const key = keyOf(scope);
  return {
    key,
    value,
    bytes: keyBytes(key) + value.byteLength,
    expireIn: options.ttlMs
  };
}
async function releaseIdempotencyKey(kv, scope, versionstamp) {
  const key = keyOf(scope);
  await kv.atomic().check({
    key,
    versionstamp
  }).delete(key).commit();
}

// server/routes_events.ts
import { streamSSE } from "hono/streaming";
var KEEPALIVE_MS = 1e4;
var STATUS_EVERY_POLLS = 20;
function registerEventRoutes(app, deps) {
  app.get("/runs/:id/events", async (c) => {
    const id = runIdParam(c);
    const { after: given, ...rest } = c.req.query();
    const asked = given === void 0 || given.trim() === "" ? rest : {
      ...rest,
      after: given
    };
    const query = parseInput(EventsQuerySchema, asked, "");
    const header = c.req.header("last-event-id");
    const after = header !== void 0 && header.trim() !== "" ? parseInput(LastEventIdSchema, header, "Last-Event-ID") : query.after ?? -1;
    const follow = query.follow !== "false" && query.follow !== "0";
    if (!await deps.store.exists(id)) throw new RunNotFoundError(id);
    return eventStream(c, deps, id, {
      after,
      follow
    });
  });
}
function eventStream(c, deps, id, options = {}) {
  let after = options.after ?? -1;
  const follow = options.follow ?? true;
  return streamSSE(c, async (stream) => {
    const done = new AbortController();
    const end = () => done.abort();
    stream.onAbort(end);
    deps.closing?.addEventListener("abort", end, {
      once: true
    });
    if (deps.closing?.aborted) end();
    try {
      let quietSince = Date.now();
      let checkStatus = true;
      let quietPolls = 0;
      const send = async ({ seq, event }) => {
        const named = event.type === "text_delta" ? {
          event: "text_delta"
        } : {};
        await stream.writeSSE({
          id: String(seq),
          ...named,
          data: JSON.stringify(event)
        });
        after = seq;
        quietSince = Date.now();
      };
      while (!done.signal.aborted) {
        const batch = await deps.store.events(id, {
          afterSeq: after
        });
        for (const stored of batch) {
          if (done.signal.aborted) return;
          await send(stored);
          if (stored.event.type === "run_stopped") checkStatus = true;
        }
        if (!follow) return;
        if (batch.length === 0 && ++quietPolls % STATUS_EVERY_POLLS === 0) checkStatus = true;
        if (checkStatus && (batch.length === 0 || batch.at(-1)?.event.type === "run_stopped")) {
          checkStatus = false;
          const status2 = (await deps.store.summary(id).catch(() => null))?.status;
          if (status2 && !RESUMABLE_STATUSES.includes(status2)) {
            for (const stored of await deps.store.events(id, {
              afterSeq: after
            })) {
              await send(stored);
            }
            return;
          }
        }
        if (Date.now() - quietSince >= KEEPALIVE_MS) {
          await stream.write(": keep-alive\n\n");
          quietSince = Date.now();
        }
        await sleep(deps.pollMs, done.signal).catch(() => {
        });
      }
    } finally {
      deps.closing?.removeEventListener("abort", end);
    }
  });
}

// server/idempotency.ts
var IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
var REPLAYED_HEADER = "Idempotent-Replayed";
var IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1e3;
var IDEMPOTENCY_LEASE_MS = 6e4;
var KEY = /^[\x20-\x7E]{1,255}$/;
function idempotencyKeyOf(c) {
  const key = c.req.header(IDEMPOTENCY_KEY_HEADER);
  if (key === void 0) return void 0;
  if (!KEY.test(key)) {
    throw new BadRequestError(IDEMPOTENCY_KEY_HEADER, `expected 1 to 255 printable ASCII characters, got ${key.length > 255 ? `${key.length} characters` : JSON.stringify(key)}`);
  }
  return key;
}
async function answerOnce(c, deps, route, request, work) {
  const key = idempotencyKeyOf(c);
  if (key === void 0) return await work({});
  const scope = {
    ...route,
    key
  };
  const hash = await hashOf(request);
  const claim = await claimIdempotencyKey(deps.kv, scope, hash, {
    leaseMs: IDEMPOTENCY_LEASE_MS,
    keepMs: IDEMPOTENCY_TTL_MS,
    attempt: crypto.randomUUID()
  });
  if (claim.kind !== "claimed") {
    const where = `${c.req.method} ${c.req.path}`;
    if (claim.record.request !== hash) {
      throw new HttpError(422, "idempotency_key_reused", `${IDEMPOTENCY_KEY_HEADER} ${JSON.stringify(key)} was used with another body for ${where}: a new request needs a new key`);
    }
    if (claim.kind === "pending") {
      throw new HttpError(409, "idempotency_in_progress", `a request with ${IDEMPOTENCY_KEY_HEADER} ${JSON.stringify(key)} is in progress for ${where}; retry once it is answered`, {
        "Retry-After": "1"
      });
    }
    c.header(REPLAYED_HEADER, "true");
    return await replayOf(deps, claim.record.answer);
  }
  let answer;
  let recorded = false;
  const answerWith = (a) => {
    recorded = true;
    return answerRecord(scope, hash, a, {
      ttlMs: IDEMPOTENCY_TTL_MS
    });
  };
  try {
    answer = await work({
      runId: claim.attempt,
      answerWith
    });
  } catch (e) {
    await releaseIdempotencyKey(deps.kv, scope, claim.versionstamp).catch(() => {
    });
    throw e;
  }
  if (!recorded) await record(deps, scope, claim.versionstamp, hash, answer);
  return answer;
}
async function record(deps, scope, versionstamp, hash, answer) {
  const what = `${IDEMPOTENCY_KEY_HEADER} ${JSON.stringify(scope.key)} (${scope.route})`;
  try {
    const kept = await recordIdempotentAnswer(deps.kv, scope, versionstamp, hash, answer, {
      ttlMs: IDEMPOTENCY_TTL_MS
    });
    if (!kept) console.error(`${what}: the claim lapsed before the answer; it is not recorded`);
  } catch (e) {
    console.error(`${what}: the answer could not be recorded:`, e);
  }
}
async function replayOf(deps, answer) {
  if (answer.body !== void 0 || answer.runId === void 0) {
    return {
      ...answer,
      body: answer.body ?? null
    };
  }
  return {
    ...answer,
    body: runView(await deps.freshStore().read(answer.runId), null)
  };
}
function sendAnswer(c, deps, answer, stream) {
  if (answer.location !== void 0) c.header("Location", answer.location);
  const status2 = answer.status;
  if (stream && answer.runId !== void 0 && answer.streamAfter !== void 0) {
    c.status(status2);
    return eventStream(c, deps, answer.runId, {
      after: answer.streamAfter
    });
  }
  return c.json(answer.body, status2);
}

// server/routes_control.ts
async function checkNewLimits(deps, id, limits) {
  const { rootId } = await deps.store.summary(id);
  const root = await deps.store.summary(rootId);
  const agent = deps.agents.forRun(root);
  if (!agent) {
    throw new BadRequestError("limits", `agent "${root.agent}" is not served here`);
  }
  const over = limitsWidening(agent, limits, deps.runDefaults.limits);
  if (over) throw new BadRequestError(`limits.${over.field}`, over.problem);
}
function registerControlRoutes(app, deps) {
  const continued = async (id, verdict, limits) => {
    if (limits) await checkNewLimits(deps, id, limits);
    const root = await continueTree(deps.freshStore(), deps.kv, id, verdict, {
      limits
    });
    await deps.schedule(root.runId);
    return {
      status: 202,
      body: runView(root, null),
      runId: root.runId
    };
  };
  app.post("/runs/:id/approve", async (c) => {
    const id = runIdParam(c);
    const request = await readBody(c.req.raw, ApproveSchema);
    const verdict = {
      kind: "approve",
      callId: request.callId
    };
    const scope = {
      route: "approve",
      runId: id
    };
    const answer = await answerOnce(c, deps, scope, request, () => continued(id, verdict));
    return sendAnswer(c, deps, answer, false);
  });
  app.post("/runs/:id/reject", async (c) => {
    const id = runIdParam(c);
    const request = await readBody(c.req.raw, RejectSchema);
    const verdict = {
      kind: "reject",
      callId: request.callId,
      reason: request.reason
    };
    const scope = {
      route: "reject",
      runId: id
    };
    const answer = await answerOnce(c, deps, scope, request, () => continued(id, verdict));
    return sendAnswer(c, deps, answer, false);
  });
  app.post("/runs/:id/resume", async (c) => {
    const id = runIdParam(c);
    const request = await readBody(c.req.raw, ResumeSchema, true);
    const scope = {
      route: "resume",
      runId: id
    };
    const answer = await answerOnce(c, deps, scope, request, () => continued(id, {
      kind: "resume"
    }, request.limits));
    return sendAnswer(c, deps, answer, false);
  });
  app.post("/runs/:id/stop", async (c) => {
    const id = runIdParam(c);
    const request = await readBody(c.req.raw, StopSchema, true);
    const answer = await answerOnce(c, deps, {
      route: "stop",
      runId: id
    }, request, async () => {
      const stop = await requestStop(deps.kv, id, request.reason ?? DEFAULT_STOP_REASON);
      return {
        status: 202,
        body: {
          runId: id,
          ...stop,
          at: new Date(stop.at).toISOString()
        }
      };
    });
    return sendAnswer(c, deps, answer, false);
  });
}

// server/routes_runs.ts
function agentFor(deps, body2) {
  const byScenario = body2.scenario === void 0 ? void 0 : deps.scenarios?.agent?.(body2.scenario);
  try {
    return deps.agents.pick(body2.agent ?? byScenario);
  } catch (e) {
    if (e instanceof UnknownAgentError) throw new BadRequestError("agent", e.message);
    throw e;
  }
}
function modelNameFor(deps, agent, body2) {
  const { scenario, model } = body2;
  if (agent.model !== void 0) {
    if (scenario !== void 0 || model !== void 0) {
      const field = scenario !== void 0 ? "scenario" : "model";
      throw new BadRequestError(field, `agent ${agent.name} has its own model`);
    }
    if (typeof agent.model !== "string") return agent.model.name;
  }
  if (scenario !== void 0) {
    if (model !== void 0) throw new BadRequestError("model", "give model or scenario, not both");
    const names = deps.scenarios?.names ?? [];
    if (!names.includes(scenario)) {
      const known = names.length ? `; known: ${[
        ...names
      ].sort().join(", ")}` : "";
      throw new BadRequestError("scenario", `unknown scenario "${scenario}"${known}`);
    }
  }
  const name = (typeof agent.model === "string" ? agent.model : void 0) ?? scenario ?? model ?? deps.defaultModel;
  if (name === void 0) {
    throw new BadRequestError("model", "required: there is no default model (set LLM_MODEL)");
  }
  try {
    deps.makeModel(name);
  } catch (e) {
    const field = scenario !== void 0 ? "scenario" : "model";
    throw new BadRequestError(field, messageOf(e));
  }
  return name;
}
function summaryModelOf(deps, name) {
  if (name === void 0) return;
  try {
    deps.makeModel(name);
  } catch (e) {
    throw new BadRequestError("options.context.summaryModel", messageOf(e));
  }
}
function narrowed(deps, agent, body2) {
  const { researchDepth: _d, researchWrites: _w, ...asked } = body2.options ?? {};
  const run = narrowRun(agent, {
    options: asked,
    limits: body2.limits
  }, deps.runDefaults);
  if ("widened" in run) {
    throw new BadRequestError(`${run.in}.${run.widened.field}`, run.widened.problem);
  }
  return run;
}
function wantsEventStream(accept) {
  if (!accept) return false;
  let sse = {
    q: 0,
    at: Infinity
  }, json3 = {
    q: 0,
    at: Infinity
  };
  accept.toLowerCase().split(",").forEach((range, at) => {
    const [type = "", ...params] = range.split(";").map((p) => p.trim());
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === void 0 ? 1 : Number(qParam.slice(2));
    if (!(q >= 0 && q <= 1)) return;
    if (type === "text/event-stream" && sse.at === Infinity) sse = {
      q,
      at
    };
    if (type === "application/json" && json3.at === Infinity) json3 = {
      q,
      at
    };
  });
  return sse.q > 0 && (sse.q > json3.q || sse.q === json3.q && sse.at < json3.at);
}
async function createRun(deps, body2, runId) {
  const agent = agentFor(deps, body2);
  const model = modelNameFor(deps, agent, body2);
  summaryModelOf(deps, body2.options?.context?.summaryModel);
  const task = body2.task ?? (body2.scenario === void 0 ? void 0 : deps.scenarios?.task(body2.scenario));
  if (task === void 0) {
    throw new BadRequestError("task", "required (unless `scenario` is given)");
  }
  const { options, limits } = narrowed(deps, agent, body2);
  let state = newRun(task, {
    runId,
    system: agent.instructions,
    model,
    limits,
    agent: agent.name
  });
  try {
    await deps.start(state, stampOf(await deps.agents.info(agent), options));
  } catch (e) {
    const made = runId && e instanceof RunConflictError ? await deps.freshStore().read(runId) : null;
    if (!made) throw e;
    state = made;
  }
  return {
    status: 201,
    body: runView(state, null),
    location: `/runs/${state.runId}`,
    runId: state.runId,
    streamAfter: -1
  };
}
function registerRunRoutes(app, deps) {
  app.post("/runs", async (c) => {
    const body2 = await readBody(c.req.raw, CreateRunSchema);
    const answer = await answerOnce(c, deps, {
      route: "runs"
    }, body2, ({ runId }) => createRun(deps, body2, runId));
    return sendAnswer(c, deps, answer, wantsEventStream(c.req.header("accept")));
  });
  app.get("/runs", async (c) => {
    const query = parseInput(ListQuerySchema, c.req.query(), "");
    return c.json({
      runs: await deps.store.list(query)
    });
  });
  app.get("/runs/:id", async (c) => {
    const id = runIdParam(c);
    const store = deps.freshStore();
    const state = await store.read(id);
    return c.json(runView(state, await store.leaseHolder(id)));
  });
  app.get("/runs/:id/messages", async (c) => {
    const id = runIdParam(c);
    const state = await deps.freshStore().read(id);
    return c.json({
      runId: id,
      messages: state.messages
    });
  });
  app.get("/runs/:id/tree", async (c) => {
    const id = runIdParam(c);
    const nodes = await loadTree(deps.freshStore(), id);
    return c.json({
      rootId: nodes[0]?.runId ?? id,
      nodes
    });
  });
}

// server/routes_conversation.ts
var FollowUpSchema = z4.strictObject({
  content: z4.string().trim().min(1).max(1e5).describe("The person's next message"),
  limits: LimitsSchema.optional().describe("New limits from now on (the turn cap counts turns since the last message; the budget is the whole conversation's)")
});
var ForkSchema = z4.strictObject({
  atTurn: z4.int().min(0).describe("Fork after this turn of the source (its reply and tool results); 0: before its first call"),
  start: z4.boolean().optional().describe("Start the fork now (default true); false: create and quote it only (a resume starts it)"),
  limits: LimitsSchema.optional().describe("The fork's limits (default: the source's)"),
  quoteOnly: z4.boolean().optional().describe("Only quote the fork's next call: nothing is created (200 with `{ forkedFrom, quote }`)")
});
function registerConversationRoutes(app, deps) {
  app.post("/runs/:id/messages", async (c) => {
    const id = runIdParam(c);
    const request = await readBody(c.req.raw, FollowUpSchema);
    const answer = await answerOnce(c, deps, {
      route: "messages",
      runId: id
    }, request, ({ answerWith }) => followUpAnswer(deps, id, request, answerWith));
    return sendAnswer(c, deps, answer, wantsEventStream(c.req.header("accept")));
  });
  app.post("/runs/:id/fork", async (c) => {
    const id = runIdParam(c);
    const request = await readBody(c.req.raw, ForkSchema);
    const answer = await answerOnce(c, deps, {
      route: "fork",
      runId: id
    }, request, ({ runId }) => forkAnswer(deps, id, request, runId));
    return sendAnswer(c, deps, answer, false);
  });
}
async function followUpAnswer(deps, id, { content, limits }, answerWith) {
  if (limits) await checkNewLimits(deps, id, limits);
  const store = deps.freshStore();
  const after = await store.lastEventSeq(id);
  const answerOf = (state2) => ({
    status: 202,
    body: runView(state2, null),
    runId: id,
    streamAfter: after
  });
  const state = await followUpRun(store, deps.kv, id, content, {
    limits,
    answer: answerWith && ((next) => answerWith(answerOf(next)))
  });
  await deps.schedule(state.runId);
  return answerOf(state);
}
async function forkAnswer(deps, id, { atTurn, start = true, limits, quoteOnly }, forkId) {
  if (limits) await checkNewLimits(deps, id, limits);
  const store = deps.freshStore();
  const source = await store.summary(id);
  const fork = (only) => forkRun(store, id, {
    runId: forkId,
    atTurn,
    start,
    limits,
    quoteOnly: only,
    // Its source's settings and tool definitions (the fork copies the settings): counted
    // without creating the fork's workspace, as a quote may create nothing.
    runWith: (f) => forkRunOptions(deps, store, {
      ...f,
      runId: id,
      rootId: source.rootId
    })
  }).catch(asBadRequest);
  const { state, quote } = await fork(quoteOnly).catch(async (e) => {
    if (!forkId || !(e instanceof RunConflictError)) throw e;
    return {
      ...await fork(true),
      state: await store.read(forkId)
    };
  });
  if (quoteOnly) return {
    status: 200,
    body: {
      forkedFrom: state.forkedFrom,
      quote
    }
  };
  if (start) await deps.schedule(state.runId);
  return {
    status: 201,
    body: {
      ...runView(state, null),
      quote
    },
    location: `/runs/${state.runId}`,
    runId: state.runId
  };
}
function asBadRequest(e) {
  if (!(e instanceof RangeError)) throw e;
  const field = e.message.startsWith("limits.maxBudgetUsd") ? "limits.maxBudgetUsd" : "atTurn";
  throw new BadRequestError(field, e.message.replace(/^limits\.maxBudgetUsd: /, ""));
}

// server/openapi_idempotency.ts
var error = (description) => ({
  description,
  content: {
    "application/json": {
      schema: {
        $ref: "#/components/schemas/Error"
      }
    }
  }
});
var idempotencyParam = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "1 to 255 printable ASCII characters, scoped to the route (and the run). A retry with the same key and body within 24 h gets the first answer again, with `Idempotent-Replayed: true`, and nothing is done twice. A refused request frees its key.",
  schema: {
    type: "string",
    minLength: 1,
    maxLength: 255,
    pattern: "^[\\x20-\\x7E]+$"
  }
};
var replayedHeader = {
  "Idempotent-Replayed": {
    description: "`true` on an answer replayed for a retry with the same `Idempotency-Key`",
    schema: {
      type: "string",
      enum: [
        "true"
      ]
    }
  }
};
var idempotencyErrors = {
  "409": error("`idempotency_in_progress` (with `Retry-After`): a request with this `Idempotency-Key` is still being answered; on a run's route also: not allowed in the run's current state"),
  "422": error("`idempotency_key_reused`: this `Idempotency-Key` was used with another body")
};

// server/openapi_conversation.ts
var usd2 = z5.number().min(0);
var count2 = z5.int().min(0);
var QuoteResponse = z5.object({
  turn: count2.describe("The turn the call will be"),
  promptTokens: count2.describe("Prompt tokens of the call, counted (o200k_base)"),
  promptUsd: usd2,
  replyTokens: count2.describe("Reply tokens reserved (max_tokens)"),
  replyUsd: usd2.describe("What the reserved reply costs at most"),
  totalUsd: usd2.describe("promptUsd + replyUsd: the call in full (a hard budget caps the reply)"),
  model: z5.string()
});
var ForkCreatedResponse = RunViewResponse.extend({
  quote: QuoteResponse
});
var ForkQuoteResponse = z5.object({
  forkedFrom: z5.object({
    runId: z5.string(),
    turn: count2
  }),
  quote: QuoteResponse
});
var ref = (name) => ({
  $ref: `#/components/schemas/${name}`
});
var json = (s) => ({
  "application/json": {
    schema: s
  }
});
function addConversationRoutes(doc, schema2, params, errors) {
  Object.assign(doc.components.schemas, {
    FollowUp: schema2(FollowUpSchema),
    Fork: schema2(ForkSchema),
    ForkCreated: schema2(ForkCreatedResponse, "output"),
    ForkQuote: schema2(ForkQuoteResponse, "output")
  });
  doc.paths["/runs/{id}/messages"] = {
    ...doc.paths["/runs/{id}/messages"],
    post: {
      summary: "Send a follow-up to a stopped run; it answers in the same run",
      description: "Executed like a resume; the run's events go on from its last id. With `Accept: text/event-stream` the answer is the run's event stream from its next event (the `user_message`) on. Refused (409) while it runs, after a failure, or while a call awaits a verdict. A replay (`Idempotent-Replayed: true`) is the first answer's view, or the run's stream from the same event on.",
      parameters: params,
      requestBody: {
        required: true,
        content: json(ref("FollowUp"))
      },
      responses: {
        "202": {
          description: "Accepted; the run continues (its view, or its event stream)",
          headers: replayedHeader,
          content: {
            ...json(ref("Run")),
            "text/event-stream": {
              schema: {
                type: "string"
              }
            }
          }
        },
        ...errors
      }
    }
  };
  doc.paths["/runs/{id}/fork"] = {
    post: {
      summary: "Fork the run at a turn: a new run, its next call quoted",
      description: "Read-only calls the fork repeats are served from the source's results ($0, traced `replayed`). `start: false` only creates and quotes it. A replay (`Idempotent-Replayed: true`) is the first answer, quote included.",
      parameters: params,
      requestBody: {
        required: true,
        content: json(ref("Fork"))
      },
      responses: {
        "200": {
          description: "With `quoteOnly`: the quote, nothing created",
          headers: replayedHeader,
          content: json(ref("ForkQuote"))
        },
        "201": {
          description: "The fork and its quote",
          headers: replayedHeader,
          content: json(ref("ForkCreated"))
        },
        ...errors
      }
    }
  };
}

// server/openapi.ts
function schema(s, io = "input") {
  const { $schema: _drop, ...rest } = z6.toJSONSchema(s, {
    io
  });
  return rest;
}
var responseSchemas = {
  AgentList: AgentListResponse,
  Run: RunViewResponse,
  RunList: RunListResponse,
  Messages: MessagesResponse,
  Tree: TreeResponse,
  StopRecorded: StopResponse,
  Error: ErrorResponse
};
var ref2 = (name) => ({
  $ref: `#/components/schemas/${name}`
});
var json2 = (s) => ({
  "application/json": {
    schema: s
  }
});
var error2 = (description) => ({
  description,
  content: json2(ref2("Error"))
});
var body = (name, required = true) => ({
  required,
  content: json2(ref2(name))
});
var idParam = {
  name: "id",
  in: "path",
  required: true,
  schema: schema(RunIdSchema)
};
function queryParams(s) {
  const props = schema(s)["properties"] ?? {};
  return Object.entries(props).map(([name, p]) => ({
    name,
    in: "query",
    required: false,
    schema: p
  }));
}
var common = {
  "400": error2("Invalid input; `error.field` names the field"),
  "401": error2("Missing or wrong bearer token (when `REINS_TOKEN` is set)")
};
var forRun = {
  ...common,
  "404": error2("No such run")
};
var bodyErrors = {
  "413": error2("The body is larger than the limit (2 MiB), or a field is longer than its own (`error.field` names it, the message says the limit)"),
  "415": error2("A body that is not sent as `application/json`")
};
function control(summary, bodyName, required, accepted = "Run", done = "Accepted; the run continues in the background.") {
  return {
    post: {
      summary,
      parameters: [
        idParam,
        idempotencyParam
      ],
      requestBody: body(bodyName, required),
      responses: {
        "202": {
          description: `${done} A replay (\`Idempotent-Replayed: true\`) is the first answer, and nothing is done again`,
          headers: replayedHeader,
          content: json2(ref2(accepted))
        },
        ...forRun,
        ...bodyErrors,
        ...idempotencyErrors
      }
    }
  };
}
function agentAndRunPaths() {
  return {
    "/agents": {
      get: {
        summary: "The agents this server serves: their tools (JSON Schema) and limits",
        responses: {
          "200": {
            description: "`{ agents }`",
            content: json2(ref2("AgentList"))
          },
          "401": common["401"]
        }
      }
    },
    "/runs": {
      post: {
        summary: "Create a run; it executes in the background",
        description: "With `Accept: text/event-stream` the answer is the run's event stream (as `GET /runs/{id}/events`, keep-alive comments every 10 s) instead of its summary.",
        requestBody: body("CreateRun"),
        parameters: [
          {
            name: "Accept",
            in: "header",
            required: false,
            schema: {
              type: "string",
              enum: [
                "application/json",
                "text/event-stream"
              ]
            }
          },
          idempotencyParam
        ],
        responses: {
          "201": {
            description: "The run's summary, or its event stream; `Location` names the run. A replay (`Idempotent-Replayed: true`) is the first answer's summary, or the run's stream from its first event",
            headers: replayedHeader,
            content: {
              ...json2(ref2("Run")),
              "text/event-stream": {
                schema: {
                  type: "string"
                }
              }
            }
          },
          ...common,
          ...bodyErrors,
          ...idempotencyErrors
        }
      },
      get: {
        summary: "List runs, newest first",
        parameters: queryParams(ListQuerySchema),
        responses: {
          "200": {
            description: "`{ runs }`",
            content: json2(ref2("RunList"))
          },
          ...common
        }
      }
    }
  };
}
function runReadPaths() {
  return {
    "/runs/{id}": {
      get: {
        summary: "A run's summary, limits and lease",
        parameters: [
          idParam
        ],
        responses: {
          "200": {
            description: "The run",
            content: json2(ref2("Run"))
          },
          ...forRun
        }
      }
    },
    "/runs/{id}/messages": {
      get: {
        summary: "A run's transcript",
        parameters: [
          idParam
        ],
        responses: {
          "200": {
            description: "`{ runId, messages }`",
            content: json2(ref2("Messages"))
          },
          ...forRun
        }
      }
    },
    "/runs/{id}/tree": {
      get: {
        summary: "The run's tree: every node with status, turns and cost",
        parameters: [
          idParam
        ],
        responses: {
          "200": {
            description: "`{ rootId, nodes }`",
            content: json2(ref2("Tree"))
          },
          ...forRun
        }
      }
    },
    "/runs/{id}/events": {
      get: {
        summary: "The run's trace as server-sent events (`id:` is the seq; honours Last-Event-ID)",
        description: "A `: keep-alive` comment is sent after 10 s without an event. A run's trace ends with its `run_stopped` (a final run's stream then ends); a `run_handed_over` ({ reason, by, turns, costUsd }) says the process executing it went away and the run, stored `running` again, continues elsewhere: not a stop.",
        parameters: [
          idParam,
          ...queryParams(EventsQuerySchema),
          {
            name: "Last-Event-ID",
            in: "header",
            required: false,
            schema: {
              type: "string"
            }
          }
        ],
        responses: {
          "200": {
            description: "An event stream: `id:` the seq, `data:` the event (its `type` inside). Only text deltas are named (`event: text_delta`); the others are plain messages.",
            content: {
              "text/event-stream": {
                schema: {
                  type: "string"
                }
              }
            }
          },
          ...forRun
        }
      }
    }
  };
}
function controlPaths() {
  return {
    "/runs/{id}/approve": control("Approve the call the tree awaits", "Approve", true),
    "/runs/{id}/reject": control("Reject the call the tree awaits, in words", "Reject", true),
    "/runs/{id}/resume": control("Resume the tree (optionally with new limits)", "Resume", false, "Run", "Accepted; the run continues in the background (limits that leave it no new turn end it again at once, at the same cap)."),
    "/runs/{id}/stop": control("Stop the whole tree of the run", "Stop", false, "StopRecorded", "The tree's Stop record: a running tree stops at once; a finished one stays as it is. A tree already stopped answers with its first record (its reason, not this one's)."),
    "/openapi.json": {
      get: {
        summary: "This document",
        responses: {
          "200": {
            description: "OpenAPI 3.1",
            content: json2({
              type: "object",
              additionalProperties: true
            })
          },
          "401": common["401"]
        }
      }
    }
  };
}
function components() {
  return {
    securitySchemes: {
      bearer: {
        type: "http",
        scheme: "bearer"
      }
    },
    schemas: {
      CreateRun: schema(CreateRunSchema),
      Approve: schema(ApproveSchema),
      Reject: schema(RejectSchema),
      Resume: schema(ResumeSchema),
      Stop: schema(StopSchema),
      ...Object.fromEntries(Object.entries(responseSchemas).map(([name, s]) => [
        name,
        schema(s, "output")
      ]))
    }
  };
}
function openApiDocument() {
  const doc = {
    openapi: "3.1.0",
    info: {
      title: "reins",
      version: "0.1.0",
      description: "Agent runs: create, watch, steer."
    },
    components: components(),
    security: [
      {
        bearer: []
      }
    ],
    paths: {
      ...agentAndRunPaths(),
      ...runReadPaths(),
      ...controlPaths()
    }
  };
  addConversationRoutes(doc, schema, [
    idParam,
    idempotencyParam
  ], {
    ...forRun,
    ...bodyErrors,
    ...idempotencyErrors
  });
  return doc;
}

// server/routes_agents.ts
async function agentList(deps) {
  const agents = [];
  for (const agent of deps.agents.agents) {
    const { description } = await deps.agents.info(agent);
    agents.push({
      name: agent.name,
      description: agent.description,
      default: agent.name === deps.agents.defaultName,
      tools: description.tools,
      output: description.output,
      fingerprint: description.fingerprint,
      agents: description.agents.map((a) => a.name),
      limits: limitCeiling(agent, deps.runDefaults.limits),
      // JSON: an option set to undefined is not set.
      options: JSON.parse(JSON.stringify(agent.options))
    });
  }
  return {
    agents
  };
}
function registerAgentRoutes(app, deps) {
  app.get("/agents", async (c) => c.json(await agentList(deps)));
}

// server/app.ts
var WORKER_HEADER = "x-reins-worker";
var MAX_BODY_BYTES = 2 * 1024 * 1024;
function createApp(deps) {
  const resolved = resolveDeps(deps);
  const app = new Hono();
  app.use(async (c, next) => {
    resolved.onRequest();
    await next();
    c.res.headers.set(WORKER_HEADER, resolved.store.owner);
  });
  app.onError(onError);
  registerInspectorPages(app, resolved);
  app.use(bearerAuth(resolved.token));
  app.use(bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new HttpError(413, "payload_too_large", `body: larger than the limit of ${MAX_BODY_BYTES} bytes`);
    }
  }));
  app.notFound((c) => c.json({
    error: {
      code: "not_found",
      message: `no route ${c.req.method} ${c.req.path}`
    }
  }, 404));
  app.get("/openapi.json", (c) => c.json(openApiDocument()));
  registerAgentRoutes(app, resolved);
  registerRunRoutes(app, resolved);
  registerControlRoutes(app, resolved);
  registerConversationRoutes(app, resolved);
  registerEventRoutes(app, resolved);
  registerInspectorParts(app, resolved);
  for (const [prefix, handler] of Object.entries(resolved.mount)) {
    app.all(`${prefix.replace(/\/+$/, "")}/*`, (c) => handler(c.req.raw));
  }
  return {
    fetch: (request, ...rest) => app.fetch(request, ...rest),
    // Hono types init as the Node types' RequestInit, which Deno 2.5's own does not satisfy.
    request: (input, init) => Promise.resolve(app.request(input, init))
  };
}

// server/service.ts
function isLoopback(host) {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}
function listenRefusal(config) {
  if (config.token) return null;
  if (config.deploy) return "refusing to serve on Deno Deploy without REINS_TOKEN";
  if (!isLoopback(config.host)) {
    return `refusing to listen on ${config.host} without REINS_TOKEN (only loopback is allowed)`;
  }
  return null;
}
async function openServiceKv(env, mcp) {
  try {
    return env.deploy && !env.kvPath ? await openKv() : await openKv(await defaultKvPath(env.kvPath));
  } catch (e) {
    await mcp.close();
    throw e;
  }
}
async function startService(options, env) {
  const raw2 = await loadConfig(env.configPath);
  const settings = modelSettings(raw2);
  const makeModel = (options.models ?? defaultModels)(settings);
  const mcp = await openProcessTools(raw2.mcpServers);
  const agents = agentRegistry(options.agents, {
    defaultAgent: options.defaultAgent,
    extraTools: mcp.tools,
    resolveModel: makeModel
  });
  const kv = await openServiceKv(env, mcp);
  const owner = `w${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
  const store = new KvRunStore(kv, {
    owner,
    leaseMs: env.leaseMs
  });
  const closing = new AbortController();
  const { budgetMode, dedupe, toolErrors, context } = raw2;
  const runDefaults = {
    settings: JSON.parse(JSON.stringify({
      budgetMode,
      dedupe,
      toolErrors,
      context
    })),
    ...settings.limits ? {
      limits: settings.limits
    } : {}
  };
  const defaultModel = settings.model ?? options.defaultModel;
  const deps = {
    kv,
    store,
    agents,
    token: env.token,
    makeModel,
    defaultModel,
    prices: settings.prices,
    runDefaults,
    workspaceRoot: env.workspaceRoot,
    closing: closing.signal,
    scenarios: options.scenarios,
    mount: options.mount
  };
  const worker = startWorker(deps, {
    everyMs: env.sweepMs
  });
  const app = createApp({
    ...deps,
    schedule: worker.schedule,
    start: worker.start,
    onRequest: worker.nudge
  });
  let closed;
  return {
    app,
    worker,
    kv,
    tools: mcp.tools,
    close() {
      closed ??= (async () => {
        closing.abort("the server is shutting down");
        await worker.stop();
        kv.close();
        await mcp.close();
      })();
      return closed;
    }
  };
}
function defaultModels(settings) {
  const { baseUrl, apiKey } = settings;
  return defaultMakeModel({
    baseUrl,
    apiKey
  });
}

// server/serve_agents.ts
function sweepCron(live2) {
  const cron = new AbortController();
  if (typeof Deno.cron !== "function") {
    console.error('reins: no sweep cron (Deno.cron needs "cron" in deno.json "unstable")');
  } else {
    Deno.cron("reins-sweep", "* * * * *", {
      signal: cron.signal
    }, async () => {
      await live2.service?.worker.sweep(true);
    });
  }
  return cron;
}
async function startOrRefuse(options, env, cron) {
  const refuse = (why) => (cron.abort(), console.error(`reins: ${why}`), null);
  try {
    const config = readEnv(env);
    const refusal = listenRefusal(config);
    if (refusal) return refuse(refusal);
    return {
      service: await startService(options, config),
      config
    };
  } catch (e) {
    if (e instanceof ReinsError || e instanceof TypeError) return refuse(e.message);
    if (denied(e)) return refuse(`${e.message} (${PERMISSIONS})`);
    cron.abort();
    throw e;
  }
}
async function listen(s, cron) {
  const { host, port, token } = s.config;
  try {
    return Deno.serve({
      hostname: host,
      port,
      onListen: (addr) => {
        const auth = token ? "bearer token required" : "no auth (loopback)";
        console.log(`reins: listening on http://${addr.hostname}:${addr.port}/ (${auth})`);
      }
    }, s.service.app.fetch);
  } catch (e) {
    cron.abort();
    await s.service.close();
    const why = e instanceof Deno.errors.AddrInUse ? "the address is in use (another server? set PORT)" : messageOf(e);
    console.error(`reins: cannot listen on ${host}:${port}: ${why}`);
    return null;
  }
}
var PERMISSIONS = "serve() needs --allow-net --allow-env --allow-read --allow-write --allow-sys=hostname";
function denied(e) {
  return e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied;
}
var SHUTDOWN_GRACE_MS = 2e3;
function onSignals(fn) {
  const listeners = [
    [
      "SIGTERM",
      () => fn("SIGTERM")
    ],
    [
      "SIGINT",
      () => fn("SIGINT")
    ]
  ];
  for (const [signal, listener] of listeners) {
    try {
      Deno.addSignalListener(signal, listener);
    } catch {
    }
  }
  return () => {
    for (const [signal, listener] of listeners) {
      try {
        Deno.removeSignalListener(signal, listener);
      } catch {
      }
    }
  };
}
function serve(options) {
  const live2 = {};
  const cron = sweepCron(live2);
  const { promise: stopped, resolve: stop } = Promise.withResolvers();
  const started = startOrRefuse(options, options.env, cron);
  const listening = started.then(async (s) => {
    const server = s && await listen(s, cron);
    return s && server ? {
      s,
      server
    } : null;
  });
  const service = listening.then((l) => live2.service = l?.s.service ?? null);
  const finished = listening.then((l) => l ? served(l.s.service, l.server, cron, stopped, stop) : 1);
  finished.then((code) => Deno.exitCode = code, () => Deno.exitCode = 1);
  return {
    service,
    finished,
    shutdown: async () => (stop("shutdown"), void await finished)
  };
}
async function served(service, server, cron, stopped, stop) {
  const removeSignals = onSignals(stop);
  const why = await Promise.race([
    stopped,
    server.finished.then(() => "")
  ]);
  const t0 = performance.now();
  const executing = service.worker.executor.executing;
  if (why) console.log(`reins: ${why}: handing over ${executing} run(s) and shutting down`);
  cron.abort();
  const handedOver = service.close();
  const closed = await settlesWithin(server.shutdown(), SHUTDOWN_GRACE_MS);
  await handedOver;
  removeSignals();
  const bySignal = why === "SIGINT" || why === "SIGTERM";
  if (!closed) {
    const what = bySignal ? "exiting" : "left to their clients";
    console.log(`reins: responses still open after ${SHUTDOWN_GRACE_MS} ms: ${what}`);
  }
  console.log(`reins: stopped in ${Math.round(performance.now() - t0)} ms`);
  if (!closed && bySignal) Deno.exit(0);
  return 0;
}
function serveHandler(options) {
  const live2 = {};
  const cron = sweepCron(live2);
  const started = startOrRefuse(options, options.env, cron).then((s) => {
    if (!s) Deno.exit(1);
    live2.service = s.service;
    const remove = onSignals(() => {
      remove();
      cron.abort();
      s.service.close().catch((e) => console.error("reins: shutdown failed:", e));
    });
    return s;
  });
  return {
    fetch: async (request) => (await started).service.app.fetch(request),
    onListen(addr) {
      if (addr.transport !== "tcp" && addr.transport !== "udp") return;
      void started.then((s) => {
        if (!s.config.token && !isLoopback(addr.hostname)) {
          console.error(`reins: refusing to serve on ${addr.hostname} without REINS_TOKEN`);
          Deno.exit(1);
        }
        console.log(`reins: listening on http://${addr.hostname}:${addr.port}/ (deno serve)`);
      });
    }
  };
}
export {
  createApp,
  defaultMakeModel,
  serve,
  serveHandler,
  startWorker
};
