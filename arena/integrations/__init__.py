"""Bridges from external RL frameworks to the agents, each behind its own optional extra.

``arena.integrations.sb3`` (extra ``sb3``), ``arena.integrations.rllib`` (``rllib``) and
``arena.integrations.torchrl`` (``torchrl``) import their framework at import time, so nothing
below them ever needs one; importing a bridge without its extra fails with an error that names
the extra to install (:func:`domino_env.integrations.require`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.base import Agent
from agents.registry import make_agent
from agents.tournament import rotated_match
from domino_env.variants import make_game


def win_rates(
    agent: Agent,
    variant: str,
    opponents: Sequence[str] = ("random", "greedy"),
    episodes: int = 1000,
    seed: int = 0,
    **options: Any,
) -> dict[str, float]:
    """The win rate of a trained ``agent`` against each built-in agent in ``opponents`` (which
    takes every other seat), seats rotated over mirrored deals, as
    ``agents.tournament.rotated_match`` plays them; the engine refuses illegal actions there.

    Every framework's policy becomes an :class:`agents.Agent` through its bridge, so the
    examples compare them all the same way."""
    game = make_game(variant, **options)
    results = {}
    for name in opponents:
        others = [make_agent(name, game, seed=seed + seat) for seat in range(game.num_players - 1)]
        results[name] = rotated_match(game, [agent, *others], episodes, seed=seed + 1)[0].win_rate
    return results
