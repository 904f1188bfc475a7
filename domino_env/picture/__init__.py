"""Pictures of a domino table a person can read, as SVG and as RGB arrays.

There is one drawing code path: :func:`table_svg` draws the table as SVG, and
:func:`table_image` (``render_mode="rgb_array"``) rasterizes that same SVG with resvg, so the
image an environment renders, the frames of a replay and the page of a browser game are the
same picture.

    from domino_env.picture import table_svg, table_image
    svg = table_svg(env.game, env.state_array, face_up="all")
    rgb = table_image(env.game, env.state_array)          # uint8 [height, width, 3]
"""

from __future__ import annotations

import io
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from domino_env.game import Game
from domino_env.picture.layout import draw
from domino_env.picture.read import read_table, say_move
from domino_env.picture.table import Table

__all__ = ["Table", "rasterize", "read_table", "say_move", "table_image", "table_svg"]


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
) -> str:
    """The table of game ``g`` of the engine record ``state`` as an SVG document.

    ``face_up``: the seats whose hands are shown, or ``"all"``; the other hands are drawn face
    down and their tiles are not in the markup at all. ``names``: seat labels (default
    ``player_0`` ...). ``last_move``: the ``(seat, action)`` just played, named in the header and
    ringed on the table. ``viewer``: the seat that Mexican Train's train targets are named from
    (default: the seat to act). ``reveal_toggle``: also include the hidden hands' faces in
    ``class="hidden-face"`` groups for a page to show on demand (hidden by default).
    """
    seats = range(game.num_players) if face_up == "all" else face_up
    if isinstance(seats, str) or any(seat not in range(game.num_players) for seat in seats):
        raise ValueError(f"face_up must be seats 0..{game.num_players - 1} or 'all', got {face_up!r}")
    if viewer is not None and viewer not in range(game.num_players):
        raise ValueError(f"viewer must be a seat 0..{game.num_players - 1}, got {viewer!r}")
    table = read_table(game, state, g, names, last_move)
    seen_from = game.current_seat(state, g) if viewer is None else viewer
    return draw(table, set(seats), seen_from, reveal_toggle)


def table_image(game: Game, state: np.ndarray, g: int = 0, **options: Any) -> np.ndarray:
    """:func:`table_svg` (same keywords) rasterized: a uint8 RGB array [height, width, 3]."""
    return rasterize(table_svg(game, state, g, **options))


def rasterize(svg: str) -> np.ndarray:
    """An SVG document as a uint8 RGB array, drawn by resvg with the system's fonts."""
    import resvg_py
    from PIL import Image

    png = resvg_py.svg_to_bytes(svg_string=svg)
    return np.asarray(Image.open(io.BytesIO(bytes(png))).convert("RGB"))
