"""Pictures of domino tiles as RGB arrays, for ``render_mode="rgb_array"``.

Drawn with numpy alone (no graphics library): each tile is two square halves with pips, and a
scene is a list of rows of tiles, such as the line of play followed by each hand.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

HALF = 24  # pixels per half tile
GAP = 4
BACKGROUND = (18, 94, 52)
TILE = (245, 242, 230)
EDGE = (40, 40, 40)
PIP = (20, 20, 20)

# Pip positions (row, column): the usual 3 x 3 faces up to nine, a 4 x 3 grid beyond.
_SIX = [(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)]
_PIPS: dict[int, list[tuple[int, int]]] = {
    0: [],
    1: [(1, 1)],
    2: [(0, 0), (2, 2)],
    3: [(0, 0), (1, 1), (2, 2)],
    4: [(0, 0), (0, 2), (2, 0), (2, 2)],
    5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)],
    6: _SIX,
    7: [*_SIX, (1, 1)],
    8: [*_SIX, (0, 1), (2, 1)],
    9: [(r, c) for r in range(3) for c in range(3)],
}
_SIDES = [(r, c) for r in range(4) for c in (0, 2)]
_PIPS.update({10: [*_SIDES, (1, 1), (2, 1)], 11: [*_SIDES, (0, 1), (1, 1), (2, 1)]})
_PIPS[12] = [(r, c) for r in range(4) for c in range(3)]


def _half(number: int) -> np.ndarray:
    image = np.empty((HALF, HALF, 3), np.uint8)
    image[:] = TILE
    rows = 3 if number <= 9 else 4
    cell_h, cell_w = (HALF - 4) / rows, (HALF - 4) / 3
    for row, col in _PIPS[number]:
        y, x = int(2 + row * cell_h + cell_h / 2), int(2 + col * cell_w + cell_w / 2)
        image[y - 2 : y + 2, x - 2 : x + 2] = PIP
    return image


_HALVES = [_half(n) for n in range(13)]


def tile_image(a: int, b: int) -> np.ndarray:
    """A horizontal tile showing ``a`` on the left and ``b`` on the right."""
    image = np.concatenate([_HALVES[a], _HALVES[b]], axis=1)
    image[:, HALF - 1 : HALF + 1] = EDGE
    image[[0, -1], :] = EDGE
    image[:, [0, -1]] = EDGE
    return image


def scene_image(rows: Sequence[Sequence[tuple[int, int]]]) -> np.ndarray:
    """Rows of tiles, each row left to right, on a table-coloured background."""
    width = max([len(row) for row in rows] + [1]) * (2 * HALF + GAP) + GAP
    height = len(rows) * (HALF + GAP) + GAP
    image = np.empty((height, width, 3), np.uint8)
    image[:] = BACKGROUND
    for r, row in enumerate(rows):
        y = GAP + r * (HALF + GAP)
        for c, (a, b) in enumerate(row):
            x = GAP + c * (2 * HALF + GAP)
            image[y : y + HALF, x : x + 2 * HALF] = tile_image(a, b)
    return image
