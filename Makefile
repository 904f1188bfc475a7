# Two commands for a fresh machine:
#   make demo   set up, train a short self-play run on draw (2 players), then evaluate it
#   make test   set up, then run the whole test suite: the core tests in a core-only venv, the rest in .venv
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# A second venv with the core install and the test extra only (no torch, matplotlib, yaml...):
# the tests marked core (tests/conftest.py) pass there, proving the core install stands alone.
# `make test` runs each test once: the core ones there, the others in .venv.
CORE_VENV := .venv-core
CORE_BIN := $(CORE_VENV)/bin
CORE_STAMP := $(CORE_VENV)/.installed
TRAIN_ONLY := torch matplotlib yaml tensorboard safetensors tqdm

.PHONY: setup demo test test-core browser bench clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[train,bench,dev,sb3,rllib,torchrl]"
	touch $(STAMP)

# Rebuilt from scratch when the dependencies change, so that nothing a former core once held stays.
# The '*' .gitignore keeps git and ruff out of it (as Python 3.13's venv does by itself).
$(CORE_STAMP): pyproject.toml constraints.txt
	rm -rf $(CORE_VENV)
	$(PYTHON) -m venv $(CORE_VENV)
	echo '*' > $(CORE_VENV)/.gitignore
	$(CORE_BIN)/python -m pip install --quiet --upgrade pip
	$(CORE_BIN)/python -m pip install --quiet -c constraints.txt -e ".[test]"
	touch $(CORE_STAMP)

setup: $(STAMP)

demo: $(STAMP)
	rm -rf runs/demo
	$(BIN)/python -m arena train --config configs/draw_2p.yaml --name demo \
		ppo.total_env_steps=4000000 run.time_limit_minutes=4 eval.every=10 eval.games=256 improve.positions=0
	$(BIN)/python -m arena evaluate runs/demo heuristic greedy random --against heuristic greedy random \
		--games 2000 --seed 12345

# The browser tests drive Debian's chromium, and the table pictures' words need a font (resvg uses
# the system's); both are installed here when missing (CI runs as root).
browser:
	@test -x /usr/bin/chromium -a -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf || \
		(apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium fonts-dejavu-core)

test: $(STAMP) browser
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q -n 2 -m "not core"
	$(MAKE) --no-print-directory test-core

# The core suite: only the files marked core are collected under -m core (see tests/conftest.py).
test-core: $(CORE_STAMP)
	@$(CORE_BIN)/python -c "import importlib.util as u, sys; found = [m for m in sys.argv[1:] if u.find_spec(m)]; \
		sys.exit(f'the core install pulled in {found}: only the train extra may' if found else 0)" $(TRAIN_ONLY)
	$(CORE_BIN)/python -m pytest -m core -q -n 2

bench: $(STAMP)
	$(BIN)/python -m benchmarks.speed

# Compiled code is cached by numba in every __pycache__ (see domino_env/jit_cache.py).
clean:
	rm -rf $(VENV) $(CORE_VENV) .pytest_cache .ruff_cache
	find . -name __pycache__ -prune -not -path './.git/*' -exec rm -rf {} +
