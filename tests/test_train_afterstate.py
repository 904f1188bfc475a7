"""Mexican Train's afterstate head: each play scored from the trains it leaves, computed from the
observation in closed form. The features are checked against the engine: the position after each
legal play, as the player then observes it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.network import network_for
from agents.train_afterstate import TrainAfterstateScores
from domino_env import make_game
from domino_env.games.mexican_train_rules import OWN
from domino_env.tiles import tile_faces
from tests.afterstate_plays import plays_and_what_follows
from tests.test_planner import longest_by_hand

TABLES = [{"num_players": 4}, {"num_players": 2, "set_size": 9}, {"num_players": 3, "first_turn": "chain"}]


@pytest.mark.parametrize("options", TABLES)
def test_the_features_are_the_trains_the_engine_leaves_after_each_play(options) -> None:
    game = make_game("mexican_train", **options)
    layout = game.observation_layout
    head = TrainAfterstateScores(8, game)
    numbers, trains = head.numbers, head.trains
    faces = np.array([tile_faces(t) for t in range(game.num_tiles)])
    checked = 0
    for step in plays_and_what_follows(game, head, deals=4, seed=7):
        ends = step.seen[layout["train_ends"]].reshape(trains, numbers)
        target = step.action % trains
        np.testing.assert_array_equal(step.features[:numbers], ends[target])
        hand = step.seen[layout["hand"]]
        held = np.array([hand[(faces == n).any(1)].sum() for n in range(numbers)])
        np.testing.assert_allclose(step.features[3 * numbers : 4 * numbers] * head.scale, held, atol=1e-5)
        np.testing.assert_array_equal(step.features[5 * numbers : 5 * numbers + trains], np.eye(trains)[target])
        own_end = int(np.argmax(ends[OWN]))
        assert step.features[-12] * head.scale == pytest.approx(hand[(faces == own_end).any(1)].sum())
        # the plan: the longest chain from the own train's number through the hand after the play
        held_after = [t for t in range(game.num_tiles) if step.after[0]["location"][t] == step.seat]
        chain = longest_by_hand(held_after, int(step.after[0]["train_end"][step.seat]))
        assert step.features[-2] * head.scale == pytest.approx(chain)
        assert step.features[-1] * head.scale == pytest.approx(len(held_after) - chain)
        checked += 1
    assert checked > 100


def test_only_the_plays_that_may_be_legal_are_scored() -> None:
    """Draw, pass, a tile not in hand, a train whose number the tile does not show and another
    seat's train without a marker keep the plain head's logit: the head spends nothing on them."""
    game = make_game("mexican_train", num_players=4)
    network = network_for(game, [16], action_head="afterstate")
    state = game.new_state(1)
    rng = np.random.default_rng(1)
    game.seed(state, 0, 11)
    game.start(state, 0)
    seen_scores = 0
    for _ in range(60):
        if state[0]["game_over"]:
            break
        seat = int(state[0]["current"])
        obs = np.zeros((1, game.observation_size), np.float32)
        game.observe(state, 0, seat, obs[0])
        scores = network.afterstate(torch.as_tensor(obs), network.trunk(torch.as_tensor(obs)))[0].detach().numpy()
        expected = np.zeros(game.num_actions, bool)
        s = state[0]
        for tile in np.flatnonzero(s["location"][: game.num_tiles] == seat):
            for target in range(game.num_players + 1):
                train = seat if target == 0 else game.num_players if target == 1 else (seat + target - 1) % 4
                reachable = target < 2 or s["marker"][train]
                if reachable and int(s["train_end"][train]) in tile_faces(tile):
                    expected[tile * (game.num_players + 1) + target] = True
        np.testing.assert_array_equal(scores != 0, expected)
        seen_scores += expected.sum()
        mask = np.zeros(game.num_actions, np.int8)
        game.legal_mask(state, 0, mask)
        assert not (mask.astype(bool) & ~expected)[: game.num_tiles * 5].any()
        game.step(state, 0, rng.choice(np.flatnonzero(mask)))
    assert seen_scores > 50
