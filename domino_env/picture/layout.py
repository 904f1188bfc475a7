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
from dataclasses import dataclass

from domino_env.picture import svg
from domino_env.picture.svg import BADGE_WIDTH, GAP, HALF, wrap
from domino_env.picture.table import NO_NUMBER, Seat, Table, Train
from domino_env.tiles import tile_index, tile_name

MARGIN = 16
HEADER = 74  # at least: the title, the caption and the pile beside them
ROW = 2 * HALF + 2 * GAP  # a row of the table holds crosswise doubles
LABEL_WIDTH = 200  # a seat panel's name column, at least (wider for a longer name)
TRAIN_LABEL = 150  # a train's label, at least (wider for a longer owner's name)
MAX_TRAIN_LABEL = 300  # a longer name wraps onto a second line
HUB_WIDTH = 110
WIDTH_LINE = 1040
WIDTH_TRAINS = 1200
NARROW = 700  # a picture narrower than this (a phone's) stacks names above hands and trains
MIN_WIDTH = 320
PILE_WIDTH = 2 * HALF + 40  # the boneyard's stack and its count badge, at the header's right
HIDDEN_STYLE = ".hidden-face{display:none}"  # a page shows the faces by overriding this


@dataclass
class Look:
    """How the picture is drawn: its ``width`` and whether tiles show ``numerals``."""

    width: int
    numerals: bool = False

    @property
    def narrow(self) -> bool:
        return self.width < NARROW


def draw(table: Table, face_up: Collection[int], viewer: int, reveal_toggle: bool = False, numerals: bool = False,
         width: int | None = None) -> str:  # fmt: skip
    """The picture of ``table`` as an SVG document.

    ``face_up``: seats whose hands are shown; the others are face down. ``viewer``: the seat the
    badges' target names are relative to (Mexican Train names trains from the actor's seat).
    ``reveal_toggle``: also draw the hidden hands' faces, in ``class="hidden-face"`` groups that a
    page can show or hide (hidden by the picture's own style). ``numerals``: tiles show their
    numbers in digits instead of pips. ``width``: the picture's width in pixels (default: the
    variant's usual width); under :data:`NARROW` (a phone) names go above hands and trains.
    """
    default = WIDTH_TRAINS if table.is_train_game else WIDTH_LINE
    look = Look(default if width is None else max(MIN_WIDTH, int(width)), numerals)
    width = look.width
    header, y = _header(table, look)
    parts = [header]
    if table.is_train_game:
        body, height = _trains(table, look, y, viewer)
    else:
        body, height = _line(table, look, y)
    parts.append(body)
    y += height + GAP * 2
    label_width = _label_width(table, look)
    for seat_index, seat in enumerate(table.seats):
        panel, height = _seat_panel(seat, table.score_label, look, label_width, y, seat_index in face_up,
                                    reveal_toggle)  # fmt: skip
        parts.append(panel)
        y += height + GAP
    return svg.document(width, y + MARGIN - GAP, "".join(parts), HIDDEN_STYLE if reveal_toggle else "")


# ---------------------------------------------------------------------------------------------- header


def _header(table: Table, look: Look) -> tuple[str, float]:
    """The title and status, the pile and the last move; returns the markup and where the table
    below it starts."""
    pile = f"{table.pile_label}: {table.pile} tile{'s' if table.pile != 1 else ''}"
    room = look.width - 2 * MARGIN - PILE_WIDTH - 8
    title_size = 17 if look.narrow else 20
    lines = wrap(f"{table.title} · {table.status}", title_size, room, bold=True)
    parts = [
        svg.text(MARGIN, 26 + i * (title_size + 4), line, size=title_size, bold=True) for i, line in enumerate(lines)
    ]
    y = 26 + (len(lines) - 1) * (title_size + 4) + 22
    second = f"{pile}   ·   last move: {table.last_move}" if table.last_move else pile
    for line in wrap(second, 15, room if y < 84 else look.width - 2 * MARGIN):
        parts.append(svg.text(MARGIN, y, line, size=15, fill=svg.MUTED, classes="caption"))
        y += 19
    parts.append(svg.pile(look.width - MARGIN - PILE_WIDTH + 4, 18, table.pile_label, table.pile))
    return "".join(parts), max(HEADER, y - 19 + 12)


