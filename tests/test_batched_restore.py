"""A batched engine restored from saved games plays on exactly as the one that saved them."""

from __future__ import annotations

import numpy as np
import pytest

import domino_env
from agents import sample_legal

pytestmark = pytest.mark.core


def test_restored_games_continue_as_the_saved_ones_and_check_actions_against_the_saved_masks() -> None:
    rng = np.random.default_rng(3)
    played = domino_env.make_batched("draw", 16, num_players=2)
    obs, mask, seat = played.reset(seed=4)
    for _ in range(10):
        obs, mask, seat, _, _ = played.step(sample_legal(mask, rng.random(16)))
    restored = domino_env.make_batched("draw", 16, num_players=2)
    restored.reset(seed=99)  # other games, other masks: restore must replace both
    restored.restore(played.state.copy(), mask)
    illegal = np.argmin(mask, axis=1)  # an action the saved masks forbid (every game has one)
    with pytest.raises(ValueError, match="is not legal"):
        restored.step(illegal)
    for _ in range(20):
        actions = sample_legal(mask, rng.random(16))
        obs, mask, seat, rewards, done = played.step(actions)
        outputs = restored.step(actions)
        for a, b in zip((obs, mask, seat, rewards, done), outputs, strict=True):
            assert a.tobytes() == b.tobytes()


def test_restore_refuses_games_of_another_shape() -> None:
    batch = domino_env.make_batched("draw", 8, num_players=2)
    _, mask, _ = batch.reset(seed=1)
    with pytest.raises(ValueError, match="restore needs a state of shape"):
        batch.restore(batch.state[:4].copy(), mask[:4])
