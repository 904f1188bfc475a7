"""Steps per second of domino_env against its peers, measured side by side in one run.

Rows: our AEC environment (the standard PettingZoo loop), a do-nothing AEC environment under the
same wrapper (the API's own floor), PettingZoo's connect_four_v3 (a classic environment), OpenSpiel's
python_block_dominoes (observation tensors included) and our batched engine on one thread, then
on more threads side by side (``--threads``, default 1 and every core). Every row plays uniformly
random legal moves for a fixed time after a warm-up, so numba compilation and cache loading are
not measured. The speed bars compare one thread of the batched engine, as the AEC rows use one.

    .venv/bin/python -m benchmarks.speed [--seconds 3] [--batch-size 1024] [--threads 1 2 4 8 16] [--markdown]
"""

from __future__ import annotations

import os
import sys

# ``python benchmarks/speed.py`` puts benchmarks/ on the path, not the repository root.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numba
import numpy as np
from pettingzoo import AECEnv

import domino_env
from agents import sample_legal
from benchmarks import positive_float, positive_int, trivial_env

WARMUP_SECONDS = 0.5
SEED = 0
TRIVIAL = "trivial AEC env (API floor)"
CONNECT_FOUR = "pettingzoo connect_four_v3"
AEC_DRAW = "domino_env draw 2p (AEC)"


@dataclass
class Row:
    """One measured implementation; ``steps_per_s`` is None when it could not run."""

    name: str
    steps_per_s: float | None
    note: str = ""


# ---------------------------------------------------------------------------------------------- AEC


def play_aec(env: AECEnv, rng: np.random.Generator, seconds: float) -> tuple[int, float]:
    """Play whole random episodes the standard way until ``seconds`` have passed; returns the
    number of ``env.step`` calls and the time taken. The clock is read between episodes only, so
    the loop body is exactly what a user writes."""
    steps = 0
    start = time.perf_counter()
    while True:
        env.reset()
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(legal.size)])
            env.step(action)
            steps += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps, elapsed


def time_aec(make_env: Callable[[], AECEnv], seconds: float) -> float:
    """Steps/s of one AEC environment after a warm-up on the same instance."""
    env = make_env()
    env.reset(seed=SEED)
    rng = np.random.default_rng(SEED)
    play_aec(env, rng, WARMUP_SECONDS)
    steps, elapsed = play_aec(env, rng, seconds)
    env.close()
    return steps / elapsed


def connect_four() -> AECEnv:
    """PettingZoo's connect_four_v3 as shipped (its own wrappers); needs pettingzoo[classic]."""
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


# ---------------------------------------------------------------------------------------------- OpenSpiel


def play_openspiel(game: object, rng: np.random.Generator, seconds: float) -> tuple[int, float]:
    """Play random games until ``seconds`` have passed, reading the acting player's observation
    tensor at every decision as an agent would; returns player actions and time. The deal's
    chance actions are played (and timed) but not counted: our deal happens inside ``reset``."""
    steps = 0
    start = time.perf_counter()
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                # Block dominoes deals uniformly from the tiles left, so a uniform pick is exact.
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            player = state.current_player()
            state.observation_tensor(player)
            legal = state.legal_actions(player)
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps, elapsed


def time_openspiel(seconds: float) -> float:
    """Steps/s of OpenSpiel's python_block_dominoes."""
    import pyspiel
    from open_spiel.python import games  # noqa: F401  (registers the python games)

    game = pyspiel.load_game("python_block_dominoes")
    rng = np.random.default_rng(SEED)
    play_openspiel(game, rng, WARMUP_SECONDS)
    steps, elapsed = play_openspiel(game, rng, seconds)
    return steps / elapsed


# ---------------------------------------------------------------------------------------------- batched


def play_batched(
    env: domino_env.BatchedEnv, mask: np.ndarray, rng: np.random.Generator, seconds: float
) -> tuple[int, float, float, np.ndarray]:
    """Step the batch with random legal actions for ``seconds``; returns batch steps, total time,
    time inside ``env.step`` alone (so the sampler's share can be taken out) and the last mask."""
    steps = 0
    step_time = 0.0
    start = time.perf_counter()
    while True:
        actions = sample_legal(mask, rng.random(env.batch_size))
        before = time.perf_counter()
        _obs, mask, _seat, _rewards, _done = env.step(actions)
        after = time.perf_counter()
        step_time += after - before
        steps += 1
        if after - start >= seconds:
            return steps, after - start, step_time, mask


def time_batched(variant: str, players: int, batch_size: int, seconds: float, threads: int) -> tuple[float, float]:
    """Game steps/s of the batched engine on ``threads`` threads (batch steps x batch size), with
    and without the (one-thread) sampler's time."""
    env = domino_env.make_batched(variant, batch_size=batch_size, num_threads=threads, num_players=players)
    _obs, mask, _seat = env.reset(seed=SEED)
    rng = np.random.default_rng(SEED)
    *_, mask = play_batched(env, mask, rng, WARMUP_SECONDS)
    steps, elapsed, step_time, _ = play_batched(env, mask, rng, seconds)
    return batch_size * steps / elapsed, batch_size * steps / step_time


# ---------------------------------------------------------------------------------------------- report


AEC_BAR = 0.8  # every AEC environment within 0.8 of the API's floor
# (variant, players) of the AEC rows beyond draw 2p, and of the batched rows, with their bars.
AEC_VARIANTS = [("draw", 4), ("block", 2), ("hungarian", 3), ("mexican_train", 4)]
BATCHED_VARIANTS = [("draw", 2, 1_000_000), ("hungarian", 3, 1_000_000), ("mexican_train", 4, 500_000)]


