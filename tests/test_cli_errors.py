"""Every mistake on a command line is one line, ``error: ...`` with exit status 2, said before
any work starts: no traceback, no usage block, nothing trained, played or written. Config values
are checked for range with the key named, and ``pretrained:`` names stay in the shipped folder."""

from __future__ import annotations

import dataclasses
import math
import os
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from arena import ship
from arena.cli import main
from training import checkpoint as ckpt
from training.config import BOUNDS, ConfigError, TrainConfig, build_config

ROOT = Path(__file__).resolve().parent.parent
DRAW = ["--variant", "draw"]


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], entry=main) -> str:
    """The one line a refused command line prints (checked: status 2, one ``error:`` line)."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as stopped:
        entry(argv)
    said = capsys.readouterr()
    assert stopped.value.code == 2, (argv, said)
    assert said.err.startswith("error: ") and said.err.count("\n") == 1, (argv, said.err)
    assert "Traceback" not in said.err and said.out == "", (argv, said)
    return said.err


BAD_COMMAND_LINES = [
    (["evaluate", "planner", "random", "--variant", "draw"], "the planner plays Mexican Train only, not 'draw'"),
    (["evaluate", "random", "greedy", "--variant", "nosuch"], "unknown variant 'nosuch'"),
    (["evaluate", "random", "greedy", *DRAW, "--option", "nosuch=1"], "unknown option(s) 'nosuch'"),
    (["evaluate", "random", "greedy", *DRAW, "--option", "num_players=11"], "num_players"),
    (["evaluate", "random", "greedy", *DRAW, "--option", "num_players=nan"], "num_players"),
    (["evaluate", "random", "greedy", *DRAW, "--option", "noequals"], "not of the form key=value"),
    (["evaluate", "random", "greedy", *DRAW, "--option", "=3"], "not of the form key=value"),
    (["evaluate", "random", "greedy", *DRAW, "--option", "num_players=["], "is not YAML"),
    (["evaluate", "random", "nobody", *DRAW], "'nobody' is neither an agent"),
    (["evaluate", "random", "greedy:depth=2", *DRAW], "does not take the options ['depth']"),
    (["evaluate", "random", "pimc:simulations=-5", *DRAW], "simulations must be an integer from 1"),
    (["evaluate", "random", "pimc:simulations", *DRAW], "not of the form key=value"),
    (["evaluate", "draw_2p+search:simulations=-1", "random"], "simulations must be a positive integer"),
    (["evaluate", "mexican_train_4p+search:tree=1", "random"], "not Mexican Train's chain head"),
    (["evaluate", "random", "greedy", *DRAW, "--games", "0"], "--games must be a positive number"),
    (["evaluate", "random", "greedy", *DRAW, "--games", "-3"], "--games must be a positive number"),
    (["evaluate", "random", "greedy", *DRAW, "--workers", "0"], "--workers: workers must be a positive number"),
    (["evaluate", "random", "greedy", *DRAW, "--games", "many"], "invalid int value: 'many'"),
    (["evaluate", "random", "greedy", *DRAW, "--seed", "-1"], "--seed must lie in"),
    (["evaluate", "random", "greedy", *DRAW, "--against", "greedy", "nobody"], "--against 'nobody' is not one"),
    (["evaluate", "random", "greedy", *DRAW, "--replays", "0"], "--replays needs --out"),
    (["evaluate", "random", *DRAW], "at least two policies"),
    (["evaluate", "random", "greedy"], "name the game with --variant"),
    (["evaluate", "pretrained:../../arena", "random"], "no shipped agent of that name"),
    (["evaluate", "pretrained:/etc", "random"], "no shipped agent of that name"),
    (["evaluate", "draw_2p", "random", "--variant", "block"], "trained for variant='draw'"),
    (["evaluate", "random", "greedy", *DRAW, "--out", "/dev/null/arena"], "'/dev/null' is not a folder"),
    (["play", "random", *DRAW, "--seat", "9"], "--seat 9: Draw Dominoes seats players 0 to 1"),
    (["play", "random", *DRAW, "--seat", "-1"], "--seat -1"),
    (["play", "random", *DRAW, "--port", "70000"], "--port must lie in [0, 65535]"),
    (["play", "random", *DRAW, "--seed", "-5"], "--seed must lie in"),
    (["play", "random", "--variant", "nosuch"], "unknown variant 'nosuch'"),
    (["play", "nobody", *DRAW], "'nobody' is neither an agent"),
    (["replay", "random", "greedy", *DRAW, "--out", "game.txt"], "--out must end in .html or .gif"),
    (["replay", "random", "greedy", *DRAW, "--out", "/dev/null/game.html"], "'/dev/null' is not a folder"),
    (["replay", "random", "greedy", "greedy", *DRAW, "--out", "game.html"], "seats 2 policies, got 3"),
    (["replay", "random", "greedy", *DRAW, "--option", "players=3", "--out", "game.html"], "'players'"),
    (["replay", "random", "greedy"], "the following arguments are required: --out"),
    (["train"], "train needs --config"),
    (["train", "--config", "configs/none.yaml"], "does not exist"),
    (["train", "--config", "configs/draw_2p.yaml", "ppo.learning_rate=.nan"], "ppo.learning_rate must be a finite"),
    (["train", "--config", "configs/draw_2p.yaml", "ppo.learning_rate=["], "is not a YAML value"),
    (["train", "--config", "configs/draw_2p.yaml", "ppo.lerning_rate=1"], "did you mean ppo.learning_rate"),
    (["train", "--config", "configs/draw_2p.yaml", ".=1"], "not of the form section.key=value"),
    (["train", "--config", "configs/draw_2p.yaml", "--seed", "-1"], "run.seed must lie in"),
    (["train", "--config", "configs/draw_2p.yaml", "--runs-dir", "/dev/null/runs"], "'/dev/null' is not a folder"),
    (["dance"], "invalid choice: 'dance'"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_COMMAND_LINES, ids=[" ".join(a) for a, _ in BAD_COMMAND_LINES])
def test_a_bad_command_line_is_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # configs/ and relative outputs; nothing may be written anyway
    argv = [str(tmp_path / a) if a.startswith("game.") else a for a in argv]
    assert message in refused(capsys, argv)
    assert list(tmp_path.iterdir()) == []


def test_the_tournament_refuses_an_agent_the_variant_cannot_seat(capsys: pytest.CaptureFixture[str]) -> None:
    from agents.tournament import main as tournament_main

    said = refused(capsys, ["--variant", "draw", "--agents", "planner", "random"], entry=tournament_main)
    assert "the planner plays Mexican Train only" in said


def test_replays_are_numbered_within_the_games_played(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "arena"
    line = refused(capsys, ["evaluate", "random", "greedy", *DRAW, "--games", "40", "--out", str(out),
                            "--replays", "0", "20", "-1"])  # fmt: skip
    assert "--replays 20 -1: each matchup of --games 40 plays games 0 to 19" in line
    assert not out.exists()  # refused before the arena ran or wrote anything


def test_against_takes_a_policy_as_the_command_line_names_it(capsys: pytest.CaptureFixture[str]) -> None:
    main(["evaluate", "random", "pimc:simulations=2", *DRAW, "--games", "4", "--against", "pimc:simulations=2"])
    out = capsys.readouterr().out
    assert "| random | pimc:simulations=2 | 4 |" in out and "| pimc:simulations=2 | random |" not in out


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-m", "arena", "evaluate", "random", "greedy", *DRAW, "--games", "0"], "--games must be a positive"),
        (["-m", "arena", "play", "random", *DRAW, "--seat", "9"], "--seat 9"),
        (["-m", "arena", "play", "random", *DRAW], "the input ended before your move"),
        (["-m", "arena", "replay", "random", "--variant", "chess", "--out", "x.html"], "unknown variant 'chess'"),
        (["-m", "arena.ship", "--evaluate", "../draw_2p"], "--evaluate '../draw_2p': no shipped agent"),
        (["-m", "arena.ship", "--evaluate", "draw_2p", "--workers", "0"], "--workers: workers must be a positive"),
    ],
)
def test_as_a_user_runs_it(args: list[str], message: str) -> None:
    done = run(*args)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("module", ["policy_search", "endgame", "distill_rounds", "distill_targets"])
def test_a_benchmark_refuses_a_policy_that_is_not_there_in_one_line(module: str) -> None:
    done = run("-m", f"benchmarks.{module}", "no_such_policy")
    assert done.returncode == 1
    assert done.stderr == "error: 'no_such_policy' is neither a shipped agent nor a checkpoint or run folder\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--games", "0", "--table"], "--games must be a positive number"),
        (["--search-games", "-1", "--table"], "--search-games must be 0"),
        ([], "nothing to do"),
        (["--evaluate", "draw_9p"], "no shipped agent of that name; shipped: block_2p, draw_2p"),
        (["--profile", "/nonexistent/run"], "no metrics.csv there"),
        (["configs/none.yaml"], "does not exist"),
        (["--games", "x"], "invalid int value: 'x'"),
    ],
)
def test_ship_refuses_a_bad_command_line_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    assert message in refused(capsys, argv, entry=ship.main)


def test_ship_refuses_a_config_whose_name_is_not_a_shipped_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "...yaml"  # its stem, "..", would have named the folder above the shipped agents
    shutil.copy(ROOT / "configs" / "draw_2p.yaml", config)
    assert "must be a plain identifier" in refused(capsys, [str(config), "--runs-dir", str(tmp_path)], ship.main)
    seeded = tmp_path / "seeded.yaml"
    seeded.write_text((ROOT / "configs" / "draw_2p.yaml").read_text().replace("  seed: 1\n", "  seed: 12345\n"))
    line = refused(capsys, [str(seeded), "--runs-dir", str(tmp_path)], ship.main)
    assert "run.seed 12345 would train on the evaluation deals" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["...yaml", "seeded.yaml"]  # nothing trained


# ------------------------------------------------------------------------------------- config ranges


def numeric_keys() -> list[tuple[str, type]]:
    keys = []
    for section, kind in typing.get_type_hints(TrainConfig).items():
        for field in dataclasses.fields(kind):
            annotation = typing.get_type_hints(kind)[field.name]
            if annotation in (int, float):
                keys.append((f"{section}.{field.name}", annotation))
    return keys


def test_every_numeric_config_key_has_a_range() -> None:
    assert {key for key, _ in numeric_keys()} == set(BOUNDS)


@pytest.mark.parametrize(("key", "kind"), numeric_keys(), ids=[key for key, _ in numeric_keys()])
def test_nan_infinite_and_negative_config_values_are_refused_naming_the_key(key: str, kind: type) -> None:
    for raw in (".nan", "nan", ".inf", "inf", "-.inf", "-1", "-0.5"):
        with pytest.raises(ConfigError) as refusal:
            build_config({}, [f"{key}={raw}"])
        message = str(refusal.value)
        assert message.startswith(f"{key} must ") and "\n" not in message, (raw, message)
        assert BOUNDS[key].interval in message, (raw, message)  # the allowed range, named
    low = BOUNDS[key].low
    fine = low + 1 if BOUNDS[key].low_open or kind is int else low
    if math.isfinite(BOUNDS[key].high):
        fine = min(fine, BOUNDS[key].high)
    overrides = [f"{key}={fine}"]
    if key == "pool.self_play_share" or key == "pool.baseline_share":  # the two shares sum to at most 1
        other = "pool.baseline_share" if key == "pool.self_play_share" else "pool.self_play_share"
        overrides.append(f"{other}=0")
    build_config({}, overrides)  # the edge of the range is allowed


def test_config_ranges_name_key_value_and_range() -> None:
    with pytest.raises(
        ConfigError, match=r"^ppo\.clip_coef must be positive, got -0\.2; the allowed range is \(0, inf\)$"
    ):
        build_config({}, ["ppo.clip_coef=-0.2"])
    with pytest.raises(ConfigError, match=r"^ppo\.gae_lambda must lie in \[0, 1\], got 1\.5$"):
        build_config({}, ["ppo.gae_lambda=1.5"])
    with pytest.raises(ConfigError, match=r"^run\.time_limit_minutes must be a finite number, got inf"):
        build_config({}, ["run.time_limit_minutes=.inf"])
    too_wide = r"^network\.hidden_sizes=\[70000\]: expected a list of 1 to 8 sizes from 1 to 65536$"
    with pytest.raises(ConfigError, match=too_wide):
        build_config({}, ["network.hidden_sizes=[70000]"])


# ------------------------------------------------------------------------------------- shipped names


def test_pretrained_names_stay_in_the_shipped_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert ckpt.resolve_checkpoint("pretrained:draw_2p") == ckpt.PRETRAINED_DIR / "draw_2p"
    assert ckpt.resolve_checkpoint("draw_2p") == ckpt.PRETRAINED_DIR / "draw_2p"
    outside = tmp_path / "outside"
    shutil.copytree(ckpt.PRETRAINED_DIR / "draw_2p", outside)
    relative = os.path.relpath(outside, ckpt.PRETRAINED_DIR)
    for name in (f"pretrained:{relative}", f"pretrained:{outside}", "pretrained:../pretrained/draw_2p",
                 "pretrained:", "pretrained:draw_2p/", "pretrained:nosuch", "pretrained:.."):  # fmt: skip
        with pytest.raises(ckpt.CheckpointError, match="no shipped agent of that name"):
            ckpt.resolve_checkpoint(name)
    # without the prefix, a path is the user's own: taken as it is, never looked up in the shipped folder
    assert ckpt.resolve_checkpoint(str(outside)) == outside
    monkeypatch.chdir(tmp_path)
    assert ckpt.resolve_checkpoint("../pretrained/draw_2p") is None  # relative to here, where there is none
    # a link in the shipped folder that leads out of it is no shipped agent
    shipped = tmp_path / "shipped"
    shutil.copytree(ckpt.PRETRAINED_DIR / "draw_2p", shipped / "draw_2p")
    (shipped / "leak").symlink_to(outside, target_is_directory=True)
    monkeypatch.setattr(ckpt, "PRETRAINED_DIR", shipped)
    assert ckpt.pretrained_names() == ["draw_2p"]
    with pytest.raises(ckpt.CheckpointError):
        ckpt.resolve_checkpoint("pretrained:leak")
    assert ckpt.resolve_checkpoint("leak") is None
