// The API from the page: the bearer token (asked once, kept for this tab),
// fetch with it, JSON answers and the API's errors, and the live badge.
const TOKEN_KEY = "reins.token";

/** The element with this id. */
export const $ = function (id) {
  return document.getElementById(id);
};
export const sleep = function (ms) {
  return new Promise(function (r) {
    setTimeout(r, ms);
  });
};
export const enc = encodeURIComponent;

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

/** fetch with the token; on a 401 asks for one and tries again. */
export async function api(path, init) {
  init = init || {};
  for (;;) {
    const headers = new Headers(init.headers || {});
    const sent = storedToken();
    if (sent) headers.set("authorization", "Bearer " + sent);
    if (init.json !== undefined) headers.set("content-type", "application/json");
    if (init.idempotencyKey) headers.set("idempotency-key", init.idempotencyKey);
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

/** A fresh Idempotency-Key (`crypto.randomUUID` needs https; this does not). */
function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, function (b) {
    return b.toString(16).padStart(2, "0");
  }).join("");
}

/**
 * Idempotency-Keys for one kind of POST: the same key while the same request
 * is sent again (Send pressed again after a lost answer is then answered
 * once), a new one once it was answered (`done`) or the request changed.
 */
export function keyedSends() {
  let sent = null;
  let key = null;
  return {
    key: function (path, payload) {
      const text = path + " " + JSON.stringify(payload);
      if (text !== sent) {
        sent = text;
        key = newKey();
      }
      return key;
    },
    done: function () {
      sent = null;
      key = null;
    },
  };
}

/** The JSON answer, or throws the API's error (with its status and field). */
export async function apiJson(path, init) {
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

/** The badge in the header: live, offline, reconnecting, needs a token. */
export function setLive(text, ok) {
  const el = $("live");
  if (!el) return;
  el.hidden = false;
  el.textContent = text;
  el.className = "live " + (ok ? "on" : "off");
}
