"""The supervised loop that imitation and distillation share: shuffled minibatches, one
optimizer step each, summed statistics.

Imitation fits the teacher's actions and distillation fits search's soft targets; only the loss
differs, so each passes a function from a minibatch's indices to its loss and the statistics it
sums, and this loop owns the order of the steps (and so the random stream and the results a
seed gives).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import torch
from torch import nn

# From a minibatch's indices: the loss to minimise and statistics summed over its rows.
MinibatchLoss = Callable[[torch.Tensor], tuple[torch.Tensor, dict[str, float]]]


def fit_minibatches(
    network: nn.Module,
    optimizer: torch.optim.Optimizer,
    rows: int,
    loss: MinibatchLoss,
    epochs: int,
    minibatch_size: int,
    generator: torch.Generator,
    device: torch.device,
    deadline: float = math.inf,
    max_grad_norm: float = math.inf,
    anneal: bool = False,
) -> dict[str, float]:
    """``epochs`` passes over ``rows`` rows in shuffled minibatches of ``minibatch_size``, each an
    optimizer step on ``loss`` with gradients clipped to ``max_grad_norm``; stops after the
    minibatch in which ``time.perf_counter()`` passes ``deadline``. With ``anneal``, the learning
    rate falls linearly from the optimizer's to zero over the call's steps (and is left as it
    was after): a fit from scratch then settles instead of ending on its largest steps. Returns
    the last pass's statistics per row fitted (over the minibatches it fitted, when the deadline
    cut it short)."""
    network.train()
    stats: dict[str, float] = {}
    rates = [group["lr"] for group in optimizer.param_groups]
    steps, step = epochs * math.ceil(rows / minibatch_size), 0
    for _ in range(epochs):
        totals: dict[str, float] = {}
        fitted = 0
        for batch in torch.randperm(rows, generator=generator).to(device).split(minibatch_size):
            value, sums = loss(batch)
            optimizer.zero_grad()
            value.backward()
            if math.isfinite(max_grad_norm):
                nn.utils.clip_grad_norm_(network.parameters(), max_grad_norm)
            if anneal:
                for group, rate in zip(optimizer.param_groups, rates, strict=True):
                    group["lr"] = rate * (1.0 - step / steps)
                step += 1
            optimizer.step()
            for key, total in sums.items():
                totals[key] = totals.get(key, 0.0) + total
            fitted += len(batch)
            if time.perf_counter() >= deadline:
                break
        stats = {key: total / fitted for key, total in totals.items()}
        if time.perf_counter() >= deadline:
            break
    for group, rate in zip(optimizer.param_groups, rates, strict=True):
        group["lr"] = rate
    network.eval()
    return stats
