"""One win rate and one Wilson interval serve a tournament record and an arena matchup."""

from __future__ import annotations

import pytest

from agents.tournament import Record, wilson_interval
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