def _label_width(table: Table, look: Look) -> float:
    """The seats' name column: wide enough for the longest name and details, up to under half
    the picture (a longer name wraps); a narrow picture puts names above the hands instead."""
    if look.narrow:
        return look.width - 2 * MARGIN - 20
    widest = max(
        max(svg.text_width(_seat_name(seat), 15, bold=True), svg.text_width(_seat_details(seat, table.score_label), 12))
        for seat in table.seats
    )
    return min(max(LABEL_WIDTH, widest + 24), (look.width - 2 * MARGIN) * 0.45)


# ---------------------------------------------------------------------------------------------- the line


def _line(table: Table, look: Look, top: float) -> tuple[str, float]:
    """The snake of play between two end badges; returns the markup and its height."""
    width = look.width
    started = bool(table.line)
    widths = [BADGE_WIDTH, *(_tile_width(faces) for faces in table.line), BADGE_WIDTH]
    places = _snake(widths, MARGIN + 8, width - MARGIN - 8)
    parts = []
    for side, number, (x, row, _) in zip(("left", "right"), table.open_ends, (places[0], places[-1]), strict=True):
        shown = "—" if not started else "×" if number == NO_NUMBER else str(number)
        closed = started and number == NO_NUMBER
        parts.append(svg.badge(x, top + 8 + row * ROW + GAP, side, shown, side, closed=closed))
    for (a, b), (x, row, forward) in zip(table.line, places[1:-1], strict=True):
        parts.append(_table_tile(x, top + 8 + row * ROW, (a, b) if forward else (b, a), table.last_tile, look))
    height = (places[-1][1] + 1) * ROW + 16
    if not started:
        words = "the line is empty: lead any legal tile"
        parts.append(svg.text(width / 2, top + 8 + ROW / 2 + 5, words, 13 if look.narrow else 15, fill=svg.MUTED,
                              anchor="middle"))  # fmt: skip
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


def _table_tile(x: float, y: float, faces: tuple[int, int], last_tile: int, look: Look) -> str:
    """A tile on the table, doubles crosswise, centred on a row of height ``ROW``."""
    double = faces[0] == faces[1]
    offset = GAP if double else GAP + HALF / 2
    index = tile_index(*faces)
    data = {"tile": tile_name(index)}
    return svg.tile(
        x,
        y + offset,
        faces,
        vertical=double,
        classes="tile table",
        data=data,
        highlight=index == last_tile,
        numerals=look.numerals,
    )


# ---------------------------------------------------------------------------------------------- trains


def train_target(train: Train, viewer: int, players: int) -> str:
    """The target word of action names for ``train`` seen from ``viewer``: ``own``, ``mexican``
    or ``train+k`` (the k-th seat after the viewer), as the action-name contract defines them."""
    if train.owner is None:
        return "mexican"
    k = (train.owner - viewer) % players
    return "own" if k == 0 else f"train+{k}"


