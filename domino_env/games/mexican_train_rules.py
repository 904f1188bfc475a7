"""The rules of Mexican Train (RULES.md sections 4, 5 and 6).

This module is the only place these rules live. The PettingZoo environment, the batched engine,
the agents and the renderer all call the compiled functions below; none of them re-implements a
rule. It follows the shape of :mod:`domino_env.games.draw_rules`: a batch of games is one numpy
record array (``STATE_DTYPE``), one record per game, sized for the largest configuration; the
configuration is a ``MexicanTrainConfig`` of plain integers that the compiled functions receive
packed as a one-record array (``Game.packed_config``, read as ``cfg[0].num_players``).

Trains. Train ``i < P`` is seat ``i``'s personal train and train ``P`` the Mexican Train; each
keeps its open number (``train_end``, the engine's number while it is empty) and its length.
Actions and observations name trains relative to the actor instead: target 0 is the actor's own
train, target 1 the Mexican Train and target ``1 + k`` the train of the k-th seat after the
actor. Action ``tile * (P + 1) + target`` plays ``tile`` on that train; then ``DRAW = T * (P +
1)`` and ``PASS = DRAW + 1``.

The round. ``engine="highest_double"`` (the default, the rule page): the whole set is dealt and
the seat holding the highest double of all hands places it on the hub as the engine (no hand
holds a double: the round is dealt again); that seat, the starter, then has an opening turn in
which it may begin its own train with one tile matching the engine or ``pass`` (no draw, no
marker; it is still its first turn, so ``first_turn="chain"`` lets it go on), and the next seat
plays after it. ``engine="descending"``: the engine double of round ``k`` is ``N - k`` (N = 12 or
9); its holder places it while dealing, and when nobody holds it the seats draw from the boneyard
in seat order, from the seat after the previous round's starter, until one draws it; all of that
is public and happens at deal time, not as actions. The starter places the engine and the next
seat plays first. ``engine="set_aside"``: round ``k``'s engine ``N - k`` is kept out of the deal
and waits on the hub, and the starter, the seat after the previous round's, plays first. The
first round counts seat P - 1 as the previous starter, so seat 0 starts (or draws first) unless a
deal says otherwise.

A turn is a sequence of actions by one seat:

- With no double to satisfy, the seat plays one tile on its own train, on the Mexican Train (to
  start it, its own train must be started) or on a train carrying its owner's marker (to start
  such a train while it is empty, its own train must be started too). On its first turn of the
  round a seat able to begin its own train must play there. A seat that cannot play draws one
  tile and then always decides, in a further action, what to do with it: play it if it fits, or
  ``pass``, keeping it and putting up its marker (``must_play_drawn`` allows the pass only when
  the tile fits nowhere). So the other seats see the same draw-then-decide whether or not the
  drawn tile could be played. With the boneyard empty, a seat that cannot play passes. A turn
  that ends without a tile played puts up the seat's marker (but for the starter's opening turn);
  a tile played on the seat's own train takes it down.
- A double must then be satisfied: while one is pending every seat in turn may only play on the
  double's train (private or not) a tile matching it, drawing one tile when unable (a drawn tile
  that satisfies must be played, else the seat passes) and passing, marker up, when still unable;
  the seat that played the double tries first, in the same turn, and marks its train if it
  fails. The satisfier's turn ends. A double played as the seat's last tile ends the round
  instead.
- ``first_turn="chain"``: on its first turn a seat that plays on its own train may go on playing
  tiles that fit its own train, until it ``pass``es (no marker); the pass is asked for even when
  nothing more fits, so the other seats never learn from the chain's end what the hand holds. A
  double in the chain must be satisfied first, and its satisfying tile continues the chain.

The round ends when a seat plays its last tile, or blocked: the boneyard empty, every seat having
passed in succession (a pass here is a turn that ended with nothing played or drawn, the
starter's opening turn aside), and no seat
able to play on the table as it then stands (by then every personal train carries its marker).

Voids. ``voids[seat, n]`` marks numbers the seat has shown it does not hold: a seat that passes
with nothing to play or draw, or passes after a draw when it could not have kept a playable tile
(a pending double, ``must_play_drawn``), or plays the tile it has just drawn, holds nothing for
the open numbers it could play on. A draw forgets what was known (the drawn tile is unseen), and
a pass that may have kept a playable drawn tile shows nothing, so the marks never depend on
whether a kept tile could be played. The marks are always true of the hand.

Scoring. Every seat's ``hand_points`` are the pips left in its hand, the double blank counting
``double_blank_value``. The seat that went out wins the round; a blocked round is won by the
lowest total (a tie shares the win; everyone tied: nobody wins). Rewards: ``win`` shares +1 among
the winners and -1 among the others; ``points`` gives each seat the mean of the hand points minus
its own, over ``points_scale`` (the set's pips plus ``double_blank_value``: no hand holds more).
A match (``match``) plays N + 1 rounds, each started as its ``engine`` mode says, and its winner
is the lowest total.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from domino_env.games import core
from domino_env.games.core import HAND_OVER, PLAYING, REWARD_POINTS
from domino_env.rng import shuffle
from domino_env.sampling import NO_WEIGHTS, place_with_boneyard
from domino_env.tiles import MAX_PIPS, MAX_TILES, TILE_HIGH, TILE_LOW, TILE_VALUE

MAX_PLAYERS = 8
MAX_TRAINS = MAX_PLAYERS + 1  # the personal trains and the Mexican Train
NUMBERS = MAX_PIPS + 1

# Where a tile is (the ``location`` field): 0 .. P-1 in that seat's hand, in the boneyard, or on
# the table (the engine on the hub, or a train).
IN_BONEYARD, ON_TABLE = core.UNDEALT, core.ON_TABLE
OFF_TRAIN = -1  # ``train_of`` for tiles not on a train (the engine on the hub, hands, boneyard)

NO_DOUBLE = -1  # ``pending_train`` when no double waits to be satisfied

# Targets of a play, relative to the actor; 1 + k is the train of the k-th seat after it.
OWN = 0
MEXICAN = 1

ENGINE_HIGHEST_DOUBLE = 0
ENGINE_DESCENDING = 1
ENGINE_SET_ASIDE = 2
ENGINE_NAMES = ("highest_double", "descending", "set_aside")
FIRST_TURN_CHAIN = 1
FIRST_TURN_NAMES = ("single", "chain")

# HAND_OVER from ``step``: a round of a match ended and the next round has been dealt.
# ``hand_points``: the penalty points left in each hand, as ``pips_left``.
STATE_DTYPE = core.state_dtype(
    MAX_PLAYERS,
    [
        ("location", np.int8, (MAX_TILES,)),
        ("train_of", np.int8, (MAX_TILES,)),  # train a table tile lies on, else OFF_TRAIN
        ("play_order", np.int16, (MAX_TILES,)),  # when a table tile was laid (0: the engine)
        ("boneyard", np.int8, (MAX_TILES,)),  # draw order; entries from boneyard_top on are left
        ("boneyard_top", np.int16),
        ("boneyard_size", np.int16),  # tiles put in the boneyard by the deal
        ("hand_count", np.int16, (MAX_PLAYERS,)),
        ("engine", np.int8),  # number of this round's engine double
        ("starter", np.int8),  # seat that placed the engine (set aside: that played first)
        ("train_end", np.int8, (MAX_TRAINS,)),  # open number per train; the engine's while empty
        ("train_size", np.int16, (MAX_TRAINS,)),  # tiles on each train
        ("marker", np.uint8, (MAX_PLAYERS,)),  # the seat's marker is on its train
        ("pending_train", np.int8),  # train whose double must be satisfied, or NO_DOUBLE
        ("had_turn", np.uint8, (MAX_PLAYERS,)),  # the seat's first turn of the round is over
        ("turn_played", np.uint8),  # the seat to act has played a tile this turn
        ("turn_drew", np.uint8),  # ... and drawn since its last play (one draw each time)
        ("opening", np.uint8),  # the starter's opening turn (highest_double), before it acts
        ("passes", np.int16),  # turns in succession that ended with nothing played or drawn
        ("tiles_on_table", np.int16),
        ("voids", np.uint8, (MAX_PLAYERS, NUMBERS)),  # numbers a seat is known not to hold
        ("round_number", np.int16),  # 0 for the first round
    ],
)


class MexicanTrainConfig(NamedTuple):
    """One configuration of the Mexican Train engine, as plain integers the compiled code reads."""

    num_players: int
    set_size: int  # 12 or 9; rounds = set_size + 1, and the engines of descending and set_aside
    num_tiles: int
    hand_size: int
    engine: int  # index into ENGINE_NAMES
    must_play_drawn: int
    first_turn: int  # index into FIRST_TURN_NAMES
    double_blank_value: int
    match: int
    reward: int  # index into REWARD_NAMES
    points_scale: int  # the set's pips plus double_blank_value: no hand holds more


def num_actions(cfg: MexicanTrainConfig) -> int:  # Python-side: takes the NamedTuple
    """Size of the action space: a play per (tile, target train), then draw and pass."""
    return cfg.num_tiles * (cfg.num_players + 1) + 2


@njit(cache=True)
def draw_action(cfg):
    return cfg[0].num_tiles * (cfg[0].num_players + 1)


@njit(cache=True)
def pass_action(cfg):
    return cfg[0].num_tiles * (cfg[0].num_players + 1) + 1


@njit(cache=True)
def double_tile(number):
    """Index of the double ``number``-``number`` (see ``domino_env.tiles``)."""
    n = int(number)  # record fields are int8: widen before multiplying (matters without the JIT)
    return n * (n + 1) // 2 + n


@njit(cache=True)
def bit(train):
    """``train``'s bit in a set of trains."""
    return np.int64(1) << np.int64(train)


