import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

# Engine steps are fast, but a whole match is many of them: no per-example deadline.
settings.register_profile(
    "default",
    deadline=None,
    max_examples=25,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough",
    deadline=None,
    max_examples=300,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


# Every test folder is a package (so two games may both have test_rules.py); each game's
# folder and tests/ai also hold small helper modules imported by bare name
# (``from ronda_helpers import ...``, ``from toy import ...``).
_TESTS = Path(__file__).resolve().parent
for _folder in [_TESTS / "ai", *sorted((_TESTS / "games").iterdir())]:
    if _folder.is_dir() and str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))
