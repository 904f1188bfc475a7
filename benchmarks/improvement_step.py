"""A policy fitted to its own action values, rolled out from real positions
(training/action_values.py), measured against the heuristic and the search agents beside the
policy as it was.

    .venv/bin/python -m benchmarks.improvement_step draw_2p [--positions 2000000] [--chunk 1000000]
        [--temperature 0.05] [--epochs 2] [--iterate] [--opponent heuristic] [--games 2000]
        [--against pimc ismcts] [--heuristic-games 16000] [--save DIR]
        [--student attention 64 64 [--student-head flat]] [--anneal]
        [--labeller ismcts:simulations=2000 [--workers 2]] [--driver ismcts:simulations=2000]

The policy (a shipped one or a checkpoint) reaches ``--positions`` unforced positions playing
every seat, ``--chunk`` at a time; every legal move of each is played out once from the real
state by the labelling policy, and each chunk is fitted ``--epochs`` times (Adam at
``--learning-rate``) to ``log prior + values / temperature``. The labelling policy is the one
given, frozen (one improvement step over it, its values averaged over every chunk), or with
``--iterate`` the fitted policy as it stands after each chunk (approximate policy iteration).
With ``--opponent heuristic`` the positions are the policy's turns in games against a table of
heuristics and the heuristic plays the other seats of every rollout, so the values are those of
playing against its table. With ``--labeller`` a search agent values every legal move from what
the seat to act knows instead (PIMC's mean over its worlds, ISMCTS's root means), its searches
shared by ``--workers`` processes, as are the games against the search agents. With
``--driver`` an agent's own games reach the positions instead of the policy's: ISMCTS's plans,
searched in the main process. With
``--student TRUNK SIZE...``, a new network of that trunk and those sizes is fitted from scratch
instead, to one step over the policy: the policy, frozen, reaches the positions and anchors the
targets. ``--anneal`` takes each chunk's learning rate down
to zero over its passes. The fitted policy then plays its most likely
moves against tables of the heuristic and of PIMC and ISMCTS at the strength ladder's budgets,
on the evaluation deals (seed 12345; the positions come from other seeds), seats rotated.
Prints a Markdown table: win rates with 95% Wilson intervals, the fit's loss and the seconds it
took.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import copy
import math
import time
from pathlib import Path

import numba
import torch
from tqdm import tqdm

from agents.network import ACTION_HEADS, TRUNKS, network_shape_problem
from agents.policy import PolicyAgent
from agents.registry import check_labeller, make_agent
from agents.tournament import against_table
from arena.ship import EVALUATION_SEED, ladder_search_agent
from benchmarks import nonnegative_int, policy_or_exit, positive_float, positive_int, worker_count
from training import checkpoint as ckpt
from training.config import ImprovementConfig
from training.improvement import improvement_chunks, reached_bar, student_network

DEFAULTS = ImprovementConfig()  # the settings a config's improve: section starts from


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("policy", help="a shipped policy (draw_2p) or a checkpoint")
    parser.add_argument("--positions", type=positive_int, default=2_000_000)
    parser.add_argument("--chunk", type=positive_int, default=DEFAULTS.chunk, help="positions fitted at once")
    parser.add_argument("--temperature", type=positive_float, default=DEFAULTS.temperature)
    parser.add_argument("--iterate", action="store_true", help="label each chunk with the policy fitted so far")
    parser.add_argument("--unanchored", action="store_true", help="fit values / T alone, not log prior + values / T")
    parser.add_argument("--opponent", help="an agent (heuristic) playing the other seats of every rollout")
    parser.add_argument("--labeller", help="a search agent (pimc:simulations=64) valuing the moves instead")
    parser.add_argument("--driver", help="an agent (ismcts:simulations=2000) whose own games reach the positions")
    parser.add_argument(
        "--workers", type=worker_count, default=1, help="processes sharing the labeller's searches and the search games"
    )
    parser.add_argument("--epochs", type=positive_int, default=DEFAULTS.epochs, help="passes over each chunk")
    parser.add_argument("--learning-rate", type=positive_float, default=DEFAULTS.learning_rate)
    parser.add_argument("--anneal", action="store_true", help="the rate falls to zero over each chunk's passes")
    parser.add_argument("--student", nargs="+", metavar="TRUNK SIZE",
                        help="fit a new network (attention 64 64) to one step over the policy")  # fmt: skip
    parser.add_argument("--student-head", choices=ACTION_HEADS, default="flat", help="the new network's action head")
    parser.add_argument("--minibatch-size", type=positive_int, default=DEFAULTS.minibatch_size)
    parser.add_argument("--games", type=nonnegative_int, default=2000, help="games against each search agent (0: none)")
    parser.add_argument("--against", nargs="+", default=["pimc", "ismcts"], choices=["pimc", "ismcts"])
    parser.add_argument("--heuristic-games", type=nonnegative_int, default=16_000)
    parser.add_argument("--skip-start", action="store_true", help="leave out the policy as it was")
    parser.add_argument("--seed", type=nonnegative_int, default=1)
    parser.add_argument("--save", metavar="DIR", help="write the fitted policy to DIR (a checkpoint)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    numba.set_num_threads(1)  # one heavy job per core
    _, game, start = policy_or_exit(args.policy)
    flags = (("--opponent", args.opponent), ("--labeller", args.labeller), ("--driver", args.driver))
    for flag, spec in flags:  # refused before any work
        try:
            if spec:
                agent = make_agent(spec, game)
                if flag == "--labeller":
                    check_labeller(agent, spec)
        except ValueError as error:
            raise SystemExit(f"error: {flag}: {error}") from None
    trunk, hidden = student_shape(args.student, args.iterate) if args.student else ("", [])
    settings = ImprovementConfig(
        positions=args.positions, chunk=args.chunk, opponent=args.opponent or "", labeller=args.labeller or "",
        temperature=args.temperature, anchored=not args.unanchored,
        epochs=args.epochs, learning_rate=args.learning_rate, anneal=args.anneal, minibatch_size=args.minibatch_size,
        student_trunk=trunk, student_hidden_sizes=hidden, student_head=args.student_head if trunk else "flat",
        workers=args.workers, driver=args.driver or "",
    )  # fmt: skip
    student = student_network(game, settings, args.seed)
    network, player = (copy.deepcopy(start), None) if student is None else (student, start)
    columns = [] if not args.heuristic_games else ["heuristic"]
    columns += args.against if args.games else []
    names = [name if name == "heuristic" else ladder_search_agent(name, game).name for name in columns]
    student = " ".join(args.student or [])
    print(f"{args.policy}: {args.positions:,} positions, {args.chunk:,} a chunk, T={args.temperature:g}, "
          f"{'iterated' if args.iterate else 'one step over the policy'}{', unanchored' if args.unanchored else ''}"
          f"{f', rollouts against {args.opponent}' if args.opponent else ''}"
          f"{f', moves valued by {args.labeller}' if args.labeller else ''}"
          f"{f', positions of {args.driver} games' if args.driver else ''}"
          f"{f', fitting a new {student} {args.student_head} network' if args.student else ''}")  # fmt: skip
    print("| policy | " + " | ".join(f"vs {name} | 95%" for name in names) + " | loss | seconds |")
    print("|---|" + "---|---|" * len(names) + "---|---|")

    def row(label: str, policy: torch.nn.Module, fitted: str) -> None:
        agent = PolicyAgent(policy, "policy", deterministic=True)
        cells = []
        for name in columns:
            if name == "heuristic":
                table, games, workers = make_agent("heuristic", game, seed=EVALUATION_SEED), args.heuristic_games, 1
            else:
                table, games, workers = ladder_search_agent(name, game), args.games, args.workers
            cells.append(against_table(game, agent, table, games, seed=EVALUATION_SEED, workers=workers).win_cells())
        print(f"| {label} | {' | '.join(cells)} | {fitted} |", flush=True)

    if not args.skip_start:
        row("as it was", start, "| ")
    started, loss, labelled = time.perf_counter(), math.nan, 0
    bar = tqdm(total=settings.positions, desc="positions valued", unit="position")  # on stderr
    with bar, reached_bar(settings) as reached:
        chunks = improvement_chunks(
            game, network, settings, args.seed, torch.device("cpu"), iterate=args.iterate, player=player,
            advance=bar.update, log=lambda line: tqdm.write(line, file=sys.stderr),
            reached=None if reached is None else reached.update,
        )  # fmt: skip
        for stats in chunks:
            loss, labelled = stats["loss"], int(stats["positions"])
            seconds = time.perf_counter() - started
            tqdm.write(f"chunk {stats['chunk']:.0f}: {labelled:,} positions, loss {loss:.4f} ({seconds:.0f} s)",
                       file=sys.stderr)  # fmt: skip
    seconds = time.perf_counter() - started
    if args.save:
        ckpt.save_model(Path(args.save), network, game)
    row(f"fitted, {labelled:,} positions", network, f"{loss:.4f} | {seconds:.0f}")


def student_shape(spec: list[str], iterate: bool) -> tuple[str, list[int]]:
    """The trunk and hidden sizes of ``--student TRUNK SIZE...``, checked as a config's are;
    refused in one line (SystemExit) where no network of that shape can be built."""
    trunk, sizes = spec[0], spec[1:]
    if iterate:
        raise SystemExit("error: --student fits a new network to one step over the policy: leave out --iterate")
    if trunk not in TRUNKS or not sizes or not all(size.isdigit() for size in sizes):
        raise SystemExit(f"error: --student takes a trunk ({', '.join(TRUNKS)}) and its sizes, got {' '.join(spec)}")
    hidden = [int(size) for size in sizes]
    problem = network_shape_problem(hidden, trunk)
    if problem:
        raise SystemExit(f"error: --student {' '.join(spec)}: {problem}")
    return trunk, hidden


if __name__ == "__main__":
    main()
