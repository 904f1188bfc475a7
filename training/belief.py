"""Train a belief model (:mod:`agents.belief`): where the tiles a seat cannot see are.

Positions come from games on the batched engine in which every seat is played by one of the
project's fair agents (mostly the heuristic, with greedy and random for variety), each game's
seats drawn anew at random. At each move the acting seat's observation is recorded, with the
true place of every tile it cannot see (from the record, as the privileged critic reads it:
:func:`training.critic_inputs.hidden_tiles`). The network is fitted by cross-entropy over each
hidden tile's possible places; evaluation uses deals of another seed, which no fitting saw.

The baseline it must beat is what the search agents sample today: uniform over the worlds
consistent with what the seat knows. Its per-tile marginals are estimated by drawing many worlds
with ``Game.determinize`` and smoothed toward the slot-weighted uniform (each tile's possible
places weighted by how many hidden tiles each holds), so that a place the draws happened to miss
keeps a small probability.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from agents.base import Agent
from agents.belief import BeliefModel, BeliefNetwork, network_for, possible_places, prior_logits, slots
from agents.heuristic import HeuristicAgent
from agents.simple import GreedyAgent, RandomAgent
from domino_env import BatchedEnv
from domino_env.game import Game
from training.critic_inputs import critic_input_size, hidden_tiles

DRIVERS = ("heuristic", "greedy", "random")
DRIVER_SHARES = (0.6, 0.2, 0.2)


@dataclass
class Positions:
    """Recorded positions: the acting seat's observation and each tile's true place (-1 for a
    tile it sees; else relative seat k - 1 for k = 1 .. P-1, or P - 1 for the pile)."""

    obs: np.ndarray  # [N, D] float32
    place: np.ndarray  # [N, T] int8
    state: np.ndarray  # [N] engine records (for the baseline's draws)
    seat: np.ndarray  # [N] the observer

    def __len__(self) -> int:
        return len(self.place)


def true_places(game: Game, state: np.ndarray, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """``[len(games), T]`` int8: where each tile hidden from ``seats[i]`` is (see :class:`Positions`)."""
    blocks = hidden_tiles(game, state, games, seats, critic_input_size(game))
    blocks = blocks.reshape(len(games), game.num_players, game.num_tiles)
    place = blocks.argmax(1).astype(np.int8)
    place[blocks.sum(1) == 0] = -1
    return place


def record_positions(game: Game, count: int, seed: int, num_envs: int = 128) -> Positions:
    """``count`` positions from games of fair agents (see the module docstring), seeded by ``seed``."""
    envs = BatchedEnv(game, num_envs, num_threads=1)
    obs, mask, seat = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    agents: list[Agent] = [
        HeuristicAgent(game, seed=seed),
        GreedyAgent(game, seed=seed),
        RandomAgent(game, seed=seed),
    ]
    driver = rng.choice(len(DRIVERS), size=(num_envs, game.num_players), p=DRIVER_SHARES)
    parts: list[tuple] = []
    total = 0
    while total < count:
        games = np.arange(num_envs)
        parts.append((obs.copy(), true_places(game, envs.state, games, seat), envs.state.copy(), seat.copy()))
        total += num_envs
        actions = np.argmax(mask, axis=1)
        who = driver[games, seat]
        for k, agent in enumerate(agents):
            rows = np.flatnonzero((who == k) & (mask.sum(1) > 1))
            if rows.size:
                if k == 0:
                    actions[rows] = agent.act_states(game, envs.state, rows)
                else:
                    actions[rows] = agent.act(obs[rows], mask[rows])
        obs, mask, seat, _, done = envs.step(actions)
        for g in np.flatnonzero(done):  # a new deal: new players
            driver[g] = rng.choice(len(DRIVERS), size=game.num_players, p=DRIVER_SHARES)
    joined = Positions(*(np.concatenate([p[i] for p in parts])[:count] for i in range(4)))
    keep = consistent(game, joined)
    return Positions(joined.obs[keep], joined.place[keep], joined.state[keep], joined.seat[keep])


def consistent(game: Game, positions: Positions) -> np.ndarray:
    """Positions where every hidden tile's true place is one the observation allows (all of them,
    for the acting seat's own view; kept as a check)."""
    places = possible_places(game, positions.obs)
    hidden = positions.place >= 0
    truth = np.take_along_axis(places, np.maximum(positions.place, 0)[..., None].astype(np.int64), 2)[..., 0]
    visible = places.any(2)
    return ((truth | ~hidden) & (hidden == visible)).all(1)


