"""What every rules module shares: the contract ``Game`` and the batched engine rely on, written once.

A rules module (``draw_rules``, ``hungarian_rules``, ``mexican_train_rules``) keeps one variant's
rules. What they have in common lives here, so that a new variant is one rules module plus one
``Game`` subclass:

- **The state.** :func:`state_dtype` builds a variant's record from the fields every variant has
  and ``Game`` reads by name (``rng``, ``current``, ``game_over``, ``rewards``, ``hand_points``,
  ``pips_left``, ``match_points``) and the variant's own.
- **The functions.** Every rules module defines, with these signatures, ``start_game(state, cfg,
  g)``, ``start_game_from_deal(state, cfg, g, ...)``, ``step(state, cfg, g, action) -> PLAYING |
  HAND_OVER | GAME_OVER``, ``legal_mask(state, cfg, g, mask) -> count``, ``observe(state, cfg, g,
  seat, out)``, ``layout_sizes(cfg)`` with ``OBSERVATION_BLOCKS``, ``determinize(state, cfg, g,
  observer, out, h) -> exact``, Python-side ``num_actions(config)``, and registers the first four
  with :func:`implement`. ``cfg`` is the variant's config packed as a one-record array
  (``Game.packed_config``).
- **The batch loops.** :func:`batch_reset` and :func:`batch_step` step every game of a batch on
  every thread numba is allowed (``prange``); :func:`batch_step_serial` on the caller's thread.
  They call the variant's functions through the stubs below, which numba resolves by the state's
  record type (an ``@overload`` per variant, made by :func:`implement`). Unlike a loop taking the
  rules' functions as arguments, this stays in numba's on-disk cache across processes. The loops
  compile the rules modules' code into themselves, so their cache stamp covers every file named
  by ``IMPLEMENTED_BY`` (see :mod:`domino_env.jit_cache`).
- **The helpers** every variant's rules are written with: the line of play (``fits``,
  ``place``), the observation's common blocks, the rewards, and the start of ``determinize``.
  The observation's block offsets come in ``cfg`` (``cfg[0].at_hand``, ...), computed once from
  ``layout_sizes`` by ``Game``. The small helpers are inlined (``inline="always"``): as calls
  into another module they cost a third of the time of a batched step.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit, prange, types
from numba.extending import overload
from numba.np.numpy_support import from_dtype

from domino_env.tiles import MAX_TILES, TILE_HIGH, TILE_LOW

# The rules modules whose functions the batch loops compile in (read by domino_env.jit_cache).
IMPLEMENTED_BY = "domino_env/games/*_rules.py"

# What ``step`` returns.
PLAYING = 0
HAND_OVER = 1  # a hand (round) of a match ended and the next one has been dealt
GAME_OVER = 2  # the episode ended

# The ``reward`` option.
REWARD_NAMES = ("win", "points")
REWARD_POINTS = 1

# Where a tile is (the ``location`` field); 0 .. P-1 means in that seat's hand.
UNDEALT = -1  # in the boneyard, or set aside
ON_TABLE = -2

# The two ends of a line of play; NO_END where an end is not open.
LEFT, RIGHT = 0, 1
NO_END = -1


def state_dtype(max_players: int, fields: list[tuple]) -> np.dtype:
    """A variant's game record: the fields ``Game`` reads, then the variant's ``fields``."""
    return np.dtype(
        (
            np.record,  # records allow attribute access in plain Python too (NUMBA_DISABLE_JIT=1)
            [
                ("rng", np.uint64),  # the game's own generator (domino_env.rng)
                ("current", np.int8),  # the seat to act
                ("game_over", np.uint8),
                ("rewards", np.float32, (max_players,)),  # rewards of the last step
                ("hand_points", np.int32, (max_players,)),  # what the last hand added to match_points
                ("pips_left", np.int32, (max_players,)),  # pips in each hand when the last hand ended
                ("match_points", np.int32, (max_players,)),  # totals of the episode so far
                *fields,
            ],
        )
    )


# Fields of a variant played on one line with two ends (Draw, Block, Hungarian).
LINE_FIELDS = [
    ("ends", np.int8, (2,)),  # open numbers at the left and right of the line
    ("line_faces", np.int8, (2 * MAX_TILES + 1, 2)),  # the line, left to right, for rendering
    ("line_first", np.int16),  # index into line_faces of the leftmost tile
    ("tiles_on_table", np.int16),
]


# ---------------------------------------------------------------------------------------------- the line


@njit(cache=True)
def fits(tile, number):
    """Whether ``tile`` has a face ``number``."""
    return TILE_LOW[tile] == number or TILE_HIGH[tile] == number


@njit(cache=True)
def place(state, g, tile, end):
    """Put ``tile`` against ``end`` of the line and update the open numbers (the first tile: low
    face left)."""
    s = state[g]
    low, high = TILE_LOW[tile], TILE_HIGH[tile]
    if s.tiles_on_table == 0:
        s.ends[LEFT], s.ends[RIGHT] = low, high
        s.line_first = MAX_TILES
        s.line_faces[MAX_TILES, 0], s.line_faces[MAX_TILES, 1] = low, high
    elif end == LEFT:
        inner = s.ends[LEFT]
        outer = high if low == inner else low
        s.ends[LEFT] = outer
        s.line_first -= 1
        s.line_faces[s.line_first, 0], s.line_faces[s.line_first, 1] = outer, inner
    else:
        inner = s.ends[RIGHT]
        outer = high if low == inner else low
        s.ends[RIGHT] = outer
        last = s.line_first + s.tiles_on_table
        s.line_faces[last, 0], s.line_faces[last, 1] = inner, outer
    s.location[tile] = ON_TABLE
    s.tiles_on_table += 1


@njit(cache=True)
def clear_line(s):
    """An empty line, before a hand's first tile."""
    s.ends[LEFT] = NO_END
    s.ends[RIGHT] = NO_END
    s.line_first = MAX_TILES
    s.tiles_on_table = 0


