"""SVG pieces of a table picture: tiles with pips, face-down tiles, labels and open-end badges.

Each function returns SVG markup as a string, placed in absolute pixel coordinates. Pip faces
are drawn once per picture in ``<defs>`` (:func:`pip_defs`) and reused, which keeps a picture of
ninety tiles small enough to embed hundreds of them in one replay page.

Pips from 0 to 12 are laid on a 3 x 3 grid up to nine and a 4 x 3 grid above, and every number
has its own colour, as in physical double-twelve sets, so that 10, 11 and 12 can be told apart
at a glance.
"""

from __future__ import annotations

from html import escape

HALF = 30  # pixels per tile half: a tile is 2 * HALF by HALF
GAP = 4
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"

FELT = "#1d6b40"
FELT_LIGHT = "#25804e"
PANEL = "#174f31"
BOARD = "#0f3d25"  # badges, train labels, the hub
INK = "#ffffff"
MUTED = "#c8e6c9"
TILE_FACE = "#fbf8ef"
TILE_EDGE = "#2b2b2b"
TILE_BACK = "#8d3b25"
HIGHLIGHT = "#ffd400"
WARNING = "#ff9800"

PIP_COLOURS = {
    1: "#1e88e5",
    2: "#2e7d32",
    3: "#d32f2f",
    4: "#6d4c41",
    5: "#283593",
    6: "#b8860b",
    7: "#7b1fa2",
    8: "#00838f",
    9: "#212121",
    10: "#e65100",
    11: "#c2185b",
    12: "#455a64",
}

_SIX = [(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)]
_SIDES = [(r, c) for r in range(4) for c in (0, 2)]
PIP_GRID: dict[int, list[tuple[int, int]]] = {
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
    10: [*_SIDES, (1, 1), (2, 1)],
    11: [*_SIDES, (0, 1), (1, 1), (2, 1)],
    12: [(r, c) for r in range(4) for c in range(3)],
}


def pip_defs() -> str:
    """One ``<g id="pips-N">`` per number, in a unit square, for ``<use>`` by :func:`tile`."""
    groups = []
    for number, cells in PIP_GRID.items():
        if not cells:
            continue
        rows = 3 if number <= 9 else 4
        radius = 0.09 if rows == 3 else 0.07
        step = 0.28 if rows == 3 else 0.22
        top = 0.5 - step * (rows - 1) / 2
        circles = "".join(
            f'<circle cx="{0.22 + 0.28 * c:.3f}" cy="{top + step * r:.3f}" r="{radius}"/>' for r, c in cells
        )
        groups.append(f'<g id="pips-{number}" fill="{PIP_COLOURS[number]}">{circles}</g>')
    return "<defs>" + "".join(groups) + "</defs>"


def _value(value: object) -> str:
    """An attribute's value, escaped for a double-quoted attribute (numbers come out as ``str`` writes them)."""
    return escape(str(value))


def _attributes(classes: str, data: dict[str, str] | None) -> str:
    text = f' class="{escape(classes)}"' if classes else ""
    for key, value in (data or {}).items():
        if not key.replace("-", "").isalnum():  # an attribute's name cannot be escaped: only plain words
            raise ValueError(f"data attribute name {key!r} is not a plain word")
        text += f' data-{key}="{escape(value)}"'
    return text


