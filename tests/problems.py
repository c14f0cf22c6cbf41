"""Reading the service's error answers in tests: RFC 9457 problem details
(service/errors.py). One place, so that a test says what it checks and not the shape."""

from __future__ import annotations

import json
from typing import Any

PROBLEM_JSON = "application/problem+json"
MEMBERS = {"type", "title", "status", "detail", "code"}
"""What every problem has (``instance`` too when the request had an id)."""


def body_of(answer: Any) -> dict[str, Any]:
    """The JSON of a Flask test response, a requests/urllib body or an already-read dict."""
    if isinstance(answer, dict):
        return answer
    if isinstance(answer, bytes | str):
        return json.loads(answer)
    return answer.get_json()


def problem(answer: Any, status: int | None = None) -> dict[str, Any]:
    """The problem details of an error answer, checked: every standard member, ``type``
    naming ``code``, the ``status`` member equal to the answer's (and to ``status``)."""
    body = body_of(answer)
    assert MEMBERS <= set(body), body
    assert body["type"] == f"/problems/{body['code']}", body
    assert body["title"] and body["detail"], body
    http_status = getattr(answer, "status_code", None)
    if http_status is not None:
        assert body["status"] == http_status, body
        assert answer.mimetype == PROBLEM_JSON, answer.mimetype
    if status is not None:
        assert body["status"] == status, body
    return body


def error_code(answer: Any) -> str:
    """The error code of an error answer (which must be problem details)."""
    return str(problem(answer)["code"])


def extensions(answer: Any) -> dict[str, Any]:
    """The error's details: the members of its problem beyond the standard ones and ``code``."""
    body = body_of(answer)
    return {name: value for name, value in body.items() if name not in MEMBERS | {"instance"}}
