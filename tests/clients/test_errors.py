"""Every error code the service documents or answers is an exception class of the client,
under the class of its HTTP status, with the details a caller acts on as attributes."""

from __future__ import annotations

import json
import re

import pytest
from majlis_client import errors as E
from majlis_client.errors import ERROR_CLASSES, STATUS_CLASSES, error_from_response

from engine.protocol import BadAction, IllegalAction, InvalidSetup, InvalidState, NotYourTurn
from service import domain_errors
from service.errors import HTTP_CODES, domain_status, engine_error_to_api, legacy, problem
from tests.clients.conftest import ROOT


def status_class(status: int) -> type[E.ApiError]:
    return E.ServerError if status >= 500 else STATUS_CLASSES[status]


def documented_codes() -> list[tuple[int, str]]:
    """(status, code) of each row of docs/api.md's Errors table."""
    text = (ROOT / "docs" / "api.md").read_text()
    table = text.split("## Errors", 1)[1].split("\n## ", 1)[0]
    pairs = []
    for status, codes in re.findall(r"^\| (\d{3}) \| ([^|]+) \|", table, flags=re.M):
        pairs += [(int(status), code) for code in re.findall(r"`([a-z_]+)`", codes)]
    return pairs


def answered_codes() -> list[tuple[int, str]]:
    """(status, code) of each error the service's code answers: ApiError(...) and
    error_response(...) with a literal code, the HTTP statuses' codes, and the engine's
    errors as the service maps them."""
    pairs = set(HTTP_CODES.items())
    for path in [*(ROOT / "service").rglob("*.py"), ROOT / "deploy" / "gunicorn.conf.py"]:
        source = path.read_text()
        found = re.findall(r'(?:ApiError|error_response)\(\s*(\d{3}),\s*"([a-z_]+)"', source)
        pairs |= {(int(status), code) for status, code in found}
    # service/domain_errors.py declares each refusal's code (super().__init__(code, ...));
    # service/errors.py gives each kind its status
    for chunk in (ROOT / "service" / "domain_errors.py").read_text().split("\nclass ")[1:]:
        name = chunk.split("(", 1)[0]
        for code in re.findall(r'super\(\).__init__\(\s*"([a-z_]+)"', chunk):
            pairs.add((domain_status(getattr(domain_errors, name)), code))
    for error in (
        BadAction("x"),
        IllegalAction("x", rule="R1"),
        NotYourTurn("x"),
        InvalidState("x"),
        InvalidSetup("x"),
    ):
        api = engine_error_to_api(error)
        pairs.add((api.status, api.code))
    return sorted(pairs)


def test_the_code_lists_are_read():
    """A guard on the two readers below: a change of layout must not empty them."""
    assert len(documented_codes()) >= 15
    assert {"stale_version", "seat_claimed", "illegal_move", "unsupported_media_type"} <= {
        code for _, code in answered_codes()
    }


@pytest.mark.parametrize(("status", "code"), documented_codes(), ids=lambda v: str(v))
def test_every_documented_code_is_an_exception_class(status, code):
    cls = ERROR_CLASSES[code]
    assert issubclass(cls, status_class(status))
    raised = error_from_response(status, error_body(code, {}, status))
    assert type(raised) is cls and raised.code == code and raised.status == status


@pytest.mark.parametrize(("status", "code"), answered_codes(), ids=lambda v: str(v))
def test_every_code_the_service_answers_is_an_exception_class(status, code):
    if code == "error":  # the service's word for a status it has no name for
        assert type(error_from_response(status, error_body("error", {}, status))) is status_class(status)
        return
    assert issubclass(ERROR_CLASSES[code], status_class(status))


def error_body(code: str, details: dict, status: int = 422) -> bytes:
    """An error answer as the service writes it: problem details (service/errors.py)."""
    return json.dumps(problem(status, code, "refused", details, "urn:majlis:request:r-1")).encode()


