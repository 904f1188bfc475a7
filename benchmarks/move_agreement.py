"""How often agents choose the same move: policies and search agents side by side on the
positions a policy reaches.

    python -m benchmarks.move_agreement draw_2p --agents draw_2p pimc:simulations=512 \
        pimc:simulations=512 pimc:simulations=2048 --positions 3000

The first argument is the policy (a shipped one or a checkpoint) that plays every seat,
sampling its moves, on the deals of ``--seed``; the unforced positions of whole hands are kept.
Every agent of ``--agents`` (any name ``python -m arena evaluate`` takes: built-in agents with
options, shipped policies, checkpoints, ``NAME+search``) then chooses a move in each, from the
real record, each with its own seed, so that a search agent named twice shows how often it
agrees with itself.
Prints a Markdown table: the share of positions where the row's agent and the column's agent
choose the same move.

Win rates say which agent is stronger; agreement says whether the stronger one decides
differently, and how much of that difference is its own noise: two runs of a search that agree
in only three positions of four bound how closely any policy fitted to its choices can follow it.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse

import numba
import numpy as np
import torch

from agents.policy import PolicyAgent
from arena.cli import UsageError, load_policy
from benchmarks import nonnegative_int, policy_or_exit, positive_int
from training.action_values import recorded_states

AGENT_SEED = 1_000  # agent k of --agents is seeded AGENT_SEED + k


def agreement(choices: np.ndarray) -> np.ndarray:
    """``[K, K]``: for agents ``i`` and ``j``, the share of positions where ``choices[i]`` and
    ``choices[j]`` (``[K, N]`` moves) are the same."""
    return (choices[:, None, :] == choices[None, :, :]).mean(2)


def table(labels: list[str], shares: np.ndarray) -> str:
    lines = ["| agent | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
    for label, row in zip(labels, shares, strict=True):
        lines.append(f"| {label} | " + " | ".join(f"{share:.3f}" for share in row) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("policy", help="the policy whose positions are compared (shipped name or checkpoint)")
    parser.add_argument("--agents", nargs="+", required=True, help="agents choosing a move in each position")
    parser.add_argument("--positions", type=positive_int, default=3000, help="unforced positions, at least")
    parser.add_argument("--seed", type=nonnegative_int, default=99, help="the deals the positions come from")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    numba.set_num_threads(1)  # one heavy job per core
    _, game, network = policy_or_exit(args.policy)
    try:  # every agent refused before any work
        agents = [load_policy(spec, game, seed=AGENT_SEED + k) for k, spec in enumerate(args.agents)]
    except UsageError as error:
        raise SystemExit(f"error: --agents: {error}") from None
    driver = PolicyAgent(network, "driver", deterministic=False, seed=args.seed + 1)
    # whole hands: a few thousand positions cut at the count would lean towards short hands
    _, states = recorded_states(game, driver, args.positions, min(64, args.positions), args.seed, whole_episodes=True)
    rows = np.arange(len(states))
    choices = np.stack([agent.act_states(game, states, rows) for agent in agents])
    labels = [f"{spec} #{k + 1}" if args.agents.count(spec) > 1 else spec for k, spec in enumerate(args.agents)]
    print(f"{args.policy}: {len(states):,} unforced positions of its own play (seed {args.seed})\n")
    print(table(labels, agreement(choices)))


if __name__ == "__main__":
    main()
