"""Self-play PPO with TorchRL: one shared, masked policy plays every seat of a domino game.

Read top to bottom: the env (TorchRL's PettingZoo wrapper, every seat in the group "agents"),
the actor (an MLP whose logits go through ``MaskedCategorical`` with the env's action mask), the
critic, a collector of masked rollouts, GAE and the clipped PPO loss. Each step of the game only
one seat acts (``("agents", "mask")``); advantages are computed for every seat over time, then
the loss is taken on the acting seats' rows only, because the others' "actions" were never
played. Every few iterations the policy plays the built-in agents with seats rotated.

    python examples/torchrl_masked_ppo.py                       # draw, 2 players, 100 iterations
    python examples/torchrl_masked_ppo.py --variant block --players 4 --iterations 50
    python examples/torchrl_masked_ppo.py --iterations 2 --frames-per-batch 256 --eval-episodes 20   # smoke run

The env refuses illegal actions (``illegal_action="raise"``), so a run that finishes never
played one.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import torch
from tensordict import TensorDict
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss, ValueEstimators

import domino_env
from arena.integrations import win_rates
from arena.integrations.torchrl import ACTION_MASK, GROUP, OBSERVATION, TorchRLAgent, make_env


@dataclass
class Config:
    """Every knob of the run in one place."""

    variant: str = "draw"
    num_players: int = 2
    iterations: int = 100
    frames_per_batch: int = 4096  # env steps per iteration (one seat acts per step)
    epochs: int = 4
    minibatch_size: int = 512  # acting-seat rows per gradient step
    learning_rate: float = 3e-4
    clip_epsilon: float = 0.2
    entropy_coeff: float = 0.01
    gamma: float = 1.0  # a game is short and paid at its end
    gae_lambda: float = 0.95
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    seed: int = 0
    torch_threads: int = 1  # small networks: one thread beats the cost of handing work between threads
    eval_every: int = 10  # iterations between evaluations (and after the last one)
    eval_episodes: int = 1000  # per opponent, seats rotated
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "greedy"])


def mlp(inputs: int, hidden: list[int], outputs: int) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in hidden:
        layers += [nn.Linear(inputs, width), nn.Tanh()]
        inputs = width
    return nn.Sequential(*layers, nn.Linear(inputs, outputs))


def build(config: Config) -> tuple[Any, ProbabilisticActor, ValueOperator]:
    """The env, the masked actor and the critic; both networks act on each seat's own row."""
    env = make_env(config.variant, seed=config.seed, num_players=config.num_players, illegal_action="raise")
    observation_size = env.observation_spec[OBSERVATION].shape[-1]
    num_actions = env.full_action_spec[GROUP, "action"].n
    logits = TensorDictModule(
        mlp(observation_size, config.hidden, num_actions),
        in_keys=[OBSERVATION],
        out_keys=[(GROUP, "logits")],
    )
    actor = ProbabilisticActor(
        logits,
        in_keys={"logits": (GROUP, "logits"), "mask": ACTION_MASK},
        out_keys=[(GROUP, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )
    critic = ValueOperator(
        mlp(observation_size, config.hidden, 1), in_keys=[OBSERVATION], out_keys=[(GROUP, "state_value")]
    )
    return env, actor, critic


def acting_rows(batch: TensorDict) -> TensorDict:
    """The rows of the seats that acted, as a flat batch the loss can read (keys under GROUP)."""
    rows = batch.get(GROUP)[batch.get((GROUP, "mask"))]
    return TensorDict({GROUP: rows}, batch_size=rows.batch_size)


def train(config: Config) -> dict[str, Any]:
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)
    env, actor, critic = build(config)
    collector = Collector(
        env,
        actor,
        frames_per_batch=config.frames_per_batch,
        total_frames=config.frames_per_batch * config.iterations,
        auto_register_policy_transforms=False,  # a feed-forward policy needs no env transform
    )
    loss = ClipPPOLoss(actor, critic, clip_epsilon=config.clip_epsilon, entropy_coeff=config.entropy_coeff)
    loss.set_keys(
        reward=(GROUP, "reward"),
        action=(GROUP, "action"),
        sample_log_prob=(GROUP, "action_log_prob"),
        value=(GROUP, "state_value"),
        done=(GROUP, "done"),
        terminated=(GROUP, "terminated"),
        advantage=(GROUP, "advantage"),
        value_target=(GROUP, "value_target"),
    )
    loss.make_value_estimator(ValueEstimators.GAE, gamma=config.gamma, lmbda=config.gae_lambda)
    optimizer = torch.optim.Adam(loss.parameters(), lr=config.learning_rate)

    history: list[dict[str, float]] = []
    start = time.perf_counter()
    for iteration, batch in enumerate(collector, start=1):
        with torch.no_grad():  # GAE per seat over time, acting or not: values move as the others play
            loss.value_estimator(
                batch, params=loss.critic_network_params, target_params=loss.target_critic_network_params
            )
        turns = acting_rows(batch)
        for _ in range(config.epochs):
            for index in torch.randperm(turns.batch_size[0]).split(config.minibatch_size):
                terms = loss(turns[index])
                total = terms["loss_objective"] + terms["loss_critic"] + terms["loss_entropy"]
                optimizer.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
                optimizer.step()
        collector.update_policy_weights_()
        games = int(batch.get(("next", "done")).sum())
        line = {
            "iteration": iteration,
            "frames": iteration * config.frames_per_batch,
            "games_finished": games,
            "acting_rows": turns.batch_size[0],
            "entropy": terms["entropy"].item(),
            "loss_critic": terms["loss_critic"].item(),
        }
        if iteration % config.eval_every == 0 or iteration == config.iterations:
            rates = win_rates(
                TorchRLAgent(actor),
                config.variant,
                config.eval_opponents,
                config.eval_episodes,
                num_players=config.num_players,
            )
            line.update({f"win_rate_vs_{name}": rate for name, rate in rates.items()})
        history.append(line)
        print(f"{time.perf_counter() - start:6.0f}s " + " ".join(f"{k}={_fmt(v)}" for k, v in line.items()))
    collector.shutdown()
    return {"config": asdict(config), "history": history, "actor": actor}


def _fmt(value: float) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    config = parse_args(argv)
    print(f"config: {asdict(config)}")
    return train(config)


def parse_args(argv: list[str] | None) -> Config:
    defaults = Config()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default=defaults.variant, choices=domino_env.VARIANTS)
    parser.add_argument("--players", type=int, default=defaults.num_players, dest="num_players")
    parser.add_argument("--iterations", type=int, default=defaults.iterations)
    parser.add_argument("--frames-per-batch", type=int, default=defaults.frames_per_batch)
    parser.add_argument("--epochs", type=int, default=defaults.epochs)
    parser.add_argument("--minibatch-size", type=int, default=defaults.minibatch_size)
    parser.add_argument("--lr", type=float, default=defaults.learning_rate, dest="learning_rate")
    parser.add_argument("--entropy-coeff", type=float, default=defaults.entropy_coeff)
    parser.add_argument("--hidden", type=int, nargs="+", default=defaults.hidden)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--torch-threads", type=int, default=defaults.torch_threads)
    parser.add_argument("--eval-every", type=int, default=defaults.eval_every)
    parser.add_argument("--eval-episodes", type=int, default=defaults.eval_episodes)
    return Config(**vars(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
