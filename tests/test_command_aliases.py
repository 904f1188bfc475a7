"""The command line answers under its new name and its old ones: ``python -m arena``, the
``domino`` console script, and the aliases ``python -m training`` and ``python -m training.ship``
that commands written before the packages were split still use."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points

import pytest

from arena import cli


@pytest.mark.parametrize("module", ["arena", "training"])
def test_the_command_line_answers_under_both_names(module: str) -> None:
    done = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert all(command in done.stdout for command in ("train", "evaluate", "play", "replay"))


@pytest.mark.parametrize("module", ["arena.ship", "training.ship"])
def test_shipping_answers_under_both_names(module: str) -> None:
    done = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "--evaluate" in done.stdout


def test_console_scripts_point_at_the_command_line() -> None:
    scripts = {entry.name: entry for entry in entry_points(group="console_scripts")}
    assert scripts["domino"].load() is cli.main
    assert scripts["domino-train"].load() is cli.train_main
