"""The batched engine on several threads plays exactly the games it plays on one."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import domino_env
from agents import sample_legal

pytestmark = pytest.mark.core

THREADS = numba.config.NUMBA_NUM_THREADS


def play(variant: str, options: dict, num_threads: int, steps: int = 60) -> list[np.ndarray]:
    """Every output of ``steps`` random steps of 64 games seeded alike."""
    batch = domino_env.make_batched(variant, 64, num_threads=num_threads, **options)
    outputs = list(batch.reset(seed=5))
    mask = outputs[1]
    rng = np.random.default_rng(5)
    for _ in range(steps):
        obs, mask, seat, rewards, done = batch.step(sample_legal(mask, rng.random(64)))
        outputs += [obs, mask, seat, rewards, done, batch.hand_over.copy(), batch.hand_points.copy()]
    return [*outputs, batch.state.copy()]


@pytest.mark.skipif(THREADS < 2, reason="numba may use one thread only here (NUMBA_NUM_THREADS)")
@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("draw", {"num_players": 2}),
        ("block", {"num_players": 4}),
        ("hungarian", {"num_players": 3, "match": True}),
        ("mexican_train", {"num_players": 4}),
    ],
)
def test_the_same_seed_plays_the_same_games_on_any_number_of_threads(variant: str, options: dict) -> None:
    one, every = play(variant, options, 1), play(variant, options, THREADS)
    assert len(one) == len(every)
    for a, b in zip(one, every, strict=True):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("num_threads", [0, THREADS + 1, 1.5, True])
def test_a_thread_count_numba_cannot_use_is_refused(num_threads: object) -> None:
    with pytest.raises(ValueError, match=rf"num_threads must be an integer from 1 to {THREADS}"):
        domino_env.make_batched("draw", 8, num_threads=num_threads)


def test_the_default_is_every_core_numba_may_use() -> None:
    assert domino_env.make_batched("draw", 8).num_threads == THREADS


@pytest.mark.parametrize(("variant", "players"), [("draw", 2), ("hungarian", 3), ("mexican_train", 4)])
def test_the_serial_batch_step_plays_exactly_the_threaded_one(variant: str, players: int) -> None:
    game = domino_env.make_game(variant, num_players=players)
    states = [game.new_state(32), game.new_state(32)]
    rng = np.random.default_rng(2)
    outputs = [
        [
            np.zeros((32, game.observation_size), np.float32),
            np.zeros((32, game.num_actions), np.int8),
            np.zeros(32, np.int64),
            np.zeros((32, players), np.float32),
            np.zeros(32, np.bool_),
            np.zeros(32, np.bool_),
            np.zeros((32, players), np.int32),
        ]
        for _ in states
    ]
    for state, out in zip(states, outputs, strict=True):
        for g in range(32):
            game.seed(state, g, 9)
        game.batch_reset(state, out[0], out[1], out[2])
    for _ in range(80):
        actions = sample_legal(outputs[0][1], rng.random(32))
        game.batch_step(states[0], actions, *outputs[0])
        game.batch_step(states[1], actions, *outputs[1], threads=False)
        for a, b in zip(outputs[0], outputs[1], strict=True):
            assert a.tobytes() == b.tobytes()
    assert states[0].tobytes() == states[1].tobytes()
