"""The Mexican Train planner: its chain search, its score, its fairness and its edge.

The chain search is checked against an exhaustive one on random hands; the score, on positions of
random games, against the heuristic's score less the orphans an exhaustive search finds after
each legal move; the choice, against the best of those scores.
"""

from __future__ import annotations

import numpy as np
import pytest

import domino_env
from agents import make_agent
from agents.heuristic import SCRATCH_RECORDS, mexican_score
from agents.planner import PLAN_ORPHAN, PlannerAgent, longest_chain, planner_policy, planner_score
from agents.tournament import against_table, rotated_match
from domino_env.search import apply, copy_state, legal_actions
from domino_env.tiles import TILE_HIGH, TILE_LOW, tile_index
from tests.snapshots import mid_game_states
from tests.test_search_agents import shuffle_hidden

pytestmark = pytest.mark.core

OPTIONS = [{"num_players": 4}, {"num_players": 2}, {"num_players": 3, "set_size": 9}]


def longest_by_hand(tiles: list[int], start: int) -> int:
    """Every chain from ``start``, tried one tile at a time."""
    best = 0
    for i, tile in enumerate(tiles):
        low, high = int(TILE_LOW[tile]), int(TILE_HIGH[tile])
        if start in (low, high):
            follow = high if low == start else low
            best = max(best, 1 + longest_by_hand(tiles[:i] + tiles[i + 1 :], follow))
    return best


def orphans_by_hand(state: np.ndarray, seat: int, num_tiles: int) -> int:
    hand = [t for t in range(num_tiles) if state[0]["location"][t] == seat]
    return len(hand) - longest_by_hand(hand, int(state[0]["train_end"][seat]))


def test_the_chain_search_finds_the_longest_chain() -> None:
    rng = np.random.default_rng(0)
    for _ in range(400):
        count = int(rng.integers(0, 10))
        tiles = rng.choice(91, count, replace=False).astype(np.int64)
        start = int(rng.integers(0, 13))
        assert longest_chain(tiles, count, start, 10**6) == longest_by_hand(list(tiles), start)


def test_the_chain_search_prefers_a_long_branch_to_the_first_one() -> None:
    """From 5: 5-1 ends at once, 5-3 3-3 3-8 8-2 goes four deep; the search tries 5-1 first."""
    tiles = np.array([tile_index(a, b) for a, b in [(5, 1), (5, 3), (3, 3), (3, 8), (8, 2)]], np.int64)
    assert longest_chain(tiles, 5, 5, 10**6) == 4
    assert longest_chain(tiles, 5, 7, 10**6) == 0
    assert 1 <= longest_chain(tiles, 5, 5, 1) < 4  # a search cut short keeps the longest so far


@pytest.mark.parametrize("options", OPTIONS)
def test_the_score_is_the_heuristics_less_the_orphans_each_move_leaves(options: dict) -> None:
    game = domino_env.make_game("mexican_train", **options)
    cfg = game.packed_config
    scratch = game.new_state(SCRATCH_RECORDS)
    checked = 0
    for record in mid_game_states("mexican_train", options, count=60, seed=8):
        if record[0]["game_over"]:
            continue
        seat = game.current_seat(record, 0)
        mask = np.zeros(game.num_actions, np.int8)
        game.legal_mask(record, 0, mask)
        scores = {}
        for action in legal_actions(game, record, 0):
            heuristic = mexican_score(record, cfg, 0, seat, action, scratch, 0)
            scores[action] = planner_score(record, cfg, 0, seat, action, scratch, 0)
            after = copy_state(record)
            status = apply(game, after, action)
            if action < game.num_actions - 2 and status == game.rules.PLAYING:
                orphans = orphans_by_hand(after, seat, game.config.num_tiles)
                assert scores[action] == heuristic - PLAN_ORPHAN * orphans
                checked += 1
            else:
                assert scores[action] == heuristic  # not a play, or the move ends the hand
        best = max(scores.values())
        assert planner_policy(record, cfg, 0, mask, scratch, 0) == min(a for a, s in scores.items() if s == best)
    assert checked > 50


def test_the_planner_decides_the_same_without_seeing_hidden_tiles() -> None:
    game = domino_env.make_game("mexican_train", num_players=4)
    rng = np.random.default_rng(2)
    for record in mid_game_states("mexican_train", {"num_players": 4}, count=30, seed=5):
        if record[0]["game_over"]:
            continue
        other = shuffle_hidden(game, record, game.current_seat(record, 0), rng)
        assert PlannerAgent(game, seed=5).act_state(record, 0) == PlannerAgent(game, seed=5).act_state(other, 0)


def test_the_planner_beats_a_table_of_heuristics() -> None:
    """It wins about 0.44 of 4p rounds where the fair share is 0.25 (docs/self_play.md); 256
    rounds put the interval's low end well above the fair share."""
    game = domino_env.make_game("mexican_train", num_players=4)
    planner, heuristic = make_agent("planner", game, seed=1), make_agent("heuristic", game, seed=2)
    record = against_table(game, planner, heuristic, 256, seed=9)
    assert record.win_interval()[0] > 0.25


def test_the_planner_plays_mexican_train_only() -> None:
    with pytest.raises(ValueError, match="Mexican Train only"):
        make_agent("planner", domino_env.make_game("hungarian", num_players=3))


def test_search_agents_can_roll_out_with_the_planner() -> None:
    """``rollout=planner``: the simulated players follow the planner; other variants and other
    names are refused in one line before any work."""
    game = domino_env.make_game("mexican_train", num_players=3)
    for name in ("pimc", "ismcts"):
        agent = make_agent(f"{name}:simulations=8,rollout=planner", game, seed=1)
        assert agent.hooks[-1] is planner_policy
        random_seats = [make_agent("random", game, seed=s) for s in range(2)]
        assert rotated_match(game, [agent, *random_seats], episodes=3, seed=3, batch_size=1)[0].moves > 0
    with pytest.raises(ValueError, match=r"^pimc: rollout=planner plays Mexican Train only, not 'draw'$"):
        make_agent("pimc:rollout=planner", domino_env.make_game("draw"))
    with pytest.raises(ValueError, match=r"^ismcts: rollout must be one of heuristic, planner, got 'plan'$"):
        make_agent("ismcts:rollout=plan", game)
