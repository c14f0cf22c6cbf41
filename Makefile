# Two commands do everything on a fresh machine (Python >= 3.11 on PATH):
#   make run    serve the API on http://127.0.0.1:8000 (installs only what serving needs)
#   make test   lint (ruff) and run the whole test suite (OpenSpiel extra included), against the compiled build
#   make test-fast  the inner loop: engine, games and bots, without the slow tests (about a minute)
#   make build  compile the search's hot modules (setup.py, mypyc; ~2 min): the next `make run` uses them
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3
PIP := $(PY) -m pip install --disable-pip-version-check
STEP := @printf 'majlis make: %s\n'
# TICKING "what" command...: prints the command, runs it and says "... what (N s)" every 5 s while it
# runs, so that no step is silent for long (creating a virtualenv says nothing for ~10 s)
TICKING := sh -c 'what=$$1; shift; echo "$$*"; "$$@" & pid=$$!; s=0; \
	while kill -0 $$pid 2>/dev/null; do sleep 1; s=$$((s + 1)); \
	if [ $$((s % 5)) -eq 0 ] && kill -0 $$pid 2>/dev/null; then echo "majlis make: ... $$what ($$s s)"; fi; done; \
	wait $$pid' ticking

.PHONY: run test test-fast build bench clean

# Serving needs the package and its runtime dependencies only, installed without compiling
# (MAJLIS_PURE_PYTHON=1) and without pip's isolated build environment (which would install
# mypy, the compiler, first: 20 s of silence at load 11): the first answer comes within a
# minute of a fresh clone, and the hot modules are compiled in a later step (`make build`,
# or `make test`).
$(VENV)/.installed-run: pyproject.toml setup.py
	$(STEP) "[1/3] creating the virtualenv $(VENV) (about 10 s)"
	@$(TICKING) "creating the virtualenv" $(PYTHON) -m venv $(VENV)
	$(STEP) "[2/3] installing what serving needs, nothing compiled (about 25 s with pip's cache warm; pip names each package)"
	@$(TICKING) "installing setuptools" $(PIP) --progress-bar on 'setuptools>=68'
	@MAJLIS_PURE_PYTHON=1 $(TICKING) "installing" $(PIP) --progress-bar on --no-build-isolation -e .
	touch $@

# The test tools, the OpenSpiel extra and the client, and the compiled build the suite requires.
$(VENV)/.installed-test: $(VENV)/.installed-run pyproject.toml setup.py clients/python/pyproject.toml
	$(STEP) "installing the test tools, the OpenSpiel extra and the Python client, and compiling the hot modules with mypyc (about 3 min)"
	@$(TICKING) "installing and compiling" $(PIP) -e '.[dev,openspiel]' -e ./clients/python
	touch $@

run: $(VENV)/.installed-run
	$(STEP) "[3/3] starting Redis, a bot worker and gunicorn (about 5 s); the bots' search runs the $$($(PY) -m ai.build_info | cut -d: -f1) build (\`make build\` compiles it, about 2 min)"
	$(PY) -m service.run

test: $(VENV)/.installed-test
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy engine ai clients/python/src/majlis_client service
	$(PY) -m ai.build_info --require $(REQUIRE_BUILD)
	$(NPM_CI)
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile

# the inner loop: no lint, no service, no slow tests (`-m slow` runs just those)
test-fast: $(VENV)/.installed-test
	$(PY) -m pytest -q -n $(TEST_WORKERS) -m "not slow" tests/engine tests/games tests/ai

# `make test` checks that the suite runs the compiled hot modules wherever a C compiler is
# present (pip install compiles them then), and the interpreted fallback elsewhere
REQUIRE_BUILD ?= $(if $(shell command -v cc || command -v gcc),compiled,interpreted)

# The suite runs on two processes (pytest-xdist; `make test` hands each a whole test file at
# a time, so a file's module fixtures start once): much of a test's time is spent waiting on
# a browser, a worker or a timer, and two processes keep the two cores busy (TEST_WORKERS=1
# runs it in one). Every service a test starts has its own free port, data folder and key
# prefix, so the two processes do not meet.
TEST_WORKERS ?= 2

# the TypeScript client's packages (tests/clients/test_typescript_client.py builds and runs its
# Node tests) and axe-core, the browser tests' accessibility checker; without npm those tests
# skip, and fail in CI (.ci/run installs Debian's nodejs and npm)
NPM_INSTALL = npm ci --no-audit --no-fund --loglevel=error --prefix
NPM_CI = $(if $(shell command -v npm),$(NPM_INSTALL) clients/typescript && $(NPM_INSTALL) tests/browser,@echo "no npm: the TypeScript client's and the browser's tests will skip")

build: $(VENV)/.installed-run
	$(STEP) "compiling the search's hot modules with mypyc (about 2 min; restart make run to use them)"
	@$(TICKING) "compiling" $(PIP) --no-deps -e .
	$(PY) -m ai.build_info

bench: $(VENV)/.installed-run
	$(PY) bench/engine_speed.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build engine/_compiled.json
	find engine ai -name '*.so' -delete
