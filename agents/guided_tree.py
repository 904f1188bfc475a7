"""Information-set MCTS guided by a trained policy's prior: the tree of ``NAME+search:tree=1``.

ISMCTS (:mod:`agents.search`) grows one tree over the acting seat's information sets, sampling
a new world every iteration and choosing among the actions legal there by UCB. Every untried
action is as good as any other to UCB, so its tree spends most of a small budget trying moves a
good player would never make, at the opponents' nodes as much as at its own, and it models every
opponent as a player who sees the sampled world. Here each node's children carry the policy's
probability of their action (PUCT, as in AlphaZero): a child is followed for its mean result plus
``explore * prior * sqrt(available) / (1 + visits)``, where ``available`` counts the iterations
in which its action was legal (ISMCTS's correction for actions that exist in some worlds only).
The visits go where the policy looks, and at an opponent's node the prior is the policy's play
from that opponent's own observation in the sampled world: the opponent is modelled as the
trained player, who cannot see the searching seat's tiles.

The prior is the network's forward pass compiled here with the search loop (:class:`Weights`
holds its layers as arrays), so an iteration costs one forward pass when it reaches a node with
untried actions and none otherwise: the children of every untried legal action are added at once,
each with its prior. The first iteration through a new child simulates the rest of the hand with
the variant's heuristic, as ISMCTS does; the most visited legal action at the root is played.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch
from numba import njit

from agents.compiled_afterstate import LineHead, add_line_scores, compiled_line_head, dense, no_line_head
from agents.compiled_attention import AttentionWeights, add_play_scores, attend, compiled_attention, no_attention
from agents.network import PolicyNetwork
from agents.search import (
    NO_NODE,
    TIME_CAPACITY,
    ISMCTSAgent,
    Tree,
    backpropagate,
    finish_hand,
    forced_values,
    mark_children,
    play_out,
    sample_world,
)
from domino_env.game import Game
from domino_env.games.core import PLAYING
from domino_env.rng import next_u64

# Every node adds children for all of its untried legal actions at once, so a tree holds more
# nodes than iterations: room for this many per iteration (the rest are simulated from where the
# descent stops, as in a full ISMCTS tree).
NODES_PER_ITERATION = 8


class Weights(NamedTuple):
    """A :class:`~agents.network.PolicyNetwork`'s policy as arrays a compiled loop can read:
    the MLP trunk's layers (``trunk_w[i]`` is ``[inputs, outputs]``, so a row is one input's
    contribution) or the attention trunk with its play scores (``attention``), the policy head,
    the tile scores' layer with what it multiplies (``features[tile]``, and for each play its
    action, tile and target), and the line games' afterstate head (``line``). A network without
    one of these has empty arrays there (an attention network's MLP trunk is one empty layer, so
    that both kinds of network have the same types)."""

    trunk_w: tuple
    trunk_b: tuple
    head_w: np.ndarray
    head_b: np.ndarray
    tile_w: np.ndarray
    tile_b: np.ndarray
    features: np.ndarray
    plays: np.ndarray
    play_tile: np.ndarray
    play_target: np.ndarray
    line: LineHead
    attention: AttentionWeights


def compiled_weights(network: PolicyNetwork) -> Weights:
    """``network``'s policy (trunk and heads, not the critic) copied out of torch as float32.
    Of the afterstate heads only the line games' is compiled (:mod:`agents.compiled_afterstate`):
    another is refused in one line. Either trunk is compiled, the attention one by
    :mod:`agents.compiled_attention`."""
    line = no_line_head() if network.afterstate is None else compiled_line_head(network.afterstate)

    def rows(layer: torch.nn.Linear) -> tuple[np.ndarray, np.ndarray]:
        weight = layer.weight.detach().cpu().float().numpy()
        return np.ascontiguousarray(weight.T), layer.bias.detach().cpu().float().numpy().copy()

    if network.play_scores is None:
        trunk = [rows(layer) for layer in network.trunk if isinstance(layer, torch.nn.Linear)]
        attention = no_attention()
    else:
        trunk = [(np.zeros((0, 0), np.float32), np.zeros(0, np.float32))]
        attention = compiled_attention(network.trunk, network.play_scores)
    head_w, head_b = rows(network.policy_head)
    scores = network.tile_scores
    if scores is None:
        tile_w, tile_b = np.zeros((head_w.shape[0], 0), np.float32), np.zeros(0, np.float32)
        features, plays = np.zeros((0, 1), np.float32), np.zeros(0, np.int64)
        play_tile, play_target = plays, plays
    else:
        tile_w, tile_b = rows(scores.weights)
        features = scores.features.cpu().numpy().astype(np.float32)
        plays, play_tile = scores.plays.cpu().numpy(), scores.play_tile.cpu().numpy()
        play_target = scores.play_target.cpu().numpy()
    return Weights(
        tuple(w for w, _ in trunk), tuple(b for _, b in trunk), head_w, head_b, tile_w, tile_b,
        features, plays.astype(np.int64), play_tile.astype(np.int64), play_target.astype(np.int64), line,
        attention,
    )  # fmt: skip


@njit(cache=True)
def policy_prior(net, observation, mask, probs):
    """Write into ``probs`` the network's probability of each action ``mask`` allows (zero
    elsewhere): :meth:`PolicyNetwork.logits` and the masked softmax, in float32 as torch computes
    them."""
    attention = net.attention.embedding.shape[0] > 0
    if attention:
        encoded = attend(net.attention, observation)
        hidden = encoded[0].copy()
    else:
        encoded = np.zeros((1, 0), np.float32)
        hidden = observation
        for layer in range(len(net.trunk_w)):
            hidden = dense(hidden, net.trunk_w[layer], net.trunk_b[layer], True)
    logits = dense(hidden, net.head_w, net.head_b, False)
    if attention:
        add_play_scores(net.attention, encoded, mask, logits)
    if net.plays.shape[0] > 0:
        targets = dense(hidden, net.tile_w, net.tile_b, False)
        width = net.features.shape[1]
        for p in range(net.plays.shape[0]):
            row = net.features[net.play_tile[p]]
            base = net.play_target[p] * width
            score = np.float32(0.0)
            for k in range(width):
                score += targets[base + k] * row[k]
            logits[net.plays[p]] += score
    if net.line.plays.shape[0] > 0:
        add_line_scores(net.line, observation, hidden, logits)
    top = -np.inf
    for a in range(mask.shape[0]):
        if mask[a] and logits[a] > top:
            top = logits[a]
    total = 0.0
    for a in range(mask.shape[0]):
        probs[a] = np.exp(logits[a] - top) if mask[a] else 0.0
        total += probs[a]
    for a in range(mask.shape[0]):
        probs[a] /= total


class Guide(NamedTuple):
    """What the guided tree adds to a search's workspace: the variant's ``observe``, the
    network's :class:`Weights`, each node's ``prior``, and buffers for one observation and one
    distribution."""

    observe: object
    net: Weights
    prior: np.ndarray
    observation: np.ndarray
    probs: np.ndarray


@njit
def guided_search(sim, guide, tree, state, cfg, g, iterations, explore, space):
    """Run ``iterations`` of policy-guided ISMCTS from game ``g``'s acting seat, growing ``tree``:
    each from a fresh world, descending and growing it (``guided_descend``), then crediting the
    result to the nodes it went through."""
    observer = state[g].current
    work, rng = space.work, space.rng
    for _ in range(iterations):
        work[0].rng = next_u64(rng, 0)
        sample_world(sim, state, cfg, g, observer, work, space)
        depth = guided_descend(sim, guide, tree, cfg, explore, space)
        backpropagate(tree, depth, work)


@njit
def guided_descend(sim, guide, tree, cfg, explore, space):
    """One iteration on the world in ``space.work``: at each node add children for the legal
    actions that have none (``add_children``), follow the best by PUCT (``puct_select``), and
    after the first visit to a child simulate the rest of the hand. When the tree is full, the
    hand is simulated from where the descent stopped. Returns the nodes of ``tree.path`` used."""
    work, mask = space.work, space.mask
    node = 0
    depth = 0
    while True:
        legal = sim.legal_mask(work, cfg, 0, mask)
        seat = work[0].current
        untried = legal - mark_children(tree, node, seat, space)
        if untried > 0 and not add_children(guide, tree, node, seat, legal, untried, cfg, space):
            play_out(sim, work, cfg, 0, mask, space.scratch)
            return depth
        best = puct_select(guide, tree, node, seat, explore, space)
        tree.path[depth] = best
        depth += 1
        if tree.visits[best] == 0.0:
            finish_hand(sim, work, cfg, tree.action[best], space)
            return depth
        node = best
        if sim.step(work, cfg, 0, tree.action[best]) != PLAYING:
            return depth


@njit
def add_children(guide, tree, node, seat, legal, untried, cfg, space):
    """Give ``node`` a child for each of ``seat``'s ``legal`` actions without one (``untried``
    of them), each with the policy's probability of it from ``seat``'s observation of this world
    (one forward pass; a forced move needs none). Returns False, adding nothing, when the tree
    has no room."""
    if tree.size[0] + untried > tree.first_child.shape[0]:
        return False
    mask, tried, probs = space.mask, space.tried, guide.probs
    if legal > 1:
        guide.observe(space.work, cfg, 0, seat, guide.observation)
        policy_prior(guide.net, guide.observation, mask, probs)
    for action in range(mask.shape[0]):
        if mask[action] and not tried[action]:
            child = tree.size[0]
            tree.size[0] += 1
            tree.action[child] = action
            tree.actor[child] = seat
            tree.available[child] = 1.0
            guide.prior[child] = probs[action] if legal > 1 else 1.0
            tree.sibling[child] = tree.first_child[node]
            tree.first_child[node] = child
    return True


@njit
def puct_select(guide, tree, node, seat, explore, space):
    """The child of ``node`` to follow among ``seat``'s legal actions: the highest mean result
    plus ``explore * prior * sqrt(available) / (1 + visits)``. A child not yet visited is valued
    at the visit-weighted mean of its visited siblings (zero when none is), so a strong prior
    is tried before a weak one and a move found good keeps its visits."""
    mask = space.mask
    value_sum, visit_sum = 0.0, 0.0
    child = tree.first_child[node]
    while child != NO_NODE:
        if tree.actor[child] == seat and mask[tree.action[child]]:
            value_sum += tree.value[child]
            visit_sum += tree.visits[child]
        child = tree.sibling[child]
    unvisited = value_sum / visit_sum if visit_sum > 0.0 else 0.0
    best = NO_NODE
    best_score = -np.inf
    child = tree.first_child[node]
    while child != NO_NODE:
        if tree.actor[child] == seat and mask[tree.action[child]]:
            visits = tree.visits[child]
            mean = tree.value[child] / visits if visits > 0.0 else unvisited
            score = mean + explore * guide.prior[child] * np.sqrt(tree.available[child]) / (1.0 + visits)
            if score > best_score:
                best, best_score = child, score
        child = tree.sibling[child]
    return best


class GuidedTreeAgent(ISMCTSAgent):
    """ISMCTS whose tree follows ``network``'s prior (see the module docstring): ``simulations``
    iterations a move, exploration constant ``explore``; plays the most visited legal action."""

    name = "guided-ismcts"

    def __init__(
        self, game: Game, network: PolicyNetwork, seed: int | None = None, explore: float = 1.0, **budget
    ) -> None:
        super().__init__(game, seed, explore=explore, **budget)
        self.weights = compiled_weights(network)

    def act_state(self, state: np.ndarray, g: int) -> int:
        return self.search(state, g)[0]

    def search(self, state: np.ndarray, g: int) -> tuple[int, np.ndarray, np.ndarray]:
        """The move to play in game ``g``, the legal actions, and the acting seat's mean result
        after each at the root (NaN where the tree never tried it; a forced move is not searched)."""
        only = self.forced(state, g)
        if only is not None:
            return forced_values(only)
        legal = np.flatnonzero(self.mask)
        seat = self.game.current_seat(state, g)
        self.believe(state, g)
        capacity = self.simulations * NODES_PER_ITERATION + 1
        if self.milliseconds is not None:
            capacity = TIME_CAPACITY * NODES_PER_ITERATION
        tree = Tree.empty(capacity)
        guide = Guide(
            self.game.rules.observe, self.weights, np.zeros(capacity, np.float32),
            np.zeros(self.game.observation_size, np.float32), np.zeros(self.game.num_actions, np.float32),
        )  # fmt: skip
        sim = self.simulator()
        cfg = self.game.packed_config

        def search_chunk(iterations: int) -> None:
            guided_search(sim, guide, tree, state, cfg, g, iterations, self.explore, self.space)

        self.spend(search_chunk)
        visits = np.zeros(self.game.num_actions)
        values = np.zeros(self.game.num_actions)
        child = tree.first_child[0]
        while child != NO_NODE:
            if tree.actor[child] == seat:
                visits[tree.action[child]] = tree.visits[child]
                values[tree.action[child]] = tree.value[child]
            child = tree.sibling[child]
        means = np.where(visits[legal] > 0, values[legal] / np.maximum(visits[legal], 1), np.nan)
        return int(legal[np.argmax(visits[legal])]), legal, means
