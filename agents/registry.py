"""Agents by name, so command lines and configs can name their opponents."""

from __future__ import annotations

from typing import Any

from agents.base import Agent
from agents.heuristic import HeuristicAgent
from agents.search import ISMCTSAgent, OracleAgent, PIMCAgent
from agents.simple import GreedyAgent, RandomAgent
from domino_env.game import Game

AGENTS: dict[str, type[Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    "pimc": PIMCAgent,
    "ismcts": ISMCTSAgent,
    "oracle": OracleAgent,
}


def make_agent(name: str, game: Game, seed: int | None = None, **options: Any) -> Agent:
    """The built-in agent ``name`` for ``game``; ``options`` go to its constructor (for the
    search agents: ``simulations``, ``milliseconds``, ``epsilon``, and ``explore`` for the tree
    searches)."""
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; built-in agents are {', '.join(AGENTS)}")
    return AGENTS[name](game, seed=seed, **options)
