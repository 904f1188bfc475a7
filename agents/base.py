"""The interface every agent shares, trained policies included."""

from __future__ import annotations

import numpy as np
from numba import njit


class Agent:
    """A policy: ``act(observations[B, D], masks[B, A]) -> actions[B]``, legal under ``masks``.

    Subclasses implement ``act``; ``act_one`` adapts it to a single PettingZoo observation dict.
    ``name`` labels the agent in result tables.
    """

    name = "agent"

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def act_one(self, observation: dict[str, np.ndarray]) -> int:
        """The action for one PettingZoo observation (``{"observation", "action_mask"}``)."""
        actions = self.act(observation["observation"][None], observation["action_mask"][None])
        return int(actions[0])


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
