"""TorchRL: ``PettingZooWrapper(..., use_mask=True)`` over every variant gives masked rollouts
with only legal actions and the game's own rewards; the helper's wrapper also survives players
leaving mid-game; the example trains."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
import torch
from tensordict import TensorDictBase
from torchrl.envs.libs.pettingzoo import PettingZooWrapper

import domino_env
from arena.integrations.torchrl import ACTION_MASK, GROUP, OBSERVATION, TorchRLAgent, make_env

EXAMPLE = Path(__file__).parents[1] / "examples" / "torchrl_masked_ppo.py"


@pytest.fixture(autouse=True)
def one_thread() -> None:
    torch.set_num_threads(1)  # small networks, and pytest-xdist already uses both cores


def replay_rewards(variant: str, options: dict, seed: int, actions: list[int]) -> list[dict[str, float]]:
    """Each step's rewards when ``actions`` are played on a fresh AEC env reset with ``seed``,
    with the seats that leave mid-game stepped out as the helper's wrapper does."""
    env = domino_env.raw_env(variant, illegal_action="raise", **options)
    env.reset(seed=seed)
    rewards = []
    for action in actions:
        env.step(action)
        rewards.append(dict(env.rewards))
        while not all(env.terminations.values()) and env.terminations[env.agent_selection]:
            env.step(None)
    return rewards


def check_rollout(
    rollout: TensorDictBase, groups: dict[str, list[str]], variant: str, options: dict, seed: int
) -> None:
    """Exactly one seat acts per step, always legally; the game ends on the last step only; the
    rewards of every seat at every step are those of the same game replayed on the AEC env."""
    steps = rollout.batch_size[0]
    actions, acting = [], []
    for step in range(steps):
        movers = [
            (agent, int(rollout[group, "action"][step, index]))
            for group, agents in groups.items()
            for index, agent in enumerate(agents)
            if rollout[group, "mask"][step, index]
        ]
        assert len(movers) == 1, movers
        agent, action = movers[0]
        group, index = next((g, a.index(agent)) for g, a in groups.items() if agent in a)
        assert rollout[group, "action_mask"][step, index, action], f"illegal action at step {step}"
        actions.append(action)
        acting.append(agent)
    done = rollout["next", "done"].squeeze(-1)
    assert done[-1] and not done[:-1].any()
    expected = replay_rewards(variant, options, seed, actions)
    for step in range(steps):
        for group, agents in groups.items():
            for index, agent in enumerate(agents):
                reward = float(rollout["next", group, "reward"][step, index])
                assert reward == pytest.approx(expected[step].get(agent, 0.0)), (step, agent)


@pytest.mark.parametrize("variant", domino_env.VARIANTS)
def test_stock_pettingzoo_wrapper_gives_masked_rollouts_with_the_games_rewards(variant: str) -> None:
    options = {"num_players": 3}
    env = PettingZooWrapper(domino_env.make(variant, illegal_action="raise", **options), use_mask=True)
    for seed in (0, 1):
        start = env.reset(seed=seed)
        rollout = env.rollout(1000, tensordict=start, auto_reset=False, break_when_any_done=True)
        check_rollout(rollout, env.group_map, variant, options, seed)


def test_helper_wrapper_steps_out_eliminated_players() -> None:
    """Hungarian elimination matches drop players mid-game; the stock wrapper cannot take that."""
    options = {"num_players": 4, "match": True, "elimination": True, "limit": 30}
    env = make_env("hungarian", illegal_action="raise", **options)
    torch.manual_seed(0)  # the rollouts' random actions
    eliminations = 0
    for seed in range(4):
        start = env.reset(seed=seed)
        rollout = env.rollout(5000, tensordict=start, auto_reset=False, break_when_any_done=True)
        check_rollout(rollout, env.group_map, "hungarian", options, seed)
        eliminations += int(rollout["next", GROUP, "terminated"][:-1].any())
    assert eliminations > 0  # the seeds do exercise a player leaving before the end


def test_torchrl_agent_plays_legal_actions() -> None:
    example = runpy.run_path(str(EXAMPLE))
    config = example["parse_args"](["--hidden", "16"])
    env, actor, _ = example["build"](config)
    data = env.reset()
    agent = TorchRLAgent(actor, deterministic=False)
    observations = data[OBSERVATION].numpy()
    masks = data[ACTION_MASK].numpy()
    actions = agent.act(observations, masks)
    assert all(masks[row, action] for row, action in enumerate(actions))


def test_example_trains_a_masked_policy() -> None:
    example = runpy.run_path(str(EXAMPLE))
    flags = ["--iterations", "2", "--frames-per-batch", "256", "--minibatch-size", "128", "--hidden", "32"]
    result = example["main"]([*flags, "--eval-every", "2", "--eval-episodes", "40"])
    history = result["history"]
    assert [line["iteration"] for line in history] == [1, 2]
    assert history[-1]["games_finished"] > 0
    assert 0.0 <= history[-1]["win_rate_vs_random"] <= 1.0
