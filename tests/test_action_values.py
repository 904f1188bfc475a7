"""Action values rolled out from real positions (training/action_values.py): every legal move
played out from the recorded state as a hand-stepped game would, the same world for every move,
the recorded states matching the observations, targets centred, and a fit that moves the logits
to them."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.base import Agent, StatefulAgent
from agents.network import PolicyNetwork, legal_log_probs
from agents.registry import check_labeller, make_agent
from benchmarks.improvement_step import main as improvement_main
from domino_env import make_game
from domino_env.game import Game
from training import action_values
from training import checkpoint as ckpt
from training.action_values import (
    ActionValues,
    TableRecorder,
    centred,
    fit_improvement,
    label_positions,
    move_values,
    recorded_states,
    search_values,
)
from training.config import load_config
from training.imitation import Demonstrations, record_decisions

ROOT = Path(__file__).resolve().parent.parent
# The game of every shipped configuration (configs/*.yaml): every variant, and the Draw partnership.
SHIPPED = [load_config(path).env for path in sorted((ROOT / "configs").glob("*.yaml"))]
VARIANTS = [(env.variant, env.options) for env in SHIPPED]


def untrained(game: Game, seed: int = 0) -> PolicyNetwork:
    torch.manual_seed(seed)
    return PolicyNetwork(game.observation_size, game.num_actions, [16])


def hand_stepped(
    game: Game, network: PolicyNetwork, state: np.ndarray, g: int, move: int, opponent: Agent | None = None
) -> float:
    """The acting seat's result after ``move`` in a copy of game ``g``, the network's most likely
    legal move played at every later turn (``opponent``'s at the other seats' turns, when one is
    given), one game stepped at a time."""
    world = state[g : g + 1].copy()
    seat = game.current_seat(world, 0)
    mask = np.zeros(game.num_actions, np.int8)
    total, action = 0.0, move
    while True:
        game.step(world, 0, int(action))
        total += float(game.rewards(world, 0)[seat])
        if game.is_over(world, 0):
            return total
        if opponent is not None and not same_side(game, game.current_seat(world, 0), seat):
            action = int(opponent.act_states(game, world, np.array([0]))[0])
            continue
        observation, _ = game.view(world, 0, game.current_seat(world, 0))
        game.legal_mask(world, 0, mask)
        with torch.no_grad():
            logits = network.logits(torch.as_tensor(observation[None]))[0]
        action = int(torch.where(torch.as_tensor(mask) > 0, logits, -torch.inf).argmax())


def same_side(game: Game, a: int, b: int) -> bool:
    """Whether seats ``a`` and ``b`` play for one side: the same seat, or partners."""
    return a == b or (game.partnerships and (a - b) % 2 == 0)


class RandomDriver:
    """Uniform legal moves, from its own stream."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array([self.rng.choice(np.flatnonzero(m)) for m in masks])


def recorded(game: Game, positions: int, num_envs: int, seed: int) -> tuple[Demonstrations, np.ndarray]:
    """About ``positions`` unforced positions of random play and, row for row, their real states."""
    return recorded_states(game, RandomDriver(seed), positions, num_envs, seed)


@pytest.mark.parametrize(("variant", "options"), VARIANTS, ids=lambda v: str(v))
def test_each_move_is_played_out_from_the_real_state_as_a_hand_stepped_game(variant, options) -> None:
    game = make_game(variant, **options)
    network = untrained(game, seed=3)
    data, states = recorded(game, 40, 8, seed=11)
    values = move_values(game, network, states.copy(), data.mask)
    for i in range(len(states)):
        for move in np.flatnonzero(data.mask[i]):
            assert values[i, move] == pytest.approx(hand_stepped(game, network, states, i, move), abs=1e-6)
        assert not values[i, data.mask[i] == 0].any()


