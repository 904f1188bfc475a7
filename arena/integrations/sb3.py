"""Stable-Baselines3 / sb3-contrib: a trained ``MaskablePPO`` as an :class:`agents.Agent`.

Training needs nothing from here: ``MaskablePPO("MlpPolicy", domino_env.make_single_agent(...))``
works directly, because the single-agent view exposes ``action_masks()``. What this module adds
is the way back: a saved model becomes an agent that can sit at any seat of a multi-agent game,
of a tournament, or play the opponents of another single-agent view (self-play from checkpoints).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.base import Agent
from domino_env.integrations import require

sb3_contrib = require("sb3_contrib", "sb3")


class MaskablePPOAgent(Agent):
    """Plays a ``MaskablePPO`` policy, masked to the legal actions of each observation.

    ``deterministic=True`` takes the most probable legal action, ``False`` samples one.
    """

    name = "maskable_ppo"

    def __init__(self, model: sb3_contrib.MaskablePPO, deterministic: bool = True) -> None:
        self.model = model
        self.deterministic = deterministic

    @classmethod
    def load(cls, path: str | Path, deterministic: bool = True) -> MaskablePPOAgent:
        """The agent of a model saved with ``model.save(path)``."""
        return cls(sb3_contrib.MaskablePPO.load(str(path), device="cpu"), deterministic)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions, _ = self.model.predict(observations, deterministic=self.deterministic, action_masks=masks != 0)
        return np.asarray(actions, np.int64).reshape(len(observations))