@njit(cache=True)
def train_at(cfg, seat, target):
    """The train (absolute index) that ``seat`` calls ``target``."""
    players = cfg[0].num_players
    if target == OWN:
        return seat
    if target == MEXICAN:
        return players
    return (seat + target - 1) % players


@njit(cache=True)
def target_of(cfg, seat, train):
    """What ``seat`` calls ``train``: the inverse of ``train_at``."""
    players = cfg[0].num_players
    return OWN if train == seat else MEXICAN if train == players else 1 + (train - seat) % players


# ----------------------------------------------------------------------------------------------
# Observation layout: sizes computed in one place for the compiled code and for Python.


@njit(cache=True)
def layout_sizes(cfg):
    """Sizes of the observation's blocks, in order (see ``OBSERVATION_BLOCKS``)."""
    t = cfg[0].num_tiles
    n = cfg[0].set_size + 1
    p = cfg[0].num_players
    trains = p + 1
    return (t, t, n, trains * n, trains, trains, trains, trains, n, p, 1, (p - 1) * n, p, 3, p, p)


OBSERVATION_BLOCKS = (
    ("hand", "my tiles (one per tile index)"),
    ("table", "tiles on the table, the engine included"),
    ("engine", "one-hot number of the round's engine double"),
    (
        "train_ends",
        "per train, one-hot open number (an empty train shows the engine's); trains in target order: "
        "my own, the Mexican Train, then the trains of the seats 1..P-1 after me",
    ),
    ("train_started", "1 for each train holding a tile, same train order"),
    ("train_public", "1 for each train open to everyone: the Mexican Train, and trains with their owner's marker"),
    ("train_sizes", "tiles on each train / T, same train order"),
    ("double_train", "one-hot train holding the double that must be satisfied (all zero when none)"),
    ("double_number", "one-hot number of the double that must be satisfied"),
    ("hand_sizes", "tiles in each hand / T, relative seats (0 = me, 1 = the seat after me, ...)"),
    ("boneyard", "tiles left in the boneyard / T"),
    ("voids", "for seats 1..P-1 after me: numbers that seat has shown it does not hold"),
    ("had_turn", "1 for each seat (relative) whose first turn of the round is over"),
    (
        "turn",
        "whether the player to act has played a tile this turn, has drawn since, and is the starter "
        "in its opening turn (it may pass without drawing)",
    ),
    ("to_act", "one-hot relative seat of the player to act"),
    ("match_points", "cumulative penalty points / points_scale, relative seats"),
)


