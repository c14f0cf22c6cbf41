"""The guard: no answer a token receives names a card that token may not see.

For every game, two short session matches (options for a low target or one deal; Trex,
which has no shorter match, for its first deal) on a real Redis and the real worker,
with bot seats and human seats. At each step a seeded walk picks what happens next: the
seat to act moves, makes an illegal move, lets a bot play it (at once or as a job), or
leaves; another token tries to play out of turn or lets a bot play a bot seat (racing the
workers' own bot); a seat that left claims itself back; or the workers play the bot seat.
Now and then the seat to act asks for a hint, and another token (or the spectator) tries
to. Besides the seat tokens, a spectator token (seat None) watches: it may see no card
that any seat cannot see. After every step each token reads the session (and every few
steps the log and its event stream, resumed with Last-Event-ID from the last event it
got), and every answer or event each token received is scanned for a card its seat could
not see: for an answer
received while the session went from version ``lo`` to ``hi``, a card hidden from that
seat at every version in between (states replayed from the Redis log, hidden cards from
the engine's ``hidden_cards``); for the log, each entry against the state it made.

Each game plays once more with a turn timer of 1 s (``on_timeout`` "move" for some
games, "seat" for the others): the workers' timer then plays for a person now and then
(the walk sometimes just waits for it), and its moves, deadlines and hand-overs are
scanned like the rest; in such a walk a request may meet a table the timer has changed
since the walk looked (409, or 422 for a turn gone), so its statuses are not checked."""

from __future__ import annotations

import bisect
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from engine import get_game
from service.redis_conn import Keys
from tests.integration.conftest import wait_for
from tests.integration.test_sessions import auth, walk_strings

pytestmark = pytest.mark.integration

MATCHES = {  # game: (players, options, last deal played)
    "ronda": (3, {"target_score": 11}, None),
    "baloot": (4, {"target_score": 30}, None),
    "trex": (4, {}, 1),
    "porrazo": (4, {"target_score": 15}, None),
    "marriage": (3, {"turn_limit": 30, "deals": 1}, None),
}
SEATS = ["human", {"type": "bot", "level": "easy"}, "human", {"type": "bot", "level": "random"}]
MAX_STEPS = 400
LOG_EVERY = 4
SMALL_BUDGET = {"iterations": 20, "ms": 200}  # within the sync threshold: answered at once
HINTS = 0.15  # the share of human turns that start with a hint
SPECTATOR = None  # the spectator's "seat"
TIMERS = {  # game: on_timeout of its timed walk
    "ronda": "move",
    "baloot": "seat",
    "trex": "move",
    "porrazo": "seat",
    "marriage": "seat",
}
WAITS = 0.1  # the share of human turns of a timed walk where the person lets the timer play


@dataclass
class Answer:
    seat: int | None
    body: Any
    lo: int  # the session's version before the request
    hi: int  # and after the answer


