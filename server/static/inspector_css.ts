/**
 * The run inspector's stylesheet, served at `/ui/static/inspector.css`
 * (kept as a string module: no build step).
 *
 * @module
 */

/** The stylesheet. */
export const INSPECTOR_CSS = `
:root {
  --bg: #f4f5f7;
  --card: #ffffff;
  --ink: #1b2230;
  --muted: #667085;
  --line: #e3e6eb;
  --mono: ui-monospace, SFMono-Regular, "DejaVu Sans Mono", Menlo, Consolas, monospace;
  --running: #1d4ed8; --running-bg: #e6eeff;
  --waiting: #b45309; --waiting-bg: #fff3dc;
  --done: #15803d; --done-bg: #e5f5ea;
  --stopped: #475467; --stopped-bg: #eceef2;
  --limit: #6d28d9; --limit-bg: #efe9fe;
  --failed: #b42318; --failed-bg: #fdeceb;
  --stopping: #c2410c; --stopping-bg: #ffede3;
}
* { box-sizing: border-box; }
html { background: var(--bg); color: var(--ink); }
body {
  margin: 0;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif;
}
a { color: #1f4fbf; text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre, .mono { font-family: var(--mono); font-size: 13px; }
pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
h1, h2 { margin: 0; line-height: 1.25; }
h1 { font-size: 20px; }
h2 { font-size: 15px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin-bottom: 12px; }
.muted { color: var(--muted); font-weight: normal; text-transform: none; letter-spacing: 0; }
[hidden] { display: none !important; }
html:not(.js) .needs-js { display: none !important; }

/* Header */
.top {
  display: flex; align-items: center; gap: 24px;
  padding: 12px 28px; background: #111827; color: #e5e7eb;
}
.top a { color: #e5e7eb; }
.brand { font-weight: 700; font-size: 17px; letter-spacing: .01em; }
.brand span { font-weight: 400; color: #9ca3af; }
.top nav { flex: 1; }
.live { font-size: 13px; color: #9ca3af; display: inline-flex; align-items: center; gap: 6px; }
.live::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: #6b7280; }
.live.on::before { background: #22c55e; }
.live.off { color: #fca5a5; }
.live.off::before { background: #ef4444; }

main { max-width: 1200px; margin: 0 auto; padding: 22px 28px 60px; }
.card {
  background: var(--card); border: 1px solid var(--line); border-radius: 10px;
  padding: 18px 22px; margin-bottom: 16px; box-shadow: 0 1px 2px rgba(16, 24, 40, .04);
}
.card-head { display: flex; align-items: baseline; gap: 14px; margin-bottom: 8px; }
.columns { display: grid; grid-template-columns: minmax(0, 1.15fr) minmax(0, 1fr); gap: 16px; }
.columns > .card { margin-bottom: 16px; }
@media (max-width: 920px) { .columns { grid-template-columns: 1fr; } }

/* Token form */
.auth {
  max-width: 1200px; margin: 18px auto 0; padding: 16px 22px; background: var(--waiting-bg);
  border: 1px solid #f5c77e; border-radius: 10px;
}
.auth label { display: block; margin-bottom: 8px; font-weight: 600; }
.locked { color: var(--muted); }

/* Status badges */
.badge {
  display: inline-flex; align-items: center; gap: 6px; white-space: nowrap;
  padding: 2px 10px 2px 8px; border-radius: 999px; font-size: 13px; font-weight: 600;
  color: var(--c); background: var(--b);
}
.badge::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: var(--c); }
.tone-running { --c: var(--running); --b: var(--running-bg); }
.tone-waiting { --c: var(--waiting); --b: var(--waiting-bg); }
.tone-done { --c: var(--done); --b: var(--done-bg); }
.tone-stopped { --c: var(--stopped); --b: var(--stopped-bg); }
.tone-limit { --c: var(--limit); --b: var(--limit-bg); }
.tone-failed { --c: var(--failed); --b: var(--failed-bg); }
.tone-stopping { --c: var(--stopping); --b: var(--stopping-bg); }
.badge.tone-running::before, .badge.tone-stopping::before { animation: pulse 1.2s ease-in-out infinite; }
@keyframes pulse { 50% { opacity: .25; } }

/* Run list */
.tally { display: flex; flex-wrap: wrap; gap: 8px; margin: 4px 0 14px; }
.tally-item { padding: 3px 12px; border-radius: 8px; background: var(--b); color: var(--c); font-size: 14px; }
.tally-item.zero { background: #f2f4f7; color: var(--muted); }
.empty { color: var(--muted); }
table.runs { width: 100%; border-collapse: collapse; }
.runs th {
  text-align: left; font-size: 12px; text-transform: uppercase; letter-spacing: .05em;
  color: var(--muted); font-weight: 600; padding: 6px 10px; border-bottom: 1px solid var(--line);
}
.runs td { padding: 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
.runs tr:last-child td { border-bottom: 0; }
.runs tbody tr:hover { background: #fafbfc; }
.runs td.status { border-left: 4px solid var(--c); width: 260px; }
.runs .why { font-size: 13px; color: var(--muted); margin-top: 4px; }
.runs .task a { font-weight: 600; color: var(--ink); }
.runs .sub { font-size: 12px; color: var(--muted); }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.runs .model { font-family: var(--mono); font-size: 13px; color: var(--muted); white-space: nowrap; }
.runs .when { font-size: 13px; color: var(--muted); white-space: nowrap; }

/* Run head */
.head { border-left: 5px solid var(--c); padding-left: 16px; }
.head .state { display: flex; align-items: center; gap: 12px; flex-wrap: wrap; }
.head .badge { font-size: 15px; padding: 4px 14px 4px 10px; }
.head .why { margin: 0; color: var(--ink); }
.task-title { margin: 12px 0 6px; font-size: 21px; overflow-wrap: anywhere; }
.crumb { margin: 0 0 6px; color: var(--muted); font-size: 14px; }
.facts { display: flex; flex-wrap: wrap; gap: 8px 28px; margin: 12px 0 0; }
.facts dt { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.facts dd { margin: 0; font-weight: 600; font-variant-numeric: tabular-nums; }
.facts dd.cost { font-size: 18px; }
.answer, .failure { margin-top: 14px; padding: 12px 14px; border-radius: 8px; background: var(--done-bg); }
.failure { background: var(--failed-bg); }
.answer h2, .failure h2 { margin-bottom: 6px; }

/* Controls */
.controls-card:has(.verdict) { border-color: #f5c77e; }
form.verdict { background: var(--waiting-bg); margin: -6px -10px; padding: 12px 14px; border-radius: 8px; }
form.verdict h2 { color: var(--waiting); }
form.verdict p { margin: 0 0 8px; }
.tool-ref { font-family: var(--mono); font-size: 14px; }
form + form { margin-top: 14px; }
.row { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
.args {
  background: #f8f9fb; border: 1px solid var(--line); border-radius: 6px;
  padding: 8px 10px; margin: 6px 0 10px; max-height: 220px; overflow: auto;
}
.hint { margin: 6px 0 0; font-size: 13px; color: var(--muted); }
input[type="text"], input[type="password"] {
  flex: 1; min-width: 220px; padding: 8px 10px; font: inherit;
  border: 1px solid #cfd4dc; border-radius: 6px; background: #fff;
}
input:focus, button:focus-visible { outline: 2px solid #93b4ff; outline-offset: 1px; }
button {
  font: inherit; font-weight: 600; padding: 8px 16px; border-radius: 6px; cursor: pointer;
  border: 1px solid #cfd4dc; background: #fff; color: var(--ink);
}
button:hover { background: #f2f4f7; }
button:disabled { opacity: .55; cursor: progress; }
button.approve { background: var(--done); border-color: var(--done); color: #fff; }
button.approve:hover { background: #116932; }
button.reject { color: var(--failed); border-color: #f0a8a1; }
button.reject:hover { background: var(--failed-bg); }
button.danger { background: var(--failed); border-color: var(--failed); color: #fff; }
button.danger:hover { background: #912018; }
.error {
  margin: 12px 0 0; padding: 9px 12px; border-radius: 6px;
  background: var(--failed-bg); color: var(--failed); border: 1px solid #f5b8b2; overflow-wrap: anywhere;
}
.error.ok { background: var(--done-bg); color: var(--done); border-color: #a6dcb6; }

/* Tree */
.tree { list-style: none; margin: 0; padding: 0; }
.node { padding: 8px 0; border-bottom: 1px solid var(--line); }
.node:last-child { border-bottom: 0; }
.node.here > .node-line .node-id { font-weight: 700; text-decoration: underline; }
.node-line { display: flex; align-items: center; gap: 10px; min-width: 0; }
.indent { flex: none; width: 0; height: 1px; }
.indent[data-depth="1"] { width: 22px; } .indent[data-depth="2"] { width: 44px; }
.indent[data-depth="3"] { width: 66px; } .indent[data-depth="4"] { width: 88px; }
.indent[data-depth="5"] { width: 110px; } .indent[data-depth="6"] { width: 132px; }
.node[data-depth]:not([data-depth="0"]) .indent { border-bottom: 1px dashed #cfd4dc; }
.node-id { font-family: var(--mono); font-size: 13px; }
.node-why { flex: 1; min-width: 0; color: var(--muted); font-size: 13px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.node-num { font-variant-numeric: tabular-nums; font-size: 13px; white-space: nowrap; }
.node-num.cost { font-weight: 600; min-width: 80px; text-align: right; }
.tools:empty { display: none; }
.tools { margin: 6px 0 0 32px; display: grid; gap: 4px; }
.node[data-depth="1"] .tools { margin-left: 54px; } .node[data-depth="2"] .tools { margin-left: 76px; }
.node[data-depth="3"] .tools { margin-left: 98px; }
.tool {
  display: grid; grid-template-columns: minmax(90px, max-content) 120px minmax(0, 1fr) auto; gap: 10px; align-items: center;
  font-size: 13px; padding: 3px 8px; border-radius: 6px; background: #f8f9fb;
}
.tool-name { font-family: var(--mono); font-weight: 600; overflow: hidden; text-overflow: ellipsis; }
.tool-label { color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.tool-state { font-size: 12px; font-weight: 600; color: var(--c, var(--muted)); }
.tool.state-running { --c: var(--running); }
.tool.state-ok { --c: var(--done); }
.tool.state-failed { --c: var(--failed); }
.tool.state-stopped { --c: var(--stopped); }
.tool.state-waiting { --c: var(--waiting); background: var(--waiting-bg); }
progress {
  appearance: none; -webkit-appearance: none; width: 100%; height: 8px;
  border: 0; border-radius: 4px; background: #e4e7ec; overflow: hidden;
}
progress::-webkit-progress-bar { background: #e4e7ec; border-radius: 4px; }
progress::-webkit-progress-value { background: var(--c, var(--running)); border-radius: 4px; transition: width .3s; }
progress::-moz-progress-bar { background: var(--c, var(--running)); }
progress:indeterminate {
  background: linear-gradient(90deg, #e4e7ec 0 35%, #9db8f5 50%, #e4e7ec 65% 100%);
  background-size: 300% 100%; animation: sweep 1.6s linear infinite;
}
progress:indeterminate::-webkit-progress-bar { background: transparent; }
@keyframes sweep { from { background-position: 100% 0; } to { background-position: 0 0; } }

/* Activity */
.activity {
  list-style: none; margin: 0; padding: 0; max-height: 460px; overflow: auto;
  font-size: 13px; font-variant-numeric: tabular-nums;
}
.activity:empty::after { content: "Waiting for events…"; color: var(--muted); }
.ev { display: grid; grid-template-columns: 66px 84px minmax(0, 1fr); gap: 8px; padding: 4px 2px; border-bottom: 1px solid #f0f1f4; }
.ev-time { color: var(--muted); }
.ev-node { font-family: var(--mono); color: var(--muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.ev-text { overflow-wrap: anywhere; }
.ev-turn .ev-text b { color: var(--ink); }
.ev-approval_required .ev-text { color: var(--waiting); font-weight: 600; }
.ev-run_stopped .ev-text { font-weight: 600; }
.ev-tool_result.failed .ev-text { color: var(--failed); }

/* Transcript */
.transcript { list-style: none; margin: 0; padding: 0; display: grid; gap: 10px; }
.msg { border-left: 3px solid var(--c, #cfd4dc); padding: 6px 12px; background: #fafbfc; border-radius: 0 6px 6px 0; }
.msg .role { display: block; font-size: 12px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin-bottom: 4px; }
.msg .role b { text-transform: none; letter-spacing: 0; color: var(--ink); font-family: var(--mono); }
.msg.user { --c: var(--running); }
.msg.assistant { --c: #334155; background: #fff; }
.msg.tool { --c: #0f766e; }
.msg.system { --c: #98a2b3; }
.msg summary { cursor: pointer; color: var(--muted); }
.call { margin-top: 6px; }
.call-name { font-family: var(--mono); font-weight: 700; }
.call-id { color: var(--muted); font-size: 12px; }
`;
