"""The Gymnasium single-agent view with its opponents named: ``"greedy"``, ``"pimc:simulations=50"``.

:class:`domino_env.single_agent.DominoSingleAgentEnv` plays whatever opponent objects it is given;
it cannot know the agents' names, which live here. :func:`make_single_agent` turns each name into
a builder that the view calls at every seeded reset, so named opponents are reseeded with the
episode. Importing :mod:`agents` registers the view as ``dominoes/<variant>-single-agent-v0``
with Gymnasium.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import gymnasium

from agents.registry import make_agent, parse_agent
from domino_env import VARIANTS
from domino_env.game import Game
from domino_env.single_agent import DominoSingleAgentEnv, Opponent, OpponentSpec

NamedOpponent = str | OpponentSpec


def build_named(name: str, game: Game, seed: int) -> Opponent:
    """The agent ``name`` for ``game``, seeded: the builder the view calls at each seeded reset."""
    return make_agent(name, game, seed=seed)


def opponent_builder(spec: NamedOpponent) -> OpponentSpec:
    """A name becomes a builder (checked now, so a typo fails at construction); anything else
    is passed to the view as it is."""
    if not isinstance(spec, str):
        return spec
    parse_agent(spec)
    return functools.partial(build_named, spec)


def make_single_agent(
    variant: str, opponents: NamedOpponent | Sequence[NamedOpponent] = "random", **kwargs: Any
) -> DominoSingleAgentEnv:
    """A Gymnasium single-agent view of ``variant`` whose other seats are played by ``opponents``:
    agent names (``"random"``, ``"greedy"``, ``"pimc:simulations=50"``), opponent objects, or one
    of those per other seat. The other keywords are :class:`DominoSingleAgentEnv`'s."""
    if isinstance(opponents, str) or not isinstance(opponents, Sequence):
        return DominoSingleAgentEnv(variant, opponents=opponent_builder(opponents), **kwargs)
    return DominoSingleAgentEnv(variant, opponents=[opponent_builder(spec) for spec in opponents], **kwargs)


def register_single_agent_envs() -> None:
    """``gymnasium.make("dominoes/draw-single-agent-v0", opponents="greedy", ...)`` for every variant."""
    for variant in VARIANTS:
        env_id = f"dominoes/{variant}-single-agent-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=make_single_agent, kwargs={"variant": variant})
