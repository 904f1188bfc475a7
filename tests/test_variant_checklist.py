"""The checklist for adding a variant (docs/architecture.md) names every place a variant must join.

The checklist is docs/architecture.md's list that starts "A new variant `foo` is these files:" and runs to
the next heading. This test finds, without being told, every place that lists the variants:

- **registries**: module-level (or class-level) assignments in the project's Python files whose
  value mentions every variant name (``"draw"``, ``"block"``, ...; names such as ``"draw-2p"``
  count for their variant) or every ``Game`` class of ``domino_env.variants.GAMES``. The
  checklist must name each as a code span ``module.NAME`` (``agents.heuristic.HEURISTICS``);
- **hand-written dispatch**: a module that compares a variant (``variant == "hungarian"``,
  ``game.name == ...``) or tests a ``Game`` class (``isinstance(game, MexicanTrainGame)``) for two
  or more variants, outside the variants' own files (``tests/test_draw_rules.py``), and a page
  that compares ``variant`` to a variant's name. The checklist must name the module
  (``tests.test_search_agents.shuffle_hidden``, or its path);
- **per-variant files**: a path that exists for every variant with only the variant's name
  changed (``domino_env/draw_v0.py``, ...). The checklist must name it with ``foo`` for the
  variant (``domino_env/foo_v0.py``);
- **config folders**: a folder of YAML files whose ``variant:`` fields cover every variant
  (``configs/``). The checklist must name a path inside it.

And every code span of the checklist that names a path or a dotted ``module.NAME`` must exist
(with ``foo`` read as any existing variant, and in a path an upper-case letter as any name part:
``configs/foo_Np.yaml``), and every item must name at least one such thing, so the list cannot
go stale. Every ``Game`` subclass with a variant name must be in ``GAMES``, which the search
starts from.
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from domino_env.game import Game
from domino_env.variants import GAMES

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "docs" / "architecture.md"  # the page holding the checklist
THIS = Path(__file__).resolve().relative_to(ROOT).as_posix()
CHECKLIST_START = "A new variant `foo` is these files:"
PLACEHOLDER = "foo"
# Folders whose Python files can hold a registry (the packages and everything that uses them).
SCANNED = ("domino_env", "agents", "training", "arena", "benchmarks", "examples", "tests", "docs")
PAGE_SUFFIXES = (".html", ".js")
VARIANTS = tuple(GAMES)
CLASSES = {cls.__name__: variant for variant, cls in GAMES.items()}


@dataclass(frozen=True)
class Place:
    """Something a new variant must join: how the checklist must name it, and where it is."""

    names: tuple[str, ...]  # any one of these, as (the start of) a code span of the checklist
    where: str  # for the failure message
    what: str


# ---------------------------------------------------------------------------------------------- files


@cache
def project_files() -> tuple[str, ...]:
    """Every file of the working tree that git tracks or would track (untracked, not ignored)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv", "runs", "__pycache__", "node_modules"}
        listed = [
            path.relative_to(ROOT).as_posix()
            for path in ROOT.rglob("*")
            if path.is_file() and not skip & set(path.relative_to(ROOT).parts)
        ]
    return tuple(sorted(path for path in set(listed) if (ROOT / path).is_file()))


def scanned_files(suffixes: tuple[str, ...]) -> list[str]:
    return [
        path for path in project_files() if path.split("/")[0] in SCANNED and path.endswith(suffixes) and path != THIS
    ]


def module_name(path: str) -> str:
    parts = path.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def parsed(path: str) -> ast.Module:
    return ast.parse((ROOT / path).read_text(), filename=path)


# ---------------------------------------------------------------------------------------------- finding


def variant_of_string(text: str) -> str | None:
    """The variant a string names: the name itself or the name then a separator (``"draw-2p"``)."""
    for variant in sorted(VARIANTS, key=len, reverse=True):
        if re.fullmatch(rf"{re.escape(variant)}([-_:+ ].*)?", text, re.S):
            return variant
    return None


