"""Agents by name, so command lines and configs can name their opponents."""

from __future__ import annotations

from agents.base import Agent
from agents.simple import GreedyAgent, RandomAgent
from domino_env.game import Game

AGENTS: dict[str, type[Agent]] = {"random": RandomAgent, "greedy": GreedyAgent}


def make_agent(name: str, game: Game, seed: int | None = None) -> Agent:
    """The built-in agent ``name`` for ``game``."""
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; built-in agents are {', '.join(AGENTS)}")
    return AGENTS[name](game, seed=seed)
