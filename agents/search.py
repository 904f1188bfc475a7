"""Search agents: perfect-information Monte Carlo, information-set MCTS, and the oracle.

All three look ahead on copies of the game moved by the variant's own compiled rules
(``step``, ``legal_mask``) and play the rest of a simulated hand with the variant's heuristic
(:mod:`agents.heuristic`); the tree searches play a small share of simulated moves at random so
that simulations differ. The search loops are compiled too: one call runs a whole batch of
simulations, each a game record stepped by the same functions the batched engine's
``batch_step`` loops over. (Going through ``BatchedEnv`` itself would be slower: a simulation
costs a few microseconds, less than one Python call that writes observations for a batch.) The
rules' functions and the strategy are passed to the loops as arguments, so one loop serves
every variant; numba compiles it once per variant in each process, since it cannot cache
functions that take functions. Searches look to the end of the current hand: in a match they
optimise the hand's reward.

- **PIMC** (perfect-information Monte Carlo): sample worlds (determinizations) consistent with
  what the acting seat knows, play each legal action in each world followed by a simulated rest
  of the hand, and pick the action with the best average result.
- **ISMCTS** (single-observer information-set MCTS, Cowling, Powley and Whitehouse 2012): one
  tree over the acting seat's information sets; every iteration samples a new world and
  descends the tree by UCB among the actions legal in that world (counting how often each was
  available), adds one node and simulates the rest of the hand.
- **Oracle**: the same tree search on the real game, hands and boneyard order in view. Not a fair
  player: the upper reference that shows how far any fair agent is from perfect information.

The budget per move is a number of simulations, or a time in milliseconds (searching in chunks
until it is spent). A move with one legal action is played without search.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from agents.base import StatefulAgent
from agents.heuristic import SCRATCH_RECORDS, heuristic_policy
from domino_env.game import Game
from domino_env.games.core import PLAYING
from domino_env.rng import below, game_seed, next_u64
from domino_env.sampling import uniform01

NO_NODE = -1
CHUNK = 64  # simulations per compiled call under a time budget
ROLLOUT_EFFORT = 16  # look-ahead of the strategy in simulations (FULL_EFFORT would be slow)

RNG_DTYPE = np.dtype((np.record, [("rng", np.uint64)]))  # an agent's own generator


# ---------------------------------------------------------------------------------------------- simulation


@njit
def choose(policy, state, cfg, g, mask, legal, scratch, effort, epsilon):
    """The simulated player's action: the strategy's, or with probability ``epsilon`` (and
    whenever there is a choice) a uniform legal action. Randomness from ``state[g]``'s own
    generator, which in a simulation is the searching agent's."""
    if legal > 1 and epsilon > 0.0 and uniform01(state, g) < epsilon:
        rank = below(state, g, legal)
        for action in range(mask.shape[0]):
            if mask[action]:
                if rank == 0:
                    return action
                rank -= 1
    if legal == 1:
        for action in range(mask.shape[0]):
            if mask[action]:
                return action
    return policy(state, cfg, g, mask, scratch, effort)


@njit
def play_out(step, legal_mask, policy, state, cfg, g, mask, scratch, effort, epsilon):
    """Play game ``g`` to the end of its hand; its ``rewards`` are then the hand's."""
    while True:
        legal = legal_mask(state, cfg, g, mask)
        action = choose(policy, state, cfg, g, mask, legal, scratch, effort, epsilon)
        if step(state, cfg, g, action) != PLAYING:
            return


# ---------------------------------------------------------------------------------------------- PIMC


@njit
def pimc_search(
    step,
    legal_mask,
    determinize,
    policy,
    state,
    cfg,
    g,
    worlds,
    effort,
    epsilon,
    rng,
    totals,
    counts,
    world,
    work,
    scratch,
    mask,
):
    """Add to ``totals[a]`` / ``counts[a]`` the acting seat's results of ``worlds`` sampled
    worlds, each legal action ``a`` played once in each, then the hand simulated to its end.
    The actions share each world's random stream (common random numbers)."""
    seat = state[g].current
    root_mask = np.zeros(mask.shape[0], np.int8)
    for _ in range(worlds):
        world[0].rng = next_u64(rng, 0)
        determinize(state, cfg, g, seat, world, 0)
        legal_mask(world, cfg, 0, root_mask)
        stream = next_u64(rng, 0)
        for action in range(root_mask.shape[0]):
            if root_mask[action]:
                work[0] = world[0]
                work[0].rng = stream
                if step(work, cfg, 0, action) == PLAYING:
                    play_out(step, legal_mask, policy, work, cfg, 0, mask, scratch, effort, epsilon)
                totals[action] += work[0].rewards[seat]
                counts[action] += 1


