"""Runs a user can extend, restart exactly and branch: resume overrides, metrics after a kill,
numbers in scientific notation, new runs from a checkpoint's weights."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import torch
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

from arena.cli import main as cli_main
from domino_env import make_game
from tests.test_training import TINY
from training import checkpoint as ckpt
from training.config import SCHEDULE_KEYS, ConfigError, build_config, load_config
from training.logger import RUN_LOG

BATCH = 16 * 8  # env steps per update under TINY


def config_file(folder: Path, variant: str = "draw") -> Path:
    """A two-player config of the tests' own (the shipped ones change as they are tuned)."""
    path = folder / f"{variant}.yaml"
    if not path.is_file():
        path.write_text(f"env: {{variant: {variant}, options: {{num_players: 2}}}}\nrun: {{torch_threads: 1}}\n")
    return path


def new_run(tmp_path: Path, *overrides: str, name: str = "run", flags: tuple[str, ...] = ()) -> Path:
    """A finished TINY draw run (3 updates unless overridden) made through the command line."""
    base = ["train", "--config", str(config_file(tmp_path)), "--runs-dir", str(tmp_path), "--name", name]
    cli_main([*base, *flags, *TINY, *overrides])
    return tmp_path / name


def metrics(run_dir: Path) -> list[dict[str, str]]:
    with (run_dir / "metrics.csv").open() as handle:
        return list(csv.DictReader(handle))


def scalars(run_dir: Path) -> Counter:
    """How often each (tag, step) scalar appears in the run's TensorBoard event files."""
    return Counter(
        (value.tag, event.step)
        for path in (run_dir / "tensorboard").glob("events.out.tfevents.*")
        for event in EventFileLoader(str(path)).Load()
        for value in event.summary.value
    )


def progress(run_dir: Path) -> dict:
    return ckpt.load_training_state(ckpt.latest_checkpoint(run_dir))["progress"]


# ------------------------------------------------------------------------------------- numbers


def test_scientific_notation_is_a_number_in_overrides_and_files(tmp_path: Path) -> None:
    config = load_config(
        config_file(tmp_path), ["ppo.learning_rate=1e-4", "ppo.ent_coef=3E-5", "ppo.total_env_steps=2.5e6"]
    )
    assert (config.ppo.learning_rate, config.ppo.ent_coef, config.ppo.total_env_steps) == (1e-4, 3e-5, 2_500_000)
    assert isinstance(config.ppo.total_env_steps, int)
    path = tmp_path / "sci.yaml"  # YAML 1.1 would read 1e-4 and 1e2 as strings
    path.write_text(
        "env: {variant: block}\nppo: {learning_rate: 1e-4, num_envs: 1e2}\nnetwork: {hidden_sizes: [6.4E1]}\n"
    )
    config = load_config(path)
    assert (config.ppo.learning_rate, config.ppo.num_envs, config.network.hidden_sizes) == (1e-4, 100, [64])
    with pytest.raises(ConfigError, match=r"ppo\.num_envs must be an integer, got 25\.5"):
        build_config({}, ["ppo.num_envs=2.55e1"])
    assert build_config({}, ["run.name=1e-4x"]).run.name == "1e-4x"  # not a number: stays a string


# ------------------------------------------------------------------------------------- resume overrides


def test_resume_extends_the_total_steps_and_replans_the_learning_rate(tmp_path: Path) -> None:
    run_dir = new_run(tmp_path)  # 3 updates of 3
    with pytest.raises(SystemExit):  # nothing left to train: said, not silently skipped
        cli_main(["train", "--resume", str(run_dir)])
    assert ckpt.latest_checkpoint(run_dir).name == "update_000003"

    cli_main(["train", "--resume", str(run_dir), f"ppo.total_env_steps={6 * BATCH}"])
    assert ckpt.latest_checkpoint(run_dir).name == "update_000006"
    assert progress(run_dir)["env_steps"] == 6 * BATCH
    for config_file in (run_dir / ckpt.CONFIG_FILE, ckpt.latest_checkpoint(run_dir) / ckpt.CONFIG_FILE):
        assert load_config(config_file).ppo.total_env_steps == 6 * BATCH
    assert f"ppo.total_env_steps: {3 * BATCH} -> {6 * BATCH}" in (run_dir / RUN_LOG).read_text()
    rows = metrics(run_dir)
    assert [int(r["env_steps"]) for r in rows] == [BATCH * u for u in range(1, 7)]
    # The anneal follows the new plan: update u (1-based) of 6 trains at 3e-4 * (1 - (u - 1) / 6).
    assert [float(r["learning_rate"]) for r in rows[3:]] == pytest.approx([3e-4 * (1 - u / 6) for u in (3, 4, 5)])


