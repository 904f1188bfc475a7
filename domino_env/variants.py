"""The registry of variants: name -> the Game class that configures it."""

from __future__ import annotations

from domino_env.game import Game
from domino_env.games.draw import BlockGame, DrawGame
from domino_env.games.hungarian import HungarianGame
from domino_env.games.mexican_train import MexicanTrainGame

GAMES: dict[str, type[Game]] = {
    "draw": DrawGame,
    "block": BlockGame,
    "hungarian": HungarianGame,
    "mexican_train": MexicanTrainGame,
}


def make_game(variant: str, **options: object) -> Game:
    """The ``Game`` of ``variant`` under ``options`` (a bad option raises here)."""
    if variant not in GAMES:
        raise ValueError(f"unknown variant {variant!r}; variants are {', '.join(GAMES)}")
    return GAMES[variant](**options)
