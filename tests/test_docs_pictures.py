"""The table pictures in docs/pictures/ are what ``docs/make_pictures.py`` draws now.

``docs/make_pictures.py --tables`` writes each variant's table as ``table_<variant>.svg`` (the SVG
the environment draws) and ``table_<variant>.png`` (``render()``: that SVG rasterized by resvg with
the system's fonts). These tests draw them again into a temporary folder and compare: the SVG
text exactly (it depends on nothing but the code), the PNG pixels exactly where the font the
pictures are made with (DejaVu Sans, fonts-dejavu-core: ``make browser`` installs it) is
installed. A failure means the committed pictures are stale: run
``.venv/bin/python docs/make_pictures.py --tables`` (or without ``--tables`` for every picture).
The screenshots of pages (``web_play*.png``, ``replay.png``) need a browser and are not redrawn
here; ``tests/test_browser.py`` drives the same pages.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from PIL import Image

import domino_env

ROOT = Path(__file__).resolve().parent.parent
PICTURES = ROOT / "docs" / "pictures"
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
REMAKE = "run `.venv/bin/python docs/make_pictures.py --tables` and commit docs/pictures/"


def make_pictures() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_make_pictures", ROOT / "docs" / "make_pictures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKE_PICTURES = make_pictures()
VARIANTS = tuple(MAKE_PICTURES.TABLES)


@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pictures")
    MAKE_PICTURES.tables(out)
    return out


def test_every_variant_has_a_table_picture() -> None:
    assert set(VARIANTS) == set(domino_env.VARIANTS), "docs.make_pictures.TABLES must draw every variant"
    committed = {path.name for path in PICTURES.glob("table_*")}
    expected = {f"table_{variant}.{suffix}" for variant in VARIANTS for suffix in ("png", "svg")}
    assert committed == expected, f"docs/pictures/ holds {sorted(committed)}; {REMAKE}"


def test_the_pictures_the_docs_show_exist() -> None:
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for document in documents:
        for target in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", document.read_text()):
            if "://" not in target:
                assert (document.parent / target).is_file(), (
                    f"{document.relative_to(ROOT)} shows {target}: no such file"
                )


@pytest.mark.parametrize("variant", VARIANTS)
def test_table_svg_is_current(variant: str, drawn: Path) -> None:
    name = f"table_{variant}.svg"
    assert (PICTURES / name).is_file(), f"docs/pictures/{name} is missing: {REMAKE}"
    assert (drawn / name).read_text() == (PICTURES / name).read_text(), f"docs/pictures/{name} is stale: {REMAKE}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_table_png_is_current(variant: str, drawn: Path) -> None:
    if not FONT.is_file():
        pytest.skip(f"the pictures are drawn with {FONT} (fonts-dejavu-core: make browser)")
    name = f"table_{variant}.png"
    new = np.asarray(Image.open(drawn / name).convert("RGB"))
    old = np.asarray(Image.open(PICTURES / name).convert("RGB"))
    assert new.shape == old.shape, f"docs/pictures/{name} is {old.shape[:2]}, drawn now {new.shape[:2]}: {REMAKE}"
    differing = int((new != old).any(axis=2).sum())
    assert differing == 0, f"docs/pictures/{name}: {differing} pixels differ from the picture drawn now: {REMAKE}"