def test_resume_extends_a_run_stopped_by_its_time_limit(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    limited = [f"ppo.total_env_steps={1000 * BATCH}", "run.time_limit_minutes=0.001", "eval.every=1000"]
    run_dir = new_run(tmp_path, *limited)
    before = progress(run_dir)
    assert before["update"] < 1000 and before["seconds"] >= 0.06  # it stopped by its time limit
    with pytest.raises(SystemExit):
        cli_main(["train", "--resume", str(run_dir)])
    assert "give a larger run.time_limit_minutes" in capsys.readouterr().err

    budget = (before["seconds"] + 2.0) / 60  # two seconds more
    cli_main(["train", "--resume", str(run_dir), f"run.time_limit_minutes={budget}"])
    after = progress(run_dir)
    assert after["update"] > before["update"]
    assert 60 * budget <= after["seconds"] < 60 * budget + 10
    assert load_config(run_dir / ckpt.CONFIG_FILE).run.time_limit_minutes == budget
    assert len(metrics(run_dir)) == after["update"]


@pytest.mark.parametrize(
    ("flags", "refused"),
    [
        (["ppo.learning_rate=1e-3"], "ppo.learning_rate"),
        (["--seed", "5"], "run.seed"),
        (["env.options={num_players: 3}", "eval.games=16"], "env.options"),
        (["network.hidden_sizes=[64]", "pool.baselines=[random]"], "network.hidden_sizes, pool.baselines"),
    ],
)
def test_resume_refuses_to_change_what_is_trained(
    flags: list[str], refused: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    run_dir = new_run(tmp_path, f"ppo.total_env_steps={2 * BATCH}", "ppo.num_envs=16")
    files = {path: path.read_bytes() for path in run_dir.rglob("*") if path.is_file()}
    with pytest.raises(SystemExit):
        cli_main(["train", "--resume", str(run_dir), f"ppo.total_env_steps={4 * BATCH}", *flags])
    error = capsys.readouterr().err
    assert f"cannot change {refused}:" in error and "--init-from CHECKPOINT" in error
    assert {path: path.read_bytes() for path in run_dir.rglob("*") if path.is_file()} == files  # nothing written


def test_schedule_keys_are_config_fields() -> None:
    fields = build_config({}).to_dict()
    for key in SCHEDULE_KEYS:
        section, name = key.split(".")
        assert name in fields[section], key


# ------------------------------------------------------------------------------------- new runs from weights


def test_init_from_starts_a_new_run_from_a_checkpoints_weights(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = ckpt.latest_checkpoint(new_run(tmp_path, name="source"))
    game = make_game("draw", num_players=2)
    # One update at a learning rate of 1e-12 leaves the weights where they started.
    flags = ("--init-from", str(source))
    branch = new_run(tmp_path, f"ppo.total_env_steps={BATCH}", "ppo.learning_rate=1e-12", name="branch", flags=flags)
    started, ended = ckpt.load_network(source, game).state_dict(), ckpt.load_network(branch, game).state_dict()
    assert all(torch.allclose(started[k], ended[k], atol=1e-6) for k in started)
    assert progress(branch)["update"] == 1  # a new run: its own counters, optimizer and pool
    assert load_config(branch / ckpt.CONFIG_FILE).run.init_from == str(source)

    for overrides, message in (
        (["network.hidden_sizes=[16]"], "set network.hidden_sizes=[32]"),
        (["env.variant=block"], "variant='draw'"),
    ):
        with pytest.raises(SystemExit):
            new_run(tmp_path, *overrides, name="refused", flags=flags)
        assert message in capsys.readouterr().err
        assert not (tmp_path / "refused").exists()  # refused before the run folder is made
    with pytest.raises(SystemExit):
        cli_main(["train", "--resume", str(branch), "--init-from", str(source)])
    assert "--resume continues a run" in capsys.readouterr().err


# ------------------------------------------------------------------------------------- killed runs

# A training process whose logger stops for good once it has logged update STOP, so that the test
# can kill it there, between two checkpoints, with metrics and TensorBoard events already on disk.
BLOCKED_RUN = """
import sys, time
from training import logger
from arena.cli import main

log = logger.MetricsLogger.log

def log_then_block(self, step, values):
    log(self, step, values)
    if step == int(sys.argv[1]):
        self.writer.flush()
        time.sleep(600)

logger.MetricsLogger.log = log_then_block
main(sys.argv[2:])
"""


def test_a_run_killed_with_sigkill_resumes_to_the_same_end(tmp_path: Path) -> None:
    schedule = [*TINY, f"ppo.total_env_steps={10 * BATCH}", "run.checkpoint_every=5", "eval.every=4"]
    flags = ["train", "--config", str(config_file(tmp_path, "block")), "--runs-dir", str(tmp_path), *schedule]
    output = tmp_path / "output.txt"
    with output.open("w") as sink:  # a file, not a pipe: a full pipe would stop the run
        process = subprocess.Popen(
            [sys.executable, "-c", BLOCKED_RUN, str(7 * BATCH), *flags, "--name", "killed"], stdout=sink, stderr=sink
        )
    run_dir = tmp_path / "killed"
    deadline = time.monotonic() + 120
    while not (run_dir / "metrics.csv").is_file() or ("learning_rate", 7 * BATCH) not in scalars(run_dir):
        assert process.poll() is None, output.read_text()
        assert time.monotonic() < deadline, "the run did not reach update 7"
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert ckpt.latest_checkpoint(run_dir).name == "update_000005"
    assert len(metrics(run_dir)) == 7  # updates 6 and 7 were logged after the last checkpoint

    cli_main(["train", "--resume", str(run_dir)])
    cli_main([*flags, "--name", "uninterrupted"])
    for name in ("killed", "uninterrupted"):
        folder = ckpt.latest_checkpoint(tmp_path / name)
        assert folder.name == "update_000010"
        assert progress(tmp_path / name)["env_steps"] == 10 * BATCH
        assert [int(r["env_steps"]) for r in metrics(tmp_path / name)] == [BATCH * u for u in range(1, 11)]
        steps = scalars(tmp_path / name)
        assert set(steps.values()) == {1}  # every scalar once per step
        assert sorted(step for tag, step in steps if tag == "learning_rate") == [BATCH * u for u in range(1, 11)]
