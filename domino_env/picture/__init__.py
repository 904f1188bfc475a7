"""Pictures of a domino table a person can read, as SVG and as RGB arrays.

There is one drawing code path: :func:`table_svg` draws the table as SVG, and
:func:`table_image` (``render_mode="rgb_array"``) rasterizes that same SVG with resvg, so the
image an environment renders, the frames of a replay and the page of a browser game are the
same picture.

    from domino_env.picture import table_svg, table_image
    svg = table_svg(env.game, env.state_array, face_up="all")
    rgb = table_image(env.game, env.state_array)          # uint8 [height, width, 3]
    frame = table_image(env.game, env.state_array, canvas=True)  # one size for the whole game

A picture's height follows the table (a longer line, a fuller hand, a wrapped header), so frames
of one game differ in size unless drawn on a canvas: ``canvas=True`` pads every picture with the
felt to :func:`canvas_size`, the largest picture the game's configuration can show, computed once
per configuration (what video recorders of ``render_mode="rgb_array"`` need).
"""

from __future__ import annotations

import copy
import io
import math
import re
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from domino_env.game import Game
from domino_env.picture.layout import draw
from domino_env.picture.read import read_table, say_move
from domino_env.picture.svg import FELT
from domino_env.picture.table import Table

__all__ = ["Table", "canvas_size", "fit_to_canvas", "rasterize", "read_table", "say_move", "table_image", "table_svg"]


def table_svg(
    game: Game,
    state: np.ndarray,
    g: int = 0,
    *,
    face_up: Collection[int] | str = (),
    names: Sequence[str] | None = None,
    last_move: tuple[int, int] | None = None,
    viewer: int | None = None,
    reveal_toggle: bool = False,
    numerals: bool = False,
    width: int | None = None,
) -> str:
    """The table of game ``g`` of the engine record ``state`` as an SVG document.

    ``face_up``: the seats whose hands are shown, or ``"all"``; the other hands are drawn face
    down and their tiles are not in the markup at all. ``names``: seat labels (default
    ``player_0`` ...). ``last_move``: the ``(seat, action)`` just played, named in the header and
    ringed on the table. ``viewer``: the seat that Mexican Train's train targets are named from
    (default: the seat to act). ``reveal_toggle``: also include the hidden hands' faces in
    ``class="hidden-face"`` groups for a page to show on demand (hidden by default).
    ``numerals``: tiles show their numbers in digits instead of pips. ``width``: the picture's
    width in pixels (default: the variant's usual width; under 700, a phone's, names go above
    hands and trains).
    """
    seats = range(game.num_players) if face_up == "all" else face_up
    if isinstance(seats, str) or any(seat not in range(game.num_players) for seat in seats):
        raise ValueError(f"face_up must be seats 0..{game.num_players - 1} or 'all', got {face_up!r}")
    if viewer is not None and viewer not in range(game.num_players):
        raise ValueError(f"viewer must be a seat 0..{game.num_players - 1}, got {viewer!r}")
    table = read_table(game, state, g, names, last_move)
    seen_from = game.current_seat(state, g) if viewer is None else viewer
    return draw(table, set(seats), seen_from, reveal_toggle, numerals, width)


def table_image(game: Game, state: np.ndarray, g: int = 0, *, canvas: bool = False, **options: Any) -> np.ndarray:
    """:func:`table_svg` (same keywords) rasterized: a uint8 RGB array [height, width, 3].

    ``canvas=True``: on the game's fixed canvas (:func:`canvas_size`), so that every picture of
    one configuration (and the same ``names``, ``width`` and ``numerals``) has one shape."""
    image = rasterize(table_svg(game, state, g, **options))
    if not canvas:
        return image
    size = canvas_size(game, names=options.get("names"), width=options.get("width"),
                       numerals=options.get("numerals", False))  # fmt: skip
    return fit_to_canvas(image, size)


_CANVASES: dict[tuple, tuple[int, int]] = {}


def canvas_size(
    game: Game, *, names: Sequence[str] | None = None, width: int | None = None, numerals: bool = False
) -> tuple[int, int]:
    """``(height, width)`` in pixels of the largest picture ``game``'s configuration can show:
    the picture of a table holding the longest line the set allows and the fullest hands the
    tiles left over allow (the split between line and hands that draws tallest), every seat with
    the longest name, details and score it can show, and the longest last move in the header.
    Computed once per configuration (and ``names``, ``width``, ``numerals``) by drawing such
    tables, never a real one, so that it depends on nothing but the configuration."""
    key = (game.name, repr(sorted(game.options.items())), tuple(names or ()), width, bool(numerals))
    if key not in _CANVASES:
        table = _fullest_table(game, names, width, numerals)
        _CANVASES[key] = rasterize(draw(table, set(), 0, False, numerals, width)).shape[:2]
    return _CANVASES[key]


