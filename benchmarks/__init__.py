"""Benchmarks and evaluation scripts: each prints its figures (``python -m benchmarks.NAME``).

Speed against peer implementations, side by side (``speed``); the strength ladder
(``strength``); what search, belief models, distillation and improvement steps buy
(``policy_search``, ``belief``, ``belief_search``, ``distill_rounds``, ``distill_targets``,
``improvement_step``, ``endgame``); and more.

Every script takes its arguments as ``main(argv)`` and refuses a count, seed or rate that cannot
be right in one line before it measures anything; ``tests/test_benchmark_tables.py`` runs each
at a tiny size and reads its table.
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the package itself imports nothing: the speed benchmark runs without torch
    from pathlib import Path

    from agents.base import Agent
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


def worker_count(text: str) -> int:
    """An argparse type: processes sharing searches or games, from 1 to
    :data:`agents.workers.MAX_WORKERS` (above one where this platform can fork)."""
    from agents.workers import check_workers  # imports nothing heavy, but only where it is asked for

    try:
        return check_workers("--workers", positive_int(text))
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("--workers: ")) from None


def nonnegative_int(text: str) -> int:
    """An argparse type: a whole number from 0 (a seed, or a count where 0 means none)."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"must be a whole number from 0, not {text!r}")
    return int(text)


def game_or_exit(variant: str, **options: object) -> Game:
    """``make_game`` for a script's command line: an unknown variant or an option out of range
    ends the script with the game's own one-line error."""
    from domino_env.variants import make_game

    try:
        return make_game(variant, **options)
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None


def agent_or_exit(name: str, game: Game, seed: int | None = None) -> Agent:
    """``agents.make_agent`` for a script's command line: an unknown agent or a bad option ends
    the script with the registry's one-line error, before anything is measured."""
    from agents import make_agent

    try:
        return make_agent(name, game, seed=seed)
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None


def policy_or_exit(name_or_path: str) -> tuple[Path, Game, PolicyNetwork]:
    """``training.checkpoint.load_policy`` for a script's command line: a name that is neither a
    shipped agent nor a readable checkpoint ends the script with that one-line error."""
    from training import checkpoint as ckpt  # torch, only for the scripts that measure a policy

    try:
        return ckpt.load_policy(name_or_path)
    except ckpt.CheckpointError as error:
        raise SystemExit(f"error: {error}") from None
