"""Search agents: perfect-information Monte Carlo, information-set MCTS, and the oracle.

All three look ahead on copies of the game moved by the variant's own compiled rules
(``step``, ``legal_mask``) and play the rest of a simulated hand with the variant's heuristic
(:mod:`agents.heuristic`); the tree searches play a small share of simulated moves at random so
that simulations differ. The search loops are compiled too: one call runs a whole batch of
simulations, each a game record stepped by the same functions the batched engine's
``batch_step`` loops over. (Going through ``BatchedEnv`` itself would be slower: a simulation
costs a few microseconds, less than one Python call that writes observations for a batch.) The
rules' functions and the strategy are passed to the loops as arguments (one :class:`Simulator`),
so one loop serves every variant; numba compiles it once per variant in each process, since it
cannot cache functions that take functions. Searches look to the end of the current hand: in a
match they optimise the hand's reward.

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
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from agents.base import StatefulAgent
from agents.heuristic import FULL_EFFORT, SCRATCH_RECORDS, heuristic_policy
from agents.options import bounded_float, bounded_int
from agents.planner import check_plans_here, planner_policy
from domino_env.game import Game
from domino_env.games.core import PLAYING
from domino_env.rng import below, game_seed, next_u64
from domino_env.sampling import NO_WEIGHTS, uniform01

NO_NODE = -1
CHUNK = 64  # simulations per compiled call under a time budget
ROLLOUT_EFFORT = 16  # look-ahead of the strategy in simulations (FULL_EFFORT would be slow)
ROLLOUT_STRATEGIES = ("heuristic", "planner")  # what simulated players follow: rollout=NAME

RNG_DTYPE = np.dtype((np.record, [("rng", np.uint64)]))  # an agent's own generator

# Bounds on the options, which may come from a command line, a config or a web request. A move
# must end and fit in memory: 100,000 simulations take seconds a move (a simulation costs
# microseconds to tens of microseconds) and size an ISMCTS tree at 100,001 nodes (about 45 bytes
# each, some 4.5 MB); a time budget stops at a minute a move and its tree has TIME_CAPACITY nodes.
MAX_SIMULATIONS = 100_000
MAX_MILLISECONDS = 60_000
TIME_CAPACITY = 1 << 16  # tree nodes under a time budget
MAX_EXPLORE = 100.0  # UCB's exploration constant; rewards are of the order of 1


class Simulator(NamedTuple):
    """Everything a compiled loop needs to sample and simulate worlds of one variant: its rules
    and strategy (numba compiles the loops once per set of functions), and how simulated
    players move: the strategy with look-ahead ``effort``, a uniform legal action with
    probability ``epsilon``. One value instead of six arguments on every loop."""

    step: Callable
    legal_mask: Callable
    determinize: Callable
    policy: Callable
    effort: int
    epsilon: float
    determinize_weighted: Callable


class Workspace(NamedTuple):
    """The arrays a search writes into, allocated once per agent: its own generator ``rng``,
    the sampled ``world`` and the ``work`` record a simulation moves, the strategy's
    ``scratch``, an action ``mask`` and the tree searches' ``tried`` actions."""

    rng: np.ndarray
    world: np.ndarray
    work: np.ndarray
    scratch: np.ndarray
    mask: np.ndarray
    tried: np.ndarray
    weights: np.ndarray  # a belief model's [P + 1, T] place weights this move; [0, 0]: uniform worlds


# ---------------------------------------------------------------------------------------------- simulation


@njit
def choose(sim, state, cfg, g, mask, legal, scratch):
    """The simulated player's action: the strategy's, or with probability ``sim.epsilon`` (and
    whenever there is a choice) a uniform legal action. Randomness from ``state[g]``'s own
    generator, which in a simulation is the searching agent's."""
    if legal > 1 and sim.epsilon > 0.0 and uniform01(state, g) < sim.epsilon:
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
    return sim.policy(state, cfg, g, mask, scratch, sim.effort)


@njit
def play_out(sim, state, cfg, g, mask, scratch):
    """Play game ``g`` to the end of its hand; its ``rewards`` are then the hand's."""
    while True:
        legal = sim.legal_mask(state, cfg, g, mask)
        action = choose(sim, state, cfg, g, mask, legal, scratch)
        if sim.step(state, cfg, g, action) != PLAYING:
            return