@pytest.mark.parametrize(("variant", "options"), VARIANTS, ids=lambda v: str(v))
def test_against_an_opponent_it_plays_every_other_seat_of_the_rollouts(variant, options) -> None:
    game = make_game(variant, **options)
    network = untrained(game, seed=8)
    data, states = recorded(game, 30, 6, seed=13)
    greedy = make_agent("greedy", game)  # no random stream: its moves do not depend on the order asked
    against = move_values(game, network, states.copy(), data.mask, greedy)
    for i in range(len(states)):
        for move in np.flatnonzero(data.mask[i]):
            expected = hand_stepped(game, network, states, i, move, greedy)
            assert against[i, move] == pytest.approx(expected, abs=1e-6)
    assert not np.array_equal(against, move_values(game, network, states.copy(), data.mask))
    heuristic = move_values(game, network, states.copy(), data.mask, make_agent("heuristic", game, seed=1))
    assert (np.abs(heuristic) <= 1).all() and not heuristic[data.mask == 0].any()


class SeatSpy(Agent):
    """Uniform legal moves, noting the seat of every game it is asked about through
    ``act_states`` and the observations it is asked about through ``act``."""

    def __init__(self, seed: int) -> None:
        self.driver = RandomDriver(seed)
        self.asked: list[tuple[int, int]] = []  # (game, seat)
        self.observations: list[np.ndarray] = []

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.observations.append(observations.copy())
        return self.driver.act(observations, masks)

    def act_states(self, game: Game, state: np.ndarray, games: np.ndarray) -> np.ndarray:
        self.asked += [(int(g), game.current_seat(state, int(g))) for g in games]
        return super().act_states(game, state, games)


@pytest.mark.parametrize(("variant", "options"), VARIANTS, ids=lambda v: str(v))
def test_against_a_table_the_positions_are_the_learners_in_games_against_it(variant, options) -> None:
    game = make_game(variant, **options)
    learner, table = SeatSpy(seed=5), SeatSpy(seed=6)
    recorder = TableRecorder(learner, table)
    data, _ = record_decisions(game, recorder, recorder, 400, num_envs=8, seed=17)
    # the table plays every seat but game g's learner at g % players and its partner ...
    assert table.asked and all(not same_side(game, seat, g % game.num_players) for g, seat in table.asked)
    # ... and the learner the rest: every position kept is one the learner was asked about
    kept = data.subset(np.concatenate(recorder.learner)[data.action])
    asked = np.concatenate(learner.observations)
    assert 0 < len(kept) < len(data) and len(kept) <= len(asked)
    assert {obs.tobytes() for obs in kept.obs} <= {obs.tobytes() for obs in asked}
    states = np.concatenate(recorder.states)[kept.action]
    seats = {game.current_seat(states, i) for i in range(len(states))}
    assert seats == set(range(game.num_players))  # across the batch the learner sits everywhere


@pytest.mark.parametrize(("variant", "options"), VARIANTS, ids=lambda v: str(v))
def test_labelled_positions_have_bounded_values_a_prior_and_repeat_under_a_seed(variant, options) -> None:
    game = make_game(variant, **options)
    network = untrained(game, seed=4)
    data = label_positions(game, network, 120, num_envs=16, seed=21)
    assert len(data) >= 120
    assert (data.mask.sum(1) > 1).all()  # forced decisions are never labelled
    legal = data.mask > 0
    assert (np.abs(data.values) <= 1).all() and not data.values[~legal].any()
    spread = np.where(legal, data.values, -np.inf).max(1) - np.where(legal, data.values, np.inf).min(1)
    assert (spread > 0).any()  # some moves change the result
    probabilities = np.where(legal, np.exp(data.prior), 0.0).sum(1)
    np.testing.assert_allclose(probabilities, 1.0, atol=1e-5)
    again = label_positions(game, network, 120, num_envs=16, seed=21)
    np.testing.assert_array_equal(again.obs, data.obs)
    np.testing.assert_array_equal(again.values, data.values)  # the same seed labels the same


def assert_rows_are_their_states(game: Game, data: Demonstrations, states: np.ndarray) -> None:
    """Each recorded row's state, seen by its seat to act, is the row's observation and mask."""
    mask = np.zeros(game.num_actions, np.int8)
    for i in range(len(states)):
        observation, _ = game.view(states, i, game.current_seat(states, i))
        game.legal_mask(states, i, mask)
        np.testing.assert_array_equal(observation, data.obs[i])
        np.testing.assert_array_equal(mask, data.mask[i])


