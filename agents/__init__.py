"""Policies that play the domino environments.

Every agent maps a batch of observations and legal-action masks to actions, so the same
object plays on the AEC environment (a batch of one, via ``act_one``) and on the batched engine.
Stateful agents (the heuristic, the search agents and the oracle) decide from the engine record
instead; ``act_states`` asks any agent either way (see :mod:`agents.base`).
"""

from agents.base import Agent, StatefulAgent, sample_legal
from agents.heuristic import HeuristicAgent
from agents.registry import AGENTS, make_agent
from agents.search import ISMCTSAgent, OracleAgent, PIMCAgent
from agents.simple import GreedyAgent, RandomAgent

__all__ = [
    "AGENTS",
    "Agent",
    "GreedyAgent",
    "HeuristicAgent",
    "ISMCTSAgent",
    "OracleAgent",
    "PIMCAgent",
    "RandomAgent",
    "StatefulAgent",
    "make_agent",
    "sample_legal",
]
