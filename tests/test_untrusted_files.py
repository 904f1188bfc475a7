"""A run folder is data: sharing one must never let it run code on the machine that opens it.

Every file of a run folder is planted here with something that would run code (a pickle whose
unpickling creates a marker file, a YAML tag that would call a function) or ask for something
absurd (a network of a billion units, weights that are NaN), and every way of opening a folder
(``train --resume``, ``train --init-from``, ``evaluate``, the policies of ``play`` and ``replay``)
must refuse it with a one-line error, the marker never appearing.
"""

from __future__ import annotations

import json
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

from arena.cli import load_policy
from arena.cli import main as cli_main
from domino_env import make_game
from tests.test_training import TINY
from tests.test_training_resume import BATCH, config_file
from training import checkpoint as ckpt
from training.config import load_config
from training.logger import MetricsLogger
from training.ppo import train

GAME = make_game("draw", num_players=2)


class Payload:
    """Unpickling it creates ``marker``: what a pickled file can do on the machine that loads it."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A TINY draw run of 2 updates, made once; each test plants its payloads in a copy."""
    folder = tmp_path_factory.mktemp("shared")
    flags = ["--config", str(config_file(folder)), "--runs-dir", str(folder), "--name", "run"]
    cli_main(["train", *flags, *TINY, f"ppo.total_env_steps={2 * BATCH}"])
    return folder / "run"


@pytest.fixture
def run_dir(finished_run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(finished_run, copy)
    return copy


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "MARKER"


def pickled(marker: Path) -> bytes:
    data = pickle.dumps(Payload(marker))
    probe = marker.with_name("PROBE")  # the payload does run when a pickle is loaded
    pickle.loads(pickle.dumps(Payload(probe)))
    assert probe.is_file()
    probe.unlink()
    return data


def rewrite_model(folder: Path, metadata: dict[str, str] | None = None, **tensors: torch.Tensor) -> None:
    """The checkpoint's weights with ``metadata`` keys and ``tensors`` replaced."""
    path = folder / ckpt.MODEL_FILE
    weights = load_file(str(path)) | tensors
    save_file(weights, str(path), ckpt.read_metadata(path) | (metadata or {}))


def refused(argv: list[str], capsys: pytest.CaptureFixture, *expected: str) -> str:
    """Run the command line, which must stop with one line of error (no traceback) that says
    each of ``expected``."""
    with pytest.raises(SystemExit) as stopped:
        cli_main(argv)
    assert stopped.value.code == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("error: ") and "\n" not in error, error
    for text in expected:
        assert text in error, error
    return error


def latest(run_dir: Path) -> Path:
    return ckpt.latest_checkpoint(run_dir)


def all_ways_of_opening(run_dir: Path, tmp_path: Path) -> list[list[str]]:
    """Every command that reads a run folder's weights (and for ``--resume``, all of it)."""
    new = ["train", "--config", str(config_file(tmp_path)), "--runs-dir", str(tmp_path), "--name", "branch", *TINY]
    return [
        ["train", "--resume", str(run_dir), f"ppo.total_env_steps={4 * BATCH}"],  # more to do: it reads it all
        [*new, "--init-from", str(run_dir)],
        ["evaluate", str(run_dir), "random", "--games", "2"],
        ["evaluate", str(latest(run_dir) / ckpt.MODEL_FILE), "random", "--games", "2", "--variant", "draw"],
        ["replay", str(run_dir), "random", "--out", str(tmp_path / "game.html")],
    ]


# ------------------------------------------------------------------------------------- the training state


def test_the_training_state_is_plain_data(run_dir: Path) -> None:
    folder = latest(run_dir)
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [ckpt.MODEL_FILE, ckpt.CONFIG_FILE, ckpt.STATE_TENSORS, ckpt.STATE_FILE]
    )
    document = json.loads((folder / ckpt.STATE_FILE).read_text())
    assert document["state"]["progress"]["update"] == 2
    assert document["state"]["rng"]["bit_generator"] == "PCG64"  # numpy's generator: big ints in JSON
    state = ckpt.load_training_state(folder, GAME.new_state(1).dtype)
    assert state["env_state"].dtype == GAME.new_state(1).dtype and state["env_state"].shape == (16,)
    assert isinstance(state["torch_rng"], torch.Tensor) and state["torch_rng"].dtype == torch.uint8
    assert all(isinstance(k, int) for k in state["optimizer"]["state"])  # int keys stay ints
    assert isinstance(state["optimizer"]["param_groups"][0]["betas"], tuple)