@pytest.mark.parametrize(("variant", "options"), VARIANTS, ids=lambda v: str(v))
def test_a_driver_that_reads_the_game_record_reaches_the_positions_of_its_own_games(variant, options) -> None:
    """A search agent (any agent that decides from the game record) as the driver plays every
    seat: the positions are exactly those of its own games, as when it drives as the teacher,
    and each kept row's state is the one its observation was read from."""
    game = make_game(variant, **options)
    data, states = recorded_states(game, make_agent("heuristic", game, seed=3), 200, 8, seed=19)
    own, _ = record_decisions(game, make_agent("heuristic", game, seed=3), None, 200, 8, seed=19)
    np.testing.assert_array_equal(data.obs, own.obs)
    np.testing.assert_array_equal(data.mask, own.mask)
    assert_rows_are_their_states(game, data, states)


def test_a_recorder_refuses_to_play_games_it_was_not_asked_about() -> None:
    game = make_game("draw", num_players=2)
    recorder = TableRecorder(make_agent("heuristic", game, seed=1), make_agent("greedy", game))
    observations, masks = np.zeros((2, game.observation_size), np.float32), np.ones((2, game.num_actions), np.int8)
    with pytest.raises(RuntimeError, match=r"TableRecorder\.act must follow act_states on the same games"):
        recorder.act(observations, masks)


class StatefulSpy(StatefulAgent):
    """The first legal move, from the game record; notes every (game, seat) it decides for."""

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.asked: list[tuple[int, int]] = []

    def act_state(self, state: np.ndarray, g: int) -> int:
        self.asked.append((g, self.game.current_seat(state, g)))
        mask = np.zeros(self.game.num_actions, np.int8)
        self.game.legal_mask(state, g, mask)
        return int(np.flatnonzero(mask)[0])


def test_a_driver_against_a_table_plays_the_learners_seats_and_the_policy_still_anchors() -> None:
    game = make_game("draw", num_players=2)
    network = untrained(game, seed=6)
    driver, table = StatefulSpy(game), SeatSpy(seed=2)
    data = label_positions(game, network, 60, num_envs=8, seed=23, opponent=table, driver=driver)
    assert len(data) >= 60 and driver.asked and table.asked
    assert all(seat == g % game.num_players for g, seat in driver.asked)  # the learner's seat of game g
    own = label_positions(game, network, 60, num_envs=8, seed=23, opponent=table)
    assert not np.array_equal(own.obs[: len(data)], data.obs[: len(own)])  # other games: the driver's
    with torch.no_grad():
        np.testing.assert_allclose(data.prior, legal_log_probs(network, data.obs, data.mask), atol=1e-6)


def test_the_recorded_rows_match_their_observations() -> None:
    """Each labelled row's state, seen by its seat to act, is the row's observation and mask:
    the rows kept by the recording (episodes that ended) were matched with their own states."""
    game = make_game("mexican_train", num_players=4)
    data, states = recorded(game, 300, 12, seed=5)
    assert_rows_are_their_states(game, data, states)


def test_targets_are_centred_over_the_legal_moves() -> None:
    mask = np.array([[1, 1, 0, 1], [0, 1, 1, 0]], np.int8)
    values = np.array([[1.0, -1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0]], np.float32)
    prior = np.log(np.array([[0.5, 0.25, 1.0, 0.25], [1.0, 0.5, 0.5, 1.0]], np.float32)) * mask
    data = ActionValues(np.zeros((2, 3), np.float32), mask, values, prior.astype(np.float32))
    targets = data.targets(0.5)
    raw = prior + values / 0.5
    for row in range(2):
        legal = mask[row] > 0
        np.testing.assert_allclose(targets[row, legal], raw[row, legal] - raw[row, legal].mean(), rtol=1e-6)
        assert not targets[row, ~legal].any()
    # equal values leave the prior's differences; the second row's moves are tied
    np.testing.assert_allclose(targets[1, 1], targets[1, 2])
    np.testing.assert_array_equal(centred(np.ones((2, 4)), mask), np.zeros((2, 4)))