def legacy_body(code: str, details: dict, status: int = 422) -> bytes:
    """An error answer of a service set to the deprecated MAJLIS_ERROR_FORMAT=legacy."""
    return json.dumps(legacy(status, code, "refused", details)).encode()


@pytest.mark.parametrize("shape", [error_body, legacy_body], ids=["problem", "legacy"])
def test_an_illegal_move_carries_its_rule_reason_and_legal_actions(shape):
    legal = [{"type": "pass"}, {"type": "declare", "combo": "ronda"}]
    details = {"rule": "R9", "reason": "declare first", "legal_actions": legal, "to_act": 1}
    raised = error_from_response(422, shape("illegal_move", details), {"X-Request-ID": "r-1"})
    assert isinstance(raised, E.IllegalMove) and isinstance(raised, E.Unprocessable)
    assert (raised.rule, raised.reason, raised.to_act) == ("R9", "declare first", 1)
    assert raised.legal_actions == legal
    assert raised.request_id == "r-1" and raised.message == "refused" and raised.field is None
    assert raised.details == details
    assert isinstance(error_from_response(422, shape("not_your_turn", {})), E.IllegalMove)


def test_a_detail_named_like_a_standard_member_comes_back_as_a_detail():
    raised = error_from_response(422, error_body("invalid_state", {"field": "view", "status": "odd"}))
    assert raised.details == {"field": "view", "status": "odd"} and raised.status == 422


def test_fields_versions_and_waits_are_attributes():
    setup = error_from_response(422, error_body("invalid_setup", {"field": "players", "allowed": [2, 3, 4]}))
    assert (setup.field, setup.allowed) == ("players", [2, 3, 4])
    shape = error_from_response(422, error_body("invalid_request", {"fields": {"seat": "not an integer"}}))
    assert shape.fields == {"seat": "not an integer"}
    stale = error_from_response(409, error_body("stale_version", {"version": 7, "expected_version": 5}))
    assert isinstance(stale, E.StaleVersion) and stale.version == 7
    limited = error_from_response(429, error_body("rate_limited", {"retry_after": 3}), {"Retry-After": "12"})
    assert isinstance(limited, E.RateLimited) and limited.retry_after == 12.0
    assert error_from_response(429, error_body("rate_limited", {"retry_after": 3})).retry_after == 3.0


def test_an_unknown_code_gets_the_class_of_its_status():
    assert type(error_from_response(409, error_body("review_running", {}))) is E.Conflict
    assert type(error_from_response(403, error_body("review_hidden", {}))) is E.Forbidden
    assert type(error_from_response(418, error_body("teapot", {}))) is E.ApiError
    gateway = error_from_response(502, b"<html>Bad Gateway</html>")
    assert type(gateway) is E.ServerError and gateway.code == "http_502" and "Bad Gateway" in gateway.message


def test_the_app_errors_reach_the_caller_as_their_classes(local):
    """The service's own answers, through the client (the app in process)."""
    with pytest.raises(E.UnknownGame):
        local.game("chess")
    with pytest.raises(E.InvalidSetup) as setup:
        local.deal("ronda", players=7)
    assert setup.value.field == "players" and setup.value.allowed == [2, 3, 4]
    with pytest.raises(E.InvalidRequest) as shape:
        local.deal("ronda", seed=-1)
    assert "seed" in shape.value.fields
    state = local.deal("ronda", players=2, seed=42)
    with pytest.raises(E.IllegalMove) as refused:
        local.move("ronda", state, 1, {"type": "play", "card": state["hands"][1][0]})
    assert refused.value.rule and refused.value.reason
    assert refused.value.legal_actions == local.legal_moves("ronda", state=state).actions
    with pytest.raises(E.NotYourTurn):
        local.move("ronda", state, 0, {"type": "pass"})
    with pytest.raises(E.InvalidAction) as unreadable:
        local.move("ronda", state, 1, {"type": "play", "card": "TH"})  # no tens in Ronda's pack
    assert unreadable.value.field
    with pytest.raises(E.WrongSeat):
        local.view("ronda", state, 5)
