/* The table: polls GET /v1/sessions/{id} with the seat token (the event stream is served
   from another port, and a cross-origin EventSource can send no Authorization header), and
   plays through the public API: moves, hints, the log and the review. */
"use strict";

const SESSION = document.getElementById("table").dataset.session;
const POLL_MS = 500;
const CARD_VERBS = JSON.parse(document.getElementById("card-verbs").textContent);
const refusal = document.getElementById("refusal");
let seat = loadSeat(SESSION);
let current = null; // the latest session answer
let busy = false; // a move is on its way: no second one
let rendering = 0; // answers being drawn (the score and the moves are fetched after the view)

async function poll() {
  try {
    const answer = await api("GET", "/v1/sessions/" + SESSION, seat.token);
    if (!current || answer.version > current.version) await show(answer);
  } catch (error) {
    showError(refusal, error);
  }
  if (!current || !current.finished) setTimeout(poll, POLL_MS);
}

async function show(answer) {
  rendering += 1;
  try {
    await render(answer);
  } finally {
    rendering -= 1;
  }
}

async function render(answer) {
  current = answer;
  document.getElementById("title").textContent = `${answer.game} · seat ${answer.seat}`;
  const turn = answer.finished ? "The match is over." :
    answer.to_act === answer.seat ? "Your turn." : `Seat ${answer.to_act} (bot) is thinking…`;
  document.getElementById("turn").textContent = `${turn} Phase: ${answer.view.phase || "—"}. Version ${answer.version}.`;
  document.getElementById("table").dataset.version = answer.version;
  document.getElementById("table").dataset.toAct = answer.to_act === null ? "" : answer.to_act;
  renderHand(answer);
  renderActions(answer.legal_actions);
  renderView(document.getElementById("view"), answer.view);
  document.getElementById("hint").replaceChildren();
  await Promise.all([showScores(), showMoves()]);
  if (answer.finished) finish();
}

function renderHand(answer) {
  const hand = document.getElementById("hand");
  hand.replaceChildren(...handOf(answer.view, answer.seat).map((code) => {
    const button = cardNode(code, "button");
    button.type = "button";
    if (!answer.legal_actions.some((a) => playsCard(a.action, code))) button.classList.add("unplayable");
    button.addEventListener("click", () => clickCard(code));
    return button;
  }));
}

function renderActions(actions) {
  const box = document.getElementById("actions");
  box.replaceChildren(...actions.map((legal, i) =>
    el("button", { type: "button", class: "move", "data-index": i, onclick: () => play(legal.action) }, legal.label)));
  if (!actions.length) box.append(el("span", { class: "empty" }, "nothing to do now"));
  document.getElementById("hint-button").disabled = actions.length === 0;
}

/* A card from the hand: the one legal action that plays it; several (a capture choice, a
   meld): focus them; none: send it anyway, so the service says which rule refuses it. */
function clickCard(code) {
  const actions = current.legal_actions;
  const matching = actions.filter((a) => playsCard(a.action, code));
  const buttons = document.querySelectorAll("#actions .move");
  buttons.forEach((b) => b.classList.remove("chosen"));
  if (matching.length === 1) return play(matching[0].action);
  if (matching.length > 1) {
    matching.forEach((m) => buttons[actions.indexOf(m)].classList.add("chosen"));
    buttons[actions.indexOf(matching[0])].focus();
    return;
  }
  const withCard = actions.find((a) => "card" in a.action);
  play({ type: withCard ? withCard.action.type : CARD_VERBS[current.game], card: code });
}

function playsCard(action, code) { return action.card === code || (action.cards || []).includes(code); }

async function play(action) {
  if (busy) return;
  busy = true;
  refusal.hidden = true;
  try {
    const answer = await api("POST", `/v1/sessions/${SESSION}/moves`, seat.token,
      { action, expected_version: current.version });
    await show(answer);
  } catch (error) {
    showError(refusal, error);
  } finally {
    busy = false;
  }
}

async function showScores() {
  const answer = await api("GET", `/play/api/sessions/${SESSION}/score`, seat.token);
  renderScores(document.getElementById("scores"), answer.score);
}

