"""Replays: a recorded game is the game ``env.reset(seed)`` deals, played out; the page and the
GIF hold every position; the command line writes them, and ``evaluate`` its replays and plot."""

from __future__ import annotations

import re
import shlex
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import domino_env
from agents import make_agent
from arena.cli import main
from arena.replay import picture, read_html_data, record_game, write_gif, write_html, write_replay
from domino_env.picture import rasterize


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
    assert all("hidden-face" in f["svg"] for f in frames[:-1])  # the page can show the hidden hands
    assert "hidden-face" not in frames[-1]["svg"] and "hidden-back" not in frames[-1]["svg"]  # the end: all face up
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


# ------------------------------------------------------------------ a replay names what reproduces it


def replay_again(command: str, out: Path) -> dict:
    """Run the ``python -m arena replay`` line a replay names, writing to ``out``."""
    words = shlex.split(command)
    assert words[:4] == ["python", "-m", "arena", "replay"]
    argv = words[3:]
    argv[argv.index("--out") + 1] = str(out)
    main(argv)
    return read_html_data(out)


def moves(data: dict) -> list[tuple[int, str]]:
    return [(frame["seat"], frame["action"]) for frame in data["frames"]]


def test_an_arena_replay_names_its_seed_stream_and_the_command_that_replays_it(tmp_path: Path) -> None:
    out = tmp_path / "arena"
    main(["evaluate", "greedy", "pimc:simulations=3", "--variant", "draw", "--option", "num_players=3", "--option",
          "match=true", "--games", "12", "--seed", "7", "--out", str(out), "--replays", "0", "3"])  # fmt: skip
    pages = sorted((out / "replays").iterdir())
    assert [p.name for p in pages] == [
        f"{a}_vs_{b}_game{i}.html"
        for a, b in (("greedy", "pimc_simulations_3"), ("pimc_simulations_3", "greedy"))
        for i in (0, 3)
    ]
    deals = set()
    for page in pages:
        data = read_html_data(page)
        stream = int(page.stem.rpartition("game")[2])
        assert data["seed"] == 7 and data["stream"] == stream
        assert data["title"].startswith(
            "Draw Dominoes (match=true), 3 players, seed 7" + (f" stream {stream}:" if stream else ":")
        )
        assert "--seed 7" in data["command"] and "--option match=true" in data["command"]
        assert ("--stream 3" in data["command"]) == (stream == 3)
        again = replay_again(data["command"], tmp_path / f"again_{page.name}")
        assert again["title"] == data["title"]
        assert moves(again) == moves(data)  # the named command plays the same game, move for move
        assert [f["svg"] for f in again["frames"]] == [f["svg"] for f in data["frames"]]
        deals.add(data["frames"][0]["svg"])
    assert len(deals) == 4  # two streams, and each matchup seats its policies differently


def test_the_replay_command_plays_a_stream_of_a_seed(tmp_path: Path) -> None:
    main(["replay", "greedy", "random", "--variant", "block", "--seed", "2", "--stream", "5",
          "--out", str(tmp_path / "game.html")])  # fmt: skip
    data = read_html_data(tmp_path / "game.html")
    assert data["title"] == "Block Dominoes, 2 players, seed 2 stream 5: player_0 (greedy), player_1 (random)"
    assert data["command"] == "python -m arena replay greedy random --variant block --seed 2 --stream 5 --out game.html"
    game = domino_env.make_game("block")
    agents = [make_agent("greedy", game, seed=2), make_agent("random", game, seed=3)]
    assert moves(data)[1:] == [(p.seat, p.action_name) for p in record_game(game, agents, 2, stream=5).positions[1:]]


# ------------------------------------------------------------------ the last position: the winner, every hand


