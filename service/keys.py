"""API keys for third-party clients, stored hashed (sha256) in Redis; and their CLI.

    python -m service.keys create --name acme [--rate 1200]
    python -m service.keys list
    python -m service.keys revoke --name acme

A key is shown once, at creation. Requests carry it in the ``X-API-Key`` header; keys
are required only when ``MAJLIS_API_KEYS`` is on (off by default). ``--rate`` sets the
key's own limit (requests per ``MAJLIS_RATE_WINDOW`` seconds) instead of
``MAJLIS_RATE_LIMIT``. The CLI finds Redis through ``REDIS_URL``, or the embedded server
that ``python -m service.run`` started (its URL is written to ``var/redis-url``)."""

from __future__ import annotations

import argparse
import hashlib
import secrets
import sys
import time
from pathlib import Path
from typing import Any, cast

import redis
from redis.typing import EncodableT, FieldT

from service.redis_conn import Keys, connect

KEY_PREFIX = "mjk_"
URL_FILE = Path(__file__).resolve().parent.parent / "var" / "redis-url"


def digest(key: str) -> str:
    """sha256 of a key (keys are 32 random bytes: a fast hash is enough)."""
    return hashlib.sha256(key.encode()).hexdigest()


def create(client: redis.Redis, keys: Keys, name: str, rate: int | None = None) -> str:
    if not name or client.hexists(keys.api_keys(), name):
        raise ValueError(f"a key named {name!r} exists already (or the name is empty)")
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    d = digest(key)
    record: dict[str, Any] = {"name": name, "created": f"{time.time():.0f}"}
    if rate is not None:
        record["rate"] = int(rate)
    pipe = client.pipeline()
    pipe.hset(keys.api_key(d), mapping=cast("dict[FieldT, EncodableT]", record))
    pipe.hset(keys.api_keys(), name, d)
    pipe.execute()
    return key


def lookup(client: redis.Redis, keys: Keys, key: str) -> tuple[str, dict[str, str]] | None:
    """(digest, record) of a valid key, else None."""
    if not key.startswith(KEY_PREFIX) or len(key) > 200:
        return None
    d = digest(key)
    record = cast("dict[str, str]", client.hgetall(keys.api_key(d)))  # decode_responses: str
    return (d, record) if record else None


def list_keys(client: redis.Redis, keys: Keys) -> list[dict[str, str]]:
    out = []
    names = cast("dict[str, str]", client.hgetall(keys.api_keys()))  # decode_responses: str
    for name, d in sorted(names.items()):
        record = cast("dict[str, str]", client.hgetall(keys.api_key(d)))
        out.append(
            {"name": name, "created": record.get("created", ""), "rate": record.get("rate", "default")}
        )
    return out


def revoke(client: redis.Redis, keys: Keys, name: str) -> bool:
    d = cast("str | None", client.hget(keys.api_keys(), name))
    if d is None:
        return False
    pipe = client.pipeline()
    pipe.delete(keys.api_key(d))
    pipe.hdel(keys.api_keys(), name)
    pipe.execute()
    return True


def redis_url() -> str | None:
    from service.settings import Settings

    url = Settings().REDIS_URL
    if url:
        return url
    if URL_FILE.exists():
        return URL_FILE.read_text().strip() or None
    return None


def main(argv: list[str] | None = None) -> int:
    from service.settings import Settings

    parser = argparse.ArgumentParser(prog="python -m service.keys", description="Manage API keys")
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("create", help="create a key and print it (shown once)")
    c.add_argument("--name", required=True)
    c.add_argument("--rate", type=int, default=None, help="requests per rate window for this key")
    sub.add_parser("list", help="list key names")
    r = sub.add_parser("revoke", help="delete a key")
    r.add_argument("--name", required=True)
    args = parser.parse_args(argv)
    url = redis_url()
    if not url:
        print("no Redis: set REDIS_URL (or start python -m service.run first)", file=sys.stderr)
        return 2
    client = connect(url, 2.0)
    keys = Keys(Settings().KEY_PREFIX)
    try:
        if args.command == "create":
            print(create(client, keys, args.name, args.rate))
        elif args.command == "list":
            for row in list_keys(client, keys):
                print(f"{row['name']}\tcreated {row['created']}\trate {row['rate']}")
        elif not revoke(client, keys, args.name):
            print(f"no key named {args.name!r}", file=sys.stderr)
            return 1
    except ValueError as error:
        print(error, file=sys.stderr)
        return 1
    except redis.RedisError as error:
        print(f"Redis is unreachable at {url}: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
