# `make test` and `make demo` do all the set-up on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: test demo venv lint clean memcheck

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,dask]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest test
	$(BIN)/lit -q test

demo: $(STAMP)
	$(BIN)/python examples/demo.py

# Tests under valgrind's memcheck (slow: a file at a time, TESTS=test/runtime say).
memcheck: $(STAMP)
	test/memcheck/run.sh $(TESTS)

lint: $(STAMP)
	$(BIN)/python -m pip install --quiet ruff
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build *.egg-info
