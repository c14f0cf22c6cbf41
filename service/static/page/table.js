/* The table: follows the session's event stream and fetches the seat's view once per new
   version it announces (a move event is the log entry, not the view); polls
   GET /v1/sessions/{id} only while the stream cannot be opened. The stream's URL comes
   from the server (data-events: the stream server under `python -m service.run`, else this
   origin); it is read with fetch(), which can send the seat token, unlike EventSource.
   Plays through the public API: moves, hints, the review. */
"use strict";

const TABLE = document.getElementById("table");
const SESSION = TABLE.dataset.session;
const EVENTS_URL = TABLE.dataset.events;
const POLL_MS = 500;
const RETRY_MOST_MS = 10000;
const CARD_VERBS = JSON.parse(document.getElementById("card-verbs").textContent);
const refusal = document.getElementById("refusal");
let seat = loadSeat(SESSION);
let current = null; // the latest session answer
let busy = false; // a move is on its way: no second one
let rendering = 0; // answers being fetched or drawn (the score is fetched after the view)
let announced = -1; // the latest version the stream announced
let refreshing = false; // a fetch of the view is on its way: it looks again before it ends
let polling = false;
const moves = new Map(); // the log's entries by number, from the stream (or the log)
// the stream: how it goes, the last event id (a version: reconnects resume after it; 0 at
// first, so the log's moves so far come first), the server's reconnection delay
const live = { mode: "", lastId: "0", retryMs: 1000, failures: 0, stop: new AbortController() };
const LIVE_TEXT = {
  connecting: () => "Connecting to the session's event stream…",
  stream: () => "Live: moves arrive on the session's event stream.",
  reconnecting: () => "The event stream dropped: reconnecting…",
  polling: (why) => `The event stream could not be opened (${why}): asking for news every ${POLL_MS / 1000} s instead.`,
  over: () => "The match is over.",
  gone: () => "The session has expired.",
};

function setLive(mode, why) {
  live.mode = mode;
  TABLE.dataset.live = mode;
  document.getElementById("live").textContent = LIVE_TEXT[mode](why);
  if (mode === "polling" && !polling) poll();
}

/* Reads the stream while the match goes on. After a drop it reconnects with Last-Event-ID,
   and the service resends every move since from the log; while it cannot be opened the
   table polls, and tries the stream again, waiting twice as long each time (at most 10 s). */
async function follow() {
  setLive("connecting");
  const listener = { opened, event: onEvent, retry: (ms) => { live.retryMs = ms; } };
  while (!live.stop.signal.aborted) {
    try {
      const headers = { ...authHeaders(seat.token), "Last-Event-ID": live.lastId };
      await readEvents(EVENTS_URL, headers, listener, live.stop.signal);
      if (!live.stop.signal.aborted) setLive("reconnecting"); // the server ended it
    } catch (error) {
      if (live.stop.signal.aborted) return;
      if (error instanceof StreamClosed) {
        live.failures += 1;
        setLive("polling", error.message);
      } else {
        setLive("reconnecting");
      }
    }
    const wait = Math.min(live.retryMs * 2 ** Math.max(0, live.failures - 1), RETRY_MOST_MS);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

function opened() {
  live.failures = 0;
  setLive("stream");
}

function onEvent(event) {
  if (event.id) live.lastId = event.id;
  if (event.type === "gone") {
    live.stop.abort();
    setLive("gone");
    return;
  }
  const data = JSON.parse(event.data);
  if (event.type === "move") addMoves([data]);
  announced = Math.max(announced, data.version);
  if (!busy) refresh(); // else the move's own answer brings the view (and play() looks again)
}

/* The seat's view, once per version the stream announced: the versions announced while a
   fetch is on its way are all covered by the next one. */
async function refresh() {
  if (refreshing) return;
  refreshing = true;
  rendering += 1;
  try {
    while (!current || announced > current.version) {
      const wanted = announced;
      const answer = await api("GET", "/v1/sessions/" + SESSION, seat.token);
      if (!current || answer.version > current.version) await show(answer);
      else if (announced === wanted) break; // nothing newer to fetch
    }
  } catch (error) {
    showError(refusal, error);
  } finally {
    refreshing = false;
    rendering -= 1;
  }
}

/* Without the stream: the session every POLL_MS, and the log when its version moved. */
async function poll() {
  polling = true;
  while (live.mode === "polling" && !(current && current.finished)) {
    try {
      const answer = await api("GET", "/v1/sessions/" + SESSION, seat.token);
      if (!current || answer.version > current.version) {
        addMoves((await api("GET", `/v1/sessions/${SESSION}/log`, seat.token)).entries);
        await show(answer);
      }
    } catch (error) {
      showError(refusal, error);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  polling = false;
}

async function show(answer) {
  if (current && answer.version <= current.version) return; // an older answer came in late
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
  TABLE.dataset.version = answer.version;
  TABLE.dataset.toAct = answer.to_act === null ? "" : answer.to_act;
  renderHand(answer);
  renderActions(answer.legal_actions);
  renderView(document.getElementById("view"), answer.view);
  document.getElementById("hint").replaceChildren();
  await showScores();
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
  refresh(); // the versions the stream announced meanwhile
}

async function showScores() {
  const answer = await api("GET", `/play/api/sessions/${SESSION}/score`, seat.token);
  renderScores(document.getElementById("scores"), answer.score);
}

/* Log entries (from the stream, or the log while polling), and the last 12 of them drawn. */
function addMoves(entries) {
  for (const entry of entries) moves.set(entry.n, entry);
  const latest = [...moves.values()].sort((a, b) => b.n - a.n).slice(0, 12);
  document.getElementById("moves").replaceChildren(...latest.map((entry) =>
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
  live.stop.abort(); // nothing more will happen: the stream server's thread is freed
  setLive("over");
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
if (seat) {
  refresh();
  follow();
} else {
  askToken();
}
