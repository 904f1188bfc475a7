"""Where everything goes on a table picture: the header, the line of play or the Mexican Train
hub and its trains, and one panel per seat.

A line (Draw, Block, Hungarian) snakes across the table, left to right then right to left, so
that touching halves stay side by side; doubles lie crosswise; a badge at each end shows the open
number. Mexican Train draws the engine on a hub with every train leaving it on a row of its own:
the owner, the marker, the tiles, and a badge with the open number. Each seat's panel gives its
name, tile count and score, marks the seat to act, and holds its hand face up or face down.

Hand tiles and badges carry ``data-tile`` and ``data-target`` attributes with the tile and target
words of action names, so a page can turn clicks into actions without re-deriving any rule.
"""

from __future__ import annotations

from collections.abc import Collection

from domino_env.picture import svg
from domino_env.picture.svg import BADGE_WIDTH, GAP, HALF
from domino_env.picture.table import NO_NUMBER, Seat, Table, Train
from domino_env.tiles import tile_index, tile_name

MARGIN = 16
HEADER = 62
ROW = 2 * HALF + 2 * GAP  # a row of the table holds crosswise doubles
LABEL_WIDTH = 200  # a seat panel's name column
TRAIN_LABEL = 150
TRAIN_LABEL_CHARS = 18  # of bold 13 px text in the label's width
HUB_WIDTH = 110
WIDTH_LINE = 1040
WIDTH_TRAINS = 1200
HIDDEN_STYLE = ".hidden-face{display:none}"  # a page shows the faces by overriding this


def draw(table: Table, face_up: Collection[int], viewer: int, reveal_toggle: bool = False) -> str:
    """The picture of ``table`` as an SVG document.

    ``face_up``: seats whose hands are shown; the others are face down. ``viewer``: the seat the
    badges' target names are relative to (Mexican Train names trains from the actor's seat).
    ``reveal_toggle``: also draw the hidden hands' faces, in ``class="hidden-face"`` groups that a
    page can show or hide (hidden by the picture's own style).
    """
    width = WIDTH_TRAINS if table.is_train_game else WIDTH_LINE
    parts = [_header(table)]
    y = HEADER
    if table.is_train_game:
        body, height = _trains(table, width, y, viewer)
    else:
        body, height = _line(table, width, y)
    parts.append(body)
    y += height + GAP * 2
    for seat_index, seat in enumerate(table.seats):
        panel, height = _seat_panel(seat, width, y, seat_index in face_up, reveal_toggle)
        parts.append(panel)
        y += height + GAP
    return svg.document(width, y + MARGIN - GAP, "".join(parts), HIDDEN_STYLE if reveal_toggle else "")


# ---------------------------------------------------------------------------------------------- header


def _header(table: Table) -> str:
    pile = f"{table.pile_label}: {table.pile} tile{'s' if table.pile != 1 else ''}"
    second = f"{pile}   ·   last move: {table.last_move}" if table.last_move else pile
    return svg.text(MARGIN, 28, f"{table.title} · {table.status}", size=20, bold=True) + svg.text(
        MARGIN, 50, second, size=15, fill=svg.MUTED, classes="caption"
    )


# ---------------------------------------------------------------------------------------------- the line


def _line(table: Table, width: int, top: float) -> tuple[str, float]:
    """The snake of play between two end badges; returns the markup and its height."""
    started = bool(table.line)
    widths = [BADGE_WIDTH, *(_tile_width(faces) for faces in table.line), BADGE_WIDTH]
    places = _snake(widths, MARGIN + 8, width - MARGIN - 8)
    parts = []
    for side, number, (x, row, _) in zip(("left", "right"), table.open_ends, (places[0], places[-1]), strict=True):
        shown = "—" if not started else "×" if number == NO_NUMBER else str(number)
        closed = started and number == NO_NUMBER
        parts.append(svg.badge(x, top + 8 + row * ROW + GAP, side, shown, side, closed=closed))
    for (a, b), (x, row, forward) in zip(table.line, places[1:-1], strict=True):
        parts.append(_table_tile(x, top + 8 + row * ROW, (a, b) if forward else (b, a), table.last_tile))
    height = (places[-1][1] + 1) * ROW + 16
    if not started:
        parts.append(svg.text(width / 2, top + 8 + ROW / 2 + 5, "the line is empty: lead any legal tile", 15,
                              fill=svg.MUTED, anchor="middle"))  # fmt: skip
    return svg.rect(MARGIN, top, width - 2 * MARGIN, height, svg.FELT_LIGHT) + "".join(parts), height