def _trains(table: Table, look: Look, top: float, viewer: int) -> tuple[str, float]:
    """The hub and a row per train (wide), or the engine above rows that each put the train's
    label above its tiles (narrow); returns the markup and the height."""
    players = len(table.trains) - 1
    width = look.width
    titles = [_train_title(train) for train in table.trains]
    if look.narrow:
        label_width, label_x, hub_x = width - 2 * MARGIN - 16, MARGIN + 8, MARGIN + 8 + HALF / 2
        tiles_x, row_height, first = label_x, ROW + 30, top + 2 * HALF + 32
        height = first - top + len(table.trains) * row_height + 8
        hub_y = top + 12 + HALF
    else:
        widest = max(svg.text_width(title, 13, bold=True) for title in titles) + 16
        label_width = min(max(TRAIN_LABEL, widest), MAX_TRAIN_LABEL)
        label_x, row_height, first = MARGIN + HUB_WIDTH, ROW, top + 8
        tiles_x = label_x + label_width + GAP * 2
        height = len(table.trains) * ROW + 16
        hub_x, hub_y = MARGIN + 8 + HUB_WIDTH / 2 - 10, top + height / 2
    parts = [svg.rect(MARGIN, top, width - 2 * MARGIN, height, svg.FELT_LIGHT)]
    rows = []
    capacity = int((width - MARGIN - 8 - tiles_x - BADGE_WIDTH - GAP) // (2 * HALF + GAP))
    for index, train in enumerate(table.trains):
        y = first + index * row_height
        if not look.narrow:
            parts.append(f'<path d="M{hub_x:g} {hub_y:g}L{label_x:g} {y + ROW / 2:g}" stroke="{svg.BOARD}" '
                         'stroke-width="3"/>')  # fmt: skip
        target = train_target(train, viewer, players)
        if look.narrow:
            rows.append(_train_label_above(train, titles[index], label_x, y, label_width))
            y += 30
        else:
            rows.append(_train_label(train, titles[index], label_x, y, label_width))
        rows.append(_train_tiles(train, table.last_tile, tiles_x, y, capacity, target, look))
    if look.narrow:
        hub = f'<g class="hub">{_engine(table, hub_x, hub_y, look)}</g>'
        words = (
            "engine" if table.engine == NO_NUMBER else f"engine {table.engine}-{table.engine}: every train starts here"
        )
        parts.append(hub + svg.text(hub_x + HALF + 14, hub_y + 5, words, 13, fill=svg.MUTED))
    else:
        parts.append(_engine(table, hub_x, hub_y, look))
        parts.append(svg.text(hub_x, hub_y + HALF + 30, "engine", 12, fill=svg.MUTED, anchor="middle"))
    return "".join(parts + rows), height


def _engine(table: Table, hub_x: float, hub_y: float, look: Look) -> str:
    radius = HALF + (4 if look.narrow else 14)
    parts = [f'<circle cx="{hub_x:g}" cy="{hub_y:g}" r="{radius}" fill="{svg.BOARD}" stroke="{svg.INK}" '
             'stroke-width="2"/>']  # fmt: skip
    if table.engine == NO_NUMBER:
        parts.append(svg.text(hub_x, hub_y + 5, "engine?", 13, anchor="middle"))
    else:
        engine = (table.engine, table.engine)
        parts.append(svg.tile(hub_x - HALF / 2, hub_y - HALF, engine, vertical=True, classes="tile engine",
                              numerals=look.numerals))  # fmt: skip
    return "".join(parts)


def _train_title(train: Train) -> str:
    return "Mexican Train" if train.owner is None else train.label


def _train_note(train: Train) -> str:
    if train.pending:
        return "double: satisfy it"
    return "open to all" if train.owner is None else ("train, marker: open" if train.marker else "train, private")


def _train_label(train: Train, title: str, x: float, y: float, width: float) -> str:
    """A train's label beside its tiles: the owner (on two lines when too long), the marker and
    whether the train is open."""
    stroke = svg.WARNING if train.pending else svg.BOARD
    parts = [svg.rect(x, y + GAP, width, 2 * HALF, svg.BOARD, stroke, 2 if train.pending else 1, classes="label")]
    size = 13
    lines = wrap(title, size, width - 16, bold=True)
    if len(lines) > 2:  # far too long a name: smaller, still whole
        size = 11
        lines = wrap(title, size, width - 16, bold=True)
    baselines = [y + GAP + 20] if len(lines) == 1 else [y + GAP + 15 + (size + 2) * i for i in range(len(lines))]
    for line, baseline in zip(lines, baselines, strict=True):
        parts.append(svg.text(x + 8, baseline, line, size, bold=True))
    note_y = y + GAP + 42 if len(lines) == 1 else y + GAP + 2 * HALF - 6
    parts.append(svg.text(x + (28 if train.marker else 8), note_y, _train_note(train), 11,
                          fill=svg.WARNING if train.pending else svg.MUTED))  # fmt: skip
    if train.marker:
        parts.append(svg.marker_flag(x + 10, note_y - 12))
    return "".join(parts)


def _train_label_above(train: Train, title: str, x: float, y: float, width: float) -> str:
    """A narrow picture's train label: one line above the train's tiles."""
    stroke = svg.WARNING if train.pending else svg.BOARD
    parts = [svg.rect(x, y + 2, width, 26, svg.BOARD, stroke, 2 if train.pending else 1, classes="label")]
    left = x + (28 if train.marker else 8)
    if train.marker:
        parts.append(svg.marker_flag(x + 10, y + 6))
    note = _train_note(train)
    size = 13
    while size > 9 and svg.text_width(title, size, True) + svg.text_width(note, 11) + 16 > x + width - left:
        size -= 1
    parts.append(svg.text(left, y + 20, title, size, bold=True))
    parts.append(svg.text(x + width - 8, y + 20, note, 11, fill=svg.WARNING if train.pending else svg.MUTED,
                          anchor="end"))  # fmt: skip
    return "".join(parts)


def _train_tiles(train: Train, last_tile: int, tiles_x: float, y: float, capacity: int, target: str,
                 look: Look) -> str:  # fmt: skip
    """A train's tiles from the hub out (the oldest counted, "+N", when they do not fit) and the
    open-end badge."""
    parts = []
    tiles = train.tiles
    x = tiles_x
    if len(tiles) > capacity:
        hidden = len(tiles) - capacity + 1
        parts.append(svg.text(x + HALF, y + ROW / 2, f"+{hidden}", 14, bold=True, anchor="middle"))
        tiles = tiles[hidden:]
        x += 2 * HALF + GAP
    for faces in tiles:
        parts.append(_table_tile(x, y, faces, last_tile, look))
        x += _tile_width(faces) + GAP
    parts.append(svg.badge(x + GAP, y + GAP, "open", str(train.open_number), target, warn=train.pending))
    return "".join(parts)


def fit(words: str, chars: int) -> str:
    """``words`` cut to ``chars`` characters, an ellipsis saying so."""
    return words if len(words) <= chars else words[: chars - 1] + "…"


# ---------------------------------------------------------------------------------------------- seats


def _seat_name(seat: Seat) -> str:
    return ("▶ " if seat.to_act else "") + seat.name + (" (out)" if seat.out else "")


def _seat_details(seat: Seat, score_label: str) -> str:
    count = len(seat.hand)
    team = f" · {seat.team}" if seat.team else ""
    return f"{count} tile{'s' if count != 1 else ''} · {score_label} {seat.score}{team}"


def _seat_panel(seat: Seat, score_label: str, look: Look, label_width: float, top: float, face_up: bool,
                reveal_toggle: bool) -> tuple[str, float]:  # fmt: skip
    """A seat: name (wrapped, never cut), tile count, score and team; its hand in lines of
    tiles beside the name, or below it in a narrow picture."""
    width = look.width
    names = wrap(_seat_name(seat), 15, label_width - 16, bold=True)
    details = wrap(_seat_details(seat, score_label), 12, label_width - 16)
    words_height = 22 + 18 * (len(names) - 1) + 16 * len(details) + 4
    if look.narrow:
        x0, y0 = MARGIN + 10, top + words_height + 4
        room = width - 2 * MARGIN - 20
    else:
        x0, y0 = MARGIN + label_width, top + 8
        room = width - 2 * MARGIN - label_width - 8
    per_line = max(1, int((room + GAP) // (2 * HALF + GAP)))
    count = len(seat.hand)
    lines = max(1, -(-count // per_line))
    hand_height = lines * (HALF + GAP) + 8
    height = words_height + hand_height + 4 if look.narrow else max(56, words_height + 6, hand_height + 8)
    stroke, stroke_width = (svg.HIGHLIGHT, 3) if seat.to_act else (svg.BOARD, 1)
    parts = [svg.rect(MARGIN, top, width - 2 * MARGIN, height, svg.PANEL, stroke, stroke_width, classes="seat")]
    y = top + 22
    for line in names:
        parts.append(svg.text(MARGIN + 10, y, line, 15, bold=True, fill=svg.HIGHLIGHT if seat.to_act else svg.INK,
                              classes="seat-name"))  # fmt: skip
        y += 18
    y += 2
    for line in details:
        parts.append(svg.text(MARGIN + 10, y, line, 12, fill=svg.MUTED, classes="seat-details"))
        y += 16
    positions = [(x0 + (i % per_line) * (2 * HALF + GAP), y0 + (i // per_line) * (HALF + GAP)) for i in range(count)]
    faces = "".join(
        svg.tile(x, y, tile, classes="tile hand", data={"tile": tile_name(tile_index(*tile))}, numerals=look.numerals)
        for (x, y), tile in zip(positions, seat.hand, strict=True)
    )
    if face_up:
        parts.append(faces)
    else:
        parts.append('<g class="hidden-back">' + "".join(svg.tile_back(x, y) for x, y in positions) + "</g>")
        if reveal_toggle:
            parts.append(f'<g class="hidden-face">{faces}</g>')
    return "".join(parts), height
