/* Shared by the pages: the page's words (from the server, in the page's language), the
   API calls, the seat token kept in this browser, and drawing cards. Plain JavaScript. */
"use strict";

const WORDS = JSON.parse(document.getElementById("words").textContent);
const LANG = document.documentElement.lang;
const NUMBER = new Intl.NumberFormat(LANG);
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const CARD = /^([2-9TJQKA])([SHDC])$/;

/* A page word with its {names} filled; numbers are written in the page's language. */
function t(key, vars) { return fillWords((WORDS.page || {})[key] || key, vars); }

/* A game's own word (its players' vocabulary), else the fallback (or the page's word). */
function term(game, key, vars, fallback) {
  const text = (WORDS[game] || {})[key];
  if (text) return fillWords(text, vars);
  return fallback !== undefined ? fallback : (WORDS.page || {})[key] ? t(key, vars) : key;
}

function fillWords(text, vars) {
  return text.replace(/\{(\w+)\}/g, (_, name) => {
    const value = (vars || {})[name];
    return typeof value === "number" ? num(value) : value === undefined ? "" : String(value);
  });
}

function num(n) { return NUMBER.format(n); }

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function isCard(value) { return typeof value === "string" && CARD.test(value); }

/* A card's name in the page's language, with the game's own suit and rank words. */
function cardName(code, game) {
  const [, rank, suit] = code.match(CARD);
  const rankWord = "AKQJ".includes(rank) ? term(game, "rank_" + rank) : rank === "T" ? num(10) : num(Number(rank));
  return term(game, "card_name", { rank: rankWord, suit: term(game, "suit_" + suit) });
}

/* A card: rank and suit sign, drawn left to right in every language (<bdi>), named for
   screen readers. `tag` "button" for a playable hand card. */
function cardNode(code, tag, game) {
  if (!isCard(code)) return el(tag || "span", { class: "card back", role: "img", "aria-label": t("card_back") });
  const [, rank, suit] = code.match(CARD);
  const red = suit === "H" || suit === "D";
  const face = el("bdi", { dir: "ltr", "aria-hidden": "true" }, (rank === "T" ? "10" : rank) + SUITS[suit]);
  const attrs = { class: "card" + (red ? " red" : ""), title: cardName(code, game), "data-card": code,
    "aria-label": cardName(code, game) };
  if (!tag || tag === "span") attrs.role = "img";
  return el(tag || "span", attrs, face);
}

function cardsNode(codes, game, extra) {
  const box = el("span", { class: "cards" + (extra ? " " + extra : "") });
  (codes || []).forEach((code) => box.append(cardNode(code, "span", game)));
  return box;
}

/* Card backs: how many cards a seat holds (a few drawn, the count written). */
function backsNode(count) {
  const box = el("span", { class: "backs", role: "img", "aria-label": t("cards_held", { n: count }) });
  for (let i = 0; i < Math.min(count, 8); i++) box.append(el("span", { class: "card back mini", "aria-hidden": "true" }));
  box.append(el("span", { class: "count", "aria-hidden": "true" }, num(count)));
  return box;
}

/* Any JSON value of a view, for the raw "details": cards as cards, the rest as text. */
function valueNode(value, game) {
  if (isCard(value)) return cardNode(value, "span", game);
  if (Array.isArray(value)) {
    if (value.length === 0) return el("span", { class: "empty" }, "—");
    const list = el("span", { class: value.every(isCard) ? "cards" : "list" });
    value.forEach((v) => list.append(valueNode(v, game)));
    return list;
  }
  if (value && typeof value === "object") {
    const box = el("span", { class: "object" });
    for (const [key, v] of Object.entries(value)) box.append(el("span", { class: "pair" }, el("b", {}, key + ": "), valueNode(v, game)));
    return box;
  }
  return el("bdi", {}, value === null ? "—" : String(value));
}

/* The raw view, behind the "details" toggle. */
function renderView(target, view) {
  target.replaceChildren();
  for (const [key, value] of Object.entries(view)) {
    if (key === "history" || key === "options") continue;
    target.append(el("dt", {}, key), el("dd", {}, valueNode(value, view.game)));
  }
}

function handOf(view, seat) {
  const hands = view.hands;
  if (!Array.isArray(hands) || seat === null || seat === undefined) return [];
  return Array.isArray(hands[seat]) ? hands[seat] : [];
}

/* An item's rule id, and the non-default options (house rules) that changed it, in the
   game's words (`option:<name>`). */
function ruleOf(item, game) {
  const options = Array.isArray(item.options) ? item.options.map((name) =>
    term(game, "option:" + name, {}, String(name).replaceAll("_", " "))) : [];
  const rule = el("bdi", { dir: "ltr" }, item.rule || "");
  if (!options.length) return rule;
  const names = options.join(LANG === "ar" ? "، " : ", ");
  return el("span", {}, rule, " ", el("small", {}, t("house_rules", { names })));
}

