"""Policies that play the domino environments.

Every agent maps a batch of observations and legal-action masks to actions, so the same
object plays on the AEC environment (a batch of one, via ``act_one``) and on the batched engine.
Stateful agents (the heuristic, the search agents and the oracle) decide from the engine record
instead; ``act_states`` asks any agent either way (see :mod:`agents.base`).

Trained policies (:mod:`agents.policy`, :mod:`agents.policy_search`, :mod:`agents.network`) need
torch and are imported from their modules, so that ``import agents`` works in a core-only install.
"""

from agents.base import Agent, StatefulAgent, sample_legal
from agents.heuristic import HeuristicAgent
from agents.registry import AGENTS, make_agent
from agents.search import ISMCTSAgent, OracleAgent, PIMCAgent
from agents.simple import GreedyAgent, RandomAgent
from agents.single_agent import make_single_agent, register_single_agent_envs

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
    "make_single_agent",
    "sample_legal",
]

register_single_agent_envs()
