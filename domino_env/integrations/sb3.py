"""Moved: the sb3 bridge wraps agents, so it lives above them, in :mod:`arena.integrations.sb3`."""

raise ImportError("domino_env.integrations.sb3 moved to arena.integrations.sb3: import it from there")
