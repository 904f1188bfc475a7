"""Exact play of endings (``agents/endgame.py``, ``NAME+search:solve=N``): the solver's values
equal a plain minimax's, the search plays a best move wherever the actor sees every tile, never
reads a hidden tile, and bad settings are refused in one line."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.endgame import new_solver, solve_action, solve_worlds, solved_values
from agents.network import PolicyNetwork
from agents.policy_search import PolicySearchAgent
from arena.cli import UsageError, load_policy
from domino_env import make_game
from domino_env.game import Game
from domino_env.games.core import PLAYING


def untrained(game: Game) -> PolicyNetwork:
    torch.manual_seed(0)
    return PolicyNetwork(game.observation_size, game.num_actions, [16])


def minimax(game: Game, state: np.ndarray, me: int) -> float:
    """``me``'s reward in game 0 of ``state`` under best play by both seats, by brute force: no
    table, no cut-off, the rules as the environment steps them."""
    if game.is_over(state, 0):
        return float(state[0]["rewards"][me])
    mask = np.zeros(game.num_actions, np.int8)
    game.legal_mask(state, 0, mask)
    values = []
    for action in np.flatnonzero(mask):
        child = state.copy()
        if game.step(child, 0, int(action)) != PLAYING:  # the hand is over: its rewards are final
            values.append(float(child[0]["rewards"][me]))
        else:
            values.append(minimax(game, child, me))
    return max(values) if game.current_seat(state, 0) == me else min(values)


def endings(game: Game, count: int, most_tiles: int, seed: int) -> list[np.ndarray]:
    """``count`` positions of random games with a choice to make, nothing left to draw and at
    most ``most_tiles`` tiles in hands."""
    rng = np.random.default_rng(seed)
    mask = np.zeros(game.num_actions, np.int8)
    found: list[np.ndarray] = []
    episode = 0
    while len(found) < count:
        state = game.new_state(1)
        game.seed(state, 0, seed, stream=episode)
        game.start(state, 0)
        episode += 1
        while not game.is_over(state, 0):
            legal = game.legal_mask(state, 0, mask)
            drawable = game.rules.drawable(state, game.packed_config, 0)
            if legal > 1 and drawable == 0 and state[0]["hand_count"].sum() <= most_tiles:
                found.append(state.copy())
                break
            game.step(state, 0, int(rng.choice(np.flatnonzero(mask))))
    return found


@pytest.mark.parametrize("variant", ["draw", "block"])
def test_the_solvers_values_are_plain_minimax(variant: str) -> None:
    game = make_game(variant, num_players=2)
    solver = new_solver(game)
    differing = 0
    for state in endings(game, 40, most_tiles=9, seed=3):
        before = state.copy()
        me = game.current_seat(state, 0)
        values = solved_values(game, state, solver)
        for action, value in values.items():
            child = state.copy()
            game.step(child, 0, action)
            assert value == minimax(game, child, me)
        differing += len(set(values.values())) > 1
        assert (state == before).all()  # the world solved is left as it was
    assert differing >= 5  # the endings tested hold choices that matter


def test_the_worlds_of_a_move_share_one_table_without_changing_a_value() -> None:
    """``solve_worlds`` keeps what it solved for every world and action of a move; each value is
    still the one a fresh solve of that world and action gives."""
    game = make_game("block", num_players=2)
    shared, fresh = new_solver(game), new_solver(game)
    for g, state in enumerate(endings(game, 10, most_tiles=12, seed=11)):
        me = game.current_seat(state, 0)
        worlds = game.new_state(12)
        for w in range(len(worlds)):
            worlds[w]["rng"] = 1000 * g + w
        game.determinize_worlds(state, 0, me, worlds)
        mask = np.zeros(game.num_actions, np.int8)
        game.legal_mask(state, 0, mask)
        legal = np.flatnonzero(mask).astype(np.int64)
        together = np.empty((len(legal), len(worlds)))
        step, legal_mask, cfg = game.rules.step, game.rules.legal_mask, game.packed_config
        solve_worlds(step, legal_mask, worlds, cfg, legal, me, game.num_tiles, shared, together)
        for w in range(len(worlds)):
            for i, action in enumerate(legal):
                alone = solve_action(step, legal_mask, worlds[w : w + 1], cfg, int(action), me, game.num_tiles, fresh)
                assert together[i, w] == alone


def test_with_the_boneyard_spent_it_plays_a_best_move() -> None:
    """Draw with every unseen tile in the opponent's hand: the actor's one world is the real
    position, and ``solve`` plays a move of the best value under best play, in every position
    (a fifth of them hold moves of different values)."""
    game = make_game("draw", num_players=2)
    network = untrained(game)
    mask = np.zeros(game.num_actions, np.int8)
    differing = 0
    for g, state in enumerate(endings(game, 60, most_tiles=12, seed=5)):
        assert state[0]["boneyard_top"] == state[0]["boneyard_size"]
        me = game.current_seat(state, 0)
        game.legal_mask(state, 0, mask)
        value = {}
        for action in np.flatnonzero(mask):
            child = state.copy()
            game.step(child, 0, int(action))
            value[int(action)] = minimax(game, child, me)
        solved, legal, means = PolicySearchAgent(game, network, simulations=8, seed=g, solve=12).action_values(state, 0)
        assert means.tolist() == [value[int(action)] for action in legal]  # one world, solved exactly
        assert value[solved] == max(value.values())
        differing += len(set(value.values())) > 1
    assert differing >= 8


def test_with_tiles_set_aside_every_world_is_solved_and_no_hidden_tile_is_read() -> None:
    """Block keeps tiles out of play, so the actor cannot know its opponent's hand: each sampled
    world is solved. Two games that differ only in hidden tiles get the same values and move."""
    game = make_game("block", num_players=2)
    network = untrained(game)
    hidden_differs = 0
    for g, state in enumerate(endings(game, 20, most_tiles=10, seed=7)):
        me = game.current_seat(state, 0)
        other = game.new_state(1)
        other[0]["rng"] = 99 + g
        game.determinize(state, 0, me, other, 0)
        hidden_differs += not np.array_equal(state[0]["location"], other[0]["location"])
        first = PolicySearchAgent(game, network, simulations=24, seed=g, solve=10).action_values(state, 0)
        second = PolicySearchAgent(game, network, simulations=24, seed=g, solve=10).action_values(other, 0)
        assert first[0] == second[0] and np.array_equal(first[2], second[2])
        assert np.all(np.abs(first[2]) <= 1.0)
    assert hidden_differs > 10


def test_solve_zero_plays_as_before_and_larger_endings_are_rolled_out() -> None:
    game = make_game("block", num_players=2)
    network = untrained(game)
    for g, state in enumerate(endings(game, 8, most_tiles=10, seed=9)):
        plain = PolicySearchAgent(game, network, simulations=24, seed=g).action_values(state, 0)
        small = PolicySearchAgent(game, network, simulations=24, seed=g, solve=2).action_values(state, 0)
        assert plain[0] == small[0] and np.array_equal(plain[2], small[2])


def test_a_bad_solve_is_refused_in_one_line() -> None:
    draw = make_game("draw", num_players=2)
    for bad in (-1, 65, 1.5, True, "4"):
        with pytest.raises(ValueError, match=r"solve must be an integer from 0 to 64 \(tiles in hands\), got ") as e:
            PolicySearchAgent(draw, untrained(draw), solve=bad)
        assert "\n" not in str(e.value)
    for variant, players in (("hungarian", 3), ("draw", 4), ("mexican_train", 2)):
        game = make_game(variant, num_players=players)
        with pytest.raises(ValueError, match="solve=N solves two-player Draw and Block endings; this game is"):
            PolicySearchAgent(game, untrained(game), solve=10)
    with pytest.raises(UsageError, match="solve must be an integer"):
        load_policy("draw_2p+search:solve=-3", draw, seed=1)
    assert load_policy("draw_2p+search:solve=14,simulations=8", draw, seed=1).solve == 14


def test_the_endgame_benchmark_counts_the_endings_each_agent_misplays(capsys: pytest.CaptureFixture) -> None:
    from benchmarks.endgame import main

    main(["draw_2p", "--games", "12", "--simulations", "8"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("draw_2p against itself, 12 games: ") and "choices with the boneyard spent" in lines[0]
    assert lines[3].startswith("| draw_2p | ") and lines[4].startswith("| draw_2p+search:simulations=8 | ")
    with pytest.raises(SystemExit, match="plays block; only Draw spends its boneyard"):
        main(["block_2p", "--games", "1"])