def variants_mentioned(node: ast.AST) -> set[str]:
    """The variants an expression mentions by name or by ``Game`` class, anywhere inside it."""
    found = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
            variant = variant_of_string(inner.value)
            if variant:
                found.add(variant)
        elif isinstance(inner, ast.Name) and inner.id in CLASSES:
            found.add(f"class {inner.id}")
        elif isinstance(inner, ast.Attribute) and inner.attr in CLASSES:
            found.add(f"class {inner.attr}")
    return found


def lists_every_variant(found: set[str]) -> bool:
    return set(VARIANTS) <= found or {f"class {name}" for name in CLASSES} <= found


def assignments(tree: ast.Module) -> list[tuple[str, ast.AST, int]]:
    """``(name, value, line)`` of every module-level and class-level assignment to a name."""
    out = []
    bodies = [("", tree.body)] + [(f"{node.name}.", node.body) for node in tree.body if isinstance(node, ast.ClassDef)]
    for prefix, body in bodies:
        for statement in body:
            if isinstance(statement, ast.Assign):
                targets, value = statement.targets, statement.value
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                targets, value = [statement.target], statement.value
            else:
                continue
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        out.append((prefix + name.id, value, statement.lineno))
    return out


def registries() -> list[Place]:
    found = []
    for path in scanned_files((".py",)):
        for name, value, line in assignments(parsed(path)):
            mentioned = variants_mentioned(value)
            if lists_every_variant(mentioned):
                dotted = f"{module_name(path)}.{name}"
                found.append(Place((dotted,), f"{path}:{line}", f"`{name}` lists every variant"))
    return found


def is_variant_side(node: ast.AST) -> bool:
    """An operand that holds a variant's name: ``variant``, ``game.name``, ``data["variant"]``."""
    text = ast.unparse(node)
    return "variant" in text or text == "name" or text.endswith(".name")


def compared_variants(node: ast.AST) -> set[str]:
    """The variants a comparison or an isinstance test tells apart."""
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        if not any(is_variant_side(operand) for operand in operands):
            return set()
        found = set()
        for operand in operands:
            for inner in ast.walk(operand):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str) and inner.value in VARIANTS:
                    found.add(inner.value)
        return found
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "issubclass"):
        return {
            CLASSES[mention.removeprefix("class ")]
            for argument in node.args[1:]
            for mention in variants_mentioned(argument)
            if mention.startswith("class ")
        }
    return set()


def own_file(path: str) -> bool:
    """A file of one variant's own (``tests/test_draw_rules.py``), which a new variant leaves alone."""
    return any(re.search(variant_token(variant), path) for variant in VARIANTS)


def dispatch_sites() -> list[Place]:
    found = []
    for path in scanned_files((".py",)):
        if own_file(path):
            continue
        told_apart: dict[str, int] = {}
        for node in ast.walk(parsed(path)):
            for variant in compared_variants(node):
                told_apart.setdefault(variant, node.lineno)
        if len(told_apart) >= 2:
            line = min(told_apart.values())
            names = (module_name(path), path)
            found.append(Place(names, f"{path}:{line}", f"tells {', '.join(sorted(told_apart))} apart by hand"))
    pattern = re.compile(r"""variant\W{0,3}\s*[!=]==?\s*["'](\w+)["']|["'](\w+)["']\s*[!=]==?\s*\S*variant""")
    for path in scanned_files(PAGE_SUFFIXES):
        for number, text in enumerate((ROOT / path).read_text().splitlines(), 1):
            if any(name in VARIANTS for match in pattern.finditer(text) for name in match.groups() if name):
                found.append(Place((path,), f"{path}:{number}", "compares the variant by name"))
                break
    return found


def variant_token(variant: str) -> str:
    return rf"(?<![A-Za-z0-9]){re.escape(variant)}(?![A-Za-z0-9])"