# ----------------------------------------------------------------------------------------------
# Small helpers


@njit(cache=True)
def penalty(cfg, tile):
    """Points a tile left in hand costs: its pips, the double blank ``double_blank_value``."""
    return cfg[0].double_blank_value if tile == 0 else TILE_VALUE[tile]


@njit(cache=True)
def boneyard_left(state, g):
    return state[g].boneyard_size - state[g].boneyard_top


@njit(cache=True)
def draw_tile(state, g, seat):
    """Move the boneyard's next tile into ``seat``'s hand."""
    s = state[g]
    tile = s.boneyard[s.boneyard_top]
    s.boneyard_top += 1
    s.location[tile] = seat
    s.hand_count[seat] += 1


@njit(cache=True)
def holds_fit(state, cfg, g, seat, number):
    """Whether ``seat`` holds a tile showing ``number``."""
    s = state[g]
    for t in range(cfg[0].num_tiles):
        if s.location[t] == seat and core.fits(t, number):
            return True
    return False


@njit(cache=True)
def open_trains(state, cfg, g, seat):
    """Bit set (bit i: train i) of the trains ``seat`` may play on now.

    A pending double allows its own train only; a first-turn chain, the seat's own train; a seat
    on its first turn that can begin its own train, that train. Otherwise: the own train, the
    Mexican Train once started or once the own train is, and every train carrying a marker, an
    empty one only once the own train is started.
    """
    s = state[g]
    players = cfg[0].num_players
    if s.pending_train != NO_DOUBLE:
        return bit(s.pending_train)
    own = bit(seat)
    if seat == s.current and s.turn_played:
        return own
    if not s.had_turn[seat] and holds_fit(state, cfg, g, seat, s.train_end[seat]):
        return own
    trains = own
    own_started = s.train_size[seat] > 0
    if own_started or s.train_size[players] > 0:
        trains |= bit(players)
    for other in range(players):
        if s.marker[other] and (own_started or s.train_size[other] > 0):
            trains |= bit(other)
    return trains


