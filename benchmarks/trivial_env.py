"""The cheapest environment that is still a correct PettingZoo AEC environment.

It is the floor of the API: whatever an AEC environment costs per step beyond this is the
environment's own work. Two agents alternate, only action 0 is ever legal, and an episode ends
after a fixed number of moves with +1 for the last mover and -1 for the other. Its observation
has the shape of a real one (a float32 vector and an int8 mask, sized like Draw Dominoes for two
players by default) and is built fresh on every call, as a real environment's must be, so that
the comparison charges both sides for handing out an observation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

DRAW_2P_OBSERVATION_SIZE = 84
DRAW_2P_NUM_ACTIONS = 58
EPISODE_MOVES = 30


class TrivialEnv(AECEnv):
    """Two agents taking turns at a game with one legal move and nothing to compute."""

    metadata = {"render_modes": [], "name": "trivial_v0", "is_parallelizable": False}

    def __init__(
        self,
        observation_size: int = DRAW_2P_OBSERVATION_SIZE,
        num_actions: int = DRAW_2P_NUM_ACTIONS,
        episode_moves: int = EPISODE_MOVES,
    ) -> None:
        super().__init__()
        self.render_mode = None
        self.episode_moves = episode_moves
        self.possible_agents = ["player_0", "player_1"]
        self.agents: list[str] = []
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (observation_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
            }
        )
        action_space = spaces.Discrete(num_actions)
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: action_space for agent in self.possible_agents}
        self._observation = np.zeros(observation_size, np.float32)
        self._legal = np.zeros(num_actions, np.int8)
        self._legal[0] = 1
        self._moves = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode; there is nothing random, so ``seed`` changes nothing."""
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[0]
        self._moves = 0

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Fresh arrays, with the mask all zeros for an agent that is not to act."""
        acting = agent == self.agent_selection and not self.terminations[agent]
        mask = self._legal.copy() if acting else np.zeros_like(self._legal)
        return {"observation": self._observation.copy(), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action != 0:
            raise ValueError(f"{agent} chose illegal action {action}; the only legal action is 0")
        self._cumulative_rewards[agent] = 0.0
        self._moves += 1
        other = self.possible_agents[1] if agent == self.possible_agents[0] else self.possible_agents[0]
        if self._moves >= self.episode_moves:
            self.rewards = {agent: 1.0, other: -1.0}
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = other
        self._accumulate_rewards()

    def render(self) -> None:
        return None

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> AECEnv:
    """The trivial environment under the wrappers ``domino_env.make`` uses (order enforcing only)."""
    return wrappers.OrderEnforcingWrapper(TrivialEnv(**kwargs))
