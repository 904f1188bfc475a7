"""What each action head costs: one PPO-like update (forward, masked log-probabilities, entropy
and value loss, backward, an Adam step) and one forward pass without gradients (what a rollout
asks) of the policy-and-value network, over positions that a shipped policy reaches; and the
prior the guided tree (``NAME+search:tree=1``) computes at a node, one position at a time in
compiled code (:func:`agents.guided_tree.policy_prior`).

    python -m benchmarks.head_cost draw_4p_partners [--positions 2048] [--repeats 20] [--sizes 256,256]
        [--attention 64,64]

Every head (:data:`agents.network.ACTION_HEADS`) is built at ``--sizes`` and timed on one thread,
the heads alternated within each repeat so that they share the machine's state; the table gives
each head's median milliseconds and its ratio to the flat head's. ``--attention`` adds the
attention trunk (:mod:`agents.tile_attention`) at those widths with the flat head, timed the same
way beside them. A head the guided tree does not compile (Hungarian's and Mexican Train's
afterstate heads) has no prior column.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import time

import numpy as np
import torch

from agents.guided_tree import Weights, compiled_weights, policy_prior
from agents.network import ACTION_HEADS, legal_entropy, masked_distribution, network_for
from agents.tile_attention import attention_sizes_problem
from benchmarks import nonnegative_int, policy_or_exit, positive_int
from benchmarks.value_fit import positions_of, sizes


def update_seconds(network: torch.nn.Module, optimizer: torch.optim.Optimizer, batch: tuple) -> float:
    """Seconds one update takes: the log-probability of a legal action, the entropy over the
    legal ones and the value's squared error, backward, one optimizer step."""
    obs, mask, actions, returns = batch
    start = time.perf_counter()
    logits, values = network(obs)
    distribution = masked_distribution(logits, mask)
    loss = -distribution.log_prob(actions).mean() - 0.01 * legal_entropy(distribution, mask).mean()
    loss = loss + 0.5 * ((values - returns) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return time.perf_counter() - start


def forward_seconds(network: torch.nn.Module, obs: torch.Tensor) -> float:
    start = time.perf_counter()
    with torch.no_grad():
        network(obs)
    return time.perf_counter() - start


PRIOR_POSITIONS = 256  # positions whose compiled prior is timed, one at a time, each repeat


def tree_weights(network: torch.nn.Module) -> Weights | None:
    """``network`` as the guided tree compiles it, or None when the tree does not compile it."""
    try:
        return compiled_weights(network)
    except ValueError:
        return None


def prior_seconds(weights: Weights, obs: np.ndarray, mask: np.ndarray) -> float:
    """Seconds the guided tree's compiled prior takes per position over ``obs``. The first call
    may compile and is not counted."""
    probs = np.zeros(mask.shape[1], np.float32)
    policy_prior(weights, obs[0], mask[0], probs)
    start = time.perf_counter()
    for position in range(len(obs)):
        policy_prior(weights, obs[position], mask[position], probs)
    return (time.perf_counter() - start) / len(obs)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("policy", help="the policy whose positions are used (shipped name or checkpoint)")
    parser.add_argument("--positions", type=positive_int, default=2048, help="positions in a batch (default 2048)")
    parser.add_argument("--repeats", type=positive_int, default=20, help="timed passes per head (default 20)")
    parser.add_argument("--sizes", type=sizes, default=[256, 256], help="hidden layer widths (default 256,256)")
    parser.add_argument("--attention", type=sizes, help="also time an attention trunk of these widths (64,64)")
    parser.add_argument("--seed", type=nonnegative_int, default=0)
    args = parser.parse_args(argv)
    _, game, policy = policy_or_exit(args.policy)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    obs, mask, _ = positions_of(game, policy, args.positions, args.seed)
    obs, mask = torch.as_tensor(obs[: args.positions]), torch.as_tensor(mask[: args.positions])
    actions = torch.multinomial(mask.float(), 1).squeeze(1)
    batch = (obs, mask, actions, torch.rand(len(obs)))
    networks = {head: network_for(game, args.sizes, action_head=head) for head in ACTION_HEADS}
    if args.attention:
        problem = attention_sizes_problem(args.attention)
        if problem:
            raise SystemExit(f"error: --attention {args.attention}: {problem}")
        networks[f"attention {','.join(map(str, args.attention))}, flat"] = network_for(
            game, args.attention, trunk="attention"
        )
    heads = list(networks)
    optimizers = {head: torch.optim.Adam(net.parameters(), lr=1e-4) for head, net in networks.items()}
    updates: dict[str, list[float]] = {head: [] for head in heads}
    forwards: dict[str, list[float]] = {head: [] for head in heads}
    priors: dict[str, list[float]] = {head: [] for head in heads}
    # copied out once: what a prior costs lies in the network's shape, not in the updates' values
    compiled = {head: tree_weights(networks[head]) for head in heads}
    prior_obs = np.ascontiguousarray(obs[:PRIOR_POSITIONS].numpy())
    prior_mask = np.ascontiguousarray(mask[:PRIOR_POSITIONS].numpy())
    for repeat in range(args.repeats + 1):  # the first pass warms up and is not counted
        for head in heads:
            update = update_seconds(networks[head], optimizers[head], batch)
            forward = forward_seconds(networks[head], obs)
            weights = compiled[head]
            prior = None if weights is None else prior_seconds(weights, prior_obs, prior_mask)
            if repeat:
                updates[head].append(update)
                forwards[head].append(forward)
                if prior is not None:
                    priors[head].append(prior)
    print(f"{args.policy}: {len(obs)} positions, hidden {args.sizes}, one thread, median of {args.repeats}")
    print(f"(tree prior: the guided tree's compiled prior, microseconds a position over {len(prior_obs)})")
    print("| head | update ms | ratio | forward ms | ratio | tree prior us |")
    print("|---|---:|---:|---:|---:|---:|")
    base_update, base_forward = np.median(updates["flat"]), np.median(forwards["flat"])
    for head in heads:
        update, forward = np.median(updates[head]), np.median(forwards[head])
        prior = f"{1e6 * np.median(priors[head]):.0f}" if priors[head] else "-"
        print(
            f"| {head} | {1000 * update:.1f} | {update / base_update:.2f} "
            f"| {1000 * forward:.1f} | {forward / base_forward:.2f} | {prior} |"
        )


if __name__ == "__main__":
    main()
