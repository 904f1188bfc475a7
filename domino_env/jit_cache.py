"""numba's on-disk cache, made unable to run stale compiled code of this project.

numba stamps each cached function with the source of the one file it is written in. numba also
compiles into it, as constants and inlined calls, every global and compiled function it reaches
through that file's imports, so a change to another file goes unnoticed: change ``fits`` in
``draw_rules.py`` (where it lived) and a new process still played the old rule in Hungarian,
whose cache entry was stamped with ``hungarian_rules.py`` alone.

Here the stamp of a function of this project (``domino_env``, ``agents``, ``training``) covers
its file and every file of the project that file imports, transitively: whatever a compiled
function can reach, since numba resolves globals through the module's imports. A change to any
of them makes the stamp differ, and numba then recompiles and overwrites the entry. Why a stamp
rather than a cache folder named after a hash of the whole tree: the cache stays where numba
puts it (``__pycache__``, or ``NUMBA_CACHE_DIR``), old entries are overwritten instead of piling
up, and an edit to a file no compiled code imports (``training/cli.py``, ``env.py``) costs no
recompilation. Why the import graph of the files rather than a list of modules kept by hand: a
new module or import is covered without anyone remembering to add it.

The locators below are numba's own with only the stamp changed, and they serve files of this
project only (other code keeps numba's behaviour). They must be installed before any function of
the project is decorated, which is why ``domino_env/__init__.py`` imports this module first, and
every compiled module of ``agents`` and ``training`` imports ``domino_env``.

What is numba's public interface here and what is not:

- Where the cache lives is numba's to choose, through its documented settings only
  (``NUMBA_CACHE_DIR``, read as ``numba.config.CACHE_DIR``): nothing here changes it.
- Which locators numba consults, and in what order, is chosen through its documented
  ``NUMBA_CACHE_LOCATOR_CLASSES`` (numba 0.62 and later; ``numba.config.CACHE_LOCATOR_CLASSES``),
  which takes numba's locators by name and others by ``module.Class``. :func:`install` puts the
  project's locators in it, each just before the numba locator it refines, keeping any selection
  the user made there (or in numba's config file). It is written to ``os.environ`` as well as to
  ``numba.config``: numba reads its settings again from the environment whenever a ``NUMBA_``
  variable changes, and a value set only in ``numba.config`` would then be lost without a word;
  child processes inherit it too, and import this module when numba first caches there.
- The stamp itself has no public equivalent: numba documents that its cache misses changes made
  in another file, and offers no setting for it. The locators subclass the locator classes of
  ``numba.core.caching`` (named in numba's caching notes, not a promised interface) and override
  two methods of their interface, ``from_function`` and ``get_source_stamp``. That is why
  ``pyproject.toml`` pins numba below its next minor release: a new one is tested (this module
  and ``tests/test_jit_cache.py``) before the pin is raised.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from pathlib import Path

import numba
from numba.core import caching

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("domino_env", "agents", "training")


def module_file(name: str) -> Path | None:
    """The source file of module ``name`` if it belongs to one of ``PACKAGES``."""
    if name.split(".")[0] not in PACKAGES:
        return None
    base = ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# Import statements, read as text: several times faster than parsing every file, and a line of a
# docstring that looks like an import only adds a file to the stamp, which is harmless.
IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)|import[ \t]+([^\n#]+))", re.M
)
GLOB = re.compile(r'^IMPLEMENTED_BY = "([^"]+)"', re.M)


@functools.cache
def imported_files(path: Path) -> frozenset[Path]:
    """Project files ``path`` imports anywhere in its body (``from p import m`` counts module
    ``p.m`` when it is one, else ``p`` itself), and those matching its ``IMPLEMENTED_BY`` glob:
    a module whose compiled code calls functions registered with it by modules it does not
    import (the batch loops of :mod:`domino_env.games.core`) names them so."""
    text = path.read_text()
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found: set[Path | None] = set()
    for pattern in GLOB.findall(text):
        found.update(ROOT.glob(pattern))
    for dots, module, names, plain in IMPORT.findall(text):
        if plain:
            found.update(module_file(name.split()[0]) for name in plain.split(",") if name.strip())
            continue
        if dots:
            anchor = package.split(".")[: len(package.split(".")) - len(dots) + 1]
            module = ".".join([*anchor, module] if module else anchor)
        for name in names.strip("()").split(","):
            if name.strip():
                found.add(module_file(f"{module}.{name.split()[0]}") or module_file(module))
    found.discard(None)
    return frozenset(found)  # type: ignore[arg-type]


@functools.cache
def sources_stamp(path: Path) -> bytes:
    """A hash of ``path`` and every project file it imports, transitively. Computed once per
    process: the code a process compiles is the code it imported."""
    seen: set[Path] = set()
    pending = [path]
    while pending:
        current = pending.pop()
        if current not in seen:
            seen.add(current)
            pending.extend(imported_files(current))
    digest = hashlib.sha256()
    for file in sorted(seen):
        digest.update(str(file.relative_to(ROOT)).encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.digest()


def in_project(py_file: str) -> Path | None:
    path = Path(py_file).resolve()
    try:
        relative = path.relative_to(ROOT)
    except ValueError:
        return None
    return path if relative.parts[0] in PACKAGES and path.suffix == ".py" else None


class ProjectStamp:
    """Mixin for numba's locators: the stamp of the sources a function can reach, and no
    locator at all for files outside the project (numba's own then serve them)."""

    project_file: Path

    def get_source_stamp(self) -> bytes:
        return sources_stamp(self.project_file)

    @classmethod
    def from_function(cls, py_func: object, py_file: str) -> object:
        path = in_project(py_file)
        if path is None:
            return None
        locator = super().from_function(py_func, py_file)  # type: ignore[misc]
        if locator is not None:
            locator.project_file = path
        return locator


class ProjectUserProvidedLocator(ProjectStamp, caching.UserProvidedCacheLocator):
    """Under ``NUMBA_CACHE_DIR``."""


class ProjectInTreeLocator(ProjectStamp, caching.InTreeCacheLocator):
    """In ``__pycache__`` beside the source."""


class ProjectUserWideLocator(ProjectStamp, caching.UserWideCacheLocator):
    """In the user's cache folder, where ``__pycache__`` is not writable."""


SETTING = "NUMBA_CACHE_LOCATOR_CLASSES"
# numba's locators when the setting is empty, in numba's order (its caching notes name them).
NUMBA_LOCATORS = (
    "UserProvidedCacheLocator",
    "InTreeCacheLocator",
    "UserWideCacheLocator",
    "IPythonCacheLocator",
    "ZipCacheLocator",
)
# Each numba locator this project refines, and the refinement, consulted just before it.
REFINED = {
    "UserProvidedCacheLocator": ProjectUserProvidedLocator,
    "InTreeCacheLocator": ProjectInTreeLocator,
    "UserWideCacheLocator": ProjectUserWideLocator,
}


def locator_setting(current: str) -> str:
    """The value of ``NUMBA_CACHE_LOCATOR_CLASSES`` that puts the project's locators before
    those of numba they refine, in the selection ``current`` (empty: numba's default list). A
    value that already names them (inherited from a parent process) is kept as it is."""
    names = [name.strip() for name in current.split(",") if name.strip()] or list(NUMBA_LOCATORS)
    if any(name.startswith(f"{__name__}.") for name in names):
        return ",".join(names)
    setting = []
    for name in names:
        module, _, short = name.rpartition(".")
        if short in REFINED and module in ("", caching.__name__):
            setting.append(f"{__name__}.{REFINED[short].__name__}")
        setting.append(name)
    return ",".join(setting)


def install() -> None:
    """Select the project's locators through numba's documented setting (see the module
    docstring for why the environment too)."""
    setting = locator_setting(numba.config.CACHE_LOCATOR_CLASSES)
    os.environ[SETTING] = setting
    numba.config.CACHE_LOCATOR_CLASSES = setting


install()