def test_the_codec_round_trips_and_refuses_what_it_does_not_write() -> None:
    records = GAME.new_state(3)
    records["rng"] = [1, 2**64 - 1, 7]
    state = {
        "tensor": torch.arange(6, dtype=torch.float32).view(2, 3),
        "scalar": torch.tensor(3.0),
        "empty": np.zeros((0, 4), np.float32),
        "flags": np.array([True, False]),
        "records": records,
        "keys": {1: ("a", 2.5, None), "$odd": [np.int64(5), np.float32(0.25)]},
        "big": 2**127 + 1,
    }
    tensors, tree = ckpt.encode_state(state)
    back = ckpt.decode_state(tensors, json.loads(json.dumps(tree)), records.dtype)
    assert torch.equal(back["tensor"], state["tensor"]) and torch.equal(back["scalar"], state["scalar"])
    assert back["empty"].shape == (0, 4) and back["flags"].tolist() == [True, False]
    assert back["records"].tobytes() == records.tobytes() and back["records"].dtype == records.dtype
    assert back["keys"] == {1: ("a", 2.5, None), "$odd": [5, 0.25]}
    assert type(back["keys"]["$odd"][0]) is np.int64 and back["big"] == 2**127 + 1

    other = np.zeros(3, [("rng", "<u8"), ("x", "i1")])  # another record layout is refused, not reinterpreted
    with pytest.raises(ValueError, match="another layout"):
        ckpt.decode_state(tensors, tree, other.dtype)
    for bad in (
        {"$tensor": "missing"},
        {"$pickle": "gASV"},
        {"$number": 1, "dtype": "object"},
        {"$records": "records", "shape": [10**6], "dtype": str(records.dtype.descr)},
        {"$dict": [[[1], 2]]},
    ):
        with pytest.raises((ValueError, TypeError)):
            ckpt.decode_state(tensors, bad, records.dtype)
    with pytest.raises(TypeError, match="cannot store"):
        ckpt.encode_state({"object": Payload(Path("never"))})


