"""TorchRL: the domino envs as TorchRL envs with legal-action masks, and policies back as agents.

TorchRL's own ``PettingZooWrapper(domino_env.make(...), use_mask=True)`` works on every variant
as it stands: each step one agent acts, ``("<group>", "mask")`` marks it, and the env's
``action_mask`` becomes ``("<group>", "action_mask")`` and the mask of the action spec, so
``env.rand_action`` and a ``MaskedCategorical`` policy only pick legal actions.

This module adds what a training script wants on top:

- :func:`make_env`: every seat in one group (``"agents"``), so one shared policy plays them all;
- :class:`DominoPettingZooWrapper`: TorchRL's wrapper assumes an AEC agent only leaves when the
  game ends. Hungarian elimination matches drop players mid-game (PettingZoo's "dead step"), which
  the stock wrapper turns into a zero action mask and then an error; this subclass steps the
  eliminated seats out itself and reports them as terminated for the rest of the game;
- :class:`TorchRLAgent`: a trained TorchRL actor as an :class:`agents.Agent`, for evaluation
  against the built-in agents (``agents.tournament.rotated_match``) or as an opponent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import domino_env
from agents.base import Agent
from domino_env.integrations import require

require("torchrl", "torchrl")

import torch  # noqa: E402  (after the check that names the extra)
from tensordict import TensorDict, TensorDictBase  # noqa: E402
from tensordict.nn import TensorDictModuleBase  # noqa: E402
from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import ExplorationType, MarlGroupMapType, set_exploration_type  # noqa: E402

GROUP = "agents"  # the group name TorchRL gives ALL_IN_ONE_GROUP
# Where the wrapper puts our dict observation: the mask moves out to (GROUP, "action_mask") and
# the vector stays under the dict's own key.
OBSERVATION = (GROUP, "observation", "observation")
ACTION_MASK = (GROUP, "action_mask")


class DominoPettingZooWrapper(PettingZooWrapper):
    """``PettingZooWrapper`` for AEC envs whose agents may leave before the game ends.

    After each step, agents the game has eliminated take their ``None`` step at once, so the
    agent TorchRL sees as acting always has legal actions. Their last reward (the hand that
    eliminated them) is reported on the step that eliminated them; afterwards they read as
    terminated with reward 0 until the game ends. For games where nobody leaves early this is
    exactly ``PettingZooWrapper``."""

    # TorchRL forwards unknown attributes to the PettingZoo env through a __getattr__ that lists
    # the module's attributes on every call; the wrapper reads these three several times a step.
    @property
    def agents(self) -> list[str]:
        return self._env.agents

    @property
    def agent_selection(self) -> str:
        return self._env.agent_selection

    @property
    def possible_agents(self) -> list[str]:
        return self._env.possible_agents

    def _step_aec(self, tensordict: TensorDictBase) -> tuple[dict, dict, dict, dict, dict]:
        _, rewards, terminations, truncations, infos = super()._step_aec(tensordict)
        # Copies: the dead steps below delete the leaving agents from the env's own dicts.
        rewards, terminations, truncations = dict(rewards), dict(terminations), dict(truncations)
        infos = {agent: dict(info) for agent, info in infos.items()}
        env = self._env
        while not all(env.terminations.values()) and env.terminations[env.agent_selection]:
            env.step(None)
        for agent in env.possible_agents:
            rewards.setdefault(agent, 0.0)
            terminations.setdefault(agent, True)
            truncations.setdefault(agent, False)
            infos.setdefault(agent, {})
        observations = {agent: env.observe(agent) for agent in env.possible_agents}
        return observations, rewards, terminations, truncations, infos


def make_env(
    variant: str, *, seed: int | None = None, group_map: Any = MarlGroupMapType.ALL_IN_ONE_GROUP, **options: Any
) -> DominoPettingZooWrapper:
    """The TorchRL env of ``variant`` (rule options as keywords). By default every seat is in the
    group ``"agents"``, so tensors read ``[..., num_players, ...]`` and one network serves all
    seats; pass ``group_map=None`` for one group per agent, TorchRL's AEC default."""
    return DominoPettingZooWrapper(
        domino_env.make(variant, **options), use_mask=True, group_map=group_map, categorical_actions=True, seed=seed
    )


class TorchRLAgent(Agent):
    """Plays a TorchRL actor that reads :data:`OBSERVATION` and :data:`ACTION_MASK` and writes
    ``(GROUP, "action")``, in its deterministic mode (the most probable legal action)
    or, with ``deterministic=False``, sampling."""

    name = "torchrl"

    def __init__(self, actor: TensorDictModuleBase, deterministic: bool = True) -> None:
        self.actor = actor
        self.exploration = ExplorationType.DETERMINISTIC if deterministic else ExplorationType.RANDOM

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        batch = TensorDict(batch_size=[len(observations)])
        batch.set(OBSERVATION, torch.as_tensor(observations, dtype=torch.float32))
        batch.set(ACTION_MASK, torch.as_tensor(masks != 0))
        with torch.no_grad(), set_exploration_type(self.exploration):
            return self.actor(batch).get((GROUP, "action")).numpy()
