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
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from agents.base import Agent
from agents.belief import BeliefModel, BeliefNetwork, network_for, num_places, possible_places, prior_logits, slots
from agents.heuristic import HeuristicAgent
from agents.simple import GreedyAgent, RandomAgent
from domino_env import BatchedEnv
from domino_env.game import Game
from domino_env.games.core import ON_TABLE
from domino_env.tiles import TILE_HIGH, TILE_LOW
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
    history: np.ndarray | None = None  # [N, H] float32: PlayHistory.features, when recorded

    def __len__(self) -> int:
        return len(self.place)


class PlayHistory:
    """Who played each tile of the current hand, at which move, and what each seat passed over,
    in each game of a batch.

    Every seat saw those plays, but the observation keeps only where the tiles lie now, so the
    belief model cannot read which seat gave up which number, or how early. In the line games
    (Draw, Block) it cannot read either which tiles a seat chose not to play: when a seat lays a
    tile, every unseen tile that fitted an open end then was one it would have had the choice of,
    had it held it, and a player that sheds heavy tiles first tells the table it holds none of the
    heavier ones it passed over. The history is followed from the engine's records between steps
    (a tile that left a hand for the table was played by that hand's seat) and cleared when a
    hand ends."""

    MOVE_SCALE = 64.0  # more moves than a hand of any variant takes
    LINE_GAMES = ("draw", "block")  # whose records hold the line's two open ``ends``

    def __init__(self, game: Game, num_envs: int) -> None:
        self.players, self.tiles = game.num_players, game.num_tiles
        self.played_by = np.full((num_envs, self.tiles), -1, np.int64)
        self.played_at = np.zeros((num_envs, self.tiles), np.float32)
        self.moves = np.zeros(num_envs, np.int64)
        self.line_game = game.name in self.LINE_GAMES
        # passed_over[g, seat, t]: tile t fitted an open end when ``seat`` laid another tile;
        # passed_heavier: and t was heavier than the tile laid. Both cleared with the hand.
        self.passed_over = np.zeros((num_envs, self.players, self.tiles), np.float32)
        self.passed_heavier = np.zeros((num_envs, self.players, self.tiles), np.float32)
        self.low = TILE_LOW[: self.tiles].astype(np.int64)
        self.high = TILE_HIGH[: self.tiles].astype(np.int64)

    @property
    def who_size(self) -> int:
        """Width of the who-and-when block that :meth:`features` starts with."""
        return self.tiles * (self.players + 1)

    def update(
        self, before: np.ndarray, after: np.ndarray, hand_over: np.ndarray, ends: np.ndarray | None = None
    ) -> None:
        """Record the plays between the ``location`` fields ``before`` and ``after`` a step
        (``[B, T]``); games whose hand ended start over. ``ends`` (``[B, 2]``, the line's open
        numbers before the step) lets a line game record what each play passed over."""
        rows, tiles = np.nonzero((before >= 0) & (after == ON_TABLE))
        self.played_by[rows, tiles] = before[rows, tiles]
        self.played_at[rows, tiles] = self.moves[rows] / self.MOVE_SCALE
        if self.line_game and ends is not None and rows.size:
            self._record_passed_over(before, rows, tiles, ends)
        self.moves += 1
        self.played_by[hand_over] = -1
        self.played_at[hand_over] = 0.0
        self.moves[hand_over] = 0
        self.passed_over[hand_over] = 0.0
        self.passed_heavier[hand_over] = 0.0

    def _record_passed_over(self, before: np.ndarray, rows: np.ndarray, played: np.ndarray, ends: np.ndarray) -> None:
        """For each play (game ``rows[i]`` laid tile ``played[i]`` on a line that had tiles), mark
        every other tile off the table that fitted one of the open ``ends`` then."""
        opened = (before[rows] == ON_TABLE).any(1)  # a lead passes over nothing: no end was open
        rows, played = rows[opened], played[opened]
        if not rows.size:
            return
        left, right = ends[rows, 0][:, None], ends[rows, 1][:, None]
        fits = (self.low == left) | (self.high == left) | (self.low == right) | (self.high == right)
        fits &= before[rows] != ON_TABLE
        fits[np.arange(len(rows)), played] = False
        seats = before[rows, played]
        heavier = fits & ((self.low + self.high) > (self.low + self.high)[played][:, None])
        self.passed_over[rows, seats] = np.maximum(self.passed_over[rows, seats], fits)
        self.passed_heavier[rows, seats] = np.maximum(self.passed_heavier[rows, seats], heavier)

    def features(self, seats: np.ndarray) -> np.ndarray:
        """``[B, H]`` float32, as each game's ``seats[g]`` sees it: per tile, which seat played it
        counted from the observer (the observer itself first), and when (zeros if unplayed); then,
        in the line games, per seat counted from the observer and per tile, whether that seat
        passed the tile over when it laid another, and whether it passed it over for a lighter one."""
        batch = len(seats)
        who = np.zeros((batch, self.tiles, self.players + 1), np.float32)
        played = self.played_by >= 0
        relative = (self.played_by - seats[:, None]) % self.players
        rows, tiles = np.nonzero(played)
        who[rows, tiles, relative[rows, tiles]] = 1.0
        who[..., self.players] = self.played_at
        if not self.line_game:
            return who.reshape(batch, -1)
        order = (seats[:, None] + np.arange(self.players)) % self.players  # observer first
        passed = np.take_along_axis(self.passed_over, order[..., None], 1)
        heavier = np.take_along_axis(self.passed_heavier, order[..., None], 1)
        return np.concatenate([who.reshape(batch, -1), passed.reshape(batch, -1), heavier.reshape(batch, -1)], 1)


