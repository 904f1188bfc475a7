"""The Gymnasium single-agent view: Gymnasium's own checker, returns equal to the multi-agent
game's, seat rotation, opponents, illegal actions."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import agents
import domino_env
from agents import Agent, GreedyAgent, make_agent
from domino_env.single_agent import DominoSingleAgentEnv

pytestmark = pytest.mark.core

# The one warning the checker may give: observation features (match scores) have no upper bound.
UNBOUNDED_BOX = "A Box observation space maximum value is infinity"


@pytest.mark.parametrize("variant", domino_env.VARIANTS)
@pytest.mark.parametrize("learner_seat", [0, "rotate", "random"])
def test_check_env_passes(variant: str, learner_seat: int | str) -> None:
    # Made through Gymnasium's registry, so the checker also renders every declared mode.
    env = gymnasium.make(f"dominoes/{variant}-single-agent-v0", opponents="random", learner_seat=learner_seat)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught if UNBOUNDED_BOX not in str(w.message)] == []


@pytest.mark.parametrize("variant", domino_env.VARIANTS)
def test_episode_return_is_the_learners_return_in_the_multi_agent_game(variant: str) -> None:
    """Greedy everywhere is deterministic: the view and the AEC env must play the same game."""
    players = 3
    env = agents.make_single_agent(
        variant, opponents="greedy", learner_seat="rotate", illegal_action="raise", num_players=players
    )
    greedy = GreedyAgent(env.game)
    for seed in range(3 * players):
        observation, info = env.reset(seed=seed)
        assert info["learner_seat"] == seed % players
        total, terminated, steps = 0.0, False, 0
        while not terminated:
            assert (info["action_mask"] == env.action_masks()).all()
            action = greedy.act_one({"observation": observation, "action_mask": info["action_mask"]})
            observation, reward, terminated, truncated, info = env.step(action)
            assert not truncated
            total += reward
            steps += 1
        assert not env.action_masks().any()
        expected_total, expected_points, expected_steps = play_aec(variant, seed, info["learner_seat"], players)
        assert total == pytest.approx(expected_total)
        assert info["hand_points"] == expected_points
        assert steps == expected_steps


def play_aec(variant: str, seed: int, learner_seat: int, players: int) -> tuple[float, int, int]:
    """The learner's return, last hand points and number of decisions in the AEC game; a game
    over before the learner's first turn is dealt again, as the view documents (in Hungarian a
    leader can go out in one run)."""
    aec = domino_env.raw_env(variant, num_players=players)
    aec.reset(seed=seed)
    greedy = GreedyAgent(aec.game)
    learner = aec.possible_agents[learner_seat]
    while True:
        total, points, steps = 0.0, 0, 0
        for agent in aec.agent_iter():
            observation, reward, terminated, truncated, info = aec.last()
            if agent == learner:
                total += reward
                points = info.get("hand_points", points)
            if terminated or truncated:
                aec.step(None)
                continue
            steps += agent == learner
            aec.step(greedy.act_one(observation))
        if steps:
            return total, points, steps
        aec.reset()


class SeatRecorder(Agent):
    """Plays like ``inner`` and notes the seat it is asked to play (observations are relative,
    so the seat comes from the environment under test, set once it exists)."""

    env: DominoSingleAgentEnv

    def __init__(self, inner: Agent) -> None:
        self.inner, self.seats = inner, set()

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.seats.add(self.env.aec_env.agent_selection)
        return self.inner.act(observations, masks)


def test_opponents_sit_relative_to_the_rotating_learner() -> None:
    game = domino_env.make_game("draw", num_players=3)
    next_seat, seat_after = SeatRecorder(make_agent("random", game, seed=0)), SeatRecorder(GreedyAgent(game))
    env = agents.make_single_agent("draw", num_players=3, learner_seat="rotate", opponents=[next_seat, seat_after])
    next_seat.env = seat_after.env = env
    seats = []
    for episode in range(3):
        next_seat.seats.clear()
        seat_after.seats.clear()
        _, info = env.reset(seed=10) if episode == 0 else env.reset()
        seats.append(info["learner_seat"])
        terminated = False
        while not terminated:
            _, _, terminated, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        learner = info["learner_seat"]
        assert next_seat.seats == {f"player_{(learner + 1) % 3}"}
        assert seat_after.seats == {f"player_{(learner + 2) % 3}"}
    assert seats == [1, 2, 0]  # seed 10 starts the turn at seat 10 % 3


def test_illegal_actions_end_the_episode_or_raise() -> None:
    env = agents.make_single_agent("block")
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)

    strict = agents.make_single_agent("block", illegal_action="raise")
    observation, _ = strict.reset(seed=0)
    with pytest.raises(domino_env.IllegalActionError, match="legal actions"):
        strict.step(illegal)
    assert (strict.reset(seed=0)[0] == observation).all()


def test_hungarian_elimination_match_runs_to_the_end_for_the_learner() -> None:
    """Seats eliminated mid-match leave the table; an eliminated learner's episode ends."""
    env = agents.make_single_agent(
        "hungarian", num_players=3, match=True, elimination=True, limit=30, learner_seat="rotate", opponents="random"
    )
    rng = np.random.default_rng(0)
    for seed in range(12):
        env.reset(seed=seed)
        terminated = False
        while not terminated:
            _, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        assert env.aec_env.terminations[env.learner]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="learner_seat"):
        agents.make_single_agent("draw", learner_seat=2)
    with pytest.raises(ValueError, match="learner_seat"):
        agents.make_single_agent("draw", learner_seat="clockwise")
    with pytest.raises(ValueError, match="unknown agent 'grandmaster'"):
        agents.make_single_agent("draw", opponents="grandmaster")
    with pytest.raises(TypeError, match=r"agents.make_single_agent\(variant, opponents='greedy'"):
        domino_env.make_single_agent("draw", opponents="greedy")  # the environment layer knows no names
    with pytest.raises(TypeError, match="act_one"):
        domino_env.make_single_agent("draw", opponents=42)
    with pytest.raises(ValueError, match="one entry per other seat"):
        agents.make_single_agent("draw", num_players=4, opponents=["random", "greedy"])
    with pytest.raises(TypeError, match="unknown option"):
        agents.make_single_agent("draw", colour="blue")