def tile(
    x: float,
    y: float,
    faces: tuple[int, int],
    vertical: bool = False,
    classes: str = "tile",
    data: dict[str, str] | None = None,
    highlight: bool = False,
) -> str:
    """A face-up tile at (x, y): ``faces[0]`` left (or top when ``vertical``), ``faces[1]``
    right (or bottom); ``highlight`` rings it, as the last tile played."""
    width, height = (HALF, 2 * HALF) if vertical else (2 * HALF, HALF)
    second = (0, HALF) if vertical else (HALF, 0)
    divider = f"M2 {HALF}H{HALF - 2}" if vertical else f"M{HALF} 2V{HALF - 2}"
    parts = [
        f"<title>{faces[0]}-{faces[1]}</title>",  # a browser's tooltip: the numbers as digits
        f'<rect width="{width}" height="{height}" rx="4" fill="{TILE_FACE}" stroke="{TILE_EDGE}" stroke-width="1.2"/>',
        f'<path d="{divider}" stroke="{TILE_EDGE}" stroke-width="1"/>',
    ]
    for (dx, dy), number in zip(((0, 0), second), faces, strict=True):
        if number:
            parts.append(f'<use href="#pips-{number}" transform="translate({dx} {dy}) scale({HALF})"/>')
    if highlight:
        parts.append(
            f'<rect x="-3" y="-3" width="{width + 6}" height="{height + 6}" rx="6" fill="none" '
            f'stroke="{HIGHLIGHT}" stroke-width="3"/>'
        )
    return f'<g{_attributes(classes, data)} transform="translate({x:g} {y:g})">{"".join(parts)}</g>'


def tile_back(x: float, y: float) -> str:
    """A face-down tile: nothing about its faces is in the markup."""
    return (
        f'<g class="tile back" transform="translate({x:g} {y:g})">'
        f'<rect width="{2 * HALF}" height="{HALF}" rx="4" fill="{TILE_BACK}" stroke="{TILE_EDGE}" stroke-width="1.2"/>'
        f'<rect x="4" y="4" width="{2 * HALF - 8}" height="{HALF - 8}" rx="2" fill="none" stroke="#c77a5f"/></g>'
    )


def text(
    x: float,
    y: float,
    words: str,
    size: int = 14,
    fill: str = INK,
    bold: bool = False,
    anchor: str = "start",
    classes: str = "",
) -> str:
    weight = ' font-weight="bold"' if bold else ""
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{_value(size)}" fill="{_value(fill)}"{weight} '
        f'text-anchor="{_value(anchor)}"{_attributes(classes, None)}>{escape(words)}</text>'
    )


def rect(x: float, y: float, width: float, height: float, fill: str, stroke: str = "none", stroke_width: float = 0,
         radius: float = 6, classes: str = "") -> str:  # fmt: skip
    return (
        f'<rect x="{x:g}" y="{y:g}" width="{width:g}" height="{height:g}" rx="{_value(radius)}" fill="{_value(fill)}" '
        f'stroke="{_value(stroke)}" stroke-width="{_value(stroke_width)}"{_attributes(classes, None)}/>'
    )


BADGE_WIDTH = 46


def badge(x: float, y: float, label: str, shown: str, target: str, closed: bool = False, warn: bool = False) -> str:
    """An open end the next tile can go to: its name, what it shows (the open number, "—" before
    the lead, "×" when closed), and ``data-target`` naming the target as action names do, so a
    page can play on it."""
    height = 2 * HALF
    stroke = WARNING if warn else "#6b8f7a" if closed else INK
    classes = "target closed" if closed else "target"
    return (
        f'<g{_attributes(classes, {"target": target})} transform="translate({x:g} {y:g})">'
        f'<rect width="{BADGE_WIDTH}" height="{height}" rx="8" fill="{BOARD}" stroke="{stroke}" stroke-width="1.5" '
        f'stroke-dasharray="4 3"/>'
        + text(BADGE_WIDTH / 2, 17, label, size=11, fill=MUTED, anchor="middle")
        + text(BADGE_WIDTH / 2, 44, shown, size=22, bold=True, anchor="middle")
        + "</g>"
    )


def marker_flag(x: float, y: float) -> str:
    """A train's marker: a small red flag."""
    return (
        f'<g transform="translate({x:g} {y:g})"><path d="M0 0V18" stroke="{INK}" stroke-width="2"/>'
        f'<path d="M1 0L14 5L1 10Z" fill="#e53935"/></g>'
    )


def document(width: float, height: float, body: str, style: str = "") -> str:
    """A standalone SVG document of the given size."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
        f'viewBox="0 0 {width:g} {height:g}" font-family="{FONT}">'
        + (f"<style>{style}</style>" if style else "")
        + pip_defs()
        + rect(0, 0, width, height, FELT, radius=0)
        + body
        + "</svg>"
    )
