"""A trained policy on top of determinized search: ``NAME+search``.

The policy alone answers in a forward pass and cannot look ahead; the search agents look ahead
with the heuristic playing every simulated seat. :class:`PolicySearchAgent` does both: it
samples worlds the acting seat cannot tell from the real game (:meth:`Game.determinize`, so it
never reads a hidden tile), tries every legal action in every world, and plays each world out to
the end of the episode with the trained policy choosing every seat's moves (its most likely
legal action). The action with the best mean result for the actor is played; ties go to the
policy's own preference. This is PIMC with the learned policy as its rollout player, all
rollouts of a move stepped together by the batched engine and the network.

    python -m arena evaluate draw_2p+search:simulations=1024 heuristic --against heuristic
"""

from __future__ import annotations

import numpy as np
import torch

from agents.base import Agent, StatefulAgent
from agents.belief import load_belief
from agents.endgame import check_solvable, new_solver, solve_worlds
from agents.guided_tree import GuidedTreeAgent
from agents.network import PolicyNetwork, masked_logits
from agents.options import bounded_float, is_bounded_int
from agents.registry import parse_options
from agents.search import MAX_EXPLORE, check_belief, forced_values
from domino_env.game import Game
from domino_env.rng import game_seed

SUFFIX = "+search"
DEFAULT_SIMULATIONS = 256
# Every rollout of a move is stepped at once: each holds a game record, an observation, a mask and
# the network's activations (some 8 KB on Mexican Train), so 16,384 rollouts take about 130 MB.
MAX_SIMULATIONS = 16_384
MAX_MARGIN = 10.0  # standard errors; beyond a few the policy is never overruled
MAX_HORIZON = 64  # the actor's own turns; no hand lasts that long
MAX_SOLVE = 64  # tiles in hands; more than any two-player hand holds


def split_spec(spec: str) -> tuple[str, dict[str, int | str]] | None:
    """``("draw_2p", {"simulations": 1024})`` from ``"draw_2p+search:simulations=1024"``, or
    ``None`` when ``spec`` does not name a policy with search. ``belief=NAME`` draws the worlds
    from a belief model (:class:`PolicySearchAgent`)."""
    name, _, rest = spec.partition(":")
    if not name.endswith(SUFFIX):
        return None
    options = parse_options(spec, rest)
    unknown = set(options) - {"simulations", "belief", "margin", "horizon", "solve", "tree", "explore"}
    if unknown:
        raise ValueError(
            f"{spec!r}: a policy with search takes only simulations=N, belief=NAME (a belief model "
            f"to draw worlds from), margin=Z (how sure search must be to overrule the policy), "
            f"horizon=H (the actor's turns before the value head scores a rollout), solve=N "
            f"(endings of at most N tiles in hands solved exactly), tree=1 (an ISMCTS tree guided by "
            f"the policy's prior) and explore=C (that tree's exploration), not {sorted(unknown)}"
        )
    return name.removesuffix(SUFFIX), options


