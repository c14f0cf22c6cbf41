"""Bot turns whose task was lost are sent again, and played once (issue 35;
service/bot_turns.py), on a real Redis and a real Celery worker of their own (a short
grace, so that the waits are short).

The lost task is made the way a failover makes it: the version that leaves the bot to act
is written by the real move script (``SessionStore.apply``), and its bot task never
reaches the broker (the API sends it after the write; here nothing sends it, or it is
deleted from the queue before any worker takes it)."""

from __future__ import annotations

import json
import time
import uuid

import pytest

from service import create_app
from service import sessions as S
from service.bot_turns import claim_key, claim_turn, turn_member
from service.queues import SEARCH_QUEUE, SESSIONS_QUEUE
from service.redis_conn import EmbeddedRedis, Keys, connect
from service.runtime import RUNTIME_EXTENSION
from tests.integration.conftest import GAME, IntegrationSettings, Worker, wait_for

pytestmark = pytest.mark.integration

GRACE, SWEEP = 1.0, 0.3
LONG_MATCH = {"target_score": 1000}  # no match ends while a test watches it


@pytest.fixture(scope="module")
def redis_url():
    """A Redis of this module's own: its queues are not another worker's."""
    server = EmbeddedRedis()
    yield server.start()
    server.stop()


@pytest.fixture(scope="module")
def prefix():
    return f"majlis-sweep-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def app(redis_url, prefix):
    return create_app(IntegrationSettings(redis_url, prefix, BOT_TURN_GRACE=GRACE))


@pytest.fixture(scope="module")
def r(redis_url):
    return connect(redis_url, 2.0)


def start_worker(redis_url, prefix, tmp_path_factory) -> Worker:
    log = tmp_path_factory.mktemp("sweep-worker") / "worker.log"
    w = Worker(
        redis_url,
        prefix,
        log,
        concurrency=1,
        MAJLIS_BOT_TURN_GRACE=str(GRACE),
        MAJLIS_BOT_TURN_SWEEP=str(SWEEP),
    )
    w.wait_ready()
    return w


def store_of(app) -> S.SessionStore:
    """The app's session store, by its runtime (no app context)."""
    return S.SessionStore(app.extensions[RUNTIME_EXTENSION])


def human_move_without_its_bot_task(app, session_id: str) -> int:
    """The person's move written by the real script, its bot task never sent (lost);
    the version it made, which leaves the bot to act."""
    store = store_of(app)
    session = store.load(session_id)
    game = session.game
    action = game.action_to_json(session.state, game.legal_actions(session.state)[0])
    _state, _events, version = store.apply(session, 0, action, session.version)
    assert S.waits_for_bot(game, session.state, session.seats)
    return version


def new_table(app) -> str:
    """Ronda: seat 0 a person (to act first: dealer 1), seat 1 an easy bot."""
    game = S.get_game(GAME)
    state = game.new_state(2, game.parse_options(LONG_MATCH, 2), 1, seed=11)
    seats = [{"type": "human", "level": "normal"}, {"type": "bot", "level": "easy"}]
    session_id, _tokens = store_of(app).create(game, state, seats)
    assert game.to_act(state) == 0
    return session_id


def log_of(r, prefix: str, session_id: str) -> list[dict]:
    return [json.loads(e) for e in r.lrange(Keys(prefix).session_log(session_id), 0, -1)]


def test_the_write_that_leaves_a_bot_to_act_records_its_turn_and_the_next_removes_it(app, r, prefix):
    # no worker yet: nothing plays the turn
    turns = Keys(prefix).bot_turns()
    sid = new_table(app)
    assert r.zscore(turns, turn_member(sid, 0)) is None  # a person is to act
    before = time.time()
    version = human_move_without_its_bot_task(app, sid)
    score = r.zscore(turns, turn_member(sid, version))
    assert score is not None and before + GRACE <= score <= time.time() + GRACE
    # the bot's move (played here by hand, from the version it was due at) removes it
    store = store_of(app)
    session = store.load(sid)
    order = S.BotOrder(1, version, "random", None, 5)
    S.play_bot(store, session, order, 100.0)
    assert r.zrange(turns, 0, -1) == []
    r.delete(Keys(prefix).session(sid), Keys(prefix).session_log(sid))


def test_a_bot_turn_is_claimed_by_one_task_and_its_redelivery_only(r, prefix):
    turns = f"{prefix}:claims-test"
    r.zadd(turns, {turn_member("s1", 4): time.time()})
    assert claim_turn(r, turns, "s1", 4, "task-a", lease=5)
    assert not claim_turn(r, turns, "s1", 4, "task-b", lease=5)  # a copy sent again: a no-op
    assert claim_turn(r, turns, "s1", 4, "task-a", lease=5)  # the same task redelivered: plays
    assert claim_turn(r, turns, "s1", 5, "task-b", lease=5)  # the next version is its own turn
    assert 0 < r.ttl(claim_key(turns, "s1", 4)) <= 5  # given back if its worker dies
    # the member is pushed a lease on: the sweep does not send a turn being played
    assert r.zscore(turns, turn_member("s1", 4)) > time.time() + 4
    assert r.zscore(turns, turn_member("s1", 5)) is None  # XX: a claim adds no member
    r.delete(turns, claim_key(turns, "s1", 4), claim_key(turns, "s1", 5))


