"""Train a shipped config and package the result as a pretrained agent.

    python -m training.ship configs/draw_2p.yaml [--games 2000]

Trains with the config as it is, evaluates the final policy against tables of every baseline
with seats rotated, and copies the weights, the config and the evaluation table to
``training/pretrained/<config name>/``, where ``evaluate`` and ``play`` find it by name.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

from agents import make_agent
from domino_env import make_game
from training import checkpoint as ckpt
from training.arena import run_arena
from training.config import load_config
from training.policy import PolicyAgent
from training.ppo import train


def ship(config_path: Path, games: int, runs_dir: str) -> Path:
    config = load_config(config_path, [f"run.dir={runs_dir}"])
    run_dir = Path(config.run.dir) / config.run.name
    if run_dir.exists():
        shutil.rmtree(run_dir)
    started = time.perf_counter()
    folder = train(config, run_dir)
    minutes = (time.perf_counter() - started) / 60
    game = make_game(config.env.variant, **config.env.options)
    policy = PolicyAgent(ckpt.load_network(folder, game), name=config_path.stem)
    policies = {policy.name: policy} | {
        name: make_agent(name, game, seed=i) for i, name in enumerate(config.pool.baselines)
    }
    result = run_arena(game, policies, games, seed=12345, opponents=config.pool.baselines)
    with (run_dir / "metrics.csv").open() as handle:
        last = handle.read().splitlines()[-1].split(",")[0]
    target = ckpt.PRETRAINED_DIR / config_path.stem
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(folder / ckpt.MODEL_FILE, target / ckpt.MODEL_FILE)
    shutil.copy(folder / ckpt.CONFIG_FILE, target / ckpt.CONFIG_FILE)
    shutil.copy(run_dir / "learning_curve.png", target / "learning_curve.png")
    report = (
        f"# {config_path.stem}\n\n"
        f"Trained by `python -m training train --config {config_path}` in {minutes:.1f} minutes "
        f"({int(last):,} environment steps, {int(last) / (minutes * 60):,.0f} steps/s including the network "
        f"and evaluations) on 2 CPU cores.\n\n"
        f"`python -m training evaluate {config_path.stem} {' '.join(config.pool.baselines)} "
        f"--against {' '.join(config.pool.baselines)} --games {games} --seed 12345`:\n\n{result.markdown()}\n"
    )
    (target / "evaluation.md").write_text(report)
    print(report)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("configs", nargs="+", type=Path)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--runs-dir", default="runs")
    args = parser.parse_args()
    for path in args.configs:
        ship(path, args.games, args.runs_dir)


if __name__ == "__main__":
    main()
