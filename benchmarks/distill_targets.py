"""Which soft targets distil search into a policy without losing what the policy knew: the same
labelled positions fitted with each target and temperature, each fitted copy then measured
against the search agents beside the policy as it was.

    .venv/bin/python -m benchmarks.distill_targets draw_2p [--positions 10000] [--simulations 512]
        [--arms values:0.1 policy:0.02] [--against pimc ismcts] [--games 1000] [--epochs 2]

The policy (a shipped one or a checkpoint) reaches ``--positions`` unforced positions playing
every seat, and policy+search labels them at ``--simulations`` rollouts once (training/distill.py).
Each arm ``TARGET:TEMPERATURE`` (``DistillConfig.target``: ``values`` or ``policy``) fits a fresh
copy of the policy to those labels (Adam at ``--learning-rate``, ``--epochs`` passes) and plays
its most likely moves against tables of PIMC and ISMCTS at the strength ladder's budgets on the
evaluation deals (seed 12345, never labelled), seats rotated. Prints a Markdown table: win rates
with 95% Wilson intervals, the fit's cross-entropy and the share of positions where the fitted
policy's favourite is search's move.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import copy
import math
import time

import numba
import torch

from agents.policy import PolicyAgent
from agents.tournament import against_table
from arena.ship import EVALUATION_SEED, ladder_search_agent
from benchmarks import nonnegative_int, policy_or_exit, positive_float, positive_int
from training.config import DISTILL_TARGETS, DistillConfig
from training.distill import fit_targets, label_positions


def arm(text: str) -> tuple[str, float]:
    """``"policy:0.02"`` -> ``("policy", 0.02)``."""
    target, _, temperature = text.partition(":")
    try:
        value = float(temperature)
    except ValueError:
        value = math.nan
    if target not in DISTILL_TARGETS or not (0 < value < math.inf):
        raise argparse.ArgumentTypeError(
            f"an arm is TARGET:TEMPERATURE with TARGET one of {DISTILL_TARGETS} and a positive temperature, "
            f"not {text!r}"
        )
    return target, value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("policy", help="a shipped policy (draw_2p) or a checkpoint")
    parser.add_argument("--positions", type=positive_int, default=10_000)
    parser.add_argument(
        "--simulations", type=positive_int, default=512, help="policy+search rollouts per labelled position"
    )
    parser.add_argument("--arms", type=arm, nargs="+", default=[("values", 0.1), ("policy", 0.02)])
    parser.add_argument("--against", nargs="+", default=["pimc", "ismcts"], choices=["pimc", "ismcts"])
    parser.add_argument("--games", type=positive_int, default=1000)
    parser.add_argument("--epochs", type=positive_int, default=2)
    parser.add_argument("--learning-rate", type=positive_float, default=3e-4)
    parser.add_argument("--seed", type=nonnegative_int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    numba.set_num_threads(1)  # one heavy job per core
    _, game, shipped = policy_or_exit(args.policy)
    started = time.perf_counter()
    labelling = DistillConfig(every=1, positions=args.positions, simulations=args.simulations)
    data = label_positions(game, shipped, labelling, num_envs=max(1, args.positions // 16), seed=args.seed)
    print(f"{args.policy}: {len(data)} positions labelled at {args.simulations} rollouts "
          f"in {time.perf_counter() - started:.0f} s")  # fmt: skip
    header = " | ".join(f"vs {ladder_search_agent(name, game).name} | 95%" for name in args.against)
    print(f"| arm | {header} | cross-entropy | agreement |")
    print("|---|" + "---|---|" * len(args.against) + "---|---|")
    arms = [(None, 0.0), *args.arms]
    for target, temperature in arms:
        network, stats = shipped, None
        if target is not None:
            network = copy.deepcopy(shipped)
            config = DistillConfig(target=target, temperature=temperature, epochs=args.epochs)
            optimizer = torch.optim.Adam(network.parameters(), lr=args.learning_rate, eps=1e-5)
            generator = torch.Generator().manual_seed(args.seed)
            stats = fit_targets(network, optimizer, data, config, torch.device("cpu"), generator, 0.5)
        agent = PolicyAgent(network, "policy", deterministic=True)
        cells = [  # each arm meets opponents built afresh: the same search, the same worlds
            against_table(game, agent, ladder_search_agent(name, game), args.games, seed=EVALUATION_SEED).win_cells()
            for name in args.against
        ]
        label = "as it was" if target is None else f"{target}, T={temperature:g}"
        fitted = "| " if stats is None else f"{stats['cross_entropy']:.3f} | {stats['agreement']:.3f}"
        print(f"| {label} | {' | '.join(cells)} | {fitted} |", flush=True)


if __name__ == "__main__":
    main()