@njit
def finish_hand(sim, work, cfg, action, space):
    """Play ``action`` in ``work``'s only game, then the rest of the hand: the simulation that
    scores an action, in PIMC and after a tree search adds a node."""
    if sim.step(work, cfg, 0, action) == PLAYING:
        play_out(sim, work, cfg, 0, space.mask, space.scratch)


# ---------------------------------------------------------------------------------------------- PIMC


@njit
def sample_world(sim, state, cfg, g, observer, out, space):
    """Determinize game ``g`` for ``observer`` into ``out[0]``: uniformly, or in proportion to
    the belief weights ``space.weights`` when it holds any."""
    if space.weights.shape[0] > 0:
        sim.determinize_weighted(state, cfg, g, observer, out, 0, space.weights)
    else:
        sim.determinize(state, cfg, g, observer, out, 0)


@njit
def pimc_search(sim, state, cfg, g, worlds, totals, counts, space):
    """Add to ``totals[a]`` / ``counts[a]`` the acting seat's results of ``worlds`` sampled
    worlds, each legal action ``a`` played once in each, then the hand simulated to its end.
    The actions share each world's random stream (common random numbers)."""
    seat = state[g].current
    root_mask = np.zeros(space.mask.shape[0], np.int8)
    world, work, rng = space.world, space.work, space.rng
    for _ in range(worlds):
        world[0].rng = next_u64(rng, 0)
        sample_world(sim, state, cfg, g, seat, world, space)
        sim.legal_mask(world, cfg, 0, root_mask)
        stream = next_u64(rng, 0)
        for action in range(root_mask.shape[0]):
            if root_mask[action]:
                work[0] = world[0]
                work[0].rng = stream
                finish_hand(sim, work, cfg, action, space)
                totals[action] += work[0].rewards[seat]
                counts[action] += 1


# ---------------------------------------------------------------------------------------------- ISMCTS


class Tree(NamedTuple):
    """Nodes of a search tree as arrays. Node 0 is the root; every other node is reached by one
    (actor, action) edge from its parent, and holds that edge's statistics: visits, the summed
    reward of the actor, and how often the edge was available when its parent was visited.
    ``size`` holds the number of nodes in use, ``path`` the nodes the current iteration went
    through (to be credited with its result)."""

    first_child: np.ndarray
    sibling: np.ndarray
    action: np.ndarray
    actor: np.ndarray
    visits: np.ndarray
    value: np.ndarray
    available: np.ndarray
    size: np.ndarray
    path: np.ndarray

    @classmethod
    def empty(cls, capacity: int) -> Tree:
        """A tree with room for ``capacity`` nodes, holding only the root."""
        return cls(
            first_child=np.full(capacity, NO_NODE, np.int32),
            sibling=np.full(capacity, NO_NODE, np.int32),
            action=np.zeros(capacity, np.int32),
            actor=np.zeros(capacity, np.int8),
            visits=np.zeros(capacity, np.float64),
            value=np.zeros(capacity, np.float64),
            available=np.zeros(capacity, np.float64),
            size=np.ones(1, np.int64),
            path=np.zeros(capacity, np.int64),
        )


@njit
def tree_search(sim, tree, state, cfg, g, iterations, sample, explore, space):
    """Run ``iterations`` of (IS)MCTS from game ``g``'s acting seat, growing ``tree``.

    With ``sample`` each iteration starts from a fresh determinization (ISMCTS); without, from
    the real game (perfect-information MCTS: the oracle). Each iteration descends and grows the
    tree, simulating the rest of the hand (``descend``), then credits its result to the nodes
    it went through (``backpropagate``).
    """
    observer = state[g].current
    work, rng = space.work, space.rng
    for _ in range(iterations):
        if sample:
            work[0].rng = next_u64(rng, 0)
            sample_world(sim, state, cfg, g, observer, work, space)
        else:
            work[0] = state[g]
            work[0].rng = next_u64(rng, 0)
        depth = descend(sim, tree, cfg, explore, space)
        backpropagate(tree, depth, work)


@njit
def descend(sim, tree, cfg, explore, space):
    """One iteration on the world in ``space.work``: follow the best children (``select``)
    while every action legal here has one, add a child for an untried action (``expand``) and
    simulate the rest of the hand from it; when the tree is full, simulate from where the descent
    stopped. Returns how many nodes of ``tree.path`` the iteration went through."""
    work, mask = space.work, space.mask
    node = 0
    depth = 0
    while True:
        legal = sim.legal_mask(work, cfg, 0, mask)
        seat = work[0].current
        best, untried = select(tree, node, seat, legal, explore, space)
        if untried > 0 and tree.size[0] < tree.first_child.shape[0]:
            child = expand(sim, tree, node, seat, untried, cfg, space)
            tree.path[depth] = child
            finish_hand(sim, work, cfg, tree.action[child], space)
            return depth + 1
        if best == NO_NODE:  # the tree is full: simulate from here
            play_out(sim, work, cfg, 0, mask, space.scratch)
            return depth
        tree.path[depth] = best
        depth += 1
        node = best
        if sim.step(work, cfg, 0, tree.action[best]) != PLAYING:
            return depth


