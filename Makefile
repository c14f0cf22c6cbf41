# Two commands do everything on a fresh machine (Python >= 3.11 on PATH):
#   make run    serve the API on http://127.0.0.1:8000 (nothing else to install)
#   make test   lint (ruff) and run the whole test suite
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: run test bench clean

$(VENV)/.installed: pyproject.toml clients/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]' -e ./clients/python
	touch $@

run: $(VENV)/.installed
	$(PY) -m service.run

test: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy engine ai clients/python/src/majlis_client
	$(PY) -m pytest

bench: $(VENV)/.installed
	$(PY) bench/engine_speed.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
