"""Which parts of the training recipe make a policy beat the heuristic: one arm per change.

Every arm trains the same config (default ``configs/draw_2p.yaml``) for the same number of
self-play environment steps, with one set of overrides, then plays the heuristic over the
evaluation deals (seed 12345, never trained on), seats rotated. Arms, from the old recipe to the
shipped one:

- ``scratch``: the recipe before the imitation head start (random weights, an opponent pool of
  random and greedy players, entropy bonus 0.01, forced decisions trained on, one torch thread);
- ``scratch, forced skipped``: the same, forced decisions kept out of the network and buffer;
- ``scratch, heuristic in pool``: random weights against the shipped pool (the heuristic first);
- ``imitation only``: the shipped imitation, then a single PPO update;
- ``shipped``: the config as it is;
- ``privileged critic``: the config with a critic that also reads the hidden tiles
  (``network.critic=privileged``, :mod:`training.critic_inputs`).

    .venv/bin/python -m benchmarks.self_play_ablation [--config configs/draw_2p.yaml]
        [--steps 3000000] [--games 2000] [--arms scratch shipped ...]

Prints, per arm: training minutes (imitation included), self-play steps per second, the win rate
against a table of heuristics with its 95% interval, and the approximate KL, clip fraction and
explained variance averaged over the run's updates. Runs go to ``runs/ablation/``.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import csv
import shutil
import time
from pathlib import Path

from agents import make_agent
from agents.policy import PolicyAgent
from agents.tournament import against_table
from arena.ship import EVALUATION_SEED
from benchmarks import positive_int
from domino_env import make_game
from training import checkpoint as ckpt
from training.config import load_config
from training.ppo import train

OLD_RECIPE = [
    "imitation.teacher=''",
    "pool.baselines=[random, greedy]",
    "pool.self_play_share=0.5",
    "pool.baseline_share=0.2",
    "ppo.ent_coef=0.01",
    "run.torch_threads=1",
]
FIGURES = ("loss/approx_kl", "loss/clip_fraction", "loss/explained_variance")
ARMS = {
    "scratch": [*OLD_RECIPE, "ppo.learn_forced=true"],
    "scratch, forced skipped": OLD_RECIPE,
    "scratch, heuristic in pool": ["imitation.teacher=''"],
    "imitation only": ["ppo.total_env_steps=1"],
    "shipped": [],
    "privileged critic": ["network.critic=privileged"],
}


def run_means(run_dir: Path) -> dict[str, float]:
    """Each PPO figure's mean over the run's updates (the last update alone says little: the
    learning rate has annealed to zero by then), and the self-play steps it made."""
    with (run_dir / "metrics.csv").open() as handle:
        rows = [r for r in csv.DictReader(handle) if r.get("loss/approx_kl")]
    means = {key: sum(float(r[key]) for r in rows) / len(rows) for key in FIGURES}
    return means | {"env_steps": float(rows[-1]["env_steps"])}


def run_arm(config_path: Path, name: str, overrides: list[str], steps: int, games: int) -> dict[str, str]:
    run_dir = Path("runs/ablation") / name.replace(", ", "_").replace(" ", "_")
    if run_dir.exists():
        shutil.rmtree(run_dir)
    schedule = [f"ppo.total_env_steps={steps}", "run.time_limit_minutes=0", "eval.every=1000000"]
    config = load_config(config_path, [*schedule, *overrides])
    started = time.perf_counter()
    folder = train(config, run_dir)
    minutes = (time.perf_counter() - started) / 60
    game = make_game(config.env.variant, **config.env.options)
    policy = PolicyAgent(ckpt.load_network(folder, game), name=name)
    record = against_table(game, policy, make_agent("heuristic", game, seed=0), games, EVALUATION_SEED)
    low, high = record.win_interval()
    means = run_means(run_dir)
    return {
        "arm": name,
        "minutes": f"{minutes:.1f}",
        "steps/s": f"{means['env_steps'] / max(minutes * 60, 1e-9):,.0f}",
        "vs heuristic": f"{record.win_rate:.3f} [{low:.3f}, {high:.3f}]",
        "approx KL": f"{means['loss/approx_kl']:.1e}",
        "clip fraction": f"{means['loss/clip_fraction']:.3f}",
        "explained variance": f"{means['loss/explained_variance']:.2f}",
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=Path("configs/draw_2p.yaml"))
    parser.add_argument("--steps", type=positive_int, default=3_000_000, help="self-play environment steps per arm")
    parser.add_argument("--games", type=positive_int, default=2000, help="evaluation episodes against the heuristic")
    parser.add_argument("--arms", nargs="+", default=list(ARMS), choices=list(ARMS))
    args = parser.parse_args(argv)
    rows = [run_arm(args.config, arm, ARMS[arm], args.steps, args.games) for arm in args.arms]
    print(f"\n{args.config.stem}, {args.steps:,} self-play steps per arm, {args.games} evaluation episodes:\n")
    print("| " + " | ".join(rows[0]) + " |")
    print("|" + "---|" * len(rows[0]))
    for row in rows:
        print("| " + " | ".join(row.values()) + " |")


if __name__ == "__main__":
    main()