@njit
def select(tree, node, seat, legal, explore, space):
    """The child of ``node`` to follow: UCB1 over the children of ``seat`` whose action is legal
    in this world (``space.mask``), counting the times a child was available in place of its
    parent's visits, since in other worlds it may not have been (``mark_children``). Returns the
    best child (``NO_NODE`` if none) and how many legal actions have no child yet."""
    untried = legal - mark_children(tree, node, seat, space)
    best = NO_NODE
    best_score = -np.inf
    child = tree.first_child[node]
    while child != NO_NODE:
        if tree.actor[child] == seat and space.mask[tree.action[child]]:
            visits = tree.visits[child]
            score = tree.value[child] / visits + explore * np.sqrt(np.log(tree.available[child]) / visits)
            if score > best_score:
                best, best_score = child, score
        child = tree.sibling[child]
    return best, untried


@njit
def mark_children(tree, node, seat, space):
    """Mark in ``space.tried`` the actions of ``node``'s children of ``seat`` that are legal in
    this world (``space.mask``) and count each of those children available once more. Returns
    how many there are."""
    mask, tried = space.mask, space.tried
    tried[:] = 0
    marked = 0
    child = tree.first_child[node]
    while child != NO_NODE:
        action = tree.action[child]
        if tree.actor[child] == seat and mask[action]:
            tree.available[child] += 1.0
            tried[action] = 1
            marked += 1
        child = tree.sibling[child]
    return marked


@njit
def expand(sim, tree, node, seat, untried, cfg, space):
    """Add to ``node`` a child for one of the ``untried`` legal actions of ``seat`` and return
    it. The strategy's own choice is tried first, then the others at random, so the tree
    starts out following the strategy and improves on it."""
    work, mask, tried = space.work, space.mask, space.tried
    action = sim.policy(work, cfg, 0, mask, space.scratch, sim.effort)
    if tried[action]:
        rank = below(work, 0, untried)
        action = -1
        while rank >= 0:
            action += 1
            if mask[action] and not tried[action]:
                rank -= 1
    child = tree.size[0]
    tree.size[0] += 1
    tree.action[child] = action
    tree.actor[child] = seat
    tree.available[child] = 1.0
    tree.sibling[child] = tree.first_child[node]
    tree.first_child[node] = child
    return child


@njit
def backpropagate(tree, depth, work):
    """Credit the hand's result in ``work`` to the first ``depth`` nodes of ``tree.path``, each
    with the reward of the seat that chose its edge."""
    for i in range(depth):
        node = tree.path[i]
        tree.visits[node] += 1.0
        tree.value[node] += work[0].rewards[tree.actor[node]]


# ---------------------------------------------------------------------------------------------- agents


def check_rollout(owner: str, rollout: str) -> str:
    """``rollout`` if it names a strategy the simulated players can follow, else a one-line
    ValueError: the variant's heuristic, or in Mexican Train the planner."""
    if rollout not in ROLLOUT_STRATEGIES:
        raise ValueError(f"{owner}: rollout must be one of {', '.join(ROLLOUT_STRATEGIES)}, got {rollout!r}")
    return rollout


def check_belief(owner: str, belief: str | None) -> str | None:
    """``belief`` names a shipped belief model or a folder holding one (checked for the game
    when the agent is built), or is None."""
    if belief is None:
        return None
    from agents.belief import resolve_belief, shipped_beliefs

    try:
        if not isinstance(belief, str):
            raise ValueError
        resolve_belief(belief)
    except ValueError:
        raise ValueError(
            f"{owner}: belief must name a shipped belief model ({', '.join(shipped_beliefs())}) "
            f"or a folder holding one, got {belief!r}"
        ) from None
    return belief


def forced_values(only: int) -> tuple[int, np.ndarray, np.ndarray]:
    """``action_values`` where ``only`` is the one legal move: that move, not searched (its mean
    NaN), so that a labeller records the position without spending a search on it."""
    return only, np.array([only]), np.full(1, np.nan)


