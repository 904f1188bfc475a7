"""The policy-guided ISMCTS of ``NAME+search:tree=1``: its compiled prior is the network's, it
plays legal moves repeatably, its tree follows the prior, and its options are checked. That it
reads no hidden tile is checked with the rollouts' search in tests/test_policy_search.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.guided_tree import compiled_weights, policy_prior
from agents.network import masked_distribution, network_for
from agents.policy_search import PolicySearchAgent
from arena.cli import UsageError, load_policy
from domino_env import make_game
from tests.test_compiled_afterstate import LINE_GAMES, PARTNERS
from tests.test_policy_search import VARIANTS, positions, untrained

HEADS = [
    *[(variant, options, head) for variant, options in [*VARIANTS, ("draw", PARTNERS)] for head in ("flat", "tiles")],
    *[(variant, options, "afterstate") for variant, options in LINE_GAMES],
]
# an attention trunk's layers have one width (agents.tile_attention)
TRUNKS = [("mlp", [32, 16]), ("attention", [16, 16])]


@pytest.mark.parametrize(("trunk", "hidden_sizes"), TRUNKS)
@pytest.mark.parametrize(("variant", "options", "action_head"), HEADS)
def test_the_compiled_prior_is_the_networks_masked_softmax(
    variant: str, options: dict, action_head: str, trunk: str, hidden_sizes: list[int]
) -> None:
    game = make_game(variant, **options)
    torch.manual_seed(1)
    network = network_for(game, hidden_sizes, action_head=action_head, trunk=trunk)
    for parameter in network.parameters():  # the extra heads start near zero: make them count
        torch.nn.init.normal_(parameter, std=0.3)
    weights = compiled_weights(network)
    # positions from the lead to the hand's end, so that every kind of play the head scores comes up
    state = positions(game, 40, seed=4)
    probs = np.zeros(game.num_actions, np.float32)
    for g in range(len(state)):
        observation, mask = game.view(state, g, game.current_seat(state, g))
        policy_prior(weights, observation, mask, probs)
        with torch.no_grad():
            expected = masked_distribution(
                network.logits(torch.as_tensor(observation[None])), torch.as_tensor(mask[None])
            )
        np.testing.assert_allclose(probs, expected.probs[0].numpy(), atol=2e-6)
        assert probs[mask == 0].sum() == 0.0


@pytest.mark.parametrize(("variant", "options"), VARIANTS)
def test_it_plays_a_legal_move_and_the_same_one_from_a_restored_random_state(variant: str, options: dict) -> None:
    game = make_game(variant, **options)
    agent = PolicySearchAgent(game, untrained(game), simulations=40, seed=3, tree=1)
    state = positions(game, 6, seed=1)
    mask = np.zeros(game.num_actions, np.int8)
    for g in range(len(state)):
        saved = agent.random_state()
        action, legal, means = agent.action_values(state, g)
        game.legal_mask(state, g, mask)
        assert mask[action] and np.array_equal(legal, np.flatnonzero(mask))
        assert np.isfinite(means).any() and (np.abs(means[np.isfinite(means)]) <= 1.0 + 1e-9).all()
        agent.set_random_state(saved)
        assert agent.act_state(state, g) == action
    before = state.copy()
    agent.act_states(game, state, np.arange(len(state)))
    assert (state == before).all()  # searching never moves the real game


def test_the_first_move_the_tree_tries_is_the_policys_favourite() -> None:
    """Every child starts at its visited siblings' mean (zero at first), so the first iteration
    follows the largest prior: after one iteration the tree plays the policy's most likely move,
    while with one iteration and no prior bonus (``explore=0``) the order of the children decides."""
    game = make_game("draw", num_players=2)
    network = untrained(game, seed=2)
    state = positions(game, 12, seed=6)
    differs = 0
    for g in range(len(state)):
        observation, mask = game.view(state, g, game.current_seat(state, g))
        with torch.no_grad():
            logits = network.logits(torch.as_tensor(observation[None]))
            favourite = int(masked_distribution(logits, torch.as_tensor(mask[None])).probs.argmax())
        guided = PolicySearchAgent(game, network, simulations=1, seed=g, tree=1)
        _, legal, means = guided.action_values(state, g)
        assert guided.act_state(state, g) == favourite
        assert np.isfinite(means).sum() == 1 and np.isfinite(means[legal == favourite]).all()
        differs += (
            PolicySearchAgent(game, network, simulations=1, seed=g, tree=1, explore=0.0).act_state(state, g)
            != favourite
        )
    assert differs > 0


def test_the_tree_options_are_checked() -> None:
    game = make_game("draw", num_players=2)
    network = untrained(game)
    for bad in (2, -1, 1.0, True, "1"):
        with pytest.raises(ValueError, match=r"tree must be 0 .* or 1 .*, got "):
            PolicySearchAgent(game, network, tree=bad)
    for bad in (-0.1, 101, float("nan"), "1"):
        with pytest.raises(ValueError, match="explore must be"):
            PolicySearchAgent(game, network, tree=1, explore=bad)
    for clash in ({"margin": 1.0}, {"horizon": 2}, {"solve": 10}):
        with pytest.raises(ValueError, match="tree=1 takes no margin, horizon or solve"):
            PolicySearchAgent(game, network, tree=1, **clash)
    agent = load_policy("draw_2p+search:tree=1,explore=2,simulations=16", game, seed=1)
    assert agent.tree is not None and agent.tree.explore == 2.0 and agent.tree.simulations == 16
    with pytest.raises(UsageError, match="tree must be 0"):
        load_policy("draw_2p+search:tree=3", game, seed=1)


def test_the_shipped_partnership_searches_its_tree_with_its_afterstate_head() -> None:
    """``draw_4p_partners`` ships with the line games' afterstate head: its tree's prior is that
    network's policy, and it plays legal moves from restored random states alike."""
    game = make_game("draw", **PARTNERS)
    agent = load_policy("draw_4p_partners+search:tree=1,simulations=24", game, seed=1)
    assert agent.network.action_head == "afterstate" and agent.tree.weights.line.plays.size > 0
    state = positions(game, 6, seed=8)
    probs = np.zeros(game.num_actions, np.float32)
    for g in range(len(state)):
        observation, mask = game.view(state, g, game.current_seat(state, g))
        policy_prior(agent.tree.weights, observation, mask, probs)
        with torch.no_grad():
            logits = agent.network.logits(torch.as_tensor(observation[None]))
            expected = masked_distribution(logits, torch.as_tensor(mask[None])).probs[0].numpy()
        np.testing.assert_allclose(probs, expected, atol=2e-6)
        saved = agent.random_state()
        action = agent.act_state(state, g)
        assert mask[action]
        agent.set_random_state(saved)
        assert agent.act_state(state, g) == action