# ---------------------------------------------------------------------------------------------- observation


@njit(cache=True, inline="always")
def observe_tiles(s, seat, num_tiles, out, hand, table):
    """The observation's ``hand`` and ``table`` blocks (starting there in ``out``): the
    observer's own tiles and the tiles on the table, one flag per tile index."""
    for t in range(num_tiles):
        where = s.location[t]
        if where == seat:
            out[hand + t] = 1.0
        elif where == ON_TABLE:
            out[table + t] = 1.0


@njit(cache=True, inline="always")
def observe_turn(s, seat, players, numbers, out, voids, to_act):
    """The observation's ``voids`` block (for the seats after ``seat``, ``numbers`` flags each:
    the numbers that seat has shown it does not hold) and ``to_act`` block (one-hot relative seat
    to act; all zero once the game is over)."""
    for r in range(1, players):
        other = (seat + r) % players
        for n in range(numbers):
            out[voids + (r - 1) * numbers + n] = s.voids[other, n]
    if not s.game_over:
        out[to_act + (s.current - seat) % players] = 1.0


# ---------------------------------------------------------------------------------------------- rewards


@njit(cache=True)
def share_win(s, won, players, out_of_play):
    """``rewards``: the seats in ``won`` share +1 and the other seats in play share -1; nothing
    when nobody or everybody in play won. Seats flagged in ``out_of_play`` get nothing."""
    winners = 0
    players_in = 0
    for seat in range(players):
        if not out_of_play[seat]:
            players_in += 1
            winners += won[seat]
    if winners == 0 or winners == players_in:
        return
    for seat in range(players):
        if not out_of_play[seat]:
            s.rewards[seat] = 1.0 / winners if won[seat] else -1.0 / (players_in - winners)


@njit(cache=True)
def share_points(s, players, scale, sign, out_of_play):
    """``rewards`` under ``reward="points"``: each seat in play gets ``sign`` times its
    ``hand_points`` less their mean over the seats in play, over ``scale`` (+1 where points are
    won, -1 where they are penalties)."""
    mean = 0.0
    players_in = 0
    for seat in range(players):
        if not out_of_play[seat]:
            players_in += 1
            mean += s.hand_points[seat]
    mean /= players_in
    for seat in range(players):
        if not out_of_play[seat]:
            s.rewards[seat] = sign * (s.hand_points[seat] - mean) / scale


NOBODY_OUT = np.zeros(16, np.uint8)  # ``out_of_play`` of variants that eliminate nobody


@njit(cache=True)
def begin_step(s):
    """What every ``step`` does first: clear the last step's rewards; returns the seat to act."""
    s.rewards[:] = 0
    return int(s.current)


@njit(cache=True)
def end_episode(s):
    """Mark the game over; returns GAME_OVER, for ``step`` to return."""
    s.game_over = 1
    return GAME_OVER


# ---------------------------------------------------------------------------------------------- determinize


@njit(cache=True)
def start_determinize(state, g, observer, out, h, players, num_tiles, known):
    """The first half of every ``determinize``: copy game ``g`` into ``out[h]``, keeping
    ``out[h]``'s own generator (so nothing hidden in game ``g`` reaches the sample), and list
    what is hidden from ``observer``. Returns ``hidden`` (tiles neither on the table, nor in the
    observer's hand, nor the ``known`` one; -1 for none), ``capacity`` (how many hidden tiles
    each seat holds; the last place, the undealt tiles, is the caller's to fill) and
    ``forbidden`` (the numbers each seat is known not to hold)."""
    generator = out[h].rng
    out[h] = state[g]
    out[h].rng = generator
    s = out[h]
    hidden = np.empty(num_tiles, np.int64)
    count = 0
    for t in range(num_tiles):
        where = s.location[t]
        if where != ON_TABLE and where != observer and t != known:
            hidden[count] = t
            count += 1
    capacity = np.zeros(players + 1, np.int64)
    forbidden = np.zeros((players + 1, s.voids.shape[1]), np.uint8)
    for seat in range(players):
        if seat != observer:
            capacity[seat] = s.hand_count[seat]
            forbidden[seat, :] = s.voids[seat, :]
    return hidden[:count], capacity, forbidden


