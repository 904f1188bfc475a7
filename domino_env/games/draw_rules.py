"""The rules of Draw Dominoes and Block Dominoes (RULES.md sections 1, 2, 5 and 6).

This module is the only place these rules live. The PettingZoo environment, the batched engine,
the agents and the renderer all call the compiled functions below; none of them re-implements a
rule. Block Dominoes is the same engine with drawing switched off (``allow_draw == 0``).

It keeps the contract of :mod:`domino_env.games.core`, which also holds what every variant's
rules share (the line of play, rewards, the batch loops). A batch of games is one numpy record
array (``STATE_DTYPE``), one record per game, sized for the largest configuration so that every
configuration shares one compiled version of each function.
The configuration is a ``DrawConfig`` of plain integers; the compiled functions receive it as a
one-record array (``Game.packed_config``) and read ``cfg[0].num_players``, because numba
recognises an array argument several times faster than a NamedTuple, which matters for the
AEC environment's per-call cost.

Actions: ``tile * 2 + end`` plays ``tile`` against the left (0) or right (1) open end; the first
tile of a hand is played on the left. Then ``DRAW = 2 * T`` and ``PASS = 2 * T + 1``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from domino_env.games import core
from domino_env.games.core import HAND_OVER, LEFT, PLAYING, REWARD_POINTS, RIGHT
from domino_env.rng import shuffle
from domino_env.sampling import NO_WEIGHTS, place_with_boneyard
from domino_env.tiles import MAX_PIPS, MAX_TILES, TILE_HIGH, TILE_LOW, TILE_VALUE

MAX_PLAYERS = 10
# Where a tile is (the ``location`` field): 0 .. P-1 in that seat's hand, or in the boneyard (in
# Block, never dealt), or on the table.
IN_BONEYARD, ON_TABLE = core.UNDEALT, core.ON_TABLE

# Lead rules (the ``lead`` option).
LEAD_HIGHEST_DOUBLE = 0
LEAD_HEAVIEST_TILE = 1
LEAD_ANY = 2
LEAD_NAMES = ("highest_double", "heaviest_tile", "any")

BLOCK_SCORING_NAMES = ("opponents", "difference")

# ``hand_points``: the points each seat won in the last hand (its side's, with partnerships).
STATE_DTYPE = core.state_dtype(
    MAX_PLAYERS,
    [
        ("location", np.int8, (MAX_TILES,)),
        ("boneyard", np.int8, (MAX_TILES,)),  # draw order; entries from boneyard_top on are left
        ("boneyard_top", np.int16),
        ("boneyard_size", np.int16),  # tiles put in the boneyard by the deal
        ("hand_count", np.int16, (MAX_PLAYERS,)),
        *core.LINE_FIELDS,
        ("leader", np.int8),
        ("first_leader", np.int8),  # seat that leads hand 0 under lead="any"
        ("lead_tile", np.int16),  # the tile that must be led, or -1 when any tile may lead
        ("voids", np.uint8, (MAX_PLAYERS, MAX_PIPS + 1)),  # numbers a seat is known not to hold
        ("hand_number", np.int16),
        ("redeals", np.int16),  # throw-ins this hand because nobody held a double
    ],
)


class DrawConfig(NamedTuple):
    """One configuration of the draw engine, as plain integers the compiled code can read."""

    num_players: int
    set_size: int
    num_tiles: int
    hand_size: int
    partnerships: int
    allow_draw: int
    voluntary_draw: int
    reserve: int
    lead: int
    first_leader: int
    block_scoring: int
    match: int
    target: int
    reward: int
    points_scale: int  # total pips of the set: no hand scores more, so |points reward| <= 1


def num_actions(cfg: DrawConfig) -> int:  # Python-side: takes the NamedTuple
    """Size of the action space: a play per (tile, end), then draw and pass."""
    return 2 * cfg.num_tiles + 2


@njit(cache=True)
def draw_action(cfg):
    return 2 * cfg[0].num_tiles


@njit(cache=True)
def pass_action(cfg):
    return 2 * cfg[0].num_tiles + 1


# ----------------------------------------------------------------------------------------------
# Observation layout: offsets computed in one place for the compiled code and for Python.


@njit(cache=True)
def layout_sizes(cfg):
    """Sizes of the observation's blocks, in order (see ``OBSERVATION_BLOCKS``)."""
    t = cfg[0].num_tiles
    n = cfg[0].set_size + 1
    p = cfg[0].num_players
    return (t, t, n, n, p, 1, (p - 1) * n, p, p)