async function showMoves() {
  const log = await api("GET", `/v1/sessions/${SESSION}/log`, seat.token);
  const list = document.getElementById("moves");
  list.replaceChildren(...log.entries.slice(-12).reverse().map((entry) =>
    el("li", { value: entry.n }, `seat ${entry.seat} (${entry.by}): `, moveText(entry.action))));
}

function moveText(action) {
  const node = el("span", {}, action.type + " ");
  for (const [key, value] of Object.entries(action)) {
    if (key === "card" || key === "cards") node.append(valueNode(value), " ");
    else if (key !== "type") node.append(key.replaceAll("_", " ") + " ", valueNode(value), " ");
  }
  return node;
}

/* The seat's actions ranked by a short search: one bar per action, its value in [0, 1]. */
async function hint() {
  const box = document.getElementById("hint");
  box.textContent = "Searching…";
  try {
    const answer = await api("POST", `/v1/sessions/${SESSION}/hint`, seat.token, {});
    const bars = el("ol", { class: "bars" });
    for (const ranked of answer.actions) {
      const value = ranked.value === null ? 0 : ranked.value;
      bars.append(el("li", {}, el("button", { type: "button", onclick: () => play(ranked.action) }, ranked.label),
        el("span", { class: "bar", style: `width:${Math.round(value * 100)}%` }),
        el("span", { class: "value" }, ranked.value === null ? "—" : value.toFixed(2))));
    }
    box.replaceChildren(el("p", {}, "Expected outcome of each move (0 to 1), best first:"), bars);
  } catch (error) {
    box.replaceChildren();
    showError(refusal, error);
  }
}

function finish() {
  document.getElementById("after").hidden = false;
  const report = current.view;
  document.getElementById("result").textContent = `Final scores: ${JSON.stringify(report.scores)}.`;
}

/* Every seat's decisions searched again on the workers: accuracy and biggest mistakes. */
async function review() {
  const box = document.getElementById("review");
  box.textContent = "Reviewing…";
  try {
    const started = await api("POST", `/v1/sessions/${SESSION}/review`, seat.token, { all_seats: true, iterations: 100 });
    let job = started.job;
    while (job.status !== "done") {
      if (job.status === "failed") throw new Error(job.error || "the review failed");
      await new Promise((r) => setTimeout(r, 500));
      job = await api("GET", job.url, seat.token);
      if (job.progress) box.textContent = `Reviewing… ${job.progress.done} of ${job.progress.total} decisions`;
    }
    renderReview(box, job.review);
  } catch (error) {
    box.replaceChildren();
    showError(refusal, error);
  }
}

function renderReview(box, result) {
  const table = el("table", { class: "review" }, el("caption", {}, "Accuracy per seat"));
  table.append(el("tr", {}, el("th", {}, "seat"), el("th", {}, "accuracy"), el("th", {}, "mistakes"), el("th", {}, "biggest")));
  for (const s of result.summary) {
    const biggest = el("span", {});
    for (const m of s.biggest_mistakes) {
      biggest.append(el("a", { href: `/play/replay/${SESSION}#${m.n - 1}`, class: "mistake" },
        `move ${m.n}: `, moveText(m.played), ` (best `, moveText(m.best), `, −${m.loss.toFixed(2)})`), " ");
    }
    table.append(el("tr", {}, el("td", {}, String(s.seat)), el("td", {}, s.accuracy === null ? "—" : s.accuracy + "%"),
      el("td", {}, String(s.mistakes)), el("td", {}, biggest)));
  }
  box.replaceChildren(table);
}

function askToken() {
  const main = document.getElementById("table");
  main.replaceChildren(el("p", {}, "This browser holds no token for this session. Paste a seat token:"),
    el("form", { class: "panel", onsubmit: (event) => {
      event.preventDefault();
      saveSeat(SESSION, { token: event.target.token.value.trim() });
      location.reload();
    } }, el("input", { name: "token", "aria-label": "seat token" }), el("button", {}, "Open")));
}

document.getElementById("hint-button").addEventListener("click", hint);
document.getElementById("review-button").addEventListener("click", review);
if (seat) poll(); else askToken();
