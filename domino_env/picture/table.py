"""What a table picture shows, read from a variant's ``Game`` and one engine record.

The drawing code never touches the engine record: it draws a :class:`Table`, and this module is
the one place that reads a record for it, through the ``Game``'s public methods (``scene``,
``train``, ``match_points``, ``current_seat``, ...) and the few record fields every rules module
documents. So a change in a rules module's state shows up here, not throughout the drawing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from domino_env.game import Game
from domino_env.games.hungarian import HungarianGame
from domino_env.games.mexican_train import MexicanTrainGame
from domino_env.tiles import num_tiles

# ``location`` of a tile in the boneyard (Draw, Mexican Train) or set aside (Block, Hungarian):
# -1 in every rules module.
PILE = -1
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
    line: list[tuple[int, int]] = field(default_factory=list)  # line games: faces left to right
    open_ends: tuple[int, int] = (NO_NUMBER, NO_NUMBER)  # line games: left and right open numbers
    engine: int = NO_NUMBER  # Mexican Train: the engine double's number (NO_NUMBER: none yet)
    trains: list[Train] = field(default_factory=list)
    last_move: str = ""  # what the last action did, in words
    last_tile: int = -1  # the tile the last action played, to highlight on the table

    @property
    def is_train_game(self) -> bool:
        return bool(self.trains)


def read_table(
    game: Game,
    state: np.ndarray,
    g: int = 0,
    names: Sequence[str] | None = None,
    last_move: tuple[int, int] | None = None,
) -> Table:
    """The table of game ``g`` of ``state``; ``last_move`` is the (seat, action) just played."""
    players = game.num_players
    names = list(names) if names is not None else [f"player_{seat}" for seat in range(players)]
    if len(names) != players:
        raise ValueError(f"{game.name} with {players} players needs {players} names, got {len(names)}")
    rows = game.scene(state, g)
    hands = [list(row) for row in rows[-players:]]
    over = game.is_over(state, g)
    current = game.current_seat(state, g)
    in_play = set(game.seats_in_play(state, g))
    scores = game.match_points(state, g)
    partners = game.partnerships
    seats = [
        Seat(
            name=names[seat],
            hand=hands[seat],
            score=scores[seat],
            to_act=not over and seat == current,
            out=seat not in in_play,
            team=f"team {'AB'[seat % 2]}" if partners else "",
        )
        for seat in range(players)
    ]
    record = state[g]
    set_size = int(getattr(game.config, "set_size", 6))
    pile = int((record["location"][: num_tiles(set_size)] == PILE).sum())
    draws = isinstance(game, MexicanTrainGame) or bool(getattr(game.config, "allow_draw", 0))
    table = Table(
        title=game.title,
        status=_status(game, state, g, names),
        pile_label="boneyard" if draws else "set aside",
        pile=pile,
        seats=seats,
    )
    if isinstance(game, MexicanTrainGame):
        _read_trains(game, state, g, names, table)
    else:
        table.line = [(int(a), int(b)) for a, b in rows[0]]
        table.open_ends = (int(record["ends"][0]), int(record["ends"][1])) if table.line else table.open_ends
    if last_move is not None:
        seat, action = last_move
        table.last_move = say_move(game, names, seat, action)
        table.last_tile = int(game.action_tiles[action])
    return table


def say_move(game: Game, names: list[str], seat: int, action: int) -> str:
    """The move in words for someone looking at the table: Mexican Train's trains, which action
    names count from the actor's seat (``train+k``), are named by their owners."""
    what = game.action_name(action)
    if not what.startswith("play "):
        return f"{names[seat]} {'drew' if what == 'draw' else 'passed'}"
    tile, _, target = what[len("play ") :].partition(" on ")
    if isinstance(game, MexicanTrainGame):
        if target == "own":
            target = "their own train"
        elif target == "mexican":
            target = "the Mexican Train"
        else:  # train+k
            target = f"{names[(seat + int(target.split('+')[1])) % game.num_players]}'s train"
    return f"{names[seat]} played {tile} on {target}"


def _status(game: Game, state: np.ndarray, g: int, names: list[str]) -> str:
    record = state[g]
    if isinstance(game, MexicanTrainGame):
        rounds = game.config.set_size + 1
        where = f"round {int(record['round_number']) + 1} of {rounds}" if game.config.match else "one round"
    else:
        where = f"hand {int(record['hand_number']) + 1}" if getattr(game.config, "match", 0) else "one hand"
    if game.is_over(state, g):
        return f"{where} · game over"
    status = f"{where} · {names[game.current_seat(state, g)]} to act"
    if isinstance(game, HungarianGame) and record["run_active"]:
        status += " again: the run goes on"  # a Hungarian turn is a run of tiles while one fits
    return status


def _read_trains(game: MexicanTrainGame, state: np.ndarray, g: int, names: list[str], table: Table) -> None:
    record = state[g]
    players = game.num_players
    pending = int(record["pending_train"])
    table.engine = int(record["engine"])
    for train in range(players + 1):
        owner = train if train < players else None
        table.trains.append(
            Train(
                owner=owner,
                label=names[train] if owner is not None else "Mexican Train",
                tiles=game.train(state, g, train),
                open_number=int(record["train_end"][train]),
                marker=bool(owner is not None and record["marker"][owner]),
                pending=pending == train and not game.is_over(state, g),
            )
        )
