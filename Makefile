# Two commands for a fresh machine:
#   make demo   set up, then play the built-in agents (one game shown, then a results table)
#   make test   set up, then run the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint bench clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[bench,dev]"
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m agents.tournament --variant draw --players 2 --agents greedy random --episodes 2000

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q -n 2

bench: $(STAMP)
	$(BIN)/python -m benchmarks.speed

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
