"""PettingZoo's own API and seeding tests, on every promised configuration."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import domino_env
from domino_env import block_v0, draw_v0, hungarian_v0, mexican_train_v0
from tests.configs import API_CONFIGS, CONFIGS

pytestmark = pytest.mark.core

MODULES = {"draw": draw_v0, "block": block_v0, "hungarian": hungarian_v0, "mexican_train": mexican_train_v0}


@pytest.mark.parametrize("name", API_CONFIGS)
def test_api(name: str) -> None:
    variant, options = CONFIGS[name]
    api_test(domino_env.make(variant, **options), num_cycles=300)


@pytest.mark.parametrize("name", API_CONFIGS)
def test_seed(name: str) -> None:
    variant, options = CONFIGS[name]
    seed_test(lambda: MODULES[variant].env(**options), num_cycles=300)


@pytest.mark.parametrize("variant", domino_env.VARIANTS)
def test_registry_and_module(variant: str) -> None:
    env = pettingzoo.make("aec", f"dominoes/{variant}-v0", num_players=2)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == f"dominoes/{variant}-v0"
    assert MODULES[variant].raw_env().game.name == variant


def test_spaces_are_stable_objects() -> None:
    env = domino_env.make("draw", num_players=3)
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)


def test_render_ansi_shows_the_table() -> None:
    env = domino_env.make("draw", render_mode="ansi")
    env.reset(seed=5)
    text = env.render()
    assert "Draw Dominoes" in text and "player_0" in text and "boneyard: 14 tiles" in text


def test_render_rgb_array_draws_the_line_and_every_hand() -> None:
    env = domino_env.make("draw", num_players=3, render_mode="rgb_array")
    env.reset(seed=5)
    before = env.render()
    assert before.dtype == np.uint8 and before.ndim == 3 and before.shape[2] == 3
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert not np.array_equal(before, env.render())
