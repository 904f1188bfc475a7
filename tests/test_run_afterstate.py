"""Hungarian's afterstate head: each play scored from the line it leaves and the run it goes on
with. Checked against the engine: the ends after each legal play, and whether the run stops."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.run_afterstate import RunAfterstateScores
from domino_env import make_game

TABLES = [{"num_players": 3}, {"num_players": 2, "open_ends": 2}, {"num_players": 4}]


@pytest.mark.parametrize("options", TABLES)
def test_the_features_are_the_line_and_run_the_engine_leaves_after_each_play(options) -> None:
    game = make_game("hungarian", **options)
    layout = game.observation_layout
    head = RunAfterstateScores(8, game)
    numbers = head.numbers
    state = game.new_state(1)
    rng = np.random.default_rng(5)
    checked = stops_seen = 0
    for deal in range(20):
        game.seed(state, 0, deal)
        game.start(state, 0)
        while not state[0]["game_over"]:
            seat = int(state[0]["current"])
            mask = np.zeros(game.num_actions, np.int8)
            game.legal_mask(state, 0, mask)
            obs = np.zeros(game.observation_size, np.float32)
            game.observe(state, 0, seat, obs)
            candidates = head.candidates(torch.as_tensor(obs[None]))[0].numpy()
            legal_plays = mask[head.plays.numpy()].astype(bool)
            np.testing.assert_array_equal(candidates, legal_plays)  # exactly the legal plays here
            for k in np.flatnonzero(legal_plays):
                features = head.features(torch.as_tensor(obs[None]), torch.tensor([k]))[0].numpy()
                after = state.copy()
                game.step(after, 0, int(head.plays[k]))
                if after[0]["game_over"]:
                    continue
                seen = np.zeros_like(obs)
                game.observe(after, 0, seat, seen)
                np.testing.assert_array_equal(features[:numbers], seen[layout["left_end"]] + seen[layout["right_end"]])
                goes_on = int(after[0]["current"]) == seat and bool(after[0]["run_active"])
                assert features[-3] == (0.0 if goes_on else 1.0), "the run stops exactly when no tile in hand fits"
                stops_seen += not goes_on
                checked += 1
            game.step(state, 0, rng.choice(np.flatnonzero(mask)))
    assert checked > 300 and 0 < stops_seen < checked


def test_a_follower_counts_the_tiles_that_fit_after_it() -> None:
    """Hand 1-2, 2-3, 3-4, 3-5 on a line open at 1: laying 1-2 leaves 2, whose one follower 2-3
    leaves 3, which 3-4 and 3-5 fit: the longest next step is two tiles."""
    game = make_game("hungarian", num_players=2)
    head = RunAfterstateScores(8, game)
    layout = game.observation_layout
    obs = np.zeros((1, game.observation_size), np.float32)
    tiles = {
        name: game.action_tiles[game.action_from_name(f"play {name} on left")]
        for name in ("1-2", "2-3", "3-4", "3-5", "1-1")
    }
    for name in ("1-2", "2-3", "3-4", "3-5"):
        obs[0, layout["hand"].start + tiles[name]] = 1.0
    obs[0, layout["table"].start + tiles["1-1"]] = 1.0
    obs[0, layout["left_end"].start + 1] = 1.0
    play = int(np.flatnonzero(head.plays.numpy() == game.action_from_name("play 1-2 on left"))[0])
    assert head.candidates(torch.as_tensor(obs))[0, play]
    extra = head.features(torch.as_tensor(obs), torch.tensor([play]))[0, -5:].numpy()
    np.testing.assert_allclose(extra[:3], [2 / 7, 1 / 7, 0.0])
