"""Draw and Block on the tiny research sets, double-two (6 tiles) and double-three (10 tiles).

They exist so that exact methods (CFR, exploitability) can solve whole games, which only means
something if they are the same game as the full ones: these tests play hand-built tiny deals by
the rules of RULES.md sections 1 and 2 (the lead, drawing, the domino, a blocked hand's scoring)
and check that the compiled rules size everything by the set in play.
"""

from __future__ import annotations

import numpy as np
import pytest

import domino_env
from domino_env.games.draw import MAX_PLAYERS_FOR_SET, default_hand_size
from domino_env.tiles import SET_SIZES, SMALL_SET_SIZES, num_tiles, tile_faces, tile_index, total_pips
from tests.scripted import legal, play, to_act

pytestmark = pytest.mark.core


def tiles(text: str) -> list[list[int]]:
    """``"2-2 1-2"`` -> ``[[2, 2], [1, 2]]``."""
    return [[int(face) for face in tile.split("-")] for tile in text.split()]


def start(variant: str, hands: list[str], rest: str = "", **options):
    """A raw environment reset to ``hands``; ``rest`` is the boneyard (Draw, drawn in that order)
    or the tiles set aside (Block), every undealt tile listed."""
    env = domino_env.raw_env(variant, **options)
    deal = {"hands": [tiles(hand) for hand in hands], "boneyard": tiles(rest)}
    env.reset(seed=0, options={"deal": deal})
    return env


def rewards(env) -> list[float]:
    return [env.rewards[agent] for agent in env.possible_agents]


def hand_points(env) -> list[int]:
    return env.game.hand_points(env.state_array, 0)


# ---------------------------------------------------------------------------------------------
# Sizes


@pytest.mark.parametrize("set_size", SMALL_SET_SIZES)
@pytest.mark.parametrize("variant", ["draw", "block"])
def test_spaces_are_sized_by_the_tiny_set(variant: str, set_size: int) -> None:
    tiles_in_set = num_tiles(set_size)
    game = domino_env.make_game(variant, set_size=set_size, hand_size=2)
    assert game.num_tiles == tiles_in_set
    assert game.num_actions == 2 * tiles_in_set + 2  # a play per tile and end, then draw and pass
    numbers = set_size + 1
    assert game.observation_size == 2 * tiles_in_set + 2 * numbers + 2 + 1 + numbers + 2 + 2
    assert game.config.points_scale == total_pips(set_size)
    assert game.action_name(2 * tiles_in_set - 1) == f"play {set_size}-{set_size} on right"


def test_default_hand_sizes() -> None:
    """The tiny sets deal about as many tiles as are left over; the rules' table is unchanged."""
    assert SET_SIZES == (2, 3, 6, 9, 12)
    assert default_hand_size(2, 2) == 2 and default_hand_size(3, 2) == 1
    assert [default_hand_size(p, 3) for p in (2, 3, 4)] == [3, 2, 2]
    assert [default_hand_size(p, 6) for p in (2, 3, 4, 5)] == [7, 7, 6, 5]
    assert [default_hand_size(p, 9) for p in (2, 6, 7, 9)] == [7, 7, 5, 5]
    assert default_hand_size(10, 12) == 7
    assert domino_env.make_game("draw", set_size=2).config.hand_size == 2
    assert domino_env.make_game("draw").config.hand_size == 7
    assert domino_env.make_game("block").config.hand_size == 7


def test_tiny_sets_refuse_what_does_not_fit() -> None:
    with pytest.raises(ValueError, match=r"2 hands of 7 tiles need 14 tiles; the double-2 set has 6"):
        domino_env.make_game("block", set_size=2)  # Block's default hand of 7
    with pytest.raises(ValueError, match=r"a double-2 set seats at most 3 players"):
        domino_env.make_game("draw", set_size=2, num_players=4, hand_size=1)
    with pytest.raises(ValueError, match=r"set_size must be one of \(2, 3, 6, 9, 12\), got 4"):
        domino_env.make_game("draw", set_size=4)
    with pytest.raises(ValueError, match=r"tile \[3, 3\] is not in the double-2 set"):
        start("draw", ["2-2 3-3", "0-0 0-1"], "0-2 1-1", set_size=2)
    assert MAX_PLAYERS_FOR_SET[3] == 4
    domino_env.make_game("block", set_size=3, num_players=4, hand_size=2, partnerships=True)


