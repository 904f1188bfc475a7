"""What a table picture shows: the :class:`Table` the drawing code draws.

The drawing code never touches an engine record: :func:`domino_env.picture.read.read_table`
fills a ``Table`` from a variant's ``Game`` and one record, and the variant lays its own tiles on
it (``Game.put_on_table``). This module imports no ``Game``, so the variants can fill it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

NO_NUMBER = -1  # an open end that is closed, or a line not yet started


@dataclass
class Seat:
    name: str
    hand: list[tuple[int, int]]  # faces of each tile held, in index order
    score: int  # match points: scored (Draw, Block) or pips against (Hungarian, Mexican Train)
    to_act: bool
    out: bool = False  # eliminated (Hungarian elimination), or lost the match
    team: str = ""


@dataclass
class Train:
    """A Mexican Train train from the hub outwards (``owner`` is None for the Mexican Train)."""

    owner: int | None
    label: str
    tiles: list[tuple[int, int]]  # faces in train order: the first face matches the engine
    open_number: int
    marker: bool
    pending: bool  # a double at its end must be satisfied


@dataclass
class Table:
    title: str
    status: str
    pile_label: str  # "boneyard" or "set aside"
    pile: int
    seats: list[Seat]
    score_label: str = "score"  # what a seat's score means: "points won" or "penalty pips"
    line: list[tuple[int, int]] = field(default_factory=list)  # line games: faces left to right
    open_ends: tuple[int, int] = (NO_NUMBER, NO_NUMBER)  # line games: left and right open numbers
    engine: int = NO_NUMBER  # Mexican Train: the engine double's number (NO_NUMBER: none yet)
    trains: list[Train] = field(default_factory=list)
    last_move: str = ""  # what the last action did, in words
    last_tile: int = -1  # the tile the last action played, to highlight on the table

    @property
    def is_train_game(self) -> bool:
        return bool(self.trains)
