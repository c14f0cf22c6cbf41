/* The setup form: the game, who sits in each seat (you, a person you invite, or a bot and
   its level), the turn timer and the game's options; creates the session through
   POST /v1/sessions, then shows one invitation link per invited person and a spectators'
   link. A link carries its seat token after the # (a browser never sends the fragment). */
"use strict";

const GAMES = JSON.parse(document.getElementById("games").textContent);
const LEVELS = JSON.parse(document.getElementById("levels").textContent); // per game, from easy up
const form = document.getElementById("setup");
const gameSelect = document.getElementById("game");
const playersSelect = document.getElementById("players");

function chosenGame() { return GAMES.find((g) => g.id === gameSelect.value); }

function fillPlayers() {
  const game = chosenGame();
  playersSelect.replaceChildren(...game.players.map((n) => el("option", { value: n }, num(n))));
  fillSeats();
  fillOptions();
}

function fillSeats() {
  const box = document.getElementById("seats");
  box.replaceChildren(el("legend", {}, t("seats")), el("p", {}, `${t("seat_n", { n: 1 })}: ${t("you")}`));
  for (let seat = 1; seat < Number(playersSelect.value); seat++) {
    const select = el("select", { name: "seat" + seat, "data-seat": seat },
      ...LEVELS[gameSelect.value].map((level) => el("option", { value: level }, t("bot_level", { level: t("level_" + level) }))),
      el("option", { value: "human" }, t("human")));
    select.value = "easy";
    box.append(el("label", {}, t("seat_n", { n: seat + 1 }) + " ", select));
  }
}

function optionInput(option) {
  const name = "option-" + option.name;
  if (option.type === "boolean") {
    const box = el("input", { type: "checkbox", name, "data-option": option.name, "data-type": "boolean" });
    box.checked = option.default;
    return box;
  }
  if (option.type === "choice") {
    const select = el("select", { name, "data-option": option.name, "data-type": typeof option.default },
      ...option.choices.map((c) => el("option", { value: c }, choiceWords(option, c))));
    select.value = String(option.default);
    return select;
  }
  const attrs = { type: "number", name, "data-option": option.name, "data-type": "number", value: option.default };
  if (option.minimum !== undefined) attrs.min = option.minimum;
  if (option.maximum !== undefined) attrs.max = option.maximum;
  return el("input", attrs);
}

/* An option's words in the page's language (option:<name>, option_about:<name>,
   option_value:<name>:<value>); the value sent stays the API's. The raw name or value only
   if a catalogue lacks the word (tests/service/test_option_words.py says none does). */
function optionWord(kind, option, fallback) { return term(gameSelect.value, kind + option.name, {}, fallback); }

function choiceWords(option, value) {
  if (typeof value === "number") return num(value);
  return term(gameSelect.value, `option_value:${option.name}:${value}`, {}, String(value));
}

/* The rules an option changes (R6, S5, E2...), named in its API description: a reference
   to docs/rules/<game>.md, the same in every language. */
const RULE_ID = /\b[RSE]\d+[a-z]?\b/g;
function ruleIds(description) { return [...new Set((description || "").match(RULE_ID) || [])]; }

function fillOptions() {
  const box = document.getElementById("options");
  box.replaceChildren(...chosenGame().options.map((option) => {
    const rules = ruleIds(option.description);
    const about = el("small", {}, optionWord("option_about:", option, option.description || ""));
    if (rules.length) about.append(" ", el("bdi", { dir: "ltr", class: "rules" }, `(${rules.join(", ")})`));
    return el("label", { class: "option", "data-option-label": option.name },
      el("bdi", {}, optionWord("option:", option, option.name.replaceAll("_", " "))), " ", optionInput(option), about);
  }));
}

function readOptions() {
  const options = {};
  for (const input of form.querySelectorAll("[data-option]")) {
    const type = input.dataset.type;
    options[input.dataset.option] = type === "boolean" ? input.checked : type === "number" ? Number(input.value) : input.value;
  }
  return options;
}

function seatLink(id, token) { return `${location.origin}/play/table/${id}#token=${encodeURIComponent(token)}`; }

async function start(event) {
  event.preventDefault();
  const seats = [{ type: "human" }];
  form.querySelectorAll("[data-seat]").forEach((s) => seats.push(s.value === "human" ? { type: "human" } : { type: "bot", level: s.value }));
  const apiKey = document.getElementById("api-key").value.trim();
  if (apiKey) localStorage.setItem("majlis:api-key", apiKey);
  const seconds = Number(document.getElementById("timer").value);
  const body = { game: gameSelect.value, players: Number(playersSelect.value), options: readOptions(), seats };
  if (seconds > 0) body.turn_timer = { seconds, on_timeout: "move", level: "normal" };
  try {
    const created = await api("POST", "/v1/sessions", null, body);
    saveSeat(created.id, { seat: 0, token: created.tokens[0], game: created.game });
    const spectator = await api("POST", `/v1/sessions/${created.id}/spectators`, created.tokens[0], {});
    const links = document.getElementById("links");
    const invited = seats.map((s, i) => i).filter((i) => i > 0 && seats[i].type === "human");
    links.replaceChildren(...invited.map((i) => linkItem(t("invite_seat", { n: i + 1 }), seatLink(created.id, created.tokens[i]), "seat-" + i)),
      linkItem(t("spectator_link"), seatLink(created.id, spectator.token), "spectator"));
    document.getElementById("my-seat").href = "/play/table/" + created.id;
    form.hidden = true;
    document.getElementById("invitations").hidden = false;
    document.getElementById("my-seat").focus();
  } catch (error) {
    showError(document.getElementById("error"), error);
  }
}

function linkItem(label, url, id) {
  const input = el("input", { id: "link-" + id, readonly: true, value: url, class: "link", "data-link": id });
  return el("li", {}, el("label", { for: "link-" + id }, label), input,
    el("button", { type: "button", onclick: (event) => { input.select(); if (navigator.clipboard) navigator.clipboard.writeText(url).then(() => { event.target.textContent = t("copied"); }, () => {}); } }, t("copy_link")));
}

gameSelect.addEventListener("change", () => { history.replaceState(null, "", "/play/" + gameSelect.value); fillPlayers(); });
playersSelect.addEventListener("change", fillSeats);
form.addEventListener("submit", start);
fillPlayers();
