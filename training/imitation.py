"""A head start for self-play: fit the policy to a teacher's choices before PPO begins.

PPO from a random policy spends its first minutes learning what any teacher already knows (shed
heavy tiles, keep numbers you can follow) and, in these games, tends to settle on a policy that
never gets there: the reward is one sign per hand, most decisions are forced, and the gradient
of a good move is buried under the luck of the deal. Starting PPO from a policy that already
plays like the heuristic, with a value head that already predicts its outcomes, lets PPO spend
its budget on improving on the teacher instead.

The fit is DAgger (Ross, Gordon and Bagnell, 2011): round 0 records the teacher playing every
seat; each later round lets the current student play every seat and records what the teacher
would have done in the positions the student reaches, so the student also learns to recover
from its own mistakes. Each decision stores the acting seat's observation, legal mask, the
teacher's action and the seat's eventual episode reward (the value target, with gamma = 1 as in
the trainer). Forced decisions (one legal action) are not stored: there is nothing to learn.

The teacher is any agent the project ships: ``act_states`` asks it with the batched engine's
records, so stateful agents (the heuristic, the search agents) teach as easily as policies.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, fields

import numpy as np
import torch
from torch import nn

from agents import make_agent
from agents.base import Agent, batch_actions
from agents.network import PolicyNetwork, masked_logits
from agents.policy import PolicyAgent
from domino_env import BatchedEnv
from domino_env.game import Game
from training.config import ImitationConfig
from training.critic_inputs import hidden_tiles
from training.fitting import fit_minibatches


@dataclass
class Demonstrations:
    """Teacher-labelled decisions: what the acting seat saw, could do, should do, and got."""

    obs: np.ndarray  # [N, D] float32
    hidden: np.ndarray  # [N, K] uint8: a privileged critic's inputs (K = 0 for a shared critic)
    mask: np.ndarray  # [N, A] int8
    action: np.ndarray  # [N] the teacher's action
    outcome: np.ndarray  # [N] the acting seat's episode reward

    def __len__(self) -> int:
        return len(self.action)

    @staticmethod
    def join(parts: list[Demonstrations]) -> Demonstrations:
        names = [f.name for f in fields(Demonstrations)]
        return Demonstrations(*(np.concatenate([getattr(part, name) for part in parts]) for name in names))

    def subset(self, keep: np.ndarray) -> Demonstrations:
        """The decisions where ``keep`` (a boolean or index array) selects them."""
        return Demonstrations(*(getattr(self, f.name)[keep] for f in fields(self)))


def record_decisions(
    game: Game,
    teacher: Agent,
    driver: Agent | None,
    num_decisions: int,
    num_envs: int,
    seed: int,
    critic_inputs: int = 0,
    deadline: float = math.inf,
    whole_episodes: bool = False,
    reached: Callable[[int], object] | None = None,
) -> tuple[Demonstrations | None, int]:
    """Play games on the batched engine, ``driver`` choosing the moves (a search agent from the
    engine records, a policy from the observations), until ``num_decisions`` unforced decisions
    ended with their episode; each is labelled with ``teacher``'s action.
    ``driver`` is None when the teacher drives; ``critic_inputs`` is the size of the hidden
    tiles a privileged critic reads (0: none recorded). Returns the decisions and the engine
    steps; the decisions are None when ``time.perf_counter()`` passed ``deadline`` first (a run's
    time limit: a round cut short is not the round the config asked for, and no time is left
    to learn from it).

    Stopping at the count drops the episodes still running, and those are the long ones: with
    few episodes per game of the batch (a sample of a few thousand positions over hundreds of
    games) the sample leans towards short hands and early positions. ``whole_episodes`` plays
    on instead until every episode begun before the count was reached has ended, and keeps
    them all, while none begun later is recorded. Whether an episode is kept is then settled
    when it begins, before its length is known, so the positions are a fair sample of whole
    episodes: what a measurement on held-out positions needs. Training keeps the default: the
    imitation rounds and the improvement phase play dozens of hands a game or more, and the few
    cut short hardly matter there. ``reached``, where given, is told of the decisions recorded as
    their episodes end (a progress bar's ``update``): a search agent driving plays for minutes."""
    envs = BatchedEnv(game, num_envs)
    obs, mask, seat = envs.reset(seed=seed)
    chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    outcomes: list[np.ndarray] = []  # per chunk, filled in when each decision's episode ends
    running: list[list[tuple[int, int, int]]] = [[] for _ in range(num_envs)]  # (chunk, row, seat)
    episode_reward = np.zeros((num_envs, game.num_players), np.float32)
    recording = np.ones(num_envs, bool)  # whether each game's current episode is recorded
    finished = steps = 0
    while recording.any() if whole_episodes else finished < num_decisions:
        if time.perf_counter() >= deadline:
            return None, steps
        actions = np.argmax(mask, axis=1)  # the only legal action, where there is no choice (or no record)
        choice = np.flatnonzero((mask.sum(1) > 1) & recording)
        if choice.size:
            labels = np.asarray(teacher.act_states(game, envs.state, choice), np.int64)
            if driver is None:
                actions[choice] = labels
            else:  # a search agent reads the records, a policy the observations
                actions[choice] = batch_actions(driver, game, envs.state, choice, obs[choice], mask[choice])
            for row, g in enumerate(choice):
                running[g].append((len(chunks), row, int(seat[g])))
            hidden = hidden_tiles(game, envs.state, choice, seat[choice], critic_inputs).astype(np.uint8)
            chunks.append((obs[choice].copy(), hidden, mask[choice].copy(), labels))
            outcomes.append(np.full(choice.size, np.nan, np.float32))
        obs, mask, seat, rewards, done = envs.step(actions)
        steps += num_envs
        episode_reward += rewards
        for g in np.flatnonzero(done):
            for chunk, row, s in running[g]:
                outcomes[chunk][row] = episode_reward[g, s]
            finished += len(running[g])
            if reached is not None and running[g]:
                reached(len(running[g]))
            running[g] = []
            episode_reward[g] = 0.0
        if whole_episodes and finished >= num_decisions:
            recording[done] = False  # the episodes these games begin now come after the count
    outcome = np.concatenate(outcomes)
    ended = ~np.isnan(outcome)  # decisions of episodes still running are dropped
    return (
        Demonstrations(
            np.concatenate([c[0] for c in chunks])[ended],
            np.concatenate([c[1] for c in chunks])[ended],
            np.concatenate([c[2] for c in chunks])[ended],
            np.concatenate([c[3] for c in chunks])[ended],
            outcome[ended],
        ),
        steps,
    )


def fit(
    network: PolicyNetwork,
    data: Demonstrations,
    config: ImitationConfig,
    value_coef: float,
    device: torch.device,
    generator: torch.Generator,
    deadline: float = math.inf,
) -> dict[str, float]:
    """Cross-entropy on the teacher's actions (legal actions only) plus the value head's squared
    error on the outcomes, by Adam over shuffled minibatches, stopping after the minibatch in
    which ``time.perf_counter()`` passes ``deadline``. Returns the last epoch's losses and the share of
    decisions where the student's most likely action is the teacher's (over the minibatches it
    fitted, when the deadline cut the epoch short)."""
    optimizer = torch.optim.Adam(network.parameters(), lr=config.learning_rate)
    obs = torch.as_tensor(data.obs, device=device)
    hidden = torch.as_tensor(data.hidden, device=device)
    mask = torch.as_tensor(data.mask, device=device)
    action = torch.as_tensor(data.action, device=device)
    outcome = torch.as_tensor(data.outcome, device=device)

    def loss(batch: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        logits, value = network(obs[batch], hidden[batch].float())
        logits = masked_logits(logits, mask[batch])
        policy_loss = nn.functional.cross_entropy(logits, action[batch])
        value_loss = 0.5 * ((value - outcome[batch]) ** 2).mean()
        sums = {
            "policy": policy_loss.item() * len(batch),
            "value": value_loss.item() * len(batch),
            "agreement": (logits.argmax(-1) == action[batch]).float().sum().item(),
        }
        return policy_loss + value_coef * value_loss, sums

    return fit_minibatches(
        network, optimizer, len(data), loss, config.epochs, config.minibatch_size, generator, device, deadline
    )


def round_seed(run_seed: int, round_: int) -> int:
    """The seed of imitation round ``round_``'s deals: apart from the run's self-play seed."""
    return run_seed + 100_003 * (round_ + 1)


def imitate(
    game: Game,
    network: PolicyNetwork,
    config: ImitationConfig,
    value_coef: float,
    num_envs: int,
    seed: int,
    device: torch.device,
    log=print,
    deadline: float = math.inf,
) -> dict[str, float]:
    """Fit ``network`` to ``config.teacher`` by DAgger; returns what it cost and how well it fits.

    Round 0 is behaviour cloning on the teacher's own games; rounds 1.. add the positions the
    student reaches (playing its sampled policy) with the teacher's labels, and refit on all the
    decisions so far. Seeds are offset from the run's so no deal repeats the evaluation's.

    ``deadline`` (a ``time.perf_counter()`` time) is the run's time limit: the head start is timed
    with the run's budget, so it stops there, between engine steps or minibatches, and keeps the
    fit it has reached.
    """
    started = time.perf_counter()
    teacher = make_agent(config.teacher, game, seed=seed)
    generator = torch.Generator().manual_seed(seed)
    parts: list[Demonstrations] = []
    steps = 0
    stats: dict[str, float] = {}
    for round_ in range(config.rounds):
        driver = None
        if round_ > 0:
            driver = PolicyAgent(network, "student", deterministic=False, seed=seed + round_, device=device)
        data, used = record_decisions(
            game,
            teacher,
            driver,
            config.decisions_per_round,
            num_envs,
            seed=round_seed(seed, round_),
            critic_inputs=network.critic_inputs,
            deadline=deadline,
        )
        steps += used
        if data is None:
            log(f"imitation stopped by the run's time limit in round {round_ + 1}/{config.rounds}")
            break
        parts.append(data)
        stats = fit(network, Demonstrations.join(parts), config, value_coef, device, generator, deadline)
        log(
            f"imitation round {round_ + 1}/{config.rounds}: {sum(map(len, parts)):,} decisions, "
            f"agreement with {config.teacher} {stats['agreement']:.3f}, value loss {stats['value']:.3f} "
            f"({time.perf_counter() - started:.0f} s)"
        )
    return {
        "imitation/decisions": float(sum(map(len, parts))),
        "imitation/env_steps": float(steps),
        "imitation/seconds": time.perf_counter() - started,
        "imitation/agreement": stats.get("agreement", 0.0),
        "imitation/policy_loss": stats.get("policy", 0.0),
        "imitation/value_loss": stats.get("value", 0.0),
    }
