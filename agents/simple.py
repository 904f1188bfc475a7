"""The two baseline agents: uniformly random legal moves, and greedy heaviest-tile play."""

from __future__ import annotations

import numpy as np

from agents.base import Agent, sample_legal
from domino_env.game import Game
from domino_env.tiles import TILE_VALUE


class RandomAgent(Agent):
    """Uniform over the legal actions; its own seeded generator makes runs repeatable."""

    name = "random"

    def __init__(self, game: Game | None = None, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return sample_legal(masks, self.rng.random(masks.shape[0]))

    def random_state(self) -> dict:
        return self.rng.bit_generator.state

    def set_random_state(self, state: dict) -> None:
        self.rng.bit_generator.state = state

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)


class GreedyAgent(Agent):
    """Plays the heaviest playable tile (ties: the lowest action index, so the first legal end);
    draws or passes only when no tile can be played. The classic beginner's strategy: shed pips
    so that a blocked or lost hand costs little."""

    name = "greedy"

    def __init__(self, game: Game, seed: int | None = None) -> None:
        tiles = game.action_tiles
        # Plays rank by pip value; non-plays rank below every play.
        self.preference = np.where(tiles >= 0, TILE_VALUE[np.maximum(tiles, 0)], -1).astype(np.float64)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        scores = np.where(masks != 0, self.preference[None, :], -np.inf)
        return np.argmax(scores, axis=1)
