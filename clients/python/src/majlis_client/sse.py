"""Server-Sent Events, parsed as the HTML standard says (the parts a client needs)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from majlis_client.models import ServerEvent


def parse_events(lines: Iterable[str]) -> Iterator[ServerEvent]:
    """The events of a stream given line by line (without line ends).

    A blank line ends an event; ``data`` lines are joined with newlines; lines starting
    with ``:`` are comments (keep-alives); an event without data is not dispatched, but
    its ``id`` still counts as the last event id (the standard's rule)."""
    data: list[str] = []
    event, last_id = "", None
    for line in lines:
        if not line:
            if data:
                yield ServerEvent(data="\n".join(data), event=event or "message", id=last_id)
            data, event = [], ""
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        elif name == "id" and "\0" not in value:
            last_id = value
