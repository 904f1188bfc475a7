"""Hand-written strategies, one per variant: the bar a trained policy should clear first.

Each strategy is a compiled ``policy(state, cfg, g, mask, scratch, effort) -> action`` that
scores every legal action of game ``g``'s acting seat and plays the best (the lowest index among
equals). It judges an action by playing it on copies (``scratch``: ``SCRATCH_RECORDS`` records
of the variant's state) with the variant's own rules and looking at the result from the actor's
seat, so it knows no rule of its own; it reads only the actor's hand and public facts.
``effort`` bounds the positions a look-ahead may visit per action (Hungarian's run search): the
agent plays with ``FULL_EFFORT``, search rollouts with less. The same policies drive the
rollouts of the search agents (:mod:`agents.search`), every simulated player running it on the
sampled world.

:class:`HeuristicAgent` plays the policy on a determinization of the real game, so even a
strategy that looked at a hidden tile would only ever see a sampled one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.base import StatefulAgent
from domino_env.game import Game
from domino_env.games import core, draw_rules, hungarian_rules, mexican_train_rules
from domino_env.games.core import LEFT, NO_END, ON_TABLE, RIGHT
from domino_env.games.draw_rules import team_of
from domino_env.rng import game_seed
from domino_env.tiles import MAX_PIPS, TILE_HIGH, TILE_LOW, TILE_VALUE

# Records a policy may use as scratch space: one per tile of the longest Hungarian run, and two.
SCRATCH_RECORDS = hungarian_rules.LARGEST_HAND + 2
FULL_EFFORT = 64  # positions per action the heuristic agent's look-ahead may visit


@njit(inline="always")
def best_action(score, state, cfg, g, mask, scratch, effort):
    """The legal action with the highest ``score(state, cfg, g, seat, action, scratch, effort)``
    for game ``g``'s acting seat, the lowest index among equals: how every strategy chooses,
    each with its own score. Inlined into the policies, since numba cannot cache a function that
    passes a function to a compiled call."""
    seat = state[g].current
    best = -1
    best_score = -np.inf
    for action in range(mask.shape[0]):
        if mask[action]:
            value = score(state, cfg, g, seat, action, scratch, effort)
            if value > best_score:
                best, best_score = action, value
    return best


# ---------------------------------------------------------------------------------------------- Draw and Block
#
# Draw / Block: shed heavy tiles and doubles early (a double fits only one number, and whatever
# is left counts against you when the hand blocks); keep open the numbers you hold many of, so
# you can follow without drawing; open numbers the next opponent is known to lack (it drew or
# passed on them), or that no unseen tile carries, so it must draw or pass; avoid leaving two
# ends you cannot follow. Going out wins at once; a move that blocks the hand is judged by its
# result.

DRAW_PIPS = 1.0  # per pip of the tile played
DRAW_DOUBLE = 5.0  # playing a double
DRAW_KEEP = 2.0  # per tile of mine that fits an open end afterwards
DRAW_SHUT = 6.0  # per open end the next opponent cannot follow
DRAW_STUCK = 4.0  # neither end fits any tile of mine afterwards
END_OF_HAND = 1e6  # times the actor's reward when the action ends the hand
NOT_A_PLAY = -1e9  # draw or pass: taken only when nothing else is legal


@njit(cache=True)
def draw_score(state, cfg, g, seat, action, scratch, effort):
    """How good ``action`` is for ``seat`` in Draw or Block (higher is better); it looks one
    move ahead only, so ``effort`` does not matter."""
    tiles = cfg[0].num_tiles
    if action >= 2 * tiles:
        return NOT_A_PLAY
    scratch[0] = state[g]
    if draw_rules.step(scratch, cfg, 0, action) != draw_rules.PLAYING:
        return END_OF_HAND * scratch[0].rewards[seat]
    s = scratch[0]
    tile = action // 2
    score = DRAW_PIPS * TILE_VALUE[tile]
    if TILE_LOW[tile] == TILE_HIGH[tile]:
        score += DRAW_DOUBLE
    mine = np.zeros(MAX_PIPS + 1, np.int64)
    unseen = np.zeros(MAX_PIPS + 1, np.int64)
    for t in range(tiles):
        where = s.location[t]
        if where == ON_TABLE:
            continue
        counts = mine if where == seat else unseen
        counts[TILE_LOW[t]] += 1
        if TILE_HIGH[t] != TILE_LOW[t]:
            counts[TILE_HIGH[t]] += 1
    following = (seat + 1) % cfg[0].num_players
    opponent_follows = team_of(cfg, following) != team_of(cfg, seat)
    stuck = True
    for end in (LEFT, RIGHT):
        number = s.ends[end]
        score += DRAW_KEEP * mine[number]
        stuck = stuck and mine[number] == 0
        if unseen[number] == 0 or (opponent_follows and s.voids[following, number]):
            score += DRAW_SHUT
    if stuck:
        score -= DRAW_STUCK
    return score


@njit(cache=True)
def draw_policy(state, cfg, g, mask, scratch, effort):
    """The Draw / Block strategy: the legal action with the best ``draw_score``."""
    return best_action(draw_score, state, cfg, g, mask, scratch, effort)


# ---------------------------------------------------------------------------------------------- Hungarian
#
# Hungarian: a turn is a run that must go on while a tile fits, and every pip left in hand
# counts against you, so choose the order of the run (and, leading, the number that stays open)
# that sheds the most pips. The run is searched move by move with the rules themselves, since it
# depends only on your own hand. Among runs that shed alike, prefer one that leaves the next
# player an end it is known to lack (it must pass). Going out, or blocking the hand as its
# winner, beats everything.

HUNGARIAN_SHUT = 5.0  # the next player is known to hold nothing for the open end(s)


@njit(cache=True)
def run_end_value(s, status, seat, shed):
    """Value for ``seat`` of the position ``s`` reached when its run ends (or is cut off),
    having shed ``shed`` pips; ``status`` is what the last ``step`` returned."""
    if status != hungarian_rules.PLAYING:
        return END_OF_HAND * s.rewards[seat] + shed
    value = float(shed)
    following = s.current
    if following != seat:
        shut = True
        for side in (LEFT, RIGHT):
            number = s.ends[side]
            if number != NO_END and s.voids[following, number] == 0:
                shut = False
        if shut:
            value += HUNGARIAN_SHUT
    return value


@njit(cache=True)
def hungarian_score(state, cfg, g, seat, action, runs, effort):
    """The best ``run_end_value`` over the ways ``seat`` can go on after ``action``, found by a
    depth-first search over ``runs`` (one record per tile of the run) that visits at most
    ``effort`` positions; a run cut short counts the pips shed so far."""
    if action == hungarian_rules.PASS:
        return NOT_A_PLAY
    actions = hungarian_rules.NUM_ACTIONS
    deepest = runs.shape[0] - 1
    masks = np.zeros((runs.shape[0], actions), np.int8)
    shed = np.zeros(runs.shape[0], np.int64)
    cursor = np.zeros(runs.shape[0], np.int64)
    runs[0] = state[g]
    status = hungarian_rules.step(runs, cfg, 0, action)
    shed[0] = TILE_VALUE[action // 2]
    if status != hungarian_rules.PLAYING or not runs[0].run_active or runs[0].current != seat:
        return run_end_value(runs[0], status, seat, shed[0])
    hungarian_rules.legal_mask(runs, cfg, 0, masks[0])
    best = -np.inf
    depth = 0
    positions = 0
    while depth >= 0:
        next_action = cursor[depth]
        while next_action < actions and masks[depth, next_action] == 0:
            next_action += 1
        if next_action == actions:
            depth -= 1
            continue
        cursor[depth] = next_action + 1
        runs[depth + 1] = runs[depth]
        status = hungarian_rules.step(runs, cfg, depth + 1, next_action)
        shed[depth + 1] = shed[depth] + TILE_VALUE[next_action // 2]
        positions += 1
        s = runs[depth + 1]
        if (
            status != hungarian_rules.PLAYING
            or not s.run_active
            or s.current != seat
            or positions >= effort
            or depth + 1 == deepest
        ):
            best = max(best, run_end_value(s, status, seat, shed[depth + 1]))
        else:
            depth += 1
            cursor[depth] = 0
            hungarian_rules.legal_mask(runs, cfg, depth, masks[depth])
    return best


@njit(cache=True)
def hungarian_policy(state, cfg, g, mask, scratch, effort):
    """The Hungarian strategy: the legal action that starts the best run."""
    return best_action(hungarian_score, state, cfg, g, mask, scratch, effort)


# ---------------------------------------------------------------------------------------------- Mexican Train
#
# Mexican Train: your own train is the one only you may use while your marker is down, so keep
# it connectable: prefer a play that leaves tiles of yours fitting its open number, and put the
# tiles that fit no such chain on the Mexican Train or a marked train instead. Play a double
# when you hold a tile to satisfy it; shed heavy tiles; keep your marker down (a play on your own
# train lifts it). Opening a public train on a number the next player is known to lack, or that
# no unseen tile shows, makes it draw. Going out beats everything.

MEXICAN_PIPS = 1.0  # per pip of the tile played
MEXICAN_KEEP = 3.0  # per tile of mine that fits my own train afterwards
MEXICAN_STUCK = 6.0  # no tile of mine fits my own train afterwards
MEXICAN_SATISFY = 8.0  # a double I played and hold a tile to satisfy
MEXICAN_UNSATISFIED = 4.0  # a double I played and cannot satisfy
MEXICAN_MARKER = 6.0  # my marker is up afterwards
MEXICAN_SHUT = 2.0  # a public train I played on now shows a number the next player lacks


@njit(cache=True)
def mexican_score(state, cfg, g, seat, action, scratch, effort):
    """How good ``action`` is for ``seat`` in Mexican Train (higher is better); it looks one
    move ahead only, so ``effort`` does not matter."""
    stride = cfg[0].num_players + 1
    if action >= mexican_train_rules.draw_action(cfg):
        return NOT_A_PLAY
    scratch[0] = state[g]
    if mexican_train_rules.step(scratch, cfg, 0, action) != mexican_train_rules.PLAYING:
        return END_OF_HAND * scratch[0].rewards[seat]
    s = scratch[0]
    tile = action // stride
    train = mexican_train_rules.train_at(cfg, seat, action % stride)
    score = MEXICAN_PIPS * TILE_VALUE[tile]
    own = s.train_end[seat]
    keep = 0
    unseen = np.zeros(MAX_PIPS + 1, np.int64)
    for t in range(cfg[0].num_tiles):
        where = s.location[t]
        if where == seat:
            if core.fits(t, own):
                keep += 1
        elif where != mexican_train_rules.ON_TABLE:
            unseen[TILE_LOW[t]] += 1
            if TILE_HIGH[t] != TILE_LOW[t]:
                unseen[TILE_HIGH[t]] += 1
    score += MEXICAN_KEEP * keep
    if keep == 0:
        score -= MEXICAN_STUCK
    if s.pending_train == train and s.current == seat:  # I played a double and must satisfy it
        if mexican_train_rules.holds_fit(scratch, cfg, 0, seat, s.train_end[train]):
            score += MEXICAN_SATISFY
        else:
            score -= MEXICAN_UNSATISFIED
    if s.marker[seat]:
        score -= MEXICAN_MARKER
    if train != seat:
        number = s.train_end[train]
        following = (seat + 1) % cfg[0].num_players
        if unseen[number] == 0 or s.voids[following, number]:
            score += MEXICAN_SHUT
    return score


@njit(cache=True)
def mexican_policy(state, cfg, g, mask, scratch, effort):
    """The Mexican Train strategy: the legal action with the best ``mexican_score``."""
    return best_action(mexican_score, state, cfg, g, mask, scratch, effort)


# Each variant's strategy, by ``Game.name``.
HEURISTICS = {"draw": draw_policy, "block": draw_policy, "hungarian": hungarian_policy, "mexican_train": mexican_policy}


# ---------------------------------------------------------------------------------------------- the agent, batched


@njit(inline="always")
def actions_on_views(determinize, legal_mask, policy, state, cfg, games, view, mask, scratch, effort):
    """The strategy's action for the acting seat of each of ``games`` (indices into ``state``),
    each played on a determinization of its game written into ``view[0]`` with ``view``'s own
    generator, the games taken in the order given (so the draws follow one another exactly as
    one call per game would make them). Inlined into one cached function per variant, as
    ``best_action`` is."""
    actions = np.empty(games.shape[0], np.int64)
    for row in range(games.shape[0]):
        g = games[row]
        determinize(state, cfg, g, state[g].current, view, 0)
        legal_mask(view, cfg, 0, mask)
        actions[row] = policy(view, cfg, 0, mask, scratch, effort)
    return actions


@njit(cache=True)
def draw_actions(state, cfg, games, view, mask, scratch, effort):
    """``actions_on_views`` for Draw and Block."""
    return actions_on_views(
        draw_rules.determinize, draw_rules.legal_mask, draw_policy, state, cfg, games, view, mask, scratch, effort
    )


@njit(cache=True)
def hungarian_actions(state, cfg, games, view, mask, scratch, effort):
    """``actions_on_views`` for Hungarian."""
    return actions_on_views(
        hungarian_rules.determinize,
        hungarian_rules.legal_mask,
        hungarian_policy,
        state,
        cfg,
        games,
        view,
        mask,
        scratch,
        effort,
    )


@njit(cache=True)
def mexican_actions(state, cfg, games, view, mask, scratch, effort):
    """``actions_on_views`` for Mexican Train."""
    return actions_on_views(
        mexican_train_rules.determinize,
        mexican_train_rules.legal_mask,
        mexican_policy,
        state,
        cfg,
        games,
        view,
        mask,
        scratch,
        effort,
    )


# The heuristic agent's batched decisions, by ``Game.name``: one compiled call per batch of games.
HEURISTIC_ACTIONS = {
    "draw": draw_actions,
    "block": draw_actions,
    "hungarian": hungarian_actions,
    "mexican_train": mexican_actions,
}


def heuristic_policy(game: Game):
    """The compiled strategy of ``game``'s variant, or a clear error for one that has none."""
    if game.name not in HEURISTICS:
        raise ValueError(f"no heuristic strategy for {game.name!r} yet; variants with one: {', '.join(HEURISTICS)}")
    return HEURISTICS[game.name]