class PolicySearchAgent(StatefulAgent):
    """PIMC with ``network`` as the rollout player of every seat (see the module docstring):
    about ``simulations`` rollouts per move, spread as ``simulations // legal`` sampled worlds
    per legal action, each action meeting the same worlds. With ``belief`` (a shipped belief
    model's name or a folder, :mod:`agents.belief`) the worlds are drawn in proportion to its
    probabilities of where the hidden tiles are (:meth:`Game.determinize_weighted`) instead of
    uniformly.

    ``margin`` is how sure search must be before it overrules the policy, in standard errors of
    the paired difference over the shared worlds. A few hundred rollouts leave each move's mean
    uncertain by several hundredths, while the best moves of a position often differ by less;
    picking the largest mean then swaps the policy's choice for noise about as often as for a
    better move. With ``margin=Z`` a move replaces the policy's favourite only when its mean
    result beats the favourite's by more than ``Z`` standard errors of their difference (the
    same worlds meet both, so the difference is measured with less noise than either mean).
    ``margin=0`` (the default) plays the best mean, ties going to the policy.

    ``horizon=H`` stops each rollout when the actor is to move for the ``H``-th time after the
    searched move and adds the value head's estimate of what the actor wins from there (its
    observation then is one the value head was trained on). What happens after that point, the
    later draws and hidden tiles, is averaged by the value head instead of sampled once per
    world, so the means are less noisy and each rollout is shorter; the price is the value
    head's error. ``horizon=0`` (the default) plays every rollout to the end. Only a network
    whose value head reads the observation alone can do this (not a privileged critic).

    ``solve=N`` plays endings exactly (:mod:`agents.endgame`, two-player Draw and Block): once no
    tile can be drawn any more and the hands hold at most ``N`` tiles together (both are in the
    acting seat's observation), each legal action is scored in each sampled world by minimax to
    the end of the hand instead of by a rollout. When every unseen tile is the opponent's (Draw
    with the boneyard spent) all worlds are the real position, so one is solved and the move is
    the best one. ``solve=0`` (the default) rolls out every position.

    ``tree=1`` searches differently: one information-set tree over ``simulations`` iterations,
    each node's children weighted by the policy's probabilities and explored by PUCT with constant
    ``explore`` (:mod:`agents.guided_tree`), the rest of each hand simulated by the heuristic. The
    rollouts' options (``margin``, ``horizon``, ``solve``) do not apply to it.

    ``rollout_network``, when given, stands in for ``network`` wherever search asks a network
    many times: it plays the rollouts, scores their horizon and guides the tree, while
    ``network`` still gives the prior at the root (ties, ``margin``). A policy fitted as a slow
    network over a fast one (an attention student over its PPO policy, ``improve.student_trunk``)
    is searched at the fast one's speed this way: the rollouts cost a forward pass a step."""

    def __init__(
        self,
        game: Game,
        network: PolicyNetwork,
        name: str = "policy" + SUFFIX,
        simulations: int = DEFAULT_SIMULATIONS,
        seed: int | None = None,
        belief: str | None = None,
        margin: float = 0.0,
        horizon: int = 0,
        solve: int = 0,
        tree: int = 0,
        explore: float = 1.0,
        rollout_network: PolicyNetwork | None = None,
    ) -> None:
        check_belief(name, belief)
        rollout = network if rollout_network is None else rollout_network
        if tree not in (0, 1) or isinstance(tree, bool | float):
            raise ValueError(
                f"{name}: tree must be 0 (rollouts of the policy) or 1 (a tree guided by it), got {tree!r}"
            )
        explore = bounded_float(name, "explore", explore, 0.0, MAX_EXPLORE)
        if tree and (margin or horizon or solve):
            raise ValueError(f"{name}: tree=1 takes no margin, horizon or solve: they set the rollouts' search")
        if not is_bounded_int(solve, 0, MAX_SOLVE):
            raise ValueError(f"{name}: solve must be an integer from 0 to {MAX_SOLVE} (tiles in hands), got {solve!r}")
        if solve:
            check_solvable(name, game)
        self.margin = bounded_float(name, "margin", margin, 0.0, MAX_MARGIN)
        if not is_bounded_int(horizon, 0, MAX_HORIZON):
            raise ValueError(f"{name}: horizon must be an integer from 0 to {MAX_HORIZON}, got {horizon!r}")
        if horizon and rollout.critic_inputs:
            raise ValueError(f"{name}: horizon=H needs a value head that reads the observation alone; "
                             f"this network's critic reads the hidden tiles")  # fmt: skip
        self.horizon = int(horizon)
        if not is_bounded_int(simulations, 1, MAX_SIMULATIONS):  # before any work
            raise ValueError(
                f"{name}: simulations must be a positive integer, got {simulations!r}; "
                f"the range is 1 to {MAX_SIMULATIONS}"
            )
        super().__init__(game)
        self.network = network
        self.rollout_network = rollout
        self.name = name
        self.simulations = int(simulations)
        self.seed = 0 if seed is None else seed
        self.searches = 0  # moves searched so far: each move's worlds come from its own stream
        self.mask = np.zeros(game.num_actions, np.int8)
        self.belief = None if belief is None else load_belief(belief, game)
        self.solve = int(solve)
        self.solver = new_solver(game) if solve else None
        self.tree = None
        if tree:
            self.tree = GuidedTreeAgent(
                game, rollout, seed, simulations=self.simulations, explore=explore, belief=belief
            )

    def random_state(self) -> int:
        return self.searches if self.tree is None else self.tree.random_state()

    def set_random_state(self, state: int) -> None:
        if self.tree is None:
            self.searches = int(state)
        else:
            self.tree.set_random_state(state)

    def reseed(self, seed: int) -> None:
        self.seed = seed
        self.searches = 0
        if self.tree is not None:
            self.tree.reseed(seed)

    def act_state(self, state: np.ndarray, g: int) -> int:
        return self.action_values(state, g)[0]

    def action_values(self, state: np.ndarray, g: int) -> tuple[int, np.ndarray, np.ndarray]:
        """The move :meth:`act_state` plays in game ``g`` (the same one, drawing the same worlds),
        with the legal actions and the acting seat's mean result after each over the sampled
        worlds: what search learned about the position, for distilling it into a policy
        (training/distill.py). A forced move is not searched: its mean is NaN. With ``tree=1``
        the means are the root's children's (NaN for a move the tree never tried)."""
        if self.tree is not None:
            return self.tree.search(state, g)
        game = self.game
        game.legal_mask(state, g, self.mask)
        legal = np.flatnonzero(self.mask)
        if len(legal) == 1:
            return forced_values(int(legal[0]))
        seat = game.current_seat(state, g)
        worlds = game.new_state(max(1, self.simulations // len(legal)))
        move_seed = int(game_seed(self.seed, self.searches))
        observation, _ = game.view(state, g, seat)
        weights = None if self.belief is None else self.belief.place_weights(observation, seat)
        for w in range(len(worlds)):
            worlds[w]["rng"] = game_seed(move_seed, w)
        game.determinize_worlds(state, g, seat, worlds, weights)
        self.searches += 1
        results = self.solved(state, g, worlds, legal, seat) if self.solvable(state, g) else None
        if results is None:
            results = self.play_out(np.tile(worlds, len(legal)), np.repeat(legal, len(worlds)), seat)
            results = results.reshape(len(legal), len(worlds))
        means = results.mean(1)
        with torch.no_grad():
            prior = self.network.logits(torch.as_tensor(observation[None]))[0, legal].numpy()
        return int(legal[self.choose(results, means, prior)]), legal, means

    def solvable(self, state: np.ndarray, g: int) -> bool:
        """Whether ``solve=N`` applies: no tile can be drawn any more and the hands hold at most
        ``N`` tiles together (the boneyard's and the hands' sizes, which every seat sees)."""
        game = self.game
        if not self.solve or game.rules.drawable(state, game.packed_config, g) > 0:
            return False
        return int(state[g]["hand_count"].sum()) <= self.solve

    def solved(self, state: np.ndarray, g: int, worlds: np.ndarray, legal: np.ndarray, seat: int) -> np.ndarray | None:
        """``seat``'s result of each legal action in each world under best play by both seats
        (``[legal, worlds]``), or None when an ending is too large to solve. When no unseen tile
        lies outside the opponent's hand every world is the same, and only the first is solved."""
        game, rules = self.game, self.game.rules
        record = state[g]
        solved = len(worlds) if record["boneyard_size"] > record["boneyard_top"] else 1  # tiles set aside
        results = np.empty((len(legal), solved))
        solve_worlds(
            rules.step, rules.legal_mask, worlds, game.packed_config, legal.astype(np.int64), seat,
            game.num_tiles, self.solver, results,
        )  # fmt: skip
        return None if np.isnan(results).any() else results

    def choose(self, results: np.ndarray, means: np.ndarray, prior: np.ndarray) -> int:
        """The index of the move to play: the policy's favourite unless another move's results over
        the same worlds beat it by more than ``margin`` standard errors of the difference; among
        those, the best mean, ties going to the policy's preference."""
        favourite = int(np.argmax(prior))
        difference = results - results[favourite]
        spread = difference.std(1, ddof=1) if results.shape[1] > 1 else np.zeros(len(means))
        sure = difference.mean(1) > self.margin * spread / np.sqrt(results.shape[1])
        sure[favourite] = True
        order = np.lexsort((-prior, -means))
        return int(order[sure[order]][0])

    def play_out(self, rows: np.ndarray, first: np.ndarray, seat: int) -> np.ndarray:
        """``seat``'s episode reward in each game of ``rows`` after it plays ``first`` there and
        the policy plays every seat's moves from then on; with a ``horizon``, its reward until its
        ``horizon``-th turn plus the value head's estimate of the rest."""
        return policy_rollouts(self.game, self.rollout_network, rows, first, np.full(len(rows), seat), self.horizon)


@torch.no_grad()
def policy_rollouts(
    game: Game,
    network: PolicyNetwork,
    rows: np.ndarray,
    first: np.ndarray,
    seats: np.ndarray,
    horizon: int = 0,
    opponent: Agent | None = None,
) -> np.ndarray:
    """``seats[i]``'s episode reward in game ``rows[i]`` after ``first[i]`` is played there and
    ``network`` plays every seat's moves from then on (its most likely legal action), every game
    stepped together by the batched engine and one forward pass a step. With an ``opponent``,
    that agent plays every seat but ``seats[i]`` and its partner's instead (asked through
    ``act_states``, all its games at once), as a table of it sits in evaluation. With a
    ``horizon``, the reward until that seat's ``horizon``-th turn plus the value head's estimate
    of the rest. ``rows`` is played in place."""
    size, players = len(rows), game.num_players
    obs = np.empty((size, game.observation_size), np.float32)
    mask = np.empty((size, game.num_actions), np.int8)
    acting = np.empty(size, np.int64)
    rewards = np.empty((size, players), np.float32)
    done = np.empty(size, np.bool_)
    hand_over = np.empty(size, np.bool_)
    hand_points = np.empty((size, players), np.int32)
    result = np.zeros(size)
    turns = np.zeros(size, np.int64)  # each seat's turns reached since the searched move
    live = np.arange(size)
    actions = first.astype(np.int64)
    while True:
        n = len(live)
        outputs = (obs[:n], mask[:n], acting[:n], rewards[:n], done[:n], hand_over[:n], hand_points[:n])
        game.batch_step(rows, actions, *outputs, threads=False)  # one thread: one heavy job per core
        result[live] += rewards[np.arange(n), seats[live]]
        going = ~done[:n]
        if horizon:  # a rollout at the seat's horizon-th turn ends with the value head's estimate
            turns[live] += going & (acting[:n] == seats[live])
            scored = going & (turns[live] >= horizon)
            if scored.any():
                _, value = network(torch.as_tensor(obs[:n][scored]))
                result[live[scored]] += value.numpy()
                going &= ~scored
        if not going.any():
            return result
        live, rows = live[going], rows[going]  # a finished game restarts in place: drop it
        views, legal = obs[:n][going], mask[:n][going]
        if opponent is None:
            logits = network.logits(torch.as_tensor(views))
            actions = masked_logits(logits, torch.as_tensor(legal)).argmax(-1).numpy()
            continue
        mine = acting[:n][going] % game.num_sides == seats[live] % game.num_sides
        actions = np.empty(len(live), np.int64)
        if mine.any():
            logits = network.logits(torch.as_tensor(views[mine]))
            actions[mine] = masked_logits(logits, torch.as_tensor(legal[mine])).argmax(-1).numpy()
        if not mine.all():
            actions[~mine] = opponent.act_states(game, rows, np.flatnonzero(~mine))