@njit(cache=True)
def holds_play(state, cfg, g, seat, trains):
    """Whether ``seat`` holds a tile fitting one of the trains in the bit set ``trains``."""
    s = state[g]
    for t in range(cfg[0].num_tiles):
        if s.location[t] == seat:
            for train in range(cfg[0].num_players + 1):
                if (trains >> train) & 1 and core.fits(t, s.train_end[train]):
                    return True
    return False


@njit(cache=True)
def mark_voids(state, cfg, g, seat, trains):
    """Record publicly that ``seat`` holds nothing for the open numbers of ``trains``."""
    s = state[g]
    for train in range(cfg[0].num_players + 1):
        if (trains >> train) & 1:
            s.voids[seat, s.train_end[train]] = 1


# ----------------------------------------------------------------------------------------------
# Dealing and the engine


@njit(cache=True)
def lay_out(state, cfg, g, order):
    """Deal ``order`` (the whole set): hand_size tiles to each seat in seat order, the rest to the
    boneyard, drawn from the front; under ``engine="set_aside"`` the engine is passed over (it
    waits on the hub, so ``engine`` must be set). Resets everything that belongs to one round."""
    s = state[g]
    players = cfg[0].num_players
    set_aside = double_tile(s.engine) if cfg[0].engine == ENGINE_SET_ASIDE else -1
    to_deal = players * cfg[0].hand_size
    s.location[:] = IN_BONEYARD
    s.train_of[:] = OFF_TRAIN
    s.hand_count[:] = 0
    dealt = 0
    s.boneyard_size = 0
    for i in range(cfg[0].num_tiles):
        tile = order[i]
        if tile == set_aside:
            continue
        if dealt < to_deal:
            seat = dealt // cfg[0].hand_size
            s.location[tile] = seat
            s.hand_count[seat] += 1
            dealt += 1
        else:
            s.boneyard[s.boneyard_size] = tile
            s.boneyard_size += 1
    s.boneyard_top = 0
    s.train_size[:] = 0
    s.marker[:] = 0
    s.had_turn[:] = 0
    s.pending_train = NO_DOUBLE
    s.turn_played = 0
    s.turn_drew = 0
    s.opening = 0
    s.passes = 0
    s.voids[:, :] = 0


