"""Search distilled into the policy during PPO: expert iteration (Anthony, Tian and Barber, 2017).

The policy with search on top (``NAME+search``, :mod:`agents.policy_search`) plays better than
the policy alone: it tries every legal move in sampled worlds and plays each out with the policy.
Every ``distill.every`` updates, a round here

1. lets the current policy play every seat (sampling its moves) on the batched engine and keeps
   ``distill.positions`` of the unforced positions it reaches (imitation's ``record_decisions``
   with the student driving);
2. labels each with policy+search at ``distill.simulations`` rollouts: the mean result of every
   legal action over the sampled worlds. The policy's target is a softmax of those values at
   ``distill.temperature``, legal actions only (``distill.target: policy``: the labelling
   policy's own probabilities reweighted by the same exponentials); the value head's is the
   best action's value;
3. fits the network to them by the run's own optimizer: cross-entropy to the soft targets times
   ``distill.policy_coef`` plus the value head's squared error times ``distill.value_coef``.

So the policy learns what search found, and the next round's search starts from a better
rollout player. Each round draws its deals and worlds from seeds made of the run's seed and the
update number, and uses no global random stream: a resumed run labels and fits the same.
``distill.labels: rollouts`` labels and fits differently, far more positions for the same time:
every legal move played out once from the real state, the logits fitted by regression
(:mod:`training.action_values`). ``distill.every = 0`` (the default) never calls any of it.
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from agents import make_agent
from agents.network import PolicyNetwork, legal_log_probs, masked_logits
from agents.policy import PolicyAgent
from agents.policy_search import PolicySearchAgent
from agents.tournament import against_table
from domino_env.game import Game
from training import action_values
from training.config import DistillConfig, TrainConfig
from training.fitting import fit_minibatches
from training.imitation import record_decisions


@dataclass
class SearchLabels:
    """Positions the policy reached, with what search made of them."""

    obs: np.ndarray  # [N, D] float32
    hidden: np.ndarray  # [N, K] a privileged critic's inputs (K = 0 for a shared critic)
    mask: np.ndarray  # [N, A] int8
    values: np.ndarray  # [N, A] float32: each legal action's mean result (0 where illegal)
    action: np.ndarray  # [N] the move policy+search plays
    prior: np.ndarray  # [N, A] float32: the labelling policy's log-probabilities (0 where illegal)

    def __len__(self) -> int:
        return len(self.action)

    def targets(self, temperature: float, target: str = "values") -> np.ndarray:
        """The policy's soft targets (``DistillConfig.target``): ``softmax(values / T)``, or with
        ``"policy"`` ``softmax(log prior + values / T)``, a regularized policy improvement step
        (the KL-anchored update of MPO): a move's odds against another change by
        ``exp(difference of values / T)``, so moves whose values are within the search's noise
        keep the policy's order, which noisy values alone would scramble."""
        if target == "policy":
            return soft_targets(self.values, self.mask, temperature, self.prior)
        return soft_targets(self.values, self.mask, temperature)

    @property
    def value(self) -> np.ndarray:
        """The value head's target: the best legal action's mean result."""
        return np.where(self.mask > 0, self.values, -np.inf).max(1).astype(np.float32)


def soft_targets(
    values: np.ndarray, mask: np.ndarray, temperature: float, log_prior: np.ndarray | None = None
) -> np.ndarray:
    """``softmax(values / temperature)`` over each row's legal actions, exactly 0 elsewhere; with
    ``log_prior``, ``softmax(log_prior + values / temperature)``."""
    logits = values / temperature if log_prior is None else log_prior + values / temperature
    scaled = np.where(mask > 0, logits, -np.inf)
    scaled = scaled - scaled.max(1, keepdims=True)
    weights = np.exp(scaled)  # exp(-inf) = 0 for illegal actions
    return (weights / weights.sum(1, keepdims=True)).astype(np.float32)


class SearchLabeller:
    """A teacher for ``record_decisions``: policy+search asked about each position. Its label is
    the position's row in the table it keeps (the searched move and action values), so that the
    rows the recording keeps (those whose episode ended) can be matched with their values; with
    the student driving, ``record_decisions`` never plays a label."""

    def __init__(self, search: PolicySearchAgent) -> None:
        self.search = search
        self.moves: list[int] = []
        self.values: list[np.ndarray] = []

    def act_states(self, game: Game, state: np.ndarray, games: np.ndarray) -> np.ndarray:
        rows = []
        for g in games:
            move, legal, means = self.search.action_values(state, int(g))
            values = np.zeros(game.num_actions, np.float32)
            values[legal] = means
            rows.append(len(self.moves))
            self.moves.append(move)
            self.values.append(values)
        return np.asarray(rows, np.int64)


def label_positions(
    game: Game,
    network: PolicyNetwork,
    config: DistillConfig,
    num_envs: int,
    seed: int,
    deadline: float = math.inf,
) -> SearchLabels | None:
    """``config.positions`` unforced positions reached by ``network`` sampling every seat's
    moves, each labelled by ``network``+search at ``config.simulations`` rollouts; None when
    ``deadline`` passed first. ``network`` is copied to the CPU, where the search runs."""
    player = copy.deepcopy(network).cpu().eval()
    labeller = SearchLabeller(PolicySearchAgent(game, player, simulations=config.simulations, seed=seed + 1))
    driver = PolicyAgent(player, "student", deterministic=False, seed=seed + 2)
    data, _ = record_decisions(
        game, labeller, driver, config.positions, num_envs, seed, critic_inputs=network.critic_inputs, deadline=deadline
    )
    if data is None:
        return None
    rows = data.action
    moves, values = np.asarray(labeller.moves, np.int64), np.stack(labeller.values)
    prior = legal_log_probs(player, data.obs, data.mask)
    return SearchLabels(data.obs, data.hidden, data.mask, values[rows], moves[rows], prior)


