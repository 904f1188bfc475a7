"""One win rate and one Wilson interval serve a tournament record and an arena matchup."""

from __future__ import annotations

import numpy as np
import pytest

import domino_env
from agents.simple import GreedyAgent, RandomAgent
from agents.tournament import Record, episode_winners, rotated_match, wilson_interval
from arena.matchup import Matchup


def test_a_record_and_a_matchup_of_the_same_wins_report_the_same_rate_and_interval() -> None:
    record = Record("greedy", episodes=400, wins=300, losses=100)
    matchup = Matchup("greedy", "random", episodes=400, wins=300, hands=400, points=0, fair_share=0.5)
    assert record.win_rate == matchup.win_rate == 0.75
    assert record.win_interval() == matchup.interval() == wilson_interval(300, 400)
    assert matchup.interval() == pytest.approx((0.7052, 0.7898), abs=1e-3)
    assert record.win_interval(z=2.58) == matchup.interval(2.58)
    assert matchup.verdict == "above"


def test_no_episodes_is_a_zero_rate_and_an_interval_that_says_nothing() -> None:
    record = Record("idle")
    assert (record.win_rate, record.win_interval()) == (0.0, (0.0, 1.0))
    assert (record.decisive_win_rate, record.decisive_interval()) == (0.5, (0.0, 1.0))


def test_the_decisive_rate_leaves_the_ties_out() -> None:
    record = Record("even", episodes=10, wins=3, losses=3)
    assert record.win_rate == 0.3
    assert record.decisive_win_rate == 0.5
    assert record.decisive_interval() == wilson_interval(3, 6)


@pytest.mark.parametrize(
    ("rewards", "winners"),
    [
        ([[1.0, -1.0], [-1.0, 1.0]], [[True, False], [False, True]]),  # reward="win", two seats
        ([[0.5, 0.5, -1.0]], [[True, True, False]]),  # a blocked hand two seats share
        ([[1.0, -1.0, 1.0, -1.0]], [[True, False, True, False]]),  # partners win together
        ([[0.0, 0.0, 0.0]], [[False, False, False]]),  # nobody won the hand
        # reward="points" in a penalty game: 2 and 40 pips left against 60. The second seat is
        # above the table's mean, so its reward is positive, but it did not win.
        ([[0.18, 0.06, -0.24]], [[True, False, False]]),
    ],
)
def test_the_winners_of_an_episode_are_the_seats_with_the_tables_highest_reward(rewards, winners) -> None:
    assert episode_winners(np.array(rewards)).tolist() == winners


def test_under_the_points_reward_a_match_counts_the_same_winners_as_under_the_win_reward() -> None:
    """The reward changes neither what a seat sees nor what it may do, so agents that ignore it
    play the same Hungarian hands under either; the winner of each is the seat that went out or
    else the fewest pips. Counting a positive points reward as a win would count about half of
    the non-winners too."""
    records = {}
    for reward in ("win", "points"):
        game = domino_env.make_game("hungarian", num_players=3, reward=reward)
        agents = [GreedyAgent(game), RandomAgent(seed=1), RandomAgent(seed=2)]
        records[reward] = rotated_match(game, agents, episodes=120, seed=4, batch_size=40)
    for by_win, by_points in zip(records["win"], records["points"], strict=True):
        assert by_points.points == by_win.points  # the same hands were played
        # Only a hand whose loser also held no pips can differ (both level on the highest reward).
        assert abs(by_points.wins - by_win.wins) <= 3
        assert abs(by_points.losses - by_win.losses) <= 3
    positive = (np.array([r.per_episode_reward for r in records["points"]]) > 0).sum()
    assert sum(r.wins for r in records["points"]) + 40 < positive
