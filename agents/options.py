"""Checks for agent options, which may come from a command line, a config or a web request.

Each check returns the value or raises a one-line :class:`ValueError` that names the agent, the
option, the value and the range it accepts: ``pimc: milliseconds must be a finite number from 1
to 60000, got nan``. Every refusal is a ValueError, a wrong type included, so that callers that
catch ValueError for bad user input (the registry, the config checks, the play server) catch it.
Booleans are refused where a number is asked for, though Python counts them as ints.

(:mod:`domino_env.options` checks variant options the same way but raises TypeError for a wrong
type and has no bound for floats, so agents keep their own few lines here.)
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any


def is_bounded_int(value: Any, low: int, high: int) -> bool:
    """Whether ``value`` is an integer (not a bool, float or string) from ``low`` to ``high``."""
    return not isinstance(value, bool) and isinstance(value, Integral) and low <= value <= high


def bounded_int(owner: str, name: str, value: Any, low: int, high: int) -> int:
    """An integer from ``low`` to ``high`` (both included); not a bool, float or string."""
    if not is_bounded_int(value, low, high):
        raise ValueError(f"{owner}: {name} must be an integer from {low} to {high}, got {value!r}")
    return int(value)


def bounded_float(owner: str, name: str, value: Any, low: float, high: float) -> float:
    """A finite number from ``low`` to ``high`` (both included): an int or float, not a bool or
    string; NaN and infinities are refused."""
    # NaN fails every comparison and the bounds are finite, so the range test refuses NaN and
    # infinities (and compares a huge int exactly, where math.isfinite would overflow).
    if isinstance(value, bool) or not isinstance(value, Real) or not low <= value <= high:
        raise ValueError(f"{owner}: {name} must be a finite number from {low:g} to {high:g}, got {value!r}")
    return float(value)
