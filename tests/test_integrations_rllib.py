"""Ray RLlib (new API stack): every variant as a registered multi-agent env, the masking module,
and self-play PPO on local Ray: training, snapshots, checkpoint, restore, legal play."""

from __future__ import annotations

import runpy
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import ray
import torch
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.core.columns import Columns

import domino_env
from arena.integrations.rllib import (
    MAIN,
    MaskedPPOModule,
    RLModuleAgent,
    SelfPlayMapping,
    env_name,
    make_env,
    register_envs,
    self_play_config,
    snapshot_id,
)

EXAMPLE = Path(__file__).parents[1] / "examples" / "rllib_self_play.py"
# The variants the issue asks to train on; a variant still being built is reported, not hidden.
SELF_PLAY_VARIANTS = [
    pytest.param(v, marks=pytest.mark.skipif(v not in domino_env.VARIANTS, reason=f"{v} is not built yet"))
    for v in ("draw", "mexican_train")
]
TINY = {"hidden": (16,), "num_env_runners": 0, "train_batch_size": 128, "minibatch_size": 64, "num_epochs": 1}


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    torch.set_num_threads(1)  # small networks, and pytest-xdist already uses both cores
    # address="local": a new Ray for the tests even when the machine runs a cluster of its own
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


ENV_CASES = [(variant, {"num_players": 3}) for variant in domino_env.VARIANTS] + [
    ("hungarian", {"num_players": 3, "match": True, "elimination": True, "limit": 30}),  # players leave mid-game
]


@pytest.mark.parametrize(("variant", "options"), ENV_CASES)
def test_every_variant_is_a_registered_multi_agent_env(variant: str, options: dict) -> None:
    """Random legal play through RLlib's MultiAgentEnv API: one agent to act per step, and each
    agent's rewards sum to its return in the same AEC game."""
    assert env_name(variant) in register_envs()
    env = make_env(variant, {**options, "illegal_action": "raise"})
    rng = np.random.default_rng(0)
    for seed in range(3):
        observations, _ = env.reset(seed=seed)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        actions = []
        while True:
            acting = [agent for agent, observation in observations.items() if observation["action_mask"].any()]
            assert len(acting) == 1  # turn-based: the others observe only when they leave
            observation = observations[acting[0]]
            assert observation in env.observation_space[acting[0]]
            actions.append(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            observations, rewards, terminated, truncated, _ = env.step({acting[0]: actions[-1]})
            for name, reward in rewards.items():
                returns[name] += reward
            if terminated["__all__"]:
                break
        assert not truncated["__all__"]
        assert returns == pytest.approx(aec_returns(variant, options, seed, actions))


def aec_returns(variant: str, options: dict, seed: int, actions: list[int]) -> dict[str, float]:
    env = domino_env.make(variant, illegal_action="raise", **options)
    env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    moves = iter(actions)
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        env.step(None if terminated or truncated else next(moves))
    return returns


def test_masked_module_gives_illegal_actions_no_probability() -> None:
    game = domino_env.make_game("block")
    env = domino_env.raw_env("block")
    module = MaskedPPOModule(
        observation_space=env.observation_space("player_0"),
        action_space=env.action_space("player_0"),
        model_config={"hidden": [8]},
    )
    masks = torch.as_tensor(np.random.default_rng(0).random((32, game.num_actions)) < 0.2)
    masks[:, -1] = True  # at least one legal action per row
    batch = {Columns.OBS: {"observation": torch.rand(32, game.observation_size), "action_mask": masks.to(torch.int8)}}
    for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS]
        probabilities = torch.softmax(logits, dim=1)
        assert (probabilities[~masks] == 0).all()
        assert torch.allclose(probabilities.sum(dim=1), torch.ones(32))
    assert module.compute_values(batch).shape == (32,)


