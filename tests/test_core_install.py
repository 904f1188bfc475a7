"""A core-only install works: the environments, built-in agents, pictures, replay pages, the
command line and the web page need none of the ``train`` extra (torch, matplotlib, yaml,
tensorboard, safetensors, tqdm).

The checks run in a new Python process that cannot import those packages (``None`` in
``sys.modules``: importing one fails as if it were not installed, and ``find_spec`` finds
nothing), so this test means the same in the full venv as in the core venv of ``make test-core``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.core

ROOT = Path(__file__).resolve().parent.parent
TRAIN_EXTRA = ("torch", "matplotlib", "yaml", "tensorboard", "safetensors", "tqdm")

CORE_ONLY = """
import sys
for name in {blocked!r}:
    sys.modules[name] = None

import contextlib, io, json, threading, urllib.request
from pathlib import Path

import numpy as np

import domino_env, agents
from agents import make_agent
from domino_env.picture import rasterize, table_svg

out = Path(sys.argv[1])

# a game in the AEC environment between built-in agents, drawn as an RGB array at the end
env = domino_env.raw_env("draw", num_players=2, render_mode="rgb_array")
env.reset(seed=3)
players = [make_agent("heuristic", env.game, seed=1), make_agent("random", env.game, seed=2)]
for name in env.agent_iter():
    observation, _, terminated, truncated, _ = env.last()
    player = players[env.agent_seat[name]]
    action = None if terminated or truncated else player.act_one(observation, state=env.state_array)
    env.step(action)
image = env.render()
assert image.ndim == 3 and image.shape[2] == 3 and image.std() > 0, image.shape

game = domino_env.make_game("mexican_train", num_players=3)
state = game.new_state(1)
game.seed(state, 0, 5)
game.start(state, 0)
svg = table_svg(game, state, 0, face_up="all")
assert svg.startswith("<svg") and rasterize(svg).shape[2] == 3

# a replay page between built-in agents
from arena.replay import read_html_data, record_game, write_replay

seated = [make_agent(name, game, seed=i) for i, name in enumerate(["heuristic", "greedy", "random"])]
page = write_replay(record_game(game, seated, seed=7), out / "game.html")
assert len(read_html_data(page)["frames"]) > 1

# the command line: replays of built-in agents, and a plain error where a trained policy is named
from arena.cli import load_policy, main


def cli(*args):
    error = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(error):
        try:
            main(list(args))
        except SystemExit as stop:
            return stop.code, error.getvalue()
    return 0, error.getvalue()


assert cli("replay", "heuristic", "random", "--variant", "draw", "--out", str(out / "cli.html")) == (0, "")
assert (out / "cli.html").stat().st_size > 0
code, said = cli("replay", "heuristic", "random", "--out", str(out / "x.html"))
assert code == 2 and "--variant" in said, said
for named in (["draw_2p"], ["draw_2p", "--variant", "draw"], ["draw_2p+search", "--variant", "draw"]):
    code, said = cli("replay", *named, "--out", str(out / "x.html"))
    assert code == 2 and "train extra" in said, (named, said)
code, said = cli("replay", "greedy", "--variant", "draw", "--option", "num_players=3", "--out", str(out / "x.html"))
assert code == 2 and "train extra" in said, said

# the web page: built-in agents only, and a game against one
from arena.web.server import make_server

server = make_server(lambda name, g, s: load_policy(name, g, seed=s), {{"variant": "draw"}})
threading.Thread(target=server.serve_forever, daemon=True).start()
base = f"http://127.0.0.1:{{server.server_port}}"
try:
    with urllib.request.urlopen(server.url) as answer:
        assert answer.status == 200 and b"heuristic" in answer.read()
    lobby = server.lobby
    assert lobby.choices()["pretrained"] == {{}}
    request = urllib.request.Request(
        base + "/api/new",
        json.dumps({{"variant": "block", "opponent": "heuristic", "seat": 0, "seed": 1}}).encode(),
        {{"Content-Type": "application/json", "X-Token": server.token}},
    )
    with urllib.request.urlopen(request) as answer:
        view = json.loads(answer.read())
    assert view["svg"].startswith("<svg") and view["variant"] == "block", view.keys()
finally:
    server.shutdown()
    server.server_close()

loaded = sorted(name for name in {blocked!r} if sys.modules.get(name) is not None)
assert not loaded, loaded
assert "training.checkpoint" not in sys.modules and "agents.network" not in sys.modules
print("core only: ok")
"""


def test_the_core_install_needs_nothing_of_the_train_extra(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-c", CORE_ONLY.format(blocked=TRAIN_EXTRA), str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert result.stdout.strip().endswith("core only: ok")
