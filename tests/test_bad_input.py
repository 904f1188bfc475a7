"""Input that only looks right is refused with an error naming the problem, before any state
changes; input that is right in another container (numpy arrays) is accepted."""

from __future__ import annotations

import numpy as np
import pytest

import domino_env
from domino_env.batched import MAX_BATCH_SIZE
from domino_env.tiles import num_tiles, tile_faces, tile_index

pytestmark = pytest.mark.core


def started(variant: str, **options) -> domino_env.DominoEnv:
    env = domino_env.raw_env(variant, **options)
    env.reset(seed=3)
    return env


def snapshot(env: domino_env.DominoEnv) -> tuple[bytes, str, dict]:
    return env.state_array.tobytes(), env.agent_selection, dict(env.rewards)


@pytest.mark.parametrize("action", [3.5, 3.0, "3", True, np.float64(2.0), np.array([3]), None])
@pytest.mark.parametrize("variant", domino_env.VARIANTS)
def test_an_action_that_is_not_an_integer_is_refused_and_changes_nothing(variant: str, action: object) -> None:
    env = started(variant)
    before = snapshot(env)
    with pytest.raises(TypeError, match="an action must be an integer index, got"):
        env.step(action)
    assert snapshot(env) == before


@pytest.mark.parametrize("variant", domino_env.VARIANTS)
def test_integer_actions_of_numpy_are_accepted(variant: str) -> None:
    env, twin = started(variant), started(variant)
    action = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    env.step(np.int64(action))
    twin.step(np.array(action, np.int32))
    assert snapshot(env) == snapshot(twin)


@pytest.mark.parametrize("seed", ["x", 1.5, np.float32(1), [1]])
@pytest.mark.parametrize("variant", domino_env.VARIANTS)
def test_a_seed_that_is_not_an_integer_is_refused_by_the_env_and_the_batch(variant: str, seed: object) -> None:
    env = started(variant)
    before = snapshot(env)
    with pytest.raises(TypeError, match="a seed must be an integer, got"):
        env.reset(seed=seed)
    assert snapshot(env) == before
    batch = domino_env.make_batched(variant, 4)
    batch.reset(seed=1)
    state = batch.state.tobytes()
    with pytest.raises(TypeError, match="a seed must be an integer, got"):
        batch.reset(seed=seed)
    assert batch.state.tobytes() == state


def test_a_batch_too_large_to_hold_is_refused_before_any_allocation() -> None:
    with pytest.raises(ValueError, match=rf"batch_size must be at most {MAX_BATCH_SIZE:,}, got 1,000,000,000: .* GiB"):
        domino_env.make_batched("draw", 10**9)
    assert domino_env.make_batched("draw", 2).batch_size == 2


def dealt(env: domino_env.DominoEnv) -> dict[str, np.ndarray]:
    """Every seat's hand and what lies outside the hands, as numpy arrays of faces."""
    location = env.state_array[0]["location"][: env.game.action_tiles.max() + 1]
    hands = np.array([[tile_faces(t) for t in np.flatnonzero(location == seat)] for seat in range(env.num_agents)])
    rest = np.array([tile_faces(t) for t in np.flatnonzero(location < 0)])
    return {"hands": hands, "rest": rest}


@pytest.mark.parametrize(("variant", "rest_key"), [("draw", "boneyard"), ("block", None), ("hungarian", "set_aside")])
def test_a_deal_given_as_numpy_arrays_plays_as_the_same_deal_in_lists(variant: str, rest_key: str | None) -> None:
    source = started(variant)
    arrays = dealt(source)
    deal = {"hands": arrays["hands"]} | ({rest_key: arrays["rest"]} if rest_key else {})
    as_lists = {key: value.tolist() for key, value in deal.items()}
    from_arrays, from_lists = domino_env.raw_env(variant), domino_env.raw_env(variant)
    from_arrays.reset(seed=0, options={"deal": deal})
    from_lists.reset(seed=0, options={"deal": as_lists})
    assert snapshot(from_arrays) == snapshot(from_lists)
    assert np.array_equal(dealt(from_arrays)["hands"], arrays["hands"])


def test_a_deal_with_a_wrong_number_of_hands_in_an_array_names_the_count() -> None:
    env = started("draw")
    before = snapshot(env)
    hands = dealt(env)["hands"]
    with pytest.raises(ValueError, match="the deal must have 2 hands, one per seat, got 1"):
        env.reset(options={"deal": {"hands": hands[:1], "boneyard": []}})
    assert snapshot(env) == before


def test_a_mexican_train_deal_given_as_numpy_arrays_plays_as_the_same_deal_in_lists() -> None:
    hands = [[[12, 12], [1, 2]], [[3, 4], [5, 6]]]
    dealt = {tile_index(a, b) for hand in hands for a, b in hand}
    boneyard = [list(tile_faces(t)) for t in range(num_tiles(12)) if t not in dealt]
    deal = {"hands": hands, "boneyard": boneyard}
    from_arrays, from_lists = (domino_env.raw_env("mexican_train", num_players=2, hand_size=2) for _ in range(2))
    from_arrays.reset(seed=0, options={"deal": {key: np.array(value) for key, value in deal.items()}})
    from_lists.reset(seed=0, options={"deal": deal})
    assert snapshot(from_arrays) == snapshot(from_lists)
    assert from_lists.state_array[0]["starter"] == 0  # the deal was played: seat 0 holds 12-12


@pytest.mark.parametrize("action", [-1, 58, 10**30])
def test_an_action_index_out_of_range_is_illegal_and_changes_nothing(action: int) -> None:
    env = started("draw")
    before = snapshot(env)
    with pytest.raises(domino_env.IllegalActionError, match=rf"illegal action {action} \(out of range\)"):
        env.step(action)
    assert snapshot(env) == before