def fit_targets(
    network: PolicyNetwork,
    optimizer: torch.optim.Optimizer,
    data: SearchLabels,
    config: DistillConfig,
    device: torch.device,
    generator: torch.Generator,
    max_grad_norm: float = math.inf,
) -> dict[str, float]:
    """``config.epochs`` passes of shuffled minibatches: cross-entropy to the soft targets (legal
    actions only) times ``policy_coef`` plus the value head's squared error to ``data.value`` times
    ``value_coef``, gradients clipped to ``max_grad_norm``. Returns the last pass's mean losses
    and the share of positions where the policy's most likely move is search's."""
    obs, hidden, mask = (torch.as_tensor(a, device=device) for a in (data.obs, data.hidden, data.mask))
    targets = torch.as_tensor(data.targets(config.temperature, config.target), device=device)
    value_target = torch.as_tensor(data.value, device=device)
    action = torch.as_tensor(data.action, device=device)

    def loss(batch: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        logits, value = network(obs[batch], hidden[batch].float())
        log_probs = torch.log_softmax(masked_logits(logits, mask[batch]), -1)
        cross_entropy = -(targets[batch] * log_probs).sum(-1).mean()
        value_loss = 0.5 * ((value - value_target[batch]) ** 2).mean()
        sums = {
            "cross_entropy": cross_entropy.item() * len(batch),
            "value": value_loss.item() * len(batch),
            "agreement": (log_probs.argmax(-1) == action[batch]).float().sum().item(),
        }
        return config.policy_coef * cross_entropy + config.value_coef * value_loss, sums

    return fit_minibatches(
        network,
        optimizer,
        len(data),
        loss,
        config.epochs,
        config.minibatch_size,
        generator,
        device,
        max_grad_norm=max_grad_norm,
    )


@torch.no_grad()
def cross_entropy(
    network: PolicyNetwork, data: SearchLabels, temperature: float, device: torch.device, target: str = "values"
) -> float:
    """The mean cross-entropy from ``data``'s soft targets to ``network``'s policy."""
    network.eval()
    logits, _ = network(torch.as_tensor(data.obs, device=device), torch.as_tensor(data.hidden, device=device).float())
    log_probs = torch.log_softmax(masked_logits(logits, torch.as_tensor(data.mask, device=device)), -1)
    targets = torch.as_tensor(data.targets(temperature, target), device=device)
    return float(-(targets * log_probs).sum(-1).mean())


def search_strength(
    game: Game, network: PolicyNetwork, games: int, simulations: int, seed: int, device: torch.device
) -> dict[str, object]:
    """The policy's (most likely moves) records against tables of ``pimc`` and ``ismcts`` at
    ``simulations``, seats rotated, on the deals of ``seed``: ``{"pimc": Record, ...}``."""
    agent = PolicyAgent(network, "policy", deterministic=True, device=device)
    records = {}
    for name in ("pimc", "ismcts"):
        opponent = make_agent(f"{name}:simulations={simulations}", game, seed=seed)
        records[name] = against_table(game, agent, opponent, games, seed=seed)
    return records


def round_seed(run_seed: int, update: int) -> int:
    """The seed of the round after update ``update``: apart from self-play's, imitation's and
    the evaluation's deals."""
    return run_seed + 1_000_003 * update + 17


def deal_seeds(config: TrainConfig, num_updates: int) -> set[int]:
    """The seeds of the deals every round of a run of ``num_updates`` updates plays: one after
    each update that ``distill.every`` divides, as ``distill_round`` runs them."""
    every = config.distill.every
    if every == 0:
        return set()
    return {round_seed(config.run.seed, update) for update in range(every, num_updates + 1, every)}


def distill_round(
    game: Game,
    network: PolicyNetwork,
    optimizer: torch.optim.Optimizer,
    config: TrainConfig,
    update: int,
    deadline: float = math.inf,
) -> dict[str, float]:
    """After update ``update``: a round of distillation when ``distill.every`` divides it (its
    metrics, ``distill/...`` and ``eval/vs_pimc``, ``eval/vs_ismcts`` when ``distill.eval_games``),
    else nothing at all (``{}``)."""
    settings = config.distill
    if settings.every == 0 or update % settings.every:
        return {}
    started = time.perf_counter()
    device = next(network.parameters()).device
    seed = round_seed(config.run.seed, update)
    num_envs = max(1, min(config.ppo.num_envs, settings.positions // 16))
    generator = torch.Generator().manual_seed(seed)
    if settings.labels == "rollouts":
        data = action_values.label_positions(game, network, settings.positions, num_envs, seed, deadline)
        if data is None:  # the run's time limit came first
            return {}
        stats = action_values.fit_improvement(
            network, optimizer, data, settings.temperature, settings.epochs, settings.minibatch_size,
            generator, device, config.ppo.max_grad_norm,
        )  # fmt: skip
    else:
        data = label_positions(game, network, settings, num_envs, seed, deadline)
        if data is None:  # the run's time limit came first
            return {}
        stats = fit_targets(network, optimizer, data, settings, device, generator, config.ppo.max_grad_norm)
    scalars = {f"distill/{key}": value for key, value in stats.items()}
    scalars |= {"distill/positions": float(len(data)), "distill/seconds": time.perf_counter() - started}
    if settings.eval_games:
        deals = config.run.seed + 7919  # the evaluation's deals, the same every round
        records = search_strength(game, network, settings.eval_games, settings.eval_simulations, deals, device)
        scalars |= {f"eval/vs_{name}": record.win_rate for name, record in records.items()}
    return scalars