/* A seat's name: "You", or "Seat 3" (numbered from 1 for people). */
function seatName(seat, me) { return seat === me ? t("you") : t("seat_n", { n: seat + 1 }); }

/* A side's name: its seats ("Seat 1 & Seat 3"), "Us" when it holds mine. */
function sideName(seats, me) {
  if (seats.length > 1 && seats.includes(me)) return t("us");
  return seats.map((s) => seatName(s, me)).join(" & ");
}

/* Match totals per side, this deal's points. */
function renderScores(target, report, me) {
  target.replaceChildren();
  if (!report) return;
  const table = el("table", { class: "scores" });
  table.append(el("tr", {}, el("th", { scope: "col" }, t("side")), el("th", { scope: "col" }, t("total")),
    el("th", { scope: "col" }, t("this_deal"))));
  report.sides.forEach((seats, side) => table.append(el("tr", { class: seats.includes(me) ? "mine" : "" },
    el("th", { scope: "row" }, sideName(seats, me)), el("td", {}, num(report.scores[side])),
    el("td", {}, num(report.deal_points[side])))));
  target.append(table);
}

/* A score item in the page's language: the game's words for its key (`item:<key>`) with
   each parameter written for people: a seat by its name, a card by its name ("hidden", a
   card this reader may not see now, as a hidden card), a game's word
   (Ronda's tringa...) in the game's words, a number in the page's digits. Null when the
   page has no words for it. */
function itemText(item, game, me) {
  const template = item.key ? (WORDS[game] || {})["item:" + item.key] : undefined;
  if (!template) return null;
  const vars = {};
  for (const [name, value] of Object.entries(item.params || {})) {
    if (name === "seat") vars[name] = seatName(value, me);
    else if (name === "card") vars[name] = isCard(value) ? cardName(value, game) : value === "hidden" ? t("card_back") : term(game, String(value), {}, String(value));
    else if (typeof value === "number") vars[name] = value;
    else vars[name] = term(game, String(value), {}, String(value));
  }
  return fillWords(template, vars);
}

/* The items of a deal's score, each in the page's words (itemText); an item with no key
   (a server older than the keys) as before: a card as a card, a game word, else its text. */
function itemRows(items, sides, me, game) {
  const named = (item) => {
    const text = itemText(item, game, me);
    if (text !== null) return el("bdi", { "data-key": item.key }, text);
    return isCard(item.item) ? cardNode(item.item, "span", game) : el("bdi", {}, term(game, String(item.item), {}, String(item.item)));
  };
  return items.map((item) => el("tr", {}, el("td", {}, sideName(sides[item.side] || [item.side], me)),
    el("td", { class: "item" }, named(item)),
    el("td", { class: "value" }, el("bdi", { dir: "ltr" }, (item.points > 0 ? "+" : "") + num(item.points))),
    el("td", {}, ruleOf(item, game))));
}

function loadSeat(sessionId) {
  const raw = localStorage.getItem("majlis:" + sessionId);
  return raw ? JSON.parse(raw) : null;
}

function saveSeat(sessionId, seat) { localStorage.setItem("majlis:" + sessionId, JSON.stringify(seat)); }

/* An invitation link carries its token in the fragment (#token=...), which no request
   sends: keep it in this browser and take it out of the address. */
function seatFromFragment(sessionId) {
  const found = new URLSearchParams(location.hash.slice(1)).get("token");
  if (found) {
    saveSeat(sessionId, { token: found });
    history.replaceState(null, "", location.pathname + location.search);
  }
  return loadSeat(sessionId);
}

function readError(status, body, statusText) {
  if (body && body.code) return { code: body.code, message: body.detail || body.title || statusText, rule: body.rule || "" };
  const error = (body && body.error) || {};
  return { code: error.code || "http_" + status, message: error.message || statusText,
    rule: (error.details && error.details.rule) || "" };
}

class ApiError extends Error {
  constructor(status, error) { super(error.message); this.status = status; this.error = error; }
}

function authHeaders(token) {
  const headers = { "Accept-Language": LANG };
  if (token) headers.Authorization = "Bearer " + token;
  const apiKey = localStorage.getItem("majlis:api-key");
  if (apiKey) headers["X-API-Key"] = apiKey;
  return headers;
}

async function api(method, path, token, body) {
  const headers = { Accept: "application/json", ...authHeaders(token) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const answer = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await answer.json().catch(() => ({}));
  if (!answer.ok) throw new ApiError(answer.status, readError(answer.status, data, answer.statusText));
  return data;
}

function showError(target, error) {
  const ruleId = (error.error && error.error.rule) || "";
  target.textContent = t("refused", { message: error.message }) + (ruleId ? " " + t("rule_id", { id: ruleId }) : "");
  target.dataset.rule = ruleId;
  target.hidden = false;
}

/* The language picker: remembered in a cookie, the page drawn again in that language. */
document.getElementById("language").addEventListener("change", (event) => {
  document.cookie = `majlis-lang=${event.target.value}; path=/; max-age=31536000; SameSite=Lax`;
  location.reload();
});
