"""The configurations every general check (API, invariants, leaks, determinism) runs on."""

from __future__ import annotations

# (variant, options) pairs named for test ids.
CONFIGS: dict[str, tuple[str, dict]] = {
    "draw-2p": ("draw", {"num_players": 2}),
    "draw-3p": ("draw", {"num_players": 3}),
    "draw-4p": ("draw", {"num_players": 4}),
    "draw-5p": ("draw", {"num_players": 5}),
    "draw-4p-partners": ("draw", {"num_players": 4, "partnerships": True}),
    "draw-6p-double-nine": ("draw", {"num_players": 6, "set_size": 9}),
    "draw-2p-voluntary-reserve-points": (
        "draw",
        {"num_players": 2, "voluntary_draw": True, "reserve": 2, "reward": "points", "lead": "heaviest_tile"},
    ),
    "draw-3p-match-difference": (
        "draw",
        {"num_players": 3, "match": True, "target": 60, "block_scoring": "difference", "reward": "points"},
    ),
    "draw-10p-double-twelve": ("draw", {"num_players": 10}),
    "block-2p": ("block", {"num_players": 2}),
    "block-4p": ("block", {"num_players": 4}),
    "block-3p-highest-double": ("block", {"num_players": 3, "lead": "highest_double"}),
}

# The configurations the foundation promises PettingZoo's own api_test and seed_test on.
API_CONFIGS = [
    "draw-2p",
    "draw-3p",
    "draw-4p",
    "draw-5p",
    "draw-4p-partners",
    "draw-6p-double-nine",
    "draw-2p-voluntary-reserve-points",
    "draw-3p-match-difference",
    "block-2p",
    "block-4p",
]
