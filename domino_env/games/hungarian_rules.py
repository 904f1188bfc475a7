"""The rules of Hungarian Dominoes (RULES.md sections 3, 5 and 6).

This module is the only place these rules live. The PettingZoo environment, the batched engine,
the agents and the renderer all call the compiled functions below; none of them re-implements a
rule. It follows the shape of :mod:`domino_env.games.draw_rules` and keeps the contract of
:mod:`domino_env.games.core` (whose line helpers ``fits`` and ``place`` it shares): a batch of
games is one numpy record array (``STATE_DTYPE``), one record per game, and the configuration is
a ``HungarianConfig`` of plain integers, which the compiled functions receive packed as a
one-record array (``Game.packed_config``, read as ``cfg[0].num_players``).

The turn. A turn is a run of single-tile actions by one player, who must keep playing while a
tile fits: after each play the same seat stays to act if it holds a tile for the end its run is
bound to, and otherwise the turn passes to the next seat still in play with no action. A player
who cannot play at the start of their turn takes the explicit ``pass`` action. The hand ends on
a domino (unless ``end_on_domino`` is off) or as soon as a run ends with nobody able to play.

Actions: ``tile * 2 + side`` plays ``tile`` at the left (0) or right (1) end of the line, then
``PASS = 2 * T`` (there is no boneyard, so no draw action).

- One open end (default): the line grows in one direction. The first tile is laid low face left,
  high face right, and its side names the end that stays open: ``play 3-5 on left`` keeps the 3
  open, ``play 3-5 on right`` keeps the 5 (a double leads ``on left`` only: both would be the
  same move). The other end is closed for the hand, and every later tile goes on the open side.
- Two open ends (``open_ends=2``): the first tile is played ``on left`` as in Draw. A run is
  bound to the end its first tile went to; the leader's opening tile goes to neither end, so the
  leader's run is bound by the leader's second tile.

Scoring. Every seat's ``hand_points`` are the pips left in its hand. The hand is won by the player
who went out, or else by the seats in play with the lowest total (a tie shares the win). In a
match (``match``) the first total to reach ``limit`` ends it; if several seats reach it in the
same hand the highest total loses (a tie for highest shares the loss). With ``elimination``
every seat that reaches the limit drops out and the rest play on with the hand size for their
number (3 -> 8 tiles, 2 -> 12) until one is left; should everyone still in reach the limit in
the same hand, the lowest total among them survives, and a tie for it ends the match with those
seats sharing the win. Seats that lost are flagged in ``lost``: in elimination mode as they drop
out, otherwise when the match ends.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from domino_env.games import core
from domino_env.games.core import HAND_OVER, LEFT, NO_END, PLAYING, REWARD_POINTS, RIGHT
from domino_env.rng import below, shuffle
from domino_env.sampling import NO_WEIGHTS, place
from domino_env.tiles import TILE_HIGH, TILE_LOW, TILE_VALUE, total_pips

MAX_PLAYERS = 4
NUM_TILES = 28  # always the double-six set
NUMBERS = 7  # 0 .. 6
SET_ASIDE_TILES = 4  # never used in a hand: 24 tiles are dealt to 2, 3 or 4 players
LARGEST_HAND = (NUM_TILES - SET_ASIDE_TILES) // 2
POINTS_SCALE = total_pips(6)  # 168: no player holds more, so |points reward| <= 1

# Where a tile is (the ``location`` field): 0 .. P-1 in that seat's hand, set aside, or on the table.
SET_ASIDE, ON_TABLE = core.UNDEALT, core.ON_TABLE

PASS = 2 * NUM_TILES
NUM_ACTIONS = 2 * NUM_TILES + 1  # a play per (tile, side), then pass


# ``hand_points``: the pips left in each hand (penalty points), as ``pips_left``. A closed end of
# the line is NO_END.
STATE_DTYPE = core.state_dtype(
    MAX_PLAYERS,
    [
        ("location", np.int8, (NUM_TILES,)),
        ("hand_count", np.int16, (MAX_PLAYERS,)),
        *core.LINE_FIELDS,
        ("leader", np.int8),  # seat that led this hand
        ("run_active", np.uint8),  # the seat to act has played a tile this turn
        ("run_end", np.int8),  # LEFT or RIGHT: the end the run is bound to; NO_END when not bound
        ("voids", np.uint8, (MAX_PLAYERS, NUMBERS)),  # numbers a seat is known not to hold
        ("lost", np.uint8, (MAX_PLAYERS,)),  # eliminated, or the match's loser once it is over
        ("hand_number", np.int16),
    ],
)


class HungarianConfig(NamedTuple):
    """One configuration of the Hungarian engine, as plain integers the compiled code can read."""

    num_players: int
    open_ends: int  # 1 or 2
    end_on_domino: int
    match: int
    limit: int
    elimination: int
    reward: int  # index into REWARD_NAMES


def num_actions(cfg: HungarianConfig) -> int:  # Python-side, as in the other rules modules
    return NUM_ACTIONS


@njit(cache=True)
def hand_size(players_in):
    """Tiles dealt to each of ``players_in`` players: 2 -> 12, 3 -> 8, 4 -> 6 (4 set aside)."""
    return (NUM_TILES - SET_ASIDE_TILES) // players_in


# ----------------------------------------------------------------------------------------------
# Observation layout: sizes computed in one place for the compiled code and for Python.


@njit(cache=True)
def layout_sizes(cfg):
    """Sizes of the observation's blocks, in order (see ``OBSERVATION_BLOCKS``)."""
    p = cfg[0].num_players
    return (NUM_TILES, NUM_TILES, NUMBERS, NUMBERS, 1, 2, p, (p - 1) * NUMBERS, p, p, p)