def fit(
    game: Game,
    data: Positions,
    hidden_sizes: list[int],
    epochs: int,
    seed: int,
    deadline: float = math.inf,
    batch_size: int = 512,
    learning_rate: float = 2e-3,
) -> BeliefNetwork:
    """A belief network fitted to ``data`` by Adam on the cross-entropy of each hidden tile's
    true place, learning rate cosine-annealed over ``epochs``; stops at ``deadline``."""
    torch.manual_seed(seed)
    network = network_for(game, hidden_sizes)
    with torch.no_grad():  # start at the prior: the slot-weighted uniform guess
        network.body[-1].weight.zero_()
        network.body[-1].bias.zero_()
    obs = torch.from_numpy(data.obs)
    prior = torch.from_numpy(prior_logits(game, data.obs))
    target = torch.from_numpy(data.place.astype(np.int64))
    optimizer = torch.optim.Adam(network.parameters(), lr=learning_rate, weight_decay=1e-5)
    steps = epochs * math.ceil(len(data) / batch_size)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, max(steps, 1))
    generator = torch.Generator().manual_seed(seed)
    network.train()
    for _ in range(epochs):
        for batch in torch.randperm(len(data), generator=generator).split(batch_size):
            loss = tile_loss(network(obs[batch], prior[batch]), target[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            if time.perf_counter() >= deadline:
                return network.eval()
    return network.eval()


def tile_loss(logp: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean negative log-probability of the true place over the hidden tiles."""
    hidden = target >= 0
    picked = torch.gather(logp, 2, target.clamp(min=0)[..., None])[..., 0]
    return -(picked[hidden]).mean()


# ---------------------------------------------------------------------------------------------- evaluation


def slot_weighted(game: Game, observations: np.ndarray) -> np.ndarray:
    """``[B, T, P]``: each hidden tile uniform over its possible places, weighted by how many
    hidden tiles each holds (:func:`agents.belief.slots`; exact when no seat is void in anything)."""
    weights = slots(game, observations).astype(np.float64)
    total = weights.sum(2, keepdims=True)
    return np.divide(weights, total, out=np.zeros_like(weights), where=total > 0)


def sampled_uniform(game: Game, data: Positions, samples: int, seed: int) -> np.ndarray:
    """``[N, T, P]``: the uniform-consistent marginals, from ``samples`` worlds per position drawn
    by ``Game.determinize`` (what the search agents sample), smoothed toward :func:`slot_weighted`
    with the weight of one draw."""
    players, tiles = game.num_players, game.num_tiles
    counts = np.zeros((len(data), tiles, players), np.float64)
    out = game.new_state(1)
    game.seed(out, 0, seed)
    relative = np.arange(tiles)
    for i in range(len(data)):
        observer = int(data.seat[i])
        for _ in range(samples):
            game.determinize(data.state, i, observer, out, 0)
            location = out[0]["location"][:tiles].astype(np.int64)
            place = np.where(location >= 0, (location - observer) % players - 1, players - 1)
            counts[i, relative, place] += 1
    hidden = data.place >= 0
    counts *= hidden[..., None]
    return (counts + slot_weighted(game, data.obs)) / (samples + 1)


def scores(probabilities: np.ndarray, data: Positions) -> dict[str, float]:
    """Log-loss (nats per hidden tile) and accuracy (the most likely place is the true one) of
    ``[N, T, P]`` probabilities on ``data``."""
    hidden = data.place >= 0
    truth = np.take_along_axis(probabilities, np.maximum(data.place, 0)[..., None].astype(np.int64), 2)[..., 0]
    right = probabilities.argmax(2) == data.place
    return {
        "log_loss": float(-np.log(np.maximum(truth[hidden], 1e-12)).mean()),
        "accuracy": float(right[hidden].mean()),
        "tiles": float(hidden.sum()),
    }


def evaluate(model: BeliefModel, data: Positions, samples: int, seed: int) -> dict[str, float]:
    """The model's and the uniform baseline's scores on held-out ``data``."""
    ours = scores(model.probabilities(data.obs), data)
    uniform = scores(sampled_uniform(model.game, data, samples, seed), data)
    return {f"model_{k}": v for k, v in ours.items()} | {f"uniform_{k}": v for k, v in uniform.items()}
