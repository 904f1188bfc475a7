"""A small counter-based random generator that lives inside each game's state.

Every game of a batch carries its own 64-bit generator state (splitmix64), so a game's deals
depend only on its own seed: game 0 of a batch seeded with ``s`` plays exactly the deals of an
AEC environment reset with ``seed=s``, and games never disturb each other's streams.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def mix64(x: np.uint64) -> np.uint64:
    """splitmix64's finaliser: a bijective scramble of a 64-bit word."""
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


SEED_LIMIT = 1 << 64  # seeds are 0 .. SEED_LIMIT - 1: one generator state per seed


def check_seed(seed: object) -> int:
    """``seed`` as a Python int, refused unless it is an integer in ``0..2**64-1``.

    The generator's state is one 64-bit word, so a seed outside that range could only be
    folded onto one inside it: -1 and 2**64 - 1 would silently play the same deals. Every place
    a user's seed enters (the AEC environment, the batched engine, the single-agent view) calls
    this before it changes any state, so a bad seed is refused with one message everywhere.
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"a seed must be an integer, got {seed!r} ({type(seed).__name__}); seeds are 0..2**64-1")
    if not 0 <= int(seed) < SEED_LIMIT:
        raise ValueError(f"seed {int(seed)} is outside 0..2**64-1 (0..{SEED_LIMIT - 1})")
    return int(seed)


def stream_base(seed: int) -> np.uint64:
    """Where the streams of ``seed`` start (anything but an integer in ``0..2**64-1`` is refused
    here, by :func:`check_seed`, before the caller changes any state)."""
    return mix64(np.uint64(check_seed(seed)))


def game_seed(seed: int, game: int) -> np.uint64:
    """Generator state for game ``game`` of a batch reset with ``seed``."""
    base = stream_base(seed)
    return mix64(np.uint64((int(base) + game * int(_GOLDEN)) % SEED_LIMIT))


def seed_batch(state: np.ndarray, seed: int) -> None:
    """Seed every game of the batch ``state``: game ``g`` gets ``game_seed(seed, g)``."""
    seed_streams(state, np.uint64(stream_base(seed)))  # mix64 called from Python returns an int


@njit(cache=True)
def seed_streams(state, base):
    """``game_seed`` of every game at once (a million games in milliseconds, not seconds)."""
    for g in range(state.shape[0]):
        state[g].rng = mix64(base + np.uint64(g) * _GOLDEN)


@njit(cache=True)
def next_u64(state, g):
    """Advance game ``g``'s generator (the ``rng`` field of its record) and return 64 bits."""
    state[g].rng += _GOLDEN
    return mix64(state[g].rng)


@njit(cache=True)
def below(state, g, n):
    """Uniform integer in ``[0, n)`` from game ``g``'s generator (Lemire's multiply-shift)."""
    r = next_u64(state, g) >> np.uint64(32)
    return np.int64((r * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def shuffle(state, g, values):
    """Fisher-Yates shuffle of ``values`` in place with game ``g``'s generator."""
    for i in range(values.shape[0] - 1, 0, -1):
        j = below(state, g, i + 1)
        values[i], values[j] = values[j], values[i]
