"""The core suite: ``pytest -m core`` collects only the test files marked core.

A test file is core when it needs nothing beyond the core install and the ``test`` extra (no
torch, yaml, matplotlib, RL frameworks or browser); it says so with a module-level
``pytestmark`` holding ``pytest.mark.core``. ``make test-core`` runs ``pytest -m core`` in a
second venv without the ``train`` extra, to prove that the core install works on its own.

Why the other files are not collected at all under ``-m core``: pytest imports every test file
before it deselects by marker, and the other files import torch (or yaml, ray, playwright...) at
the top, so in the core venv they would fail to import. Leaving them out changes nothing else,
since ``-m core`` would deselect every test in them anyway. The choice depends on the command
line only, never on what is installed: a full run (no ``-m``) collects every file everywhere, so a
missing dependency in the full venv fails loudly instead of quietly shrinking the suite, and
``pytest -m core`` selects the same files in either venv. Whether a file is core is read from its
syntax tree (the ``pytestmark`` assignment), not by importing it.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

CORE = "core"


def marks_core(node: ast.expr) -> bool:
    """Whether ``node`` (a ``pytestmark`` value: a mark or a list of marks) holds ``pytest.mark.core``."""
    return any(
        isinstance(part, ast.Attribute)
        and part.attr == CORE
        and isinstance(part.value, ast.Attribute)
        and part.value.attr == "mark"
        and isinstance(part.value.value, ast.Name)
        and part.value.value.id == "pytest"
        for part in ast.walk(node)
    )


@functools.cache
def is_core_file(path: Path) -> bool:
    """Whether the module-level ``pytestmark`` of the test file at ``path`` holds the core mark."""
    for statement in ast.parse(path.read_text(), str(path)).body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in statement.targets
        ):
            return marks_core(statement.value)
    return False


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under ``-m core`` exactly, test files without the core mark are not collected (imported)."""
    if config.getoption("markexpr") != CORE:
        return None
    if collection_path.suffix == ".py" and collection_path.name.startswith("test_"):
        return True if not is_core_file(collection_path) else None
    return None
