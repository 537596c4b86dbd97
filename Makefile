# The two commands of the README: `make demo` and `make test`.
# Each creates .venv on first use and reinstalls when pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
# byte-compile the package up front: an editable install never gets .pyc files where
# PYTHONDONTWRITEBYTECODE is set, and every CLI start then recompiles the sources
BYTECODE := $(VENV)/bin/python -m compileall -q mathhammer

.PHONY: demo test test-slow bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	@$(BYTECODE)
	$(VENV)/bin/mathhammer demo

test: $(STAMP)
	@$(BYTECODE)
	$(VENV)/bin/python -m pytest -q -n 2 -m "not slow"

test-slow: $(STAMP)
	@$(BYTECODE)
	$(VENV)/bin/python -m pytest -q -n 2 -m slow

bench: $(STAMP)
	$(VENV)/bin/python -m pip install --quiet -e '.[test,bench]'
	$(VENV)/bin/python benchmarks/run.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