OBSERVATION_BLOCKS = (
    ("hand", "my tiles (one per tile index)"),
    ("table", "tiles on the table"),
    ("left_end", "one-hot number open at the left end (all zero before the lead)"),
    ("right_end", "one-hot number open at the right end"),
    ("hand_sizes", "tiles in each hand / T, relative seats (0 = me)"),
    ("boneyard", "drawable boneyard tiles / T"),
    ("voids", "for seats 1..P-1 relative to me: numbers that seat is known not to hold"),
    ("to_act", "one-hot relative seat of the player to act"),
    ("match_points", "cumulative points / target, relative seats"),
)


# ----------------------------------------------------------------------------------------------
# Small helpers


@njit(cache=True)
def team_of(cfg, seat):
    """Side of a seat: its partnership (seat % 2) or, without partnerships, the seat itself."""
    return seat % 2 if cfg[0].partnerships else seat


@njit(cache=True)
def drawable(state, cfg, g):
    """Tiles that may still be drawn: the boneyard less the reserve (none in Block)."""
    if not cfg[0].allow_draw:
        return 0
    s = state[g]
    left = s.boneyard_size - s.boneyard_top - cfg[0].reserve
    return left if left > 0 else 0


@njit(cache=True)
def is_blocked(state, cfg, g):
    """No player can play and no player can draw (RULES.md: "Blocked")."""
    if drawable(state, cfg, g) > 0:
        return False
    s = state[g]
    left, right = s.ends[LEFT], s.ends[RIGHT]
    for t in range(cfg[0].num_tiles):
        if s.location[t] >= 0 and (core.fits(t, left) or core.fits(t, right)):
            return False
    return True


@njit(cache=True)
def pips_in_hands(state, cfg, g, out):
    out[:] = 0
    s = state[g]
    for t in range(cfg[0].num_tiles):
        if s.location[t] >= 0:
            out[s.location[t]] += TILE_VALUE[t]


# ----------------------------------------------------------------------------------------------
# Dealing and the lead


@njit(cache=True)
def lay_out(state, cfg, g, order):
    """Deal ``order``: the first hand_size tiles to seat 0, the next to seat 1, ...; the rest
    form the boneyard, drawn from the front. Resets everything that belongs to one hand."""
    s = state[g]
    s.location[:] = IN_BONEYARD
    s.hand_count[:] = 0
    dealt = cfg[0].hand_size * cfg[0].num_players
    for i in range(dealt):
        seat = i // cfg[0].hand_size
        s.location[order[i]] = seat
        s.hand_count[seat] += 1
    s.boneyard_size = cfg[0].num_tiles - dealt
    for i in range(s.boneyard_size):
        s.boneyard[i] = order[dealt + i]
    s.boneyard_top = 0
    core.clear_line(s)
    s.voids[:, :] = 0
    s.redeals = 0


@njit(cache=True)
def lead_key(tile):
    """Order of tiles for the heaviest-tile lead: value, then a double first, then top face."""
    double = 1 if TILE_LOW[tile] == TILE_HIGH[tile] else 0
    return TILE_VALUE[tile] * 64 + double * 32 + TILE_HIGH[tile]


