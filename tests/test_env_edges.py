"""The environments' edges: deals with tiles that are not pairs of integers, seeds outside the
generator's 64 bits, reset options of the wrong shape, steps with no game to move, and rule
options outside their range. Each is refused with one line that names the problem, before any
state changes; what is right in another container (numpy integers and arrays) still works."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import domino_env
from domino_env.env import GameOverError
from domino_env.options import MAX_POINTS
from domino_env.single_agent import DominoSingleAgentEnv
from domino_env.tiles import num_tiles, tile_faces

pytestmark = pytest.mark.core

# variant -> (options, hand size, the key of the tiles outside the hands, how errors name it)
DEALS: dict[str, tuple[dict[str, Any], int, str | None, str | None]] = {
    "draw": ({}, 7, "boneyard", "the boneyard"),
    "block": ({}, 7, None, None),
    "hungarian": ({}, 12, "set_aside", "the tiles set aside"),
    "mexican_train": ({"num_players": 2, "hand_size": 5}, 5, "boneyard", "the boneyard"),
}


def started(variant: str) -> domino_env.DominoEnv:
    env = domino_env.raw_env(variant, **DEALS[variant][0])
    env.reset(seed=3)
    return env


def snapshot(env: domino_env.DominoEnv) -> tuple[bytes, str, list[str], dict]:
    return env.state_array.tobytes(), env.agent_selection, list(env.agents), dict(env.rewards)


def sequential_deal(variant: str) -> dict[str, list[list[int]]]:
    """A legal deal: the tiles in index order, a hand's worth per seat, the rest outside."""
    env = started(variant)
    _, size, rest_key, _ = DEALS[variant]
    tiles = [list(tile_faces(t)) for t in range(env.game.num_tiles)]
    players = env.game.num_players
    deal = {"hands": [tiles[seat * size : (seat + 1) * size] for seat in range(players)]}
    if rest_key is not None:
        deal[rest_key] = tiles[players * size :]
    return deal


def places(variant: str) -> list[tuple[str, str]]:
    """(how to find a list of tiles in the deal, how an error names it)."""
    _, _, rest_key, rest_name = DEALS[variant]
    return [("hands", "hand 1")] + ([(rest_key, rest_name)] if rest_key else [])


def tiles_at(deal: dict, key: str) -> list:
    return deal["hands"][1] if key == "hands" else deal[key]


def set_tiles_at(deal: dict, key: str, tiles: Any) -> None:
    if key == "hands":
        deal["hands"][1] = tiles
    else:
        deal[key] = tiles


# ---------------------------------------------------------------------------------- 1. tiles
@pytest.mark.parametrize("variant", domino_env.VARIANTS)
def test_the_sequential_deal_is_legal_and_numpy_integers_deal_it_alike(variant: str) -> None:
    deal = sequential_deal(variant)
    as_lists, as_numpy = started(variant), started(variant)
    as_lists.reset(seed=0, options={"deal": deal})
    numpy_deal = {
        "hands": [np.array(hand, np.uint8) for hand in deal["hands"][:-1]]  # an array per hand
        + [[[np.int64(a), np.int16(b)] for a, b in deal["hands"][-1]]],  # numpy scalars as faces
        **{key: np.array(value, np.int32) for key, value in deal.items() if key != "hands"},
    }
    as_numpy.reset(seed=0, options={"deal": numpy_deal})
    assert snapshot(as_numpy) == snapshot(as_lists)


BAD_FACES = {
    "a float with a fraction": lambda a: a + 0.5,
    "an integral float": float,
    "a numpy float": np.float64,
    "a numpy float32": np.float32,
    "a bool": lambda a: True,
    "a numpy bool": lambda a: np.True_,
    "a string": str,
}


@pytest.mark.parametrize("bad", BAD_FACES)
@pytest.mark.parametrize("variant", domino_env.VARIANTS)
def test_a_tile_face_that_is_not_an_integer_is_refused_naming_the_tile_and_its_place(variant: str, bad: str) -> None:
    env = started(variant)
    before = snapshot(env)
    for key, place in places(variant):
        deal = sequential_deal(variant)
        a, b = tiles_at(deal, key)[0]
        tiles_at(deal, key)[0] = [BAD_FACES[bad](a), b]
        with pytest.raises(ValueError, match=rf"^{place}: tile \[.*\] is not a pair of integers \[a, b\]"):
            env.reset(seed=5, options={"deal": deal})
        assert snapshot(env) == before