def test_the_fit_moves_the_logits_to_the_mean_of_noisy_targets() -> None:
    """Rows that look alike but whose values are single noisy draws: regression learns their
    mean, so the move that is better on average becomes the favourite."""
    rng = np.random.default_rng(0)
    rows, size, actions = 4000, 6, 3
    kinds = rng.integers(0, 2, rows)
    obs = np.eye(size, dtype=np.float32)[kinds]
    mask = np.ones((rows, actions), np.int8)
    better = np.where(kinds == 0, 0, 2)  # kind 0: move 0 wins 60% of the time, the others 40%
    wins = rng.random((rows, actions)) < np.where(np.arange(actions) == better[:, None], 0.6, 0.4)
    values = np.where(wins, 1.0, -1.0).astype(np.float32)
    data = ActionValues(obs, mask, values, np.full((rows, actions), np.log(1 / 3), np.float32))
    torch.manual_seed(1)
    network = PolicyNetwork(size, actions, [32])
    optimizer = torch.optim.Adam(network.parameters(), lr=3e-3)
    stats = fit_improvement(
        network, optimizer, data, 1.0, 8, 256, torch.Generator().manual_seed(2), torch.device("cpu")
    )
    with torch.no_grad():
        logits = network.logits(torch.as_tensor(np.eye(size, dtype=np.float32)[:2]))
    assert logits.argmax(1).tolist() == [0, 2]
    gaps = (logits[0, 0] - logits[0, 1:]).mean(), (logits[1, 2] - logits[1, :2]).mean()
    assert all(gap == pytest.approx(0.4, abs=0.12) for gap in gaps)  # E[values] differ by 0.4
    assert stats["loss"] > 0


def test_the_benchmark_refuses_bad_numbers_in_one_line(capsys) -> None:
    for bad in (["--temperature", "0"], ["--temperature", "nan"], ["--positions", "-5"], ["--chunk", "1.5"]):
        with pytest.raises(SystemExit):
            improvement_main(["draw_2p", *bad])
        assert "must be a positive" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="error: "):
        improvement_main(["no_such_policy", "--positions", "10"])
    refusals = {
        ("attention", "64", "32"): "one width for all its layers",
        ("attention", "64", "64", "--iterate"): "leave out --iterate",
        ("lstm", "64"): "takes a trunk (mlp, attention) and its sizes",
        ("attention", "many"): "takes a trunk (mlp, attention) and its sizes",
        ("mlp", "0"): "sizes from 1 to",
    }
    for student, message in refusals.items():
        with pytest.raises(SystemExit, match=re.escape(message)):
            improvement_main(["draw_2p", "--positions", "10", "--student", *student])


def test_the_benchmark_fits_and_saves_a_new_network_over_the_policy(tmp_path: Path, capsys) -> None:
    """``--student attention 16 16``: a network of that shape, fitted from scratch over the
    shipped policy's positions and prior, saved as a checkpoint that loads with its trunk."""
    improvement_main([
        "draw_2p", "--positions", "60", "--chunk", "60", "--student", "attention", "16", "16", "--anneal",
        "--games", "0", "--heuristic-games", "4", "--skip-start", "--save", str(tmp_path / "student"),
    ])  # fmt: skip
    assert "fitting a new attention 16 16 flat network" in capsys.readouterr().out
    network = ckpt.load_network(tmp_path / "student", make_game("draw", num_players=2))
    assert network.trunk_kind == "attention" and network.hidden_sizes == [16, 16]


