"""A Mexican Train strategy that plans its own train: the heuristic, looking further ahead.

A seat's own train is the one place only it may play while its marker is down, so a good player
lays out, from the number its train shows, the longest chain its hand can make there, and spends
its turns on the other trains with the tiles that chain leaves over. Every turn sheds one tile
(a double and its satisfier, two), so the hand goes out in about as many turns as it holds
tiles, provided each turn finds a place: the chain's tiles always have one, the others
(**orphans**) only where a public train happens to show their number. A move that turns a chain
tile into an orphan, or plays the chain's next tile while an orphan could have gone elsewhere,
spends a safe turn for nothing.

:func:`planner_score` judges each move by the orphans it leaves (the hand less the longest chain
from the own train's number after the move, found by :func:`longest_chain`), and breaks ties by
the heuristic's own score (:func:`agents.heuristic.mexican_score`: pips shed, doubles it can
satisfy, the marker, the trains it shuts). Like the heuristic it reads only the actor's hand and
public facts, and plays on a determinization of the real game.

Measured against a table of three heuristics (``python -m arena evaluate planner heuristic
--variant mexican_train --option num_players=4 --against heuristic``), it wins far more than its
share: see ``docs/self_play.md``, "A teacher that plans its train".
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.heuristic import END_OF_HAND, NOT_A_PLAY, HeuristicAgent, actions_on_views, best_action, mexican_score
from domino_env.game import Game
from domino_env.games import mexican_train_rules
from domino_env.tiles import TILE_HIGH, TILE_LOW

PLAN_ORPHAN = 50.0  # per tile of the hand off the longest chain from the own train's number
PLAN_VISITS = 20_000  # tiles a chain search may lay before it keeps the longest found so far


@njit(cache=True)
def longest_chain(tiles, count, start, visits):
    """The length of the longest chain that starts at number ``start`` and lays each of the first
    ``count`` of ``tiles`` at most once, each tile matching the number the last one left open; a
    depth-first search over the tiles that stops, keeping the longest so far, after laying
    ``visits`` tiles. At ``PLAN_VISITS`` a hand of up to 20 random double-twelve tiles is searched
    exactly (tens of microseconds at 15, under a millisecond at 20); a third of hands of 25 are
    cut short, which only a seat that has drawn ten tiles more than it played ever holds."""
    used = np.zeros(count, np.uint8)
    open_number = np.empty(count + 1, np.int64)
    cursor = np.zeros(count + 1, np.int64)  # the next tile to try at each depth
    open_number[0] = start
    depth = 0
    longest = 0
    laid = 0
    while laid <= visits:
        extended = False
        while cursor[depth] < count:
            i = cursor[depth]
            cursor[depth] += 1
            if used[i]:
                continue
            low, high = TILE_LOW[tiles[i]], TILE_HIGH[tiles[i]]
            if low == open_number[depth]:
                follow = high
            elif high == open_number[depth]:
                follow = low
            else:
                continue
            used[i] = 1
            laid += 1
            depth += 1
            open_number[depth] = follow
            cursor[depth] = 0
            longest = max(longest, depth)
            extended = True
            break
        if not extended:
            if depth == 0:
                break
            depth -= 1
            used[cursor[depth] - 1] = 0  # the tile this depth laid last
    return longest


@njit(cache=True)
def chains_after_plays(hands, played, starts, visits):
    """``[K]``: for each row ``k``, the longest chain from number ``starts[k]`` through the tiles
    set in ``hands[k]`` (one entry per tile) other than ``played[k]``: what a play leaves its
    player to lay on its own train, for a network's features."""
    chains = np.empty(hands.shape[0], np.int64)
    tiles = np.empty(hands.shape[1], np.int64)
    for k in range(hands.shape[0]):
        count = 0
        for t in range(hands.shape[1]):
            if hands[k, t] and t != played[k]:
                tiles[count] = t
                count += 1
        chains[k] = longest_chain(tiles, count, starts[k], visits)
    return chains


@njit(cache=True)
def orphans_after(s, cfg, seat):
    """The tiles of ``seat``'s hand in the position ``s`` that the longest chain from its own
    train's number leaves over."""
    tiles = np.empty(cfg[0].num_tiles, np.int64)
    count = 0
    for t in range(cfg[0].num_tiles):
        if s.location[t] == seat:
            tiles[count] = t
            count += 1
    return count - longest_chain(tiles, count, s.train_end[seat], PLAN_VISITS)


@njit(cache=True)
def planner_score(state, cfg, g, seat, action, scratch, effort):
    """How good ``action`` is for ``seat`` (higher is better): the heuristic's score less
    ``PLAN_ORPHAN`` per orphan it leaves. A move that ends the hand, or is not a play, keeps the
    heuristic's score."""
    score = mexican_score(state, cfg, g, seat, action, scratch, effort)
    if score <= NOT_A_PLAY or abs(score) >= 0.5 * END_OF_HAND:
        return score
    return score - PLAN_ORPHAN * orphans_after(scratch[0], cfg, seat)  # scratch[0]: after the move


@njit(cache=True)
def planner_policy(state, cfg, g, mask, scratch, effort):
    """The planning strategy: the legal action with the best ``planner_score``."""
    return best_action(planner_score, state, cfg, g, mask, scratch, effort)


@njit(cache=True)
def planner_actions(state, cfg, games, view, mask, scratch, effort):
    """``actions_on_views`` for the planning strategy."""
    return actions_on_views(
        mexican_train_rules.determinize,
        mexican_train_rules.legal_mask,
        planner_policy,
        state,
        cfg,
        games,
        view,
        mask,
        scratch,
        effort,
    )


def check_plans_here(who: str, game: Game, instead: str = "") -> None:
    """Refuse, in one line naming ``who``, a game other than Mexican Train: the planner plans a
    player's own train, which no other variant has."""
    if game.name != "mexican_train":
        raise ValueError(f"{who} plays Mexican Train only, not {game.name!r}{instead}")


class PlannerAgent(HeuristicAgent):
    """Plays :func:`planner_policy` on a determinization of the game, as the heuristic agent plays
    its strategy; Mexican Train only."""

    name = "planner"

    def __init__(self, game: Game, seed: int | None = None) -> None:
        check_plans_here("the planner", game, "; use heuristic")
        super().__init__(game, seed=seed)
        self.batch_policy = planner_actions
