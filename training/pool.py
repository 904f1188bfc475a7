"""The opponent pool of self-play: the current policy, frozen snapshots and baseline agents.

Each episode the trainer draws the policy that plays the opponents' seats (in partnerships the
learner plays its partner's seat too). With probability ``self_play_share`` it is the current
policy itself (then the learner plays every seat); with ``baseline_share`` a built-in agent
(any the project ships, stateful ones included) or a frozen trained policy (``pool.frozen``: with
``self_play_share=0`` and ``baseline_share=1`` the learner trains a best response to it alone);
otherwise a frozen snapshot. Among baselines and among snapshots the draw is prioritized
fictitious self-play: weight ``(1 - p) ** pfsp_power`` where ``p`` is the learner's recent score
against that opponent, so the opponents it still loses to come up most often.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from agents import make_agent
from agents.base import Agent, batch_actions
from agents.network import PolicyNetwork
from agents.policy import PolicyAgent
from domino_env.game import Game
from training import checkpoint as ckpt
from training.config import ConfigError, PoolConfig

SELF = -1  # the owner code of seats the learner plays


@dataclass
class Member:
    name: str
    agent: Agent
    score: float = 0.5  # moving average of the learner's result against it (1 win, 0 loss)
    games: int = 0
    weights: dict[str, torch.Tensor] | None = None  # snapshots only, for checkpoints


def frozen_policy(name: str, game: Game, seed: int, sample: bool = False, key: str = "pool.frozen") -> PolicyAgent:
    """The trained policy ``name`` (a shipped agent's name or a checkpoint) as a pool member:
    its most likely action (``sample=False``, as the arena plays it) or a sample of its softmax.
    Refused with a one-line ConfigError naming ``key`` where there is no such policy."""
    path = ckpt.resolve_checkpoint(name)
    if path is None:
        shipped = ", ".join(ckpt.pretrained_names()) or "none"
        raise ConfigError(f"{key}: {name!r} is neither a shipped policy ({shipped}) nor a checkpoint path")
    network = ckpt.load_network(path, game)
    network.eval()
    return PolicyAgent(network, name=name, deterministic=not sample, seed=seed)


class OpponentPool:
    """Members are keyed by stable ids (the owner codes games hold): a snapshot that leaves the
    pool stops being drawn at once but stays playable until no game in progress uses it."""

    def __init__(self, config: PoolConfig, game: Game, make_network: Callable[[], PolicyNetwork], seed: int) -> None:
        self.config = config
        self.game = game
        self.make_network = make_network  # a network of the learner's shape, for snapshots
        self.rng = np.random.default_rng(seed)
        self.members: dict[int, Member] = {
            i: Member(name, make_agent(name, game, seed=seed + i)) for i, name in enumerate(config.baselines)
        }
        for j, name in enumerate(config.frozen):
            i = len(config.baselines) + j
            self.members[i] = Member(
                name, frozen_policy(name, game, seed + i, config.frozen_sample, f"pool.frozen[{j}]")
            )
        self.baseline_ids = list(self.members)
        self.snapshot_ids: list[int] = []  # drawable snapshots, oldest first
        self.next_id = len(self.members)

    @property
    def snapshots(self) -> list[Member]:
        return [self.members[i] for i in self.snapshot_ids]

    def add_snapshot(self, network: PolicyNetwork, update: int) -> None:
        weights = {k: v.detach().cpu().clone() for k, v in network.state_dict().items()}
        self._add_snapshot(self.next_id, f"snapshot@{update}", weights, score=0.5, games=0)
        if len(self.snapshot_ids) > self.config.max_snapshots:
            self.snapshot_ids.pop(0)

    def _add_snapshot(
        self, member_id: int, name: str, weights: dict[str, torch.Tensor], score: float, games: int
    ) -> None:
        frozen = self.make_network()
        frozen.load_state_dict(weights)
        frozen.eval()
        agent = PolicyAgent(frozen, name=name, deterministic=False, seed=int(self.rng.integers(1 << 31)))
        self.members[member_id] = Member(name, agent, score, games, weights)
        self.snapshot_ids.append(member_id)
        self.next_id = max(self.next_id, member_id + 1)

    def prune(self, in_use: np.ndarray) -> None:
        """Forget retired snapshots that no game in progress still seats."""
        keep = set(self.baseline_ids) | set(self.snapshot_ids) | set(in_use.ravel().tolist())
        for member_id in [i for i in self.members if i not in keep]:
            del self.members[member_id]

    def _pfsp(self, ids: list[int]) -> int:
        weights = np.array([(1.0 - self.members[i].score) ** self.config.pfsp_power for i in ids]) + 1e-6
        return ids[int(self.rng.choice(len(ids), p=weights / weights.sum()))]

    def sample(self) -> int:
        """An owner code: SELF, or a member id."""
        draw = self.rng.random()
        if draw < self.config.self_play_share:
            return SELF
        if self.baseline_ids and (
            draw < self.config.self_play_share + self.config.baseline_share or not self.snapshot_ids
        ):
            return self._pfsp(self.baseline_ids)
        if not self.snapshot_ids:
            return SELF
        return self._pfsp(self.snapshot_ids)

    def act(self, owner: int, state: np.ndarray, games: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Member ``owner``'s actions in ``games`` of the batched engine's records ``state``,
        whose acting seats see ``obs`` and may play ``mask``: a stateful agent (the heuristic,
        the search agents) reads the records, a policy the observations."""
        return batch_actions(self.members[owner].agent, self.game, state, games, obs, mask)

    def record(self, owner: int, learner_score: float) -> None:
        """Fold one episode's result (1 learner won, 0.5 even, 0 lost) into the member's score."""
        member = self.members[owner]
        decay = self.config.result_decay
        member.score = decay * member.score + (1 - decay) * learner_score
        member.games += 1

    def state_dict(self) -> dict:
        return {
            "rng": self.rng.bit_generator.state,
            "next_id": self.next_id,
            "snapshot_ids": list(self.snapshot_ids),
            "members": {i: (m.name, m.weights, m.score, m.games) for i, m in self.members.items()},
            "random_states": {i: m.agent.random_state() for i, m in self.members.items()},
        }

    def load_state_dict(self, state: dict) -> None:
        drawable = state["snapshot_ids"]
        self.snapshot_ids = []
        for member_id, (name, weights, score, games) in state["members"].items():
            if weights is None:
                if member_id not in self.members or self.members[member_id].name != name:
                    raise ValueError(
                        f"the checkpoint's baseline {name!r} is not among the config's {self.config.baselines}"
                    )
                self.members[member_id].score, self.members[member_id].games = score, games
            else:
                self._add_snapshot(member_id, name, weights, score, games)
        self.snapshot_ids = list(drawable)
        self.next_id = state["next_id"]
        self.rng.bit_generator.state = state["rng"]  # after _add_snapshot's draws: where the saved pool was
        for member_id, random_state in state.get("random_states", {}).items():  # older checkpoints lack them
            self.members[member_id].agent.set_random_state(random_state)