# ---------------------------------------------------------------------------------------------- batch loops
# The stubs: in compiled code each resolves, by the record type of ``state``, to the function of
# the rules module that registered it with ``implement``; from Python (NUMBA_DISABLE_JIT=1) the
# same functions are looked up by the state's dtype.

_RULES: dict[np.dtype, dict[str, Callable]] = {}


def start_game(state, cfg, g):
    return _RULES[state.dtype]["start_game"](state, cfg, g)


def step(state, cfg, g, action):
    return _RULES[state.dtype]["step"](state, cfg, g, action)


def observe(state, cfg, g, seat, out):
    return _RULES[state.dtype]["observe"](state, cfg, g, seat, out)


def legal_mask(state, cfg, g, mask):
    return _RULES[state.dtype]["legal_mask"](state, cfg, g, mask)


def implement(dtype: np.dtype, **functions: Callable) -> None:
    """Register a rules module's ``start_game``, ``step``, ``observe`` and ``legal_mask`` for the
    games of record type ``dtype``."""
    _RULES[dtype] = functions
    record = from_dtype(dtype)

    def ours(state: types.Type) -> bool:
        return isinstance(state, types.Array) and state.dtype == record

    start, play, show, legal = (functions[name] for name in ("start_game", "step", "observe", "legal_mask"))

    @overload(start_game)
    def _start_game(state, cfg, g):
        return (lambda state, cfg, g: start(state, cfg, g)) if ours(state) else None

    @overload(step)
    def _step(state, cfg, g, action):
        return (lambda state, cfg, g, action: play(state, cfg, g, action)) if ours(state) else None

    @overload(observe)
    def _observe(state, cfg, g, seat, out):
        return (lambda state, cfg, g, seat, out: show(state, cfg, g, seat, out)) if ours(state) else None

    @overload(legal_mask)
    def _legal_mask(state, cfg, g, mask):
        return (lambda state, cfg, g, mask: legal(state, cfg, g, mask)) if ours(state) else None


ILLEGAL = -1  # what ``advance`` returns for an action its mask does not allow


@njit(cache=True)
def advance(state, cfg, g, action, mask):
    """The AEC environment's move in one compiled call: ILLEGAL, changing nothing, when ``mask``
    (the acting seat's legal actions) does not allow ``action``; else ``step`` and the legal
    actions of the seat to act next written into ``mask``."""
    if action < 0 or action >= mask.shape[0] or not mask[action]:
        return ILLEGAL
    status = step(state, cfg, g, action)
    legal_mask(state, cfg, g, mask)
    return status


@njit(cache=True)
def emit(state, cfg, g, obs, mask, seat):
    """The acting seat of game ``g``, its observation and its legal actions."""
    seat[g] = state[g].current
    observe(state, cfg, g, seat[g], obs[g])
    legal_mask(state, cfg, g, mask[g])


@njit(cache=True, parallel=True)
def batch_reset(state, cfg, obs, mask, seat):
    """Start every game of the batch from its own generator and show its first position."""
    for g in prange(state.shape[0]):
        start_game(state, cfg, g)
        emit(state, cfg, g, obs, mask, seat)


@njit(cache=True)
def step_and_emit(state, cfg, g, actions, obs, mask, seat, rewards, done, hand_over, hand_points):
    """One game's part of :func:`batch_step`."""
    status = step(state, cfg, g, actions[g])
    hand_over[g] = status != PLAYING
    done[g] = status == GAME_OVER
    for p in range(cfg[0].num_players):
        rewards[g, p] = state[g].rewards[p]
        hand_points[g, p] = state[g].hand_points[p] if status != PLAYING else 0
    if status == GAME_OVER:
        start_game(state, cfg, g)
    emit(state, cfg, g, obs, mask, seat)


@njit(cache=True, parallel=True)
def batch_step(state, cfg, actions, obs, mask, seat, rewards, done, hand_over, hand_points):
    """Step every game; a game that ends restarts at once, so ``obs``/``mask``/``seat`` are its
    new first position while ``rewards``/``done`` report the end. ``hand_over`` and
    ``hand_points`` report hands that ended on this step (in a match, before the episode ends).
    Each game reads only its own record and generator, so the result does not depend on how many
    threads share the batch."""
    for g in prange(state.shape[0]):
        step_and_emit(state, cfg, g, actions, obs, mask, seat, rewards, done, hand_over, hand_points)


@njit(cache=True)
def batch_step_serial(state, cfg, actions, obs, mask, seat, rewards, done, hand_over, hand_points):
    """:func:`batch_step` on the calling thread alone: for a few hundred games at a time (search
    rollouts), where starting threads costs more than it saves, and OpenMP threads left spinning
    between calls would hold the cores the caller's own work needs."""
    for g in range(state.shape[0]):
        step_and_emit(state, cfg, g, actions, obs, mask, seat, rewards, done, hand_over, hand_points)
