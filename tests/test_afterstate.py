"""The afterstate action head: each play scored from the line it leaves, computed from the
observation in closed form. The features are checked against the engine itself: the position
after each legal play, as the player then observes it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.afterstate import AfterstateScores
from agents.guided_tree import GuidedTreeAgent
from agents.network import network_for
from agents.run_afterstate import RunAfterstateScores
from agents.train_afterstate import TrainAfterstateScores
from domino_env import make_game
from domino_env.tiles import tile_faces
from tests.afterstate_plays import plays_and_what_follows
from training.config import build_config

LINE_GAMES = [
    ("draw", {"num_players": 2}),
    ("block", {"num_players": 2}),
    ("draw", {"num_players": 4, "partnerships": True}),
    ("draw", {"num_players": 3, "set_size": 9}),
]


@pytest.mark.parametrize(("variant", "options"), LINE_GAMES)
def test_the_features_are_the_line_the_engine_leaves_after_each_play(variant, options) -> None:
    game = make_game(variant, **options)
    layout = game.observation_layout
    head = AfterstateScores(8, game)
    numbers = head.numbers
    checked = 0
    for step in plays_and_what_follows(game, head, deals=12, seed=3):
        ends = step.seen[layout["left_end"]] + step.seen[layout["right_end"]]
        np.testing.assert_array_equal(step.features[:numbers], ends)
        hand, table = step.seen[layout["hand"]], step.seen[layout["table"]]
        fits = np.array([ends[lo] + ends[hi] > 0 for lo, hi in map(tile_faces, range(game.num_tiles))])
        unseen = 1 - hand - table
        per_play = step.features[5 * numbers :]
        assert per_play[0] == pytest.approx(hand[fits].sum() / 7)
        assert per_play[1] == pytest.approx(unseen[fits].sum() / 7)
        checked += 1
    assert checked > 200


def test_only_the_plays_that_may_be_legal_are_scored() -> None:
    """Draw, pass and every play of a tile not in hand, or on an end it does not show, keep the
    plain head's logit: they are illegal or not plays, so the head spends nothing on them."""
    game = make_game("draw", num_players=2)
    network = network_for(game, [16], action_head="afterstate")
    state = game.new_state(1)
    game.seed(state, 0, 5)
    game.start(state, 0)
    game.step(state, 0, int(np.flatnonzero(_legal(game, state))[0]))  # a tile on the table
    seat = int(state[0]["current"])
    obs = np.zeros((1, game.observation_size), np.float32)
    game.observe(state, 0, seat, obs[0])
    scores = network.afterstate(torch.as_tensor(obs), network.trunk(torch.as_tensor(obs)))[0]
    hand = np.flatnonzero(state[0]["location"][: game.num_tiles] == seat)
    expected = np.zeros(game.num_actions, bool)
    for side, end in enumerate(state[0]["ends"][:2]):
        for tile in hand:
            expected[2 * tile + side] = int(end) in tile_faces(tile)
    assert expected.any()
    np.testing.assert_array_equal(scores.detach().numpy() != 0, expected)
    assert _legal(game, state)[~expected].sum() <= 1  # at most draw or pass besides


def _legal(game, state) -> np.ndarray:
    mask = np.zeros(game.num_actions, np.int8)
    game.legal_mask(state, 0, mask)
    return mask


@pytest.mark.parametrize(
    ("variant", "options", "head"),
    [
        ("block", {"num_players": 2}, AfterstateScores),
        ("hungarian", {"num_players": 3}, RunAfterstateScores),
        ("mexican_train", {"num_players": 4}, TrainAfterstateScores),
    ],
)
def test_every_variant_takes_the_head_that_reads_its_moves(variant, options, head) -> None:
    game = make_game(variant, **options)
    assert type(network_for(game, [16], action_head="afterstate").afterstate) is head
    build_config({}, [f"env.variant={variant}", f"env.options={options}", "network.action_head=afterstate"])
    other = make_game("hungarian" if variant != "hungarian" else "draw", num_players=2)
    with pytest.raises(ValueError, match=rf"{head.__name__} does not read"):
        head(16, other)


@pytest.mark.parametrize(
    ("variant", "head"),
    [("hungarian", "Hungarian's run head \\(RunAfterstateScores\\)"), ("mexican_train", "Mexican Train's chain head")],
)
def test_the_guided_tree_refuses_a_head_it_cannot_compile(variant: str, head: str) -> None:
    game = make_game(variant, num_players=2)
    with pytest.raises(ValueError, match=rf"afterstate head \(Draw, Block\), not {head}.*plain \+search$"):
        GuidedTreeAgent(game, network_for(game, [16], action_head="afterstate"))
