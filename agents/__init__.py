"""Policies that play the domino environments.

Every agent maps a batch of observations and legal-action masks to actions, so the same
object plays on the AEC environment (a batch of one, via ``act_one``) and on the batched engine.
"""

from agents.base import Agent, sample_legal
from agents.registry import AGENTS, make_agent
from agents.simple import GreedyAgent, RandomAgent

__all__ = ["AGENTS", "Agent", "GreedyAgent", "RandomAgent", "make_agent", "sample_legal"]
