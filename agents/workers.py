"""Worker processes that share slow searches: the games of a match against search agents
(:func:`agents.tournament.rotated_match`) and the positions a search labels
(:func:`training.action_values.search_values`).

Both fork: a worker inherits the agents, their compiled searches and the positions as they are
in the parent, so nothing is pickled on the way in and nothing is compiled again. Each worker
runs one torch thread, one heavy job per core. Work goes out in blocks of a fixed size, and the
caller restarts every agent's generator at each block from the block's own seed, so the results
are the same for any number of workers above one.
"""

from __future__ import annotations

import multiprocessing
import sys
from multiprocessing.context import BaseContext

MAX_WORKERS = 256  # above this a count is a typo, not a machine's cores: refused before any fork


def check_workers(owner: str, workers: object) -> int:
    """``workers`` as an int, refused in one line unless it is an integer from 1 to
    ``MAX_WORKERS``, or above one where this platform cannot fork (Windows)."""
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise ValueError(
            f"{owner}: workers must be a positive number of processes, at most {MAX_WORKERS}, got {workers!r}"
        )
    if workers > 1 and "fork" not in multiprocessing.get_all_start_methods():
        raise ValueError(f"{owner}: workers above 1 fork processes, which this platform cannot; use workers=1")
    return workers


def fork_context() -> BaseContext:
    """The fork start method (:func:`check_workers` refuses workers where it is missing)."""
    return multiprocessing.get_context("fork")


def one_thread() -> None:
    """A forked worker's initializer: one torch thread, so that the workers, one a core, do not
    wait on each other's threads (torch only where the parent loaded it: the core install has
    none). Searches and the engine's records run on one thread already."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
