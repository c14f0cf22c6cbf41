import { Client, IllegalMove, eventJson } from "majlis-client";

const client = new Client(process.env["BASE"] ?? "http://127.0.0.1:8000");
console.log((await client.games()).map((game) => [game.id, game.players]));
const dealt = await client.deal("ronda", { players: 2, seed: 42 }); // the caller keeps the state
if (dealt.game !== "ronda") throw new Error("not a Ronda state"); // narrows the games' union
console.log((await client.legalMoves("ronda", { state: dealt })).actions); // seat 1 is to act
const state = (await client.move("ronda", dealt, 1, { type: "pass" })).state!;
const view = await client.view("ronda", state, 0);
if (view.game === "ronda") console.log(view.hands); // the other hand is only a count
try { // seat 1 plays a card of its hand before the declaration round is over
  await client.move("ronda", dealt, 1, { type: "play", card: dealt.hands[1]![0]! });
} catch (error) {
  if (!(error instanceof IllegalMove)) throw error;
  console.log(error.rule, error.reason, error.legalActions);
}

// a session: the service keeps the match; seat 0 plays through the client, seat 1 is a bot
const created = await client.createSession("ronda", {
  options: { target_score: 5 },
  seats: ["human", { type: "bot", level: "easy" }],
});
const me = client.seats(created)[0]!; // one handle per seat token
// the seat's live events, read with its token; after a drop they resume (Last-Event-ID)
const watched = (async () => {
  let moves = 0;
  for await (const event of me.events()) {
    if (event.event === "move") moves += 1;
    if (eventJson<{ to_act: number | null }>(event).to_act === null) return moves; // over
  }
  return moves;
})();
let table = await me.waitForTurn();
while (!table.finished) {
  // play() sends the last version seen; on 409 (StaleVersion) it reloads and decides again
  table = await me.play((seen) => me.legalActions(seen)[0]!.action!);
  table = await me.waitForTurn();
}
console.log(table.view?.scores, (await me.log()).entries?.length, "moves,", await watched, "streamed");