def test_a_hard_seats_turn_goes_to_the_search_pool_and_a_normal_seats_to_the_interactive_one(app, r):
    # issue 32: a hard seat's search (20,000 iterations) must not be cut to the interactive
    # pool's bound, nor hold that pool's workers; its task goes where long searches go
    store = store_of(app)
    pools = (("hard", SEARCH_QUEUE, SESSIONS_QUEUE), ("normal", SESSIONS_QUEUE, SEARCH_QUEUE))
    for level, queue, other in pools:
        game = S.get_game(GAME)
        state = game.new_state(2, game.parse_options(LONG_MATCH, 2), 0, seed=11)  # the bot acts first
        seats = [{"type": "human", "level": "normal"}, {"type": "bot", "level": level}]
        sid, _tokens = store.create(game, state, seats)
        assert game.to_act(state) == 1
        assert S.schedule_bot(store, store.load(sid))
        assert (r.llen(queue), r.llen(other)) == (1, 0), level
        version = store.load(sid).version
        r.zrem(store.keys.bot_turns(), turn_member(sid, version))  # no sweep sends it later
        r.delete(queue, store.keys.session(sid), store.keys.session_log(sid))


def test_the_sweep_sends_a_lost_hard_turn_to_the_search_pool(app, r, redis_url):
    from service.celery_app import bot_turn_sweeper

    store = store_of(app)
    game = S.get_game(GAME)
    state = game.new_state(2, game.parse_options(LONG_MATCH, 2), 0, seed=11)  # the bot acts first
    sid, _tokens = store.create(game, state, [{"type": "human"}, {"type": "bot", "level": "hard"}])
    member = turn_member(sid, store.load(sid).version)
    r.zadd(store.keys.bot_turns(), {member: time.time() - 1}, xx=True)  # its task lost: due now
    sweeper = bot_turn_sweeper(redis_url, app.extensions[RUNTIME_EXTENSION])
    try:
        wait_for(lambda: r.llen(SEARCH_QUEUE) == 1, 10)
    finally:
        sweeper.stop()
    assert r.llen(SESSIONS_QUEUE) == 0
    r.zrem(store.keys.bot_turns(), member)
    r.delete(SEARCH_QUEUE, store.keys.session(sid), store.keys.session_log(sid))


@pytest.mark.timeout(180)
def test_a_lost_bot_task_is_sent_again_by_the_sweep_and_played_once(
    app, r, redis_url, prefix, tmp_path_factory
):
    keys = Keys(prefix)
    lost = new_table(app)
    lost_version = human_move_without_its_bot_task(app, lost)  # before any worker runs
    # a second table whose task did reach the broker, deleted there before a worker took it
    deleted = new_table(app)
    deleted_version = human_move_without_its_bot_task(app, deleted)
    S.schedule_bot(store_of(app), store_of(app).load(deleted))
    assert r.llen(SESSIONS_QUEUE) == 1
    r.delete(SESSIONS_QUEUE)
    # and a third whose turn is sent three times more by hand (copies): one move all the same
    copied = new_table(app)
    copied_version = human_move_without_its_bot_task(app, copied)
    for _ in range(3):
        S.schedule_bot(store_of(app), store_of(app).load(copied))

    worker = start_worker(redis_url, prefix, tmp_path_factory)
    try:
        started = time.monotonic()
        for sid, version in ((lost, lost_version), (deleted, deleted_version), (copied, copied_version)):
            entry = wait_for(lambda sid=sid, v=version: len(log_of(r, prefix, sid)) > v, 30)
            assert entry
        found_in = time.monotonic() - started
        # within the grace and a sweep (their members were due when the worker came up),
        # plus the worker's own start-up to its first sweep and an easy bot's move
        assert found_in < GRACE + SWEEP + 10, found_in
        time.sleep(GRACE + 3 * SWEEP + 1)  # time for any copy to have played, if one could
        for sid, version in ((lost, lost_version), (deleted, deleted_version), (copied, copied_version)):
            log = log_of(r, prefix, sid)
            # exactly one move after the person's: the bot's, at the next version, and the
            # person to act again (nothing else plays on)
            assert [e["version"] for e in log] == list(range(1, version + 2))
            assert [e["by"] for e in log[version - 1 :]] == ["human", "bot"]
            assert log[version]["seat"] == 1 and log[version]["to_act"] == 0
            assert r.zscore(keys.bot_turns(), turn_member(sid, version)) is None
        assert r.zrange(keys.bot_turns(), 0, -1) == []  # no turn left waiting
        text = worker.log_path.read_text()
        # the two lost turns were sent again by the sweep (its log line names them) ...
        assert turn_member(lost, lost_version) in text and turn_member(deleted, deleted_version) in text
        # the third was played by one of its five tasks (its own, three copies, and the
        # sweep's, as it was overdue too): the one that took its one-time claim
        assert r.get(claim_key(keys.bot_turns(), copied, copied_version)) is not None
    finally:
        worker.stop()