@dataclass
class Table:
    """A session seen from outside (its tokens) and from inside (Redis, for the oracle)."""

    client: Any
    redis: Any
    keys: Keys
    game: Any
    id: str
    tokens: list[str]
    states: list[tuple[int, Any]] = field(default_factory=list)  # (version, state) per move
    answers: list[Answer] = field(default_factory=list)
    done: Counter = field(default_factory=Counter)  # requests by method and path
    hidden: dict[tuple[int, int | None], set[str]] = field(default_factory=dict)
    spectator: str = ""
    last_event: dict[int | None, int] = field(default_factory=dict)  # per token: its last event id
    moves_streamed: Counter = field(default_factory=Counter)  # per token: move events it got

    # ---- the oracle: Redis

    def raw(self) -> dict[str, str]:
        return self.redis.hgetall(self.keys.session(self.id))

    def version(self) -> int:
        return int(self.redis.hget(self.keys.session(self.id), "version"))

    def now(self) -> tuple[Any, int, list[dict]]:
        raw = self.raw()
        seats = [json.loads(raw[f"seat:{s}"]) for s in range(len(self.tokens))]
        return self.game.from_json(json.loads(raw["state"])), int(raw["version"]), seats

    def replay(self) -> None:
        """Extend ``states`` with the moves logged since the last call."""
        if not self.states:
            initial = json.loads(self.redis.hget(self.keys.session(self.id), "initial"))
            self.states.append((0, self.game.from_json(initial)))
        done = len(self.states) - 1
        for raw in self.redis.lrange(self.keys.session_log(self.id), done, -1):
            entry = json.loads(raw)
            state = self.states[-1][1]
            nxt, _ = self.game.apply(state, entry["seat"], self.game.parse_action(state, entry["action"]))
            self.states.append((entry["version"], nxt))

    def state_at(self, version: int) -> tuple[int, Any]:
        """(index, state) of the state the session had at ``version``."""
        index = bisect.bisect_right([v for v, _ in self.states], version) - 1
        return index, self.states[index][1]

    def wholly_hidden(self, index: int, seat: int | None) -> set[str]:
        """Card codes of which ``seat`` sees no copy in state ``index`` (with several
        packs, a code it sees a copy of proves nothing). A spectator (None) sees what
        every seat sees: none of the codes some seat sees no copy of."""
        if seat is None:
            return set().union(*(self.wholly_hidden(index, s) for s in range(len(self.tokens))))
        if (index, seat) not in self.hidden:
            state = self.states[index][1]
            pack = Counter(self.game.pack(state))
            hidden = Counter(self.game.hidden_cards(state, seat))
            self.hidden[index, seat] = {code for code, n in hidden.items() if n >= pack[code]}
        return self.hidden[index, seat]

    # ---- the clients: HTTP with a token

    def token(self, seat: int | None) -> str:
        return self.spectator if seat is None else self.tokens[seat]

    def ask(self, seat: int | None, method: str, path: str, body: Any = None) -> Any:
        self.done[f"{method} {path or '/'}"] += 1
        lo = self.version()
        call = self.client.get if method == "GET" else self.client.post
        kwargs = {"headers": auth(self.token(seat))}
        if method != "GET":
            kwargs["json"] = body if body is not None else {}
        response = call(f"/v1/sessions/{self.id}{path}", **kwargs)
        answer = response.get_json()
        assert 200 <= response.status_code < 500, (response.status_code, answer)
        self.answers.append(Answer(seat, answer, lo, self.version()))
        return response.status_code, answer

    def read_stream(self, seat: int | None) -> int:
        """The token's event stream from its last event id until it is caught up (the
        first keep-alive); the events are kept as one answer. The number of events."""
        self.done["GET /events"] += 1
        lo = self.version()
        headers = auth(self.token(seat))
        if seat in self.last_event:
            headers["Last-Event-ID"] = str(self.last_event[seat])
        response = self.client.get(f"/v1/sessions/{self.id}/events", headers=headers, buffered=False)
        assert response.status_code == 200, response.get_data()
        events = []
        try:
            for chunk in response.response:
                text = chunk.decode() if isinstance(chunk, bytes) else chunk
                if text.startswith(": keep-alive"):
                    break
                if text.startswith("id: "):
                    lines = dict(line.split(": ", 1) for line in text.strip().split("\n"))
                    events.append({"event": lines["event"], "data": json.loads(lines["data"])})
                    self.last_event[seat] = int(lines["id"])
        finally:
            response.close()
        ids = [e["data"]["version"] for e in events]
        assert ids == sorted(set(ids)), ids  # in order, none twice
        self.moves_streamed[seat] += sum(e["event"] == "move" for e in events)
        self.answers.append(Answer(seat, {"stream": events}, lo, self.version()))
        return len(events)

    def follow_job(self, seat: int, job: dict) -> dict:
        lo = self.version()

        def done():
            body = self.client.get(job["url"]).get_json()
            self.answers.append(Answer(seat, body, lo, self.version()))
            return body if body["status"] in ("done", "failed") else None

        return wait_for(done, 30.0, 0.02)

    # ---- the check

    def check_answers(self) -> int:
        self.replay()
        checked = 0
        for answer in self.answers:
            body = answer.body
            if isinstance(body, dict) and "stream" in body:
                self.check_stream(answer, body["stream"])
            elif isinstance(body, dict) and "entries" in body:
                self.check(answer.seat, body["initial"], 0, 0)
                for entry in body["entries"]:
                    index, _ = self.state_at(entry["version"])
                    self.check(answer.seat, dict(entry, action=None), index, index)
                    self.check_action(answer.seat, entry["action"], index - 1, index)
            else:
                lo, _ = self.state_at(answer.lo)
                hi, _ = self.state_at(answer.hi)
                if isinstance(body, dict) and "action" in body:
                    self.check_action(answer.seat, body["action"], lo, hi)
                    body = dict(body, action=None)
                self.check(answer.seat, body, lo, hi)
            checked += 1
        self.answers.clear()
        return checked

    def check_stream(self, answer: Answer, events: list[dict]) -> None:
        """A move event is a log entry (checked against the state it made); a session
        event against the versions the stream was read between."""
        for event in events:
            data = event["data"]
            if event["event"] == "move":
                index, _ = self.state_at(data["version"])
                self.check(answer.seat, dict(data, action=None), index, index)
                self.check_action(answer.seat, data["action"], index - 1, index)
            else:
                lo, _ = self.state_at(answer.lo)
                hi, _ = self.state_at(answer.hi)
                self.check(answer.seat, data, lo, hi)

    def check(self, seat: int | None, value: Any, lo: int, hi: int) -> None:
        """No card in ``value`` that ``seat`` could see in no state from ``lo`` to ``hi``."""
        hidden = set.intersection(*(self.wholly_hidden(i, seat) for i in range(lo, hi + 1)))
        leaked = hidden & set(walk_strings(value))
        assert not leaked, (seat, sorted(leaked), value)

    def check_action(self, seat: int, action: Any, lo: int, hi: int) -> None:
        """An action is public when played: a card it names was on the table between two
        states; the move that ends a deal deals the next one at once (a card played last
        may be in a new hand), so such a window proves nothing about its action."""
        if len({self.game.deal_no(self.states[i][1]) for i in range(max(lo, 0), hi + 1)}) == 1:
            self.check(seat, action, max(lo, 0), hi)