@pytest.mark.parametrize("variant", domino_env.VARIANTS)
def test_a_place_given_as_a_float_array_is_refused(variant: str) -> None:
    """``np.array(hand, float)`` reads back as floats: truncating them would deal other tiles
    whenever a face is not exactly integral."""
    env = started(variant)
    before = snapshot(env)
    for key, place in places(variant):
        deal = sequential_deal(variant)
        set_tiles_at(deal, key, np.array(tiles_at(deal, key), float) + 0.25)
        with pytest.raises(ValueError, match=rf"^{place}: tile \[[0-9.]+, [0-9.]+\] is not a pair of integers"):
            env.reset(seed=5, options={"deal": deal})
        assert snapshot(env) == before


@pytest.mark.parametrize("tile", ["１-2", "٣-4", "0-1-2", "-1-2", (1, 2, 3), {1, 2}, np.array([[0, 1]]), 5])
def test_a_tile_that_is_not_a_pair_or_a_plain_a_b_is_refused(tile: object) -> None:
    env = started("draw")
    before = snapshot(env)
    deal = sequential_deal("draw")
    deal["hands"][1][0] = tile
    with pytest.raises(ValueError, match=r"^hand 1: tile .* is not (of the form 'a-b'|a pair of numbers \[a, b\])"):
        env.reset(options={"deal": deal})
    assert snapshot(env) == before


def test_tiles_written_as_a_b_strings_still_deal() -> None:
    deal = sequential_deal("draw")
    as_text = {key: [[f"{a}-{b}" for a, b in hand] for hand in value] for key, value in deal.items() if key == "hands"}
    as_text["boneyard"] = [f" {a} - {b} " for a, b in deal["boneyard"]]
    env, twin = started("draw"), started("draw")
    env.reset(seed=0, options={"deal": deal})
    twin.reset(seed=0, options={"deal": as_text})
    assert snapshot(env) == snapshot(twin)


# ---------------------------------------------------------------------------------- 2. seeds
OUT_OF_RANGE_SEEDS = [-1, -(2**64), 2**64, 2**64 + 3, np.int64(-5)]
NOT_INTEGER_SEEDS = [True, np.True_, 1.0, math.nan, "3", [3], np.float64(2)]


@pytest.mark.parametrize("seed", OUT_OF_RANGE_SEEDS)
@pytest.mark.parametrize("variant", domino_env.VARIANTS)
def test_a_seed_outside_64_bits_is_refused_by_the_env_and_changes_nothing(variant: str, seed: int) -> None:
    """-1 and 2**64 - 1 used to play the same deals (the seed was taken modulo 2**64)."""
    env = started(variant)
    before = snapshot(env)
    with pytest.raises(ValueError, match=rf"^seed {int(seed)} is outside 0..2\*\*64-1"):
        env.reset(seed=seed)
    assert snapshot(env) == before


@pytest.mark.parametrize("seed", NOT_INTEGER_SEEDS)
def test_a_seed_that_is_not_an_integer_names_the_range(seed: object) -> None:
    env = started("draw")
    before = snapshot(env)
    with pytest.raises(TypeError, match=r"^a seed must be an integer, got .*; seeds are 0..2\*\*64-1"):
        env.reset(seed=seed)
    assert snapshot(env) == before


@pytest.mark.parametrize("seed", OUT_OF_RANGE_SEEDS)
def test_a_seed_outside_64_bits_is_refused_by_the_batch_and_changes_nothing(seed: int) -> None:
    batch = domino_env.make_batched("draw", 4, num_threads=1)
    batch.reset(seed=1)
    state = batch.state.tobytes()
    with pytest.raises(ValueError, match=r"is outside 0..2\*\*64-1"):
        batch.reset(seed=seed)
    assert batch.state.tobytes() == state


@pytest.mark.parametrize("variant", domino_env.VARIANTS)
def test_the_largest_seeds_play_and_agree_between_the_env_and_the_batch(variant: str) -> None:
    """The batch derives each game's stream from the seed: near 2**64 the sums wrap, as they must."""
    top = 2**64 - 1
    env = started(variant)
    env.reset(seed=top)
    twin = started(variant)
    twin.reset(seed=np.uint64(top))
    assert snapshot(env) == snapshot(twin)
    batch = domino_env.make_batched(variant, 3, num_threads=1, **DEALS[variant][0])
    batch.reset(seed=top)
    assert batch.state[0].tobytes() == env.state_array[0].tobytes()
    zero = started(variant)
    zero.reset(seed=0)
    assert snapshot(zero) != snapshot(env)


