/* The table: seats around it (you at the bottom), the trick or table cards in the middle,
   your hand fanned with the legal cards raised, the contract and declarations as chips.
   Follows the session's event stream (read with fetch(), which can send the seat token,
   unlike EventSource) and fetches the seat's view once per new version it announces;
   polls only while the stream cannot be opened, and stops for good on a 404. When a deal
   ends, its itemised score stays on screen until the player dismisses it, and the bots of
   a session this page holds wait for that (POST /play/api/sessions/{id}/ack). */
"use strict";

const TABLE = document.getElementById("table");
const SESSION = TABLE.dataset.session;
const GAME = TABLE.dataset.game;
const EVENTS_URL = TABLE.dataset.events;
const POLL_MS = 500;
const RETRY_MOST_MS = 10000;
const refusal = document.getElementById("refusal");
let seat = seatFromFragment(SESSION);
let current = null; // the latest session answer
let busy = false; // a move is on its way: no second one
let rendering = 0; // answers being fetched or drawn
let announced = -1; // the latest version the stream announced
let refreshing = false;
let polling = false;
let gone = false; // the session is unknown or expired: nothing more to ask
let dealSeen = null; // the deal number last drawn: a higher one means a deal ended
let summaryOpen = false;
let deadlineAt = null; // when the seat to act runs out of time (this browser's clock)
const moves = new Map();
const live = { mode: "", lastId: "0", retryMs: 1000, failures: 0, stop: new AbortController() };
const LIVE_TEXT = {
  connecting: () => t("live_connecting"),
  stream: () => t("live_stream"),
  reconnecting: () => t("live_reconnecting"),
  polling: (why) => t("live_polling", { why, s: POLL_MS / 1000 }),
  over: () => t("live_over"),
  gone: () => t("live_gone"),
};

function me() { return current ? current.seat : null; }

function setLive(mode, why) {
  live.mode = mode;
  TABLE.dataset.live = mode;
  document.getElementById("live").textContent = LIVE_TEXT[mode](why);
  if (mode === "polling" && !polling) poll();
}

/* The session is unknown or expired: say so, stop every request. */
function lost() {
  gone = true;
  live.stop.abort();
  setLive("gone");
}

