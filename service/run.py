"""``python -m service.run``: the README's one command to serve the API.

Starts gunicorn with deploy/gunicorn.conf.py on ``service.wsgi:app``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    conf = ROOT / "deploy" / "gunicorn.conf.py"
    gunicorn = Path(sys.executable).with_name("gunicorn")
    argv = [str(gunicorn), "-c", str(conf), "service.wsgi:app"]
    os.chdir(ROOT)
    os.execv(argv[0], argv)


if __name__ == "__main__":
    main()
