"""The benchmarks behind the figures in README.md and docs/: each runs at a tiny size and prints
its table, and each refuses a count, seed or rate that cannot be right before it measures anything.

The figures themselves come from the full-size commands the docs quote; here the point is that
those commands still run as written, print the columns the docs show, and fill them with numbers
in range.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from agents import make_agent
from agents.base import Agent
from benchmarks import (
    belief,
    belief_history,
    belief_search,
    distill_rounds,
    distill_targets,
    exploitability_exact,
    imitation_fidelity,
    policy_search,
    search_split,
)
from domino_env.games.core import PLAYING
from domino_env.variants import make_game


def table_rows(out: str) -> list[list[str]]:
    """The cells of every Markdown row printed, headers (the row above a ``|---|`` line) and
    separators left out."""
    rows: list[list[str]] = []
    for line in out.splitlines():
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if set("".join(cells)) <= set("-:"):
                rows.pop()  # the header
            else:
                rows.append(cells)
    return rows


def rate(cell: str) -> float:
    """A win rate cell, ``0.625`` or ``0.625 [0.3, 0.9]``, bold or not."""
    value = float(cell.split()[0].strip("*"))
    assert 0 <= value <= 1, cell
    return value


def test_belief_prints_model_uniform_and_slots_log_loss(capsys) -> None:
    belief.main(
        ["--variants", "draw_2p", "--positions", "300", "--eval-positions", "30", "--samples", "8", "--retrain"]
    )
    (row,) = {tuple(r) for r in table_rows(capsys.readouterr().out)}
    assert row[0] == "draw_2p" and row[1] == "300" and int(row[2].replace(",", "")) > 0
    model, uniform, slots = (float(cell.strip("*")) for cell in row[3:6])
    assert 0 < model < 2 and 0 < uniform < 2 and 0 < slots < 2
    assert 0 <= float(row[6].strip("*")) <= 1 and 0 <= float(row[7]) <= 1


def test_belief_history_prints_each_kind_of_history_beside_the_observation(capsys) -> None:
    belief_history.main(["--variants", "draw_2p", "--positions", "300", "--eval-positions", "30"])
    rows = table_rows(capsys.readouterr().out)
    assert [row[0] for row in rows] == ["draw_2p"]
    losses = [float(rows[0][k]) for k in (3, 4, 6)]
    assert all(0 < loss < 2 for loss in losses) and rows[0][5].endswith("%")


def test_belief_search_plays_a_belief_driven_search_against_uniform_and_the_heuristic(capsys) -> None:
    belief_search.main(["--agents", "pimc", "--simulations", "4", "--games", "4", "--positions", "30", "--worlds", "8"])
    rows = {tuple(row) for row in table_rows(capsys.readouterr().out)}  # printed as played, then as a table
    assert [row[2] for row in sorted(rows)] == ["heuristic", "pimc (uniform)"]
    for row in rows:
        assert row[1] == "pimc:belief=draw_2p" and row[4] == "4" and 0 <= rate(row[5]) <= 1
        assert 0 < float(row[7]) < 2  # the log-loss of its worlds, nats per hidden tile


def test_the_ceiling_rows_run_from_knowing_the_hands_to_uniform_worlds(capsys) -> None:
    """``--arms true --doubts``: with no doubt the worlds hold the real hands (log-loss near 0);
    with doubt 1 every place weighs alike and their log-loss is uniform worlds' own."""
    belief_search.main([
        "--agents", "pimc", "--arms", "true", "--doubts", "0", "0.5", "1", "--simulations", "4", "--games", "4",
        "--positions", "60", "--worlds", "64",
    ])  # fmt: skip
    out = capsys.readouterr().out
    uniform = float(out.split("uniform worlds' log-loss ")[1].split()[0])
    losses = {row[1]: float(row[7]) for row in table_rows(out) if row[2] == "pimc (uniform)"}
    assert list(losses) == ["pimc:true places", "pimc:true places, doubt 0.5", "pimc:true places, doubt 1"]
    knowing, half, guessing = losses.values()
    assert knowing < 0.05 < half < guessing and abs(guessing - uniform) < 0.05 * uniform