def true_places(game: Game, state: np.ndarray, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """``[len(games), T]`` int8: where each tile hidden from ``seats[i]`` is (see :class:`Positions`)."""
    blocks = hidden_tiles(game, state, games, seats, critic_input_size(game))
    blocks = blocks.reshape(len(games), game.num_players, game.num_tiles)
    place = blocks.argmax(1).astype(np.int8)
    place[blocks.sum(1) == 0] = -1
    return place


def record_positions(game: Game, count: int, seed: int, num_envs: int = 128, history: bool = False) -> Positions:
    """``count`` positions from games of fair agents (see the module docstring), seeded by ``seed``;
    with ``history``, each with the observer's :class:`PlayHistory` features."""
    envs = BatchedEnv(game, num_envs, num_threads=1)
    plays = PlayHistory(game, num_envs) if history else None
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
        features = None if plays is None else plays.features(seat)
        parts.append((obs.copy(), true_places(game, envs.state, games, seat), envs.state.copy(), seat.copy(), features))
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
        before = envs.state["location"][:, : game.num_tiles].copy()
        ends = envs.state["ends"].copy() if plays is not None and plays.line_game else None
        obs, mask, seat, _, done = envs.step(actions)
        if plays is not None:
            plays.update(before, envs.state["location"][:, : game.num_tiles], envs.hand_over, ends)
        for g in np.flatnonzero(done):  # a new deal: new players
            driver[g] = rng.choice(len(DRIVERS), size=game.num_players, p=DRIVER_SHARES)
    joined = Positions(
        *(None if parts[0][i] is None else np.concatenate([p[i] for p in parts])[:count] for i in range(5))
    )
    keep = consistent(game, joined)
    kept = None if joined.history is None else joined.history[keep]
    return Positions(joined.obs[keep], joined.place[keep], joined.state[keep], joined.seat[keep], kept)


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
    extra: np.ndarray | None = None,
) -> BeliefNetwork:
    """A belief network fitted to ``data`` by Adam on the cross-entropy of each hidden tile's
    true place, learning rate cosine-annealed over ``epochs``; stops at ``deadline``. ``extra``
    (``[N, E]``) is appended to each observation as the network's input, for measuring what
    features beyond the observation would add (:mod:`benchmarks.belief_history`)."""
    torch.manual_seed(seed)
    if extra is None:
        network = network_for(game, hidden_sizes)
    else:
        network = BeliefNetwork(game.observation_size + extra.shape[1], game.num_tiles, num_places(game), hidden_sizes)
    with torch.no_grad():  # start at the prior: the slot-weighted uniform guess
        network.body[-1].weight.zero_()
        network.body[-1].bias.zero_()
    obs = torch.from_numpy(data.obs if extra is None else np.concatenate([data.obs, extra], 1).astype(np.float32))
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


def sampled_marginals(
    game: Game, data: Positions, samples: int, seed: int, weights: Callable[[int], np.ndarray] | None = None
) -> np.ndarray:
    """``[N, T, P]``: the marginals of the worlds a search draws, from ``samples`` worlds per
    position: uniform-consistent ones by ``Game.determinize`` (what the search agents sample by
    default), or with ``weights(i)`` (position ``i``'s ``[P + 1, T]`` place weights) those of
    ``Game.determinize_weighted``; smoothed toward :func:`slot_weighted` with the weight of one
    draw, so that a place no draw reached keeps a finite log-loss."""
    players, tiles = game.num_players, game.num_tiles
    counts = np.zeros((len(data), tiles, players), np.float64)
    out = game.new_state(1)
    game.seed(out, 0, seed)
    relative = np.arange(tiles)
    for i in range(len(data)):
        observer = int(data.seat[i])
        given = None if weights is None else game.checked_weights(weights(i))
        for _ in range(samples):
            if given is None:
                game.determinize(data.state, i, observer, out, 0)
            else:
                game.rules.determinize_weighted(data.state, game.packed_config, i, observer, out, 0, given)
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
    uniform = scores(sampled_marginals(model.game, data, samples, seed), data)
    return {f"model_{k}": v for k, v in ours.items()} | {f"uniform_{k}": v for k, v in uniform.items()}
