/**
 * The budget as a picture on the run page (inline SVG, drawn here, styled by
 * `static/budget.css`, its readout by `static/budget.js`): a bar of what was
 * spent against the budget, the overshoot in red when a soft budget went
 * over; and the spend call by call, a rising curve of the running total with
 * the budget as a dashed line, each call's own cost as a bar under it.
 *
 * @module
 */
import { percentOf, spentText, usdPair } from "../../harness/spend_text.ts";
import { runLabel } from "./format.ts";
import { type Html, html } from "./html.ts";
import type { Spend } from "./spend.ts";

const W = 1000; // the SVGs' own units; they scale to the card's width
const BAR_H = 18;
const CHART_H = 200;
const PAD = { left: 8, right: 8, top: 10, bottom: 18 };

const n2 = (x: number) => Math.round(x * 100) / 100;

/** The spend bar: spent up to the budget, then the overshoot in red, the budget marked. */
export function renderBudgetBar(s: Spend): Html {
  const scale = Math.max(s.budgetUsd, s.spentUsd) || 1;
  const within = (Math.min(s.spentUsd, s.budgetUsd) / scale) * W;
  const over = (Math.max(0, s.spentUsd - s.budgetUsd) / scale) * W;
  const mark = (s.budgetUsd / scale) * W;
  return html`<svg class="budget-bar" viewBox="0 0 ${W} ${BAR_H}" preserveAspectRatio="none"
  role="img" aria-label="${spentText(s.spentUsd, s.budgetUsd)}">
<rect class="bar-room" x="0" y="0" width="${W}" height="${BAR_H}"></rect>
<rect class="bar-spent" x="0" y="0" width="${n2(within)}" height="${BAR_H}"></rect>
${
    over > 0
      ? html`<rect class="bar-over" x="${n2(within)}" y="0" width="${
        n2(over)
      }" height="${BAR_H}"></rect>`
      : ""
  }
<line class="bar-budget" x1="${n2(mark)}" x2="${n2(mark)}" y1="0" y2="${BAR_H}"></line>
</svg>`;
}

/** The curve: the running total after each call, the budget line, each call's cost as a bar. */
export function renderSpendChart(s: Spend, rootId: string): Html {
  const n = s.calls.length;
  if (n === 0) return html`<p class="muted">No model call yet.</p>`;
  let total = 0;
  const running = s.calls.map((call) => ({ call, total: total += call.costUsd }));
  const top = Math.max(s.budgetUsd, total, 1e-9) * 1.08;
  const biggest = Math.max(...s.calls.map((c) => c.costUsd), 1e-9);
  const plotH = CHART_H - PAD.top - PAD.bottom;
  const step = (W - PAD.left - PAD.right) / n;
  const x = (i: number) => PAD.left + step * (i + 0.5);
  const y = (usd: number) => PAD.top + plotH * (1 - usd / top);
  const barH = (usd: number) => (plotH * 0.35 * usd) / biggest; // own scale: the calls' sizes
  const points = running.map(({ total: t }, i) => `${n2(x(i))},${n2(y(t))}`).join(" ");
  const calls = running.map(({ call: c, total: t }, i) => {
    const who = c.runId === rootId ? "root" : runLabel(c.runId);
    const words = `call ${i + 1} (${who}, turn ${c.turn}): $${c.costUsd.toFixed(6)}, ` +
      `total $${t.toFixed(6)}`;
    const over = t > s.budgetUsd ? " over" : "";
    const h = barH(c.costUsd);
    return html`
      <g class="call${over}" data-words="${words}">
        <title>${words}</title>
        <rect class="call-cost" x="${n2(x(i) - step * 0.3)}" y="${n2(CHART_H - PAD.bottom - h)}"
          width="${n2(step * 0.6)}" height="${n2(h)}"></rect>
        <circle class="call-total" cx="${n2(x(i))}" cy="${n2(y(t))}" r="${n > 60
          ? 2
          : 3.5}"></circle>
      </g>
    `;
  });
  const by = n2(y(s.budgetUsd));
  return html`<svg class="spend-chart" viewBox="0 0 ${W} ${CHART_H}" role="img"
  aria-label="running total after each of ${n} model calls against the budget">
<line class="axis" x1="${PAD.left}" x2="${W - PAD.right}" y1="${CHART_H - PAD.bottom}"
 y2="${CHART_H - PAD.bottom}"></line>
<line class="budget-line" x1="${PAD.left}" x2="${W - PAD.right}" y1="${by}" y2="${by}"></line>
<text class="budget-label" x="${PAD.left}" y="${n2(by - 5)}">budget $${
    s.budgetUsd.toFixed(6)
  }</text>
<polyline class="total-line" points="${points}"></polyline>
${calls}
<text class="axis-label" x="${PAD.left}" y="${CHART_H - 4}">call 1</text>
<text class="axis-label end" x="${W - PAD.right}" y="${CHART_H - 4}">call ${n}</text>
</svg>`;
}

/**
 * The budget card of a run page: what was spent of the budget in words and as
 * a bar, then call by call.
 *
 * @example
 * ```ts
 * import { renderBudget } from "./budget_picture.ts";
 * const card = String(renderBudget({ budgetUsd: 0.01, spentUsd: 0.01078, calls: [] }, "r"));
 * console.log(card.includes("spent $0.010780 of $0.010000 (108%)"), card.includes("bar-over")); // true true
 * ```
 */
export function renderBudget(s: Spend, rootId: string): Html {
  const over = s.spentUsd - s.budgetUsd;
  const [spent, budget] = usdPair(s.spentUsd, s.budgetUsd);
  const overWords = over > 0
    ? html`<span class="over-words">over by ${usdPair(over, 0)[0]}</span>`
    : html`<span class="muted">${usdPair(Math.max(0, -over), 0)[0]} left</span>`;
  return html`<div class="budget${over > 0 ? " is-over" : ""}">
<div class="budget-head"><h2>Budget</h2>
<p class="budget-words"><b>${spent}</b> of ${budget} (${
    percentOf(s.spentUsd, s.budgetUsd)
  }) ${overWords}</p></div>
${renderBudgetBar(s)}
<div class="spend-chart-wrap">${renderSpendChart(s, rootId)}</div>
<p class="spend-readout muted" aria-live="polite">Each dot: the running total after a model call;
each bar: that call's own cost. The dashed line is the budget.</p>
</div>`;
}
