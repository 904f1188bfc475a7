"""The baseline agents, the seat-rotated match, and that the shipped scripts run."""

from __future__ import annotations

import numpy as np

import domino_env
from agents import GreedyAgent, RandomAgent, make_agent, sample_legal
from agents.tournament import main as tournament_main
from agents.tournament import rotated_match
from benchmarks.speed import main as speed_main


def test_sample_legal_only_picks_legal_actions_uniformly() -> None:
    mask = np.zeros((20_000, 6), np.int8)
    mask[:, [1, 4]] = 1
    actions = sample_legal(mask, np.random.default_rng(0).random(20_000))
    assert set(actions.tolist()) == {1, 4}
    assert abs((actions == 1).mean() - 0.5) < 0.02


def test_greedy_plays_the_heaviest_playable_tile() -> None:
    env = domino_env.raw_env("draw")
    env.reset(
        options={
            "deal": {
                "hands": [
                    [[6, 6], [6, 1], [6, 5], [0, 0], [1, 2], [2, 3], [3, 4]],
                    [[5, 5], [4, 4], [0, 1], [0, 2], [0, 3], [0, 4], [1, 1]],
                ],
                "boneyard": [
                    [a, b]
                    for b in range(7)
                    for a in range(b + 1)
                    if [a, b]
                    not in (
                        [6, 6],
                        [1, 6],
                        [5, 6],
                        [0, 0],
                        [1, 2],
                        [2, 3],
                        [3, 4],
                        [5, 5],
                        [4, 4],
                        [0, 1],
                        [0, 2],
                        [0, 3],
                        [0, 4],
                        [1, 1],
                    )
                ],
            }
        }
    )
    greedy = GreedyAgent(env.game)
    env.step(greedy.act_one(env.observe("player_0")))  # the forced lead 6-6
    env.step(env.action_from_name("draw"))  # player_1 holds no six
    while env.agent_selection == "player_1":
        env.step(int(np.flatnonzero(env.observe("player_1")["action_mask"])[0]))
    choice = greedy.act_one(env.observe("player_0"))
    assert env.action_name(choice).startswith("play 5-6")


def test_agents_work_on_the_batched_engine() -> None:
    batch = domino_env.make_batched("block", 64, num_players=4)
    obs, mask, _ = batch.reset(seed=1)
    for agent in (RandomAgent(seed=0), GreedyAgent(batch.game), make_agent("greedy", batch.game)):
        actions = agent.act(obs, mask)
        assert mask[np.arange(64), actions].all()


def test_rotated_match_mirrors_deals_and_counts_every_seat() -> None:
    game = domino_env.make_game("draw", num_players=3)
    agents = [make_agent(name, game, seed=i) for i, name in enumerate(["greedy", "random", "random"])]
    records = rotated_match(game, agents, episodes=300, seed=4, batch_size=50)
    assert [r.episodes for r in records] == [300, 300, 300]
    assert abs(sum(r.reward for r in records)) < 1e-6  # every hand's rewards sum to zero
    low, high = records[0].win_interval()
    assert low <= records[0].win_rate <= high
    # Identical deterministic agents: each plays every deal from every seat, so the totals match.
    greedy = [GreedyAgent(game) for _ in range(3)]
    mirrored = rotated_match(game, greedy, episodes=300, seed=4, batch_size=50)
    assert len({(r.wins, r.points, round(r.reward, 6)) for r in mirrored}) == 1


def test_tournament_script_prints_a_results_table(capsys) -> None:
    tournament_main(["--variant", "block", "--episodes", "40", "--seed", "2"])
    out = capsys.readouterr().out
    assert "Block Dominoes" in out and "| greedy |" in out and "| random |" in out


def test_speed_benchmark_prints_its_table(capsys) -> None:
    speed_main(["--seconds", "0.1", "--batch-size", "64"])
    out = capsys.readouterr().out
    assert "domino_env draw 2p (AEC)" in out and "connect_four" in out and "python_block_dominoes" in out
