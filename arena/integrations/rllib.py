"""Ray RLlib (new API stack): every variant as a multi-agent env, a masking RLModule, self-play.

What RLlib needs from us, and why each piece is here:

- :func:`register_envs` registers ``dominoes/<variant>-v0`` for every variant as a multi-agent
  env: the PettingZoo AEC env inside RLlib's own ``PettingZooEnv`` wrapper. Options come from
  ``config.environment(env_config={...})``. Registration is by name, so env runners on other
  machines build their envs from the name alone.
- :class:`MaskedPPOModule` is a small actor-critic ``TorchRLModule`` that reads our dict
  observation (``{"observation", "action_mask"}``) and sets the logits of illegal actions to the
  lowest float, so no sampled, greedy or trained action is ever illegal. (RLlib ships a masking
  module only among its examples, which are not API.)
- :func:`self_play_config` is a PPO config for self-play: one trained module (``"main"``) takes
  one seat per game, chosen per episode, and frozen snapshots of it (``"snapshot_<k>"``) play
  the other seats. :class:`SelfPlayCallback` copies ``main`` into the oldest snapshot every few
  iterations, so the opponents improve with the learner but never move while it trains.
- :class:`RLModuleAgent` turns a trained module (from a running algorithm or a checkpoint) into
  an :class:`agents.Agent`, to play in tournaments, as opponents of the single-agent view, or
  against people.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import domino_env
from agents.base import Agent
from domino_env.integrations import require

require("ray.rllib", "rllib")

import ray  # noqa: E402  (after the check that names the extra)
import torch  # noqa: E402
from ray.rllib.algorithms.algorithm import Algorithm  # noqa: E402
from ray.rllib.algorithms.algorithm_config import AlgorithmConfig  # noqa: E402
from ray.rllib.algorithms.ppo import PPOConfig  # noqa: E402
from ray.rllib.callbacks.callbacks import RLlibCallback  # noqa: E402
from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_LEARNER_GROUP, COMPONENT_RL_MODULE  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI  # noqa: E402
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec  # noqa: E402
from ray.rllib.core.rl_module.torch import TorchRLModule  # noqa: E402
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv  # noqa: E402
from ray.tune.registry import register_env  # noqa: E402

MAIN = "main"
LOWEST_LOGIT = torch.finfo(torch.float32).min


def env_name(variant: str) -> str:
    """The name a variant is registered under (the same as in PettingZoo's registry)."""
    return f"dominoes/{variant}-v0"


def make_env(variant: str, config: dict[str, Any] | None = None) -> PettingZooEnv:
    """The RLlib multi-agent env of ``variant``; ``config`` holds the variant's options.

    ``illegal_action`` defaults to ``"penalty"`` here: RLlib's env pre-check steps random
    actions, which a domino game mostly refuses. A masked module never plays one, so the choice
    matters only to that check; pass ``illegal_action="raise"`` (and
    ``disable_env_checking=True``) to make any illegal action stop training."""
    options = {"illegal_action": "penalty", **dict(config or {})}
    return PettingZooEnv(domino_env.make(variant, **options))


def register_envs(variants: Iterable[str] = domino_env.VARIANTS) -> list[str]:
    """Register every variant with RLlib (``dominoes/<variant>-v0``); returns the names.

    Call it in the driver before building an algorithm; RLlib carries the registration to the
    env runners of a cluster."""
    names = []
    for variant in variants:
        register_env(env_name(variant), functools.partial(make_env, variant))
        names.append(env_name(variant))
    return names


def env_spec(config: AlgorithmConfig) -> tuple[str, dict[str, Any]]:
    """The variant and rule options an algorithm config (e.g. a restored one) trains on."""
    variants = {env_name(variant): variant for variant in domino_env.VARIANTS}
    if config.env not in variants:
        raise ValueError(f"{config.env!r} is not a domino env; registered names look like {env_name('draw')!r}")
    options = {k: v for k, v in dict(config.env_config).items() if k not in domino_env.ENV_OPTIONS}
    return variants[config.env], options


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """An actor-critic MLP for PPO whose policy never puts mass on an illegal action.

    Expects the observation space ``Dict(observation=Box, action_mask=Box)`` of every domino env.
    ``model_config``: ``{"hidden": [256, 256]}`` (the width of each hidden layer, shared by the
    policy and the value network, which do not share weights).
    """

    def setup(self) -> None:
        observation_size = int(np.prod(self.observation_space["observation"].shape))
        hidden = list((self.model_config or {}).get("hidden", [256, 256]))
        self.policy_net = _mlp(observation_size, hidden, int(self.action_space.n))
        if not self.inference_only:  # env runners only act: they need no critic
            self.value_net = _mlp(observation_size, hidden, 1)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        observation = batch[Columns.OBS]
        logits = self.policy_net(observation["observation"])
        legal = observation["action_mask"] != 0
        return {Columns.ACTION_DIST_INPUTS: logits.masked_fill(~legal, LOWEST_LOGIT)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.value_net(batch[Columns.OBS]["observation"]).squeeze(-1)

    def get_non_inference_attributes(self) -> list[str]:
        return ["value_net"]


def _mlp(inputs: int, hidden: Sequence[int], outputs: int) -> torch.nn.Sequential:
    layers: list[torch.nn.Module] = []
    for width in hidden:
        layers += [torch.nn.Linear(inputs, width), torch.nn.Tanh()]
        inputs = width
    layers.append(torch.nn.Linear(inputs, outputs))
    return torch.nn.Sequential(*layers)


def snapshot_id(index: int) -> str:
    return f"snapshot_{index}"


class SelfPlayMapping:
    """Agent -> module for self-play: per episode, one seat (drawn from the episode id) is played
    by ``main``; every other seat by one of the snapshots.

    A class rather than a closure so that it pickles to the env runners of a cluster and into
    checkpoints."""

    def __init__(self, num_players: int, num_snapshots: int) -> None:
        self.num_players = num_players
        self.num_snapshots = num_snapshots

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        draw = zlib.crc32(str(episode.id_).encode())
        seat = int(agent_id.rsplit("_", 1)[1])
        if seat == draw % self.num_players:
            return MAIN
        return snapshot_id(zlib.crc32(f"{episode.id_}/{agent_id}".encode()) % self.num_snapshots)


class SelfPlayCallback(RLlibCallback):
    """Every ``snapshot_every`` iterations, copy ``main``'s weights into the oldest snapshot
    (round robin) and send them to the env runners. The snapshot in use never changes within an
    iteration, and its choice depends only on the iteration count, so a restored checkpoint
    continues the same schedule."""

    def __init__(self, num_snapshots: int, snapshot_every: int) -> None:
        super().__init__()
        self.num_snapshots = num_snapshots
        self.snapshot_every = snapshot_every

    def on_train_result(self, *, algorithm: Algorithm, result: dict, **kwargs: Any) -> None:
        if algorithm.iteration % self.snapshot_every == 0:
            slot = (algorithm.iteration // self.snapshot_every - 1) % self.num_snapshots
            copy_main_to_snapshot(algorithm, snapshot_id(slot))
            result["snapshot_refreshed"] = slot


def copy_main_to_snapshot(algorithm: Algorithm, module_id: str) -> None:
    """Set ``module_id``'s weights to ``main``'s on the learners and on every env runner."""
    learners = algorithm.learner_group
    learners.set_weights({module_id: learners.get_weights(module_ids=[MAIN])[MAIN]})
    component = f"{COMPONENT_LEARNER}/{COMPONENT_RL_MODULE}/{module_id}"
    weights = learners.get_state(components=[component], inference_only=True)[COMPONENT_LEARNER][COMPONENT_RL_MODULE]
    # Not EnvRunnerGroup.sync_weights: env runners skip weights whose sequence number is not newer
    # than what they hold, and main's were just synced under the same number. A state without a
    # number is always applied.
    state = {COMPONENT_RL_MODULE: ray.put(weights)}
    algorithm.env_runner_group.foreach_env_runner(lambda runner: runner.set_state(state), local_env_runner=True)


def self_play_config(
    variant: str,
    env_options: dict[str, Any] | None = None,
    *,
    num_snapshots: int = 3,
    snapshot_every: int = 5,
    hidden: Sequence[int] = (256, 256),
    num_env_runners: int = 2,
    num_envs_per_env_runner: int = 1,
    num_learners: int = 0,
    train_batch_size: int = 4000,
    minibatch_size: int = 500,
    num_epochs: int = 6,
    lr: float = 3e-4,
    entropy_coeff: float = 0.01,
    seed: int | None = None,
    sample_timeout_s: float = 600.0,
) -> PPOConfig:
    """PPO self-play on ``variant``: ``main`` is trained, ``num_snapshots`` frozen copies of it
    play the other seats (see :class:`SelfPlayMapping` and :class:`SelfPlayCallback`).

    What scales it: ``num_env_runners`` (sampling processes, spread over the cluster's CPUs),
    ``num_envs_per_env_runner`` (games each runner steps together), ``num_learners`` (training
    processes; >1 shards each batch with data-parallel gradient updates, one GPU each if the
    cluster has them) and ``train_batch_size`` (per learner). ``num_env_runners=0`` samples in
    the driver process, the cheapest setting for tests. ``sample_timeout_s`` is how long an
    iteration waits for the runners' samples: RLlib's 60 s default drops them on a busy machine
    and the iteration then reports no episodes at all, so the default here waits ten minutes.
    """
    register_envs([variant])
    env_options = dict(env_options or {})
    num_players = domino_env.raw_env(variant, **env_options).game.num_players
    module_spec = RLModuleSpec(module_class=MaskedPPOModule, model_config={"hidden": list(hidden)})
    module_ids = [MAIN] + [snapshot_id(k) for k in range(num_snapshots)]
    config = (
        PPOConfig()
        .environment(
            env_name(variant),
            env_config=env_options,
            # The pre-check steps random actions: under "raise" they would be refused.
            disable_env_checking=env_options.get("illegal_action") == "raise",
        )
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=num_envs_per_env_runner,
            sample_timeout_s=sample_timeout_s,
        )
        .learners(num_learners=num_learners)
        .multi_agent(
            policies=set(module_ids),
            policy_mapping_fn=SelfPlayMapping(num_players, num_snapshots),
            policies_to_train=[MAIN],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(module_ids, module_spec)))
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=lr,
            gamma=1.0,  # a game is short and paid at its end
            entropy_coeff=entropy_coeff,
        )
        .callbacks(functools.partial(SelfPlayCallback, num_snapshots=num_snapshots, snapshot_every=snapshot_every))
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config


class RLModuleAgent(Agent):
    """Plays a trained RLModule (e.g. ``main``): the most probable legal action, or a sample
    from the masked policy with ``deterministic=False``."""

    name = "rllib"

    def __init__(self, module: RLModule, deterministic: bool = True, seed: int | None = None) -> None:
        self.module = module
        self.deterministic = deterministic
        self.generator = torch.Generator()
        if seed is not None:
            self.generator.manual_seed(seed)

    @classmethod
    def from_checkpoint(cls, checkpoint: str | Path, module_id: str = MAIN, **kwargs: Any) -> RLModuleAgent:
        """The agent of module ``module_id`` in an algorithm checkpoint (``algo.save_to_path``),
        loaded without Ray or the algorithm: only the module's weights are read."""
        components = (COMPONENT_LEARNER_GROUP, COMPONENT_LEARNER, COMPONENT_RL_MODULE, module_id)
        return cls(RLModule.from_checkpoint(Path(checkpoint).resolve().joinpath(*components)), **kwargs)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        batch = {
            Columns.OBS: {
                "observation": torch.as_tensor(observations, dtype=torch.float32),
                "action_mask": torch.as_tensor(masks),
            }
        }
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
            if self.deterministic:
                return logits.argmax(dim=1).numpy()
            probabilities = torch.softmax(logits, dim=1)  # exactly 0 on illegal actions
            return torch.multinomial(probabilities, 1, generator=self.generator).squeeze(1).numpy()
