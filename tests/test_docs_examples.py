"""Every example in the README and in docs/ runs as written.

- Every ```python block of ``README.md`` and ``docs/*.md`` runs in a fresh Python process with the
  repository importable, in a temporary working directory and ``HOME`` (so the files an example
  writes land there), under a timeout. A failure names the file and line of the block, and the
  traceback's lines are the markdown file's own lines.
- A block that cannot run here (training for many minutes, a Ray cluster) says so in the markdown
  with an HTML comment on the line before it, ``<!-- not run: why -->``; such blocks are listed in
  ``NOT_RUN`` below, so that adding one is a visible change to this file, and they are reported
  as skipped with their reason.
- ```bash blocks are not run, but every ``python -m MODULE`` they name must exist, every
  ``python -m arena COMMAND`` must be a command of ``arena/cli.py``'s parser, every
  ``python path/to/script.py`` must exist, and every ``make TARGET`` must be in the Makefile.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
TIMEOUT_S = 420  # the slowest example (RLlib: starting Ray, then one training iteration) takes ~1 minute
NOT_RUN_MARK = re.compile(r"^<!--\s*not run:\s*(?P<why>.*?)\s*-->$")
# (file, why) of every block marked not run; a new mark must be added here too.
NOT_RUN: set[tuple[str, str]] = set()


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # the line of the block's first code line (1-based)
    language: str
    code: str
    not_run: str | None  # why, if marked not run

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT).as_posix()}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a markdown file, with the ``not run`` mark before each, if any."""
    found = []
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        fence = re.match(r"^(`{3,})(\w*)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        start = i + 1
        end = start
        while end < len(lines) and lines[end].strip() != fence[1]:
            end += 1
        assert end < len(lines), f"{path.relative_to(ROOT)}:{i + 1}: a code block that is never closed"
        before = [line for line in lines[:i] if line.strip()][-1:]
        mark = NOT_RUN_MARK.match(before[0].strip()) if before else None
        code = "\n".join(lines[start:end]) + "\n"
        found.append(Block(path, start + 1, fence[2].lower(), code, mark["why"] if mark else None))
        i = end + 1
    return found


ALL = [block for path in DOCS for block in blocks(path)]
PYTHON = [block for block in ALL if block.language == "python"]
SHELL = [block for block in ALL if block.language in ("bash", "sh", "shell", "console")]


def test_the_docs_have_examples() -> None:
    assert len(PYTHON) >= 5, [block.where for block in PYTHON]
    assert SHELL


def test_not_run_blocks_are_listed() -> None:
    """The blocks marked not run are exactly those listed in ``NOT_RUN`` (so each is a visible
    decision), and a mark stands only before a block."""
    marked = {(block.path.relative_to(ROOT).as_posix(), block.not_run) for block in ALL if block.not_run}
    assert marked == NOT_RUN, "update NOT_RUN in this file to list the blocks marked <!-- not run: ... -->"
    for path in DOCS:
        lines = path.read_text().splitlines()
        starts = {block.line - 1 for block in blocks(path)}  # the fence lines, 1-based
        for number, line in enumerate(lines, 1):
            if NOT_RUN_MARK.match(line.strip()):
                following = next((n for n in range(number + 1, len(lines) + 1) if lines[n - 1].strip()), None)
                assert following in starts, (
                    f"{path.relative_to(ROOT)}:{number}: a not-run mark with no code block after it"
                )


@pytest.mark.parametrize("path", DOCS, ids=[path.relative_to(ROOT).as_posix() for path in DOCS])
def test_links_lead_to_files_that_exist(path: Path) -> None:
    """Every relative link and picture of the README and the docs names a file of the repository."""
    text = "\n".join(block_free_lines(path))
    missing = [
        target
        for target in re.findall(r"\]\(([^)\s]+)\)", text)
        if "://" not in target and not target.startswith(("#", "mailto:"))
        if not (path.parent / target.split("#")[0]).exists()
    ]
    assert not missing, f"{path.relative_to(ROOT)} links to files that do not exist: {missing}"


def block_free_lines(path: Path) -> list[str]:
    """The lines of a markdown file with its code blocks blanked (line numbers kept)."""
    lines = path.read_text().splitlines()
    for block in blocks(path):
        for number in range(block.line - 1, block.line + block.code.count("\n")):
            lines[number - 1] = ""
    return lines


@pytest.mark.parametrize("block", PYTHON, ids=[block.where for block in PYTHON])
def test_python_example_runs(block: Block, tmp_path: Path) -> None:
    if block.not_run:
        pytest.skip(f"marked not run in the markdown: {block.not_run}")
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    # SB3 logs every ``learn`` to a new folder in the system's temporary directory unless told.
    env = dict(os.environ, HOME=str(home), MPLBACKEND="Agg", SB3_LOGDIR=str(tmp_path / "sb3_logs"))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    # Compiled with the markdown file's name and its lines' numbers, so a traceback points at them.
    runner = (
        "import sys\n"
        "path, first, code = sys.argv[1], int(sys.argv[2]), sys.argv[3]\n"
        "source = '\\n' * (first - 1) + code\n"
        "exec(compile(source, path, 'exec'), {'__name__': '__main__', '__file__': path})\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", runner, str(block.path), str(block.line), block.code],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{block.where}: the example ran over {TIMEOUT_S} s")
    if done.returncode:
        error = (done.stderr.strip() or done.stdout.strip())[-4000:]
        pytest.fail(f"{block.where}: the example failed (exit status {done.returncode}):\n{error}", pytrace=False)


# ---------------------------------------------------------------------------------------------- shell


def commands(code: str) -> list[list[str]]:
    """The commands of a shell block: continuation lines joined, comments dropped, split on
    ``&&``, ``;`` and ``|``."""
    text = re.sub(r"\\\n", " ", code)
    found = []
    for line in text.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        try:
            words = list(lexer)
        except ValueError:  # an unclosed quote: words as written
            words = line.split()
        command: list[str] = []
        for word in [*words, ";"]:
            if word in ("&&", ";", "|", "||"):
                if command:
                    found.append(command)
                command = []
            else:
                command.append(word)
    return found


def arena_commands() -> set[str]:
    from arena.cli import build_parser

    parser = build_parser()
    (action,) = [a for a in parser._actions if a.dest == "command"]
    return set(action.choices)


def make_targets() -> set[str]:
    return set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M))


