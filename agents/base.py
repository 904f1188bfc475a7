"""The interface every agent shares, trained policies included.

Two ways to ask an agent for moves, both on every agent:

- ``act(observations[B, D], masks[B, A]) -> actions[B]``: what a policy sees through the
  environments (the batched engine, or the AEC environment through ``act_one``);
- ``act_states(game, state, games) -> actions``: the acting seats of some games of a batch of
  engine records, what the state-aware match runner calls. An ordinary policy answers from each
  seat's observation and mask; a :class:`StatefulAgent` (search agents, the oracle) reads the
  record itself. A fair one reads it only through determinization (``Game.determinize``), which
  keeps exactly what the seat may know.

So the same runner seats any mix of trained policies, baselines and search agents.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from domino_env.game import Game


class Agent:
    """A policy: ``act(observations[B, D], masks[B, A]) -> actions[B]``, legal under ``masks``.

    Subclasses implement ``act``; ``act_one`` adapts it to a single PettingZoo observation dict.
    ``name`` labels the agent in result tables.
    """

    name = "agent"

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def random_state(self) -> Any:
        """What the agent's own generator holds (None for an agent that draws nothing), so that a
        training checkpoint resumes its opponents exactly where they were."""
        return None

    def set_random_state(self, state: Any) -> None:
        """Restore what :meth:`random_state` returned."""

    def reseed(self, seed: int) -> None:
        """Restart the agent's own generator as if it were built with ``seed`` (nothing, for an
        agent that draws nothing), so that a block of games a worker plays
        (:func:`agents.tournament.rotated_match`) does not depend on the blocks before it."""

    def act_one(self, observation: dict[str, np.ndarray], state: np.ndarray | None = None) -> int:
        """The action for one PettingZoo observation (``{"observation", "action_mask"}``).
        ``state`` (``env.unwrapped.state_array``) is ignored here; stateful agents need it."""
        actions = self.act(observation["observation"][None], observation["action_mask"][None])
        return int(actions[0])

    def act_states(self, game: Game, state: np.ndarray, games: np.ndarray) -> np.ndarray:
        """Actions for the acting seats of ``games`` (indices into the batch ``state``), from
        each seat's own observation and legal mask, in one batched ``act``."""
        observations = np.empty((len(games), game.observation_size), np.float32)
        masks = np.empty((len(games), game.num_actions), np.int8)
        for row, g in enumerate(games):
            game.observe(state, int(g), game.current_seat(state, int(g)), observations[row])
            game.legal_mask(state, int(g), masks[row])
        return np.asarray(self.act(observations, masks), np.int64)


class StatefulAgent(Agent):
    """An agent that decides from the engine record of the game rather than an observation.

    Subclasses implement ``act_state(state, g)`` for the acting seat of game ``g``. A fair agent
    must read ``state`` only through ``self.game.determinize`` (or the helpers of
    :mod:`domino_env.search`); only the oracle reads it directly. On the AEC environment pass
    the record: ``agent.act_one(obs, state=env.unwrapped.state_array)``.
    """

    def __init__(self, game: Game) -> None:
        self.game = game

    def act_state(self, state: np.ndarray, g: int) -> int:
        raise NotImplementedError

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise TypeError(
            f"{self.name} decides from the game state, not from observations: use act_states, "
            "act_one(observation, state=env.unwrapped.state_array) or agents.tournament.rotated_match"
        )

    def act_one(self, observation: dict[str, np.ndarray], state: np.ndarray | None = None) -> int:
        if state is None:
            raise TypeError(f"{self.name} needs the game: act_one(observation, state=env.unwrapped.state_array)")
        return self.act_state(state, 0)

    def act_states(self, game: Game, state: np.ndarray, games: np.ndarray) -> np.ndarray:
        return np.array([self.act_state(state, int(g)) for g in games], np.int64)


def batch_actions(
    agent: Agent, game: Game, state: np.ndarray, games: np.ndarray, observations: np.ndarray, masks: np.ndarray
) -> np.ndarray:
    """``agent``'s actions in ``games`` of the engine records ``state``, whose acting seats see
    ``observations`` and may play ``masks`` (already computed by the batched engine): a
    :class:`StatefulAgent` reads the records, any other agent the observations, which
    ``act_states`` would compute again one game at a time."""
    if isinstance(agent, StatefulAgent):
        return agent.act_states(game, state, games)
    return agent.act(observations, masks)


@njit(cache=True)
def sample_legal(masks: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """For each row, the legal action at rank ``floor(u * n_legal)``: a uniform legal action
    from one uniform number, without building per-row index lists in Python."""
    actions = np.empty(masks.shape[0], np.int64)
    for g in range(masks.shape[0]):
        legal = 0
        for a in range(masks.shape[1]):
            legal += masks[g, a] != 0
        if legal == 0:
            raise ValueError("a row of the mask has no legal action")
        rank = min(int(uniforms[g] * legal), legal - 1)
        for a in range(masks.shape[1]):
            if masks[g, a] != 0:
                if rank == 0:
                    actions[g] = a
                    break
                rank -= 1
    return actions