OBSERVATION_BLOCKS = (
    ("hand", "my tiles (one per tile index)"),
    ("table", "tiles on the table"),
    ("left_end", "one-hot number open at the left end (all zero before the lead or when closed)"),
    ("right_end", "one-hot number open at the right end (all zero before the lead or when closed)"),
    ("run_in_progress", "1 while the player to act has already played a tile this turn"),
    ("run_end", "one-hot end (left, right) the run in progress is bound to; zero when unbound"),
    ("hand_sizes", "tiles in each hand / 12, relative seats (0 = me, 1 = the seat after me, ...)"),
    ("voids", "for seats 1..P-1 relative to me: numbers that seat is known not to hold"),
    ("out", "1 for seats out of play (eliminated, or the match's loser), relative seats"),
    ("to_act", "one-hot relative seat of the player to act"),
    ("match_points", "cumulative penalty points / limit, relative seats"),
)


# ----------------------------------------------------------------------------------------------
# Small helpers


@njit(cache=True)
def next_in_play(state, cfg, g, seat):
    """The first seat after ``seat`` that has not been eliminated."""
    s = state[g]
    following = (seat + 1) % cfg[0].num_players
    while s.lost[following]:
        following = (following + 1) % cfg[0].num_players
    return following


@njit(cache=True)
def holds_fit(state, g, seat, number):
    """Whether ``seat`` holds a tile with ``number`` (never for a closed end)."""
    if number == NO_END:
        return False
    s = state[g]
    for t in range(NUM_TILES):
        if s.location[t] == seat and core.fits(t, number):
            return True
    return False


@njit(cache=True)
def is_blocked(state, g):
    """Nobody can play: no tile in any hand fits an open end (eliminated seats hold none)."""
    s = state[g]
    left, right = s.ends[LEFT], s.ends[RIGHT]
    for t in range(NUM_TILES):
        if s.location[t] >= 0 and (core.fits(t, left) or core.fits(t, right)):
            return False
    return True


@njit(cache=True)
def mark_void(state, g, seat, side):
    """Record publicly that ``seat`` holds nothing for the number open at ``side``."""
    s = state[g]
    number = s.ends[side]
    if number != NO_END:
        s.voids[seat, number] = 1