# ---------------------------------------------------------------------------------------------- ISMCTS


class Tree:
    """Nodes of a search tree as arrays. Node 0 is the root; every other node is reached by one
    (actor, action) edge from its parent, and holds that edge's statistics: visits, the summed
    reward of the actor, and how often the edge was available when its parent was visited."""

    def __init__(self, capacity: int) -> None:
        self.first_child = np.full(capacity, NO_NODE, np.int32)
        self.sibling = np.full(capacity, NO_NODE, np.int32)
        self.action = np.zeros(capacity, np.int32)
        self.actor = np.zeros(capacity, np.int8)
        self.visits = np.zeros(capacity, np.float64)
        self.value = np.zeros(capacity, np.float64)
        self.available = np.zeros(capacity, np.float64)
        self.size = np.ones(1, np.int64)

    def arrays(self) -> tuple:
        return (
            self.first_child,
            self.sibling,
            self.action,
            self.actor,
            self.visits,
            self.value,
            self.available,
            self.size,
        )


@njit
def tree_search(
    step,
    legal_mask,
    determinize,
    policy,
    tree,
    state,
    cfg,
    g,
    iterations,
    sample,
    explore,
    effort,
    epsilon,
    rng,
    work,
    scratch,
    mask,
    tried,
    path,
):
    """Run ``iterations`` of (IS)MCTS from game ``g``'s acting seat, growing ``tree``.

    With ``sample`` each iteration starts from a fresh determinization (ISMCTS); without, from
    the real game (perfect-information MCTS: the oracle). Selection is UCB1 over the children
    whose action is legal in the iteration's world, with the number of times a child was
    available in place of its parent's visits.
    """
    first_child, sibling, action_of, actor_of, visits, value, available, size = tree
    capacity = first_child.shape[0]
    observer = state[g].current
    for _ in range(iterations):
        if sample:
            work[0].rng = next_u64(rng, 0)
            determinize(state, cfg, g, observer, work, 0)
        else:
            work[0] = state[g]
            work[0].rng = next_u64(rng, 0)
        node = 0
        depth = 0
        status = PLAYING
        while status == PLAYING:
            legal = legal_mask(work, cfg, 0, mask)
            seat = work[0].current
            tried[:] = 0
            untried = legal
            best = NO_NODE
            best_score = -np.inf
            child = first_child[node]
            while child != NO_NODE:
                if actor_of[child] == seat and mask[action_of[child]]:
                    available[child] += 1.0
                    tried[action_of[child]] = 1
                    untried -= 1
                    score = value[child] / visits[child] + explore * np.sqrt(np.log(available[child]) / visits[child])
                    if score > best_score:
                        best, best_score = child, score
                child = sibling[child]
            if untried > 0 and size[0] < capacity:
                # The strategy's own choice is tried first, then the others at random, so the
                # tree starts out following the strategy and improves on it.
                action = policy(work, cfg, 0, mask, scratch, effort)
                if tried[action]:
                    rank = below(work, 0, untried)
                    action = -1
                    while rank >= 0:
                        action += 1
                        if mask[action] and not tried[action]:
                            rank -= 1
                child = size[0]
                size[0] += 1
                action_of[child] = action
                actor_of[child] = seat
                available[child] = 1.0
                sibling[child] = first_child[node]
                first_child[node] = child
                path[depth] = child
                depth += 1
                if step(work, cfg, 0, action) == PLAYING:
                    play_out(step, legal_mask, policy, work, cfg, 0, mask, scratch, effort, epsilon)
                break
            if best == NO_NODE:  # the tree is full: simulate from here
                play_out(step, legal_mask, policy, work, cfg, 0, mask, scratch, effort, epsilon)
                break
            path[depth] = best
            depth += 1
            node = best
            status = step(work, cfg, 0, action_of[best])
        for i in range(depth):
            visits[path[i]] += 1.0
            value[path[i]] += work[0].rewards[actor_of[path[i]]]


# ---------------------------------------------------------------------------------------------- agents


