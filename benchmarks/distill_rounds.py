"""Rounds of search distilled into a shipped policy (training/distill.py), each measured against
PIMC and ISMCTS at a small budget.

    .venv/bin/python -m benchmarks.distill_rounds block_2p [--rounds 3] [--positions 2000]
        [--simulations 64] [--temperature 0.1] [--target values] [--games 200] [--search-simulations 50]
        [--skip-shipped] [--save DIR]

Round 0 is the shipped policy as it is. Each round lets the current policy reach
``--positions`` unforced positions, labels them with policy+search at ``--simulations``
rollouts and fits the policy to the soft targets (``--target``, as ``DistillConfig.target``)
and values (Adam at ``--learning-rate``, ``--epochs`` passes), as ``distill.every`` does
inside a PPO run, without PPO. The policy then plays its most likely moves against tables of
``pimc`` and ``ismcts`` at ``--search-simulations`` on the evaluation deals (seed 12345, never
labelled), seats rotated. Prints a Markdown table: win rates with 95% Wilson intervals, the
distillation's cross-entropy and agreement with search, and the seconds each round took to
label and fit.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import time
from pathlib import Path

import numba
import torch

from arena.ship import EVALUATION_SEED
from benchmarks import nonnegative_int, policy_or_exit, positive_float, positive_int
from training import checkpoint as ckpt
from training.config import DISTILL_TARGETS, DistillConfig
from training.distill import fit_targets, label_positions, round_seed, search_strength


def cells(records: dict) -> str:
    return " | ".join(record.win_cells() for record in records.values())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("policy", help="a shipped policy (block_2p) or a checkpoint")
    parser.add_argument("--rounds", type=positive_int, default=3)
    parser.add_argument("--positions", type=positive_int, default=2000)
    parser.add_argument(
        "--simulations", type=positive_int, default=64, help="policy+search rollouts per labelled position"
    )
    parser.add_argument("--temperature", type=positive_float, default=0.1)
    parser.add_argument("--target", choices=DISTILL_TARGETS, default="values", help="see DistillConfig.target")
    parser.add_argument("--epochs", type=positive_int, default=2)
    parser.add_argument("--learning-rate", type=positive_float, default=3e-4)
    parser.add_argument("--games", type=positive_int, default=200)
    parser.add_argument(
        "--search-simulations", type=positive_int, default=50, help="the PIMC and ISMCTS opponents' budget"
    )
    parser.add_argument("--seed", type=nonnegative_int, default=1)
    parser.add_argument("--skip-shipped", action="store_true", help="leave out round 0, the policy as it is")
    parser.add_argument("--save", metavar="DIR", help="write each round's weights to DIR/round_N (a checkpoint)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    numba.set_num_threads(1)  # one heavy job per core: the engine's threads would wait on each other
    _, game, network = policy_or_exit(args.policy)
    config = DistillConfig(
        every=1, positions=args.positions, simulations=args.simulations, temperature=args.temperature,
        epochs=args.epochs, target=args.target,
    )  # fmt: skip
    optimizer = torch.optim.Adam(network.parameters(), lr=args.learning_rate, eps=1e-5)
    device = torch.device("cpu")
    budget = args.search_simulations
    labels = f"{args.positions} positions a round labelled at {args.simulations} rollouts"
    labels += f", {args.target} targets, T={args.temperature}"
    print(f"{args.policy}: {labels}")
    opponents = f"vs pimc:simulations={budget} | 95% | vs ismcts:simulations={budget} | 95%"
    print(f"| round | {opponents} | cross-entropy | agreement | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    if not args.skip_shipped:
        shipped = search_strength(game, network, args.games, budget, EVALUATION_SEED, device)
        print(f"| 0 (shipped) | {cells(shipped)} | | | |", flush=True)
    for round_ in range(1, args.rounds + 1):
        started = time.perf_counter()
        seed = round_seed(args.seed, round_)
        data = label_positions(game, network, config, num_envs=max(1, args.positions // 16), seed=seed)
        stats = fit_targets(network, optimizer, data, config, device, torch.Generator().manual_seed(seed), 0.5)
        seconds = time.perf_counter() - started
        if args.save:
            ckpt.save_model(Path(args.save) / f"round_{round_}", network, game)
        records = search_strength(game, network, args.games, budget, EVALUATION_SEED, device)
        fitted = f"{stats['cross_entropy']:.3f} | {stats['agreement']:.3f}"
        print(f"| {round_} | {cells(records)} | {fitted} | {seconds:.0f} |", flush=True)


if __name__ == "__main__":
    main()
