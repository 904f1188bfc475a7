"""Self-play PPO with Ray RLlib (new API stack), on one machine or a Ray cluster.

One shared policy, ``main``, is trained; each game it takes one seat, drawn per episode, and
frozen snapshots of it play the others. Every ``--snapshot-every`` iterations the oldest snapshot
is replaced by the current ``main`` (``arena.integrations.rllib.SelfPlayCallback``), so the
opponents get stronger as ``main`` does without moving while it trains. The policy is
``MaskedPPOModule``: illegal actions get no probability, and the envs are built with
``illegal_action="raise"``, so a run that finishes never played one.

The run checkpoints every ``--checkpoint-every`` iterations and at the end, then restores the
checkpoint (the whole algorithm) and evaluates ``main`` against the built-in agents.

    python examples/rllib_self_play.py                                # draw, 2 players, 100 iterations
    python examples/rllib_self_play.py --variant mexican_train --players 4
    python examples/rllib_self_play.py --restore runs/rllib-draw      # continue a run
    python examples/rllib_self_play.py --iterations 2 --num-env-runners 0 --train-batch-size 256 \\
        --minibatch-size 64 --hidden 32 --eval-episodes 20            # smoke run, a minute

On a Ray cluster (see the README): ``ray start`` on every node, then submit this script with
``--address auto`` and more ``--num-env-runners`` / ``--num-learners``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import ray
import torch
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

import domino_env
from arena.integrations import win_rates
from arena.integrations.rllib import MAIN, RLModuleAgent, env_spec, register_envs, self_play_config


@dataclass
class Config:
    """Every knob of the run in one place."""

    variant: str = "draw"
    num_players: int = 2
    iterations: int = 100
    num_snapshots: int = 3  # frozen opponents
    snapshot_every: int = 5  # iterations between snapshot refreshes
    num_env_runners: int = 2  # sampling processes (a cluster spreads them over its nodes)
    num_envs_per_env_runner: int = 1
    num_learners: int = 0  # 0: train in the driver; n > 0: n data-parallel learner processes
    train_batch_size: int = 4000  # env steps per learner per iteration
    minibatch_size: int = 500
    num_epochs: int = 6
    learning_rate: float = 3e-4
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    seed: int = 0
    torch_threads: int = 1  # for the driver (local learner and env runner); small networks like one
    checkpoint_dir: str = "runs/rllib-{variant}"
    checkpoint_every: int = 10
    restore: str = ""  # a checkpoint to continue from
    address: str = ""  # Ray cluster address ("auto" on a cluster node); "" starts a local Ray
    eval_episodes: int = 1000  # per opponent, seats rotated
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "greedy"])


def build(config: Config) -> Algorithm:
    """A new algorithm from the config, or the one saved at ``config.restore``."""
    if config.restore:
        register_envs()  # the checkpoint names its env; the name must be registered here
        return Algorithm.from_checkpoint(Path(config.restore).resolve())  # RLlib takes absolute paths or URIs
    return self_play_config(
        config.variant,
        {"num_players": config.num_players, "illegal_action": "raise"},
        num_snapshots=config.num_snapshots,
        snapshot_every=config.snapshot_every,
        hidden=config.hidden,
        num_env_runners=config.num_env_runners,
        num_envs_per_env_runner=config.num_envs_per_env_runner,
        num_learners=config.num_learners,
        train_batch_size=config.train_batch_size,
        minibatch_size=config.minibatch_size,
        num_epochs=config.num_epochs,
        lr=config.learning_rate,
        seed=config.seed,
    ).build_algo()


def train(algo: Algorithm, config: Config, checkpoint: Path) -> list[dict[str, Any]]:
    """``config.iterations`` more iterations, checkpointing as configured and at the end."""
    history = []
    start = time.perf_counter()
    for _ in range(config.iterations):
        result = algo.train()
        runners = result[ENV_RUNNER_RESULTS]
        line = {
            "iteration": algo.iteration,
            "env_steps": int(runners.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0)),
            "episodes": runners.get("num_episodes", 0),
            # main's mean return against the snapshots: near 0 while they are as strong as it
            "main_return": runners.get("module_episode_returns_mean", {}).get(MAIN, float("nan")),
            "snapshot_refreshed": result.get("snapshot_refreshed", "-"),
        }
        history.append(line)
        print(f"{time.perf_counter() - start:6.0f}s " + " ".join(f"{k}={_fmt(v)}" for k, v in line.items()))
        if algo.iteration % config.checkpoint_every == 0:
            algo.save_to_path(checkpoint)
    algo.save_to_path(checkpoint)
    print(f"checkpoint: {checkpoint}")
    return history


def _fmt(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    config = parse_args(argv)
    print(f"config: {asdict(config)}")
    torch.set_num_threads(config.torch_threads)
    started_ray = not ray.is_initialized()
    if started_ray:  # joins the cluster at --address (or $RAY_ADDRESS, as under `ray job submit`)
        ray.init(address=config.address or None)
    try:
        algo = build(config)
        variant, options = env_spec(algo.config)  # a restored run says what it trains on
        checkpoint = Path(config.checkpoint_dir.format(variant=variant)).resolve()
        history = train(algo, config, checkpoint)
        iterations = algo.iteration
        algo.stop()

        # Restore: the whole algorithm (modules, optimizer state, iteration count, config) ...
        restored = Algorithm.from_checkpoint(checkpoint)
        if restored.iteration != iterations:
            raise RuntimeError(f"the checkpoint restored iteration {restored.iteration}, not {iterations}")
        restored.stop()
        # ... or only the trained module, without the algorithm: what a deployment loads.
        agent = RLModuleAgent.from_checkpoint(checkpoint, MAIN)
        rates = win_rates(agent, variant, config.eval_opponents, config.eval_episodes, **options)
        print(f"restored main (iteration {iterations}), win rate over {config.eval_episodes} games: {rates}")
    finally:
        if started_ray:
            ray.shutdown()
    return {"config": asdict(config), "history": history, "checkpoint": checkpoint, "win_rates": rates}


def parse_args(argv: list[str] | None) -> Config:
    defaults = Config()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default=defaults.variant, choices=domino_env.VARIANTS)
    parser.add_argument("--players", type=int, default=defaults.num_players, dest="num_players")
    parser.add_argument("--iterations", type=int, default=defaults.iterations)
    parser.add_argument("--num-snapshots", type=int, default=defaults.num_snapshots)
    parser.add_argument("--snapshot-every", type=int, default=defaults.snapshot_every)
    parser.add_argument("--num-env-runners", type=int, default=defaults.num_env_runners)
    parser.add_argument("--num-envs-per-env-runner", type=int, default=defaults.num_envs_per_env_runner)
    parser.add_argument("--num-learners", type=int, default=defaults.num_learners)
    parser.add_argument("--train-batch-size", type=int, default=defaults.train_batch_size)
    parser.add_argument("--minibatch-size", type=int, default=defaults.minibatch_size)
    parser.add_argument("--num-epochs", type=int, default=defaults.num_epochs)
    parser.add_argument("--lr", type=float, default=defaults.learning_rate, dest="learning_rate")
    parser.add_argument("--hidden", type=int, nargs="+", default=defaults.hidden)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--torch-threads", type=int, default=defaults.torch_threads)
    parser.add_argument("--checkpoint-dir", default=defaults.checkpoint_dir, help="{variant} is filled in")
    parser.add_argument("--checkpoint-every", type=int, default=defaults.checkpoint_every)
    parser.add_argument("--restore", default=defaults.restore, help="checkpoint to continue from")
    parser.add_argument("--address", default=defaults.address, help='Ray cluster address, e.g. "auto"')
    parser.add_argument("--eval-episodes", type=int, default=defaults.eval_episodes)
    return Config(**vars(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
