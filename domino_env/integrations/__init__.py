"""Bridges to external RL frameworks, each behind its own optional extra.

``domino_env.integrations.sb3`` (extra ``sb3``), ``domino_env.integrations.rllib`` (``rllib``) and
``domino_env.integrations.torchrl`` (``torchrl``) import their framework at import time, so the
core package never needs one; importing a bridge without its extra fails with an error that
names the extra to install.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from domino_env.variants import make_game

if TYPE_CHECKING:
    from agents.base import Agent


def require(module: str, extra: str) -> ModuleType:
    """Import ``module``, or fail with the ``pip install`` line that provides it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"{module} is not installed: pip install 'domino_env[{extra}]' ({error})") from error


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
    from agents.registry import make_agent
    from agents.tournament import rotated_match

    game = make_game(variant, **options)
    results = {}
    for name in opponents:
        others = [make_agent(name, game, seed=seed + seat) for seat in range(game.num_players - 1)]
        results[name] = rotated_match(game, [agent, *others], episodes, seed=seed + 1)[0].win_rate
    return results
