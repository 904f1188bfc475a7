"""Same seed, same game, for every variant: in the AEC environment, in the batched engine, and
between the two (game 0 of a batch seeded with s is the AEC game seeded with s)."""

from __future__ import annotations

import numpy as np
import pytest

import domino_env
from agents import sample_legal
from tests.configs import CONFIGS as DRAW_BLOCK
from tests.test_hungarian_general import CONFIGS as HUNGARIAN
from tests.test_mexican_train_general import CONFIGS as MEXICAN_TRAIN

pytestmark = pytest.mark.core

CASES = (
    {name: DRAW_BLOCK[name] for name in ("draw-2p", "draw-4p-partners", "draw-3p-match-difference", "block-2p")}
    | {
        f"hungarian-{name}": ("hungarian", HUNGARIAN[name])
        for name in ("3p", "2p-two-ends-match-points", "4p-elimination")
    }
    | {
        f"mexican_train-{name}": ("mexican_train", MEXICAN_TRAIN[name])
        for name in ("4p", "4p-set-aside-chain-must-play", "2p-match")
    }
)


def aec_trajectory(variant: str, options: dict, seed: int, episodes: int = 2) -> list:
    """Every observation of every agent, the rewards and the actions, over a few episodes."""
    env = domino_env.make(variant, **options)
    rng = np.random.default_rng(1)
    log: list = []
    env.reset(seed=seed)
    for _ in range(episodes):
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            log.append((agent, obs["observation"].tolist(), reward, info))
            action = None if term or trunc else int(sample_legal(obs["action_mask"][None], rng.random(1))[0])
            log.append(action)
            env.step(action)
        env.reset()
    return log


@pytest.mark.parametrize("name", CASES)
def test_aec_same_seed_same_game(name: str) -> None:
    variant, options = CASES[name]
    first = aec_trajectory(variant, options, seed=42)
    assert first == aec_trajectory(variant, options, seed=42)
    assert first != aec_trajectory(variant, options, seed=43)


@pytest.mark.parametrize("name", CASES)
def test_batched_same_seed_same_game(name: str) -> None:
    variant, options = CASES[name]

    def run(seed: int) -> list[np.ndarray]:
        batch = domino_env.make_batched(variant, 64, **options)
        rng = np.random.default_rng(2)
        obs, mask, seat = batch.reset(seed=seed)
        out = [obs, mask, seat]
        for _ in range(300):
            obs, mask, seat, rewards, done = batch.step(sample_legal(mask, rng.random(64)))
            out += [obs, mask, seat, rewards, done]
        return out

    first, second = run(5), run(5)
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))
    assert not np.array_equal(first[0], run(6)[0])


@pytest.mark.parametrize("name", CASES)
def test_aec_and_batched_agree_step_by_step(name: str) -> None:
    variant, options = CASES[name]
    env = domino_env.raw_env(variant, **options)
    batch = domino_env.make_batched(variant, 8, **options)
    rng = np.random.default_rng(3)
    env.reset(seed=9)
    obs, mask, seat = batch.reset(seed=9)
    episodes = 0
    while episodes < 3:
        agent = env.agent_selection
        if env.terminations[agent] and not all(env.terminations.values()):
            env.step(None)  # an eliminated player leaves the environment; the batch has no such step
            continue
        view = env.observe(agent)
        assert env.agent_seat[agent] == seat[0]
        assert np.array_equal(view["observation"], obs[0])
        assert np.array_equal(view["action_mask"], mask[0])
        actions = sample_legal(mask, rng.random(8))
        env.step(int(actions[0]))
        obs, mask, seat, rewards, done = batch.step(actions)
        assert [env.rewards.get(a, 0.0) for a in env.possible_agents] == pytest.approx(rewards[0].tolist())
        if batch.hand_over[0]:
            in_play = [s for s, a in enumerate(env.possible_agents) if a in env.infos]
            reported = [env.infos[env.possible_agents[s]]["hand_points"] for s in in_play]
            assert reported == batch.hand_points[0][in_play].tolist()
            if not done[0]:  # (a finished game 0 has already restarted in the batch)
                totals = batch.state[0]["match_points"][: env.game.num_players].tolist()
                assert env.infos[env.possible_agents[in_play[0]]]["match_points"] == totals
        if done[0]:
            assert all(env.terminations.values())
            env.reset()
            episodes += 1