class SearchAgent(StatefulAgent):
    """What the search agents share: the variant's compiled hooks, scratch records, an own
    generator, the budget (``simulations`` per move, or ``milliseconds`` when given), and how
    simulated players move: the strategy with look-ahead ``effort``, a uniform legal action
    with probability ``epsilon``."""

    epsilon = 0.1

    def __init__(
        self,
        game: Game,
        seed: int | None = None,
        simulations: int = 1000,
        milliseconds: float | None = None,
        epsilon: float | None = None,
        effort: int = ROLLOUT_EFFORT,
    ) -> None:
        super().__init__(game)
        if simulations < 1 or (milliseconds is not None and milliseconds <= 0):
            raise ValueError(f"the budget must be positive, got simulations={simulations}, milliseconds={milliseconds}")
        self.simulations = simulations
        self.milliseconds = milliseconds
        if epsilon is not None:
            self.epsilon = epsilon
        self.effort = effort
        self.hooks = (*game.compiled, heuristic_policy(game))
        self.rng = np.zeros(1, RNG_DTYPE)
        self.rng[0]["rng"] = game_seed(0 if seed is None else seed, 0)
        self.work = game.new_state(1)
        self.scratch = game.new_state(SCRATCH_RECORDS)
        self.mask = np.zeros(game.num_actions, np.int8)

    def random_state(self) -> int:
        return int(self.rng[0]["rng"])

    def set_random_state(self, state: int) -> None:
        self.rng[0]["rng"] = state

    def forced(self, state: np.ndarray, g: int) -> int | None:
        """The only legal action, if there is just one. Reading the mask is fair: it is part of
        the acting seat's observation."""
        if self.game.legal_mask(state, g, self.mask) == 1:
            return int(np.flatnonzero(self.mask)[0])
        return None

    def spend(self, search_chunk) -> None:
        """Call ``search_chunk(n)`` until the budget is spent: ``simulations`` in one call, or
        chunks of ``CHUNK`` until ``milliseconds`` have passed."""
        if self.milliseconds is None:
            search_chunk(self.simulations)
            return
        deadline = time.perf_counter() + self.milliseconds / 1000.0
        while True:
            search_chunk(CHUNK)
            if time.perf_counter() >= deadline:
                return


class PIMCAgent(SearchAgent):
    """Perfect-information Monte Carlo: ``simulations`` are spread over sampled worlds, one
    simulation per legal action in each world; the best average result is played."""

    name = "pimc"
    epsilon = 0.0  # each action meets the same world: deterministic simulations compare best

    def __init__(self, game: Game, seed: int | None = None, **budget) -> None:
        super().__init__(game, seed, **budget)
        self.world = game.new_state(1)

    def act_state(self, state: np.ndarray, g: int) -> int:
        only = self.forced(state, g)
        if only is not None:
            return only
        legal = int(self.mask.sum())
        totals = np.zeros(self.game.num_actions)
        counts = np.zeros(self.game.num_actions)
        cfg = self.game.packed_config

        def search_chunk(simulations: int) -> None:
            worlds = max(1, simulations // legal)
            pimc_search(
                *self.hooks, state, cfg, g, worlds, self.effort, self.epsilon, self.rng, totals, counts,
                self.world, self.work, self.scratch, self.mask,
            )  # fmt: skip

        self.spend(search_chunk)
        means = np.where(counts > 0, totals / np.maximum(counts, 1), -np.inf)
        return int(np.argmax(means))


class ISMCTSAgent(SearchAgent):
    """Single-observer information-set MCTS with ``simulations`` iterations per move (see the
    module docstring); plays the most visited legal action at the root."""

    name = "ismcts"
    sample = True

    def __init__(self, game: Game, seed: int | None = None, explore: float = 1.0, **budget) -> None:
        super().__init__(game, seed, **budget)
        self.explore = explore
        self.tried = np.zeros(game.num_actions, np.int8)

    def act_state(self, state: np.ndarray, g: int) -> int:
        only = self.forced(state, g)
        if only is not None:
            return only
        root_mask = self.mask.copy()
        seat = self.game.current_seat(state, g)
        capacity = self.simulations + 1 if self.milliseconds is None else 1 << 16
        tree = Tree(capacity)
        path = np.zeros(capacity, np.int64)
        cfg = self.game.packed_config

        def search_chunk(iterations: int) -> None:
            room = capacity - int(tree.size[0])
            tree_search(
                *self.hooks, tree.arrays(), state, cfg, g, min(iterations, max(room, 1)), self.sample,
                self.explore, self.effort, self.epsilon, self.rng, self.work, self.scratch, self.mask, self.tried,
                path,
            )  # fmt: skip

        self.spend(search_chunk)
        best, most = -1, -1.0
        child = tree.first_child[0]
        while child != NO_NODE:
            action = int(tree.action[child])
            if tree.actor[child] == seat and root_mask[action] and tree.visits[child] > most:
                best, most = action, tree.visits[child]
            child = tree.sibling[child]
        return best


class OracleAgent(ISMCTSAgent):
    """MCTS on the real game with every hand and the boneyard in view: not a fair player, the
    upper reference for the fair ones."""

    name = "oracle"
    sample = False