def test_a_resumed_run_ends_bit_for_bit_where_the_uninterrupted_one_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Everything the state files hold comes back exactly (the pool's generator too: it is set
    after the snapshots are rebuilt, whose agents draw their seeds from it)."""
    schedule = [*TINY, f"ppo.total_env_steps={5 * BATCH}", "run.checkpoint_every=2"]
    config = load_config(config_file(tmp_path), schedule)
    train(config, tmp_path / "uninterrupted")
    log = MetricsLogger.log

    def killed_in_update_3(self, step, values):
        if step > 2 * BATCH:
            raise KeyboardInterrupt
        log(self, step, values)

    monkeypatch.setattr(MetricsLogger, "log", killed_in_update_3)
    with pytest.raises(KeyboardInterrupt):
        train(config, tmp_path / "resumed")
    monkeypatch.setattr(MetricsLogger, "log", log)
    assert latest(tmp_path / "resumed").name == "update_000002"
    train(config, tmp_path / "resumed", resume=True)

    ends = [latest(tmp_path / name) for name in ("uninterrupted", "resumed")]
    assert [end.name for end in ends] == ["update_000005"] * 2
    for name in (ckpt.MODEL_FILE, ckpt.STATE_TENSORS):
        first, second = (load_file(str(end / name)) for end in ends)
        assert first.keys() == second.keys()
        assert [k for k in first if not torch.equal(first[k], second[k])] == []
    first, second = (json.loads((end / ckpt.STATE_FILE).read_text()) for end in ends)
    first["state"]["progress"].pop("seconds"), second["state"]["progress"].pop("seconds")
    assert first == second


# ------------------------------------------------------------------------------------- pickles


def test_a_legacy_pickled_state_is_refused_unread(run_dir: Path, marker: Path, capsys: pytest.CaptureFixture) -> None:
    folder = latest(run_dir)
    (folder / ckpt.STATE_FILE).unlink()
    (folder / ckpt.STATE_TENSORS).unlink()
    (folder / ckpt.LEGACY_STATE_FILE).write_bytes(pickled(marker))
    refused(["train", "--resume", str(run_dir)], capsys, "older version", "cannot be resumed safely", "--init-from")
    assert not marker.exists()
    cli_main(["evaluate", str(run_dir), "random", "--games", "2"])  # its weights still play


def test_pickles_under_the_state_files_names_are_not_loaded(
    run_dir: Path, marker: Path, capsys: pytest.CaptureFixture
) -> None:
    folder = latest(run_dir)
    for name in (ckpt.STATE_FILE, ckpt.STATE_TENSORS, ckpt.LEGACY_STATE_FILE):
        (folder / name).write_bytes(pickled(marker))
    refused(["train", "--resume", str(run_dir)], capsys, ckpt.STATE_FILE)
    document = {"format": ckpt.STATE_FORMAT, "version": ckpt.STATE_VERSION, "state": {}}
    (folder / ckpt.STATE_FILE).write_text(json.dumps(document))
    refused(["train", "--resume", str(run_dir)], capsys, ckpt.STATE_TENSORS, "not a readable safetensors file")
    (folder / ckpt.MODEL_FILE).write_bytes(pickled(marker))
    for argv in all_ways_of_opening(run_dir, run_dir.parent):
        refused(argv, capsys)
    assert not marker.exists()


def test_a_state_that_does_not_fit_the_run_is_refused(run_dir: Path, capsys: pytest.CaptureFixture) -> None:
    path = latest(run_dir) / ckpt.STATE_FILE
    original = path.read_text()
    document = json.loads(original)
    document["state"]["env_state"]["dtype"] = "__import__('os').system('touch MARKER')"  # compared, never parsed
    path.write_text(json.dumps(document))
    refused(["train", "--resume", str(run_dir), f"ppo.total_env_steps={4 * BATCH}"], capsys, "another layout")

    document = json.loads(original)
    document["state"]["last"] = {"$array": "seat"}  # an array of another shape
    path.write_text(json.dumps(document))
    refused(["train", "--resume", str(run_dir), f"ppo.total_env_steps={4 * BATCH}"], capsys, "does not fit this run")

    document = json.loads(original)
    document["state"]["progress"] = {"update": "1; rm -rf /"}
    path.write_text(json.dumps(document))
    refused(["train", "--resume", str(run_dir), f"ppo.total_env_steps={4 * BATCH}"], capsys, "progress")

    path.write_text(original)  # the untouched state resumes
    cli_main(["train", "--resume", str(run_dir), f"ppo.total_env_steps={3 * BATCH}"])
    assert latest(run_dir).name == "update_000003"


# ------------------------------------------------------------------------------------- weights and metadata


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({"hidden_sizes": "[1000000000]"}, "hidden_sizes='[1000000000]'"),
        ({"hidden_sizes": json.dumps([32] * 100)}, "1 to 8 sizes"),
        ({"hidden_sizes": "[true]"}, "hidden_sizes"),
        ({"hidden_sizes": "[[" * 100000}, "hidden sizes"),
        ({"hidden_sizes": "[65536]"}, "tensor trunk.0.weight is F32 [32, 84]"),  # the header's shapes
        ({"critic_inputs": "1000000000"}, "critic_inputs='1000000000'"),
        ({"options": json.dumps({"num_players": 10**9})}, "num_players"),
        ({"variant": "x" * 10000}, "variant='xxx"),
    ],
)
def test_absurd_metadata_is_refused_before_anything_is_built(
    metadata: dict[str, str], expected: str, run_dir: Path, capsys: pytest.CaptureFixture
) -> None:
    rewrite_model(latest(run_dir), metadata)
    for argv in all_ways_of_opening(run_dir, run_dir.parent):
        error = refused(argv, capsys)
        assert len(error) < 600, error
    refused(["evaluate", str(run_dir), "random", "--games", "2", "--variant", "draw"], capsys, expected)
    with pytest.raises(ckpt.CheckpointError):
        load_policy(str(run_dir), GAME, seed=0)


def test_weights_that_are_not_finite_are_refused(run_dir: Path, capsys: pytest.CaptureFixture) -> None:
    folder = latest(run_dir)
    weight = load_file(str(folder / ckpt.MODEL_FILE))["trunk.0.weight"]
    weight[3, 4] = float("nan")
    rewrite_model(folder, **{"trunk.0.weight": weight})
    for argv in all_ways_of_opening(run_dir, run_dir.parent):
        refused(argv, capsys, "trunk.0.weight", "not finite")
    with pytest.raises(ckpt.CheckpointError, match="not finite"):
        load_policy(str(run_dir) + "+search:simulations=4", GAME, seed=0)
    weight[3, 4] = float("inf")
    rewrite_model(folder, **{"trunk.0.weight": weight})
    with pytest.raises(ckpt.CheckpointError, match="not finite"):
        load_policy(str(folder), GAME, seed=0)


def test_extra_or_missing_tensors_are_refused(run_dir: Path, capsys: pytest.CaptureFixture) -> None:
    rewrite_model(latest(run_dir), **{"extra.weight": torch.zeros(2)})
    refused(["evaluate", str(run_dir), "random", "--games", "2"], capsys, "unexpected ['extra.weight']")


# ------------------------------------------------------------------------------------- configs


def test_a_config_with_a_python_tag_runs_nothing(run_dir: Path, marker: Path, capsys: pytest.CaptureFixture) -> None:
    payload = f'!!python/object/apply:builtins.open ["{marker}", "w"]\n'
    for path in (run_dir / ckpt.CONFIG_FILE, latest(run_dir) / ckpt.CONFIG_FILE):
        original = path.read_text()
        path.write_text(payload)
        refused(["train", "--resume", str(run_dir)], capsys, str(path), "not a readable YAML config")
        path.write_text(original.replace("ppo:\n", f"ppo:\n  tag: {payload}", 1))
        refused(["train", "--resume", str(run_dir)], capsys, "not a readable YAML config")
        path.write_text(original)
    assert not marker.exists()


# ------------------------------------------------------------------------------------- python -m arena


def test_python_m_arena_prints_one_line(run_dir: Path, marker: Path, tmp_path: Path) -> None:
    """The whole program, as a user runs it: no traceback, nothing run."""
    folder = latest(run_dir)
    (folder / ckpt.STATE_FILE).unlink()
    (folder / ckpt.LEGACY_STATE_FILE).write_bytes(pickled(marker))
    rewrite_model(folder, {"hidden_sizes": "[1000000000]"})
    (run_dir / ckpt.CONFIG_FILE).write_text(f'!!python/object/apply:builtins.open ["{marker}", "w"]\n')
    for argv, expected in (
        (["train", "--resume", str(run_dir)], "not a readable YAML config"),
        (["evaluate", str(run_dir), "random", "--games", "2"], "hidden_sizes"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "arena", *argv], capture_output=True, text=True, timeout=120, cwd=Path.cwd()
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
        assert expected in done.stderr and "Traceback" not in done.stderr
    assert not marker.exists()
