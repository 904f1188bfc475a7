"""How closely a network can learn its teacher: agreement on positions it was not fitted on.

A policy that starts self-play from imitation starts from the teacher's level only if it
plays the teacher's moves on new deals, not just on the ones it was fitted on: agreement on the
fitted decisions reaches 97-99% while the held-out agreement stays far lower, and that gap is
what the student loses in games. This benchmark records ``--decisions`` unforced decisions of
the teacher playing every seat (the first imitation round of a run), fits each network arm on
them epoch by epoch with the trainer's own ``fit``, and prints after each epoch the agreement on
the fitted decisions and on at least ``--held-out`` (20,000) decisions of whole hands from other deals,
with the seconds spent fitting, so arms compare at equal CPU time as well as at equal epochs.

Arms are ``HEAD:SIZES`` (``flat``, ``tiles`` or ``afterstate``, hidden sizes joined by ``x``).

    .venv/bin/python -m benchmarks.imitation_fidelity --variant mexican_train --players 4 \\
        [--decisions 400000] [--epochs 6] [--arms flat:512x256 tiles:512x256]
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import time

import torch

from agents.network import ACTION_HEADS, network_for, network_shape_problem
from agents.policy import PolicyAgent
from benchmarks import agent_or_exit, game_or_exit, positive_float, positive_int
from training.config import ImitationConfig
from training.imitation import fit, record_decisions

HELD_OUT = 20_000
FIT_SEED, HELD_OUT_SEED = 11, 12  # different deals


def parse_arm(text: str) -> tuple[str, list[int]]:
    """``HEAD:SIZES`` as (head, hidden sizes); anything else ends the script in one line."""
    head, _, sizes = text.partition(":")
    widths = sizes.split("x")
    if head not in ACTION_HEADS or not all(width.isdigit() for width in widths):
        heads = " or ".join(ACTION_HEADS)
        raise SystemExit(f"error: arm {text!r} is not HEAD:SIZES with HEAD {heads}, e.g. tiles:512x256")
    hidden = [int(width) for width in widths]
    problem = network_shape_problem(hidden, "mlp")
    if problem:
        raise SystemExit(f"error: arm {text!r}: {problem}")
    return head, hidden


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="mexican_train")
    parser.add_argument("--players", type=positive_int, default=4)
    parser.add_argument("--teacher", default="heuristic")
    parser.add_argument("--decisions", type=positive_int, default=400_000)
    parser.add_argument("--held-out", type=positive_int, default=HELD_OUT, help="decisions of whole new hands")
    parser.add_argument("--epochs", type=positive_int, default=6)
    parser.add_argument("--learning-rate", type=positive_float, default=1e-3)
    parser.add_argument("--arms", nargs="+", default=["flat:512x256", "tiles:512x256"])
    args = parser.parse_args(argv)
    arms = [parse_arm(arm) for arm in args.arms]
    torch.set_num_threads(1)
    game = game_or_exit(args.variant, num_players=args.players)
    teacher = agent_or_exit(args.teacher, game, seed=1)
    started = time.perf_counter()
    fitted, _ = record_decisions(game, teacher, None, args.decisions, num_envs=512, seed=FIT_SEED)
    # whole hands: 20,000 decisions over 256 games are a few hands a game, and cut at the count
    # they would lean towards short ones
    held_out, _ = record_decisions(
        game, teacher, None, args.held_out, num_envs=256, seed=HELD_OUT_SEED, whole_episodes=True
    )
    seconds = time.perf_counter() - started
    print(
        f"{len(fitted):,} decisions recorded, {len(held_out):,} held out, in {seconds:.0f} s "
        f"({args.variant}, {args.players} players)"
    )
    config = ImitationConfig(teacher=args.teacher, epochs=1, learning_rate=args.learning_rate)
    rows = []
    for head, sizes in arms:
        torch.manual_seed(0)
        network = network_for(game, sizes, action_head=head)
        generator = torch.Generator().manual_seed(0)
        seconds = 0.0
        for epoch in range(1, args.epochs + 1):
            started = time.perf_counter()
            stats = fit(network, fitted, config, 0.5, torch.device("cpu"), generator)
            seconds += time.perf_counter() - started
            agreement = (PolicyAgent(network).act(held_out.obs, held_out.mask) == held_out.action).mean()
            rows.append((f"{head}:{'x'.join(map(str, sizes))}", epoch, stats["agreement"], agreement, seconds))
            print(f"{rows[-1][0]} epoch {epoch}: fitted {stats['agreement']:.3f}, held out {agreement:.3f}", flush=True)
    print(f"\n{args.variant} {args.players}p, teacher {args.teacher}, {len(fitted):,} fitted decisions:\n")
    print("| arm | epochs | agreement, fitted | agreement, held out | fitting seconds |")
    print("|---|---:|---:|---:|---:|")
    for arm, epoch, on_fitted, on_held_out, seconds in rows:
        print(f"| {arm} | {epoch} | {on_fitted:.3f} | {on_held_out:.3f} | {seconds:.0f} |")


if __name__ == "__main__":
    main()