def aec_name(variant: str, players: int) -> str:
    return f"domino_env {variant} {players}p (AEC)"


def batched_name(variant: str, players: int, threads: int = 1) -> str:
    return f"domino_env {variant} {players}p batched" + (f", {threads} threads" if threads > 1 else "")


def measure(seconds: float, batch_size: int, threads: list[int]) -> list[Row]:
    """Every row; a peer whose package is missing is reported in its row, not fatal."""
    aec_rows: list[tuple[str, Callable[[], AECEnv], str]] = [
        (TRIVIAL, trivial_env.env, "2 agents, 1 legal move, 30 moves; OrderEnforcingWrapper"),
        (AEC_DRAW, lambda: domino_env.make("draw"), "OrderEnforcingWrapper"),
    ]
    aec_rows += [(aec_name(v, p), partial(domino_env.make, v, num_players=p), "") for v, p in AEC_VARIANTS]
    aec_rows.append((CONNECT_FOUR, connect_four, "3 wrappers, as shipped"))
    rows = [attempt(name, partial(time_aec, make_env, seconds), note) for name, make_env, note in aec_rows]
    rows.append(
        attempt("open_spiel python_block_dominoes", lambda: time_openspiel(seconds), "+ observation_tensor each move")
    )
    for variant, players, _ in BATCHED_VARIANTS:
        for count in threads:
            name = batched_name(variant, players, count)
            print(f"measuring {name} ...", file=sys.stderr, flush=True)
            with_sampler, without_sampler = time_batched(variant, players, batch_size, seconds, count)
            note = f"B={batch_size}, {count} thread{'s' if count > 1 else ''}"
            rows.append(Row(name, with_sampler, note + ", incl. numba sampler"))
            rows.append(Row(name + " (step only)", without_sampler, note + ", sampler excluded"))
    return rows


def attempt(name: str, run: Callable[[], float], note: str) -> Row:
    """Run one measurement; a missing optional dependency becomes a note in the table."""
    print(f"measuring {name} ...", file=sys.stderr, flush=True)
    try:
        return Row(name, run(), note)
    except ImportError as error:
        return Row(name, None, f"not run: {error}")


def ratio(value: float | None, base: float | None) -> str:
    """``value / base`` for the table, or n/a when either side could not run."""
    return f"{value / base:.2f}" if value is not None and base is not None else "n/a"


def table(rows: list[Row], markdown: bool) -> str:
    """The results with each row's ratio to the API floor and to connect_four_v3."""
    by_name = {row.name: row.steps_per_s for row in rows}
    header = ["implementation", "steps/s", "/ trivial", "/ connect_four", "notes"]
    body = [
        [
            row.name,
            f"{row.steps_per_s:,.0f}" if row.steps_per_s is not None else "n/a",
            ratio(row.steps_per_s, by_name.get(TRIVIAL)),
            ratio(row.steps_per_s, by_name.get(CONNECT_FOUR)),
            row.note,
        ]
        for row in rows
    ]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---", "--:", "--:", "--:", "---"]) + "|"]
        return "\n".join(lines + ["| " + " | ".join(cells) + " |" for cells in body])
    widths = [max(len(cells[i]) for cells in [header, *body]) for i in range(len(header))]
    right = (False, True, True, True, False)
    return "\n".join(
        "  ".join(
            cell.rjust(w) if r else cell.ljust(w) for cell, w, r in zip(cells, widths, right, strict=True)
        ).rstrip()
        for cells in [header, *body]
    )


def targets(rows: list[Row]) -> list[str]:
    """The issue's speed bars, each PASS, FAIL or n/a (a row that could not run)."""
    by_name = {row.name: row.steps_per_s for row in rows}
    aec, trivial, c4 = (by_name.get(n) for n in (AEC_DRAW, TRIVIAL, CONNECT_FOUR))
    checks = [(f"AEC draw 2p / trivial >= {AEC_BAR}", aec / trivial if aec and trivial else None, AEC_BAR)]
    for variant, players in AEC_VARIANTS:
        value = by_name.get(aec_name(variant, players))
        share = value / trivial if value and trivial else None
        checks.append((f"AEC {variant} {players}p / trivial >= {AEC_BAR}", share, AEC_BAR))
    checks.append(("AEC draw 2p / connect_four >= 2.5", aec / c4 if aec and c4 else None, 2.5))
    for variant, players, bar in BATCHED_VARIANTS:
        checks.append(
            (f"batched {variant} {players}p >= {bar:,} steps/s", by_name.get(batched_name(variant, players)), bar)
        )
    lines = []
    for label, value, bar in checks:
        verdict = "n/a" if value is None else ("PASS" if value >= bar else "FAIL")
        shown = "" if value is None else f" ({value:,.2f})" if value < 1000 else f" ({value:,.0f})"
        lines.append(f"{verdict}  {label}{shown}")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=positive_float, default=3.0, help="measured time per row (default 3)")
    parser.add_argument(
        "--batch-size", type=positive_int, default=1024, help="games in the batched engine (default 1024)"
    )
    parser.add_argument(
        "--threads",
        type=positive_int,
        nargs="+",
        default=sorted({1, numba.config.NUMBA_NUM_THREADS}),
        help="thread counts of the batched rows (default: 1 and every core)",
    )
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args(argv)
    rows = measure(args.seconds, args.batch_size, args.threads)
    print(table(rows, args.markdown))
    print()
    print("AEC rows count every env.step call (incl. the None steps that retire finished agents);")
    print("OpenSpiel counts player moves (not the deal's chance moves); batched = batch size x steps.")
    print()
    print("\n".join(targets(rows)))


if __name__ == "__main__":
    main()
