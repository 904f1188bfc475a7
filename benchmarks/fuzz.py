"""A million random games per shipped configuration, every step of every game checked.

For each configuration in ``configs/*.yaml`` (its ``env`` section), plays random legal games
through the batched engine and checks every step with the tests' invariant checks
(:mod:`tests.invariants`: each variant's rules restated in plain numpy, independently of the
engine: every tile accounted for, masks equal to the legal set, scores and rewards as RULES.md
says). Prints per configuration the games played, games per second (checks included, which cost
more than the engine) and the violations; a violation's first message is printed too, and play
goes on from a fresh seed (up to ``MAX_VIOLATIONS`` a configuration). The tests run the same
checks on 10,000 games per configuration.

    .venv/bin/python -m benchmarks.fuzz [--games 1000000] [--batch-size 2048] [--configs draw_2p ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

import domino_env
from benchmarks import nonnegative_int, positive_int
from tests.invariants import checked_steps_of

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
MAX_VIOLATIONS = 10  # then the configuration is given up: an engine broken everywhere would loop


@dataclass
class Result:
    """What one configuration's fuzzing found."""

    name: str
    games: int
    hands: int
    seconds: float
    violations: int
    first_violation: str = ""


def shipped_configs() -> dict[str, tuple[str, dict]]:
    """Name -> (variant, options) of every shipped training config."""
    found = {}
    for path in sorted(CONFIGS.glob("*.yaml")):
        env = yaml.safe_load(path.read_text())["env"]
        found[path.stem] = (env["variant"], env.get("options") or {})
    return found


def fuzz(name: str, variant: str, options: dict, games: int, batch_size: int, seed: int) -> Result:
    """Play ``games`` checked random games of one configuration."""
    result = Result(name, 0, 0, 0.0, 0)
    steps = checked_steps_of(variant)(domino_env.make_batched(variant, batch_size, **options), seed)
    start = time.perf_counter()
    while result.games < games:
        try:
            episodes, hands = next(steps)
        except AssertionError as error:
            result.violations += 1
            result.first_violation = result.first_violation or f"{error!r}"[:300]
            if result.violations == MAX_VIOLATIONS:
                break
            seed += 1
            steps = checked_steps_of(variant)(domino_env.make_batched(variant, batch_size, **options), seed)
            continue
        result.games += episodes
        result.hands += hands
    result.seconds = time.perf_counter() - start
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=positive_int, default=1_000_000, help="games per configuration (default 10^6)")
    parser.add_argument("--batch-size", type=positive_int, default=2048, help="games stepped together (default 2048)")
    parser.add_argument("--configs", nargs="*", help="config names (default: every configs/*.yaml)")
    parser.add_argument("--seed", type=nonnegative_int, default=0)
    args = parser.parse_args(argv)
    configs = shipped_configs()
    names = args.configs or list(configs)
    unknown = sorted(set(names) - set(configs))
    if unknown:
        parser.error(f"no config {', '.join(unknown)}; configs: {', '.join(configs)}")
    print(f"{'config':20s} {'games':>10s} {'hands':>10s} {'games/s':>9s} {'violations':>10s}")
    total = 0
    for name in names:
        variant, options = configs[name]
        print(f"fuzzing {name} ...", file=sys.stderr, flush=True)
        r = fuzz(name, variant, options, args.games, args.batch_size, args.seed)
        total += r.violations
        print(f"{r.name:20s} {r.games:10,d} {r.hands:10,d} {r.games / r.seconds:9,.0f} {r.violations:10,d}", flush=True)
        if r.violations:
            print(f"  first violation: {r.first_violation}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
