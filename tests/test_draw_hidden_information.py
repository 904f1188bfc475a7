"""No leak: what a seat observes is unchanged when the tiles it cannot see are shuffled.

The shuffle keeps everything public (hand sizes, the boneyard's size, the table, the history
behind the known voids) and moves only faces the observer cannot know: other hands and the
undrawn boneyard, in any order.
"""

from __future__ import annotations

import numpy as np
import pytest

import domino_env
from domino_env.games import draw_rules as rules
from tests.configs import CONFIGS
from tests.snapshots import mid_game_states

pytestmark = pytest.mark.core

NAMES = ["draw-2p", "draw-4p-partners", "draw-2p-voluntary-reserve-points", "draw-3p-match-difference", "block-4p"]


def shuffle_hidden(record: np.ndarray, cfg: rules.DrawConfig, observer: int, rng: np.random.Generator) -> np.ndarray:
    """A copy of ``record`` with the tiles ``observer`` cannot see dealt anew into the same places."""
    shuffled = record.copy()
    s = shuffled[0]
    loc = s["location"]
    top, size = int(s["boneyard_top"]), int(s["boneyard_size"])
    slots = [int(loc[t]) for t in range(cfg.num_tiles) if loc[t] >= 0 and loc[t] != observer]
    slots += [rules.IN_BONEYARD] * (size - top)
    hidden = [t for t in range(cfg.num_tiles) if (loc[t] >= 0 and loc[t] != observer) or loc[t] == rules.IN_BONEYARD]
    assert len(hidden) == len(slots)
    hidden = list(rng.permutation(hidden))
    undrawn = []
    for tile, slot in zip(hidden, slots, strict=True):
        loc[tile] = slot
        if slot == rules.IN_BONEYARD:
            undrawn.append(tile)
    s["boneyard"][top:size] = undrawn
    return shuffled


@pytest.mark.parametrize("name", NAMES)
def test_observation_ignores_hidden_tiles(name: str) -> None:
    variant, options = CONFIGS[name]
    game = domino_env.make_game(variant, **options)
    rng = np.random.default_rng(0)
    changed = 0
    for record in mid_game_states(variant, options):
        for observer in range(game.num_players):
            obs, mask = game.view(record, 0, observer)
            for _ in range(3):
                other = shuffle_hidden(record, game.config, observer, rng)
                changed += not np.array_equal(other["location"], record["location"])
                other_obs, other_mask = game.view(other, 0, observer)
                assert np.array_equal(obs, other_obs)
                assert np.array_equal(mask, other_mask)
    assert changed > 1000, "the shuffles must actually move hidden tiles"


def test_own_hand_is_visible() -> None:
    """Control: moving a tile the observer holds does change its observation."""
    variant, options = CONFIGS["draw-2p"]
    game = domino_env.make_game(variant, **options)
    record = mid_game_states(variant, options, count=5)[0]
    loc = record[0]["location"]
    mine = int(np.flatnonzero(loc[: game.config.num_tiles] == 0)[0])
    theirs = int(np.flatnonzero(loc[: game.config.num_tiles] == 1)[0])
    swapped = record.copy()
    swapped[0]["location"][mine], swapped[0]["location"][theirs] = 1, 0
    assert not np.array_equal(game.view(record, 0, 0)[0], game.view(swapped, 0, 0)[0])