@njit(cache=True)
def choose_lead(state, cfg, g):
    """Set the leader and the tile they must lead. Returns False when the lead rule asks for a
    double that nobody holds (the hands are then thrown in and redealt)."""
    s = state[g]
    if cfg[0].lead == LEAD_ANY:
        s.leader = (s.first_leader + s.hand_number) % cfg[0].num_players
        s.lead_tile = -1
    else:
        best = -1
        for t in range(cfg[0].num_tiles):
            if s.location[t] < 0:
                continue
            if cfg[0].lead == LEAD_HIGHEST_DOUBLE:
                if TILE_LOW[t] == TILE_HIGH[t] and (best < 0 or TILE_LOW[t] > TILE_LOW[best]):
                    best = t
            elif best < 0 or lead_key(t) > lead_key(best):
                best = t
        if best < 0:
            return False
        s.lead_tile = best
        s.leader = s.location[best]
    s.current = s.leader
    return True


@njit(cache=True)
def start_hand(state, cfg, g):
    """Shuffle with the game's own generator and deal, redealing while the lead is impossible."""
    order = np.arange(cfg[0].num_tiles).astype(np.int8)
    redeals = 0
    while True:
        shuffle(state, g, order)
        lay_out(state, cfg, g, order)
        if choose_lead(state, cfg, g):
            break
        redeals += 1
    state[g].redeals = redeals


@njit(cache=True)
def start_game(state, cfg, g):
    """Begin a new episode (one hand, or a whole match) from the game's generator."""
    s = state[g]
    s.match_points[:] = 0
    s.hand_points[:] = 0
    s.hand_number = 0
    s.rewards[:] = 0
    s.first_leader = cfg[0].first_leader
    s.game_over = 0
    start_hand(state, cfg, g)


@njit(cache=True)
def start_game_from_deal(state, cfg, g, order, first_leader):
    """Begin a new episode whose first hand is ``order`` (hands in seat order, then boneyard).
    The caller has checked that the deal is complete and that its lead is possible."""
    s = state[g]
    s.match_points[:] = 0
    s.hand_points[:] = 0
    s.hand_number = 0
    s.rewards[:] = 0
    s.first_leader = first_leader
    s.game_over = 0
    lay_out(state, cfg, g, order)
    return choose_lead(state, cfg, g)


# ----------------------------------------------------------------------------------------------
# Legal actions


@njit(cache=True)
def legal_mask(state, cfg, g, mask):
    """Write the acting seat's legal actions into ``mask`` (int8) and return how many there are:
    the lead, or each tile against each open end it fits, then drawing (when no tile fits, or
    always under ``voluntary_draw``) or else passing."""
    mask[:] = 0
    s = state[g]
    if s.game_over:
        return 0
    seat = s.current
    count = 0
    if s.tiles_on_table == 0:
        if s.lead_tile >= 0:
            mask[2 * s.lead_tile] = 1
            return 1
        for t in range(cfg[0].num_tiles):
            if s.location[t] == seat:
                mask[2 * t] = 1
                count += 1
        return count
    left, right = s.ends[LEFT], s.ends[RIGHT]
    for t in range(cfg[0].num_tiles):
        if s.location[t] == seat:
            if core.fits(t, left):
                mask[2 * t] = 1
                count += 1
            if core.fits(t, right):
                mask[2 * t + 1] = 1
                count += 1
    if drawable(state, cfg, g) > 0 and (count == 0 or cfg[0].voluntary_draw):
        mask[draw_action(cfg)] = 1
        count += 1
    elif count == 0:
        mask[pass_action(cfg)] = 1
        count = 1
    return count


# ----------------------------------------------------------------------------------------------
# Playing


