"""The variants as OpenSpiel games (``domino_env.integrations.openspiel``).

OpenSpiel's own consistency checks pass for every variant; random games agree move by move with
the AEC environment dealt the same tiles (so the OpenSpiel games are the project's rules, not a
copy of them); information states hide exactly what a seat cannot see; and on the tiny sets,
where the whole game tree fits, CFR+ solves the game: the point of the integration.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import domino_env  # noqa: E402
from domino_env.integrations import openspiel as ds  # noqa: E402
from domino_env.tiles import tile_index  # noqa: E402

CONFIGS = [
    ("draw", {}),
    ("draw", {"set_size": 2}),
    ("draw", {"set_size": 3, "num_players": 3, "lead": "heaviest_tile"}),
    ("draw", {"num_players": 4, "partnerships": True, "reserve": 2, "voluntary_draw": True}),
    ("block", {}),
    ("block", {"set_size": 2, "hand_size": 2}),
    ("block", {"num_players": 4, "reward": "points"}),
    ("hungarian", {}),
    ("hungarian", {"num_players": 3, "open_ends": 2}),
    ("mexican_train", {}),
    ("mexican_train", {"num_players": 3, "set_size": 9, "engine": "descending"}),
    ("mexican_train", {"num_players": 2, "set_size": 9, "engine": "set_aside", "must_play_drawn": True}),
]


def load(variant: str, params: dict | None = None):
    return pyspiel.load_game(ds.short_name(variant), params or {})


def sample(state, rng: np.random.Generator) -> int:
    """A chance outcome by its probability, or a uniformly random legal action."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        return int(rng.choice(outcomes, p=np.asarray(probs) / sum(probs)))
    return int(rng.choice(state.legal_actions()))


def play_out(game, rng: np.random.Generator):
    state = game.new_initial_state()
    history = []
    while not state.is_terminal():
        action = sample(state, rng)
        history.append(action)
        state.apply_action(action)
    return state, history


# ---------------------------------------------------------------------------------------------
# Registration and parameters


def test_every_variant_is_registered_with_its_options() -> None:
    names = set(pyspiel.registered_names())
    for variant, cls in domino_env.GAMES.items():
        assert ds.short_name(variant) in names
        game = load(variant)
        assert game.num_distinct_actions() == cls().num_actions
        assert set(game.get_parameters()) == set(cls.defaults)
    assert load("draw").get_parameters()["set_size"] == ds.DEFAULT  # None: the variant's default
    assert load("block").get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert load("mexican_train").get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM  # float32 shares


def test_parameters_become_rule_options() -> None:
    options = ds.options_from_params("block", {"partnerships": 0, "num_players": 4, "set_size": -1})
    assert options["partnerships"] is False and options["set_size"] is None
    game = load("block", {"set_size": 3, "hand_size": 2, "partnerships": 1, "num_players": 4})
    assert game.num_players() == 4 and game.rules.game.partnerships
    with pytest.raises((ValueError, pyspiel.SpielError), match="plays one hand"):
        load("draw", {"match": True})


# ---------------------------------------------------------------------------------------------
# OpenSpiel's checks


@pytest.mark.parametrize(("variant", "params"), CONFIGS)
def test_random_sim_test(variant: str, params: dict) -> None:
    pyspiel.random_sim_test(load(variant, params), num_sims=3, serialize=False, verbose=False)


def test_chance_outcomes_deal_uniformly_and_redeal_without_doubles() -> None:
    """With one tile each from the double-two, 12 of the 15 sets of two hands hold a double, and
    under lead="highest_double" the chance nodes deal exactly those, uniformly."""
    game = load("draw", {"set_size": 2, "hand_size": 1})
    deals: dict[tuple[int, int], float] = {}
    for first, p in game.new_initial_state().chance_outcomes():
        state = game.new_initial_state()
        state.apply_action(first)
        for second, q in state.chance_outcomes():
            deals[(first, second)] = p * q
    assert len(deals) == 24  # ordered: seat 0's tile, seat 1's tile
    assert all(first != second for first, second in deals)
    assert np.allclose(list(deals.values()), 1 / 24)
    assert (tile_index(0, 1), tile_index(1, 2)) not in deals  # no double: redealt
    block = load("block", {"set_size": 2, "hand_size": 2})
    state = block.new_initial_state()
    first = dict(state.chance_outcomes())
    assert set(first) == {0, 1, 2, 3, 4}  # seat 0's lower tile: not the highest
    assert np.isclose(first[0], 5 / 15)  # 0-0 with any of the 5 others


# ---------------------------------------------------------------------------------------------
# The same game as the environment


@pytest.mark.parametrize(("variant", "params"), CONFIGS)
def test_random_games_agree_with_the_environment(variant: str, params: dict) -> None:
    """Play a random OpenSpiel game, deal its tiles to the AEC environment, and replay: both
    agree at every move on who acts, what is legal and what each seat observes, and on the
    returns."""
    game = load(variant, params)
    options = ds.options_from_params(variant, game.get_parameters())
    rng = np.random.default_rng(7)
    for _ in range(3):
        final, history = play_out(game, rng)
        env = domino_env.raw_env(variant, **options)
        env.reset(seed=0, options={"deal": final.engine_deal()})
        totals = dict.fromkeys(env.possible_agents, 0.0)
        state = game.new_initial_state()
        for action in history:
            if not state.is_chance_node():
                seat = env.agent_seat[env.agent_selection]
                assert state.current_player() == seat
                mask = env.observe(env.agent_selection)["action_mask"]
                assert state.legal_actions() == np.flatnonzero(mask).tolist()
                for other, agent in enumerate(env.possible_agents):
                    expected = env.game.view(env.state_array, 0, other)[0]
                    assert np.array_equal(np.asarray(state.observation_tensor(other)), expected), agent
                env.step(action)
                for agent, reward in env.rewards.items():
                    totals[agent] += reward
            state.apply_action(action)
        assert state.is_terminal() and all(env.terminations.values())
        assert np.allclose(state.returns(), [totals[agent] for agent in env.possible_agents])


