"""The shape of the code base, checked so that it stays the shape the README describes.

- The packages form a strict stack, ``domino_env`` -> ``agents`` -> ``training`` -> ``arena``:
  a module imports only from its own package and those below it, and no two modules import
  each other, directly or round a longer loop. Every import counts, also those inside
  functions and under ``TYPE_CHECKING``. ``__main__`` modules are command aliases (``python -m
  training`` runs ``arena.cli``): they are run, never imported, so they stand outside the stack.
- No function of the project's own code is longer than 80 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.core

ROOT = Path(__file__).resolve().parent.parent
STACK = ("domino_env", "agents", "training", "arena")
MAX_FUNCTION_LINES = 80


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    modules = {}
    for package in STACK:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name != "__main__.py":
                modules[module_name(path)] = path
    return modules


def imported_modules(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """The project modules ``path`` imports by name: ``from pkg import sub`` counts as importing
    the module ``pkg.sub`` where one exists, else ``pkg`` itself."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {module for module in found if module in modules and module != name}


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {name: imported_modules(path, name, modules) for name, path in modules.items()}


def layer(module: str) -> int:
    return STACK.index(module.split(".")[0])


def test_no_package_imports_one_above_it() -> None:
    upward = [
        f"{module} imports {target}"
        for module, targets in import_graph().items()
        for target in sorted(targets)
        if layer(target) > layer(module)
    ]
    assert not upward, "imports that run up the stack:\n" + "\n".join(upward)


def test_the_import_graph_has_no_cycle() -> None:
    graph = import_graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert not cycles, "modules that import each other:\n" + "\n".join(cycles)


def test_the_graph_sees_real_imports() -> None:
    """The checks above only mean something if the graph finds the imports that exist."""
    graph = import_graph()
    assert "domino_env.game" in graph["agents.base"]
    assert "agents.network" in graph["training.config"]
    assert "training.checkpoint" in graph["arena.cli"] or any("training" in t for t in graph["arena.cli"])
    assert "domino_env.games.core" in graph["domino_env.games.draw_rules"]


def test_no_function_is_longer_than_80_lines() -> None:
    long = []
    for path in project_modules().values():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines:\n" + "\n".join(long)
