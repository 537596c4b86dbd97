# The two commands of the README: `make demo` and `make test`.
# Each creates .venv on first use and reinstalls when pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
# byte-compile the package up front: an editable install never gets .pyc files where
# PYTHONDONTWRITEBYTECODE is set, and every CLI start then recompiles the sources
BYTECODE := $(VENV)/bin/python -m compileall -q mathhammer

# the browser tests drive Debian's Chromium: installed here when missing and we are root
# (as CI is); elsewhere they skip and say why
BROWSER := command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] \
	&& command -v apt-get >/dev/null 2>&1 && { apt-get update -qq \
	&& DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1; } \
	|| echo "note: no Chromium (apt-get install -y chromium): the browser tests will skip"

.PHONY: demo test test-slow bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[test,web]'
	touch $(STAMP)

demo: $(STAMP)
	@$(BYTECODE)
	$(VENV)/bin/mathhammer demo

test: $(STAMP)
	@$(BYTECODE)
	@$(BROWSER)
	$(VENV)/bin/python -m pytest -q -n 2 -m "not slow"

test-slow: $(STAMP)
	@$(BYTECODE)
	$(VENV)/bin/python -m pytest -q -n 2 -m slow

bench: $(STAMP)
	$(VENV)/bin/python -m pip install --quiet -e '.[test,bench]'
	$(VENV)/bin/python benchmarks/run.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
