"""numba's on-disk cache never runs stale code: a change to a compiled helper in one file reaches a
module that imports it, in a new process, although that module's own file did not change."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numba
import pytest

import domino_env
from domino_env import jit_cache
from domino_env.games import core

pytestmark = [
    pytest.mark.core,
    pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled"),
]

# Hungarian, two players, seat 0 dealt tiles 0..11 (0-0, 0-1, ...) and leading 0-0: it holds more
# tiles with a 0, so its run goes on and some plays are legal. With ``fits`` always False the run
# ends at once, nobody can play and the hand is over: no play is legal.
PLAY = """
import numpy as np
import domino_env
from domino_env.game import pack_config
from domino_env.games import hungarian_rules as rules

cfg = pack_config(rules.HungarianConfig(2, 1, 1, 0, 100, 0, 0))
state = np.zeros(1, rules.STATE_DTYPE)
rules.start_game_from_deal(state, cfg, 0, np.arange(28, dtype=np.int8), 0)
rules.step(state, cfg, 0, 0)
mask = np.zeros(rules.NUM_ACTIONS, np.int8)
rules.legal_mask(state, cfg, 0, mask)
print(domino_env.__file__, int(mask[: rules.PASS].sum()))
"""


def legal_plays(root: Path) -> int:
    """Legal plays after the lead, computed in a new process from the package copy in ``root``."""
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(root)
    result = subprocess.run([sys.executable, "-c", PLAY], cwd=root, env=env, capture_output=True, text=True, check=True)
    package_file, plays = result.stdout.split()
    assert Path(package_file).is_relative_to(root), "the copy, not the installed package, must run"
    return int(plays)


def test_a_changed_helper_reaches_the_cached_module_that_imports_it(tmp_path: Path) -> None:
    source = Path(domino_env.__file__).parent
    shutil.copytree(source, tmp_path / "domino_env", ignore=shutil.ignore_patterns("__pycache__"))
    games = tmp_path / "domino_env" / "games"
    helper = tmp_path.joinpath(*core.fits.py_func.__module__.split(".")).with_suffix(".py")
    assert helper.name != "hungarian_rules.py", "the helper must live in another file than its user"

    assert legal_plays(tmp_path) > 0
    assert list((games / "__pycache__").glob("hungarian_rules.*.nbi")), "the first run must cache"

    text = helper.read_text()
    edited = re.sub(r"(def fits\(.*?\):\n(?:    .*\n)*?)    return .*\n", r"\1    return False\n", text, count=1)
    assert edited != text
    helper.write_text(edited)
    assert legal_plays(tmp_path) == 0


def test_the_locators_are_chosen_through_numbas_documented_setting() -> None:
    """NUMBA_CACHE_LOCATOR_CLASSES names the project's locators, each before the numba locator it
    refines; a selection the user made is kept, and one already made (a parent's) is left alone."""
    mine = jit_cache.__name__
    assert os.environ[jit_cache.SETTING] == numba.config.CACHE_LOCATOR_CLASSES
    assert f"{mine}.ProjectInTreeLocator,InTreeCacheLocator" in numba.config.CACHE_LOCATOR_CLASSES
    default = jit_cache.locator_setting("").split(",")
    assert [name for name in default if not name.startswith(mine)] == list(jit_cache.NUMBA_LOCATORS)
    assert default.index(f"{mine}.ProjectUserProvidedLocator") == 0
    assert jit_cache.locator_setting(" UserWideCacheLocator ") == f"{mine}.ProjectUserWideLocator,UserWideCacheLocator"
    assert jit_cache.locator_setting("my.Locator,IPythonCacheLocator") == "my.Locator,IPythonCacheLocator"
    assert jit_cache.locator_setting(",".join(default)) == ",".join(default)
    assert isinstance(core.fits._cache._impl.locator, jit_cache.ProjectStamp)
