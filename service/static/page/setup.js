/* The setup form: players, seats and options from the games' metadata; creates the
   session through POST /v1/sessions and keeps the seat tokens in this browser. */
"use strict";

const GAMES = JSON.parse(document.getElementById("games").textContent);
const LEVELS = JSON.parse(document.getElementById("levels").textContent);
const form = document.getElementById("setup");
const gameSelect = document.getElementById("game");
const playersSelect = document.getElementById("players");

function chosenGame() { return GAMES.find((g) => g.id === gameSelect.value); }

function fillPlayers() {
  const game = chosenGame();
  playersSelect.replaceChildren(...game.players.map((n) => el("option", { value: n }, String(n))));
  fillSeats();
  fillOptions();
}

function fillSeats() {
  const box = document.getElementById("seats");
  box.replaceChildren(el("legend", {}, "Seats"), el("p", {}, "Seat 0: you"));
  for (let seat = 1; seat < Number(playersSelect.value); seat++) {
    const select = el("select", { name: "seat" + seat, "data-seat": seat },
      ...LEVELS.map((level) => el("option", { value: level }, "bot, " + level)));
    select.value = "easy";
    box.append(el("label", {}, `Seat ${seat} `, select));
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
      ...option.choices.map((c) => el("option", { value: c }, String(c))));
    select.value = String(option.default);
    return select;
  }
  const attrs = { type: "number", name, "data-option": option.name, "data-type": "number", value: option.default };
  if (option.minimum !== undefined) attrs.min = option.minimum;
  if (option.maximum !== undefined) attrs.max = option.maximum;
  return el("input", attrs);
}

function fillOptions() {
  const box = document.getElementById("options");
  box.replaceChildren(...chosenGame().options.map((option) =>
    el("label", { class: "option", title: option.description }, option.name.replaceAll("_", " ") + " ", optionInput(option),
      el("small", {}, option.description || ""))));
}

function readOptions() {
  const options = {};
  for (const input of form.querySelectorAll("[data-option]")) {
    const type = input.dataset.type;
    options[input.dataset.option] = type === "boolean" ? input.checked : type === "number" ? Number(input.value) : input.value;
  }
  return options;
}

async function start(event) {
  event.preventDefault();
  const seats = [{ type: "human" }];
  form.querySelectorAll("[data-seat]").forEach((s) => seats.push({ type: "bot", level: s.value }));
  const apiKey = document.getElementById("api-key").value.trim();
  if (apiKey) localStorage.setItem("majlis:api-key", apiKey);
  const body = { game: gameSelect.value, players: Number(playersSelect.value), options: readOptions(), seats };
  try {
    const created = await api("POST", "/v1/sessions", null, body);
    saveSeat(created.id, { seat: 0, token: created.tokens[0], game: created.game });
    location.assign("/play/table/" + created.id);
  } catch (error) {
    showError(document.getElementById("error"), error);
  }
}

gameSelect.addEventListener("change", () => { history.replaceState(null, "", "/play/" + gameSelect.value); fillPlayers(); });
playersSelect.addEventListener("change", fillSeats);
form.addEventListener("submit", start);
fillPlayers();
