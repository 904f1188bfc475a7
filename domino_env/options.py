"""Checks for user-supplied options, shared by every variant.

Each check names the option, the value it got and what it accepts, so that a typo in a config
or a keyword fails at construction with a message that says how to fix it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def refuse_unknown(variant: str, options: Mapping[str, Any], known: Iterable[str]) -> None:
    """Raise if ``options`` holds a keyword the variant does not have."""
    known = sorted(known)
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise TypeError(
            f"{variant}: unknown option(s) {', '.join(map(repr, unknown))}; valid options are {', '.join(known)}"
        )


def integer(name: str, value: Any, low: int, high: int | None = None) -> int:
    """An int in ``[low, high]`` (``high=None``: no upper bound). Booleans are refused."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"option {name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ValueError(f"option {name} must be {bound}, got {value}")
    return int(value)


# The largest match target, limit or tile value an option may name. Totals are int32 in the
# engine's record, and a match to a million points already lasts thousands of hands: a larger
# number is a typo, and one past 2**31 would make the total wrap round instead of ending the match.
MAX_POINTS = 1_000_000


def points(name: str, value: Any, low: int) -> int:
    """An int from ``low`` to :data:`MAX_POINTS`: a match target or limit, or a tile's value."""
    value = integer(name, value, low)
    if value > MAX_POINTS:
        raise ValueError(f"option {name} must be at most {MAX_POINTS:,}, got {value:,}")
    return value


def one_of(name: str, value: Any, allowed: tuple[int, ...], described: str | None = None) -> int:
    """An int among ``allowed`` (``described``: how the message names them). The type is checked
    first, since ``6.0 in (6, 9, 12)`` is true in Python while a float set size breaks the tables."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"option {name} must be an integer, got {value!r} ({type(value).__name__})")
    if value not in allowed:
        raise ValueError(f"option {name} must be {described or f'one of {allowed}'}, got {value!r}")
    return int(value)


def boolean(name: str, value: Any) -> bool:
    """A real bool: ``"yes"``, ``1`` and the like are refused rather than guessed at."""
    if not isinstance(value, bool):
        raise TypeError(f"option {name} must be True or False, got {value!r}")
    return value


def choice(name: str, value: Any, choices: tuple[str, ...]) -> int:
    """Index of ``value`` among the named ``choices``."""
    if value not in choices:
        raise ValueError(f"option {name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return choices.index(value)
