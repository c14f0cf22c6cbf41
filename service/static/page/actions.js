/* Actions and log entries in the game's own words: {"type": "bid", "bid": "hokm"} is
   "حكم" on the Arabic Baloot table. A part with no word in the page's catalogues falls
   back to the service's own label (`label`), never to the raw JSON. */
"use strict";

/* The verb of an action: Baloot's pass is بس in the first round and ولا in the second. */
function verbOf(game, action, view) {
  if (game === "baloot" && action.type === "pass") {
    const round = view && view.bidding ? view.bidding.round : 1;
    return term(game, "pass_" + (round === 2 ? 2 : 1), {}, null);
  }
  if (game === "baloot" && action.type === "declare") return term(game, "declare_projects", {}, null);
  if (action.type === "bid" || action.type === "choose") return "";
  return term(game, action.type, {}, null);
}

/* The parts after the verb: cards as cards, seats as names, a value as the game's word. */
function partNodes(game, key, value, me) {
  if (key === "card" || key === "discard" || key === "pair") return [cardNode(value, "span", game)];
  if (key === "cards" || key === "pairs") return [cardsNode(value, game)];
  if (key === "sets") return value.map((set) => cardsNode(set, game, "set"));
  if (key === "target" || key === "seat") return [seatName(value, me)];
  if (key === "index") return [num(value + 1)];
  if (key === "locked") return [term(game, value ? "locked" : "open", {}, null)];
  if (typeof value === "string") return [term(game, value, {}, null)];
  return [null];
}

/* An action as nodes (a button's or a log line's content), or null when a word is missing. */
function actionNodes(game, action, view, me) {
  if (game === "ronda" && action.type === "challenge") return [term(game, "challenge", { name: seatName(action.target, me) }, null)];
  const verb = verbOf(game, action, view);
  if (verb === null) return null;
  const nodes = verb ? [verb] : [];
  for (const [key, value] of Object.entries(action)) {
    if (key === "type") continue;
    const parts = partNodes(game, key, value, me);
    if (parts.includes(null)) return null;
    nodes.push(...parts);
  }
  return nodes;
}

/* The action's words, or the service's label (already in the page's language). */
function actionContent(game, action, view, me, label) {
  const nodes = actionNodes(game, action, view, me);
  const box = el("span", { class: "words" });
  if (nodes === null) box.append(el("bdi", {}, label || action.type));
  else nodes.forEach((node, i) => box.append(i ? " " : "", node));
  return box;
}
