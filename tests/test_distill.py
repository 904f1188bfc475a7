"""Search distilled into the policy (training/distill.py): soft targets over legal actions that
follow search's values, a step that fits them, runs unchanged when it is off, checked config
keys, and resumes that go on exactly."""

from __future__ import annotations

import csv
import inspect
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.network import PolicyNetwork
from agents.policy_search import PolicySearchAgent
from arena.cli import main as cli_main
from arena.ship import EVALUATION_SEED, training_seeds
from domino_env import make_game
from tests.test_policy_search import positions, untrained
from tests.test_training_resume import new_run
from training import checkpoint as ckpt
from training import distill
from training.config import ConfigError, DistillConfig, build_config, load_config
from training.distill import cross_entropy as distill_cross_entropy
from training.distill import fit_targets, label_positions, soft_targets

BATCH = 16 * 8  # env steps per update under TINY
DISTILL = ["distill.every=1", "distill.positions=24", "distill.simulations=4", "distill.minibatch_size=8"]


def weights(run_dir: Path) -> dict[str, torch.Tensor]:
    return ckpt.load_network(ckpt.latest_checkpoint(run_dir), make_game("draw", num_players=2)).state_dict()


def same_weights(a: Path, b: Path) -> bool:
    first, second = weights(a), weights(b)
    return first.keys() == second.keys() and all(torch.equal(first[k], second[k]) for k in first)


# ------------------------------------------------------------------------------------- targets


def test_soft_targets_are_a_distribution_over_legal_actions_that_follows_the_values() -> None:
    rng = np.random.default_rng(0)
    mask = (rng.random((50, 9)) < 0.5).astype(np.int8)
    mask[np.arange(50), rng.integers(9, size=50)] = 1
    values = rng.normal(size=(50, 9)).astype(np.float32)
    values[mask == 0] = 100.0  # illegal actions' values never count, however good
    targets = soft_targets(values, mask, temperature=0.5)
    assert np.allclose(targets.sum(1), 1.0) and (targets[mask == 0] == 0).all() and (targets[mask > 0] > 0).all()
    for row in range(50):
        legal = np.flatnonzero(mask[row])
        order = np.argsort(values[row, legal], kind="stable")
        assert (np.diff(targets[row, legal][order]) >= 0).all()  # a better value, a larger share
    sharp, flat = soft_targets(values, mask, 1e-3), soft_targets(values, mask, 1e3)
    best = np.where(mask > 0, values, -np.inf).argmax(1)
    assert np.allclose(sharp[np.arange(50), best], 1.0, atol=1e-4)  # cold: search's best move
    assert np.allclose(flat[mask > 0], np.repeat(1 / mask.sum(1), mask.sum(1)), atol=1e-2)  # hot: uniform


def test_policy_targets_keep_the_policys_order_where_values_tie_and_follow_clear_differences() -> None:
    mask = np.array([[1, 1, 1, 0]], np.int8)
    prior = np.log(np.array([[0.7, 0.2, 0.1, 1.0]], np.float32))
    prior[mask == 0] = 0.0
    tied = np.array([[0.3, 0.3, 0.3, 9.0]], np.float32)
    targets = soft_targets(tied, mask, 0.1, prior)
    assert np.allclose(targets, [[0.7, 0.2, 0.1, 0.0]], atol=1e-6)  # equal values: the policy as it was
    assert np.allclose(soft_targets(tied, mask, 0.1), [[1 / 3, 1 / 3, 1 / 3, 0.0]])  # values alone: scrambled
    clear = np.array([[0.0, 0.5, 0.0, 9.0]], np.float32)
    moved = soft_targets(clear, mask, 0.1, prior)
    assert moved[0, 1] > 0.95 and moved[0, 3] == 0.0  # exp(5) times the odds: search's move wins
    odds = moved[0, 1] / moved[0, 0]
    assert np.isclose(odds, (0.2 / 0.7) * np.exp(0.5 / 0.1), rtol=1e-5)


def test_action_values_returns_the_move_it_plays_with_one_value_per_legal_action() -> None:
    game = make_game("draw", num_players=2)
    agent = PolicySearchAgent(game, untrained(game), simulations=12, seed=3)
    state = positions(game, 4, seed=1)
    mask = np.zeros(game.num_actions, np.int8)
    for g in range(len(state)):
        saved = agent.random_state()
        move, legal, means = agent.action_values(state, g)
        game.legal_mask(state, g, mask)
        assert list(legal) == list(np.flatnonzero(mask)) and means.shape == legal.shape and move in legal
        assert means[list(legal).index(move)] == means.max()  # it plays a best-valued move
        agent.set_random_state(saved)
        assert agent.act_state(state, g) == move  # play unchanged


