"""Adapters of the environments to other libraries, each behind its own optional extra.

An adapter here needs only the environments. The bridges that turn a framework's trained policy
into an agent (Stable-Baselines3, RLlib, TorchRL) sit above the agents, in
:mod:`arena.integrations`; importing one of their old paths here says where it went.
"""

from __future__ import annotations

import importlib
from types import ModuleType

MOVED = {"win_rates": "arena.integrations.win_rates"}  # the bridges' old modules say so themselves


def require(module: str, extra: str) -> ModuleType:
    """Import ``module``, or fail with the ``pip install`` line that provides it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"{module} is not installed: pip install 'domino_env[{extra}]' ({error})") from error


def __getattr__(name: str) -> object:
    """Names that moved up the stack are refused with their new place, so an old import fails
    with the fix instead of a bare ``AttributeError``."""
    if name in MOVED:
        raise ImportError(f"domino_env.integrations.{name} moved to {MOVED[name]}: import it from there")
    raise AttributeError(f"module 'domino_env.integrations' has no attribute {name!r}")
