"""What search on top of a trained policy buys: the policy alone and ``NAME+search`` at each
budget, side by side against the same tables of the heuristic, PIMC and ISMCTS.

    .venv/bin/python -m benchmarks.policy_search draw_2p block_2p [--simulations 256 1024]
        [--games 400] [--heuristic-games 1000] [--against heuristic pimc ismcts] [--margins 0 2]
        [--horizons 0 1] [--solves 0 14] [--belief draw_2p] [--trees 0 1] [--explore 1] [--no-policy]
        [--workers 2]

PIMC and ISMCTS play at the strength ladder's budgets (``arena.ship.ladder_search_agent``), so the
rows read against the ladder's. Every matchup plays the evaluation deals (seed 12345, never
trained on), seats rotated. Prints one Markdown row per agent: win rate with its 95% interval
against each table, and the agent's milliseconds per move (forced moves included). ``--workers``
processes share each matchup's games (agents.tournament.rotated_match), one a core.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import itertools

import torch

from agents import make_agent
from agents.base import Agent
from agents.policy import PolicyAgent
from agents.policy_search import SUFFIX
from arena.evaluation import run_arena
from arena.matchup import Matchup
from arena.ship import EVALUATION_SEED, SEARCH_AGENTS, ladder_search_agent
from benchmarks import nonnegative_int, policy_or_exit, positive_float, positive_int, worker_count
from training import checkpoint as ckpt


def opponent(name: str, game) -> Agent:
    """``name`` as the tables seat it: the search agents at the ladder's budgets."""
    return ladder_search_agent(name, game) if name in SEARCH_AGENTS else make_agent(name, game, seed=7)


def measure(
    config: str,
    simulations: list[int],
    against: list[str],
    games: int,
    heuristic_games: int,
    margins: list[float] = (0.0,),
    alone: bool = True,
    horizons: list[int] = (0,),
    solves: list[int] = (0,),
    belief: str | None = None,
    trees: list[int] = (0,),
    explore: float = 1.0,
    workers: int = 1,
) -> list[str]:
    folder, game, network = policy_or_exit(config)
    config = folder.name if folder.parent == ckpt.PRETRAINED_DIR else config
    agents: list[tuple[Agent, int]] = [(PolicyAgent(network, name=config), 0)] if alone else []
    try:  # every agent is built, and so checked, before the first game
        for name in against:
            opponent(name, game)
        for n, margin, horizon, solve, tree in itertools.product(simulations, margins, horizons, solves, trees):
            settings = {"margin": margin, "horizon": horizon, "solve": solve, "tree": tree}
            if tree:
                settings["explore"] = explore
            named = [f"{key}={value:g}" for key, value in settings.items() if value]
            named += [f"belief={belief}"] * bool(belief)
            name = config + SUFFIX + (":" + ",".join(named) if named else "")
            search = ckpt.load_search_agent(
                folder, game, network, name=name, simulations=n, seed=3, belief=belief, **settings
            )
            agents.append((search, n))
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None
    rows = []
    for agent, budget in agents:
        cells, ms = [], []
        for name in against:
            episodes = heuristic_games if name == "heuristic" else games
            seated = {agent.name: agent, name: opponent(name, game)}
            result = run_arena(game, seated, episodes, EVALUATION_SEED, [name], workers=workers)
            matchup: Matchup = next(m for m in result.matchups if m.policy == agent.name)
            low, high = matchup.interval()
            mark = "**" if matchup.verdict == "above" else ""
            cells.append(f"{mark}{matchup.win_rate:.3f}{mark} [{low:.3f}, {high:.3f}]")
            ms.append(matchup.ms_per_move)
        row = f"| {config} | {agent.name} | {budget or ''} | {' | '.join(cells)} | {sum(ms) / len(ms):.2f} |"
        print(row, flush=True)
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("configs", nargs="+", help="shipped agents (training/pretrained/) or checkpoints")
    parser.add_argument("--simulations", type=positive_int, nargs="+", default=[256, 1024])
    parser.add_argument("--against", nargs="+", default=["heuristic", "pimc", "ismcts"])
    parser.add_argument("--games", type=positive_int, default=400, help="episodes against each search agent")
    parser.add_argument("--heuristic-games", type=positive_int, default=1000, help="episodes against the heuristic")
    parser.add_argument(
        "--margins", type=float, nargs="+", default=[0.0], help="standard errors search needs to overrule the policy"
    )
    parser.add_argument(
        "--horizons",
        type=nonnegative_int,
        nargs="+",
        default=[0],
        help="the actor's turns before the value head scores a rollout",
    )
    parser.add_argument(
        "--solves",
        type=nonnegative_int,
        nargs="+",
        default=[0],
        help="endings of at most N tiles in hands solved (0: none)",
    )
    parser.add_argument(
        "--trees", type=int, nargs="+", default=[0], choices=[0, 1], help="1: the policy-guided ISMCTS (tree=1)"
    )
    parser.add_argument("--explore", type=positive_float, default=1.0, help="the guided tree's exploration constant")
    parser.add_argument("--belief", help="draw every search's worlds from this belief model (default: uniformly)")
    parser.add_argument("--no-policy", action="store_true", help="leave out the policy-alone row")
    parser.add_argument("--workers", type=worker_count, default=1, help="processes sharing each matchup's games")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    header = " | ".join(f"vs {name}" for name in args.against)
    print(f"| config | agent | simulations | {header} | ms/move |")
    print("|---|---|---:|" + "---|" * len(args.against) + "---:|")
    for config in args.configs:
        measure(
            config, args.simulations, args.against, args.games, args.heuristic_games, args.margins, not args.no_policy,
            args.horizons, args.solves, args.belief, args.trees, args.explore, args.workers,
        )  # fmt: skip


if __name__ == "__main__":
    main()
