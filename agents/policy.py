"""A trained network seated as an agent, with the same interface as the built-in agents."""

from __future__ import annotations

import numpy as np
import torch

from agents.base import Agent
from agents.network import PolicyNetwork, masked_distribution


class PolicyAgent(Agent):
    """Plays a ``PolicyNetwork``: its most likely legal action (``deterministic``) or a sample."""

    def __init__(
        self,
        network: PolicyNetwork,
        name: str = "policy",
        deterministic: bool = True,
        seed: int | None = None,
        device: str | torch.device = "cpu",
    ) -> None:
        self.network = network
        self.name = name
        self.deterministic = deterministic
        self.device = torch.device(device)
        self.generator = torch.Generator(device=self.device)
        self.generator.manual_seed(0 if seed is None else seed)

    def random_state(self) -> torch.Tensor:
        return self.generator.get_state()

    def set_random_state(self, state: torch.Tensor) -> None:
        self.generator.set_state(state)

    def reseed(self, seed: int) -> None:
        self.generator.manual_seed(seed)

    @torch.no_grad()
    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = torch.as_tensor(observations, dtype=torch.float32, device=self.device)
        mask = torch.as_tensor(masks, device=self.device)
        logits = self.network.logits(obs)
        distribution = masked_distribution(logits, mask)
        if self.deterministic:
            actions = distribution.probs.argmax(-1)
        else:
            actions = torch.multinomial(distribution.probs, 1, generator=self.generator).squeeze(-1)
        return actions.cpu().numpy()
