"""Hungarian's afterstate head: each play scored from the line it leaves and the run it goes on
with. Checked against the engine: the ends after each legal play, and whether the run stops."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.run_afterstate import RunAfterstateScores
from domino_env import make_game
from tests.afterstate_plays import plays_and_what_follows

TABLES = [{"num_players": 3}, {"num_players": 2, "open_ends": 2}, {"num_players": 4}]


@pytest.mark.parametrize("options", TABLES)
def test_the_features_are_the_line_and_run_the_engine_leaves_after_each_play(options) -> None:
    game = make_game("hungarian", **options)
    layout = game.observation_layout
    head = RunAfterstateScores(8, game)
    numbers = head.numbers
    checked = stops_seen = 0
    for step in plays_and_what_follows(game, head, deals=20, seed=5):
        np.testing.assert_array_equal(step.candidates, step.legal_plays)  # exactly the legal plays here
        ends = step.seen[layout["left_end"]] + step.seen[layout["right_end"]]
        np.testing.assert_array_equal(step.features[:numbers], ends)
        goes_on = bool(step.after[0]["run_active"])
        assert step.features[-3] == (0.0 if goes_on else 1.0), "the run stops exactly when no tile in hand fits"
        stops_seen += not goes_on
        checked += 1
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
