# Two commands do everything on a fresh machine (Python >= 3.11 on PATH):
#   make run    serve the API on http://127.0.0.1:8000 (nothing else to install)
#   make test   lint (ruff) and run the whole test suite (OpenSpiel extra included), against the compiled build
#   make test-fast  the inner loop: engine, games and bots, without the slow tests (about a minute)
#   make build  recompile the search's hot modules after editing them (setup.py, mypyc)
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: run test test-fast build bench clean

$(VENV)/.installed: pyproject.toml setup.py clients/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,openspiel]' -e ./clients/python
	touch $@

run: $(VENV)/.installed
	$(PY) -m service.run

test: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy engine ai clients/python/src/majlis_client
	$(PY) -m ai.build_info --require $(REQUIRE_BUILD)
	$(NPM_CI)
	$(PY) -m pytest

# the inner loop: no lint, no service, no slow tests (`-m slow` runs just those)
test-fast: $(VENV)/.installed
	$(PY) -m pytest -q -m "not slow" tests/engine tests/games tests/ai

# `make test` checks that the suite runs the compiled hot modules wherever a C compiler is
# present (pip install compiles them then), and the interpreted fallback elsewhere
REQUIRE_BUILD ?= $(if $(shell command -v cc || command -v gcc),compiled,interpreted)

# the TypeScript client's packages (tests/clients/test_typescript_client.py builds and runs its
# Node tests); without npm its tests skip, and fail in CI (.ci/run installs Debian's nodejs and npm)
NPM_CI = $(if $(shell command -v npm),npm --prefix clients/typescript ci --no-audit --no-fund --loglevel=error,@echo "no npm: the TypeScript client's tests will skip")

build: $(VENV)/.installed
	$(PY) setup.py build_ext --inplace

bench: $(VENV)/.installed
	$(PY) bench/engine_speed.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build engine/_compiled.json
	find engine ai -name '*.so' -delete
