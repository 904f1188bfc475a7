"""Train sb3-contrib's MaskablePPO on one seat of a domino game, then evaluate it.

The learner sees the single-agent view (``agents.make_single_agent``): its own observations,
its legal actions through ``action_masks()``, and built-in agents playing the other seats. The
learner's seat rotates per episode, so the policy learns to lead and to follow.

    python examples/sb3_maskable_ppo.py                       # draw, 2 players, 200k steps
    python examples/sb3_maskable_ppo.py --timesteps 4096 --eval-episodes 40   # a smoke run

Training and evaluation run with ``illegal_action="raise"``: an illegal action would stop the
script, so finishing is the proof that masking works.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env

import agents
import domino_env
from arena.integrations import win_rates as evaluate
from arena.integrations.sb3 import MaskablePPOAgent
from domino_env.single_agent import DominoSingleAgentEnv


@dataclass
class Config:
    """Every knob of the run in one place."""

    variant: str = "draw"
    num_players: int = 2
    opponent: str = "random"  # who plays the other seats during training
    timesteps: int = 200_000  # learner decisions (opponents' moves are not counted)
    num_envs: int = 4
    n_steps: int = 512  # per environment per update
    batch_size: int = 256
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 1.0  # episodes are short and paid at the end: no need to discount
    hidden: list[int] = field(default_factory=lambda: [128, 128])
    seed: int = 0
    torch_threads: int = 1  # small networks: one thread beats the cost of handing work between threads
    eval_episodes: int = 1000  # per opponent, seats rotated
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "greedy"])
    save: str = ""  # where to save the model ("" = do not save)


def make_env(config: Config, opponent: str) -> DominoSingleAgentEnv:
    return agents.make_single_agent(
        config.variant,
        opponents=opponent,
        learner_seat="rotate",
        illegal_action="raise",
        num_players=config.num_players,
    )


def train(config: Config) -> MaskablePPO:
    """MaskablePPO on ``num_envs`` copies of the single-agent view."""
    torch.set_num_threads(config.torch_threads)
    vec_env = make_vec_env(lambda: make_env(config, config.opponent), n_envs=config.num_envs, seed=config.seed)
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        learning_rate=config.learning_rate,
        gamma=config.gamma,
        policy_kwargs={"net_arch": config.hidden},
        seed=config.seed,
        device="cpu",
        verbose=0,
    )
    return model.learn(total_timesteps=config.timesteps)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    config = parse_args(argv)
    print(f"config: {asdict(config)}")
    start = time.perf_counter()
    model = train(config)
    print(f"trained {config.timesteps} learner steps in {time.perf_counter() - start:.0f} s")
    if config.save:
        model.save(config.save)
        print(f"saved the model to {Path(config.save).with_suffix('.zip')}")
    agent = MaskablePPOAgent(model, deterministic=True)
    win_rates = evaluate(
        agent, config.variant, config.eval_opponents, config.eval_episodes, num_players=config.num_players
    )
    print(f"win rate over {config.eval_episodes} games, seats rotated: {win_rates}")
    return {"config": asdict(config), "win_rates": win_rates, "model": model}


def parse_args(argv: list[str] | None) -> Config:
    defaults = Config()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default=defaults.variant, choices=domino_env.VARIANTS)
    parser.add_argument("--players", type=int, default=defaults.num_players, dest="num_players")
    parser.add_argument("--opponent", default=defaults.opponent, help="built-in agent on the other seats")
    parser.add_argument("--timesteps", type=int, default=defaults.timesteps)
    parser.add_argument("--num-envs", type=int, default=defaults.num_envs)
    parser.add_argument("--n-steps", type=int, default=defaults.n_steps)
    parser.add_argument("--batch-size", type=int, default=defaults.batch_size)
    parser.add_argument("--n-epochs", type=int, default=defaults.n_epochs)
    parser.add_argument("--lr", type=float, default=defaults.learning_rate, dest="learning_rate")
    parser.add_argument("--hidden", type=int, nargs="+", default=defaults.hidden)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--torch-threads", type=int, default=defaults.torch_threads)
    parser.add_argument("--eval-episodes", type=int, default=defaults.eval_episodes)
    parser.add_argument("--save", default=defaults.save, help="path to save the trained model (.zip)")
    return Config(**vars(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
