"""Invariants over at least 10,000 random games per configuration, on the batched engine.

The checks restate the rules independently of the engine (plain numpy over the state records):
every tile in exactly one place, the mask equal to the legal set, every game ending, rewards
summing to zero, and each finished hand scored as RULES.md says.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import domino_env
from agents import sample_legal
from domino_env.games import draw_rules as rules
from domino_env.tiles import TILE_HIGH, TILE_LOW, TILE_VALUE
from tests.configs import CONFIGS
from tests.invariants import play_checked

pytestmark = pytest.mark.core

GAMES = 10_000
BATCH = 1_000
DRAW_CONFIGS = [name for name, (variant, _) in CONFIGS.items() if variant in ("draw", "block")]


def check_tiles_accounted(state: np.ndarray, cfg: rules.DrawConfig) -> None:
    """Each tile is in exactly one hand, the boneyard or on the table, and the counters agree."""
    t = cfg.num_tiles
    loc = state["location"][:, :t]
    for seat in range(cfg.num_players):
        assert np.array_equal((loc == seat).sum(1), state["hand_count"][:, seat])
    assert np.array_equal((loc == rules.ON_TABLE).sum(1), state["tiles_on_table"])
    left = state["boneyard_size"] - state["boneyard_top"]
    assert np.array_equal((loc == rules.IN_BONEYARD).sum(1), left)
    assert ((loc >= 0) | (loc == rules.ON_TABLE) | (loc == rules.IN_BONEYARD)).all()
    # The undrawn part of the boneyard lists exactly the tiles located there, each once.
    positions = np.arange(state["boneyard"].shape[1])
    undrawn = (positions >= state["boneyard_top"][:, None]) & (positions < state["boneyard_size"][:, None])
    listed = np.where(undrawn, state["boneyard"].astype(np.int64), -1)
    where = np.take_along_axis(loc, np.maximum(listed, 0), axis=1)
    assert (where[undrawn] == rules.IN_BONEYARD).all()
    ordered = np.sort(np.where(undrawn, listed, 1000 + positions), axis=1)
    assert (np.diff(ordered, axis=1) != 0).all()


def reference_mask(state: np.ndarray, cfg: rules.DrawConfig) -> np.ndarray:
    """The legal actions of the acting seat, restated from RULES.md section 1."""
    t = cfg.num_tiles
    batch = state.shape[0]
    low, high = TILE_LOW[:t][None, :], TILE_HIGH[:t][None, :]
    loc = state["location"][:, :t]
    mine = loc == state["current"][:, None]
    left, right = state["ends"][:, :1], state["ends"][:, 1:]
    mask = np.zeros((batch, 2 * t + 2), np.int8)
    leading = state["tiles_on_table"] == 0
    mask[:, 0 : 2 * t : 2] = mine & ((low == left) | (high == left)) & ~leading[:, None]
    mask[:, 1 : 2 * t : 2] = mine & ((low == right) | (high == right)) & ~leading[:, None]
    if cfg.lead == rules.LEAD_ANY:
        mask[:, 0 : 2 * t : 2] |= (mine & leading[:, None]).astype(np.int8)
    else:
        held = loc >= 0
        if cfg.lead == rules.LEAD_HIGHEST_DOUBLE:
            key = np.where(held & (low == high), low.astype(np.int64) + 1, 0)
        else:
            key = np.where(held, TILE_VALUE[:t] * 64 + (low == high) * 32 + high, 0)
        best = key.argmax(1)
        for g in np.flatnonzero(leading):
            assert state["current"][g] == loc[g, best[g]], "the holder of the lead tile must lead"
            mask[g, 2 * best[g]] = 1
    plays = mask[:, : 2 * t].any(1)
    drawable = np.maximum(state["boneyard_size"] - state["boneyard_top"] - cfg.reserve, 0) * cfg.allow_draw
    can_draw = (drawable > 0) & (~plays | bool(cfg.voluntary_draw)) & ~leading  # the lead is always a play
    mask[:, 2 * t] = can_draw
    mask[:, 2 * t + 1] = ~plays & ~can_draw
    return mask


def reference_outcome(before: np.ndarray, action: int, cfg: rules.DrawConfig) -> tuple[np.ndarray, np.ndarray]:
    """(hand points, winning seats) RULES.md gives when ``action`` ends the hand of ``before``."""
    players = cfg.num_players
    seat = int(before["current"])
    loc = before["location"][: cfg.num_tiles].copy()
    if action < 2 * cfg.num_tiles:
        loc[action // 2] = rules.ON_TABLE
    elif action == 2 * cfg.num_tiles:  # a draw that leaves the hand blocked
        loc[before["boneyard"][before["boneyard_top"]]] = seat
    pips = np.array([int(TILE_VALUE[: cfg.num_tiles][loc == p].sum()) for p in range(players)])
    side_of = [p % 2 if cfg.partnerships else p for p in range(players)]
    sides = sorted(set(side_of))
    side_pips = {side: sum(pips[p] for p in range(players) if side_of[p] == side) for side in sides}
    if not (loc == seat).any():
        winner = side_of[seat]
    else:
        lowest = min(side_pips.values())
        tied = [side for side in sides if side_pips[side] == lowest]
        if len(tied) > 1:
            return np.zeros(players, np.int64), np.zeros(players, bool)
        winner = tied[0]
    losers = sum(side_pips[side] for side in sides if side != winner)
    points = losers
    if (loc == seat).any() and cfg.block_scoring == 1:
        opponents = 1 if cfg.partnerships else players - 1
        points = losers - side_pips[winner] * opponents
    winners = np.array([side_of[p] == winner for p in range(players)])
    return np.where(winners, points, 0).astype(np.int64), winners


def reference_rewards(points: np.ndarray, winners: np.ndarray, cfg: rules.DrawConfig) -> np.ndarray:
    """RULES.md section 5: winners share +1 and losers -1, or points minus the mean, scaled."""
    if cfg.reward == 1:
        return (points - points.mean()) / cfg.points_scale
    if not winners.any():
        return np.zeros(len(points))
    return np.where(winners, 1.0 / winners.sum(), -1.0 / (~winners).sum())


def checked_steps(batch: domino_env.BatchedEnv, seed: int) -> Iterator[tuple[int, int]]:
    """Step ``batch`` with random legal actions for ever, asserting every invariant before and
    after each step; yields the episodes and the hands that ended on each step."""
    cfg = batch.game.config
    max_steps = 2 * cfg.num_tiles + cfg.num_tiles * cfg.num_players + cfg.num_players
    rng = np.random.default_rng(seed)
    _, mask, seat = batch.reset(seed=seed)
    steps_in_hand = np.zeros(batch.batch_size, np.int64)
    while True:
        check_tiles_accounted(batch.state, cfg)
        assert np.array_equal(mask, reference_mask(batch.state, cfg))
        assert np.array_equal(seat, batch.state["current"])
        assert (batch.state["redeals"] == 0).all() or cfg.lead == rules.LEAD_HIGHEST_DOUBLE
        before = batch.state.copy()
        actions = sample_legal(mask, rng.random(batch.batch_size))
        _, mask, seat, rewards, done = batch.step(actions)
        steps_in_hand += 1
        assert np.allclose(rewards.sum(1), 0.0, atol=1e-5)
        assert (np.abs(rewards) <= 1.0 + 1e-6).all()
        for g in np.flatnonzero(batch.hand_over):
            expected, winners = reference_outcome(before[g], int(actions[g]), cfg)
            assert np.array_equal(batch.hand_points[g], expected), (g, before[g], actions[g])
            assert np.allclose(rewards[g], reference_rewards(expected, winners, cfg), atol=1e-6)
        assert not (rewards[~batch.hand_over] != 0).any()
        steps_in_hand[batch.hand_over] = 0
        assert steps_in_hand.max() <= max_steps, "a hand did not end"
        if cfg.match:
            assert (batch.state["match_points"][~done] < cfg.target).all()
        yield int(done.sum()), int(batch.hand_over.sum())


@pytest.mark.parametrize("name", DRAW_CONFIGS)
def test_random_games_keep_the_invariants(name: str) -> None:
    variant, options = CONFIGS[name]
    finished, hands = play_checked(domino_env.make_batched(variant, BATCH, **options), seed=11, games=GAMES)
    assert hands >= finished
