"use strict";
(function () {
  document.documentElement.classList.add("js");
  const TOKEN_KEY = "reins.token";
  const MAX_STREAMS = 4;
  const LOG_MAX = 400;
  const body = document.body;
  const $ = function (id) {
    return document.getElementById(id);
  };
  const sleep = function (ms) {
    return new Promise(function (r) {
      setTimeout(r, ms);
    });
  };
  const enc = encodeURIComponent;
  let unloading = false;
  globalThis.addEventListener("pagehide", function () {
    unloading = true;
  });

  function ApiError(status, message, field) {
    const e = new Error(message);
    e.status = status;
    e.field = field;
    return e;
  }

  // ---- The bearer token: asked once, kept for this tab.
  let tokenWaiter = null;
  function storedToken() {
    try {
      return sessionStorage.getItem(TOKEN_KEY);
    } catch (_) {
      return null;
    }
  }
  function askToken(refusal) {
    if (tokenWaiter) return tokenWaiter;
    const form = $("auth"), input = $("auth-token"), err = $("auth-error");
    form.hidden = false;
    err.hidden = !refusal;
    err.textContent = refusal ? "The server refused that token: " + refusal : "";
    input.value = "";
    input.focus();
    setLive("needs a token", false);
    tokenWaiter = new Promise(function (resolve) {
      form.onsubmit = function (e) {
        e.preventDefault();
        const t = input.value.trim();
        if (!t) return;
        try {
          sessionStorage.setItem(TOKEN_KEY, t);
        } catch (_) { /* private mode */ }
        form.hidden = true;
        form.onsubmit = null;
        tokenWaiter = null;
        resolve();
      };
    });
    return tokenWaiter;
  }

  async function api(path, init) {
    init = init || {};
    for (;;) {
      const headers = new Headers(init.headers || {});
      const sent = storedToken();
      if (sent) headers.set("authorization", "Bearer " + sent);
      if (init.json !== undefined) headers.set("content-type", "application/json");
      const res = await fetch(path, {
        method: init.method || "GET",
        headers: headers,
        body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
        signal: init.signal,
        cache: "no-store",
      });
      if (res.status !== 401) return res;
      const answer = await res.json().catch(function () {
        return null;
      });
      if (storedToken() !== sent) continue; // a token was entered meanwhile
      await askToken(sent ? (answer && answer.error && answer.error.message) || "401" : null);
    }
  }

  async function apiJson(path, init) {
    const res = await api(path, init);
    const text = await res.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch (_) {
      data = null;
    }
    if (!res.ok) {
      const e = data && data.error;
      throw ApiError(res.status, e && e.message ? e.message : "HTTP " + res.status, e && e.field);
    }
    return data;
  }

  function setLive(text, ok) {
    const el = $("live");
    if (!el) return;
    el.hidden = false;
    el.textContent = text;
    el.className = "live " + (ok ? "on" : "off");
  }

  // ---- Formatting (mirrors the server's words).
  function usd(n) {
    if (typeof n !== "number" || !isFinite(n) || n === 0) return "$0";
    const a = Math.abs(n);
    return "$" + n.toFixed(a >= 1 ? 2 : a >= 0.01 ? 4 : 6);
  }
  function clock(iso) {
    const d = new Date(iso);
    return isNaN(d) ? "" : d.toLocaleTimeString([], { hour12: false });
  }
  function secs(ms) {
    return ms >= 1000 ? (ms / 1000).toFixed(1) + " s" : Math.round(ms) + " ms";
  }
  function short(text, max) {
    text = String(text == null ? "" : text).replace(/\s+/g, " ").trim();
    return text.length > max ? text.slice(0, max - 1) + "…" : text;
  }
  function argsText(raw, max) {
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
  function exitWords(ev) {
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
        if (i && i.type === "approval") return "Waiting for a verdict";
        if (i && i.type === "cancelled") return "Stopped";
        return "Interrupted";
    }
    return String(ev.status);
  }
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // ---- The run list.
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

  // ---- One run.
  async function runPage() {
    const runId = body.dataset.runId;
    const sources = new Map(); // runId -> { runId, label, after, status, streaming, polling, tools }
    let streams = 0;
    let last = { summary: null, controls: null, tree: null, count: -1 };
    let running = true;
    let refreshTimer = null, inFlight = null, again = false;
    let noticeTimer = null;

    function source(id, depth) {
      let s = sources.get(id);
      if (!s) {
        const dot = id.indexOf(".");
        s = {
          runId: id,
          label: depth === 0 ? "root" : dot > 0 ? id.slice(dot + 1) : id.slice(0, 8),
          after: -1,
          status: null,
          streaming: false,
          polling: false,
          tools: new Map(), // callId -> row, from live events
          serverRows: new Map(), // callId -> row, from the server's tree
        };
        sources.set(id, s);
      }
      return s;
    }

    function scheduleRefresh(ms) {
      if (refreshTimer) return;
      refreshTimer = setTimeout(function () {
        refreshTimer = null;
        refresh();
      }, ms == null ? 250 : ms);
    }

    async function refresh() {
      if (inFlight) {
        again = true;
        return inFlight;
      }
      inFlight = (async function () {
        try {
          apply(await apiJson("/ui/parts/runs/" + enc(runId)));
        } catch (e) {
          setLive("offline: " + e.message, false);
          if (e.status === 404) $("summary").textContent = e.message;
        }
      })();
      await inFlight;
      inFlight = null;
      if (again) {
        again = false;
        scheduleRefresh(0);
      }
    }

    function replaceKeepingInput(target, markup) {
      // Keep what was typed (and the focus) in forms that survive the refresh.
      const keep = {};
      let focused = null;
      target.querySelectorAll("form[data-action] input[name]").forEach(function (input) {
        const f = input.form;
        const key = f.dataset.action + "|" + (f.dataset.callId || "") + "|" + input.name;
        keep[key] = input.value;
        if (document.activeElement === input) focused = key;
      });
      target.innerHTML = markup;
      target.querySelectorAll("form[data-action] input[name]").forEach(function (input) {
        const f = input.form;
        const key = f.dataset.action + "|" + (f.dataset.callId || "") + "|" + input.name;
        if (key in keep) input.value = keep[key];
        if (key === focused) input.focus();
      });
    }

    function apply(d) {
      setLive("live", true);
      if (d.summary !== last.summary) $("summary").innerHTML = d.summary;
      if (d.controls !== last.controls) replaceKeepingInput($("controls"), d.controls);
      $("controls-card").hidden = false;
      $("controls").classList.remove("needs-js");
      if (d.tree !== last.tree) {
        $("tree").innerHTML = d.tree;
        readServerRows();
        sources.forEach(function (s) {
          renderTools(s);
        });
      }
      if (d.messageCount !== last.count) {
        $("transcript").innerHTML = d.transcript;
        const count = $("message-count");
        if (count) count.textContent = "(" + d.messageCount + " messages)";
      }
      last = { summary: d.summary, controls: d.controls, tree: d.tree, count: d.messageCount };
      running = d.nodes.some(function (n) {
        return n.status === "running";
      });
      d.nodes.forEach(function (n) {
        const s = source(n.runId, n.depth);
        const changed = s.status !== n.status;
        s.status = n.status;
        if (s.streaming) return;
        if (n.status === "running" && streams < MAX_STREAMS) stream(s);
        else if (changed || n.status === "running") poll(s);
      });
    }

    // -- Events: fetch streaming of the SSE endpoint (the token goes in a header).
    function parseBlocks(s, text) {
      text.split("\n\n").forEach(function (block) {
        let id = null;
        const data = [];
        block.split("\n").forEach(function (line) {
          if (line.slice(0, 3) === "id:") id = line.slice(3).trim();
          else if (line.slice(0, 5) === "data:") data.push(line.slice(5).replace(/^ /, ""));
        });
        if (id === null || !data.length) return;
        let ev;
        try {
          ev = JSON.parse(data.join("\n"));
        } catch (_) {
          return;
        }
        onEvent(s, Number(id), ev);
      });
    }

    async function stream(s) {
      s.streaming = true;
      streams++;
      while (!unloading) {
        try {
          const res = await api("/runs/" + enc(s.runId) + "/events?after=" + s.after, {
            headers: { accept: "text/event-stream" },
          });
          if (!res.ok) {
            const err = await res.json().catch(function () {
              return null;
            });
            throw new Error((err && err.error && err.error.message) || "HTTP " + res.status);
          }
          setLive("live", true);
          const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
          let buf = "";
          for (;;) {
            const chunk = await reader.read();
            if (chunk.done) break;
            buf += chunk.value.replace(/\r\n?/g, "\n");
            const at = buf.lastIndexOf("\n\n");
            if (at >= 0) {
              parseBlocks(s, buf.slice(0, at));
              buf = buf.slice(at + 2);
            }
          }
        } catch (e) {
          if (unloading) return;
          setLive("reconnecting: " + e.message, false);
        }
        await sleep(1000);
      }
    }

    async function poll(s) {
      if (s.polling) return;
      s.polling = true;
      try {
        const res = await api("/runs/" + enc(s.runId) + "/events?follow=false&after=" + s.after);
        if (res.ok) parseBlocks(s, (await res.text()).replace(/\r\n?/g, "\n"));
      } catch (_) {
        // The next refresh polls again.
      } finally {
        s.polling = false;
      }
    }

    function onEvent(s, seq, ev) {
      if (!(seq > s.after)) return;
      s.after = seq;
      log(s, ev);
      tools(s, ev);
      if (ev.type !== "tool_progress" && ev.type !== "tool_start") scheduleRefresh();
    }

    // -- The activity log, newest first.
    function describe(ev) {
      switch (ev.type) {
        case "turn":
          return "turn " + ev.turn + " · " + ev.total_tokens + " tokens · +" + usd(ev.turnCostUsd) +
            " → " + usd(ev.costUsd) + " · " + ev.finish + " · " + secs(ev.ms);
        case "tool_start": {
          const args = argsText(ev.args, 80);
          return ev.toolName + " started" + (args ? " · " + args : "");
        }
        case "tool_progress":
          return ev.toolName + ": " + ev.label +
            (typeof ev.fraction === "number" ? " (" + Math.round(ev.fraction * 100) + "%)" : "");
        case "tool_result":
          return ev.toolName + (ev.ok ? " done" : " failed: " + (ev.error || "")) +
            (ev.cached ? " (from cache)" : " in " + secs(ev.ms));
        case "approval_required":
          return ev.toolName + " awaits your verdict (" +
            (ev.why === "uncertain_effect" ? "its effect is uncertain" : "needs approval") + ") " +
            argsText(ev.args, 80);
        case "run_stopped":
          return exitWords(ev) + ": " + ev.reason + " · " + ev.turns +
            (ev.turns === 1 ? " turn · " : " turns · ") +
            usd(ev.costUsd);
      }
      return ev.type;
    }

    function log(s, ev) {
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
        "ev ev-" + ev.type + (ev.type === "tool_result" && !ev.ok ? " failed" : ""),
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

    // -- What each tool is doing, under its run in the tree.
    function tools(s, ev) {
      const t = s.tools;
      let x;
      switch (ev.type) {
        case "turn":
          t.forEach(function (v, k) {
            if (v.state !== "running" && v.state !== "waiting") t.delete(k);
          });
          break;
        case "tool_start":
          t.set(ev.callId, {
            name: ev.toolName,
            state: "running",
            label: argsText(ev.args, 80),
            fraction: null,
          });
          break;
        case "tool_progress":
          x = t.get(ev.callId) || { name: ev.toolName, state: "running", fraction: null };
          x.label = ev.label;
          if (typeof ev.fraction === "number") x.fraction = ev.fraction;
          t.set(ev.callId, x);
          break;
        case "tool_result":
          x = t.get(ev.callId) || { name: ev.toolName, fraction: null, label: "" };
          x.state = ev.ok ? "ok" : "failed";
          if (ev.ok) x.fraction = 1;
          x.label = ev.ok
            ? (ev.cached ? "from cache" : "done in " + secs(ev.ms))
            : ev.error || "failed";
          t.set(ev.callId, x);
          break;
        case "approval_required":
          t.set(ev.callId, {
            name: ev.toolName,
            state: "waiting",
            label: "awaits your verdict",
            fraction: null,
          });
          break;
        case "run_stopped":
          t.forEach(function (v) {
            if (v.state === "running") v.state = "stopped"; // the label keeps how far it got
            if (v.state === "waiting" && ev.status !== "interrupted") v.state = "stopped";
          });
          break;
        default:
          return;
      }
      renderTools(s);
    }

    const STATE_WORDS = {
      running: "running",
      ok: "done",
      failed: "failed",
      stopped: "stopped",
      waiting: "waiting",
      "child-waiting": "waiting",
      rejected: "rejected",
    };
    // What only the server knows (no event says it): a rejection, a call held
    // by its subagent's verdict, and that a call no longer awaits one.
    const SERVER_WINS = { rejected: true, waiting: true, "child-waiting": true };

    function readServerRows() {
      document.querySelectorAll("[data-tools-for]").forEach(function (slot) {
        const node = slot.closest("[data-depth]");
        const s = source(slot.dataset.toolsFor, node ? Number(node.dataset.depth) : 1);
        s.serverRows = new Map();
        slot.querySelectorAll(".tool[data-call-id]").forEach(function (row) {
          s.serverRows.set(row.dataset.callId, {
            name: row.querySelector(".tool-name").textContent,
            state: row.dataset.state,
            label: row.querySelector(".tool-label").textContent,
            fraction: row.dataset.state === "ok" ? 1 : null,
          });
        });
      });
    }

    function rowsOf(s) {
      const rows = new Map(s.tools);
      // A verdict awaited by a live row is over unless the server still says so.
      rows.forEach(function (v, callId) {
        const known = s.serverRows.get(callId);
        if (v.state === "waiting" && !(known && known.state === "waiting")) rows.delete(callId);
      });
      s.serverRows.forEach(function (v, callId) {
        if (!rows.has(callId) || SERVER_WINS[v.state]) rows.set(callId, v);
      });
      return rows;
    }

    function renderTools(s) {
      const slot = document.querySelector('[data-tools-for="' + CSS.escape(s.runId) + '"]');
      if (!slot) return;
      const rows = [];
      rowsOf(s).forEach(function (v, callId) {
        const row = el("div", "tool state-" + v.state);
        row.dataset.callId = callId;
        row.dataset.state = v.state;
        const bar = document.createElement("progress");
        bar.max = 1;
        if (v.fraction !== null && v.fraction !== undefined) bar.value = v.fraction;
        else if (v.state !== "running") bar.value = 0;
        row.append(
          el("span", "tool-name", v.name),
          bar,
          el("span", "tool-label", v.label || ""),
          el("span", "tool-state", STATE_WORDS[v.state] || v.state),
        );
        row.querySelector(".tool-label").title = v.label || "";
        rows.push(row);
      });
      slot.replaceChildren.apply(slot, rows);
    }

    // -- Approve, Reject, Stop, Resume: the API's error shown under the buttons.
    function notice(text, ok) {
      const p = $("controls-error");
      clearTimeout(noticeTimer);
      p.hidden = false;
      p.textContent = text;
      p.className = "error" + (ok ? " ok" : "");
      if (ok) {
        noticeTimer = setTimeout(function () {
          p.hidden = true;
        }, 6000);
      }
    }

    document.addEventListener("submit", async function (e) {
      const form = e.target.closest && e.target.closest("form[data-action]");
      if (!form) return;
      e.preventDefault();
      const rootId = form.dataset.rootId, action = form.dataset.action;
      let what, path, payload, done;
      const reason = form.elements.reason ? form.elements.reason.value : "";
      if (action === "verdict") {
        const callId = form.dataset.callId;
        const verdict = e.submitter && e.submitter.value === "reject" ? "reject" : "approve";
        what = verdict === "approve" ? "Approve" : "Reject";
        path = "/runs/" + enc(rootId) + "/" + verdict;
        payload = verdict === "reject" && reason !== ""
          ? { callId: callId, reason: reason }
          : { callId: callId };
        done = verdict === "approve"
          ? "Approved: the tree continues."
          : "Rejected: the model is told why.";
      } else if (action === "stop") {
        what = "Stop";
        path = "/runs/" + enc(rootId) + "/stop";
        payload = reason.trim() ? { reason: reason.trim() } : {};
        done = "Stop sent: every run of the tree stops.";
      } else if (action === "resume") {
        what = "Resume";
        path = "/runs/" + enc(rootId) + "/resume";
        payload = {};
        done = "Resumed: the tree continues.";
      } else return;
      const buttons = form.querySelectorAll("button");
      buttons.forEach(function (b) {
        b.disabled = true;
      });
      try {
        await apiJson(path, { method: "POST", json: payload });
        notice(done, true);
      } catch (err) {
        notice(what + " refused (" + (err.status || "network") + "): " + err.message, false);
      } finally {
        buttons.forEach(function (b) {
          b.disabled = false;
        });
        refresh();
      }
    });

    await refresh();
    for (;;) {
      await sleep(running ? 1500 : 4000);
      if (!document.hidden) await refresh();
    }
  }

  if (body.dataset.page === "list") listPage();
  else if (body.dataset.page === "run") runPage();
})();