# ----------------------------------------------------------------------------------------------
# Dealing


@njit(cache=True)
def lay_out(state, cfg, g, order):
    """Deal ``order`` to the seats in play, in seat order, a hand for their number each; the
    rest is set aside. Resets everything that belongs to one hand."""
    s = state[g]
    s.location[:] = SET_ASIDE
    s.hand_count[:] = 0
    players_in = 0
    for seat in range(cfg[0].num_players):
        players_in += 1 - s.lost[seat]
    size = hand_size(players_in)
    dealt = 0
    for seat in range(cfg[0].num_players):
        if s.lost[seat]:
            continue
        for i in range(dealt, dealt + size):
            s.location[order[i]] = seat
        s.hand_count[seat] = size
        dealt += size
    core.clear_line(s)
    s.run_active = 0
    s.run_end = NO_END
    s.voids[:, :] = 0
    s.current = s.leader


@njit(cache=True)
def start_hand(state, cfg, g):
    """Shuffle all 28 tiles with the game's own generator and deal them. Every hand draws the
    same amount of randomness, so a game's deals never depend on the moves played."""
    order = np.arange(NUM_TILES).astype(np.int8)
    shuffle(state, g, order)
    lay_out(state, cfg, g, order)


@njit(cache=True)
def reset_match(state, g):
    """Clear what belongs to a whole match: totals, eliminations, the last rewards."""
    s = state[g]
    s.match_points[:] = 0
    s.hand_points[:] = 0
    s.rewards[:] = 0
    s.lost[:] = 0
    s.hand_number = 0
    s.game_over = 0


@njit(cache=True)
def start_game(state, cfg, g):
    """Begin a new episode (one hand, or a whole match) from the game's generator; the first
    leader is chosen by lot."""
    reset_match(state, g)
    state[g].leader = below(state, g, cfg[0].num_players)
    start_hand(state, cfg, g)


@njit(cache=True)
def start_game_from_deal(state, cfg, g, order, leader):
    """Begin a new episode whose first hand is ``order`` (hands in seat order, then the tiles set
    aside), led by ``leader``, or by a seat drawn by lot when ``leader`` is -1. The caller has
    checked the deal."""
    reset_match(state, g)
    state[g].leader = below(state, g, cfg[0].num_players) if leader < 0 else leader
    lay_out(state, cfg, g, order)


# ----------------------------------------------------------------------------------------------
# Legal actions


@njit(cache=True)
def legal_mask(state, cfg, g, mask):
    """Write the acting seat's legal actions into ``mask`` (int8); return how many there are."""
    s = state[g]
    mask[:] = 0
    if s.game_over:
        return 0
    count = 0
    seat = s.current
    if s.tiles_on_table == 0:
        for t in range(NUM_TILES):
            if s.location[t] == seat:
                mask[2 * t] = 1
                count += 1
                if cfg[0].open_ends == 1 and TILE_LOW[t] != TILE_HIGH[t]:
                    mask[2 * t + 1] = 1  # keep the high face open
                    count += 1
        return count
    bound = s.run_end if s.run_active else NO_END
    for side in range(2):
        if bound != NO_END and side != bound:
            continue
        number = s.ends[side]
        if number == NO_END:
            continue
        for t in range(NUM_TILES):
            if s.location[t] == seat and core.fits(t, number):
                mask[2 * t + side] = 1
                count += 1
    if count > 0:
        return count
    mask[PASS] = 1  # a seat that cannot play at the start of its turn passes
    return 1


# ----------------------------------------------------------------------------------------------
# Playing