def heuristic_actions(game: Game):
    """The compiled batch loop of ``game``'s strategy (:data:`HEURISTIC_ACTIONS`), or the same
    clear error as :func:`heuristic_policy` for a variant that has none."""
    heuristic_policy(game)
    return HEURISTIC_ACTIONS[game.name]


class HeuristicAgent(StatefulAgent):
    """Plays its variant's hand-written strategy (see the module docstring) on a determinization
    of the game, which keeps exactly what the acting seat knows."""

    name = "heuristic"

    def __init__(self, game: Game, seed: int | None = None) -> None:
        super().__init__(game)
        self.batch_policy = heuristic_actions(game)
        self.view = game.new_state(1)
        self.view[0]["rng"] = game_seed(0 if seed is None else seed, 0)
        self.scratch = game.new_state(SCRATCH_RECORDS)
        self.mask = np.zeros(game.num_actions, np.int8)

    def random_state(self) -> int:
        return int(self.view[0]["rng"])  # the generator of its determinizations

    def set_random_state(self, state: int) -> None:
        self.view[0]["rng"] = state

    def reseed(self, seed: int) -> None:
        self.view[0]["rng"] = game_seed(seed, 0)

    def act_state(self, state: np.ndarray, g: int) -> int:
        return int(self.act_states(self.game, state, np.array([g]))[0])

    def act_states(self, game: Game, state: np.ndarray, games: np.ndarray) -> np.ndarray:
        """All of ``games`` in one compiled call (``actions_on_views``), not one call per game."""
        games = np.ascontiguousarray(games, np.int64)
        cfg = self.game.packed_config
        return self.batch_policy(state, cfg, games, self.view, self.mask, self.scratch, FULL_EFFORT)