def test_the_last_position_names_the_winner_and_shows_every_hand(tmp_path: Path) -> None:
    game = domino_env.make_game("draw", num_players=3)
    agents = [make_agent("greedy", game, seed=1), make_agent("random", game, seed=2), make_agent("random", game, 3)]
    replay = record_game(game, agents, seed=5, command="python -m arena replay greedy random random")
    winners = [s for s, total in enumerate(replay.totals) if total > 0]
    assert len(winners) == 1
    expected = f"game over: {replay.seat_names[winners[0]]} wins"
    assert replay.result() == expected
    last = picture(replay, len(replay.positions) - 1)
    root = ElementTree.fromstring(last)
    assert expected in "".join(root.itertext())
    assert "hidden-back" not in last and "hidden-face" not in last  # every hand face up
    hands = game.scene(replay.positions[-1].state, 0)[-3:]
    assert last.count('class="tile hand"') == sum(map(len, hands))
    assert "hidden-back" in picture(replay, len(replay.positions) - 2)  # before the end: hidden as usual

    data = read_html_data(write_html(replay, tmp_path / "game.html"))
    assert data["result"] == expected and expected in data["frames"][-1]["svg"]
    assert "hidden-back" not in data["frames"][-1]["svg"] and "hidden-face" in data["frames"][-2]["svg"]

    with Image.open(write_gif(replay, tmp_path / "game.gif")) as gif:
        assert gif.n_frames == len(replay.positions)
        assert gif.info["comment"].decode() == f"{replay.title()}\nreproduce: {replay.command}"
        gif.seek(gif.n_frames - 1)
        shown = np.asarray(gif.convert("RGB"), np.int16)
    final = rasterize(last).astype(np.int16)
    assert shown.shape == final.shape  # the tallest frame: the others are padded to it
    assert np.abs(shown - final).mean() < 8  # the last frame is that picture (up to the GIF's palette)


def test_a_game_without_a_winner_says_so() -> None:
    game = domino_env.make_game("draw")
    replay = record_game(game, [make_agent("greedy", game, seed=1)] * 2, seed=4)
    for position in replay.positions:
        position.rewards = [0.0, 0.0]
    assert replay.result() == "game over: no winner (a draw)"


# ------------------------------------------------------------------ the arena's picture


def test_the_arena_picture_keeps_its_labels_inside_and_names_the_game(tmp_path: Path) -> None:
    from matplotlib.text import Text

    from arena.matchup import Matchup
    from arena.plot import arena_figure, plot_arena

    long_name, other = "draw_2p+search:simulations=8", "pimc:simulations=10"
    matchups = [Matchup(long_name, other, 20, 20, 20, 100, 0.5), Matchup(other, long_name, 20, 0, 20, 100, 0.5)]
    game = "Mexican Train Dominoes (match=true, set_size=9), 4 players"
    figure = arena_figure(matchups, game)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    texts = [t for t in figure.findobj(Text) if t.get_visible() and t.get_text()]
    assert any(game in t.get_text() for t in texts)  # the title names the variant, its options, its players
    assert any("win rate" in t.get_text() for t in texts)
    for text in texts:
        extent = text.get_window_extent(renderer)
        assert figure.bbox.x0 - 0.5 <= extent.x0 and extent.x1 <= figure.bbox.x1 + 0.5, text.get_text()
        assert figure.bbox.y0 - 0.5 <= extent.y0 and extent.y1 <= figure.bbox.y1 + 0.5, text.get_text()
    with Image.open(plot_arena(matchups, tmp_path / "arena.png", game)) as png:
        assert png.size[0] > 400 and png.size[1] > 150


# ------------------------------------------------------------------ agents named with options, everywhere


def test_evaluate_keys_each_policy_by_its_name_as_typed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["evaluate", "pimc:simulations=2", "pimc:simulations=3", "greedy", "--variant", "draw", "--games", "4",
          "--against", "pimc:simulations=3", "--out", str(tmp_path)])  # fmt: skip
    out = capsys.readouterr().out
    assert "| pimc:simulations=2 | pimc:simulations=3 | 4 |" in out and "| greedy | pimc:simulations=3 | 4 |" in out
    assert out.count("| 4 |") == 2  # only tables of the one named with --against
    assert "| pimc:simulations=2 | " in (tmp_path / "arena.md").read_text()
    assert "pimc:simulations=3,4," in (tmp_path / "arena.csv").read_text().replace("greedy,", "")