@pytest.mark.parametrize("config", ["draw_2p", "draw_4p_partners"])
def test_the_ceiling_of_any_belief_draws_the_real_hands_and_a_shuffled_pile(config) -> None:
    """``--arms true``'s search: every world it draws holds each hidden tile where it really is,
    so the other seats' hands are the real ones and only the pile's order is left to chance."""
    variant, options = belief.CONFIGS[config]
    game = make_game(variant, **options)
    agent = belief_search.knowing_the_places(make_agent(f"pimc:simulations=4,belief={config}", game, seed=1), game)
    rng = np.random.default_rng(3)
    state, world, mask = game.new_state(1), game.new_state(1), np.zeros(game.num_actions, np.int8)
    piles_differ = False
    for deal in range(6):
        game.seed(state, 0, deal)
        game.start(state, 0)
        while not game.is_over(state, 0):
            seat = game.current_seat(state, 0)
            agent.believe(state, 0)
            game.determinize_weighted(state, 0, seat, world, 0, agent.space.weights)
            real, drawn = state["location"][0, : game.num_tiles], world["location"][0, : game.num_tiles]
            np.testing.assert_array_equal(drawn, real)  # every tile in its own hand, the pile or on the table
            piles_differ |= not np.array_equal(world["boneyard"][0], state["boneyard"][0])
            game.legal_mask(state, 0, mask)
            game.step(state, 0, int(rng.choice(np.flatnonzero(mask))))
    assert piles_differ  # the pile's order is still drawn


def test_distill_rounds_prints_a_row_per_round(capsys) -> None:
    distill_rounds.main([
        "block_2p", "--rounds", "2", "--positions", "12", "--simulations", "4", "--games", "4",
        "--search-simulations", "4", "--skip-shipped",
    ])  # fmt: skip
    rows = table_rows(capsys.readouterr().out)
    assert [row[0] for row in rows] == ["1", "2"]
    for row in rows:
        assert 0 <= rate(row[1]) <= 1 and 0 <= rate(row[3]) <= 1 and float(row[5]) > 0 and 0 <= float(row[6]) <= 1


def test_distill_targets_prints_the_policy_as_it_was_and_each_arm(capsys) -> None:
    distill_targets.main([
        "draw_2p", "--positions", "12", "--simulations", "4", "--arms", "values:0.1", "policy:0.02",
        "--against", "pimc", "--games", "4", "--epochs", "1",
    ])  # fmt: skip
    rows = table_rows(capsys.readouterr().out)
    assert [row[0] for row in rows] == ["as it was", "values, T=0.1", "policy, T=0.02"]
    assert all(0 <= rate(row[1]) <= 1 for row in rows) and all(float(row[3]) > 0 for row in rows[1:])


def test_exploitability_exact_prints_an_agent_and_cfr(capsys) -> None:
    exploitability_exact.main(["--agents", "random", "--iterations", "2"])
    rows = table_rows(capsys.readouterr().out)
    assert [row[0] for row in rows] == ["random", "CFR+ average policy"]
    random_gap, cfr_gap = float(rows[0][3]), float(rows[1][3])
    assert 0 < cfr_gap < random_gap  # two CFR+ iterations are already closer to equilibrium


def test_imitation_fidelity_prints_agreement_per_arm_and_epoch(capsys) -> None:
    imitation_fidelity.main([
        "--variant", "draw", "--players", "2", "--decisions", "200", "--held-out", "100", "--epochs", "2",
        "--arms", "flat:16", "tiles:16",
    ])  # fmt: skip
    rows = table_rows(capsys.readouterr().out)
    assert [(row[0], row[1]) for row in rows] == [
        ("flat:16", "1"),
        ("flat:16", "2"),
        ("tiles:16", "1"),
        ("tiles:16", "2"),
    ]
    assert all(0 <= float(row[2]) <= 1 and 0 <= float(row[3]) <= 1 for row in rows)


def test_search_split_prints_a_row_per_arm(capsys) -> None:
    search_split.main(
        ["hungarian_3p", "--search", "ismcts:simulations=8", "--arms", "lead", "turn_start+run", "--games", "6"]
    )
    rows = table_rows(capsys.readouterr().out)
    assert [row[0] for row in rows] == ["search on lead", "search on run+turn_start"]
    assert all(0 <= float(row[1]) <= 1 and float(row[3]) > 0 for row in rows)


class LegalAt(Agent):
    """The legal action at one end of the mask: two agents that disagree whenever there is a
    choice, and draw nothing."""

    def __init__(self, last: bool) -> None:
        self.last = last

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array([np.flatnonzero(mask)[-1 if self.last else 0] for mask in masks])


def test_a_split_player_asks_the_search_only_in_its_kinds_of_decision() -> None:
    """Over whole Hungarian hands the kinds come in their order (the lead, then each turn's
    first tile and the tiles after it), and the split player's move is the search's exactly
    where the kind is searched."""
    game = make_game("hungarian", num_players=3)
    policy, search = LegalAt(last=False), LegalAt(last=True)
    split = search_split.SplitPlayer(game, policy, search, {"run"})
    state, rows = game.new_state(1), np.zeros(1, np.int64)
    game.seed(state, 0, 5)
    game.start(state, 0)
    kinds: list[str] = []
    for _ in range(3):  # hands
        hand = []
        while True:
            kind = search_split.hungarian_kind(state, 0)
            hand.append(kind)
            chosen = split.act_states(game, state, rows)
            assert chosen == (search if kind == "run" else policy).act_states(game, state, rows)
            if game.step(state, 0, int(chosen[0])) != PLAYING:
                break
        assert hand[0] == "lead" and "lead" not in hand[1:]
        kinds += hand
        game.start(state, 0)
    assert {"turn_start", "run"} <= set(kinds)


