"""``info["pips_left"]`` means the same in every variant; ``info["hand_points"]`` is what the hand
added to each match total (points won in Draw and Block, penalty pips elsewhere)."""

from __future__ import annotations

import numpy as np
import pytest

import domino_env
from domino_env.tiles import TILE_VALUE

pytestmark = pytest.mark.core


def finished_hand(variant: str, seed: int, **options) -> tuple[domino_env.DominoEnv, dict]:
    """An environment whose single hand has just ended, and every agent's info then."""
    env = domino_env.raw_env(variant, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not any(env.terminations.values()):
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(rng.choice(legal)))
    return env, dict(env.infos)


def pips_in_hands(env: domino_env.DominoEnv, blank_double: int = 0) -> list[int]:
    location = env.state_array[0]["location"]
    tiles = range(env.game.action_tiles.max() + 1)
    return [
        sum(int(TILE_VALUE[t]) or blank_double for t in tiles if location[t] == seat) for seat in range(env.num_agents)
    ]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("variant", "options"), [("draw", {"num_players": 3}), ("block", {"num_players": 2})])
def test_draw_and_block_pay_the_winner_the_pips_left_to_the_others(variant: str, options: dict, seed: int) -> None:
    env, infos = finished_hand(variant, seed, **options)
    pips = pips_in_hands(env)
    assert [infos[agent]["pips_left"] for agent in env.possible_agents] == pips
    points = [infos[agent]["hand_points"] for agent in env.possible_agents]
    for seat, scored in enumerate(points):
        won = env.rewards[env.possible_agents[seat]] > 0
        assert scored == (sum(pips) - pips[seat] if won else 0)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    ("variant", "options", "blank_double"),
    [("hungarian", {"num_players": 3}, 0), ("mexican_train", {"num_players": 3, "double_blank_value": 50}, 50)],
)
def test_penalty_variants_charge_each_seat_its_pips_left(
    variant: str, options: dict, blank_double: int, seed: int
) -> None:
    env, infos = finished_hand(variant, seed, **options)
    pips = pips_in_hands(env, blank_double)
    assert [infos[agent]["pips_left"] for agent in env.possible_agents] == pips
    assert [infos[agent]["hand_points"] for agent in env.possible_agents] == pips