def test_a_policy_with_search_against_an_agent_with_options(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    main(["evaluate", "draw_2p+search:simulations=2", "pimc:simulations=2", "--games", "2",
          "--against", "pimc:simulations=2"])  # fmt: skip
    out = capsys.readouterr().out
    assert "| draw_2p+search:simulations=2 | pimc:simulations=2 | 2 |" in out
    assert "| pimc:simulations=2 | draw_2p+search" not in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "draw_2p+search:simulations=2", "--against", "pimc:simulations=2"], "at least two policies"),
        (
            ["evaluate", "greedy", "pimc:simulations=2", "--variant", "draw", "--against", "pimc:simulations=5"],
            "--against 'pimc:simulations=5' is not one of the policies evaluated: greedy, pimc:simulations=2",
        ),
        (
            ["evaluate", "greedy", "pimc:simulations=2", "--variant", "draw", "--against", "pimc"],
            "--against 'pimc' is not one of the policies evaluated",
        ),
        (["evaluate", "greedy", "pimc:sims=2", "--variant", "draw"], "does not take the options ['sims']"),
        (["replay", "greedy", "pimc:sims=2", "--variant", "draw", "--out", "game.html"], "['sims']"),
        (["replay", "greedy", "draw_2p+search:sims=2", "--out", "game.html"], "takes only simulations=N"),
        (["replay", "greedy", "--variant", "draw", "--stream", "-1", "--out", "game.html"], "--stream must lie in"),
        (["play", "pimc:sims=2", "--variant", "draw", "--watch"], "does not take the options ['sims']"),
    ],
)
def test_a_bad_agent_name_is_refused_in_one_line(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(tmp_path / a) if a == "game.html" else a for a in argv]
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []


def test_play_and_replay_take_agents_with_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["play", "pimc:simulations=2", "--variant", "draw", "--watch", "--seed", "1"])
    assert "watching pimc" in capsys.readouterr().out
    main(["replay", "pimc:simulations=2", "heuristic", "--variant", "draw", "--out", str(tmp_path / "game.html")])
    data = read_html_data(tmp_path / "game.html")
    assert data["command"].startswith("python -m arena replay pimc:simulations=2 heuristic --variant draw --seed 0")


def test_ship_refuses_a_shipped_name_with_options_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    from arena import ship

    with pytest.raises(SystemExit):
        ship.main(["--evaluate", "draw_2p+search:simulations=8"])
    err = capsys.readouterr().err
    assert "no shipped agent of that name" in err and err.count("\n") == 1, err


def test_configs_take_agents_with_options_for_the_pool_and_the_teacher() -> None:
    pytest.importorskip("yaml")
    from training.config import ConfigError, load_config

    root = Path(__file__).resolve().parents[1]
    overrides = ['pool.baselines=["pimc:simulations=4", greedy]', "imitation.teacher=pimc:simulations=3"]
    config = load_config(root / "configs" / "draw_2p.yaml", overrides)
    assert config.pool.baselines == ["pimc:simulations=4", "greedy"]
    assert config.imitation.teacher == "pimc:simulations=3"
    for override, message in (
        ('pool.baselines=["pimc:sims=4"]', "pool.baselines[0]: agent 'pimc' does not take the options ['sims']"),
        ("imitation.teacher=greedy:depth=2", "imitation.teacher: agent 'greedy' does not take the options"),
        ('pool.baselines=["draw_2p+search:simulations=4"]', "pool.baselines[0]: unknown agent 'draw_2p+search'"),
    ):
        with pytest.raises(ConfigError, match=re.escape(message)) as error:
            load_config(root / "configs" / "draw_2p.yaml", [override])
        assert "\n" not in str(error.value)


def test_the_web_page_takes_an_agent_with_options() -> None:
    from arena.cli import load_policy
    from arena.web.server import Lobby, RequestError, offered_policies

    named = "pimc:simulations=2"
    lobby = Lobby(offered_policies(load_policy, named), {"opponent": named, "variant": "draw", "options": {}})
    assert named in lobby.choices()["agents"]
    view = lobby.new({"variant": "draw", "opponent": named, "seed": 1})
    assert view
    with pytest.raises(RequestError, match=r"does not take the options \['sims'\]"):
        lobby.new({"variant": "draw", "opponent": "pimc:sims=2", "seed": 1})
