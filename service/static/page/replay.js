/* The replay: every position of the match as the token's seat saw it, forward and back
   (buttons, the slider, or the arrow keys); #n in the address opens position n. */
"use strict";

const REPLAY = document.getElementById("replay");
const SESSION = REPLAY.dataset.session;
const GAME = REPLAY.dataset.game;
const seat = loadSeat(SESSION);
const slider = document.getElementById("step");
let positions = [];
let mySeat = null;

function go(index) {
  index = Math.max(0, Math.min(positions.length - 1, index));
  slider.value = index;
  history.replaceState(null, "", "#" + index);
  const position = positions[index];
  const move = position.move;
  const where = el("span", {}, t("position_of", { i: index, n: positions.length - 1 }), " · ");
  if (move) where.append(el("b", {}, seatName(move.seat, mySeat) + ": "), actionContent(GAME, move.action, position.view, mySeat, move.label));
  else where.append(t("the_deal"));
  where.append(" · ", position.to_act === null ? t("live_over") : t("to_act_seat", { name: seatName(position.to_act, mySeat) }));
  document.getElementById("where").replaceChildren(where);
  REPLAY.dataset.position = index;
  document.getElementById("hand").replaceChildren(...handOf(position.view, mySeat ?? position.view.seat).map((c) => cardNode(c, "span", GAME)));
  renderView(document.getElementById("view"), position.view);
  renderScores(document.getElementById("scores"), position.score, mySeat);
  document.querySelectorAll("#moves li").forEach((li, i) => li.classList.toggle("current", i + 1 === index));
}

async function load() {
  try {
    const answer = await api("GET", `/play/api/sessions/${SESSION}/positions`, seat.token);
    positions = answer.positions;
    mySeat = answer.seat;
    document.getElementById("title").textContent = `${t("replay_title")} · ${term(GAME, "title")}`;
    slider.max = positions.length - 1;
    document.getElementById("moves").replaceChildren(...positions.slice(1).map((p, i) =>
      el("li", {}, el("a", { href: "#" + (i + 1), onclick: (e) => { e.preventDefault(); go(i + 1); } },
        seatName(p.move.seat, mySeat) + ": ", actionContent(GAME, p.move.action, positions[i].view, mySeat, p.move.label)))));
    go(Number(location.hash.slice(1)) || 0);
  } catch (error) {
    showError(document.getElementById("refusal"), error);
  }
}

const currentPosition = () => Number(slider.value);
document.getElementById("first").addEventListener("click", () => go(0));
document.getElementById("back").addEventListener("click", () => go(currentPosition() - 1));
document.getElementById("forward").addEventListener("click", () => go(currentPosition() + 1));
document.getElementById("last").addEventListener("click", () => go(positions.length - 1));
slider.addEventListener("input", () => go(currentPosition()));
document.addEventListener("keydown", (event) => {
  if (event.target === slider) return;
  if (event.key === "ArrowRight") go(currentPosition() + 1);
  if (event.key === "ArrowLeft") go(currentPosition() - 1);
});
window.addEventListener("hashchange", () => go(Number(location.hash.slice(1)) || 0));
if (seat) load();
else showError(document.getElementById("refusal"), { message: t("token_missing") });
