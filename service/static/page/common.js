/* Shared by the table and replay pages: the API calls, the seat token kept in this
   browser, and drawing cards and views. Plain JavaScript, no library. */
"use strict";

const SUITS = { S: ["♠", "spades"], H: ["♥", "hearts"], D: ["♦", "diamonds"], C: ["♣", "clubs"] };
const RANKS = { A: "ace", K: "king", Q: "queen", J: "jack", T: "10" };
const CARD = /^([2-9TJQKA])([SHDC])$/;
// View fields the page shows elsewhere (or that only repeat the setup).
const SKIPPED = ["game", "version", "options", "players", "seat", "to_act", "hands", "history", "scores"];

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function isCard(value) { return typeof value === "string" && CARD.test(value); }

function cardName(code) {
  const [, rank, suit] = code.match(CARD);
  return `${RANKS[rank] || rank} of ${SUITS[suit][1]}`;
}

/* A card drawn with its rank and suit sign; its name is readable as text. */
function cardNode(code, tag) {
  if (!isCard(code)) return el(tag || "span", { class: "card back" }, String(code));
  const [, rank, suit] = code.match(CARD);
  const red = suit === "H" || suit === "D";
  return el(tag || "span", { class: "card" + (red ? " red" : ""), title: cardName(code), "data-card": code,
    "aria-label": cardName(code) }, (rank === "T" ? "10" : rank) + SUITS[suit][0]);
}

/* Any JSON value of a view: card codes as cards, lists and objects nested. */
function valueNode(value, depth) {
  depth = depth || 0;
  if (isCard(value)) return cardNode(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return el("span", { class: "empty" }, "—");
    const list = el("span", { class: value.every(isCard) ? "cards" : "list" });
    value.forEach((v) => list.append(valueNode(v, depth + 1)));
    return list;
  }
  if (value && typeof value === "object") {
    const box = el("span", { class: "object" });
    for (const [key, v] of Object.entries(value)) {
      box.append(el("span", { class: "pair" }, el("b", {}, key.replaceAll("_", " ") + ": "), valueNode(v, depth + 1)));
    }
    return box;
  }
  return el("span", {}, value === null ? "—" : String(value));
}

function isEmpty(value) {
  return value === null || value === false || (Array.isArray(value) && value.every(isEmpty)) ||
    (typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0);
}

/* The view as the game shows it: every field but the hand, scores and setup. */
function renderView(target, view) {
  target.replaceChildren();
  for (const [key, value] of Object.entries(view)) {
    if (SKIPPED.includes(key) || isEmpty(value)) continue;
    target.append(el("dt", {}, key.replaceAll("_", " ")), el("dd", {}, valueNode(value)));
  }
}

/* The seat's own hand: a list of card codes in its view (other seats show a count). */
function handOf(view, seat) {
  const hands = view.hands;
  if (!Array.isArray(hands) || seat === null || seat === undefined) return [];
  const hand = hands[seat];
  return Array.isArray(hand) ? hand : [];
}

/* An item's rule id, and the non-default options (house rules) that changed it. */
function ruleOf(item) {
  const options = Array.isArray(item.options) ? item.options.map((name) => String(name).replaceAll("_", " ")) : [];
  return (item.rule || "") + (options.length ? " (option: " + options.join(", ") + ")" : "");
}

/* Match totals per side, then the current (or just finished) deal item by item. */
function renderScores(target, report) {
  target.replaceChildren();
  if (!report) return;
  const totals = el("table", { class: "scores" }, el("caption", {}, `Match, after deal ${report.deal_no}`));
  totals.append(el("tr", {}, el("th", {}, "side"), el("th", {}, "seats"), el("th", {}, "match"), el("th", {}, "this deal")));
  report.sides.forEach((seats, side) => totals.append(el("tr", {}, el("td", {}, String(side)),
    el("td", {}, seats.join(", ")), el("td", {}, String(report.scores[side])), el("td", {}, String(report.deal_points[side])))));
  target.append(totals);
  if (report.items && report.items.length) {
    const items = el("table", { class: "items" }, el("caption", {}, "This deal, item by item"));
    items.append(el("tr", {}, el("th", {}, "side"), el("th", {}, "item"), el("th", {}, "points"), el("th", {}, "rule")));
    report.items.forEach((item) => items.append(el("tr", {}, el("td", {}, String(item.side)),
      el("td", {}, String(item.item).replaceAll("_", " ")), el("td", {}, String(item.points)), el("td", {}, ruleOf(item)))));
    target.append(items);
  }
  if (report.finished) target.append(el("p", {}, `Match over: side ${report.winner} wins.`));
}

/* The seat token of a session, kept in this browser when it created the session. */
function loadSeat(sessionId) {
  const raw = localStorage.getItem("majlis:" + sessionId);
  return raw ? JSON.parse(raw) : null;
}

function saveSeat(sessionId, seat) { localStorage.setItem("majlis:" + sessionId, JSON.stringify(seat)); }

/* The one place that reads the service's error body: {code, message, rule}. The body is
   problem details (RFC 9457: `detail` the message, `code` and `rule` extension members)
   or, when the service runs MAJLIS_ERROR_FORMAT=legacy, {"error": {code, message, details}}. */
function readError(status, body, statusText) {
  if (body && body.code) {
    return { code: body.code, message: body.detail || body.title || statusText, rule: body.rule || "" };
  }
  const error = (body && body.error) || {};
  return { code: error.code || "http_" + status, message: error.message || statusText,
    rule: (error.details && error.details.rule) || "" };
}

class ApiError extends Error {
  constructor(status, error) { super(error.message); this.status = status; this.error = error; }
}

/* The seat token, and the API key typed in the setup form when the service wants one. */
function authHeaders(token) {
  const headers = {};
  if (token) headers.Authorization = "Bearer " + token;
  const apiKey = localStorage.getItem("majlis:api-key");
  if (apiKey) headers["X-API-Key"] = apiKey;
  return headers;
}

/* A JSON request to the service with the seat token; an error answer throws ApiError. */
async function api(method, path, token, body) {
  const headers = { Accept: "application/json", ...authHeaders(token) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const answer = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await answer.json().catch(() => ({}));
  if (!answer.ok) throw new ApiError(answer.status, readError(answer.status, data, answer.statusText));
  return data;
}

/* An error answer as the player reads it: the message and the rule it broke. */
function showError(target, error) {
  const ruleId = (error.error && error.error.rule) || "";
  const rule = ruleId ? ` (rule ${ruleId})` : "";
  target.textContent = `Refused: ${error.message}${rule}`;
  target.dataset.rule = ruleId;
  target.hidden = false;
}