class Walk:
    """One seeded walk through a session match: what the players do, step by step."""

    def __init__(self, table: Table, seats: list, rng: random.Random, timed: bool = False) -> None:
        self.t = table
        self.rng = rng
        self.humans = {s for s, spec in enumerate(seats) if spec == "human"}
        self.players = len(seats)
        self.timed = timed
        self.waited = False

    def expect(self, status: int, *allowed: int) -> None:
        """The status of an answer; with a timer, the table may have moved since the walk
        looked at it (any 2xx-4xx, as ``ask`` checks)."""
        if not self.timed:
            assert status in allowed, status

    def step(self) -> None:
        state, version, seats = self.t.now()
        left = [s for s in sorted(self.humans) if seats[s]["type"] == "bot"]
        if left and self.rng.random() < 0.2:  # a player back, whoever is to act
            self.t.ask(self.rng.choice(left), "POST", "/claim")
            return
        to_act = self.t.game.to_act(state)
        if to_act is None:
            return  # the workers' bots ended the match since the loop looked
        if seats[to_act]["type"] == "human":
            self.human_turn(state, version, to_act)
        else:
            self.bot_turn(state, version, to_act)

    def human_turn(self, state, version: int, seat: int) -> None:
        if self.timed and (not self.waited or self.rng.random() < WAITS):
            self.waited = True  # the person does nothing: the timer plays (or a bot, "seat")
            wait_for(lambda: self.t.version() != version, 15.0, 0.02)
            return
        if self.rng.random() < HINTS:
            status, body = self.t.ask(seat, "POST", "/hint", {"budget": SMALL_BUDGET})
            self.expect(status, 200, 429)  # 429: the inline search slot is busy
            asker = self.rng.choice([SPECTATOR, *(s for s in range(self.players) if s != seat)])
            status, body = self.t.ask(asker, "POST", "/hint", {"budget": SMALL_BUDGET})
            self.expect(status, 403 if asker is None else 422)
        game, roll = self.t.game, self.rng.random()
        action = game.action_to_json(state, self.rng.choice(game.legal_actions(state)))
        if roll < 0.1:
            self.t.ask(seat, "POST", "/leave", {"level": self.rng.choice(["random", "easy"])})
        elif roll < 0.2:
            self.t.ask(seat, "POST", "/bot-move", {"budget": SMALL_BUDGET, "expected_version": version})
        elif roll < 0.25:
            status, body = self.t.ask(seat, "POST", "/bot-move", {"budget": SMALL_BUDGET, "async": True})
            self.expect(status, 202)
            if status == 202:
                self.t.follow_job(seat, body["job"])
        elif roll < 0.35:  # another token plays out of turn
            other = self.rng.choice([s for s in range(self.players) if s != seat])
            status, _ = self.t.ask(other, "POST", "/moves", {"action": action, "expected_version": version})
            self.expect(status, 422)
        elif roll < 0.4 and game.hidden_cards(state, seat):  # a card the seat may not hold
            card = self.rng.choice(sorted(game.hidden_cards(state, seat)))
            move = {"action": {"type": "play", "card": card}, "expected_version": version}
            self.t.ask(seat, "POST", "/moves", move)
        else:
            status, body = self.t.ask(seat, "POST", "/moves", {"action": action, "expected_version": version})
            self.expect(status, 200)

    def bot_turn(self, state, version: int, seat: int) -> None:
        roll = self.rng.random()
        if seat in self.humans and roll < 0.4:
            self.t.ask(seat, "POST", "/claim")
        elif roll < 0.3:  # another token lets a bot play the bot seat, racing the workers
            other = self.rng.choice([s for s in range(self.players) if s != seat])
            body = {"seat": seat, "level": "random", "expected_version": version}
            if self.rng.random() < 0.3:
                status, answer = self.t.ask(other, "POST", "/bot-move", dict(body, **{"async": True}))
                if status == 202:
                    self.t.follow_job(other, answer["job"])
            else:
                self.t.ask(other, "POST", "/bot-move", body)
        else:  # the workers play it
            wait_for(lambda: self.t.version() != version, 15.0, 0.01)