class FirstLegal:
    def act_one(self, observation: dict[str, np.ndarray], state: np.ndarray | None = None) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, True])
def test_the_single_agent_view_refuses_a_bad_seed_before_anything_changes(seed: object) -> None:
    env = DominoSingleAgentEnv("draw", opponents=FirstLegal(), learner_seat="rotate")
    env.reset(seed=4)
    before = (snapshot(env.aec_env), env.np_random.bit_generator.state, env._episode, env.learner_seat)
    with pytest.raises((TypeError, ValueError), match=r"0..2\*\*64-1"):
        env.reset(seed=seed)
    assert (snapshot(env.aec_env), env.np_random.bit_generator.state, env._episode, env.learner_seat) == before


def test_the_single_agent_view_plays_the_largest_seed() -> None:
    env = DominoSingleAgentEnv("draw", opponents=FirstLegal())
    obs, _ = env.reset(seed=2**64 - 1)
    again, _ = env.reset(seed=np.uint64(2**64 - 1))
    assert np.array_equal(obs, again)


# ---------------------------------------------------------------------------------- 3. reset options
@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ([("deal", None)], TypeError, r"^reset options must be None or a dict .*, got list"),
        ("deal", TypeError, r"^reset options must be None or a dict .*, got str 'deal'"),
        (5, TypeError, r"^reset options must be None or a dict .*, got int 5"),
        ({"Deal": {}}, ValueError, r"^reset has no option 'Deal': did you mean 'deal'\? Its options are \['deal'\]"),
        ({"deals": {}}, ValueError, r"^reset has no option 'deals': did you mean 'deal'"),
        ({"deal": None, " DEAL ": {}}, ValueError, r"^reset has no option ' DEAL ': did you mean 'deal'"),
    ],
)
@pytest.mark.parametrize("variant", domino_env.VARIANTS)
def test_reset_options_of_the_wrong_kind_are_refused_and_change_nothing(variant, options, error, message) -> None:
    env = started(variant)
    before = snapshot(env)
    with pytest.raises(error, match=message):
        env.reset(seed=9, options=options)
    assert snapshot(env) == before


def test_empty_reset_options_and_other_keys_are_no_options() -> None:
    """PettingZoo's ``api_test`` resets with ``options={"options": 1}``: keys that are no
    misspelt ``deal`` belong to someone else and are let through."""
    plain, empty, no_deal, other = (started("draw") for _ in range(4))
    plain.reset(seed=2)
    empty.reset(seed=2, options={})
    no_deal.reset(seed=2, options={"deal": None})
    other.reset(seed=2, options={"options": 1, 3: "x"})
    assert snapshot(plain) == snapshot(empty) == snapshot(no_deal) == snapshot(other)


# ---------------------------------------------------------------------------------- 3. steps with no game
def play_out(env) -> None:
    """Play to the end the PettingZoo way: finished agents step with None until none is left."""
    for _ in env.agent_iter(100_000):
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0]))


@pytest.mark.parametrize("wrapped", [False, True])
@pytest.mark.parametrize("variant", domino_env.VARIANTS)
def test_a_step_after_every_agent_has_left_is_refused(variant: str, wrapped: bool) -> None:
    """PettingZoo's wrapper only logs a warning there, and the bare environment failed with a
    KeyError: a loop that forgot to reset must stop with a message that says so."""
    options = DEALS[variant][0]
    env = domino_env.make(variant, **options) if wrapped else domino_env.raw_env(variant, **options)
    env.reset(seed=1)
    play_out(env)
    assert env.agents == []
    before = snapshot(env.unwrapped)
    for action in (None, 0):
        with pytest.raises(GameOverError, match=r"after the game is over: .* call reset\(\)"):
            env.step(action)
        assert snapshot(env.unwrapped) == before
    env.reset(seed=1)  # and a reset starts again
    assert env.agents == env.possible_agents


def test_a_step_before_reset_is_refused_by_the_bare_env() -> None:
    env = domino_env.raw_env("draw")
    with pytest.raises(GameOverError, match=r"^step\(0\) before reset\(\)"):
        env.step(0)


