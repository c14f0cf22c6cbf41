"""HTTP with the standard library only (urllib): the client has no dependencies.

A :class:`Transport` sends one request and returns the whole answer, whatever its status;
:class:`UrllibTransport` is the default. Another one (a test's in-process app, a pooled
HTTP library) can be given to :class:`majlis_client.Client`."""

from __future__ import annotations

import http.client
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from majlis_client.errors import ApiError, TransportError, error_from_response


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)  # names in lower case


class Transport(Protocol):
    def __call__(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes | None, timeout: float
    ) -> Response: ...


class UrllibTransport:
    """One request per call over ``urllib`` (a fresh connection each time)."""

    def __call__(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes | None, timeout: float
    ) -> Response:
        request = urllib.request.Request(url, data=body, headers=dict(headers), method=method)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return Response(answer.status, answer.read(), _lower(answer.headers.items()))
        except urllib.error.HTTPError as error:  # a 4xx/5xx: an answer like any other here
            with error:
                return Response(error.code, error.read(), _lower(error.headers.items()))
        except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
            raise TransportError(f"{method} {url}: {getattr(error, 'reason', error)}") from error


def stream_lines(url: str, headers: Mapping[str, str], timeout: float | None) -> Iterator[str]:
    """The lines of a streamed GET answer (Server-Sent Events), as they arrive. An error
    status raises its :class:`ApiError`; ``timeout`` bounds each wait for data."""
    request = urllib.request.Request(url, headers=dict(headers), method="GET")
    try:
        answer = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as error:
        with error:
            raise _api_error(error) from None
    except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
        raise TransportError(f"GET {url}: {getattr(error, 'reason', error)}") from error
    with answer:
        try:
            for raw in answer:
                yield raw.decode("utf-8").rstrip("\r\n")
        except (http.client.HTTPException, OSError) as error:  # OSError: a timeout too
            raise TransportError(f"GET {url}: the stream broke: {error}") from error


def _api_error(error: urllib.error.HTTPError) -> ApiError:
    return error_from_response(error.code, error.read(), _lower(error.headers.items()))


def _lower(items: Iterable[tuple[str, str]]) -> dict[str, str]:
    return {k.lower(): v for k, v in items}
