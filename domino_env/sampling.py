"""Uniform placement of hidden tiles: the combinatorial core of every variant's ``determinize``.

A player who cannot see some tiles knows how many lie in each hidden place (each opponent's
hand, the boneyard, the tiles set aside) and, for some places, numbers they cannot hold (an
opponent who drew or passed on a number holds none of it). A determinization puts the hidden
tiles back into those places at random, uniformly over every placement that breaks no such
constraint. Which tiles are hidden and what each place may hold is the variant's business (its
rules module's ``determinize``); how to draw a placement uniformly is the same for all and
lives here.

Exactness. ``place_hidden`` draws by rejection and is **exactly uniform** whenever it accepts:
places are filled one at a time (most constrained first), each taking a uniform subset of the
unplaced tiles it may hold, and the draw is kept with probability ``prod C(A_h, c_h) / C(B_h,
c_h)``, where ``A_h`` is how many tiles place ``h`` could choose from in this draw and ``B_h``
a bound on it that does not depend on the draw. The proposal's probability times the acceptance
probability is then the same constant for every consistent placement. With at most one
constrained place (every two-player game) the weight is always 1 and nothing is ever rejected.
Only after ``max_tries`` rejected draws does it fall back to a sequential sampler that keeps
Hall's condition (so it never gets stuck) but is **not** exactly uniform; it then returns False.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domino_env.rng import below, next_u64, shuffle
from domino_env.tiles import TILE_HIGH, TILE_LOW

DEFAULT_TRIES = 2000
WEIGHT_FLOOR = 1e-6  # place_weighted's weight for a place the rules allow and the model rules out
NO_WEIGHTS = np.zeros((0, 0), np.float64)  # a determinize_weighted without weights draws uniformly


@njit(cache=True)
def uniform01(rng, r):
    """A uniform float in [0, 1) from the generator of record ``rng[r]``."""
    return (next_u64(rng, r) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def may_hold(tile, forbidden_row):
    """Whether a place whose known-absent numbers are ``forbidden_row`` may hold ``tile``."""
    return forbidden_row[TILE_LOW[tile]] == 0 and forbidden_row[TILE_HIGH[tile]] == 0


@njit(cache=True)
def place_hidden(rng, r, hidden, capacity, forbidden, placement, max_tries):
    """Put each tile of ``hidden`` into one of the places ``0 .. H-1`` so that place ``h`` gets
    exactly ``capacity[h]`` tiles, none with a number ``forbidden[h]`` marks; write the place of
    ``hidden[i]`` into ``placement[i]``. Randomness comes from record ``rng[r]``.

    Returns True when the placement is an exactly uniform draw (see the module docstring) and
    False when the rejection sampler gave up after ``max_tries`` and the fallback was used. The
    caller guarantees that the capacities add up to ``len(hidden)`` and that some consistent
    placement exists (the true one does).
    """
    n = hidden.shape[0]
    places = capacity.shape[0]
    allowed = np.zeros((places, n), np.bool_)
    allowed_total = np.zeros(places, np.int64)
    for h in range(places):
        for i in range(n):
            if may_hold(hidden[i], forbidden[h]):
                allowed[h, i] = True
                allowed_total[h] += 1
    order = np.argsort(allowed_total - capacity, kind="mergesort")  # least slack first
    free = np.empty(n, np.bool_)
    candidates = np.empty(n, np.int64)
    for _ in range(max_tries):
        free[:] = True
        weight = 1.0
        unplaced = n
        stuck = False
        for k in range(places):
            h = order[k]
            need = capacity[h]
            count = 0
            for i in range(n):
                if free[i] and allowed[h, i]:
                    candidates[count] = i
                    count += 1
            if count < need:
                stuck = True
                break
            bound = min(allowed_total[h], unplaced)
            for j in range(need):
                weight *= (count - j) / (bound - j)
                pick = j + below(rng, r, count - j)
                candidates[j], candidates[pick] = candidates[pick], candidates[j]
                placement[candidates[j]] = h
                free[candidates[j]] = False
            unplaced -= need
        if not stuck and (weight >= 1.0 or uniform01(rng, r) < weight):
            return True
    place_feasibly(rng, r, capacity, allowed, order, placement)
    return False


@njit(cache=True)
def still_feasible(allowed, free, demand):
    """Hall's condition: every set of places with outstanding demand can still find that many
    free tiles among those its members may hold. Sufficient as well as necessary, since each tile
    goes to one place. Places that may hold every free tile never break it, so only the others
    are enumerated."""
    places, n = allowed.shape
    picky = np.empty(places, np.int64)
    count = 0
    for h in range(places):
        if demand[h] == 0:
            continue
        for i in range(n):
            if free[i] and not allowed[h, i]:
                picky[count] = h
                count += 1
                break
    for subset in range(1, 1 << count):
        wanted = 0
        for k in range(count):
            if subset >> k & 1:
                wanted += demand[picky[k]]
        available = 0
        for i in range(n):
            if free[i]:
                for k in range(count):
                    if subset >> k & 1 and allowed[picky[k], i]:
                        available += 1
                        break
        if available < wanted:
            return False
    return True


@njit(cache=True)
def place_feasibly(rng, r, capacity, allowed, order, placement):
    """Fallback: fill the places in ``order`` one tile at a time, each a random tile among those
    whose placement keeps the rest solvable. Always succeeds; not exactly uniform."""
    places, n = allowed.shape
    free = np.ones(n, np.bool_)
    demand = capacity.copy()
    candidates = np.empty(n, np.int64)
    for k in range(places):
        h = order[k]
        while demand[h] > 0:
            count = 0
            for i in range(n):
                if free[i] and allowed[h, i]:
                    candidates[count] = i
                    count += 1
            placed = False
            for j in range(count):  # try the candidates in a random order
                pick = j + below(rng, r, count - j)
                candidates[j], candidates[pick] = candidates[pick], candidates[j]
                i = candidates[j]
                free[i] = False
                demand[h] -= 1
                if still_feasible(allowed, free, demand):
                    placement[i] = h
                    placed = True
                    break
                free[i] = True
                demand[h] += 1
            if not placed:
                raise ValueError("no placement of the hidden tiles satisfies the known voids")


@njit(cache=True)
def place_weighted(rng, r, hidden, capacity, forbidden, weights, placement):
    """``place_hidden``'s placement, drawn in proportion to ``weights`` instead of uniformly:
    ``weights[h, t]`` (places by tiles of the set) is how likely tile ``t`` is in place ``h``,
    from a belief model. Every hard constraint is kept exactly (capacities, forbidden numbers):
    the tiles are taken in a random order, each put in a place drawn among those that may hold it
    and still have room, in proportion to its weights (a floor of ``WEIGHT_FLOOR`` where a weight
    is zero, so that a place the model rules out but the rules allow stays possible); a place
    whose choice would leave the remaining tiles unplaceable (Hall's condition,
    ``still_feasible``) is struck off and the draw repeated, so it never gets stuck. Not a draw
    from the model's joint distribution (nor uniform): the sequential product of its marginals
    under the constraints. Returns nothing; ``placement`` is written."""
    n = hidden.shape[0]
    places = capacity.shape[0]
    allowed = np.zeros((places, n), np.bool_)
    for h in range(places):
        for i in range(n):
            allowed[h, i] = may_hold(hidden[i], forbidden[h])
    free = np.ones(n, np.bool_)
    demand = capacity.copy()
    order = np.arange(n)
    for i in range(n - 1, 0, -1):
        j = below(rng, r, i + 1)
        order[i], order[j] = order[j], order[i]
    mass = np.empty(places, np.float64)
    for k in range(n):
        i = order[k]
        tile = hidden[i]
        total = 0.0
        for h in range(places):
            mass[h] = 0.0
            if demand[h] > 0 and allowed[h, i]:
                mass[h] = max(weights[h, tile], WEIGHT_FLOOR)
                total += mass[h]
        free[i] = False
        while True:
            if total <= 0.0:
                raise ValueError("no placement of the hidden tiles satisfies the known voids")
            pick = uniform01(rng, r) * total
            h = places - 1
            for q in range(places):
                if mass[q] > 0.0:
                    h = q
                    pick -= mass[q]
                    if pick < 0.0:
                        break
            demand[h] -= 1
            if still_feasible(allowed, free, demand):
                placement[i] = h
                break
            demand[h] += 1
            total -= mass[h]
            mass[h] = 0.0


@njit(cache=True)
def place(rng, r, hidden, capacity, forbidden, weights, placement):
    """The hidden tiles' places: by ``place_hidden`` (uniform) for an empty ``weights``
    (``NO_WEIGHTS``), else by ``place_weighted`` in proportion to ``weights`` [places, tiles].
    Returns True for an exactly uniform draw (a weighted draw is not)."""
    if weights.shape[0] > 0:
        place_weighted(rng, r, hidden, capacity, forbidden, weights, placement)
        return False
    return place_hidden(rng, r, hidden, capacity, forbidden, placement, DEFAULT_TRIES)


@njit(cache=True)
def place_with_boneyard(rng, r, hidden, capacity, forbidden, weights, location, boneyard, drawn, in_boneyard):
    """The hidden tiles placed for a game with an ordered boneyard, written back into the game:
    places ``0 .. P-1`` are seats and the last place is the boneyard. An empty ``weights``
    (``NO_WEIGHTS``) draws by ``place_hidden`` (uniform), else by ``place_weighted`` in proportion
    to ``weights`` [places, tiles]. A tile placed in seat ``p`` gets ``location`` ``p``; the
    tiles placed in the boneyard get ``in_boneyard`` and follow the ``drawn`` tiles of
    ``boneyard`` in a fresh random order. The drawn part of the order, which would tell who drew
    what, is erased (-1); the rules never read it again. Returns True for an exactly uniform
    draw (what ``place_hidden`` returns; a weighted draw is not)."""
    placement = np.empty(hidden.shape[0], np.int64)
    exact = place(rng, r, hidden, capacity, forbidden, weights, placement)
    write_boneyard(rng, r, hidden, capacity, placement, location, boneyard, drawn, in_boneyard)
    return exact


@njit(cache=True)
def write_boneyard(rng, r, hidden, capacity, placement, location, boneyard, drawn, in_boneyard):
    """Write ``placement`` back into the game (see ``place_with_boneyard``)."""
    pile = capacity.shape[0] - 1
    undrawn = np.empty(capacity[pile], np.int8)
    k = 0
    for i in range(hidden.shape[0]):
        if placement[i] == pile:
            location[hidden[i]] = in_boneyard
            undrawn[k] = hidden[i]
            k += 1
        else:
            location[hidden[i]] = placement[i]
    shuffle(rng, r, undrawn)
    for i in range(k):
        boneyard[drawn + i] = undrawn[i]
    boneyard[:drawn] = -1