@njit(cache=True)
def step(state, cfg, g, action):
    """Apply the acting seat's ``action`` (already known to be legal): draw, pass, or play a tile
    on an end. Returns PLAYING, HAND_OVER or GAME_OVER, this step's rewards in ``rewards``."""
    s = state[g]
    seat = core.begin_step(s)
    if action == draw_action(cfg):
        tile = s.boneyard[s.boneyard_top]
        s.boneyard_top += 1
        s.location[tile] = seat
        s.hand_count[seat] += 1
        # The drawn tile is unseen, so earlier knowledge of this hand no longer holds. A forced
        # draw shows that the rest of the hand holds neither open number.
        s.voids[seat, :] = 0
        if not cfg[0].voluntary_draw:
            s.voids[seat, s.ends[LEFT]] = 1
            s.voids[seat, s.ends[RIGHT]] = 1
    elif action == pass_action(cfg):
        if s.tiles_on_table > 0:
            s.voids[seat, s.ends[LEFT]] = 1
            s.voids[seat, s.ends[RIGHT]] = 1
        s.current = (seat + 1) % cfg[0].num_players
        return PLAYING
    else:
        core.place(state, g, action // 2, action % 2)
        s.hand_count[seat] -= 1
        if s.hand_count[seat] == 0:
            return finish_hand(state, cfg, g, seat)
        s.current = (seat + 1) % cfg[0].num_players
    if is_blocked(state, cfg, g):
        return finish_hand(state, cfg, g, -1)
    return PLAYING


@njit(cache=True)
def hand_winner_side(state, cfg, g, domino_seat, pips):
    """The winning side (a seat, or a team 0/1 with partnerships), or -1 when nobody wins."""
    if domino_seat >= 0:
        return team_of(cfg, domino_seat)
    sides = 2 if cfg[0].partnerships else cfg[0].num_players
    side_pips = np.zeros(sides, np.int64)
    for seat in range(cfg[0].num_players):
        side_pips[team_of(cfg, seat)] += pips[seat]
    best = 0
    for side in range(1, sides):
        if side_pips[side] < side_pips[best]:
            best = side
    for side in range(sides):
        if side != best and side_pips[side] == side_pips[best]:
            return -1  # tied for lowest: nobody scores
    return best


@njit(cache=True)
def finish_hand(state, cfg, g, domino_seat):
    """Score the hand (won by ``domino_seat``, or blocked when it is -1), pay the rewards, and
    deal the next hand of a match or end the episode."""
    s = state[g]
    players = cfg[0].num_players
    pips_in_hands(state, cfg, g, s.pips_left)
    side = hand_winner_side(state, cfg, g, domino_seat, s.pips_left)
    s.hand_points[:] = 0
    won = np.zeros(players, np.uint8)
    if side >= 0:
        winner_pips = 0
        loser_pips = 0
        for seat in range(players):
            won[seat] = team_of(cfg, seat) == side
            if won[seat]:
                winner_pips += s.pips_left[seat]
            else:
                loser_pips += s.pips_left[seat]
        points = loser_pips
        if domino_seat < 0 and cfg[0].block_scoring == 1:
            # "difference": the opponents' pips minus the winner's own, once per opponent. For a
            # partnership the two teams' combined pips are compared.
            points = loser_pips - winner_pips * (1 if cfg[0].partnerships else players - 1)
        for seat in range(players):
            s.hand_points[seat] = points if won[seat] else 0
    if cfg[0].reward == REWARD_POINTS:
        core.share_points(s, players, cfg[0].points_scale, 1.0, core.NOBODY_OUT)
    else:
        core.share_win(s, won, players, core.NOBODY_OUT)
    for seat in range(players):
        s.match_points[seat] += s.hand_points[seat]
    if not cfg[0].match or s.match_points[:players].max() >= cfg[0].target:
        return core.end_episode(s)
    s.hand_number += 1
    start_hand(state, cfg, g)
    return HAND_OVER


# ----------------------------------------------------------------------------------------------
# Observation


@njit(cache=True)
def observe(state, cfg, g, seat, out):
    """Write what ``seat`` may know into ``out`` (float32), seats relative to ``seat``: the
    blocks of ``OBSERVATION_BLOCKS``. Only public facts and the seat's own hand are read: the
    faces of other hands and of the boneyard never reach ``out``."""
    out[:] = 0.0
    s = state[g]
    players = cfg[0].num_players
    tiles = cfg[0].num_tiles
    c = cfg[0]
    hand, table, left, right, hand_sizes = c.at_hand, c.at_table, c.at_left_end, c.at_right_end, c.at_hand_sizes
    bone, voids, to_act, points = c.at_boneyard, c.at_voids, c.at_to_act, c.at_match_points
    core.observe_tiles(s, seat, tiles, out, hand, table)
    if s.tiles_on_table > 0:
        out[left + s.ends[LEFT]] = 1.0
        out[right + s.ends[RIGHT]] = 1.0
    for r in range(players):
        other = (seat + r) % players
        out[hand_sizes + r] = s.hand_count[other] / tiles
        out[points + r] = s.match_points[other] / cfg[0].target
    out[bone] = drawable(state, cfg, g) / tiles
    core.observe_turn(s, seat, players, cfg[0].set_size + 1, out, voids, to_act)


# ----------------------------------------------------------------------------------------------
# Determinization: a complete game a seat cannot tell from the real one, for search agents.


@njit(cache=True)
def determinize(state, cfg, g, observer, out, h):
    """Write into ``out[h]`` a complete game that ``observer`` cannot tell apart from game ``g``.

    Kept: the observer's hand, the table, every hand size, the boneyard's size and what has been
    drawn from it, the voids, the scores and every other public field. Dealt anew: the tiles the
    observer cannot see (other hands, the undrawn boneyard in a fresh draw order, Block's undealt
    tiles), uniformly over the deals that give no seat a number it is known not to hold. The
    randomness is ``out[h]``'s own generator, which the copy keeps, so nothing hidden in game
    ``g`` (its faces, its generator) reaches the result.

    Knowledge left unused, so the draw is uniform over a slightly larger set than the observer
    could narrow it to: under ``lead="highest_double"``, that no higher double was dealt to a
    hand; and when another seat is to act, its voids on the two open numbers, since a seat in the
    middle of drawing may just have drawn a tile that fits them (it must play it next).
    Returns True when the draw is exactly uniform (see :mod:`domino_env.sampling`).
    """
    return determinize_weighted(state, cfg, g, observer, out, h, NO_WEIGHTS)


@njit(cache=True)
def determinize_weighted(state, cfg, g, observer, out, h, weights):
    """``determinize``, the hidden tiles' places drawn in proportion to ``weights`` ([P + 1,
    tiles]: seats, then the boneyard; see ``domino_env.sampling.place_weighted``) under the same
    constraints; an empty ``weights`` (``NO_WEIGHTS``) draws uniformly, as ``determinize``."""
    # Before the lead, the tile that must lead is known to be the leader's.
    lead = state[g].lead_tile
    known_lead = lead if state[g].tiles_on_table == 0 and lead >= 0 else -1
    players = cfg[0].num_players
    tiles = cfg[0].num_tiles
    hidden, capacity, forbidden = core.start_determinize(state, g, observer, out, h, players, tiles, known_lead)
    s = out[h]
    acting = s.current
    # Places 0 .. P-1 are the seats (the observer's own takes nothing), place P the boneyard.
    if acting != observer and s.tiles_on_table > 0:
        forbidden[acting, s.ends[LEFT]] = 0
        forbidden[acting, s.ends[RIGHT]] = 0
    if known_lead >= 0 and s.leader != observer:
        s.location[known_lead] = s.leader
        capacity[s.leader] -= 1
    capacity[players] = s.boneyard_size - s.boneyard_top
    return place_with_boneyard(
        out, h, hidden, capacity, forbidden, weights, s.location, s.boneyard, s.boneyard_top, IN_BONEYARD
    )


core.implement(STATE_DTYPE, start_game=start_game, step=step, observe=observe, legal_mask=legal_mask)
