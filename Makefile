# Two commands for a fresh machine:
#   make demo   set up, train a short self-play run on draw (2 players), then evaluate it
#   make test   set up, then run the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test browser bench clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[train,bench,dev,sb3,rllib,torchrl]"
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	rm -rf runs/demo
	$(BIN)/python -m training train --config configs/draw_2p.yaml --name demo \
		ppo.total_env_steps=4000000 run.time_limit_minutes=4 eval.every=10 eval.games=256
	$(BIN)/python -m training evaluate runs/demo heuristic greedy random --against heuristic greedy random \
		--games 2000 --seed 12345

# The browser tests drive Debian's chromium, and the table pictures' words need a font (resvg uses
# the system's); both are installed here when missing (CI runs as root).
browser:
	@test -x /usr/bin/chromium -a -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf || \
		(apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium fonts-dejavu-core)

test: $(STAMP) browser
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q -n 2

bench: $(STAMP)
	$(BIN)/python -m benchmarks.speed

# Compiled code is cached by numba in every __pycache__ (see domino_env/jit_cache.py).
clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
	find . -name __pycache__ -prune -not -path './.git/*' -exec rm -rf {} +
