"""Moved: the torchrl bridge wraps agents, so it lives above them, in :mod:`arena.integrations.torchrl`."""

raise ImportError("domino_env.integrations.torchrl moved to arena.integrations.torchrl: import it from there")