# ---------------------------------------------------------------------------------------------
# Information states


def deal_draw_game(seat1_draws: int):
    """Double-two Draw: seat 0 holds 0-0 and 2-2 and leads 2-2; seat 1 holds 0-1 and 1-1, cannot
    follow, and draws ``seat1_draws`` (0-2 or 1-2, both of which fit)."""
    game = load("draw", {"set_size": 2})
    state = game.new_initial_state()
    for tile in (tile_index(0, 0), tile_index(2, 2), tile_index(0, 1), tile_index(1, 1)):
        assert tile in dict(state.chance_outcomes())
        state.apply_action(tile)
    state.apply_action(2 * tile_index(2, 2))  # seat 0 leads 2-2
    assert state.legal_actions() == [game.num_distinct_actions() - 2]  # seat 1 must draw
    state.apply_action(game.num_distinct_actions() - 2)
    assert state.is_chance_node()
    state.apply_action(seat1_draws)
    return state


def test_an_opponents_draw_is_hidden_from_the_information_state() -> None:
    one, other = deal_draw_game(tile_index(0, 2)), deal_draw_game(tile_index(1, 2))
    assert one.current_player() == 1 and other.current_player() == 1
    assert one.information_state_string(0) == other.information_state_string(0)
    assert one.information_state_tensor(0) == other.information_state_tensor(0)
    assert one.observation_string(0) == other.observation_string(0)
    assert one.information_state_string(1) != other.information_state_string(1)  # the drawer knows
    assert "s1 draw 0-2" in one.information_state_string(1) and "0-2" not in one.information_state_string(0)


def test_opponents_hands_are_hidden_and_own_history_is_recalled() -> None:
    """Block, double-two: seat 0 holds 0-0 and 0-1; seat 1 holds either 1-1 and 1-2 or 1-2 and
    2-2. After 0-0 and a pass, seat 0 cannot tell the two apart; seat 1 can."""
    game = load("block", {"set_size": 2, "hand_size": 2})

    def after(hand1: tuple[int, int]):
        state = game.new_initial_state()
        for tile in (tile_index(0, 0), tile_index(0, 1), *hand1):
            state.apply_action(tile)
        state.apply_action(2 * tile_index(0, 0))
        assert state.legal_actions() == [game.num_distinct_actions() - 1]  # seat 1 passes
        state.apply_action(game.num_distinct_actions() - 1)
        return state

    one, other = after((tile_index(1, 1), tile_index(1, 2))), after((tile_index(1, 2), tile_index(2, 2)))
    assert one.current_player() == other.current_player() == 0
    assert one.information_state_string(0) == other.information_state_string(0)
    assert one.information_state_tensor(0) == other.information_state_tensor(0)
    assert one.information_state_string(1) != other.information_state_string(1)
    # Perfect recall: the same position reached by another history is another information state.
    assert "play 0-0 on left" in one.information_state_string(0)


# ---------------------------------------------------------------------------------------------
# Exact solving on the tiny sets


def cfr_plus(game, target: float, max_iterations: int = 200) -> tuple[float, int]:
    """Run CFR+ until the average policy's exploitability is below ``target`` (checked every 5
    iterations); returns the last exploitability and the iterations run."""
    from open_spiel.python.algorithms import cfr, exploitability

    solver = cfr.CFRPlusSolver(game)
    value = float("inf")
    for iteration in range(1, max_iterations + 1):
        solver.evaluate_and_update_policy()
        if iteration % 5 == 0:
            value = exploitability.exploitability(game, solver.average_policy())
            if value < target:
                return value, iteration
    return value, max_iterations


def uniform_exploitability(game) -> float:
    from open_spiel.python import policy
    from open_spiel.python.algorithms import exploitability

    return exploitability.exploitability(game, policy.UniformRandomPolicy(game))


def test_cfr_plus_solves_tiny_block() -> None:
    game = load("block", {"set_size": 2, "hand_size": 2})
    assert uniform_exploitability(game) > 0.1  # 2/15: the uniform policy is clearly beaten
    start = time.perf_counter()
    value, iterations = cfr_plus(game, 0.05)
    assert value < 0.05 and iterations <= 200
    value, _ = cfr_plus(game, 0.005, 40)
    assert value < 0.005, value
    assert time.perf_counter() - start < 120


def test_cfr_plus_solves_tiny_draw() -> None:
    """Draw on the double-two, 2 tiles each, is mostly forced plays: the uniform policy loses
    only about 0.03, and CFR+ closes most of that within a few iterations."""
    game = load("draw", {"set_size": 2})
    uniform = uniform_exploitability(game)
    assert uniform > 0.025
    value, iterations = cfr_plus(game, uniform / 10)
    assert value < uniform / 10 and value < 0.05 and iterations <= 200