def test_draw_decisions_are_of_the_boneyard_until_it_is_drawn_dry() -> None:
    game = make_game("draw", num_players=2)
    state, rows, greedy = game.new_state(1), np.zeros(1, np.int64), make_agent("greedy", game)
    kinds = []
    for seed in range(20):  # hands, some of which draw the boneyard dry
        game.seed(state, 0, seed)
        game.start(state, 0)
        assert search_split.draw_kind(state, 0) == "boneyard"
        while True:
            left = int(state["boneyard_size"][0] - state["boneyard_top"][0])
            kinds.append((search_split.draw_kind(state, 0), left))
            if game.step(state, 0, int(greedy.act_states(game, state, rows)[0])) != PLAYING:
                break
    assert all((kind == "boneyard") == (left > 0) for kind, left in kinds)
    assert {kind for kind, _ in kinds} == {"boneyard", "no_boneyard"}


def test_policy_search_prints_the_policy_alone_and_with_search(capsys) -> None:
    policy_search.main(
        ["draw_2p", "--simulations", "4", "--against", "heuristic", "--heuristic-games", "4", "--workers", "2"]
    )
    rows = table_rows(capsys.readouterr().out)
    assert [(row[1], row[2]) for row in rows] == [("draw_2p", ""), ("draw_2p+search", "4")]
    assert all(0 <= rate(row[3]) <= 1 and float(row[4]) > 0 for row in rows)


@pytest.mark.parametrize(
    ("module", "argv", "message"),
    [
        ("belief", ["--eval-positions", "-3"], "--eval-positions: must be a positive whole number, not '-3'"),
        ("belief", ["--eval-seed", "-1"], "--eval-seed: must be a whole number from 0, not '-1'"),
        ("belief_history", ["--positions", "0"], "--positions: must be a positive whole number"),
        ("belief_search", ["--games", "1.5"], "--games: must be a positive whole number"),
        ("belief_search", ["--doubts", "1.5"], "--doubts: must be a number from 0 to 1, not '1.5'"),
        ("distill_rounds", ["block_2p", "--temperature", "0"], "--temperature: must be a positive number"),
        ("distill_targets", ["draw_2p", "--learning-rate", "nan"], "--learning-rate: must be a positive number"),
        ("endgame", ["--simulations", "0"], "--simulations: must be a positive whole number"),
        ("exploitability_exact", ["--iterations", "-10"], "--iterations: must be a positive whole number"),
        ("exploitability_exact", ["--set-size", "4"], "option set_size must be one of"),
        ("fuzz", ["--batch-size", "0"], "--batch-size: must be a positive whole number"),
        ("imitation_fidelity", ["--decisions", "-1"], "--decisions: must be a positive whole number"),
        ("imitation_fidelity", ["--players", "9"], "option num_players must be between 2 and 8, got 9"),
        ("imitation_fidelity", ["--teacher", "nobody"], "nobody"),
        ("imitation_fidelity", ["--arms", "flat:0"], "sizes from 1 to"),
        ("imitation_fidelity", ["--arms", "flat:axb"], "is not HEAD:SIZES"),
        ("improvement_step", ["draw_2p", "--games", "-1"], "--games: must be a whole number from 0"),
        ("improvement_step", ["draw_2p", "--workers", "0"], "--workers: must be a positive whole number"),
        ("policy_search", ["draw_2p", "--workers", "999"], "--workers: workers must be a positive number of"),
        ("policy_search", ["draw_2p", "--trees", "2"], "--trees: invalid choice: 2"),
        ("policy_search", ["draw_2p", "--against", "nobody"], "nobody"),
        ("self_play_ablation", ["--steps", "0"], "--steps: must be a positive whole number"),
        ("speed", ["--threads", "0"], "--threads: must be a positive whole number"),
        ("strength", ["--scale", "-1"], "--scale: must be a positive number"),
        ("value_fit", ["draw_2p", "--temperature", "200"], "--temperature must be below 100, not 200"),
    ],
)
def test_a_benchmark_refuses_what_cannot_be_right_before_measuring(module, argv, message, capsys) -> None:
    main = importlib.import_module(f"benchmarks.{module}").main
    with pytest.raises(SystemExit) as stop:
        main(argv)
    said = [*capsys.readouterr().err.splitlines()[-1:], str(stop.value)]
    assert any(message in line for line in said), said
