"""Replays: a recorded game is the game ``env.reset(seed)`` deals, played out; the page and the
GIF hold every position; the command line writes them, and ``evaluate`` its replays and plot."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import domino_env
from agents import make_agent
from arena.cli import main
from arena.replay import read_html_data, record_game, write_gif, write_html, write_replay


def test_a_recording_replays_the_environment_move_for_move() -> None:
    game = domino_env.make_game("hungarian", num_players=3)
    agents = [make_agent("greedy", game, seed=s) for s in range(3)]
    replay = record_game(game, agents, seed=11)
    env = domino_env.raw_env("hungarian", num_players=3)
    env.reset(seed=11)
    for position in replay.positions[1:]:
        assert env.agent_seat[env.agent_selection] == position.seat
        env.step(position.action)
        np.testing.assert_array_equal(env.state_array, position.state)
    assert all(env.terminations.values())
    assert any(r != 0 for r in replay.positions[-1].rewards) and replay.positions[-1].hand_points


def test_the_page_holds_every_position_with_its_move_and_rewards(tmp_path: Path) -> None:
    game = domino_env.make_game("draw")
    replay = record_game(game, [make_agent("random", game, seed=1), make_agent("greedy", game, seed=2)], seed=4)
    data = read_html_data(write_html(replay, tmp_path / "game.html"))
    frames = data["frames"]
    assert len(frames) == len(replay.positions) and frames[0]["action"] == "deal"
    assert [f["action"] for f in frames[1:]] == [p.action_name for p in replay.positions[1:]]
    assert frames[-1]["rewards"] == replay.positions[-1].rewards and sorted(frames[-1]["rewards"]) == [-1.0, 1.0]
    assert all("hidden-face" in f["svg"] for f in frames)  # the page can show the hidden hands
    assert data["title"].startswith("Draw Dominoes, 2 players, seed 4: player_0 (random), player_1 (greedy)")


def test_the_gif_has_a_frame_per_position(tmp_path: Path) -> None:
    game = domino_env.make_game("block")
    replay = record_game(game, [make_agent("greedy", game, seed=1)] * 2, seed=2)
    with Image.open(write_gif(replay, tmp_path / "game.gif", show_hands=True)) as gif:
        assert gif.n_frames == len(replay.positions)
    with pytest.raises(ValueError, match=r"\.html or \.gif"):
        write_replay(replay, tmp_path / "game.png")


def test_replay_command_writes_html_and_gif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["replay", "heuristic", "random", "--variant", "mexican_train", "--option", "num_players=2",
          "--seed", "3", "--out", str(tmp_path / "game.html")])  # fmt: skip
    assert "player_0 (heuristic), player_1 (random)" in read_html_data(tmp_path / "game.html")["title"]
    main(["replay", "greedy", "--variant", "draw", "--out", str(tmp_path / "game.gif")])
    assert Image.open(tmp_path / "game.gif").n_frames > 2
    with pytest.raises(SystemExit):
        main(["replay", "greedy", "--variant", "draw", "--out", str(tmp_path / "game.txt")])
    assert "--out must end in .html or .gif" in capsys.readouterr().err


def test_evaluate_writes_its_plot_and_replays_of_chosen_games(tmp_path: Path) -> None:
    main(["evaluate", "greedy", "random", "--variant", "draw", "--games", "40", "--out", str(tmp_path),
          "--replays", "0", "2"])  # fmt: skip
    with Image.open(tmp_path / "arena.png") as plot:
        assert plot.size[0] > 400 and plot.size[1] > 100
    replays = sorted(p.name for p in (tmp_path / "replays").iterdir())
    assert replays == [
        f"{a}_vs_{b}_game{i}.html" for a, b in (("greedy", "random"), ("random", "greedy")) for i in (0, 2)
    ]
    game = domino_env.make_game("draw")
    again = record_game(game, [make_agent("greedy", game, seed=0), make_agent("random", game, seed=1)], 0, stream=2)
    deal = read_html_data(tmp_path / "replays" / "greedy_vs_random_game2.html")["frames"][0]["svg"]
    assert deal == read_html_data(write_html(again, tmp_path / "again.html"))["frames"][0]["svg"]  # the arena's slot 2
    assert deal != read_html_data(tmp_path / "replays" / "greedy_vs_random_game0.html")["frames"][0]["svg"]


def test_replay_refuses_more_policies_than_seats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["replay", "greedy", "random", "greedy", "--variant", "draw", "--out", str(tmp_path / "game.html")])
    assert "2 players seats 2 policies, got 3" in capsys.readouterr().err
    assert not (tmp_path / "game.html").exists()
