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
    """One ``<g id="pips-N">`` per number, in a unit square, for ``<use>`` by :func:`tile`.

    Up to nine the pips sit on a 3 x 3 grid; ten to twelve on a 4 x 3 grid that fills the whole
    half, its pips nearly as large as the smaller numbers' (a 4 x 3 grid squeezed into the 3 x 3
    grid's square made them about 2 px across on screen)."""
    groups = []
    for number, cells in PIP_GRID.items():
        if not cells:
            continue
        if number <= 9:
            radius, rows, cols = 0.093, (0.22, 0.5, 0.78), (0.22, 0.5, 0.78)
        else:
            radius, rows, cols = 0.08, (0.13, 0.375, 0.62, 0.865), (0.18, 0.5, 0.82)
        circles = "".join(f'<circle cx="{cols[c]:.3f}" cy="{rows[r]:.3f}" r="{radius}"/>' for r, c in cells)
        groups.append(f'<g id="pips-{number}" fill="{PIP_COLOURS[number]}">{circles}</g>')
    return "<defs>" + "".join(groups) + "</defs>"


# Advance widths of printable ASCII (space to ~) in DejaVu Sans and DejaVu Sans Bold, in
# hundredths of an em: the picture's first font, and the widest of its fallbacks.
_WIDTHS = {
    False: "32 40 46 84 64 95 78 27 39 39 50 84 32 36 32 34 64 64 64 64 64 64 64 64 64 64 34 34 84 84 84 53 100 68 69 "
    "70 77 63 57 77 75 28 28 66 56 86 75 79 60 79 69 63 61 73 68 99 69 61 69 39 34 39 84 50 50 61 63 55 63 62 35 63 63 "
    "28 28 57 28 97 63 61 63 63 41 52 39 63 59 82 59 59 52 64 34 64 84",
    True: "35 46 52 84 70 100 87 31 46 46 52 84 38 42 38 37 70 70 70 70 70 70 70 70 70 70 40 40 84 84 84 57 100 77 "
    "76 73 83 68 68 82 84 37 37 77 64 100 84 85 73 85 77 72 68 81 77 110 77 72 73 46 37 46 84 50 50 67 72 59 72 68 "
    "44 72 71 34 34 67 34 104 71 69 72 72 49 60 48 71 65 92 65 65 57 71 37 71 84",
}
_ADVANCE = {bold: [int(w) / 100 for w in widths.split()] for bold, widths in _WIDTHS.items()}


def text_width(words: str, size: float, bold: bool = False) -> float:
    """How wide ``words`` are drawn at ``size`` px in DejaVu Sans (bold or not), with 6% to
    spare; any character beyond ASCII counts as a full em. Labels are sized by it, so that a
    name is never clipped."""
    advance = _ADVANCE[bold]
    ems = sum(advance[ord(ch) - 32] if 32 <= ord(ch) < 127 else 1.0 for ch in words)
    return ems * size * 1.06


def wrap(words: str, size: float, width: float, bold: bool = False) -> list[str]:
    """``words`` in lines no wider than ``width`` (by :func:`text_width`), broken at spaces, and
    inside a word only when the word alone is too wide: nothing is cut off."""
    lines: list[str] = []
    for word in words.split(" "):
        line = f"{lines[-1]} {word}" if lines else word
        if lines and text_width(line, size, bold) <= width:
            lines[-1] = line
            continue
        while text_width(word, size, bold) > width and len(word) > 1:
            cut = 1
            while cut < len(word) - 1 and text_width(word[: cut + 1], size, bold) <= width:
                cut += 1
            lines.append(word[:cut])
            word = word[cut:]
        lines.append(word)
    return lines or [""]


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
    numerals: bool = False,
) -> str:
    """A face-up tile at (x, y): ``faces[0]`` left (or top when ``vertical``), ``faces[1]``
    right (or bottom); ``highlight`` rings it, as the last tile played; ``numerals``: each half
    shows its number in digits (blank for 0) instead of pips."""
    width, height = (HALF, 2 * HALF) if vertical else (2 * HALF, HALF)
    second = (0, HALF) if vertical else (HALF, 0)
    divider = f"M2 {HALF}H{HALF - 2}" if vertical else f"M{HALF} 2V{HALF - 2}"
    parts = [
        f"<title>{faces[0]}-{faces[1]}</title>",  # a browser's tooltip: the numbers as digits
        f'<rect width="{width}" height="{height}" rx="4" fill="{TILE_FACE}" stroke="{TILE_EDGE}" stroke-width="1.2"/>',
        f'<path d="{divider}" stroke="{TILE_EDGE}" stroke-width="1"/>',
    ]
    for (dx, dy), number in zip(((0, 0), second), faces, strict=True):
        if number and numerals:
            parts.append(
                f'<text class="numeral" x="{dx + HALF / 2:g}" y="{dy + HALF / 2 + 7:g}" font-size="20" '
                f'font-weight="bold" fill="{PIP_COLOURS[number]}" text-anchor="middle">{number}</text>'
            )
        elif number:
            parts.append(f'<use href="#pips-{number}" transform="translate({dx} {dy}) scale({HALF})"/>')
    if highlight:
        parts.append(
            f'<rect x="-3" y="-3" width="{width + 6}" height="{height + 6}" rx="6" fill="none" '
            f'stroke="{HIGHLIGHT}" stroke-width="3"/>'
        )
    return f'<g{_attributes(classes, data)} transform="translate({x:g} {y:g})">{"".join(parts)}</g>'


def tile_back(x: float, y: float, classes: str = "tile back") -> str:
    """A face-down tile: nothing about its faces is in the markup."""
    return (
        f'<g{_attributes(classes, None)} transform="translate({x:g} {y:g})">'
        f'<rect width="{2 * HALF}" height="{HALF}" rx="4" fill="{TILE_BACK}" stroke="{TILE_EDGE}" stroke-width="1.2"/>'
        f'<rect x="4" y="4" width="{2 * HALF - 8}" height="{HALF - 8}" rx="2" fill="none" stroke="#c77a5f"/></g>'
    )


def pile(x: float, y: float, label: str, count: int) -> str:
    """The boneyard (or the tiles set aside) as a stack of face-down tiles with a badge that
    counts them; an empty pile is a dashed outline."""
    parts = []
    if count:
        for k in range(min(count, 4)):
            parts.append(tile_back(3 * k, -3 * k, "pile-tile"))
    else:
        parts.append(f'<rect width="{2 * HALF}" height="{HALF}" rx="4" fill="none" stroke="{MUTED}" '
                     'stroke-dasharray="4 3"/>')  # fmt: skip
    parts.append(f'<circle cx="{2 * HALF + 10}" cy="-4" r="13" fill="{HIGHLIGHT}" stroke="{TILE_EDGE}"/>')
    parts.append(text(2 * HALF + 10, 1, str(count), size=14, fill="#222222", bold=True, anchor="middle",
                      classes="pile-count"))  # fmt: skip
    parts.append(text(HALF + 6, HALF + 16, label, size=12, fill=MUTED, anchor="middle"))
    return f'<g class="pile" data-count="{count}" transform="translate({x:g} {y:g})">{"".join(parts)}</g>'


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