@pytest.mark.parametrize(("variant", "options"), [("draw", {"num_players": 2}), ("hungarian", {"num_players": 3})])
def test_a_search_labeller_values_each_move_as_its_own_search_does(variant, options) -> None:
    """With a labeller, each position's values are the search's means over the worlds it samples
    from the seat's own knowledge, row for row what the same agent (same seed) reports alone, and
    its favourite is the move it would play; the prior is still the driving policy's."""
    game = make_game(variant, **options)
    network = untrained(game, seed=2)
    labeller = make_agent("pimc:simulations=24", game, seed=4)
    data = label_positions(game, network, 40, num_envs=8, seed=9, labeller=labeller)
    legal = data.mask > 0
    assert (np.abs(data.values) <= 1).all() and not data.values[~legal].any()
    np.testing.assert_allclose(np.where(legal, np.exp(data.prior), 0.0).sum(1), 1.0, atol=1e-5)
    recorder_data, states = recorded(game, 40, 8, seed=9)
    alone = make_agent("pimc:simulations=24", game, seed=4)
    values = search_values(game, make_agent("pimc:simulations=24", game, seed=4), states, recorder_data.mask)
    for i in range(len(states)):
        move, moves, means = alone.action_values(states, i)
        np.testing.assert_array_equal(moves, np.flatnonzero(recorder_data.mask[i]))
        np.testing.assert_allclose(values[i, moves], means)
        assert move == moves[np.argmax(means)]


def test_ismcts_values_each_move_by_its_root_means_and_plays_the_move_it_reports() -> None:
    """ISMCTS labels too: one finite mean per legal move (the acting seat's results are within
    [-1, 1]), and the move it reports is the one it plays from the same generator state."""
    game = make_game("hungarian", num_players=3)
    data, states = recorded(game, 30, 6, seed=4)
    agent = check_labeller(make_agent("ismcts:simulations=64", game, seed=1), "ismcts")
    for i in range(len(states)):
        saved = agent.random_state()
        move, legal, means = agent.action_values(states, i)
        np.testing.assert_array_equal(legal, np.flatnonzero(data.mask[i]))
        assert move in legal and np.isfinite(means).all() and (np.abs(means) <= 1).all()
        agent.set_random_state(saved)
        assert agent.act_state(states, i) == move


def test_a_search_that_leaves_a_move_untried_is_refused_as_a_labeller() -> None:
    game = make_game("draw", num_players=2)
    data, states = recorded(game, 20, 4, seed=3)
    assert data.mask.sum(1).max() > 1
    with pytest.raises(ValueError, match="the labeller left a move unvalued; give it more simulations"):
        search_values(game, make_agent("ismcts:simulations=1", game), states, data.mask)


def test_searches_shared_by_workers_give_the_same_labels_for_any_number_of_workers(monkeypatch) -> None:
    """Each block of positions is searched from its own seed, whichever worker takes it: two
    and three forked workers give the same labels, each a search of the recorded position."""
    monkeypatch.setattr(action_values, "SEARCH_BLOCK", 8)
    game = make_game("draw", num_players=2)
    data, states = recorded(game, 40, 8, seed=5)
    done: list[int] = []
    two = search_values(game, make_agent("pimc:simulations=16", game, seed=2), states, data.mask, done.append, 2)
    three = search_values(game, make_agent("pimc:simulations=16", game, seed=2), states, data.mask, workers=3)
    np.testing.assert_array_equal(two, three)
    assert sum(done) == len(states)  # every position reported as valued
    legal = data.mask > 0
    assert not two[~legal].any() and (np.abs(two[legal]) <= 1).all()
    one = search_values(game, make_agent("pimc:simulations=16", game, seed=2), states, data.mask)
    assert not np.array_equal(one, two)  # other worlds, the same moves valued


def test_a_labeller_must_value_moves_and_read_the_recorded_position() -> None:
    game = make_game("draw", num_players=2)
    data, states = recorded(game, 20, 4, seed=3)
    with pytest.raises(ValueError, match="'greedy' does not value each move"):
        check_labeller(make_agent("greedy", game), "greedy")
    with pytest.raises(ValueError, match="'oracle' sees every hand"):
        check_labeller(make_agent("oracle", game), "oracle")
    wrong = data.mask.copy()
    wrong[0] = 0
    with pytest.raises(RuntimeError, match="position 0: the labeller's legal moves are not the recorded ones"):
        search_values(game, make_agent("pimc:simulations=8", game), states, wrong)