# ---------------------------------------------------------------------------------------------
# Hands played by the rules


def test_draw_domino_on_double_two() -> None:
    """Highest double leads; a seat that cannot play draws until it can, then must play."""
    env = start("draw", ["2-2 1-2", "0-0 0-1"], "0-2 1-1", set_size=2)
    assert to_act(env) == 0 and legal(env) == {"play 2-2 on left"}
    play(env, "play 2-2 on left", by=0)
    assert legal(env) == {"draw"}  # neither 0-0 nor 0-1 fits a 2
    play(env, "draw", by=1)  # draws 0-2, which fits
    assert legal(env) == {"play 0-2 on left", "play 0-2 on right"}
    play(env, "play 0-2 on right", by=1)
    assert legal(env) == {"play 1-2 on left"}
    play(env, "play 1-2 on left", by=0)  # seat 0's last tile: dominoes
    assert all(env.terminations.values())
    assert hand_points(env) == [1, 0]  # 0-0 and 0-1 left in the loser's hand
    assert rewards(env) == [1.0, -1.0]


def test_draw_on_double_two_until_a_pass() -> None:
    """Double-two, 2 tiles each: lone plays, draws that find a fit, then a pass once the
    boneyard is empty, and the winner scoring the pips the loser keeps."""
    env = start("draw", ["1-1 0-2", "0-0 0-1"], "1-2 2-2", set_size=2)
    play(env, "play 1-1 on left", by=0)  # the highest double dealt is 1-1
    play(env, "play 0-1 on left", by=1)  # ends 0|1
    play(env, "play 0-2 on left", by=0)  # seat 0 is out; seat 1 keeps the 0-0
    assert all(env.terminations.values())
    assert hand_points(env) == [0, 0]  # a domino wins even when it scores nothing
    assert rewards(env) == [1.0, -1.0]

    env = start("draw", ["2-2 1-1", "0-0 0-1"], "0-2 1-2", set_size=2)
    play(env, "play 2-2 on left", by=0)
    play(env, "draw", by=1)  # 0-2 fits
    play(env, "play 0-2 on left", by=1)  # ends 0|2
    assert legal(env) == {"draw"}
    play(env, "draw", by=0)  # 1-2 fits the 2
    assert legal(env) == {"play 1-2 on right"}
    play(env, "play 1-2 on right", by=0)  # ends 0|1
    assert legal(env) == {"play 0-0 on left", "play 0-1 on left", "play 0-1 on right"}
    play(env, "play 0-1 on right", by=1)  # ends 0|0
    assert legal(env) == {"pass"}  # 1-1 fits no 0 and the boneyard is empty
    play(env, "pass", by=0)
    play(env, "play 0-0 on left", by=1)  # dominoes; seat 0 keeps the 1-1
    assert hand_points(env) == [0, 2]
    assert rewards(env) == [-1.0, 1.0]


@pytest.mark.parametrize(("block_scoring", "points"), [("opponents", 7), ("difference", 5)])
def test_block_blocked_hand_on_double_two(block_scoring: str, points: int) -> None:
    """Seat 0 leads 0-0 and nobody holds another 0: blocked at once, the lower hand wins."""
    env = start("block", ["0-0 1-1", "2-2 1-2"], "0-1 0-2", set_size=2, hand_size=2, block_scoring=block_scoring)
    assert legal(env) == {"play 0-0 on left", "play 1-1 on left"}  # lead="any": any tile
    play(env, "play 0-0 on left", by=0)
    assert all(env.terminations.values())  # 1-1 (2 pips) against 2-2 and 1-2 (7 pips)
    assert hand_points(env) == [points, 0]
    assert rewards(env) == [1.0, -1.0]


def test_block_on_double_three_domino_and_tied_block() -> None:
    env = start("block", ["0-0 0-3", "1-1 1-2"], "0-1 0-2 2-2 1-3 2-3 3-3", set_size=3, hand_size=2)
    play(env, "play 0-3 on left", by=0)  # ends 0|3, and seat 1 holds neither
    assert legal(env) == {"pass"}
    play(env, "pass", by=1)
    play(env, "play 0-0 on left", by=0)  # seat 0 is out
    assert hand_points(env) == [5, 0]  # 1-1 and 1-2
    assert rewards(env) == [1.0, -1.0]

    env = start("block", ["3-3 1-2", "0-1 1-1"], "0-0 0-2 0-3 1-3 2-2 2-3", set_size=3, hand_size=2)
    play(env, "play 3-3 on left", by=0)  # nobody holds a 3: blocked, 3 pips against 3
    assert all(env.terminations.values())
    assert hand_points(env) == [0, 0]  # tied for lowest: nobody scores
    assert rewards(env) == [0.0, 0.0]


