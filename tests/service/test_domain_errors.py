"""The domain's refusals (service/domain_errors.py) carry no HTTP: service/errors.py alone
gives each its status and headers and writes the problem document."""

from __future__ import annotations

import inspect

import pytest

from service import create_app
from service import domain_errors as D
from service.errors import PROBLEM_JSON, domain_status, domain_to_api
from service.settings import Settings

REFUSALS = [
    cls
    for _, cls in inspect.getmembers(D, inspect.isclass)
    if issubclass(cls, D.DomainError) and cls.__module__ == D.__name__
]


def test_the_refusals_are_read():
    assert {"QuotaExceeded", "StreamsFull", "StorageFull", "UnknownSession"} <= {c.__name__ for c in REFUSALS}


@pytest.mark.parametrize("refusal", [c for c in REFUSALS if c is not D.DomainError], ids=lambda c: c.__name__)
def test_every_refusal_has_a_status(refusal):
    assert 400 <= domain_status(refusal) < 600 and domain_status(refusal) != 500


@pytest.mark.parametrize(
    ("error", "status", "headers"),
    [
        (
            D.QuotaExceeded("streams-per-token", 4, 60, "streams per token"),
            429,
            {
                "Retry-After": "60",
                "RateLimit-Limit": "4",
                "RateLimit-Remaining": "0",
                "RateLimit-Reset": "60",
            },
        ),
        (D.StreamsFull(10, 5), 503, {"Retry-After": "5"}),
        (D.StorageFull(30), 507, {"Retry-After": "30"}),
        (D.RedisUnavailable("no REDIS_URL"), 503, {"Retry-After": "5"}),
        (D.QueueUnreachable(), 503, {}),
        (D.UnknownSession("a" * 32), 404, {}),
        (D.NotFound("unknown_job", "no job"), 404, {}),
        (D.SeatClaimed(1, 3), 409, {}),
        (D.InvalidCallback("is not http(s)"), 422, {}),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, D.DomainError) else None,
)
def test_a_refusal_gets_its_status_and_headers_in_one_place(error, status, headers):
    api = domain_to_api(error)
    assert (api.status, api.code, api.message, api.details, api.headers) == (
        status,
        error.code,
        error.message,
        error.details,
        headers,
    )


def test_a_refusal_raised_in_a_request_is_a_problem_document():
    app = create_app(Settings())

    def refuse():
        raise D.QuotaExceeded("sessions-per-hour", 120, 900, "sessions created per hour")

    app.add_url_rule("/refuse", "refuse", refuse)
    answer = app.test_client().get("/refuse")
    assert answer.status_code == 429 and answer.mimetype == PROBLEM_JSON
    body = answer.get_json()
    assert (body["code"], body["quota"], body["limit"], body["retry_after"]) == (
        "quota_exceeded",
        "sessions-per-hour",
        120,
        900,
    )
    assert body["detail"] == "over this client's quota of 120 sessions created per hour: retry in 900 s"
    assert answer.headers["Retry-After"] == "900" and answer.headers["RateLimit-Limit"] == "120"
    assert answer.headers["RateLimit-Remaining"] == "0" and answer.headers["RateLimit-Reset"] == "900"