@njit(cache=True)
def step(state, cfg, g, action):
    """Apply the acting seat's legal ``action``: a pass, or a tile that starts or goes on with its
    run, which continues while the seat holds a tile for the run's end. Returns PLAYING,
    HAND_OVER or GAME_OVER, with this step's rewards in ``rewards``."""
    s = state[g]
    seat = core.begin_step(s)
    if action == PASS:
        mark_void(state, g, seat, LEFT)
        mark_void(state, g, seat, RIGHT)
        s.current = next_in_play(state, cfg, g, seat)
        return PLAYING
    side = action % 2
    leading = s.tiles_on_table == 0
    core.place(state, g, action // 2, side)
    s.hand_count[seat] -= 1
    s.run_active = 1
    if not leading:
        s.run_end = side
    elif cfg[0].open_ends == 1:
        s.ends[1 - side] = NO_END  # the line grows from the side the leader kept open
        s.run_end = side
    if s.hand_count[seat] == 0 and cfg[0].end_on_domino:
        return finish_hand(state, cfg, g, seat)
    if s.run_end != NO_END:
        if holds_fit(state, g, seat, s.ends[s.run_end]):
            return PLAYING  # the run must go on
        mark_void(state, g, seat, s.run_end)
    else:  # the leader's run after the opening tile, not yet bound to an end
        if holds_fit(state, g, seat, s.ends[LEFT]) or holds_fit(state, g, seat, s.ends[RIGHT]):
            return PLAYING
        mark_void(state, g, seat, LEFT)
        mark_void(state, g, seat, RIGHT)
    s.run_active = 0
    s.run_end = NO_END
    if is_blocked(state, g):
        return finish_hand(state, cfg, g, -1)
    s.current = next_in_play(state, cfg, g, seat)
    return PLAYING


@njit(cache=True)
def pay_rewards(state, cfg, g, domino_seat):
    """``hand_points`` (pips left in each hand) and this hand's rewards for the seats in play:
    winners (the seat that went out, or else the lowest totals) share +1 and losers -1, or under
    ``reward="points"`` the mean of the pips left less one's own, over ``POINTS_SCALE``.
    Eliminated seats hold nothing and get nothing."""
    s = state[g]
    players = cfg[0].num_players
    s.hand_points[:] = 0
    for t in range(NUM_TILES):
        if s.location[t] >= 0:
            s.hand_points[s.location[t]] += TILE_VALUE[t]
    s.pips_left[:] = s.hand_points
    if cfg[0].reward == REWARD_POINTS:
        core.share_points(s, players, POINTS_SCALE, -1.0, s.lost)
        return
    lowest = 1 << 30
    for seat in range(players):
        if not s.lost[seat]:
            lowest = min(lowest, s.hand_points[seat])
    won = np.zeros(players, np.uint8)
    for seat in range(players):
        won[seat] = seat == domino_seat if domino_seat >= 0 else s.hand_points[seat] == lowest
    core.share_win(s, won, players, s.lost)


@njit(cache=True)
def settle_limit(state, cfg, g):
    """After a hand of a match: flag who lost at the limit and return whether the match is over."""
    s = state[g]
    players = cfg[0].num_players
    crossed = 0
    staying = 0
    for seat in range(players):
        if not s.lost[seat]:
            if s.match_points[seat] >= cfg[0].limit:
                crossed += 1
            else:
                staying += 1
    if crossed == 0:
        return False
    if not cfg[0].elimination:
        highest = 0
        for seat in range(players):
            highest = max(highest, s.match_points[seat])
        for seat in range(players):
            s.lost[seat] = s.match_points[seat] == highest
        return True
    if staying > 0:
        for seat in range(players):
            if s.match_points[seat] >= cfg[0].limit:
                s.lost[seat] = 1
        return staying == 1
    # Everyone still in reached the limit together: the highest totals lose, the lowest stays.
    lowest = 1 << 30
    for seat in range(players):
        if not s.lost[seat]:
            lowest = min(lowest, s.match_points[seat])
    for seat in range(players):
        if s.match_points[seat] > lowest:
            s.lost[seat] = 1
    return True


@njit(cache=True)
def finish_hand(state, cfg, g, domino_seat):
    """Score the hand (won by ``domino_seat``, or blocked when it is -1), pay the rewards, and
    deal the next hand of a match or end the episode."""
    s = state[g]
    pay_rewards(state, cfg, g, domino_seat)
    for seat in range(cfg[0].num_players):
        s.match_points[seat] += s.hand_points[seat]
    if not cfg[0].match or settle_limit(state, cfg, g):
        return core.end_episode(s)
    s.hand_number += 1
    s.leader = next_in_play(state, cfg, g, s.leader)
    start_hand(state, cfg, g)
    return HAND_OVER


# ----------------------------------------------------------------------------------------------
# Observation


@njit(cache=True)
def observe(state, cfg, g, seat, out):
    """Write what ``seat`` may know into ``out`` (float32), relative to ``seat``.

    Only public facts and the seat's own hand are read: the faces of other hands and of the
    tiles set aside never reach ``out``.
    """
    out[:] = 0.0
    s = state[g]
    players = cfg[0].num_players
    c = cfg[0]
    hand, table, left, right, run = c.at_hand, c.at_table, c.at_left_end, c.at_right_end, c.at_run_in_progress
    run_end, hand_sizes, voids, out_of_play = c.at_run_end, c.at_hand_sizes, c.at_voids, c.at_out
    to_act, points = c.at_to_act, c.at_match_points
    core.observe_tiles(s, seat, NUM_TILES, out, hand, table)
    if s.ends[LEFT] != NO_END:
        out[left + s.ends[LEFT]] = 1.0
    if s.ends[RIGHT] != NO_END:
        out[right + s.ends[RIGHT]] = 1.0
    if s.run_active:
        out[run] = 1.0
        if s.run_end != NO_END:
            out[run_end + s.run_end] = 1.0
    for r in range(players):
        other = (seat + r) % players
        out[hand_sizes + r] = s.hand_count[other] / LARGEST_HAND
        out[out_of_play + r] = s.lost[other]
        out[points + r] = s.match_points[other] / cfg[0].limit
    core.observe_turn(s, seat, players, NUMBERS, out, voids, to_act)


# ----------------------------------------------------------------------------------------------
# Determinization: a complete game a seat cannot tell from the real one, for search agents.


@njit(cache=True)
def determinize(state, cfg, g, observer, out, h):
    """Write into ``out[h]`` a complete game that ``observer`` cannot tell apart from game ``g``.

    Kept: the observer's hand, the line, every hand size, the run in progress, the voids, the
    scores and every other public field. Dealt anew: the other hands and the tiles set aside,
    uniformly over the deals that give no seat a number it is known not to hold (a seat is void
    in a number once it could not play on it). The randomness is ``out[h]``'s own generator,
    which the copy keeps, so nothing hidden in game ``g`` reaches the result. Returns True when
    the draw is exactly uniform (see :mod:`domino_env.sampling`).
    """
    return determinize_weighted(state, cfg, g, observer, out, h, NO_WEIGHTS)


@njit(cache=True)
def determinize_weighted(state, cfg, g, observer, out, h, weights):
    """``determinize``, the hidden tiles' places drawn in proportion to ``weights`` ([P + 1,
    tiles]: seats, then the tiles set aside; see ``domino_env.sampling.place_weighted``) under
    the same constraints; an empty ``weights`` (``NO_WEIGHTS``) draws uniformly, as
    ``determinize``."""
    players = cfg[0].num_players
    hidden, capacity, forbidden = core.start_determinize(state, g, observer, out, h, players, NUM_TILES, -1)
    s = out[h]
    count = hidden.shape[0]
    # Places 0 .. P-1 are the seats (the observer's own takes nothing), place P the tiles set aside.
    capacity[players] = count - capacity[:players].sum()
    placement = np.empty(count, np.int64)
    exact = place(out, h, hidden, capacity, forbidden, weights, placement)
    for i in range(count):
        s.location[hidden[i]] = SET_ASIDE if placement[i] == players else placement[i]
    return exact


core.implement(STATE_DTYPE, start_game=start_game, step=step, observe=observe, legal_mask=legal_mask)