def per_variant_files() -> list[Place]:
    """Paths that exist for every variant with only the variant's name changed."""
    files = set(project_files())
    templates = set()
    for path in files:
        for variant in VARIANTS:
            if re.search(variant_token(variant), path):
                templates.add(re.sub(variant_token(variant), "{variant}", path))
    found = []
    for template in sorted(templates):
        if all(template.replace("{variant}", variant) in files for variant in VARIANTS):
            named = template.replace("{variant}", PLACEHOLDER)
            found.append(Place((named,), template.replace("{variant}", VARIANTS[0]), "exists for every variant"))
    return found


def yaml_variants(data: object) -> set[str]:
    if isinstance(data, dict):
        own = {data["variant"]} if isinstance(data.get("variant"), str) else set()
        return own.union(*(yaml_variants(value) for value in data.values()))
    if isinstance(data, list):
        return set().union(*(yaml_variants(value) for value in data))
    return set()


def config_folders() -> list[Place]:
    """Folders of YAML files whose ``variant:`` fields cover every variant: grouped by folder
    (``configs/*.yaml``) and by folder of folders holding the same file name
    (``training/pretrained/*/config.yaml``)."""
    groups: dict[str, set[str]] = {}
    for path in project_files():
        if not path.endswith((".yaml", ".yml")):
            continue
        try:
            variants = yaml_variants(yaml.safe_load((ROOT / path).read_text()))
        except yaml.YAMLError:
            continue
        parts = path.split("/")
        if len(parts) >= 2:
            groups.setdefault("/".join(parts[:-1]) + "/", set()).update(variants)
        if len(parts) >= 3:
            groups.setdefault("/".join(parts[:-2]) + "/", set()).update(variants)
    return [
        Place((folder,), folder, "holds configs of every variant")
        for folder, variants in sorted(groups.items())
        if set(VARIANTS) <= variants
    ]


# ---------------------------------------------------------------------------------------------- the checklist


def checklist() -> tuple[int, list[str], str]:
    """The checklist's first line number, its items (a numbered or bulleted line and the
    indented lines that continue it) and its whole text."""
    lines = README.read_text().splitlines()
    starts = [number for number, line in enumerate(lines) if line.startswith(CHECKLIST_START)]
    assert len(starts) == 1, (
        f"{README.relative_to(ROOT)} must hold one line starting {CHECKLIST_START!r}, found {len(starts)}"
    )
    items: list[str] = []
    section = []
    continuing = False
    for line in lines[starts[0] + 1 :]:
        if line.startswith("#"):
            break
        section.append(line)
        if re.match(r"(\d+\.|[-*]) ", line):
            items.append(line)
            continuing = True
        elif continuing and line.startswith(" ") and line.strip():
            items[-1] += " " + line.strip()
        else:
            continuing = False
    return starts[0] + 1, items, "\n".join(section)


def code_spans(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def references(span: str) -> str | None:
    """What kind of project reference a code span is: ``"path"`` (``a/b.py``, ``a/b/``),
    ``"dotted"`` (``package.module.NAME``) or None (code, a name, an id such as ``dominoes/foo-v0``)."""
    if re.fullmatch(r"[\w.<>-]+(/[\w.<>-]+)*(\.\w+|/)", span) and "/" in span:
        return "path"
    top = {path.split("/")[0] for path in project_files()}
    if re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", span) and span.split(".")[0] in top:
        return "dotted"
    return None


def defined_names(tree: ast.AST) -> set[str]:
    body = tree.body if isinstance(tree, ast.Module | ast.ClassDef) else []
    names = set()
    for statement in body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(statement.name)
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in statement.names)
        elif isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names.update(node.id for target in targets for node in ast.walk(target) if isinstance(node, ast.Name))
    return names


def dotted_exists(span: str) -> bool:
    """``a.b.c.NAME``: the longest prefix that is a project module, then names defined in it."""
    parts = span.split(".")
    for cut in range(len(parts), 0, -1):
        base = "/".join(parts[:cut])
        for candidate in (f"{base}.py", f"{base}/__init__.py"):
            if (ROOT / candidate).is_file():
                node: ast.AST = ast.parse((ROOT / candidate).read_text())
                for name in parts[cut:]:
                    if name not in defined_names(node):
                        return False
                    node = next(
                        (s for s in node.body if isinstance(s, ast.ClassDef) and s.name == name),
                        ast.Module(body=[], type_ignores=[]),
                    )
                return True
        if (ROOT / base).is_dir() and cut == len(parts):
            return True
    return False


