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

TABLES = [{"num_players": 4}, {"num_players": 2, "set_size": 9}, {"num_players": 3, "first_turn": "chain"}]


@pytest.mark.parametrize("options", TABLES)
def test_the_features_are_the_trains_the_engine_leaves_after_each_play(options) -> None:
    game = make_game("mexican_train", **options)
    layout = game.observation_layout
    head = TrainAfterstateScores(8, game)
    numbers, trains = head.numbers, head.trains
    faces = np.array([tile_faces(t) for t in range(game.num_tiles)])
    state = game.new_state(1)
    rng = np.random.default_rng(7)
    checked = 0
    for deal in range(4):
        game.seed(state, 0, deal)
        game.start(state, 0)
        while not state[0]["game_over"]:
            seat = int(state[0]["current"])
            mask = np.zeros(game.num_actions, np.int8)
            game.legal_mask(state, 0, mask)
            obs = np.zeros(game.observation_size, np.float32)
            game.observe(state, 0, seat, obs)
            candidates = head.candidates(torch.as_tensor(obs[None]))[0].numpy()
            for k, action in enumerate(head.plays.numpy()):
                if not mask[action]:
                    continue
                assert candidates[k], "the head scores every legal play"
                features = head.features(torch.as_tensor(obs[None]), torch.tensor([k]))[0].numpy()
                after = state.copy()
                game.step(after, 0, action)
                if after[0]["game_over"]:  # the trains are still shown, but the hand is empty
                    continue
                seen = np.zeros_like(obs)
                game.observe(after, 0, seat, seen)
                ends = seen[layout["train_ends"]].reshape(trains, numbers)
                target = action % trains
                np.testing.assert_array_equal(features[:numbers], ends[target])
                hand = seen[layout["hand"]]
                held = np.array([hand[(faces == n).any(1)].sum() for n in range(numbers)])
                np.testing.assert_allclose(features[3 * numbers : 4 * numbers] * head.scale, held, atol=1e-5)
                np.testing.assert_array_equal(features[5 * numbers : 5 * numbers + trains], np.eye(trains)[target])
                per_play = features[-11:]
                own_end = int(np.argmax(ends[OWN]))
                assert per_play[1] * head.scale == pytest.approx(hand[(faces == own_end).any(1)].sum())
                checked += 1
            game.step(state, 0, rng.choice(np.flatnonzero(mask)))
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
