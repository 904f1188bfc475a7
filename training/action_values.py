"""Every legal move of a real position played out: action values for a policy improvement step.

Search labels a position by sampling worlds the acting seat cannot tell from the real one
(uniformly among those consistent with what it saw) and rolling every move out in each: a few
hundred rollouts, one position at a time. Here the position is one that self-play reached, and
its hidden tiles are the real ones: a draw from where the tiles really are when every seat plays
the policy, which the seat's observation can only weigh uniformly. Each legal move is played
out once from that real state, the policy playing every seat from there (its most likely
moves, each seat from its own observation), and every move of a position meets the same hidden
tiles and the same draws (common random numbers): the difference between two moves' results is
what the move changed in that world, not the deal's luck.

One rollout a move is noisy, but the rollouts of a million positions are stepped together by
the batched engine and one forward pass a step, about a hundredth of a search's cost a
position. Fitted by regression, the network averages the noise over the positions it cannot
tell apart, and what it converges to is each move's expected result given the observation:
the action value of the policy, ``Q(observation, move)``, the hidden tiles weighted as the
policy's own play makes them likely. The fit (:func:`fit_improvement`) moves the policy's logits
to ``log prior + Q / temperature``, a KL-regularized improvement step over the labelling policy
(as in MPO), whose most likely move is the labelling policy's favourite unless a move's value is
better by enough.

The real state is read only to make the targets, as a privileged critic reads it; the fitted
policy reads the observation alone.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from agents.base import Agent, batch_actions
from agents.network import PolicyNetwork, legal_log_probs
from agents.policy import PolicyAgent
from agents.policy_search import policy_rollouts
from agents.workers import check_workers, fork_context, one_thread
from domino_env.game import Game
from domino_env.rng import game_seed
from training.fitting import fit_minibatches
from training.imitation import Demonstrations, record_decisions

ROLLOUT_CHUNK = 8_192  # positions played out together: their moves' copies of the state fit in memory
SEARCH_BLOCK = 256  # positions a worker labels in one task
_FORKED: tuple[Agent, np.ndarray, np.ndarray, int] | None = None  # search_values' inputs, for its workers
# Told how many more positions were valued, or reached, as labelling goes: ``tqdm(...).update``.
Advance = Callable[[int], object]


@dataclass
class ActionValues:
    """Positions the policy reached, each legal move's result from the real state."""

    obs: np.ndarray  # [N, D] float32: the acting seat's observation
    mask: np.ndarray  # [N, A] int8
    values: np.ndarray  # [N, A] float32: the acting seat's episode reward after each legal move (0 elsewhere)
    prior: np.ndarray  # [N, A] float32: the labelling policy's log-probabilities (0 where illegal)

    def __len__(self) -> int:
        return len(self.obs)

    def targets(self, temperature: float) -> np.ndarray:
        """``log prior + values / temperature`` centred over each row's legal moves (0 elsewhere):
        what the logits are fitted to. Only differences between a row's logits matter to the
        policy, so the centring leaves the fit free of each row's level."""
        return centred(self.prior + self.values / temperature, self.mask)


class StateRecorder:
    """A teacher for ``record_decisions`` that keeps a copy of each asked position's real state;
    its label is the copy's row, so the rows the recording keeps (those whose episode ended) can
    be matched with their states. With a driver, ``record_decisions`` never plays a label."""

    def __init__(self) -> None:
        self.states: list[np.ndarray] = []
        self.count = 0

    def act_states(self, game: Game, state: np.ndarray, games: np.ndarray) -> np.ndarray:
        self.states.append(state[games].copy())
        rows = np.arange(self.count, self.count + len(games), dtype=np.int64)
        self.count += len(games)
        return rows


class TableRecorder(StateRecorder):
    """Teacher and driver at once for ``record_decisions``: games against a table of
    ``opponent``, the positions those games reach, each with its real state kept.

    Game ``g`` of the batch seats the learner at ``g % players`` (and its partner's seat), so
    the learner sits at every seat across the batch; ``opponent`` plays the other seats and
    ``driver`` the learner's. Against a table the hidden tiles lie where the opponent's own play
    put them, which is what a step towards a best response to that table must weigh. The
    recording asks the teacher and then the driver about the same games in one step:
    ``act_states`` keeps the states and says whose turn each is, and ``act`` plays them."""

    def __init__(self, driver: Agent, opponent: Agent) -> None:
        super().__init__()
        self.driver, self.opponent = driver, opponent
        self.learner: list[np.ndarray] = []  # per recorded row: the learner's turn or the table's
        self.asked: tuple[Game, np.ndarray, np.ndarray] | None = None

    def act_states(self, game: Game, state: np.ndarray, games: np.ndarray) -> np.ndarray:
        seats = np.array([game.current_seat(state, int(g)) for g in games], np.int64)
        self.learner.append(seats % game.num_sides == games % game.num_players % game.num_sides)
        self.asked = (game, state, games)
        return super().act_states(game, state, games)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self.asked is None or len(observations) != len(self.asked[2]):  # not the games act_states was asked about
            raise RuntimeError("TableRecorder.act must follow act_states on the same games")
        game, state, games = self.asked
        mine = self.learner[-1]
        actions = np.empty(len(games), np.int64)
        if mine.any():
            actions[mine] = batch_actions(self.driver, game, state, games[mine], observations[mine], masks[mine])
        if not mine.all():
            actions[~mine] = self.opponent.act_states(game, state, games[~mine])
        return actions