@pytest.mark.parametrize("action", [0, 3.5, "pass"])
@pytest.mark.parametrize("variant", domino_env.VARIANTS)
def test_an_action_for_a_finished_agent_is_refused_naming_it(variant: str, action: object) -> None:
    env = started(variant)
    while not all(env.terminations.values()):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    before = snapshot(env)
    with pytest.raises(ValueError, match=rf"^{env.agent_selection} is done .*: step it with None"):
        env.step(action)
    assert snapshot(env) == before
    env.step(None)  # the protocol's step still removes it
    assert len(env.agents) == len(before[2]) - 1


# ---------------------------------------------------------------------------------- 3. rule options
BAD_OPTIONS = [
    ("draw", {"num_players": 0}, ValueError, r"option num_players must be between 2 and 10, got 0"),
    ("draw", {"num_players": True}, TypeError, r"option num_players must be an integer, got True"),
    ("draw", {"set_size": 7}, ValueError, r"option set_size must be one of \(2, 3, 6, 9, 12\), got 7"),
    ("draw", {"set_size": 6.0}, TypeError, r"option set_size must be an integer, got 6.0 \(float\)"),
    ("draw", {"set_size": True}, TypeError, r"option set_size must be an integer, got True"),
    ("draw", {"set_size": np.int64(9)}, TypeError, r"option set_size must be an integer, got np.int64\(9\)"),
    ("block", {"set_size": 12.0}, TypeError, r"option set_size must be an integer, got 12.0"),
    ("mexican_train", {"set_size": 12.0}, TypeError, r"option set_size must be an integer, got 12.0"),
    ("mexican_train", {"set_size": 9.0}, TypeError, r"option set_size must be an integer, got 9.0"),
    ("mexican_train", {"set_size": 6}, ValueError, r"option set_size must be 12 \(double-twelve\) or 9"),
    ("draw", {"hand_size": 15}, ValueError, r"2 hands of 15 tiles need 30 tiles; the double-6 set has 28"),
    ("mexican_train", {"hand_size": 23}, ValueError, r"4 hands of 23 tiles need 92 tiles"),
    ("draw", {"hand_size": math.inf}, TypeError, r"option hand_size must be an integer, got inf"),
    ("draw", {"target": -5}, ValueError, r"option target must be at least 1, got -5"),
    ("draw", {"target": math.nan}, TypeError, r"option target must be an integer, got nan"),
    ("draw", {"target": MAX_POINTS + 1}, ValueError, r"option target must be at most 1,000,000, got 1,000,001"),
    ("block", {"target": 2**31}, ValueError, r"option target must be at most 1,000,000, got "),
    ("draw", {"target": 10**30}, ValueError, r"option target must be at most 1,000,000, got "),
    ("hungarian", {"limit": math.nan}, TypeError, r"option limit must be an integer, got nan"),
    ("hungarian", {"limit": -5}, ValueError, r"option limit must be at least 1, got -5"),
    ("hungarian", {"limit": 2**31}, ValueError, r"option limit must be at most 1,000,000, got 2,147,483,648"),
    ("mexican_train", {"double_blank_value": 10**30}, ValueError, r"double_blank_value must be at most 1,000,000"),
    ("mexican_train", {"double_blank_value": -1.0}, TypeError, r"option double_blank_value must be an integer"),
    ("draw", {"reserve": -1}, ValueError, r"option reserve must be at least 0, got -1"),
    ("hungarian", {"open_ends": True}, TypeError, r"option open_ends must be an integer, got True"),
]


@pytest.mark.parametrize(("variant", "options", "error", "message"), BAD_OPTIONS)
def test_an_option_out_of_range_is_refused_naming_it(variant, options, error, message) -> None:
    with pytest.raises(error, match=message):
        domino_env.make_game(variant, **options)
    with pytest.raises(error, match=message):
        domino_env.make_batched(variant, 2, **options)


def test_the_largest_targets_still_build() -> None:
    assert domino_env.make_game("draw", match=True, target=MAX_POINTS).config.target == MAX_POINTS
    assert domino_env.make_game("hungarian", match=True, limit=MAX_POINTS).config.limit == MAX_POINTS
    assert num_tiles(domino_env.make_game("draw", set_size=9).config.set_size) == 55
