"""Stable-Baselines3 / sb3-contrib: MaskablePPO trains on the single-agent view, never plays an
illegal action, and the saved model plays as an agent."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

import agents
import domino_env
from arena.integrations.sb3 import MaskablePPOAgent

EXAMPLE = Path(__file__).parents[1] / "examples" / "sb3_maskable_ppo.py"


@pytest.fixture(autouse=True)
def one_thread() -> None:
    torch.set_num_threads(1)  # small networks, and pytest-xdist already uses both cores


@pytest.fixture(autouse=True)
def logs_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SB3 makes a log folder in the system's temporary directory on every ``learn`` unless
    ``SB3_LOGDIR`` says where: keep them with the test's own files."""
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3_logs"))


def test_maskable_ppo_trains_on_draw_without_an_illegal_action(tmp_path: Path) -> None:
    """The example, shortened: its envs raise on any illegal action, so finishing proves none."""
    example = runpy.run_path(str(EXAMPLE))
    model_path = tmp_path / "draw_model"
    flags = ["--timesteps", "3072", "--n-steps", "256", "--batch-size", "256", "--hidden", "64", "64"]
    result = example["main"]([*flags, "--eval-episodes", "60", "--save", str(model_path)])
    model: MaskablePPO = result["model"]
    assert model.num_timesteps >= 3072
    assert set(result["win_rates"]) == {"random", "greedy"}

    # The saved model plays every seat of an AEC game that refuses illegal actions.
    agent = MaskablePPOAgent.load(model_path.with_suffix(".zip"))
    env = domino_env.make("draw", illegal_action="raise")
    env.reset(seed=0)
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else agent.act_one(observation))


@pytest.mark.parametrize("variant", domino_env.VARIANTS)
def test_maskable_ppo_learns_from_every_variant(variant: str) -> None:
    env = agents.make_single_agent(variant, opponents="random", learner_seat="rotate", illegal_action="raise")
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, policy_kwargs={"net_arch": [32]})
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(total_timesteps=128)
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters(), strict=True))
    observation, _ = env.reset(seed=1)
    action, _ = model.predict(observation, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]
    assert isinstance(MaskablePPOAgent(model).act(observation[None], env.action_masks()[None]), np.ndarray)