@njit(cache=True)
def highest_double_held(state, cfg, g):
    """The number of the highest double in any hand, or -1 when no hand holds a double."""
    for number in range(cfg[0].set_size, -1, -1):
        if state[g].location[double_tile(number)] >= 0:
            return number
    return -1


@njit(cache=True)
def place_engine(state, cfg, g):
    """Put the engine on the hub and seat the first player. ``starter`` holds the previous
    round's starter on entry and this round's on return; ``engine`` is this round's double on
    entry unless the engine is the highest double held, found here."""
    s = state[g]
    players = cfg[0].num_players
    first = (s.starter + 1) % players
    if cfg[0].engine == ENGINE_SET_ASIDE:
        s.starter = first
        s.current = first
    elif cfg[0].engine == ENGINE_DESCENDING:
        seat = first
        while s.location[double_tile(s.engine)] == IN_BONEYARD:  # nobody holds it: draw for it
            draw_tile(state, g, seat)
            seat = (seat + 1) % players
        s.starter = s.location[double_tile(s.engine)]
        s.hand_count[s.starter] -= 1
        s.current = (s.starter + 1) % players
    else:  # its holder places the highest double held and opens the round
        s.engine = highest_double_held(state, cfg, g)
        s.starter = s.location[double_tile(s.engine)]
        s.hand_count[s.starter] -= 1
        s.current = s.starter
        s.opening = 1
    engine_tile = double_tile(s.engine)
    s.location[engine_tile] = ON_TABLE
    s.play_order[engine_tile] = 0
    s.tiles_on_table = 1
    s.train_end[:] = s.engine


@njit(cache=True)
def start_round(state, cfg, g):
    """Shuffle the whole set with the game's own generator, deal and place the engine; under
    ``engine="highest_double"`` a deal that gives nobody a double is shuffled and dealt again.
    The generator serves only the deals, so a game's deals never depend on its moves."""
    order = np.arange(cfg[0].num_tiles).astype(np.int8)
    state[g].engine = cfg[0].set_size - state[g].round_number
    while True:
        shuffle(state, g, order)
        lay_out(state, cfg, g, order)
        if cfg[0].engine != ENGINE_HIGHEST_DOUBLE or highest_double_held(state, cfg, g) >= 0:
            break
    place_engine(state, cfg, g)


@njit(cache=True)
def reset_match(state, cfg, g, first_seat):
    """Clear what belongs to a whole match; the first round starts from ``first_seat``."""
    s = state[g]
    s.match_points[:] = 0
    s.hand_points[:] = 0
    s.rewards[:] = 0
    s.round_number = 0
    s.game_over = 0
    s.starter = (first_seat + cfg[0].num_players - 1) % cfg[0].num_players


@njit(cache=True)
def start_game(state, cfg, g):
    """Begin a new episode (one round, or a whole match) from the game's generator."""
    reset_match(state, cfg, g, 0)
    start_round(state, cfg, g)


