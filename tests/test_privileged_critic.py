"""The privileged critic: it reads exactly the hidden tiles, the policy never does, and runs
with it train, checkpoint and resume like any other."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.network import PolicyNetwork
from agents.policy import PolicyAgent
from domino_env import BatchedEnv, make_game
from tests.test_training import TINY
from training import checkpoint as ckpt
from training.config import ConfigError, build_config
from training.critic_inputs import critic_input_size, hidden_tiles
from training.ppo import train

GAMES = [("draw", 2), ("draw", 4), ("block", 3), ("hungarian", 3), ("mexican_train", 4)]


@pytest.mark.parametrize(("variant", "players"), GAMES)
def test_hidden_tiles_are_the_other_hands_in_seat_order_and_the_boneyard(variant: str, players: int) -> None:
    game = make_game(variant, num_players=players)
    envs = BatchedEnv(game, 16)
    _, mask, seat = envs.reset(seed=4)
    size = critic_input_size(game)
    rng = np.random.default_rng(0)
    for _ in range(40):
        games = np.arange(16)
        blocks = hidden_tiles(game, envs.state, games, seat, size).reshape(16, players, game.num_tiles)
        for g in games:
            actor = int(seat[g])
            hands = [set(game._hand(envs.state, g, s)) for s in range(players)]
            for k in range(1, players):
                assert set(np.flatnonzero(blocks[g, k - 1])) == hands[(actor + k) % players]
            location = envs.state[g]["location"][: game.num_tiles]
            assert set(np.flatnonzero(blocks[g, players - 1])) == set(np.flatnonzero(location == -1))
            assert not blocks[g, :, list(hands[actor])].any()  # the actor's own hand is the observation's
            assert not blocks[g, :, np.flatnonzero(location == -2)].any()  # nor the table
        legal = [rng.choice(np.flatnonzero(m)) for m in mask]
        _, mask, seat, _, _ = envs.step(np.array(legal))
    assert hidden_tiles(game, envs.state, np.arange(3), seat[:3], 0).shape == (3, 0)


def test_the_policy_never_reads_what_the_critic_reads() -> None:
    torch.manual_seed(0)
    game = make_game("draw", num_players=2)
    size = critic_input_size(game)
    network = PolicyNetwork(game.observation_size, game.num_actions, [32, 16], critic_inputs=size)
    obs = torch.rand(8, game.observation_size)
    one, two = torch.zeros(8, size), torch.ones(8, size)
    logits_one, value_one = network(obs, one)
    logits_two, value_two = network(obs, two)
    torch.testing.assert_close(logits_one, logits_two)
    torch.testing.assert_close(logits_one, network.logits(obs))
    assert not torch.allclose(value_one, value_two)  # the critic does read them
    with pytest.raises(ValueError, match=f"reads {size} privileged inputs"):
        network(obs)
    mask = np.ones((8, game.num_actions), np.int8)
    assert PolicyAgent(network).act(obs.numpy(), mask).shape == (8,)  # plays on observations alone


def test_a_checkpoint_keeps_its_critic_and_init_from_refuses_another_shape(tmp_path: Path) -> None:
    game = make_game("hungarian", num_players=3)
    size = critic_input_size(game)
    network = PolicyNetwork(game.observation_size, game.num_actions, [16], critic_inputs=size)
    ckpt.save_model(tmp_path / "privileged", network, game)
    loaded = ckpt.load_network(tmp_path / "privileged", game)
    assert loaded.critic_inputs == size
    for key, value in network.state_dict().items():
        torch.testing.assert_close(loaded.state_dict()[key], value)
    assert ckpt.initial_weights(tmp_path / "privileged", game, [16], size).keys() == network.state_dict().keys()
    with pytest.raises(ckpt.CheckpointError, match=r"privileged critic: set network\.critic=privileged"):
        ckpt.initial_weights(tmp_path / "privileged", game, [16], 0)


def test_an_unknown_critic_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"network\.critic must be one of shared, privileged, got 'oracle'"):
        build_config({}, ["network.critic=oracle"])


@pytest.mark.parametrize("variant", ["draw", "mexican_train"])
def test_a_run_with_a_privileged_critic_imitates_trains_and_resumes(variant: str, tmp_path: Path) -> None:
    values = {"env": {"variant": variant, "options": {"num_players": 2}}}
    extra = [
        "run.name=critic",
        "network.critic=privileged",
        "pool.baselines=[heuristic]",
        "imitation.teacher=heuristic",
        "imitation.rounds=2",
        "imitation.decisions_per_round=200",
        "imitation.epochs=1",
    ]
    config = build_config(values, [*TINY, *extra])
    train(config, tmp_path / "run")
    rows = list(csv.DictReader((tmp_path / "run" / "metrics.csv").open()))
    assert float(rows[0]["imitation/decisions"]) >= 400
    assert all(r["loss/explained_variance"] != "" for r in rows if r.get("loss/approx_kl"))
    saved = ckpt.latest_checkpoint(tmp_path / "run")
    assert ckpt.load_network(saved, make_game(variant, num_players=2)).critic_inputs > 0
    steps = int(config.ppo.total_env_steps)
    longer = build_config(values, [*TINY, *extra, f"ppo.total_env_steps={2 * steps}"])
    train(longer, tmp_path / "run", resume=True)
    assert int(list(csv.DictReader((tmp_path / "run" / "metrics.csv").open()))[-1]["env_steps"]) > steps