def fit_to_canvas(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``image`` on a felt canvas of ``size`` (height, width): in the top left corner where it
    fits, else scaled down (its aspect kept) to fit and centred across."""
    height, width = size
    if image.shape[:2] == (height, width):
        return image
    from PIL import Image

    picture = Image.fromarray(image)
    if image.shape[0] > height or image.shape[1] > width:
        scale = min(height / image.shape[0], width / image.shape[1])
        shape = (max(1, math.floor(image.shape[1] * scale)), max(1, math.floor(image.shape[0] * scale)))
        picture = picture.resize(shape, Image.Resampling.LANCZOS)
    canvas = Image.new("RGB", (width, height), FELT)
    left = 0 if picture.width == image.shape[1] else (width - picture.width) // 2
    canvas.paste(picture, (left, 0))
    return np.asarray(canvas)


def _svg_height(document: str) -> float:
    return float(re.search(r'<svg[^>]*?\sheight="([0-9.]+)"', document)[1])


def _fullest_table(game: Game, names: Sequence[str] | None, width: int | None, numerals: bool) -> Table:
    """The table of :func:`canvas_size`: a fresh deal's table (its title, seats, trains) with
    every part that can grow at its largest."""
    state = game.new_state(1)
    game.seed(state, 0, 0)
    game.start(state, 0)
    table = read_table(game, state, 0, names)
    names = [seat.name for seat in table.seats]
    players = game.num_players
    try:
        score = max(game.score_bounds())  # the largest score a seat's panel can show
    except (AttributeError, NotImplementedError):
        score = 10**6
    for seat in table.seats:  # the longest name line (to act, out) and details
        seat.to_act, seat.out, seat.score = True, True, score
    longest = max(names, key=len)
    table.status = f"{game.progress(state, 0)} · {longest} to act · again: the run goes on"
    table.last_move = max(
        (say_move(game, names, seat, action) for seat in range(players) for action in range(game.num_actions)),
        key=len,
    )
    table.last_tile = -1
    tiles = game.num_tiles
    table.pile = tiles

    def height(line: int, hands: Sequence[int]) -> float:
        trial = copy.copy(table)
        trial.seats = [copy.copy(seat) for seat in table.seats]
        for seat, count in zip(trial.seats, hands, strict=True):
            seat.hand = [(0, 1)] * count  # the widest tiles: the most rows and lines
        if not table.is_train_game:
            trial.line = [(0, 1)] * line
            trial.open_ends = (0, 1)
        return _svg_height(draw(trial, set(), 0, False, numerals, width))

    # what each seat's panel adds for each hand size, the others empty (panels stack independently)
    empty = height(0, [0] * players)
    grows = [
        [height(0, [count if s == seat else 0 for s in range(players)]) - empty for count in range(tiles + 1)]
        for seat in range(players)
    ]
    # best[b]: the tallest panels of all seats holding at most b tiles together, and their hands
    best: list[tuple[float, list[int]]] = [(0.0, [])] * (tiles + 1)
    for seat in range(players):
        best = [
            max(((best[b - c][0] + grows[seat][c], [*best[b - c][1], c]) for c in range(b + 1)), key=lambda x: x[0])
            for b in range(tiles + 1)
        ]
    lines = [0] if table.is_train_game else range(tiles + 1)
    line = max(lines, key=lambda n: height(n, [0] * players) + best[tiles - n][0])
    for seat, count in zip(table.seats, best[tiles - line][1], strict=True):
        seat.hand = [(0, 1)] * count
    if not table.is_train_game:
        table.line = [(0, 1)] * line
        table.open_ends = (0, 1)
    return table


def rasterize(svg: str) -> np.ndarray:
    """An SVG document as a uint8 RGB array, drawn by resvg with the system's fonts."""
    import resvg_py
    from PIL import Image

    png = resvg_py.svg_to_bytes(svg_string=svg)
    return np.asarray(Image.open(io.BytesIO(bytes(png))).convert("RGB"))