@njit(cache=True)
def start_game_from_deal(state, cfg, g, order, first_seat):
    """Begin a new episode whose first round is dealt as ``order`` (hands in seat order, then the
    boneyard). Under ``engine="highest_double"`` the hands are as dealt and some hand holds a
    double; under ``"descending"`` the engine N-N is in the hand of the seat that holds it or in
    the boneyard; under ``"set_aside"`` it may be anywhere. ``first_seat`` starts the search for
    the engine, or plays first under ``engine="set_aside"``. The caller has checked the deal."""
    reset_match(state, cfg, g, first_seat)
    state[g].engine = cfg[0].set_size
    lay_out(state, cfg, g, order)
    place_engine(state, cfg, g)


# ----------------------------------------------------------------------------------------------
# Legal actions


@njit(cache=True)
def legal_mask(state, cfg, g, mask):
    """Write the acting seat's legal actions into ``mask`` (int8); return how many there are."""
    mask[:] = 0
    s = state[g]
    if s.game_over:
        return 0
    seat = int(s.current)
    stride = cfg[0].num_players + 1
    trains = open_trains(state, cfg, g, seat)
    count = 0
    for t in range(cfg[0].num_tiles):
        if s.location[t] != seat:
            continue
        low, high = TILE_LOW[t], TILE_HIGH[t]
        for train in range(stride):
            if (trains >> train) & 1:
                number = s.train_end[train]
                if low == number or high == number:
                    mask[t * stride + target_of(cfg, seat, train)] = 1
                    count += 1
    pending = s.pending_train != NO_DOUBLE
    if (s.turn_played and not pending) or s.opening:  # a first-turn chain or the opening may stop
        mask[pass_action(cfg)] = 1
        count += 1
    elif count == 0:
        if not s.turn_drew and boneyard_left(state, g) > 0:
            mask[draw_action(cfg)] = 1
        else:
            mask[pass_action(cfg)] = 1
        count = 1
    elif s.turn_drew and not pending and not cfg[0].must_play_drawn:  # the drawn tile may be kept
        mask[pass_action(cfg)] = 1
        count += 1
    return count


# ----------------------------------------------------------------------------------------------
# Playing


@njit(cache=True)
def end_turn(state, cfg, g, marker):
    """Hand the turn to the next seat, the acting seat's marker going up when ``marker``."""
    s = state[g]
    seat = s.current
    if marker:
        s.marker[seat] = 1
    s.had_turn[seat] = 1
    s.turn_played = 0
    s.turn_drew = 0
    s.opening = 0
    s.current = (seat + 1) % cfg[0].num_players


@njit(cache=True)
def lay_tile(state, cfg, g, tile, train):
    """Put ``tile`` at the end of ``train`` and update the train's open number."""
    s = state[g]
    inner = s.train_end[train]
    s.train_end[train] = TILE_HIGH[tile] if TILE_LOW[tile] == inner else TILE_LOW[tile]
    s.train_size[train] += 1
    s.location[tile] = ON_TABLE
    s.train_of[tile] = train
    s.play_order[tile] = s.tiles_on_table
    s.tiles_on_table += 1


@njit(cache=True)
def is_blocked(state, cfg, g):
    """Every seat has passed in succession and none can play on the table as it now stands."""
    if state[g].passes < cfg[0].num_players:
        return False
    for seat in range(cfg[0].num_players):
        if holds_play(state, cfg, g, seat, open_trains(state, cfg, g, seat)):
            return False
    return True