class SearchAgent(StatefulAgent):
    """What the search agents share: the variant's compiled hooks, scratch records, an own
    generator, the budget (``simulations`` per move, or ``milliseconds`` when given), and how
    simulated players move: the strategy with look-ahead ``effort``, a uniform legal action
    with probability ``epsilon``; ``rollout="planner"`` has them play the Mexican Train planner
    (:mod:`agents.planner`) instead of the heuristic. With ``belief`` (a shipped belief model's name, such as
    ``draw_2p``, or a folder: :mod:`agents.belief`) worlds are drawn in proportion to the model's
    probabilities of where the hidden tiles are (:meth:`Game.determinize_weighted`), computed
    once a move from the acting seat's observation; without, uniformly."""

    epsilon = 0.1
    refused_options: tuple[str, ...] = ()  # options a kind of search has no use for (the registry reads it too)

    def __init__(
        self,
        game: Game,
        seed: int | None = None,
        simulations: int = 1000,
        milliseconds: float | None = None,
        epsilon: float | None = None,
        effort: int = ROLLOUT_EFFORT,
        belief: str | None = None,
        rollout: str = "heuristic",
    ) -> None:
        if belief is not None and "belief" in self.refused_options:
            raise ValueError(f"{self.name}: sees every hand, so it takes no belief")
        checked = self.check_budget(simulations, milliseconds, epsilon, effort, belief, rollout)  # before any work
        if rollout == "planner":
            check_plans_here(f"{self.name}: rollout=planner", game)
        super().__init__(game)
        self.simulations = checked["simulations"]
        self.milliseconds = checked["milliseconds"]
        if checked["epsilon"] is not None:
            self.epsilon = checked["epsilon"]
        self.effort = checked["effort"]
        self.hooks = (*game.compiled, planner_policy if rollout == "planner" else heuristic_policy(game))
        self.belief = None
        weights = NO_WEIGHTS
        if belief is not None:
            from agents.belief import load_belief  # torch, only for an agent that uses it

            self.belief = load_belief(belief, game)
            weights = np.zeros((game.num_players + 1, game.num_tiles), np.float64)
        self.rng = np.zeros(1, RNG_DTYPE)
        self.rng[0]["rng"] = game_seed(0 if seed is None else seed, 0)
        self.mask = np.zeros(game.num_actions, np.int8)
        self.space = Workspace(
            rng=self.rng,
            world=game.new_state(1),
            work=game.new_state(1),
            scratch=game.new_state(SCRATCH_RECORDS),
            mask=self.mask,
            tried=np.zeros(game.num_actions, np.int8),
            weights=weights,
        )

    @classmethod
    def check_budget(
        cls,
        simulations: int = 1000,
        milliseconds: float | None = None,
        epsilon: float | None = None,
        effort: int = ROLLOUT_EFFORT,
        belief: str | None = None,
        rollout: str = "heuristic",
    ) -> dict:
        """The budget's options checked (a one-line ValueError names a bad one, its value and
        its range). ``simulations`` is checked even with ``milliseconds`` and is at least 1, and
        ``milliseconds`` is finite and at least 1: every search has a bound."""
        return {
            "simulations": bounded_int(cls.name, "simulations", simulations, 1, MAX_SIMULATIONS),
            "milliseconds": None
            if milliseconds is None
            else bounded_float(cls.name, "milliseconds", milliseconds, 1, MAX_MILLISECONDS),
            "epsilon": None if epsilon is None else bounded_float(cls.name, "epsilon", epsilon, 0, 1),
            "effort": bounded_int(cls.name, "effort", effort, 0, FULL_EFFORT),
            "belief": check_belief(cls.name, belief),
            "rollout": check_rollout(cls.name, rollout),
        }

    @classmethod
    def check_options(cls, **options) -> dict:
        """The constructor's options checked without a game: the registry checks an agent's spec
        with this before building it."""
        return cls.check_budget(**options)

    def simulator(self) -> Simulator:
        """The compiled loops' view of the variant and of ``effort`` and ``epsilon`` as they
        are now (built per move, so changing either attribute takes effect)."""
        return Simulator(*self.hooks, self.effort, self.epsilon, self.game.rules.determinize_weighted)

    def believe(self, state: np.ndarray, g: int) -> None:
        """With a belief model, set this move's world weights from the acting seat's own
        observation (all the model reads, so nothing hidden reaches it)."""
        if self.belief is not None:
            seat = self.game.current_seat(state, g)
            observation, _ = self.game.view(state, g, seat)
            self.space.weights[:] = self.belief.place_weights(observation, seat)

    def random_state(self) -> int:
        return int(self.rng[0]["rng"])

    def set_random_state(self, state: int) -> None:
        self.rng[0]["rng"] = state

    def reseed(self, seed: int) -> None:
        self.rng[0]["rng"] = game_seed(seed, 0)

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

    def act_state(self, state: np.ndarray, g: int) -> int:
        return self.action_values(state, g)[0]

    def action_values(self, state: np.ndarray, g: int) -> tuple[int, np.ndarray, np.ndarray]:
        """The move :meth:`act_state` plays in game ``g``, with the legal actions and the acting
        seat's mean result after each over the sampled worlds (what the search learned about the
        position, for fitting a policy to it: :mod:`training.action_values`). A forced move is
        not searched: its mean is NaN."""
        only = self.forced(state, g)
        if only is not None:
            return forced_values(only)
        legal = np.flatnonzero(self.mask)
        self.believe(state, g)
        totals = np.zeros(self.game.num_actions)
        counts = np.zeros(self.game.num_actions)
        sim = self.simulator()
        cfg = self.game.packed_config

        def search_chunk(simulations: int) -> None:
            pimc_search(sim, state, cfg, g, max(1, simulations // len(legal)), totals, counts, self.space)

        self.spend(search_chunk)
        means = np.where(counts > 0, totals / np.maximum(counts, 1), -np.inf)
        return int(np.argmax(means)), legal, means[legal]


class ISMCTSAgent(SearchAgent):
    """Single-observer information-set MCTS with ``simulations`` iterations per move (see the
    module docstring); plays the most visited legal action at the root."""

    name = "ismcts"
    sample = True

    def __init__(self, game: Game, seed: int | None = None, explore: float = 1.0, **budget) -> None:
        explore = bounded_float(self.name, "explore", explore, 0, MAX_EXPLORE)
        super().__init__(game, seed, **budget)
        self.explore = explore

    @classmethod
    def check_options(cls, explore: float = 1.0, **budget) -> dict:
        """The budget's options (:meth:`SearchAgent.check_options`) and ``explore``."""
        return cls.check_budget(**budget) | {"explore": bounded_float(cls.name, "explore", explore, 0, MAX_EXPLORE)}

    def act_state(self, state: np.ndarray, g: int) -> int:
        return self.action_values(state, g)[0]

    def action_values(self, state: np.ndarray, g: int) -> tuple[int, np.ndarray, np.ndarray]:
        """The move :meth:`act_state` plays in game ``g`` (the most visited root child), with
        the legal actions and the acting seat's mean result over the iterations that went through
        each: the value of the move followed by the tree's own improving play, where PIMC's is
        followed by the rollout strategy (for fitting a policy to it: :mod:`training.action_values`).
        A legal move the search never tried (a budget smaller than the moves) is -inf; a forced
        move is not searched: its mean is NaN."""
        only = self.forced(state, g)
        if only is not None:
            return forced_values(only)
        root_mask = self.mask.copy()  # the search overwrites the mask
        legal = np.flatnonzero(root_mask)
        seat = self.game.current_seat(state, g)
        self.believe(state, g)
        capacity = self.simulations + 1 if self.milliseconds is None else TIME_CAPACITY
        tree = Tree.empty(capacity)
        sim = self.simulator()
        cfg = self.game.packed_config

        def search_chunk(iterations: int) -> None:
            room = capacity - int(tree.size[0])
            iterations = min(iterations, max(room, 1))
            tree_search(sim, tree, state, cfg, g, iterations, self.sample, self.explore, self.space)

        self.spend(search_chunk)
        means = np.full(self.game.num_actions, -np.inf)
        best, most = -1, -1.0
        child = tree.first_child[0]
        while child != NO_NODE:
            action = int(tree.action[child])
            if tree.actor[child] == seat and root_mask[action]:
                if tree.visits[child] > 0:
                    means[action] = tree.value[child] / tree.visits[child]
                if tree.visits[child] > most:  # ties: the child added last
                    best, most = action, tree.visits[child]
            child = tree.sibling[child]
        return best, legal, means[legal]


class OracleAgent(ISMCTSAgent):
    """MCTS on the real game with every hand and the boneyard in view: not a fair player, the
    upper reference for the fair ones."""

    name = "oracle"
    sample = False
    refused_options = ("belief",)  # it sees every hand: there is nothing to believe
