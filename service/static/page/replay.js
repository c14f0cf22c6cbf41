/* The replay: every position of the match as the token's seat saw it, forward and back
   (buttons, the slider, or the arrow keys); #n in the address opens position n. */
"use strict";

const SESSION = document.getElementById("replay").dataset.session;
const seat = loadSeat(SESSION);
const slider = document.getElementById("step");
let positions = [];

function go(index) {
  index = Math.max(0, Math.min(positions.length - 1, index));
  slider.value = index;
  history.replaceState(null, "", "#" + index);
  const position = positions[index];
  const move = position.move;
  document.getElementById("where").textContent = `Position ${index} of ${positions.length - 1}` +
    (move ? `, after move ${move.n}: seat ${move.seat} ${move.label}` : ", the deal") +
    (position.to_act === null ? ". The match is over." : `. Seat ${position.to_act} to act.`);
  document.getElementById("replay").dataset.position = index;
  document.getElementById("hand").replaceChildren(...handOf(position.view, seat.seat ?? position.view.seat).map((c) => cardNode(c)));
  renderView(document.getElementById("view"), position.view);
  renderScores(document.getElementById("scores"), position.score);
  document.querySelectorAll("#moves li").forEach((li, i) => li.classList.toggle("current", i + 1 === index));
}

async function load() {
  try {
    const answer = await api("GET", `/play/api/sessions/${SESSION}/positions`, seat.token);
    positions = answer.positions;
    document.getElementById("title").textContent = `Replay · ${answer.game} · seat ${answer.seat}`;
    slider.max = positions.length - 1;
    document.getElementById("moves").replaceChildren(...positions.slice(1).map((p, i) =>
      el("li", {}, el("a", { href: "#" + (i + 1), onclick: (e) => { e.preventDefault(); go(i + 1); } },
        `seat ${p.move.seat}: ${p.move.label}`))));
    go(Number(location.hash.slice(1)) || 0);
  } catch (error) {
    showError(document.getElementById("refusal"), error);
  }
}

const current = () => Number(slider.value);
document.getElementById("first").addEventListener("click", () => go(0));
document.getElementById("back").addEventListener("click", () => go(current() - 1));
document.getElementById("forward").addEventListener("click", () => go(current() + 1));
document.getElementById("last").addEventListener("click", () => go(positions.length - 1));
slider.addEventListener("input", () => go(current()));
document.addEventListener("keydown", (event) => {
  if (event.target === slider) return;
  if (event.key === "ArrowRight") go(current() + 1);
  if (event.key === "ArrowLeft") go(current() - 1);
});
window.addEventListener("hashchange", () => go(Number(location.hash.slice(1)) || 0));
if (seat) load();
else showError(document.getElementById("refusal"), { message: "this browser holds no token for this session" });
