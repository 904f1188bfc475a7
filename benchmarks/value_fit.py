"""How well a network on the observation can learn a search agent's action values: the fit's
held-out error against the labels' own noise, and how often its favourite is the search's.

    python -m benchmarks.value_fit draw_2p --labeller pimc:simulations=128 --positions 200000 \
        --sizes 256,256 1024,1024,512 --heads tiles afterstate --epochs 10

The policy (a shipped one or a checkpoint) plays every seat, sampling its moves; at least
``--positions`` of its unforced positions (whole hands, deals of ``--seed``) are labelled by
``--labeller`` (:func:`training.action_values.search_values`: each legal move's mean result over
the worlds the search samples from the seat's knowledge). Each network of ``--sizes``, with each action head of
``--heads`` (:data:`agents.network.ACTION_HEADS`; the policy's own by default), is fitted from scratch by
the improvement step's regression (:func:`training.action_values.fit_improvement`, the logits to
``values / T`` centred over the legal moves, no prior), and the policy's own network from its
weights. The held-out positions (other deals) are labelled twice by the labeller, with two seeds,
and once by ``--reference`` (a larger search), which gives:

- ``noise``: half the mean squared difference of the two labellings' centred targets, the part
  of the held-out loss that no fit can remove;
- ``held-out loss``: the fit's mean squared error against the first labelling, beside that of
  equal logits (no preference), which the labels' whole spread makes;
- ``agreement``: the share of held-out positions where the fit's favourite move is the
  reference's, beside the labeller's own agreement with the reference (what a perfect fit of the
  labeller's expected values would reach, about).

A fit whose held-out loss is near ``noise`` has learned what the labels hold; one far above it
cannot represent the search's values from the observation at this size and count.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import copy
import time

import numba
import numpy as np
import torch

from agents.network import ACTION_HEADS, network_for
from agents.policy import PolicyAgent
from agents.registry import check_labeller, make_agent
from benchmarks import nonnegative_int, policy_or_exit, positive_float, positive_int
from domino_env.game import Game
from training.action_values import ActionValues, centred, fit_improvement, recorded_states, search_values

HELD_OUT_SEED = 77_777  # the held-out deals; the fitted ones come from --seed


def sizes(text: str) -> list[int]:
    try:
        layers = [int(part) for part in text.split(",")]
    except ValueError:
        layers = []
    if not layers or min(layers) < 1 or len(layers) > 8 or max(layers) > 8192:
        raise argparse.ArgumentTypeError(f"must be layer widths such as 256,256, not {text!r}")
    return layers


def positions_of(
    game: Game, network: torch.nn.Module, count: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """At least ``count`` unforced positions of ``network`` playing every seat on the deals of
    ``seed``, from whole hands (a few thousand held-out positions cut at the count would lean
    towards short hands): their observations, masks and real states."""
    driver = PolicyAgent(network, "driver", deterministic=False, seed=seed + 1)
    data, states = recorded_states(game, driver, count, min(256, count), seed, whole_episodes=True)
    return data.obs, data.mask, states


def held_out_error(network: torch.nn.Module, data: ActionValues, temperature: float) -> tuple[float, np.ndarray]:
    """The fit's mean squared error in centred logits over the legal moves of ``data``, and its
    favourite move in each position."""
    with torch.no_grad():
        logits = network.logits(torch.as_tensor(data.obs)).numpy()
    legal = data.mask > 0
    error = ((centred(logits, data.mask) - data.targets(temperature)) ** 2).sum() / legal.sum()
    return float(error), np.where(legal, logits, -np.inf).argmax(1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("policy", help="the policy whose positions are labelled (shipped name or checkpoint)")
    parser.add_argument("--labeller", default="pimc:simulations=128")
    parser.add_argument("--reference", default="pimc:simulations=2048")
    parser.add_argument("--positions", type=positive_int, default=200_000)
    parser.add_argument("--held-out", type=positive_int, default=3000)
    parser.add_argument("--sizes", type=sizes, nargs="*", default=[[256, 256], [1024, 1024, 512]])
    parser.add_argument("--heads", nargs="*", choices=ACTION_HEADS, help="action heads to fit (default: the policy's)")
    parser.add_argument("--epochs", type=positive_int, default=10)
    parser.add_argument("--temperature", type=positive_float, default=0.05)
    parser.add_argument("--learning-rate", type=positive_float, default=1e-3)
    parser.add_argument("--seed", type=nonnegative_int, default=5)
    args = parser.parse_args(argv)
    if args.temperature >= 100:
        raise SystemExit(f"error: --temperature must be below 100, not {args.temperature:g}")
    torch.set_num_threads(1)
    numba.set_num_threads(1)  # one heavy job per core
    _, game, policy = policy_or_exit(args.policy)
    heads = args.heads or [policy.action_head]
    try:
        labellers = [check_labeller(make_agent(args.labeller, game, seed=args.seed + k), args.labeller) for k in (1, 2)]
        reference = check_labeller(make_agent(args.reference, game, seed=args.seed + 3), args.reference)
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None
    started = time.perf_counter()
    obs, mask, states = positions_of(game, policy, args.positions, args.seed)
    no_prior = np.zeros(mask.shape, np.float32)
    train = ActionValues(obs, mask, search_values(game, labellers[0], states, mask), no_prior)
    obs, mask, states = positions_of(game, policy, args.held_out, HELD_OUT_SEED)
    no_prior = np.zeros(mask.shape, np.float32)
    first, second = (ActionValues(obs, mask, search_values(game, lab, states, mask), no_prior) for lab in labellers)
    best = np.where(mask > 0, search_values(game, reference, states, mask), -np.inf).argmax(1)
    noise = float(((first.targets(args.temperature) - second.targets(args.temperature)) ** 2).sum() / mask.sum() / 2)
    labeller_agrees = float((np.where(mask > 0, first.values, -np.inf).argmax(1) == best).mean())
    print(f"{args.policy}: {len(train):,} positions labelled by {args.labeller}, {len(first):,} held out "
          f"({time.perf_counter() - started:.0f} s); T={args.temperature:g}, {args.epochs} epochs")  # fmt: skip
    print(f"\nnoise {noise:.2f}; {args.labeller} plays {args.reference}'s move in {labeller_agrees:.3f} "
          "of the held-out positions\n")  # fmt: skip
    print(f"| network | train loss | held-out loss | noise | agreement with {args.reference} | seconds |")
    print("|---|---:|---:|---:|---:|---:|")
    arms = [(f"{args.policy}'s own, from its weights", copy.deepcopy(policy))]
    arms += [
        (f"{','.join(map(str, layers))} {head}, from scratch", network_for(game, layers, action_head=head))
        for layers in args.sizes
        for head in heads
    ]
    _, before = held_out_error(policy, first, args.temperature)
    print(f"| {args.policy} as it is | | | | {(before == best).mean():.3f} | |", flush=True)
    flat = float((first.targets(args.temperature) ** 2).sum() / mask.sum())
    print(f"| no preference (equal logits) | | {flat:.2f} | {noise:.2f} | | |", flush=True)
    for k, (label, network) in enumerate(arms):
        torch.manual_seed(args.seed + k)
        fit_started = time.perf_counter()
        optimizer = torch.optim.Adam(network.parameters(), lr=args.learning_rate, eps=1e-5)
        stats = fit_improvement(
            network, optimizer, train, args.temperature, args.epochs, 1024,
            torch.Generator().manual_seed(args.seed + k), torch.device("cpu"), max_grad_norm=0.5,
        )  # fmt: skip
        network.eval()
        error, favourite = held_out_error(network, first, args.temperature)
        print(f"| {label} | {stats['loss']:.2f} | {error:.2f} | {noise:.2f} | {(favourite == best).mean():.3f} | "
              f"{time.perf_counter() - fit_started:.0f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