def _snake(widths: list[int], left: float, right: float) -> list[tuple[float, int, bool]]:
    """Where each piece of a line goes, in order: its left x, its row, and whether that row runs
    left to right (even rows) or back (odd rows), so that the line turns at each edge."""
    places = []
    row, x = 0, left
    for width in widths:
        if x + width > right:
            row, x = row + 1, left
        forward = row % 2 == 0
        places.append((x if forward else left + right - x - width, row, forward))
        x += width + GAP
    return places


def _tile_width(faces: tuple[int, int]) -> int:
    return HALF if faces[0] == faces[1] else 2 * HALF


def _table_tile(x: float, y: float, faces: tuple[int, int], last_tile: int) -> str:
    """A tile on the table, doubles crosswise, centred on a row of height ``ROW``."""
    double = faces[0] == faces[1]
    offset = GAP if double else GAP + HALF / 2
    index = tile_index(*faces)
    data = {"tile": tile_name(index)}
    return svg.tile(
        x, y + offset, faces, vertical=double, classes="tile table", data=data, highlight=index == last_tile
    )


# ---------------------------------------------------------------------------------------------- trains


def train_target(train: Train, viewer: int, players: int) -> str:
    """The target word of action names for ``train`` seen from ``viewer``: ``own``, ``mexican``
    or ``train+k`` (the k-th seat after the viewer), as the action-name contract defines them."""
    if train.owner is None:
        return "mexican"
    k = (train.owner - viewer) % players
    return "own" if k == 0 else f"train+{k}"