def test_labelled_positions_have_legal_targets_and_a_step_fits_them() -> None:
    game = make_game("block", num_players=2)
    torch.manual_seed(0)
    network = PolicyNetwork(game.observation_size, game.num_actions, [32])
    config = DistillConfig(every=1, positions=48, simulations=8, temperature=0.2, epochs=20, minibatch_size=16)
    data = label_positions(game, network, config, num_envs=4, seed=5)
    assert data is not None and len(data) >= 48
    assert (data.mask.sum(1) > 1).all() and data.mask[np.arange(len(data)), data.action].all()
    targets = data.targets(config.temperature)
    assert np.allclose(targets.sum(1), 1.0) and (targets[data.mask == 0] == 0).all()
    # the prior is the labelling policy's: its log-probabilities over the legal actions
    with torch.no_grad():
        logits = network.logits(torch.as_tensor(data.obs)).numpy()
    for row in range(len(data)):
        legal = np.flatnonzero(data.mask[row])
        shifted = logits[row, legal] - logits[row, legal].max()
        assert np.allclose(data.prior[row, legal], shifted - np.log(np.exp(shifted).sum()), atol=1e-5)
        assert (data.prior[row, data.mask[row] == 0] == 0).all()
    anchored = data.targets(config.temperature, "policy")
    assert np.allclose(anchored.sum(1), 1.0) and (anchored[data.mask == 0] == 0).all()
    assert (np.abs(data.value) <= 1.0).all()  # block 2p: a hand is won, lost or tied

    device = torch.device("cpu")
    before = distill_cross_entropy(network, data, config.temperature, device)
    optimizer = torch.optim.Adam(network.parameters(), lr=3e-3)
    stats = fit_targets(network, optimizer, data, config, device, torch.Generator().manual_seed(0))
    after = distill_cross_entropy(network, data, config.temperature, device)
    assert after < before - 0.05, (before, after)
    assert set(stats) == {"cross_entropy", "value", "agreement"}


# ------------------------------------------------------------------------------------- config


def test_distill_keys_are_checked() -> None:
    assert build_config({}).distill.every == 0  # off unless asked
    config = build_config({}, ["distill.every=5", "distill.temperature=0.25", "distill.simulations=32"])
    assert (config.distill.every, config.distill.temperature, config.distill.simulations) == (5, 0.25, 32)
    for override, message in (
        ("distill.every=-1", r"distill\.every must be 0 \(no distillation\)"),
        ("distill.temperature=0", r"distill\.temperature must be positive"),
        ("distill.simulations=0", r"distill\.simulations must lie in \[1, 16384\]"),
        ("distill.simulations=20000", r"distill\.simulations must lie in \[1, 16384\]"),
        ("distill.positions=2.5", r"distill\.positions must be an integer"),
        ("distill.value_coef=-1", r"distill\.value_coef must be 0 or more"),
        ("distill.target=prior", r"distill\.target must be one of values, policy, got 'prior'"),
        ("distill.labels=oracle", r"distill\.labels must be one of search, rollouts, got 'oracle'"),
        ("distill.temprature=1", r"unknown config key distill\.temprature; did you mean distill\.temperature\?"),
    ):
        with pytest.raises(ConfigError, match=message):
            build_config({}, [override])


# ------------------------------------------------------------------------------------- runs


def test_distillation_off_leaves_a_run_bit_identical_and_on_changes_it(tmp_path: Path) -> None:
    plain = new_run(tmp_path, f"ppo.total_env_steps={2 * BATCH}", name="plain")
    off = [f"ppo.total_env_steps={2 * BATCH}", "distill.every=0", "distill.positions=7", "distill.temperature=3"]
    assert same_weights(plain, new_run(tmp_path, *off, name="off"))
    on = new_run(tmp_path, f"ppo.total_env_steps={2 * BATCH}", *DISTILL, name="on")
    assert not same_weights(plain, on)
    with (on / "metrics.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert all(float(row["distill/positions"]) >= 24 for row in rows[-2:])
    assert all(np.isfinite(float(row["distill/cross_entropy"])) for row in rows[-2:])


def test_rollout_labels_fit_the_policy_inside_a_run(tmp_path: Path) -> None:
    plain = new_run(tmp_path, f"ppo.total_env_steps={2 * BATCH}", name="plain")
    on = new_run(tmp_path, f"ppo.total_env_steps={2 * BATCH}", *DISTILL, "distill.labels=rollouts", name="rollouts")
    assert not same_weights(plain, on)
    with (on / "metrics.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert all(float(row["distill/positions"]) >= 24 for row in rows[-2:])
    assert all(float(row["distill/loss"]) > 0 for row in rows[-2:])
    again = new_run(tmp_path, f"ppo.total_env_steps={2 * BATCH}", *DISTILL, "distill.labels=rollouts", name="again")
    assert same_weights(on, again)  # the same seed labels and fits the same


def test_a_resumed_run_with_distillation_ends_where_the_uninterrupted_one_does(tmp_path: Path) -> None:
    eval_search = ["distill.eval_games=2", "distill.eval_simulations=4", "eval.every=100"]
    whole = new_run(tmp_path, f"ppo.total_env_steps={3 * BATCH}", *DISTILL, *eval_search, name="whole")
    parted = new_run(tmp_path, f"ppo.total_env_steps={BATCH}", *DISTILL, *eval_search, name="parted")
    cli_main(["train", "--resume", str(parted), f"ppo.total_env_steps={3 * BATCH}"])
    assert ckpt.latest_checkpoint(parted).name == "update_000003"
    assert same_weights(whole, parted)
    with (whole / "metrics.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert all(0.0 <= float(row[f"eval/vs_{name}"]) <= 1.0 for row in rows for name in ("pimc", "ismcts"))


def test_every_rounds_deals_are_among_the_seeds_the_evaluation_must_avoid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dealt: list[int] = []
    record = distill.record_decisions

    def spy(*args, **kwargs):
        dealt.append(inspect.signature(record).bind(*args, **kwargs).arguments["seed"])
        return record(*args, **kwargs)

    monkeypatch.setattr(distill, "record_decisions", spy)
    run = new_run(tmp_path, f"ppo.total_env_steps={3 * BATCH}", *DISTILL)
    seeds = training_seeds(load_config(run / ckpt.CONFIG_FILE))
    assert len(set(dealt)) == 3 and set(dealt) <= seeds and EVALUATION_SEED not in seeds
