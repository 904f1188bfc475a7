"""The policy-and-value network and the masked action distribution.

Illegal actions get a large negative *finite* logit rather than -inf: their probability is
exactly zero after the softmax, their gradient is zero, and no NaN can appear (as -inf would
give in ``0 * -inf`` inside the entropy).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

ILLEGAL_LOGIT = -1e9


def _layer(inputs: int, outputs: int, gain: float = float(np.sqrt(2))) -> nn.Linear:
    """Orthogonal weights and zero bias, the initialisation PPO implementations rely on."""
    layer = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


class PolicyNetwork(nn.Module):
    """An MLP trunk shared by a policy head (one logit per action) and a value head."""

    def __init__(self, observation_size: int, num_actions: int, hidden_sizes: list[int]) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = observation_size
        for size in hidden_sizes:
            layers += [_layer(width, size), nn.ReLU()]
            width = size
        self.trunk = nn.Sequential(*layers)
        self.policy_head = _layer(width, num_actions, gain=0.01)
        self.value_head = _layer(width, 1, gain=1.0)
        self.observation_size = observation_size
        self.num_actions = num_actions
        self.hidden_sizes = list(hidden_sizes)

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = self.trunk(observations)
        return self.policy_head(hidden), self.value_head(hidden).squeeze(-1)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every action ``mask`` forbids set to ``ILLEGAL_LOGIT``."""
    return torch.where(mask.bool(), logits, torch.full_like(logits, ILLEGAL_LOGIT))


def masked_distribution(logits: torch.Tensor, mask: torch.Tensor) -> Categorical:
    """The policy restricted to legal actions."""
    return Categorical(logits=masked_logits(logits, mask))


def legal_entropy(distribution: Categorical, mask: torch.Tensor) -> torch.Tensor:
    """Entropy over the legal actions only (illegal ones contribute exactly nothing)."""
    terms = distribution.probs * distribution.logits
    return -torch.where(mask.bool(), terms, torch.zeros_like(terms)).sum(-1)
