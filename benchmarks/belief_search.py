"""Search with belief-weighted worlds against the same search with uniform worlds, equal budget.

    python -m benchmarks.belief_search                          # draw_2p, pimc and ismcts
    python -m benchmarks.belief_search --configs draw_2p block_2p --agents pimc --games 400

For each config and search agent, ``AGENT:belief=CONFIG`` (worlds drawn in proportion to the
shipped belief model, :meth:`Game.determinize_weighted`) plays (a) ``AGENT`` with uniform worlds
and (b) the heuristic, at the same number of simulations a move, seats rotated over the same
deals (:func:`agents.tournament.rotated_match`). In games of more than two seats the belief
agent takes one seat and its opponent every other. A Markdown row per pairing: the belief
agent's win rate with its 95% interval.
"""

from __future__ import annotations

import argparse
import time

import torch

from agents import make_agent
from agents.tournament import rotated_match
from benchmarks import nonnegative_int, positive_int
from benchmarks.belief import CONFIGS
from domino_env.variants import make_game


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configs", nargs="+", default=["draw_2p"], choices=list(CONFIGS))
    parser.add_argument("--agents", nargs="+", default=["pimc", "ismcts"], choices=["pimc", "ismcts"])
    parser.add_argument("--simulations", type=positive_int, default=200)
    parser.add_argument("--games", type=positive_int, default=300)
    parser.add_argument("--seed", type=nonnegative_int, default=20_011)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    lines = [
        "| config | agent | opponent | simulations | games | win rate | 95% interval | seconds |",
        "|---|---|---|---:|---:|---:|---|---:|",
    ]
    for config in args.configs:
        variant, options = CONFIGS[config]
        game = make_game(variant, **options)
        for name in args.agents:
            spec = f"{name}:simulations={args.simulations}"
            for opponent in (spec, "heuristic"):
                started = time.perf_counter()
                ours = make_agent(f"{spec},belief={config}", game, seed=1)
                ours.name = f"{name}+belief"
                others = [make_agent(opponent, game, seed=2 + k) for k in range(game.num_players - 1)]
                records = rotated_match(game, [ours, *others], args.games, seed=args.seed, batch_size=16)
                mine = records[0]
                low, high = mine.win_interval()
                lines.append(
                    f"| {config} | {name}:belief={config} | {opponent.partition(':')[0]} (uniform)"
                    f" | {args.simulations} | {mine.episodes} | {mine.win_rate:.3f} | [{low:.3f}, {high:.3f}]"
                    f" | {time.perf_counter() - started:.0f} |"
                    if opponent != "heuristic"
                    else f"| {config} | {name}:belief={config} | heuristic | {args.simulations} | {mine.episodes}"
                    f" | {mine.win_rate:.3f} | [{low:.3f}, {high:.3f}] | {time.perf_counter() - started:.0f} |"
                )
                print(lines[-1], flush=True)
    print()
    print("\n".join(lines))


if __name__ == "__main__":
    main()