async function follow() {
  setLive("connecting");
  const listener = { opened, event: onEvent, retry: (ms) => { live.retryMs = ms; } };
  while (!live.stop.signal.aborted) {
    try {
      const headers = { ...authHeaders(seat.token), "Last-Event-ID": live.lastId };
      await readEvents(EVENTS_URL, headers, listener, live.stop.signal);
      if (!live.stop.signal.aborted) setLive("reconnecting");
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

function opened() { live.failures = 0; setLive("stream"); }

function onEvent(event) {
  if (event.id) live.lastId = event.id;
  if (event.type === "gone") { lost(); return; }
  const data = JSON.parse(event.data);
  if (event.type === "move") addMoves([data]);
  announced = Math.max(announced, data.version);
  if (!busy) refresh();
}

async function refresh() {
  if (refreshing || gone) return;
  refreshing = true;
  rendering += 1;
  try {
    while (!gone && (!current || announced > current.version)) {
      const wanted = announced;
      const answer = await api("GET", "/v1/sessions/" + SESSION, seat.token);
      if (!current || answer.version > current.version) await show(answer);
      else if (announced === wanted) break;
    }
  } catch (error) {
    if (error.status === 404) lost();
    showError(refusal, error);
  } finally {
    refreshing = false;
    rendering -= 1;
  }
}

async function poll() {
  polling = true;
  while (live.mode === "polling" && !gone && !(current && current.finished)) {
    try {
      const answer = await api("GET", "/v1/sessions/" + SESSION, seat.token);
      if (!current || answer.version > current.version) {
        addMoves((await api("GET", `/v1/sessions/${SESSION}/log`, seat.token)).entries);
        await show(answer);
      }
    } catch (error) {
      if (error.status === 404) lost();
      showError(refusal, error);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  polling = false;
}

async function show(answer) {
  if (current && answer.version <= current.version) return;
  rendering += 1;
  try {
    await render(answer);
  } finally {
    rendering -= 1;
  }
}

async function render(answer) {
  const first = current === null;
  current = answer;
  const view = answer.view;
  document.getElementById("title").textContent = t("deal_heading", { game: term(GAME, "title"), n: view.deal_no || 1 });
  TABLE.dataset.version = answer.version;
  TABLE.dataset.toAct = answer.to_act === null ? "" : answer.to_act;
  TABLE.dataset.deal = view.deal_no || 1;
  drawPart(renderTurn, answer);
  drawPart(renderChips, view);
  drawPart(renderSeats, answer);
  drawPart(renderMiddle, view);
  const area = focusArea();
  drawPart(renderHand, answer);
  drawPart(renderActions, answer);
  drawPart(renderView, document.getElementById("view"), view);
  document.getElementById("hint").replaceChildren();
  if (area && document.activeElement === document.body) focusPlay(area); // its control was replaced
  await showScores();
  const deal = view.deal_no || 1;
  if (first && answer.seat !== null) hold();
  if (!first && (deal > dealSeen || (answer.finished && !TABLE.dataset.summarised))) await showSummary(answer.finished);
  dealSeen = deal;
  if (answer.finished) finish();
}

/* One part of the table. A fault in one part is logged and the others are still drawn:
   above all the move box, without which the player could not play on. */
function drawPart(part, ...args) {
  try {
    part(...args);
  } catch (error) {
    console.error(error);
  }
}

/* --------------------------------------------------------------------------- the turn */

function renderTurn(answer) {
  const turn = document.getElementById("turn");
  deadlineAt = answer.turn_deadline && !answer.finished ? Date.now() + answer.turn_deadline.seconds_left * 1000 : null;
  if (answer.finished) turn.textContent = t("match_over");
  else if (answer.to_act === answer.seat) turn.textContent = t("your_turn");
  else turn.textContent = t("to_play", { name: seatName(answer.to_act, answer.seat) });
  turn.className = answer.to_act === answer.seat && !answer.finished ? "mine" : "";
  tick();
}

/* The countdown of the seat to act, once a second: at its seat and beside the turn line. */
function tick() {
  const text = deadlineAt === null ? "" : t("seconds_left", { n: Math.max(0, Math.ceil((deadlineAt - Date.now()) / 1000)) });
  document.querySelectorAll(".seat.acting .clock, #clock").forEach((box) => { box.textContent = text; });
}
setInterval(tick, 1000);

/* --------------------------------------------------------------------------- chips */

function chip(text, kind) { return el("span", { class: "chip" + (kind ? " " + kind : "") }, text); }

function renderChips(view) {
  const box = document.getElementById("chips");
  box.replaceChildren(...(CHIPS[GAME] || (() => []))(view));
}

const CHIPS = {
  baloot(view) {
    const chips = [];
    const c = view.contract;
    if (c) {
      chips.push(chip(el("span", {}, term(GAME, c.kind, {}, c.kind), c.trump ? el("bdi", { dir: "ltr" }, " " + SUITS[c.trump]) : ""), "contract"));
      chips.push(chip(`${term(GAME, "bidder")}: ${seatName(c.taker, me())}`));
      if (c.multiplier > 1) chips.push(chip(el("span", {}, term(GAME, ["", "", "double", "triple", "four"][c.multiplier] || "double"),
        " ", el("bdi", { dir: "ltr" }, "×" + num(c.multiplier))), "double"));
      if (c.gahwa) chips.push(chip(term(GAME, "gahwa"), "double"));
      if (c.multiplier > 1) chips.push(chip(term(GAME, c.locked ? "locked" : "open")));
    } else if (view.bidding) {
      chips.push(chip(term(GAME, "bidding")));
    }
    const projects = (view.projects && view.projects.declared) || [];
    projects.forEach((p, s) => { if (p && p.length) chips.push(chip(`${seatName(s, me())}: ${term(GAME, "projects")}`)); });
    (view.baloot || []).forEach((s) => chips.push(chip(`${term(GAME, "baloot")} · ${seatName(s, me())}`)));
    return chips;
  },
  trex(view) {
    const chips = [];
    if (view.contract) chips.push(chip(term(GAME, view.contract), "contract"));
    if (view.kingdom_owner !== null && view.kingdom_owner !== undefined) chips.push(chip(term(GAME, "kingdom", { name: seatName(view.kingdom_owner, me()) })));
    for (const [card, by] of Object.entries(view.doubled || {})) chips.push(chip(el("span", {}, term(GAME, "double"), " ", cardNode(card, "span", GAME), " · ", seatName(by, me())), "double"));
    return chips;
  },
  ronda(view) {
    return declarationChips(view);
  },
  porrazo(view) {
    const chips = declarationChips(view);
    if (view.pending_porrazo) chips.push(chip(term(GAME, "porrazo"), "double"));
    return chips;
  },
  marriage(view) {
    const chips = [];
    if (view.tiplu) chips.push(chip(el("span", {}, term(GAME, "tiplu"), " ", cardNode(view.tiplu, "span", GAME)), "contract"));
    (view.seen || []).forEach((seen, s) => { if (seen) chips.push(chip(`${seatName(s, me())}: ${term(GAME, "seen")}`)); });
    return chips;
  },
};

function declarationChips(view) {
  const chips = [];
  (view.declarations || []).forEach((d, s) => {
    if (d && d !== "none") chips.push(chip(t("declared", { what: term(GAME, d, {}, d) }) + " · " + seatName(s, me()), "declared"));
  });
  return chips;
}

/* --------------------------------------------------------------------------- seats */

/* Where a seat sits, seen from the bottom seat: the next to play on the right. */
function placeOf(s, bottom, n) {
  const offset = (s - bottom + n) % n;
  if (offset === 0) return "bottom";
  if (n === 2) return "top";
  if (n === 3) return offset === 1 ? "right" : "left";
  return ["bottom", "right", "top", "left"][offset] || "top";
}

function renderSeats(answer) {
  const view = answer.view;
  const n = answer.seats.length;
  const bottom = answer.seat === null ? 0 : answer.seat;
  const box = document.getElementById("seats");
  box.replaceChildren();
  for (let s = 0; s < n; s++) {
    const spec = answer.seats[s];
    const held = Array.isArray(view.hands) ? view.hands[s] : null;
    const count = Array.isArray(held) ? held.length : typeof held === "number" ? held : null;
    const acting = answer.to_act === s && !answer.finished;
    const kind = spec.type === "bot" ? t("kind_bot", { level: t("level_" + spec.level) }) : t("kind_human");
    const node = el("section", { class: `seat ${placeOf(s, bottom, n)}${acting ? " acting" : ""}`, "data-seat": s,
      "aria-label": seatName(s, answer.seat) },
      el("p", { class: "who" }, el("b", {}, seatName(s, answer.seat)), " ", el("small", {}, kind)),
      el("p", { class: "marks" }, view.dealer === s ? chip(t("dealer"), "dealer") : null,
        acting ? chip(s === answer.seat ? t("your_turn") : "…", "turn") : null,
        acting ? el("span", { class: "clock", role: "timer" }) : null, ...seatExtras(view, s)),
      count !== null && s !== answer.seat ? backsNode(count) : null);
    box.append(node);
  }
}

function seatExtras(view, s) {
  const extras = [];
  if (Array.isArray(view.tricks_won) && view.tricks_won.length === (view.hands || []).length) extras.push(chip(t("tricks_won", { n: view.tricks_won[s] })));
  if (Array.isArray(view.piles) && view.piles[s] !== undefined) {
    const pile = view.piles[s];
    extras.push(chip(t("captured", { n: Array.isArray(pile) ? pile.length : pile })));
  }
  return extras;
}

/* --------------------------------------------------------------------------- the middle */

function group(label, ...content) {
  return el("div", { class: "group" }, el("h3", {}, label), ...content);
}

/* The cards of a trick, each beside the seat that played it ({seat, card}, or a card
   code counted from the leader). */
function trickNode(cards, leader, n, label) {
  const box = el("div", { class: "trick" });
  cards.forEach((played, i) => {
    const card = typeof played === "string" ? played : played.card;
    const by = typeof played === "object" && played !== null ? played.seat : leader === null || leader === undefined ? null : (leader + i) % n;
    box.append(el("figure", { class: "played" }, cardNode(card, "span", GAME),
      by === null ? null : el("figcaption", {}, seatName(by, me()))));
  });
  return group(label, box);
}

function renderMiddle(view) {
  const box = document.getElementById("middle");
  box.replaceChildren(...(MIDDLE[GAME] || (() => []))(view));
}

const MIDDLE = {
  baloot(view) {
    const n = view.players;
    const parts = [];
    if (view.table && view.table.length) parts.push(trickNode(view.table, view.leader, n, t("trick")));
    else if (view.tricks && view.tricks.length) {
      const last = view.tricks[view.tricks.length - 1];
      parts.push(trickNode(last.cards, last.leader, n, t("last_trick")));
    } else parts.push(group(t("trick"), el("div", { class: "trick" })));
    if (view.candidate && !view.contract) parts.push(group(t("candidate"), cardNode(view.candidate, "span", GAME)));
    return parts;
  },
  trex(view) {
    const parts = [];
    if (view.contract === "trex" || (view.layout && Object.values(view.layout).some(Boolean))) parts.push(layoutGrid(view.layout || {}));
    else parts.push(trickNode(view.trick || [], view.trick_leader, view.players, t("trick")));
    return parts;
  },
  ronda(view) { return tableCards(view); },
  porrazo(view) {
    const parts = tableCards(view);
    if (view.tendido) parts.push(group(t("tendido"), cardsNode(view.tendido, GAME)));
    return parts;
  },
  marriage(view) {
    const parts = [group(t("stock"), backsNode(view.stock || 0))];
    const discard = view.discard || [];
    parts.push(group(t("discard_pile"), cardsNode(discard.slice(-5).map((d) => d.card), GAME, "pile")));
    (view.tunnelas || []).forEach((codes, s) => {
      // each exposed at the deal, written as its one code: three identical cards
      if (codes && codes.length) parts.push(group(`${t("exposed_tunnelas")} · ${seatName(s, me())}`,
        ...codes.map((code) => cardsNode([code, code, code], GAME, "set"))));
    });
    (view.shown || []).forEach((shown, s) => {
      if (!shown || !shown.length) return;
      // each item a set (an array of its codes) or, on the dublee route, a pair written as its one code
      const dublees = shown.every((item) => typeof item === "string");
      const sets = shown.map((item) => (typeof item === "string" ? [item, item] : item));
      const label = t(dublees ? "shown_dublees" : "shown_sets");
      parts.push(group(`${label} · ${seatName(s, me())}`, ...sets.map((set) => cardsNode(set, GAME, "set"))));
    });
    return parts;
  },
};

function tableCards(view) {
  const parts = [group(t("table_cards"), cardsNode(view.table || [], GAME, "spread"))];
  if (typeof view.stock === "number") parts.push(group(t("stock"), backsNode(view.stock)));
  return parts;
}

/* Trex's layout: one row per suit, from its lowest to its highest card laid. */
function layoutGrid(layout) {
  const ranks = "23456789TJQKA";
  const grid = el("table", { class: "layout" }, el("caption", {}, term(GAME, "trex")));
  for (const suit of "SHDC") {
    const row = el("tr", {}, el("th", { scope: "row" }, el("bdi", { dir: "ltr", class: "suit" + ("HD".includes(suit) ? " red" : "") }, SUITS[suit]),
      el("span", { class: "visually-hidden" }, term(GAME, "suit_" + suit))));
    const laid = layout[suit];
    for (const rank of ranks) {
      const on = laid && ranks.indexOf(rank) >= ranks.indexOf(laid.low) && ranks.indexOf(rank) <= ranks.indexOf(laid.high);
      row.append(el("td", {}, on ? cardNode(rank + suit, "span", GAME) : ""));
    }
    grid.append(row);
  }
  return grid;
}

/* --------------------------------------------------------------------------- the hand */

/* The hand is one stop of the Tab key (a roving tabindex, as a toolbar): the arrow keys
   move along the fan (mirrored right to left), Home and End go to its ends, Enter or
   Space plays the card. The stop is the card last focused while it stays in the hand and
   legal, else the first legal card, else the one last focused or the first. */
function renderHand(answer) {
  const hand = document.getElementById("hand");
  const cards = handOf(answer.view, answer.seat);
  const buttons = cards.map((code, i) => {
    const button = cardNode(code, "button", GAME);
    button.type = "button";
    const legal = answer.legal_actions.some((a) => playsCard(a.action, code));
    button.classList.add(legal ? "legal" : "unplayable");
    button.style.setProperty("--i", i - (cards.length - 1) / 2);
    button.tabIndex = -1;
    button.addEventListener("click", () => clickCard(code));
    button.addEventListener("focus", () => { focusedCard = code; makeHandStop(button); });
    return button;
  });
  hand.replaceChildren(...buttons);
  const legal = buttons.filter((b) => b.classList.contains("legal"));
  const stop = legal.find((b) => b.dataset.card === focusedCard) || legal[0] ||
    buttons.find((b) => b.dataset.card === focusedCard) || buttons[0];
  if (stop) makeHandStop(stop);
  hand.style.setProperty("--n", cards.length);
  hand.hidden = answer.seat === null;
}

let focusedCard = null; // the hand's card the player focused last

function makeHandStop(button) {
  document.querySelectorAll("#hand .card").forEach((card) => { card.tabIndex = card === button ? 0 : -1; });
}

const HAND_KEYS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

document.getElementById("hand").addEventListener("keydown", (event) => {
  const cards = [...document.querySelectorAll("#hand .card")];
  const at = cards.indexOf(document.activeElement);
  if (at < 0) return;
  let to = null;
  if (event.key === "Home") to = 0;
  else if (event.key === "End") to = cards.length - 1;
  else if (event.key in HAND_KEYS) {
    // right to left, the fan's first card is on the right: the left arrow goes on
    const mirrored = document.documentElement.dir === "rtl" && (event.key === "ArrowLeft" || event.key === "ArrowRight");
    to = at + (mirrored ? -HAND_KEYS[event.key] : HAND_KEYS[event.key]);
  }
  if (to === null) return;
  event.preventDefault();
  cards[Math.max(0, Math.min(cards.length - 1, to))].focus();
});

/* Where the player's keyboard focus was among the controls a render replaces. */
function focusArea() {
  const focused = document.activeElement;
  if (!focused || focused === document.body) return null;
  if (focused.closest("#hand")) return "hand";
  if (focused.closest("#actions")) return "actions";
  if (focused.closest("#hint")) return "hint";
  return null;
}

/* The focus goes back to the hand (or the moves when the hand has none to play): after a
   render removed the focused control, and after a dialog closes. */
function focusPlay(area) {
  if (document.querySelector("dialog[open]")) return;
  const hand = document.querySelector("#hand:not([hidden]) .card[tabindex='0']");
  const legalInHand = document.querySelector("#hand .card.legal");
  const firstMove = document.querySelector("#actions .move");
  const target = area === "actions" || !legalInHand ? firstMove || hand : hand;
  if (target) target.focus();
}

/* The actions no single hand card stands for (a bid, a pass, a meld, a choice). */
function renderActions(answer) {
  const box = document.getElementById("actions");
  const actions = answer.legal_actions;
  const hand = handOf(answer.view, answer.seat);
  const byCard = (legal) => legal.action.card && Object.keys(legal.action).length === 2 && hand.includes(legal.action.card) &&
    actions.filter((a) => playsCard(a.action, legal.action.card)).length === 1;
  box.replaceChildren(...actions.map((legal, i) => byCard(legal) ? null :
    el("button", { type: "button", class: "move", "data-index": i, "data-type": legal.action.type, onclick: () => play(legal.action) },
      actionContent(GAME, legal.action, answer.view, answer.seat, legal.label))).filter(Boolean));
  if (answer.seat !== null && actions.length && !box.children.length) box.append(el("span", { class: "small" }, t("your_turn")));
  document.getElementById("hint-button").hidden = actions.length === 0;
}

function clickCard(code) {
  const actions = current.legal_actions;
  const matching = actions.filter((a) => playsCard(a.action, code));
  const buttons = [...document.querySelectorAll("#actions .move")];
  buttons.forEach((b) => b.classList.remove("chosen"));
  if (matching.length === 1) return play(matching[0].action);
  if (matching.length > 1) {
    const chosen = buttons.filter((b) => matching.includes(actions[Number(b.dataset.index)]));
    chosen.forEach((b) => b.classList.add("chosen"));
    if (chosen.length) chosen[0].focus();
    return;
  }
  // no legal action plays it: say so here (a refused request would be a console error)
  refusal.textContent = actions.length ? t("not_playable") : t("not_your_turn");
  refusal.dataset.rule = "";
  refusal.hidden = false;
}

function playsCard(action, code) { return action.card === code || (action.cards || []).includes(code); }

/* Sends a move; an irreversible risky one (Ronda's challenge) is confirmed first. */
async function play(action) {
  if (busy) return;
  if (GAME === "ronda" && action.type === "challenge" && !(await confirmChallenge(action.target))) return;
  busy = true;
  refusal.hidden = true;
  try {
    const answer = await api("POST", `/v1/sessions/${SESSION}/moves`, seat.token, { action, expected_version: current.version });
    await show(answer);
  } catch (error) {
    showError(refusal, error);
  } finally {
    busy = false;
  }
  refresh();
}

function confirmChallenge(target) {
  const dialog = document.getElementById("confirm");
  const invoker = document.activeElement;
  const name = seatName(target, me());
  document.getElementById("confirm-title").textContent = t("challenge_title", { n: target + 1 });
  document.getElementById("confirm-body").textContent = t("challenge_body", { n: target + 1 }).replaceAll(t("seat_n", { n: target + 1 }), name);
  document.getElementById("confirm-yes").textContent = t("challenge_yes");
  return new Promise((resolve) => {
    const done = (yes) => (event) => {
      if (event) event.preventDefault(); // Escape: closed here, the focus put back here
      dialog.close();
      if (!yes && invoker && invoker.isConnected) invoker.focus(); // back where the player was
      resolve(yes);
    };
    document.getElementById("confirm-yes").onclick = done(true);
    document.getElementById("confirm-no").onclick = done(false);
    dialog.oncancel = done(false);
    dialog.showModal();
    document.getElementById("confirm-no").focus();
  });
}

/* --------------------------------------------------------------------------- scores */

async function showScores() {
  const answer = await api("GET", `/play/api/sessions/${SESSION}/score`, seat.token);
  renderScores(document.getElementById("scores"), answer.score, me());
}

async function sheet() {
  const answer = await api("GET", `/play/api/sessions/${SESSION}/sheet`, seat.token);
  renderSheet(document.getElementById("sheet"), answer);
  return answer;
}

/* Every finished deal: its points per side and the totals after it. */
function renderSheet(target, answer) {
  const table = el("table", { class: "sheet" });
  table.append(el("tr", {}, el("th", { scope: "col" }, t("deal")), ...answer.sides.map((seats) => el("th", { scope: "col" }, sideName(seats, me())))));
  for (const deal of answer.deals) {
    table.append(el("tr", {}, el("th", { scope: "row" }, num(deal.deal_no)),
      ...deal.points.map((p, side) => el("td", {}, el("bdi", { dir: "ltr" }, (p > 0 ? "+" : "") + num(p)), " ", el("small", {}, "(" + num(deal.totals[side]) + ")")))));
  }
  target.replaceChildren(table);
}

/* A deal ended: its items and the match totals, until the player dismisses them. */
async function showSummary(finished) {
  const answer = await sheet();
  const deal = answer.deals[answer.deals.length - 1];
  if (!deal) return;
  if (finished) TABLE.dataset.summarised = "1";
  const body = document.getElementById("summary-body");
  document.getElementById("summary-title").textContent = t("summary_title", { n: deal.deal_no });
  const items = el("table", { class: "items" }, el("tr", {}, el("th", { scope: "col" }, t("side")), el("th", { scope: "col" }, t("item")),
    el("th", { scope: "col" }, t("points")), el("th", { scope: "col" }, t("rule"))), ...itemRows(deal.items, answer.sides, me(), GAME));
  const totals = el("table", { class: "scores" }, el("tr", {}, el("th", { scope: "col" }, t("side")), el("th", { scope: "col" }, t("this_deal")),
    el("th", { scope: "col" }, t("total"))), ...answer.sides.map((seats, side) => el("tr", {}, el("th", { scope: "row" }, sideName(seats, me())),
    el("td", {}, el("bdi", { dir: "ltr" }, (deal.points[side] > 0 ? "+" : "") + num(deal.points[side]))), el("td", {}, num(deal.totals[side])))));
  body.replaceChildren(deal.items.length ? items : el("p", {}, t("no_items")), totals);
  const dialog = document.getElementById("summary");
  TABLE.dataset.summary = deal.deal_no;
  summaryOpen = true;
  /* Dismissed now, not when the dialog's "close" event comes: the browser queues that
     event for a later task, and until then the page would still say the summary is open
     (a test, or the next render, would act on a dialog already closed). */
  const dismiss = () => {
    if (!summaryOpen) return;
    summaryOpen = false;
    delete TABLE.dataset.summary;
    if (dialog.open) dialog.close();
    if (me() !== null) api("POST", `/play/api/sessions/${SESSION}/ack`, seat.token, { deals: deal.deal_no }).catch((error) => showError(refusal, error));
    focusPlay();
  };
  document.getElementById("summary-close").onclick = dismiss;
  dialog.oncancel = dismiss; // Escape
  dialog.onclose = () => { if (!dialog.open) dismiss(); }; // a late event never closes a newer summary
  if (!dialog.open) dialog.showModal();
  document.getElementById("summary-close").focus();
}

/* This page shows every deal's summary: the session's bots wait for it. */
function hold() {
  if (current.seats.some((s) => s.type === "bot")) {
    api("POST", `/play/api/sessions/${SESSION}/hold`, seat.token, {}).catch((error) => showError(refusal, error));
  }
}

/* --------------------------------------------------------------------------- the log */

function addMoves(entries) {
  for (const entry of entries) moves.set(entry.n, entry);
  const latest = [...moves.values()].sort((a, b) => b.n - a.n).slice(0, 8);
  document.getElementById("moves").replaceChildren(...latest.map((entry) =>
    el("li", { value: entry.n }, el("b", {}, seatName(entry.seat, me()) + ": "),
      actionContent(GAME, entry.action, current && current.view, me(), entry.label))));
}

async function hint() {
  const box = document.getElementById("hint");
  box.textContent = t("searching");
  try {
    const answer = await api("POST", `/v1/sessions/${SESSION}/hint`, seat.token, {});
    const bars = el("ol", { class: "bars" });
    for (const ranked of answer.actions) {
      const value = ranked.value === null ? 0 : ranked.value;
      bars.append(el("li", {}, el("button", { type: "button", onclick: () => play(ranked.action) },
        actionContent(GAME, ranked.action, current.view, me(), ranked.label)),
        el("span", { class: "bar", style: `width:${Math.round(value * 100)}%` }),
        el("span", { class: "value" }, ranked.value === null ? "—" : NUMBER.format(Number(value.toFixed(2))))));
    }
    box.replaceChildren(el("p", {}, t("hint_title")), bars);
  } catch (error) {
    box.replaceChildren();
    showError(refusal, error);
  }
}

function finish() {
  live.stop.abort();
  setLive("over");
  document.getElementById("after").hidden = false;
}

async function review() {
  const box = document.getElementById("review");
  box.textContent = t("reviewing", { done: 0, total: "…" });
  try {
    const started = await api("POST", `/v1/sessions/${SESSION}/review`, seat.token, { all_seats: true, iterations: 100 });
    let job = started.job;
    while (job.status !== "done") {
      if (job.status === "failed") throw new Error(job.error || "the review failed");
      await new Promise((r) => setTimeout(r, 500));
      job = await api("GET", job.url, seat.token);
      if (job.progress) box.textContent = t("reviewing", { done: job.progress.done, total: job.progress.total });
    }
    renderReview(box, job.review);
  } catch (error) {
    box.replaceChildren();
    showError(refusal, error);
  }
}

/* Accuracy per seat; a seat's mistakes (none listed when it made none), each opening the replay there. */
function renderReview(box, result) {
  const table = el("table", { class: "review" }, el("tr", {}, el("th", { scope: "col" }, t("side")), el("th", { scope: "col" }, t("accuracy")),
    el("th", { scope: "col" }, t("mistakes")), el("th", { scope: "col" }, t("biggest"))));
  for (const s of result.summary) {
    const biggest = el("ul", { class: "mistakes" });
    const shown = s.mistakes > 0 ? s.biggest_mistakes.slice(0, s.mistakes) : [];
    for (const m of shown) {
      biggest.append(el("li", {}, el("a", { href: `/play/replay/${SESSION}#${m.n - 1}`, class: "mistake" },
        t("move_n", { n: m.n }), ": ", actionContent(GAME, m.played, null, me(), m.played.type), " — ",
        t("best_was", { label: "" }), actionContent(GAME, m.best, null, me(), m.best.type),
        " ", el("bdi", { dir: "ltr" }, "−" + num(Number(m.loss.toFixed(2)))))));
    }
    table.append(el("tr", {}, el("th", { scope: "row" }, seatName(s.seat, me())),
      el("td", {}, s.accuracy === null ? "—" : num(s.accuracy) + "%"), el("td", {}, num(s.mistakes)),
      el("td", {}, shown.length ? biggest : t("none"))));
  }
  box.replaceChildren(table);
}

function askToken() {
  TABLE.replaceChildren(el("section", { class: "panel" }, el("p", {}, t("token_missing")),
    el("form", { onsubmit: (event) => {
      event.preventDefault();
      saveSeat(SESSION, { token: event.target.token.value.trim() });
      location.reload();
    } }, el("label", {}, t("seat_key"), " ", el("input", { name: "token" })), el("button", {}, t("open")))));
}

/* A modal dialog keeps the keyboard: Tab from its last control goes to its first, and
   Shift+Tab from its first to its last (else the focus would leave for the browser's own
   controls, the page behind being inert). */
function trapFocus(dialog) {
  dialog.addEventListener("keydown", (event) => {
    if (event.key !== "Tab") return;
    const controls = [...dialog.querySelectorAll("button, a[href], input, select, textarea, [tabindex]")]
      .filter((c) => c.tabIndex >= 0 && !c.disabled && c.checkVisibility());
    if (!controls.length) return;
    const first = controls[0];
    const last = controls[controls.length - 1];
    if (event.shiftKey ? document.activeElement === first : document.activeElement === last) {
      event.preventDefault();
      (event.shiftKey ? last : first).focus();
    }
  });
}

trapFocus(document.getElementById("summary"));
trapFocus(document.getElementById("confirm"));
document.getElementById("hint-button").addEventListener("click", hint);
document.getElementById("review-button").addEventListener("click", review);
if (seat) {
  refresh();
  follow();
} else {
  askToken();
}
