"""Domino tile sets: indices, faces and pip values.

A double-N set holds one tile for every unordered pair (a, b) with 0 <= a <= b <= N. Tiles are
indexed by ``b * (b + 1) // 2 + a``: the tiles of a smaller set are a prefix of a larger set's,
so one table serves every set size and every engine can use the same arrays.
"""

from __future__ import annotations

import re

import numpy as np

# The sets the line games accept: the three of the rules, and two tiny ones (6 and 10 tiles) kept
# for research, small enough that exact methods (CFR, exploitability) can solve whole games.
SMALL_SET_SIZES = (2, 3)
SET_SIZES = (*SMALL_SET_SIZES, 6, 9, 12)
MAX_PIPS = 12
MAX_TILES = (MAX_PIPS + 1) * (MAX_PIPS + 2) // 2


def num_tiles(set_size: int) -> int:
    """Number of tiles in a double-``set_size`` set (6, 10, 28, 55 or 91)."""
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


_TILE_TEXT = re.compile(r"\s*([0-9]+)\s*-\s*([0-9]+)\s*")


def parse_tile(tile: object, set_size: int) -> int:
    """Index of a tile given as ``[a, b]``, ``(a, b)``, a numpy array of two, or ``"a-b"``;
    refuses anything else.

    Deals come from users, so the message names the offending value and the set it must fit.
    Each face must be an integer (Python's or numpy's): ``int()`` would turn ``2.5``, ``True`` or
    ``"3"`` into a face the user never wrote, and ``3.0`` most likely comes from arithmetic that
    went wrong, so none of them is read as a pip count.
    """
    if isinstance(tile, str):
        match = _TILE_TEXT.fullmatch(tile)  # ASCII digits only: int() also reads "٣" and "３"
        if match is None:
            raise ValueError(f"tile {tile!r} is not of the form 'a-b'")
        a, b = int(match[1]), int(match[2])
    else:
        faces = tile.tolist() if isinstance(tile, np.ndarray) and tile.ndim == 1 else tile
        if not isinstance(faces, (list, tuple)) or len(faces) != 2:
            raise ValueError(f"tile {tile!r} is not a pair of numbers [a, b]")
        a, b = (_pips(face, tile) for face in faces)
    if not (0 <= a <= set_size and 0 <= b <= set_size):
        raise ValueError(f"tile {tile!r} is not in the double-{set_size} set")
    return tile_index(a, b)


def _pips(face: object, tile: object) -> int:
    """One face of ``tile`` as an int; refuses what is not an integer (see :func:`parse_tile`)."""
    if isinstance(face, (bool, np.bool_)) or not isinstance(face, (int, np.integer)):
        raise ValueError(
            f"tile {tile!r} is not a pair of integers [a, b]: {face!r} is a {type(face).__name__}, not a number of pips"
        )
    return int(face)