@pytest.fixture(scope="module")
def client(make_app, worker):
    """Streams are read until caught up, i.e. until their first keep-alive: a short one."""
    return make_app(STREAM_HEARTBEAT=0.02).test_client()


@pytest.mark.parametrize("seed", [5, 6])
@pytest.mark.parametrize("game_id", sorted(MATCHES))
def test_no_answer_shows_a_seat_a_card_it_may_not_see(client, redis_client, prefix, game_id, seed):
    walk_and_scan(client, redis_client, prefix, game_id, seed)


@pytest.mark.parametrize("game_id", sorted(MATCHES))
def test_with_turn_timers_no_answer_shows_a_seat_a_card_it_may_not_see(client, redis_client, prefix, game_id):
    timer = {"seconds": 1, "on_timeout": TIMERS[game_id], "level": "random"}
    table = walk_and_scan(client, redis_client, prefix, game_id, 7, timer)
    entries = [json.loads(raw) for raw in redis_client.lrange(table.keys.session_log(table.id), 0, -1)]
    assert any(entry["by"] == "timer" for entry in entries)
    # a match the walk left unfinished would go on on its timers: end it
    redis_client.delete(table.keys.session(table.id), table.keys.session_log(table.id))


def walk_and_scan(client, redis_client, prefix, game_id: str, seed: int, timer: dict | None = None) -> Table:
    """A seeded walk through a session match of ``game_id``, every answer scanned."""
    players, options, last_deal = MATCHES[game_id]
    seats = SEATS[:players]
    setup = {"game": game_id, "players": players, "options": options, "seed": seed, "seats": seats}
    created = client.post("/v1/sessions", json={**setup, "turn_timer": timer})
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    game = get_game(game_id)
    table = Table(client, redis_client, Keys(prefix), game, body["id"], body["tokens"])
    status, watcher = table.ask(0, "POST", "/spectators")
    assert status == 201, watcher
    table.spectator = watcher["token"]
    viewers = [*range(players), SPECTATOR]
    table.last_event = dict.fromkeys(viewers, 0)  # each stream from the first move on
    events = 0
    walk = Walk(table, seats, random.Random(f"{game_id}-{seed}"), timed=timer is not None)
    started = time.monotonic()
    checked = 0
    for step in range(MAX_STEPS):
        state, _, _ = table.now()
        if game.to_act(state) is None or (last_deal is not None and game.deal_no(state) > last_deal):
            break
        walk.step()
        for seat in viewers:
            table.ask(seat, "GET", "")
            if step % LOG_EVERY == 0:
                table.ask(seat, "GET", "/log")
                events += table.read_stream(seat)
        checked += table.check_answers()
    else:
        pytest.fail(f"no end after {MAX_STEPS} steps")
    for seat in viewers:
        table.ask(seat, "GET", "/log")
        events += table.read_stream(seat)
    checked += table.check_answers()
    # every token's stream, resumed again and again, brought it every move exactly once
    # (up to the last event it got: the workers' bots may play on after the walk)
    for seat in viewers:
        moved = sum(1 for version, _ in table.states[1:] if version <= table.last_event[seat])
        assert table.moves_streamed[seat] == moved, (seat, table.moves_streamed[seat], moved)
    final, version, _ = table.now()
    if game.to_act(final) is None:  # the replayed log is the match
        table.replay()  # the workers' bots may have played its last moves since the walk looked
        assert game.to_json(table.state_at(version)[1]) == game.to_json(final)
    assert checked >= 4 * players  # the walk took steps (the workers alone may play much of it)
    elapsed = time.monotonic() - started
    print(f"{game_id}: {len(table.states) - 1} moves, {checked} answers, {events} events, {elapsed:.1f} s")
    print(dict(table.done))
    return table