def recorded_states(
    game: Game,
    driver: Agent,
    positions: int,
    num_envs: int,
    seed: int,
    deadline: float = math.inf,
    whole_episodes: bool = False,
    reached: Advance | None = None,
) -> tuple[Demonstrations | None, np.ndarray | None]:
    """About ``positions`` unforced positions that ``driver`` (a policy, or an agent that reads
    the game record such as a search agent) reaches playing every seat on the deals of ``seed``,
    and row for row their real states; (None, None) when ``deadline`` passed
    first. ``whole_episodes``: at least ``positions``, every episode begun before the count kept
    whole (:func:`training.imitation.record_decisions`), a fair sample for measuring on.
    ``reached`` is told of the positions recorded as their episodes end."""
    recorder = StateRecorder()
    data, _ = record_decisions(
        game, recorder, driver, positions, num_envs, seed, deadline=deadline, whole_episodes=whole_episodes,
        reached=reached,
    )  # fmt: skip
    if data is None:
        return None, None
    return data, np.concatenate(recorder.states)[data.action]


def centred(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``values`` minus each row's mean over its legal entries, exactly 0 at the illegal ones."""
    legal = mask > 0
    kept = np.where(legal, values, 0.0)
    mean = kept.sum(1, keepdims=True) / np.maximum(legal.sum(1, keepdims=True), 1)
    return np.where(legal, kept - mean, 0.0).astype(np.float32)


def move_values(
    game: Game,
    network: PolicyNetwork,
    states: np.ndarray,
    mask: np.ndarray,
    opponent: Agent | None = None,
    advance: Advance | None = None,
) -> np.ndarray:
    """``[N, A]``: the result for the seat to act in ``states[i]`` of each legal move of
    ``mask[i]``, one rollout of ``network`` from that real state (every move of a position from
    the same copy of it, so from the same hidden tiles and draws); 0 at illegal moves. With an
    ``opponent`` (an agent such as the heuristic), it plays the other seats of the rollouts, and
    the values are those of playing against a table of it."""
    values = np.zeros(mask.shape, np.float32)
    seats = np.array([game.current_seat(states, i) for i in range(len(states))], np.int64)
    for start in range(0, len(states), ROLLOUT_CHUNK):
        block = mask[start : start + ROLLOUT_CHUNK]
        rows, moves = np.nonzero(block)
        rows += start
        values[rows, moves] = policy_rollouts(game, network, states[rows], moves, seats[rows], opponent=opponent)
        if advance is not None:
            advance(len(block))
    return values


def search_values(
    game: Game,
    labeller: Agent,
    states: np.ndarray,
    mask: np.ndarray,
    advance: Advance | None = None,
    workers: int = 1,
) -> np.ndarray:
    """``[N, A]``: each legal move's mean result over the worlds ``labeller`` (a search agent:
    :func:`agents.registry.check_labeller`) samples from what the seat to act in ``states[i]``
    knows; 0 at illegal moves. A search that left a legal move untried (ISMCTS under a budget
    smaller than the moves) is refused. Where the search's moves differ from ``mask[i]``'s, the
    position's state is not the one the mask was read from, which cannot happen: refused.

    Search costs milliseconds a position, one position at a time, so ``workers`` processes
    (forked: each searches with its own copy of ``labeller``) share the positions in blocks of
    ``SEARCH_BLOCK``. Then the labeller's generator restarts at each block from its state now
    and the block's index, so the labels are the same for any number of workers above one."""
    check_workers("search_values", workers)
    if workers == 1 or len(states) == 0:
        return search_block(labeller, states, mask, 0, len(states), advance)
    labeller.action_values(states, 0)  # compiles the search here, once, for every worker to inherit
    global _FORKED  # what the forked workers inherit instead of unpickling it
    _FORKED = (labeller, states, mask, labeller.random_state())
    blocks = range(0, len(states), SEARCH_BLOCK)
    values = np.zeros(mask.shape, np.float32)
    try:
        with fork_context().Pool(workers, initializer=one_thread) as pool:
            for start, block in pool.imap_unordered(search_forked_block, blocks):
                values[start : start + len(block)] = block
                if advance is not None:
                    advance(len(block))
    finally:
        _FORKED = None
    return values


def search_forked_block(start: int) -> tuple[int, np.ndarray]:
    """In a forked worker of :func:`search_values`: the values of the block of positions from
    ``start``, the labeller's generator restarted from the block's own seed."""
    labeller, states, mask, seed = _FORKED
    labeller.set_random_state(game_seed(seed, start // SEARCH_BLOCK))
    stop = min(start + SEARCH_BLOCK, len(states))
    return start, search_block(labeller, states, mask, start, stop)


def search_block(
    labeller: Agent, states: np.ndarray, mask: np.ndarray, start: int, stop: int, advance: Advance | None = None
) -> np.ndarray:
    """``[stop - start, A]``: :func:`search_values` for positions ``start`` to ``stop``."""
    values = np.zeros((stop - start, mask.shape[1]), np.float32)
    for i in range(start, stop):
        _, legal, means = labeller.action_values(states, i)
        if not np.array_equal(legal, np.flatnonzero(mask[i])):
            raise RuntimeError(f"position {i}: the labeller's legal moves are not the recorded ones")
        if not np.isfinite(means).all():
            raise ValueError(f"position {i}: the labeller left a move unvalued; give it more simulations")
        values[i - start, legal] = means
        if advance is not None:
            advance(1)
    return values


def label_positions(
    game: Game,
    network: PolicyNetwork,
    positions: int,
    num_envs: int,
    seed: int,
    deadline: float = math.inf,
    opponent: Agent | None = None,
    labeller: Agent | None = None,
    advance: Advance | None = None,
    workers: int = 1,
    driver: Agent | None = None,
    reached: Advance | None = None,
) -> ActionValues | None:
    """About ``positions`` unforced positions reached by ``network`` sampling every seat's moves
    on the deals of ``seed``, each move valued by :func:`move_values`; None when ``deadline`` (a
    ``time.perf_counter()`` time) passed first. With an ``opponent``, the positions are
    ``network``'s turns in games against a table of it (:class:`TableRecorder`) and the values
    those of playing on against it. With a ``labeller`` (PIMC), the moves are valued
    by its search from the seat's own knowledge instead (:func:`search_values`, in ``workers``
    processes): many worlds a position and the labeller's rollout player, where a rollout sees
    one world, the real one. With a ``driver`` (ISMCTS), the positions are those it reaches
    playing every seat instead, or the learner's seats against ``opponent``'s table; ``network``
    still anchors the targets and plays the rollouts.
    ``advance``, where given, is told of the positions valued as they are, and ``reached`` of
    the decisions recorded (the table's too) as their episodes end. ``network`` is copied to
    the CPU."""
    player = copy.deepcopy(network).cpu().eval()
    if driver is None:
        driver = PolicyAgent(player, "student", deterministic=False, seed=seed + 2)
    if opponent is None:
        data, states = recorded_states(game, driver, positions, num_envs, seed, deadline, reached=reached)
    else:  # the table's turns are recorded too, and dropped: one side's in `num_sides` is the learner's
        recorder = TableRecorder(driver, opponent)
        asked = positions * game.num_sides
        data, _ = record_decisions(game, recorder, recorder, asked, num_envs, seed, deadline=deadline, reached=reached)
        if data is not None:
            data = data.subset(np.concatenate(recorder.learner)[data.action])
            states = np.concatenate(recorder.states)[data.action]
    if data is None:
        return None
    if labeller is None:
        values = move_values(game, player, states, data.mask, opponent, advance)
    else:
        values = search_values(game, labeller, states, data.mask, advance, workers)
    prior = legal_log_probs(player, data.obs, data.mask)
    return ActionValues(data.obs, data.mask, values, prior)


def fit_improvement(
    network: PolicyNetwork,
    optimizer: torch.optim.Optimizer,
    data: ActionValues,
    temperature: float,
    epochs: int,
    minibatch_size: int,
    generator: torch.Generator,
    device: torch.device,
    max_grad_norm: float = math.inf,
    anneal: bool = False,
) -> dict[str, float]:
    """``epochs`` passes of the squared error between ``network``'s centred logits and
    ``data.targets(temperature)`` over each row's legal moves (the mean over legal entries).
    Regression, not cross-entropy: the mean of a noisy target is what the logits learn, so one
    rollout a move serves, where a softmax of noisy values would be learned as a flatter policy.
    ``anneal`` takes the learning rate down to zero over the passes (:func:`fit_minibatches`).
    Returns the last pass's mean loss."""
    obs, mask = torch.as_tensor(data.obs, device=device), torch.as_tensor(data.mask, device=device)
    targets = torch.as_tensor(data.targets(temperature), device=device)

    def loss(batch: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        legal = mask[batch] > 0
        logits = torch.where(legal, network.logits(obs[batch]), 0.0)
        count = legal.sum(1, keepdim=True)
        error = torch.where(legal, logits - logits.sum(1, keepdim=True) / count - targets[batch], 0.0)
        value = (error**2).sum() / count.sum()
        return value, {"loss": value.item() * len(batch)}

    return fit_minibatches(
        network, optimizer, len(data), loss, epochs, minibatch_size, generator, device,
        max_grad_norm=max_grad_norm, anneal=anneal,
    )  # fmt: skip
