"""The client's reading of answers: legal actions with labels in either shape, fields it
does not name kept, a session's own legal actions preferred, Server-Sent Events parsed."""

from __future__ import annotations

import pytest
from majlis_client import Client, Hint, Job, LegalAction, LegalMoves, NotFound, Review, SessionState
from majlis_client.sse import parse_events
from majlis_client.transport import Response


class Refusing:
    """A transport that records what it was asked and answers nothing useful."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def __call__(self, method, url, headers, body, timeout) -> Response:
        self.calls.append((method, url))
        body = b'{"type": "/problems/not_found", "title": "Not found", "status": 404, "detail": "no", '
        body += b'"code": "not_found"}'
        return Response(404, body)


def test_a_legal_action_is_read_with_its_label_in_either_shape():
    nested = LegalAction.from_json({"action": {"type": "play", "card": "KH"}, "label": "play K♥"})
    flat = LegalAction.from_json({"type": "play", "card": "KH", "label": "play K♥"})
    bare = LegalAction.from_json({"type": "pass"})
    assert nested.action == flat.action == {"type": "play", "card": "KH"}
    assert nested.label == flat.label == "play K♥"
    assert bare.action == {"type": "pass"} and bare.label is None
    moves = LegalMoves.from_json({"to_act": 1, "actions": [{"type": "pass"}], "labels": ["pass"], "more": 1})
    assert moves.actions == [{"type": "pass"}] and moves.labelled[0].label == "pass"
    assert moves["more"] == 1  # a field this client does not name
    unlabelled = LegalMoves.from_json({"to_act": 1, "actions": [{"type": "pass"}]})
    assert [(a.action, a.label) for a in unlabelled.labelled] == [({"type": "pass"}, None)]


def test_hints_and_reviews_are_read_with_their_parts():
    ranked = [{"action": {"type": "pass"}, "label": "pass", "visits": 30, "share": 0.75, "value": 0.6}]
    easy = {"action": {"type": "pass"}, "label": "pass"}
    hint = Hint.from_json({"seat": 1, "actions": ranked, "easy": easy, "iterations": 40, "budget": {"ms": 1}})
    assert hint.best == {"type": "pass"} and hint.actions[0].share == 0.75 and hint.actions[0].visits == 30
    assert hint.easy is not None and hint.easy.label == "pass" and hint["budget"] == {"ms": 1}
    decisions = [
        {"n": 1, "seat": 0, "loss": 0.0, "mistake": False},
        {"n": 3, "seat": 0, "loss": 0.4, "mistake": True},
    ]
    job = Job.from_json(
        {
            "id": "j",
            "status": "done",
            "progress": {"done": 2, "total": 2},
            "review": {
                "game": "ronda",
                "seats": [0],
                "summary": [{"seat": 0, "accuracy": 50.0}],
                "decisions": decisions,
            },
        }
    )
    review = Review.from_json(job.review or {})
    assert job.progress == {"done": 2, "total": 2} and review.seats == [0]
    assert [d["n"] for d in review.mistakes] == [3] and review.summary[0]["accuracy"] == 50.0


def session_answer(**fields) -> dict:
    answer = {"id": "s1", "game": "ronda", "seat": 0, "version": 3, "to_act": 0, "finished": False}
    answer.update(view={"seat": 0, "game": "ronda"}, seats=["human", "bot"], **fields)
    return answer


def test_a_session_answer_keeps_unknown_fields_and_its_legal_actions():
    labelled = [{"type": "pass", "label": "pass"}]
    state = SessionState.from_json(session_answer(legal_actions=labelled, spectators=2))
    assert state.my_turn and state["spectators"] == 2 and state.get("missing", "none") == "none"
    assert state.legal_actions == [LegalAction({"type": "pass"}, "pass", {"type": "pass", "label": "pass"})]
    assert SessionState.from_json(session_answer()).legal_actions is None  # not sent: not known


def test_the_session_answers_own_legal_actions_are_used_without_asking():
    transport = Refusing()
    seat = Client("http://x", transport=transport).session("s1", "token")
    carried = SessionState.from_json(session_answer(legal_actions=[{"type": "pass"}]))
    assert [a.action for a in seat.legal_actions(carried)] == [{"type": "pass"}]
    waiting = SessionState.from_json(session_answer(to_act=1))
    assert seat.legal_actions(waiting) == []
    assert transport.calls == []
    with pytest.raises(NotFound):  # without them: the stateless legal-moves
        seat.legal_actions(SessionState.from_json(session_answer()))
    assert transport.calls == [("POST", "http://x/v1/games/ronda/legal-moves")]


def test_server_sent_events_are_parsed_as_the_standard_says():
    lines = [
        ": keep-alive",
        "id: 4",
        "event: move",
        'data: {"version": 4,',
        'data:  "to_act": 1}',
        "",
        "id: 5",
        "",  # no data: not dispatched, but the id counts
        "data: plain",
        "",
        "data: unfinished",  # no blank line: the stream ended mid-event
    ]
    events = list(parse_events(lines))
    assert [(e.id, e.event) for e in events] == [("4", "move"), ("5", "message")]
    assert events[0].json() == {"version": 4, "to_act": 1} and events[1].data == "plain"
