"""Domino tile sets: indices, faces and pip values.

A double-N set holds one tile for every unordered pair (a, b) with 0 <= a <= b <= N. Tiles are
indexed by ``b * (b + 1) // 2 + a``: the tiles of a smaller set are a prefix of a larger set's,
so one table serves every set size and every engine can use the same arrays.
"""

from __future__ import annotations

import numpy as np

SET_SIZES = (6, 9, 12)
MAX_PIPS = 12
MAX_TILES = (MAX_PIPS + 1) * (MAX_PIPS + 2) // 2


def num_tiles(set_size: int) -> int:
    """Number of tiles in a double-``set_size`` set (28, 55 or 91)."""
    return (set_size + 1) * (set_size + 2) // 2


def tile_index(a: int, b: int) -> int:
    """Index of the tile with faces ``a`` and ``b`` (order does not matter)."""
    low, high = (a, b) if a <= b else (b, a)
    if low < 0:
        raise ValueError(f"tile {a}-{b} has a negative face")
    return high * (high + 1) // 2 + low


def _build_faces() -> tuple[np.ndarray, np.ndarray]:
    low = np.empty(MAX_TILES, dtype=np.int8)
    high = np.empty(MAX_TILES, dtype=np.int8)
    for b in range(MAX_PIPS + 1):
        for a in range(b + 1):
            low[tile_index(a, b)] = a
            high[tile_index(a, b)] = b
    return low, high


TILE_LOW, TILE_HIGH = _build_faces()
TILE_LOW.flags.writeable = False
TILE_HIGH.flags.writeable = False
TILE_VALUE = (TILE_LOW.astype(np.int16) + TILE_HIGH).astype(np.int16)
TILE_VALUE.flags.writeable = False


def tile_faces(index: int) -> tuple[int, int]:
    """Faces ``(a, b)`` with ``a <= b`` of the tile at ``index``."""
    return int(TILE_LOW[index]), int(TILE_HIGH[index])


def tile_name(index: int) -> str:
    """The tile as ``"a-b"`` with ``a <= b``, the form action names use."""
    a, b = tile_faces(index)
    return f"{a}-{b}"


def total_pips(set_size: int) -> int:
    """Sum of the values of every tile in the set (168 for double-six)."""
    return int(TILE_VALUE[: num_tiles(set_size)].sum())


def parse_tile(tile: object, set_size: int) -> int:
    """Index of a tile given as ``[a, b]``, ``(a, b)`` or ``"a-b"``; refuses anything else.

    Deals come from users, so the message names the offending value and the set it must fit.
    """
    if isinstance(tile, str):
        parts = tile.split("-")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise ValueError(f"tile {tile!r} is not of the form 'a-b'")
        a, b = int(parts[0]), int(parts[1])
    else:
        try:
            a, b = (int(x) for x in tile)  # type: ignore[union-attr]
        except (TypeError, ValueError):
            raise ValueError(f"tile {tile!r} is not a pair of numbers [a, b]") from None
    if not (0 <= a <= set_size and 0 <= b <= set_size):
        raise ValueError(f"tile {tile!r} is not in the double-{set_size} set")
    return tile_index(a, b)