@njit(cache=True)
def step(state, cfg, g, action):
    """Apply the acting seat's ``action`` (already known to be legal) and return PLAYING,
    HAND_OVER or GAME_OVER. ``rewards`` holds this step's rewards afterwards."""
    s = state[g]
    seat = core.begin_step(s)
    if action == draw_action(cfg):  # the seat decides next, whether the drawn tile fits or not
        draw_tile(state, g, seat)
        s.turn_drew = 1
        s.passes = 0
        s.voids[seat, :] = 0  # the drawn tile is unseen: earlier knowledge of this hand is void
        return PLAYING
    if action == pass_action(cfg):
        if (s.turn_played and s.pending_train == NO_DOUBLE) or s.opening:  # not a failed turn
            end_turn(state, cfg, g, False)
        elif s.turn_drew:  # the drawn tile is kept
            if s.pending_train != NO_DOUBLE or cfg[0].must_play_drawn:  # ... for it fits nothing
                mark_voids(state, cfg, g, seat, open_trains(state, cfg, g, seat))
            end_turn(state, cfg, g, True)
        else:  # nothing to play and nothing to draw
            mark_voids(state, cfg, g, seat, open_trains(state, cfg, g, seat))
            if not s.turn_played:
                s.passes += 1
            end_turn(state, cfg, g, True)
            if is_blocked(state, cfg, g):
                return finish_round(state, cfg, g, -1)
        return PLAYING
    stride = cfg[0].num_players + 1
    tile = action // stride
    train = train_at(cfg, seat, action % stride)
    if s.turn_drew:  # this is the drawn tile: the rest of the hand fitted none of the open trains
        mark_voids(state, cfg, g, seat, open_trains(state, cfg, g, seat))
    lay_tile(state, cfg, g, tile, train)
    s.hand_count[seat] -= 1
    if train == seat:
        s.marker[seat] = 0
    s.turn_played = 1
    s.turn_drew = 0
    s.opening = 0
    s.passes = 0
    if s.hand_count[seat] == 0:  # dominoes, even on a double
        return finish_round(state, cfg, g, seat)
    if TILE_LOW[tile] == TILE_HIGH[tile]:
        s.pending_train = train  # the same seat must now satisfy it
        return PLAYING
    s.pending_train = NO_DOUBLE  # a play under a pending double satisfies it
    chaining = cfg[0].first_turn == FIRST_TURN_CHAIN and not s.had_turn[seat] and train == seat
    if not chaining:  # a chain ends with a pass, asked for even when nothing more fits
        end_turn(state, cfg, g, False)
    return PLAYING


@njit(cache=True)
def pay_rewards(state, cfg, g, domino_seat):
    """This round's rewards from ``hand_points``: the seat that went out, or the lowest totals of
    a blocked round, share +1 and the others -1; or, for ``reward="points"``, the mean of the
    hand points minus the seat's own, over ``points_scale``."""
    s = state[g]
    players = cfg[0].num_players
    if cfg[0].reward == REWARD_POINTS:
        core.share_points(s, players, cfg[0].points_scale, -1.0, core.NOBODY_OUT)
        return
    lowest = s.hand_points[:players].min()
    won = np.zeros(players, np.uint8)
    for seat in range(players):
        won[seat] = seat == domino_seat or (domino_seat < 0 and s.hand_points[seat] == lowest)
    core.share_win(s, won, players, core.NOBODY_OUT)


@njit(cache=True)
def finish_round(state, cfg, g, domino_seat):
    """Score the round (won by ``domino_seat``, or blocked when it is -1), pay the rewards, and
    deal the next round of a match or end the episode."""
    s = state[g]
    players = cfg[0].num_players
    s.hand_points[:] = 0
    for t in range(cfg[0].num_tiles):
        if s.location[t] >= 0:
            s.hand_points[s.location[t]] += penalty(cfg, t)
    s.pips_left[:] = s.hand_points
    pay_rewards(state, cfg, g, domino_seat)
    for seat in range(players):
        s.match_points[seat] += s.hand_points[seat]
    if cfg[0].match and s.round_number < cfg[0].set_size:
        s.round_number += 1
        start_round(state, cfg, g)
        return HAND_OVER
    return core.end_episode(s)


# ----------------------------------------------------------------------------------------------
# Observation


