"""A :class:`~domino_env.picture.table.Table` read from a variant's ``Game`` and one engine record.

This is the one place the picture reads a record, through the ``Game``'s public methods
(``scene``, ``match_points``, ``current_seat``, ...) and the few record fields every rules
module documents. What differs between variants (the line or the trains, the boneyard or the
tiles set aside, how far the episode has come) the ``Game`` answers itself, so the picture knows
no variant by its class and a change in a rules module's state shows up in its variant.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from domino_env.game import Game
from domino_env.picture.table import Seat, Table

# ``location`` of a tile in the boneyard (Draw, Mexican Train) or set aside (Block, Hungarian):
# -1 in every rules module.
PILE = -1


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
    hands = [list(row) for row in game.scene(state, g)[-players:]]
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
    table = Table(
        title=game.title,
        status=_status(game, state, g, names),
        pile_label="boneyard" if game.allow_draw else "set aside",
        pile=int((state[g]["location"][: game.num_tiles] == PILE).sum()),
        seats=seats,
        score_label=score_label(game),
    )
    game.put_on_table(table, state, g, names)
    if last_move is not None:
        seat, action = last_move
        table.last_move = say_move(game, names, seat, action)
        table.last_tile = int(game.action_tiles[action])
    return table


PENALTY_VARIANTS = ("hungarian", "mexican_train")  # a seat's score is the pips left against it


def score_label(game: Game) -> str:
    """What a seat's match score means in ``game``: points won (Draw, Block: higher is better)
    or penalty pips (Hungarian, Mexican Train: lower is better)."""
    return "penalty pips" if game.name in PENALTY_VARIANTS else "points won"


def say_move(game: Game, names: Sequence[str], seat: int, action: int) -> str:
    """The move in words for someone looking at the table, the place it went named by the
    variant (Mexican Train names a train by its owner)."""
    what = game.action_name(action)
    if not what.startswith("play "):
        return f"{names[seat]} {'drew' if what == 'draw' else 'passed'}"
    tile = what[len("play ") :].partition(" on ")[0]
    return f"{names[seat]} played {tile} on {game.say_place(action, seat, names)}"


def _status(game: Game, state: np.ndarray, g: int, names: list[str]) -> str:
    where = game.progress(state, g)
    if game.is_over(state, g):
        return f"{where} · game over"
    note = game.turn_note(state, g)
    return f"{where} · {names[game.current_seat(state, g)]} to act" + (f" {note}" if note else "")
