"""The invariant checks of every variant, for the tests and for ``python -m benchmarks.fuzz``.

Each variant's checks restate its rules independently of the engine (plain numpy over the state
records: every tile in one place, masks equal to the legal set, scores and rewards as RULES.md
says) and live beside its tests, as a generator ``checked_steps(batch, seed)`` that plays random
legal steps for ever, asserting before and after each one, and yields the episodes and hands
that ended on it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator

import domino_env

CHECKS = {
    "draw": "tests.test_draw_invariants",
    "block": "tests.test_draw_invariants",
    "hungarian": "tests.test_hungarian_general",
    "mexican_train": "tests.test_mexican_train_general",
}


def checked_steps_of(variant: str) -> Callable[[domino_env.BatchedEnv, int], Iterator[tuple[int, int]]]:
    """The ``checked_steps`` generator of ``variant``'s checks."""
    return importlib.import_module(CHECKS[variant]).checked_steps


def play_checked(batch: domino_env.BatchedEnv, seed: int, games: int) -> tuple[int, int]:
    """Play checked random games on ``batch`` until ``games`` episodes have ended; returns the
    episodes and the hands that ended (an AssertionError names a broken invariant)."""
    finished = hands = 0
    for episodes, hands_ended in checked_steps_of(batch.game.name)(batch, seed):
        finished += episodes
        hands += hands_ended
        if finished >= games:
            break
    return finished, hands
