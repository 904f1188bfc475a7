"""Moved: the rllib bridge wraps agents, so it lives above them, in :mod:`arena.integrations.rllib`."""

raise ImportError("domino_env.integrations.rllib moved to arena.integrations.rllib: import it from there")