def span_exists(span: str, kind: str) -> bool:
    """Whether a reference names something: ``foo`` reads as any variant, and in a path an
    upper-case letter stands for any name part (``configs/foo_Np.yaml``: ``configs/draw_2p.yaml``)."""
    if kind == "dotted":
        readings = [span.replace(PLACEHOLDER, variant) for variant in VARIANTS] if PLACEHOLDER in span else [span]
        return any(dotted_exists(reading) for reading in readings)
    if (ROOT / span).exists():
        return True
    if PLACEHOLDER not in span:
        return False
    pattern = re.escape(span).replace(re.escape(PLACEHOLDER), "(" + "|".join(map(re.escape, VARIANTS)) + ")")
    pattern = re.sub(r"[A-Z]", r"\\w+", pattern) + ("" if span.endswith("/") else "(/|$)")
    return any(re.match(pattern, path) for path in project_files())


def names_place(span: str, name: str) -> bool:
    """Whether a code span names ``name``: the name itself or something inside it."""
    if name.endswith("/"):
        return span.startswith(name)
    return span == name or span.startswith((name + ".", name + "/"))


# ---------------------------------------------------------------------------------------------- tests


def test_every_registry_and_dispatch_site_is_on_the_checklist() -> None:
    line, items, _ = checklist()
    spans = [span for item in items for span in code_spans(item)]
    places = registries() + dispatch_sites() + per_variant_files() + config_folders()
    assert any(place.names == ("domino_env.variants.GAMES",) for place in places), (
        "the search found no `domino_env.variants.GAMES`: it is broken, not the checklist"
    )
    missing = [place for place in places if not any(names_place(span, name) for name in place.names for span in spans)]
    assert not missing, (
        f"{README.relative_to(ROOT)}'s checklist for a new variant (line {line}, {CHECKLIST_START!r}) misses places "
        "a new variant must join. Add an item for each, naming it as the first code span shown and "
        "saying what a new variant puts there:\n"
        + "\n".join(f"  - `{place.names[0]}`  ({place.where}: {place.what})" for place in missing)
    )


def test_every_checklist_item_names_something_that_exists() -> None:
    line, items, section = checklist()
    assert items, f"{README.relative_to(ROOT)}'s checklist (line {line}) has no items"
    problems = [
        f"names no path or `module.NAME`: {item[:90]!r}"
        for item in items
        if not any(references(span) for span in code_spans(item))
    ]
    for span in dict.fromkeys(code_spans(section)):
        kind = references(span)
        if kind and not span_exists(span, kind):
            problems.append(f"`{span}` does not exist ({kind}; `{PLACEHOLDER}` read as any variant)")
    assert not problems, f"stale entries in {README.relative_to(ROOT)}'s checklist (line {line}):\n  " + "\n  ".join(
        problems
    )


def test_every_game_class_is_registered() -> None:
    """The search reads the variants from ``GAMES``: a ``Game`` subclass with a variant name of
    its own must be in it, or every other check here would miss it."""

    for path in project_files():
        if path.startswith("domino_env/games/") and path.endswith(".py"):
            importlib.import_module(module_name(path))

    def subclasses(cls: type) -> set[type]:
        return set(cls.__subclasses__()).union(*(subclasses(sub) for sub in cls.__subclasses__()))

    named = {cls for cls in subclasses(Game) if "name" in vars(cls) and cls.__module__.startswith("domino_env.")}
    unregistered = sorted(cls.__qualname__ for cls in named - set(GAMES.values()))
    assert not unregistered, f"Game classes missing from domino_env.variants.GAMES: {unregistered}"
