"""How strong the built-in agents are: the ladder greedy < heuristic < search < oracle, per variant.

For each variant (two players) it plays rotated matches over mirrored deals
(:func:`agents.tournament.rotated_match`): heuristic against greedy, PIMC and ISMCTS against the
heuristic, and the oracle against each search agent. Each row gives the first agent's share of
the decided episodes (ties, where nobody wins the hand, are left out: an even match scores 0.5),
its 95% Wilson interval, whether the interval lies above one half, and both agents' mean time
per move (every move they were asked for, forced ones included; one core each). Budgets are
simulations per move, the same for the three search agents of a variant.

    .venv/bin/python -m benchmarks.strength [--variants draw block hungarian mexican_train] [--workers 2]
        [--scale 1.0] [--markdown]

``--scale`` multiplies every number of games (at least 1,000 per row by default). Pairings run
in ``--workers`` processes; each compiles the search loops for its variants once.
"""

from __future__ import annotations

import os
import sys

# ``python benchmarks/strength.py`` puts benchmarks/ on the path, not the repository root.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import domino_env
from agents import make_agent
from agents.tournament import rotated_match, wilson_interval

SEED = 2024


@dataclass(frozen=True)
class Ladder:
    """One variant's benchmark: the search budget and the games played per pairing."""

    simulations: int
    games: dict[tuple[str, str], int]


# Games per pairing: more where an agent's edge is small and games are cheap, so that every
# interval is narrow enough to tell. Budgets keep the whole run well under 30 minutes on 2 cores.
LADDERS = {
    "draw": Ladder(
        simulations=1000,
        games={
            ("heuristic", "greedy"): 4000,
            ("pimc", "heuristic"): 1000,
            ("ismcts", "heuristic"): 1000,
            ("oracle", "pimc"): 1000,
            ("oracle", "ismcts"): 1000,
        },
    ),
    "block": Ladder(
        simulations=2000,
        games={
            ("heuristic", "greedy"): 10000,
            ("pimc", "heuristic"): 2000,
            ("ismcts", "heuristic"): 2000,
            ("oracle", "pimc"): 1000,
            ("oracle", "ismcts"): 1000,
        },
    ),
    "hungarian": Ladder(
        simulations=600,
        games={
            ("heuristic", "greedy"): 4000,
            ("pimc", "heuristic"): 1000,
            ("ismcts", "heuristic"): 1000,
            ("oracle", "pimc"): 1000,
            ("oracle", "ismcts"): 1000,
        },
    ),
    # A round is ~100 moves and every rollout plays one out, so the budget is small: the whole
    # ladder took 555 s with 2 workers (on 2 cores shared with other work).
    "mexican_train": Ladder(
        simulations=64,
        games={
            ("heuristic", "greedy"): 2000,
            ("pimc", "heuristic"): 1000,
            ("ismcts", "heuristic"): 1000,
            ("oracle", "pimc"): 1000,
            ("oracle", "ismcts"): 1000,
        },
    ),
}
SEARCHERS = ("pimc", "ismcts", "oracle")


@dataclass
class Row:
    variant: str
    agent: str
    opponent: str
    games: int
    wins: int
    losses: int
    agent_ms: float
    opponent_ms: float
    seconds: float

    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.wins + self.losses)

    @property
    def share(self) -> float:
        decided = self.wins + self.losses
        return self.wins / decided if decided else 0.5


def play_pairing(variant: str, agent: str, opponent: str, games: int, simulations: int) -> Row:
    """One rotated match of ``agent`` against ``opponent`` in two-player ``variant``."""
    game = domino_env.make_game(variant, num_players=2)

    def build(name: str, seed: int):
        budget = {"simulations": simulations} if name in SEARCHERS else {}
        return make_agent(name, game, seed=seed, **budget)

    rotated_match(game, [build(agent, 3), build(opponent, 4)], 2, seed=SEED + 1)  # compile before timing
    start = time.perf_counter()
    first, second = rotated_match(game, [build(agent, 1), build(opponent, 2)], games, seed=SEED, batch_size=50)
    return Row(
        variant,
        agent,
        opponent,
        first.episodes,
        first.wins,
        first.losses,
        first.ms_per_move,
        second.ms_per_move,
        time.perf_counter() - start,
    )


def table(rows: list[Row], markdown: bool) -> str:
    header = ["variant", "agent", "opponent", "games", "won", "lost", "win share", "95% interval", "above 1/2",
              "agent ms/move", "opponent ms/move"]  # fmt: skip
    lines = []
    for row in rows:
        low, high = row.interval()
        lines.append([row.variant, row.agent, row.opponent, str(row.games), str(row.wins), str(row.losses),
                      f"{row.share:.3f}", f"[{low:.3f}, {high:.3f}]", "yes" if low > 0.5 else "no",
                      f"{row.agent_ms:.2f}", f"{row.opponent_ms:.2f}"])  # fmt: skip
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return "\n".join(out + ["| " + " | ".join(line) + " |" for line in lines])
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    rendered = ["  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)) for line in [header, *lines]]
    return "\n".join(rendered)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="+", default=list(LADDERS), choices=list(LADDERS))
    parser.add_argument("--workers", type=int, default=2, help="processes playing pairings (default 2)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every number of games (default 1)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args(argv)
    jobs = [
        (variant, agent, opponent, max(2, math.ceil(games * args.scale / 2) * 2), LADDERS[variant].simulations)
        for variant in args.variants
        for (agent, opponent), games in LADDERS[variant].games.items()
    ]
    start = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            rows = list(pool.map(play_pairing, *zip(*jobs, strict=True)))
    else:
        rows = [play_pairing(*job) for job in jobs]
    print(table(rows, args.markdown))
    print()
    budgets = ", ".join(f"{v} {LADDERS[v].simulations}" for v in args.variants)
    print(f"Two players, seats rotated over mirrored deals (seed {SEED}).")
    print(f"Search budget, simulations per move: {budgets}.")
    print("Win share = won / (won + lost); 'above 1/2' when the whole 95% Wilson interval is.")
    print(f"Total {time.perf_counter() - start:.0f} s with {args.workers} worker(s).")


if __name__ == "__main__":
    main()
