// The budget picture's readout: pointing at a call of the curve (or focusing
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