@njit(cache=True)
def observe(state, cfg, g, seat, out):
    """Write what ``seat`` may know into ``out`` (float32), trains and seats relative to
    ``seat`` (see ``OBSERVATION_BLOCKS``).

    Only public facts and the seat's own hand are read: the faces of other hands and of the
    boneyard never reach ``out``.
    """
    out[:] = 0.0
    s = state[g]
    players = cfg[0].num_players
    tiles = cfg[0].num_tiles
    numbers = cfg[0].set_size + 1
    trains = players + 1
    c = cfg[0]
    hand, table, engine, ends, started = c.at_hand, c.at_table, c.at_engine, c.at_train_ends, c.at_train_started
    public, sizes, double_train = c.at_train_public, c.at_train_sizes, c.at_double_train
    double_number, hand_sizes, bone, voids = c.at_double_number, c.at_hand_sizes, c.at_boneyard, c.at_voids
    had_turn, turn, to_act, points = c.at_had_turn, c.at_turn, c.at_to_act, c.at_match_points
    core.observe_tiles(s, seat, tiles, out, hand, table)
    out[engine + int(s.engine)] = 1.0
    for target in range(trains):
        train = train_at(cfg, seat, target)
        out[ends + target * numbers + int(s.train_end[train])] = 1.0
        if s.train_size[train] > 0:
            out[started + target] = 1.0
        if train == players or s.marker[train]:
            out[public + target] = 1.0
        out[sizes + target] = s.train_size[train] / tiles
    pending = int(s.pending_train)
    if pending != NO_DOUBLE:
        out[double_train + target_of(cfg, seat, pending)] = 1.0
        out[double_number + int(s.train_end[pending])] = 1.0
    for r in range(players):
        other = (seat + r) % players
        out[hand_sizes + r] = s.hand_count[other] / tiles
        out[had_turn + r] = s.had_turn[other]
        out[points + r] = s.match_points[other] / cfg[0].points_scale
    out[bone] = boneyard_left(state, g) / tiles
    if not s.game_over:
        out[turn] = s.turn_played
        out[turn + 1] = s.turn_drew
        out[turn + 2] = s.opening
    core.observe_turn(s, seat, players, numbers, out, voids, to_act)


# ----------------------------------------------------------------------------------------------
# Determinization: a complete game a seat cannot tell from the real one, for search agents.


@njit(cache=True)
def determinize(state, cfg, g, observer, out, h):
    """Write into ``out[h]`` a complete game that ``observer`` cannot tell apart from game ``g``.

    Kept: the observer's hand, the trains and the hub, every hand size, the boneyard's size and
    what has been drawn from it, markers, the pending double, the voids, the scores and every
    other public field. Dealt anew: the other hands and the undrawn boneyard (in a fresh draw
    order), uniformly over the deals that give no seat a number it is known not to hold. The
    randomness is ``out[h]``'s own generator, which the copy keeps, so nothing hidden in game
    ``g`` reaches the result. Returns True when the draw is exactly uniform (see
    :mod:`domino_env.sampling`).
    """
    return determinize_weighted(state, cfg, g, observer, out, h, NO_WEIGHTS)


@njit(cache=True)
def determinize_weighted(state, cfg, g, observer, out, h, weights):
    """``determinize``, the hidden tiles' places drawn in proportion to ``weights`` ([P + 1,
    tiles]: seats, then the boneyard; see ``domino_env.sampling.place_weighted``) under the same
    constraints; an empty ``weights`` (``NO_WEIGHTS``) draws uniformly, as ``determinize``."""
    players = cfg[0].num_players
    hidden, capacity, forbidden = core.start_determinize(state, g, observer, out, h, players, cfg[0].num_tiles, -1)
    s = out[h]
    # Places 0 .. P-1 are the seats (the observer's own takes nothing), place P the boneyard.
    capacity[players] = s.boneyard_size - s.boneyard_top
    return place_with_boneyard(
        out, h, hidden, capacity, forbidden, weights, s.location, s.boneyard, s.boneyard_top, IN_BONEYARD
    )


core.implement(STATE_DTYPE, start_game=start_game, step=step, observe=observe, legal_mask=legal_mask)