def test_partnership_block_on_double_three() -> None:
    env = start(
        "block", ["3-3 0-0", "1-1 0-1", "2-3 2-2", "0-3 1-2"], "0-2 1-3", set_size=3, num_players=4, hand_size=2
    )
    assert env.game.partnerships  # Block's default with 4 players
    play(env, "play 3-3 on left", by=0)
    assert legal(env) == {"pass"}
    play(env, "pass", by=1)
    play(env, "play 2-3 on left", by=2)  # ends 2|3
    play(env, "play 1-2 on left", by=3)  # ends 1|3
    play(env, "pass", by=0)
    play(env, "play 0-1 on left", by=1)  # ends 0|3
    play(env, "pass", by=2)
    play(env, "play 0-3 on right", by=3)  # seat 3 out: seats 1 and 3 win
    assert all(env.terminations.values())
    assert hand_points(env) == [0, 4, 0, 4]  # the losers keep 0-0 and 2-2
    assert rewards(env) == [-0.5, 0.5, -0.5, 0.5]


# ---------------------------------------------------------------------------------------------
# The lead


def test_highest_double_needs_a_double_dealt() -> None:
    """With one tile each, a deal may hold no double: as a given deal it is refused, and from a
    seed it is thrown in and redealt (RULES.md), so every dealt game leads a double."""
    with pytest.raises(ValueError, match=r"nobody holds a double"):
        start("draw", ["0-1", "1-2"], "0-0 0-2 1-1 2-2", set_size=2, hand_size=1)
    env = start("draw", ["0-1", "1-1"], "0-0 0-2 1-2 2-2", set_size=2, hand_size=1)
    assert to_act(env) == 1 and legal(env) == {"play 1-1 on left"}
    env = domino_env.raw_env("draw", set_size=2, hand_size=1)
    redealt = 0
    for seed in range(60):
        env.reset(seed=seed)
        (action,) = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        a, b = tile_faces(int(action) // 2)
        assert a == b
        redealt += int(env.state_array[0]["redeals"]) > 0
    assert redealt > 0  # 3 deals in 15 hold no double


def test_heaviest_tile_and_any_leads_on_double_two() -> None:
    env = start("draw", ["0-1", "1-2"], "0-0 0-2 1-1 2-2", set_size=2, hand_size=1, lead="heaviest_tile")
    assert to_act(env) == 1 and legal(env) == {"play 1-2 on left"}
    env = start("block", ["0-1", "1-2"], "0-0 0-2 1-1 2-2", set_size=2, hand_size=1, leader=1)
    assert to_act(env) == 1 and legal(env) == {"play 1-2 on left"}


# ---------------------------------------------------------------------------------------------
# Random games


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("draw", {"set_size": 2}),
        ("draw", {"set_size": 2, "hand_size": 1}),
        ("draw", {"set_size": 3, "num_players": 3}),
        ("draw", {"set_size": 3, "reserve": 2, "voluntary_draw": True}),
        ("block", {"set_size": 2, "hand_size": 2}),
        ("block", {"set_size": 3, "hand_size": 3, "lead": "highest_double"}),
        ("block", {"set_size": 3, "num_players": 4, "hand_size": 2}),
    ],
)
def test_random_tiny_games_keep_every_tile(variant: str, options: dict) -> None:
    """Random legal play ends every game, with each tile in exactly one place throughout and the
    rewards zero-sum."""
    env = domino_env.raw_env(variant, **options)
    game = env.game
    rng = np.random.default_rng(0)
    for seed in range(40):
        env.reset(seed=seed)
        total = np.zeros(game.num_players)
        for _ in range(200):
            if all(env.terminations.values()):
                break
            state = env.state_array[0]
            location = state["location"][: game.num_tiles]
            assert sorted(location[location >= 0].tolist()) == sorted(
                seat for seat in range(game.num_players) for _ in range(int(state["hand_count"][seat]))
            )
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
            total += rewards(env)
        assert all(env.terminations.values())
        assert abs(total.sum()) < 1e-9
        assert tile_index(options["set_size"], options["set_size"]) == game.num_tiles - 1
