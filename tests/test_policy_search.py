"""A trained policy on top of determinized search (``NAME+search``): legal, repeatable, blind to
hidden tiles, stronger than its policy alone, and reachable from the command line."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.network import PolicyNetwork
from agents.policy import PolicyAgent
from agents.policy_search import PolicySearchAgent
from agents.tournament import rotated_match
from arena.cli import UsageError, load_policy
from domino_env import make_game
from domino_env.game import Game

VARIANTS = [("draw", {"num_players": 2}), ("hungarian", {"num_players": 3}), ("mexican_train", {"num_players": 2})]


def untrained(game: Game, seed: int = 0) -> PolicyNetwork:
    torch.manual_seed(seed)
    return PolicyNetwork(game.observation_size, game.num_actions, [16])


def positions(game: Game, count: int, seed: int) -> np.ndarray:
    """``count`` games a few random moves in, each with a choice to make."""
    state = game.new_state(count)
    mask = np.zeros(game.num_actions, np.int8)
    rng = np.random.default_rng(seed)
    for g in range(count):
        while True:
            game.seed(state, g, seed, stream=int(rng.integers(1 << 30)))
            game.start(state, g)
            for _ in range(int(rng.integers(0, 6))):
                game.legal_mask(state, g, mask)
                game.step(state, g, int(rng.choice(np.flatnonzero(mask))))
                if game.is_over(state, g):
                    break
            if not game.is_over(state, g) and game.legal_mask(state, g, mask) > 1:
                break
    return state


@pytest.mark.parametrize(("variant", "options"), VARIANTS)
def test_it_plays_a_legal_move_and_the_same_one_from_a_restored_random_state(variant: str, options: dict) -> None:
    game = make_game(variant, **options)
    agent = PolicySearchAgent(game, untrained(game), simulations=12, seed=3)
    state = positions(game, 6, seed=1)
    mask = np.zeros(game.num_actions, np.int8)
    for g in range(len(state)):
        saved = agent.random_state()
        action = agent.act_state(state, g)
        game.legal_mask(state, g, mask)
        assert mask[action]
        agent.set_random_state(saved)
        assert agent.act_state(state, g) == action
    before = state.copy()
    agent.act_states(game, state, np.arange(len(state)))
    assert (state == before).all()  # searching never moves the real game


@pytest.mark.parametrize("tree", [0, 1])
def test_its_choice_does_not_depend_on_tiles_the_actor_cannot_see(tree: int) -> None:
    """Two games that differ only in the hidden tiles (the real one and a world sampled from the
    actor's seat) get the same move and the same values, with rollouts and with the guided tree:
    the search only ever plays on worlds it samples itself."""
    game = make_game("draw", num_players=2)
    network = untrained(game)
    state = positions(game, 20, seed=2)
    other = game.new_state(len(state))
    for g in range(len(state)):
        other[g]["rng"] = 1000 + g
        game.determinize(state, g, game.current_seat(state, g), other, g)
    hidden_differs = 0
    for g in range(len(state)):
        hidden_differs += not np.array_equal(state[g]["location"], other[g]["location"])
        first = PolicySearchAgent(game, network, simulations=24, seed=5, tree=tree).action_values(state, g)
        second = PolicySearchAgent(game, network, simulations=24, seed=5, tree=tree).action_values(other, g)
        assert first[0] == second[0] and np.array_equal(first[2], second[2], equal_nan=True), g
    assert hidden_differs > len(state) // 2


def test_search_makes_a_policy_stronger_than_it_is_alone() -> None:
    game = make_game("draw", num_players=2)
    network = untrained(game, seed=4)
    opponent = make_agent("random", game, seed=1)
    alone = rotated_match(game, [PolicyAgent(network), opponent], 400, seed=9)[0]
    searched = rotated_match(game, [PolicySearchAgent(game, network, simulations=32, seed=2), opponent], 400, seed=9)[0]
    assert searched.win_interval()[0] > max(0.5, alone.win_rate)  # 0.63 against 0.52


def test_the_command_line_names_a_policy_with_search() -> None:
    game = make_game("draw", num_players=2)
    agent = load_policy("draw_2p+search:simulations=8", game, seed=1)
    assert isinstance(agent, PolicySearchAgent)
    assert agent.name == "draw_2p+search" and agent.simulations == 8
    assert load_policy("draw_2p+search", game, seed=1).simulations == 256
    with pytest.raises(UsageError, match=r"takes only simulations=N.*not \['simulatons'\]"):
        load_policy("draw_2p+search:simulatons=8", game, seed=1)
    with pytest.raises(UsageError, match=r"'draw_9p' is neither an agent"):
        load_policy("draw_9p+search", game, seed=1)
    with pytest.raises(ValueError, match="simulations must be a positive integer, got 0"):
        load_policy("draw_2p+search:simulations=0", game, seed=1)


def test_a_bad_simulations_is_refused_before_any_work() -> None:
    """NaN, infinite, negative, zero, too large, a bool or a string: a one-line ValueError naming
    the option, the value and the range, raised before the game or the network is touched."""
    import math

    from agents.policy_search import MAX_SIMULATIONS

    game = make_game("draw", num_players=2)
    network = untrained(game)
    for bad in (math.nan, math.inf, -1, 0, MAX_SIMULATIONS + 1, 8.0, True, "8", None):
        with pytest.raises(ValueError, match=r"positive integer, got .*; the range is 1 to ") as e:
            PolicySearchAgent(game, network, simulations=bad)
        assert "\n" not in str(e.value)
        with pytest.raises(ValueError, match="simulations must be a positive integer"):
            PolicySearchAgent(None, None, simulations=bad)  # refused before the game is used
    for text in ("nan", "inf", "-1", "0", str(MAX_SIMULATIONS + 1), "many"):
        with pytest.raises(ValueError, match=r"simulations must be a positive integer, got "):
            load_policy(f"draw_2p+search:simulations={text}", game, seed=1)
    for good in (1, MAX_SIMULATIONS):
        assert PolicySearchAgent(game, network, simulations=good).simulations == good
    agent = PolicySearchAgent(game, network, simulations=1, seed=0)
    state = positions(game, 1, seed=2)
    mask = np.zeros(game.num_actions, np.int8)
    game.legal_mask(state, 0, mask)
    assert mask[agent.act_state(state, 0)]


def test_margin_zero_plays_the_best_mean_and_a_large_margin_the_policys_favourite() -> None:
    """``margin=0`` is plain PIMC over the policy's rollouts: the best mean, ties to the policy.
    With a margin no difference over the sampled worlds can clear, the policy's most likely move
    is played, whatever search found."""
    game = make_game("draw", num_players=2)
    network = untrained(game, seed=4)
    state = positions(game, 12, seed=5)
    greedy = PolicyAgent(network, "policy", deterministic=True)
    mask = np.zeros(game.num_actions, np.int8)
    overruled = 0
    for g in range(len(state)):
        plain = PolicySearchAgent(game, network, simulations=40, seed=g)
        move, legal, means = plain.action_values(state, g)
        observation, _ = game.view(state, g, game.current_seat(state, g))
        with torch.no_grad():
            prior = network.logits(torch.as_tensor(observation[None]))[0, legal].numpy()
        assert move == legal[np.lexsort((-prior, -means))[0]]
        stubborn = PolicySearchAgent(game, network, simulations=40, seed=g, margin=10.0)
        game.legal_mask(state, g, mask)
        favourite = int(greedy.act(observation[None], mask[None])[0])
        assert stubborn.act_state(state, g) == favourite
        overruled += move != favourite
    assert overruled > 0  # the two settings do differ on these positions


def test_a_bad_margin_is_refused() -> None:
    import math

    game = make_game("draw", num_players=2)
    for bad in (math.nan, math.inf, -0.5, 11, True, "2"):
        with pytest.raises(ValueError, match=r"margin must be a finite number from 0 to 10, got "):
            PolicySearchAgent(None, None, margin=bad)
    with pytest.raises(UsageError, match="margin must be a finite number"):
        load_policy("draw_2p+search:margin=-1", game, seed=1)
    assert load_policy("draw_2p+search:margin=1.5,simulations=8", game, seed=1).margin == 1.5


@pytest.mark.parametrize(("variant", "options"), VARIANTS)
def test_a_horizon_stops_each_rollout_at_the_actors_turn_and_adds_the_value_heads_estimate(
    variant: str, options: dict
) -> None:
    """``horizon=1``: the rewards until the actor is to move again, plus the value head's output
    on its observation there, checked against the same rollout stepped by hand."""
    game = make_game(variant, **options)
    network = untrained(game, seed=2)
    agent = PolicySearchAgent(game, network, simulations=8, seed=1, horizon=1)
    state = positions(game, 4, seed=3)
    mask = np.zeros(game.num_actions, np.int8)
    valued = 0
    for g in range(len(state)):
        seat = game.current_seat(state, g)
        game.legal_mask(state, g, mask)
        first = np.flatnonzero(mask)
        worlds = game.new_state(len(first))
        for w in range(len(first)):
            worlds[w]["rng"] = w + 1
            game.determinize(state, g, seat, worlds, w)
        expected = []
        for w, action in enumerate(first):
            world, total = worlds.copy(), 0.0
            while True:
                game.step(world, w, int(action))
                total += float(game.rewards(world, w)[seat])
                if game.is_over(world, w):
                    break
                to_act = game.current_seat(world, w)
                observation, _ = game.view(world, w, to_act)
                with torch.no_grad():
                    logits, value = network(torch.as_tensor(observation[None]))
                if to_act == seat:
                    total += float(value[0])
                    valued += 1
                    break
                game.legal_mask(world, w, mask)
                action = int(torch.where(torch.as_tensor(mask) > 0, logits[0], -torch.inf).argmax())
            expected.append(total)
        got = agent.play_out(worlds.copy(), first, seat)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert valued > 0


def test_a_horizon_longer_than_any_hand_plays_rollouts_to_the_end() -> None:
    game = make_game("draw", num_players=2)
    network = untrained(game, seed=6)
    state = positions(game, 6, seed=7)
    for g in range(len(state)):
        plain = PolicySearchAgent(game, network, simulations=24, seed=g).action_values(state, g)
        far = PolicySearchAgent(game, network, simulations=24, seed=g, horizon=64).action_values(state, g)
        assert plain[0] == far[0] and np.array_equal(plain[2], far[2])


def test_a_bad_horizon_is_refused() -> None:
    game = make_game("draw", num_players=2)
    for bad in (-1, 65, 1.5, True, "2"):
        with pytest.raises(ValueError, match=r"horizon must be an integer from 0 to 64, got "):
            PolicySearchAgent(game, untrained(game), horizon=bad)
    privileged = PolicyNetwork(game.observation_size, game.num_actions, [16], critic_inputs=8)
    with pytest.raises(ValueError, match="horizon=H needs a value head that reads the observation alone"):
        PolicySearchAgent(game, privileged, horizon=2)
    with pytest.raises(UsageError, match="horizon must be an integer"):
        load_policy("draw_2p+search:horizon=-1", game, seed=1)
    assert load_policy("draw_2p+search:horizon=2,simulations=8", game, seed=1).horizon == 2


def test_a_reseeded_search_over_the_policy_plays_as_one_built_with_that_seed() -> None:
    """``reseed(s)`` restarts the worlds of PIMC over the policy where an agent built with seed
    ``s`` starts them, and a sampling policy's draws too: what lets workers share a match
    (agents.tournament.rotated_match) block by block. The guided tree restarts its own
    generator (an ISMCTS agent's, played in tests/test_search_agents.py)."""
    game = make_game("draw", num_players=2)
    network = untrained(game)
    opponent = make_agent("greedy", game)

    def play(agent) -> list:
        record = rotated_match(game, [agent, opponent], episodes=12, seed=3, batch_size=6)[0]
        return [record.wins, record.moves, record.per_episode_reward]

    def searcher(seed: int) -> PolicySearchAgent:
        return PolicySearchAgent(game, network, "search", seed=seed, simulations=16)

    def sampler(seed: int) -> PolicyAgent:
        return PolicyAgent(network, "sampler", deterministic=False, seed=seed)

    for build in (searcher, sampler):
        used = build(1)
        play(used)
        used.reseed(7)
        assert play(used) == play(build(7))
    tree = PolicySearchAgent(game, network, "tree", seed=1, simulations=16, tree=1)
    fresh = PolicySearchAgent(game, network, "tree", seed=7, simulations=16, tree=1)
    tree.set_random_state(12345)
    tree.reseed(7)
    assert tree.random_state() == fresh.random_state()
