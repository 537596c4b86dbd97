# The two commands of the README: `make demo` and `make test` (and `make notebooks`).
# Each creates .venv on first use and reinstalls when pyproject.toml changes:
#   demo       the runtime (numpy, numba, pandas, matplotlib, typer, rich, pydantic) and the
#              web extra for `mathhammer serve` (starlette, uvicorn, jinja2, python-multipart)
#   test       the runtime + the test and web extras (pytest, hypothesis, dask, playwright ...)
#   notebooks  the runtime + the notebook extra (JupyterLab), then opens notebooks/
PYTHON ?= python3
VENV := .venv
PIP := $(VENV)/bin/python -m pip install --quiet
# one stamp per extra: `make demo` on a fresh clone installs no test tools
RUNTIME := $(VENV)/.installed-runtime
TESTS := $(VENV)/.installed-test
NOTEBOOK := $(VENV)/.installed-notebook
# byte-compile the package up front: an editable install never gets .pyc files where
# PYTHONDONTWRITEBYTECODE is set, and every CLI start then recompiles the sources
BYTECODE := $(VENV)/bin/python -m compileall -q mathhammer

# the browser tests drive Debian's Chromium: installed here when missing and we are root
# (as CI is); elsewhere they skip and say why
BROWSER := command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] \
	&& command -v apt-get >/dev/null 2>&1 && { apt-get update -qq \
	&& DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1; } \
	|| echo "note: no Chromium (apt-get install -y chromium): the browser tests will skip"

.PHONY: demo test test-slow notebooks bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip

$(RUNTIME): pyproject.toml | $(VENV)/bin/python
	$(PIP) -e '.[web]'
	touch $(RUNTIME)

$(TESTS): pyproject.toml $(RUNTIME)
	$(PIP) -e '.[test,web]'
	touch $(TESTS)

$(NOTEBOOK): pyproject.toml $(RUNTIME)
	$(PIP) -e '.[notebook]'
	touch $(NOTEBOOK)

demo: $(RUNTIME)
	@$(BYTECODE)
	$(VENV)/bin/mathhammer demo

test: $(TESTS)
	@$(BYTECODE)
	@$(BROWSER)
	$(VENV)/bin/python -m pytest -q -n 2 --dist loadgroup -m "not slow"

test-slow: $(TESTS)
	@$(BYTECODE)
	$(VENV)/bin/python -m pytest -q -n 2 -m slow

# JupyterLab on the notebooks folder (a browser opens where there is one; otherwise
# open the URL it prints). Extra arguments: make notebooks LAB_ARGS="--no-browser --port 8899"
# JupyterLab refuses to start as root unless told; containers often run as root
AS_ROOT := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)
notebooks: $(NOTEBOOK)
	@$(BYTECODE)
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks $(AS_ROOT) $(LAB_ARGS)

bench: $(TESTS)
	$(PIP) -e '.[test,bench]'
	$(VENV)/bin/python benchmarks/run.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
