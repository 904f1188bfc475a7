"""Records of games caught at many different moments, for the no-leak and determinization tests."""

from __future__ import annotations

import numpy as np

import domino_env
from agents import sample_legal

# Random-play steps within which each variant's games are caught: about one hand's length.
HORIZON = {"draw": 40, "block": 40, "hungarian": 60, "mexican_train": 120}


def mid_game_states(variant: str, options: dict, count: int = 300, seed: int = 3) -> list[np.ndarray]:
    """``count`` records (batches of one) of games played at random, each copied at a step drawn
    uniformly within the variant's ``HORIZON``."""
    steps = HORIZON[variant]
    batch = domino_env.make_batched(variant, count, **options)
    rng = np.random.default_rng(seed)
    _, mask, _ = batch.reset(seed=seed)
    stop_after = rng.integers(0, steps, count)
    snapshots: list[np.ndarray] = [None] * count  # type: ignore[list-item]
    for step in range(steps):
        for g in np.flatnonzero(stop_after == step):
            snapshots[g] = batch.state[g : g + 1].copy()
        _, mask, _, _, _ = batch.step(sample_legal(mask, rng.random(count)))
    return snapshots