def test_self_play_mapping_gives_main_one_seat_per_episode() -> None:
    mapping = SelfPlayMapping(num_players=4, num_snapshots=2)
    seats = []
    for episode_id in range(200):
        episode = type("Episode", (), {"id_": f"episode-{episode_id}"})()
        modules = [mapping(f"player_{seat}", episode) for seat in range(4)]
        assert modules.count(MAIN) == 1
        assert set(modules) - {MAIN} <= {snapshot_id(0), snapshot_id(1)}
        seats.append(modules.index(MAIN))
    assert set(seats) == {0, 1, 2, 3}


def test_snapshots_take_mains_weights_on_learner_and_remote_env_runner(local_ray: None) -> None:
    """With an env runner in its own process, as on a cluster: the config, the mapping and the
    callback travel there, and a refreshed snapshot reaches it."""
    config = {**TINY, "num_env_runners": 1}
    algo = self_play_config(
        "draw", {"illegal_action": "raise"}, num_snapshots=2, snapshot_every=1, **config
    ).build_algo()
    try:
        result = algo.train()  # the callback copies main into snapshot_0 after the first iteration
        assert result["env_runners"]["num_episodes"] > 0
        learner = algo.learner_group.get_weights()
        main, fresh, stale = learner[MAIN], learner[snapshot_id(0)], learner[snapshot_id(1)]
        assert all(torch.equal(torch.as_tensor(w), torch.as_tensor(fresh[n])) for n, w in main.items())
        assert not all(torch.equal(torch.as_tensor(w), torch.as_tensor(stale[n])) for n, w in main.items())
        (runner,) = algo.env_runner_group.foreach_env_runner(
            lambda r: r.module[snapshot_id(0)].state_dict(), local_env_runner=False
        )
        acting = [name for name in runner if name.startswith("policy_net.")]  # what env runners receive
        assert acting and all(torch.equal(runner[n], torch.as_tensor(main[n])) for n in acting)
    finally:
        algo.stop()


@pytest.mark.parametrize("variant", SELF_PLAY_VARIANTS)
def test_self_play_trains_checkpoints_restores_and_plays_legally(variant: str, local_ray: None, tmp_path: Path) -> None:
    """The example, shortened: two iterations of multi-agent PPO with masking (its envs raise on
    an illegal action), a checkpoint, a restore, and evaluation games of the restored policy."""
    example = runpy.run_path(str(EXAMPLE))
    flags = ["--variant", variant, "--players", "3", "--iterations", "2", "--num-env-runners", "0", "--hidden", "16"]
    batch = "256" if variant == "mexican_train" else "128"  # a Mexican Train round is ~130 steps at 3 players
    flags += ["--train-batch-size", batch, "--minibatch-size", "64", "--num-epochs", "1", "--snapshot-every", "1"]
    result = example["main"]([*flags, "--eval-episodes", "12", "--checkpoint-dir", str(tmp_path / "{variant}")])
    history = result["history"]
    assert [line["iteration"] for line in history] == [1, 2]
    assert sum(line["episodes"] for line in history) > 0
    assert [line["snapshot_refreshed"] for line in history] == [0, 1]
    checkpoint = result["checkpoint"]
    assert checkpoint == tmp_path / variant

    restored = Algorithm.from_checkpoint(checkpoint)
    try:
        assert restored.iteration == 2
        agents = {
            "player_0": RLModuleAgent(restored.get_module(MAIN)),
            "player_1": RLModuleAgent.from_checkpoint(checkpoint, deterministic=False, seed=0),
            "player_2": RLModuleAgent.from_checkpoint(checkpoint, snapshot_id(1)),
        }
        env = domino_env.make(variant, num_players=3, illegal_action="raise")  # refuses illegal actions
        env.reset(seed=0)
        moves = 0
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else agents[agent].act_one(observation))
            moves += not (terminated or truncated)
        assert moves > 0 and not env.agents  # the game went to its end
        restored.train()  # and the restored algorithm trains on
        assert restored.iteration == 3
    finally:
        restored.stop()