def module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def shell_problems(block: Block) -> list[str]:
    problems = []
    for words in commands(block.code):
        for i, word in enumerate(words):
            if not re.fullmatch(r"(?:\S*/)?python3?(?:\.\d+)?", word):
                continue
            rest = words[i + 1 :]
            if rest[:1] == ["-m"] and len(rest) > 1:
                module = rest[1]
                if not module_exists(module):
                    problems.append(f"`python -m {module}`: no such module")
                elif module == "arena":
                    command = next((w for w in rest[2:] if not w.startswith("-")), None)
                    if command not in (None, "...") and command not in arena_commands():  # bare: the tool itself
                        problems.append(f"`python -m arena {command}`: not a command of arena/cli.py")
            elif rest[:1] and rest[0].endswith(".py") and not (ROOT / rest[0]).is_file():
                problems.append(f"`python {rest[0]}`: no such file")
        if words[:1] == ["make"]:
            for target in (w for w in words[1:] if not w.startswith("-") and "=" not in w):
                if target not in make_targets():
                    problems.append(f"`make {target}`: no such target in the Makefile")
        if words[:1] == ["domino"] and len(words) > 1 and words[1] not in arena_commands():
            problems.append(f"`domino {words[1]}`: not a command of arena/cli.py")
    return problems


def inline_commands(path: Path) -> list[tuple[int, str]]:
    """The ``python -m ...`` commands written as inline code in the prose (outside code blocks),
    with their line; a span may wrap onto the next line."""
    prose = "\n".join(block_free_lines(path))
    return [
        (prose.count("\n", 0, match.start()) + 1, " ".join(match[1].split()))
        for match in re.finditer(r"`(python3? -m [^`]+)`", prose)
    ]


@pytest.mark.parametrize("path", DOCS, ids=[path.relative_to(ROOT).as_posix() for path in DOCS])
def test_inline_commands_name_what_exists(path: Path) -> None:
    """``python -m MODULE`` written inline in the prose is checked as in the shell blocks."""
    problems = [
        f"{path.relative_to(ROOT).as_posix()}:{line}: {problem}"
        for line, command in inline_commands(path)
        for problem in shell_problems(Block(path, line, "bash", command + "\n", None))
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("block", SHELL, ids=[block.where for block in SHELL])
def test_shell_example_names_what_exists(block: Block) -> None:
    problems = shell_problems(block)
    assert not problems, f"{block.where}:\n  " + "\n  ".join(problems)


def test_the_shell_checks_catch_mistakes() -> None:
    """The checks above find a missing module, command, script and target."""
    code = (
        "python -m arena trian --config x.yaml   # a typo\n"
        "python -m benchmarks.speeed; python -m nowhere.at_all\n"
        "python examples/nothing.py --fast && make tset\n"
        "python -m arena evaluate draw_2p greedy \\\n    --games 10\n"
    )
    problems = shell_problems(Block(ROOT / "README.md", 1, "bash", code, None))
    assert problems == [
        "`python -m arena trian`: not a command of arena/cli.py",
        "`python -m benchmarks.speeed`: no such module",
        "`python -m nowhere.at_all`: no such module",
        "`python examples/nothing.py`: no such file",
        "`make tset`: no such target in the Makefile",
    ]


def test_every_benchmark_script_is_in_the_benchmarks_index() -> None:
    """docs/benchmarks.md lists every script in benchmarks/, so a newcomer finds the one that
    prints a figure without reading the code."""
    index = (ROOT / "docs" / "benchmarks.md").read_text().split("## Every benchmark script", 1)[-1]
    listed = set(re.findall(r"^\| `(\w+)` \|", index, re.MULTILINE))
    scripts = {path.stem for path in (ROOT / "benchmarks").glob("*.py") if path.stem != "__init__"}
    assert listed == scripts, f"missing: {sorted(scripts - listed)}, not scripts: {sorted(listed - scripts)}"
