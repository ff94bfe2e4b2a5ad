// Formatting (mirrors the server's words) and the one element builder.
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
  text = String(text == null ? "" : text).replace(/\s+/g, " ").trim();
  return text.length > max ? cutChars(text, max - 1) + "…" : text;
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
