"""``mexican_train`` as a PettingZoo module, in the manner of ``pettingzoo.classic``."""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from domino_env import make
from domino_env import raw_env as _raw_env
from domino_env.env import DominoEnv


def env(**options: Any) -> AECEnv:
    """The wrapped environment; see ``domino_env.make("mexican_train", ...)``."""
    return make("mexican_train", **options)


def raw_env(**options: Any) -> DominoEnv:
    """The environment without PettingZoo's order-enforcing wrapper."""
    return _raw_env("mexican_train", **options)
