"""Write the service's OpenAPI document (what ``GET /openapi.json`` serves) to a file,
from the app in this process: no server, no Redis. The TypeScript client's types are
generated from it (``npm run generate``).

    python clients/typescript/scripts/dump_spec.py openapi.json"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def served_spec() -> dict:
    """The document the app serves at /openapi.json."""
    sys.path.insert(0, str(ROOT))
    from service import create_app
    from service.settings import TestSettings

    answer = create_app(TestSettings()).test_client().get("/openapi.json")
    assert answer.status_code == 200, answer.status_code
    return answer.get_json()


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    Path(argv[0]).write_text(json.dumps(served_spec(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
