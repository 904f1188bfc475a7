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


def parse_agent(spec: str) -> tuple[str, dict[str, Any]]:
    """An agent's name and constructor options from ``"name"`` or ``"name:key=value,..."``, so a
    config or command line can ask for a search agent at a small budget: ``"pimc:simulations=50"``.
    Values read as integers, then numbers, else stay strings."""
    name, _, rest = spec.partition(":")
    options = parse_options(spec, rest)
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; built-in agents are {', '.join(AGENTS)}")
    return name, options


def parse_options(spec: str, pairs: str) -> dict[str, Any]:
    """The options ``"key=value,..."`` of the agent ``spec``; values read as integers, then
    numbers, else stay strings."""
    options: dict[str, Any] = {}
    for pair in filter(None, pairs.split(",")):
        key, equals, raw = pair.partition("=")
        if not equals or not key.strip():
            raise ValueError(f"agent {spec!r}: {pair!r} is not of the form key=value")
        for convert in (int, float, str):
            try:
                options[key.strip()] = convert(raw.strip())
                break
            except ValueError:
                continue
    return options


def make_agent(name: str, game: Game, seed: int | None = None, **options: Any) -> Agent:
    """The built-in agent ``name`` for ``game`` (``name`` may carry options, see
    :func:`parse_agent`); ``options`` go to its constructor (for the search agents:
    ``simulations``, ``milliseconds``, ``epsilon``, and ``explore`` for the tree searches)."""
    name, given = parse_agent(name)
    options = given | options
    try:
        return AGENTS[name](game, seed=seed, **options)
    except TypeError as error:
        raise ValueError(f"agent {name!r} does not take the options {sorted(options)}: {error}") from None
