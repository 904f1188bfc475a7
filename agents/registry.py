"""Agents by name, so command lines and configs can name their opponents."""

from __future__ import annotations

import inspect
from typing import Any

from agents.base import Agent
from agents.heuristic import HeuristicAgent
from agents.planner import PlannerAgent
from agents.search import ISMCTSAgent, OracleAgent, PIMCAgent
from agents.simple import GreedyAgent, RandomAgent
from domino_env.game import Game

AGENTS: dict[str, type[Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    "planner": PlannerAgent,
    "pimc": PIMCAgent,
    "ismcts": ISMCTSAgent,
    "oracle": OracleAgent,
}


def parse_agent(spec: str) -> tuple[str, dict[str, Any]]:
    """An agent's name and constructor options from ``"name"`` or ``"name:key=value,..."``, so a
    config or command line can ask for a search agent at a small budget: ``"pimc:simulations=50"``.
    Values read as integers, then numbers, else stay strings. The options' names and values are
    checked here, without a game (:func:`check_options`): a bad one is a one-line ValueError."""
    name, _, rest = spec.partition(":")
    options = parse_options(spec, rest)
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; built-in agents are {', '.join(AGENTS)}")
    check_options(name, options)
    return name, options


def accepted_options(agent: type[Agent]) -> list[str]:
    """The keyword options ``agent``'s constructor takes besides the game and the seed, following
    ``**options`` up to the base class that takes them."""
    names: list[str] = []
    for cls in agent.__mro__:
        init = cls.__dict__.get("__init__")
        if init is None:
            continue
        parameters = list(inspect.signature(init).parameters.values())[1:]  # not self
        named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        names += [p.name for p in parameters if p.kind in named and p.name not in ("game", "seed")]
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
            break
    return sorted(set(names) - set(getattr(agent, "refused_options", ())))


def check_options(name: str, options: dict[str, Any]) -> None:
    """Refuse options the agent ``name`` does not take, with the list of those it takes, and (for
    an agent with a ``check_options`` classmethod: the search agents) values out of range."""
    known = accepted_options(AGENTS[name])
    unknown = sorted(set(options) - set(known))
    if unknown:
        takes = f"it takes {', '.join(known)}" if known else "it takes no options"
        raise ValueError(f"agent {name!r} does not take the options {unknown}; {takes}")
    check = getattr(AGENTS[name], "check_options", None)
    if check is not None:
        check(**options)


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
    check_options(name, options)  # unknown names and bad values refused before any work
    try:
        return AGENTS[name](game, seed=seed, **options)
    except TypeError as error:  # a constructor refusing an option check_options let through
        error_text = str(error).replace("\n", " ")
        raise ValueError(
            f"agent {name!r} does not take the options {sorted(options)}; "
            f"it takes {', '.join(accepted_options(AGENTS[name])) or 'no options'} ({error_text})"
        ) from None


def check_labeller(agent: Agent, spec: str) -> Agent:
    """``agent`` if it can value each move of a position (``action_values``, as PIMC does), so
    that a policy can be fitted to its values (``improve.labeller``); else a one-line ValueError.
    The oracle searches the real hands, which the labels must not be drawn from: refused."""
    if isinstance(agent, OracleAgent):
        raise ValueError(f"{spec!r} sees every hand; a labeller values the moves from the seat's own knowledge")
    if not callable(getattr(agent, "action_values", None)):
        raise ValueError(f"{spec!r} does not value each move of a position; a labeller is pimc or ismcts")
    return agent
