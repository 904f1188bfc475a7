"""Benchmarks and evaluation scripts: each prints its figures (``python -m benchmarks.NAME``).

Speed against peer implementations, side by side (``speed``); the strength ladder
(``strength``); what search, belief models, distillation and improvement steps buy
(``policy_search``, ``belief``, ``belief_search``, ``distill_rounds``, ``distill_targets``,
``improvement_step``, ``endgame``); and more.
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the package itself imports nothing: the speed benchmark runs without torch
    from pathlib import Path

    from agents.network import PolicyNetwork
    from domino_env.game import Game


def positive_float(text: str) -> float:
    """An argparse type: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text!r}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: a whole number above 0."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, not {text!r}")
    return int(text)


def policy_or_exit(name_or_path: str) -> tuple[Path, Game, PolicyNetwork]:
    """``training.checkpoint.load_policy`` for a script's command line: a name that is neither a
    shipped agent nor a readable checkpoint ends the script with that one-line error."""
    from training import checkpoint as ckpt  # torch, only for the scripts that measure a policy

    try:
        return ckpt.load_policy(name_or_path)
    except ckpt.CheckpointError as error:
        raise SystemExit(f"error: {error}") from None