def _trains(table: Table, width: int, top: float, viewer: int) -> tuple[str, float]:
    players = len(table.trains) - 1
    height = len(table.trains) * ROW + 16
    hub_x, hub_y = MARGIN + 8 + HUB_WIDTH / 2 - 10, top + height / 2
    parts = [svg.rect(MARGIN, top, width - 2 * MARGIN, height, svg.FELT_LIGHT)]
    rows = []
    label_x = MARGIN + HUB_WIDTH
    tiles_x = label_x + TRAIN_LABEL + GAP * 2
    capacity = int((width - MARGIN - 8 - tiles_x - BADGE_WIDTH - GAP) // (2 * HALF + GAP))
    for index, train in enumerate(table.trains):
        y = top + 8 + index * ROW
        parts.append(f'<path d="M{hub_x:g} {hub_y:g}L{label_x:g} {y + ROW / 2:g}" stroke="{svg.BOARD}" '
                     'stroke-width="3"/>')  # fmt: skip
        rows.append(
            _train_row(train, table.last_tile, label_x, tiles_x, y, capacity, train_target(train, viewer, players))
        )
    parts.append(
        f'<circle cx="{hub_x:g}" cy="{hub_y:g}" r="{HALF + 14}" fill="{svg.BOARD}" stroke="{svg.INK}" '
        'stroke-width="2"/>'
    )
    if table.engine == NO_NUMBER:
        parts.append(svg.text(hub_x, hub_y + 5, "engine?", 13, anchor="middle"))
    else:
        engine = (table.engine, table.engine)
        parts.append(svg.tile(hub_x - HALF / 2, hub_y - HALF, engine, vertical=True, classes="tile engine"))
    parts.append(svg.text(hub_x, hub_y + HALF + 30, "engine", 12, fill=svg.MUTED, anchor="middle"))
    return "".join(parts + rows), height


def _train_row(train: Train, last_tile: int, label_x: float, tiles_x: float, y: float, capacity: int,
               target: str) -> str:  # fmt: skip
    """One train: the label (owner, marker), its tiles from the hub out, the open-end badge."""
    stroke = svg.WARNING if train.pending else svg.BOARD
    parts = [svg.rect(label_x, y + GAP, TRAIN_LABEL, 2 * HALF, svg.BOARD, stroke, 2 if train.pending else 1)]
    title = "Mexican Train" if train.owner is None else train.label
    parts.append(svg.text(label_x + 8, y + GAP + 20, fit(title, TRAIN_LABEL_CHARS), 13, bold=True))
    note = "open to all" if train.owner is None else ("train, marker: open" if train.marker else "train, private")
    if train.pending:
        note = "double: satisfy it"
    parts.append(svg.text(label_x + (28 if train.marker else 8), y + GAP + 42, note, 11,
                          fill=svg.WARNING if train.pending else svg.MUTED))  # fmt: skip
    if train.marker:
        parts.append(svg.marker_flag(label_x + 10, y + GAP + 30))
    tiles = train.tiles
    x = tiles_x
    if len(tiles) > capacity:
        hidden = len(tiles) - capacity + 1
        parts.append(svg.text(x + HALF, y + ROW / 2, f"+{hidden}", 14, bold=True, anchor="middle"))
        tiles = tiles[hidden:]
        x += 2 * HALF + GAP
    for faces in tiles:
        parts.append(_table_tile(x, y, faces, last_tile))
        x += _tile_width(faces) + GAP
    parts.append(svg.badge(x + GAP, y + GAP, "open", str(train.open_number), target, warn=train.pending))
    return "".join(parts)


def fit(words: str, chars: int) -> str:
    """``words`` cut to ``chars`` characters, an ellipsis saying so."""
    return words if len(words) <= chars else words[: chars - 1] + "…"


# ---------------------------------------------------------------------------------------------- seats


def _seat_panel(seat: Seat, width: int, top: float, face_up: bool, reveal_toggle: bool) -> tuple[str, float]:
    """A seat: name, tile count, score and team; its hand in lines of tiles."""
    per_line = max(1, int((width - 2 * MARGIN - LABEL_WIDTH - 8) // (2 * HALF + GAP)))
    lines = max(1, -(-len(seat.hand) // per_line))
    height = max(56, lines * (HALF + GAP) + 16)
    stroke, stroke_width = (svg.HIGHLIGHT, 3) if seat.to_act else (svg.BOARD, 1)
    parts = [svg.rect(MARGIN, top, width - 2 * MARGIN, height, svg.PANEL, stroke, stroke_width)]
    name = ("▶ " if seat.to_act else "") + seat.name + (" (out)" if seat.out else "")
    parts.append(svg.text(MARGIN + 10, top + 22, name, 15, bold=True, fill=svg.HIGHLIGHT if seat.to_act else svg.INK))
    count = len(seat.hand)
    details = f"{count} tile{'s' if count != 1 else ''} · score {seat.score}" + (f" · {seat.team}" if seat.team else "")
    parts.append(svg.text(MARGIN + 10, top + 42, details, 12, fill=svg.MUTED))
    x0, y0 = MARGIN + LABEL_WIDTH, top + 8
    positions = [(x0 + (i % per_line) * (2 * HALF + GAP), y0 + (i // per_line) * (HALF + GAP)) for i in range(count)]
    faces = "".join(
        svg.tile(x, y, tile, classes="tile hand", data={"tile": tile_name(tile_index(*tile))})
        for (x, y), tile in zip(positions, seat.hand, strict=True)
    )
    if face_up:
        parts.append(faces)
    else:
        parts.append('<g class="hidden-back">' + "".join(svg.tile_back(x, y) for x, y in positions) + "</g>")
        if reveal_toggle:
            parts.append(f'<g class="hidden-face">{faces}</g>')
    return "".join(parts), height
