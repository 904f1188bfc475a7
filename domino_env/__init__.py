"""Domino games as PettingZoo environments, with a batched engine for fast self-play.

import domino_env
env = domino_env.make("draw", num_players=4, partnerships=True)
batch = domino_env.make_batched("draw", batch_size=1024)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pettingzoo

import domino_env.jit_cache  # noqa: F401  (first: it decides where and how compiled code is cached)
from domino_env.batched import BatchedEnv
from domino_env.env import DominoEnv, IllegalActionError, wrap
from domino_env.variants import GAMES, make_game

if TYPE_CHECKING:
    from domino_env.single_agent import DominoSingleAgentEnv

__all__ = [
    "VARIANTS",
    "BatchedEnv",
    "DominoEnv",
    "IllegalActionError",
    "make",
    "make_batched",
    "make_game",
    "make_single_agent",
    "raw_env",
]
__version__ = "0.1.0"

VARIANTS = tuple(GAMES)
ENV_OPTIONS = ("render_mode", "illegal_action")


def raw_env(variant: str, **options: Any) -> DominoEnv:
    """The unwrapped AEC environment of ``variant``; rule options as keywords."""
    env_kwargs = {key: options.pop(key) for key in ENV_OPTIONS if key in options}
    return DominoEnv(make_game(variant, **options), **env_kwargs)


def make(variant: str, **options: Any) -> pettingzoo.AECEnv:
    """A PettingZoo AEC environment of ``variant`` (``draw``, ``block``, ...), wrapped as
    PettingZoo's classic environments are. Options: every rule option of the variant, plus
    ``render_mode`` (``"ansi"``) and ``illegal_action`` (``"raise"`` or ``"penalty"``)."""
    return wrap(raw_env(variant, **options))


def make_batched(variant: str, batch_size: int, num_threads: int | None = None, **options: Any) -> BatchedEnv:
    """``batch_size`` games of ``variant`` stepped together on ``num_threads`` threads (default:
    every core; see :class:`BatchedEnv`)."""
    return BatchedEnv(make_game(variant, **options), batch_size, num_threads)


def make_single_agent(variant: str, **kwargs: Any) -> DominoSingleAgentEnv:
    """A Gymnasium single-agent view of ``variant``: one learning seat, the others played by
    given opponent objects (see :class:`~domino_env.single_agent.DominoSingleAgentEnv` for the
    keywords; ``agents.make_single_agent`` takes agents by name too)."""
    from domino_env.single_agent import DominoSingleAgentEnv

    return DominoSingleAgentEnv(variant, **kwargs)


for _variant in VARIANTS:  # the single-agent views are registered by ``agents``, which names their opponents
    pettingzoo.register("aec", f"dominoes/{_variant}-v0", entry_point=f"domino_env.{_variant}_v0:env")
