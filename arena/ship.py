"""Train a shipped config and package the result as a pretrained agent.

    python -m arena.ship configs/draw_2p.yaml [--games 16000] [--search-games 400]
    python -m arena.ship --evaluate draw_2p [--games 16000]   # a shipped agent again, untrained
    python -m arena.ship --table            # the README's pretrained table, from what is shipped

Trains with the config as it is (the imitation head start included), then evaluates the final
policy against tables of every fair agent the project ships that a policy must beat: random,
greedy and the heuristic, seats rotated over mirrored deals, on evaluation seeds the training
never used (:data:`EVALUATION_SEED`; training deals come from ``run.seed`` and the imitation
seeds derived from it). ``--search-games`` adds rows against PIMC and ISMCTS at the strength
ladder's budgets. The weights, the config, the learning curve, the evaluation table and a
``summary.json`` go to ``training/pretrained/<config name>/``, where ``evaluate`` and ``play``
find the agent by name; a run whose last phase fitted a new network also leaves there, in
``rollout/``, the PPO policy that plays its search's rollouts. ``--evaluate`` measures shipped
agents again (after a rules change, or with more games) and rewrites their evaluation, keeping
the training figures.

A policy's edge over the heuristic can be small where the deal decides most hands (Hungarian:
about 0.345 against a fair share of 1/3), and 2,000 games give an interval of +-0.021 there, so
the rows against the cheap agents use 16,000 games by default (+-0.0075); the search agents,
1,000 times slower per move, get ``--search-games``.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sys
import time
from pathlib import Path

from agents import make_agent
from agents.base import Agent
from agents.policy import PolicyAgent
from arena.cli import ArgumentParser, UsageError, check_workers_flag, check_writable
from arena.evaluation import run_arena
from arena.matchup import matchup_table
from domino_env import make_game
from domino_env.game import Game
from training import checkpoint as ckpt
from training import distill
from training.config import ConfigError, TrainConfig, load_config
from training.imitation import round_seed
from training.improvement import chunk_count, chunk_seed, improvement_seed
from training.logger import END_PHASE
from training.ppo import train, update_count

EVALUATION_SEED = 12345
PHASE_POSITIONS = f"{END_PHASE}positions"  # the metrics column of the improvement phase's positions so far
FAIR_AGENTS = ["random", "greedy", "heuristic"]  # every shipped policy must beat each of these
# Hand-written players stronger than the heuristic, by variant: measured beside the fair agents.
STRONGER_AGENTS = {"mexican_train": ["planner"]}
SEARCH_AGENTS = ["pimc", "ismcts"]  # rows measured with --search-games
SUMMARY_FILE = "summary.json"

# Simulations per move of the search agents, as in the strength ladder (benchmarks/strength.py),
# so that a policy's row against PIMC or ISMCTS reads against the ladder's rows.
SEARCH_BUDGETS = {"draw": 1000, "block": 2000, "hungarian": 2000, "mexican_train": 64}


def training_seeds(config: TrainConfig) -> set[int]:
    """Every seed whose deals the run played: the self-play games', each imitation round's,
    each distillation round's and each chunk's of the improvement phase."""
    seeds = {config.run.seed}
    if config.imitation.teacher:
        seeds |= {round_seed(config.run.seed, r) for r in range(config.imitation.rounds)}
    seeds |= distill.deal_seeds(config, update_count(config))
    seeds |= {chunk_seed(improvement_seed(config.run.seed), k) for k in range(chunk_count(config.improve))}
    return seeds


def ladder_search_agent(name: str, game: Game) -> Agent:
    """The search agent ``name`` (PIMC or ISMCTS) at the strength ladder's budget for ``game``."""
    return make_agent(name, game, seed=7, simulations=SEARCH_BUDGETS[game.name])


def fair_agents(game: Game) -> list[str]:
    """The fair agents a shipped policy of ``game`` is measured against at full games: the three
    every policy must beat, then the variant's stronger hand-written players."""
    return FAIR_AGENTS + STRONGER_AGENTS.get(game.name, [])


def evaluate_policy(
    game, policy: PolicyAgent, games: int, search_games: int, seed: int, workers: int = 1
) -> tuple[str, dict]:
    """The evaluation table (Markdown) and its figures: the policy against a table of each fair
    agent (:func:`fair_agents`), and of each search agent when ``search_games`` > 0, those games
    shared by ``workers`` processes (:func:`agents.tournament.rotated_match`)."""
    names = fair_agents(game)
    opponents = {name: make_agent(name, game, seed=i) for i, name in enumerate(names)}
    result = run_arena(game, {policy.name: policy} | opponents, games, seed=seed, opponents=names)
    matchups = [m for m in result.matchups if m.policy == policy.name]
    if search_games > 0:
        for name in SEARCH_AGENTS:
            searcher = ladder_search_agent(name, game)
            seated = {policy.name: policy, name: searcher}
            extra = run_arena(game, seated, search_games, seed=seed, opponents=[name], workers=workers)
            matchups += [m for m in extra.matchups if m.policy == policy.name]
    figures = {
        m.opponent: {
            "episodes": m.episodes,
            "win_rate": m.win_rate,
            "interval": list(m.interval()),
            "fair_share": m.fair_share,
            "verdict": m.verdict,
        }
        for m in matchups
    }
    figures["ms_per_move"] = matchups[0].ms_per_move if matchups else 0.0
    return matchup_table(matchups), figures


def ship(config_path: Path, games: int, search_games: int, runs_dir: str, workers: int = 1) -> Path:
    config = load_config(config_path, [f"run.dir={runs_dir}"])
    if EVALUATION_SEED in training_seeds(config):
        raise ValueError(f"run.seed {config.run.seed} would train on the evaluation deals (seed {EVALUATION_SEED})")
    run_dir = Path(config.run.dir) / config.run.name
    if run_dir.exists():
        shutil.rmtree(run_dir)
    started = time.perf_counter()
    folder = train(config, run_dir)
    minutes = (time.perf_counter() - started) / 60
    with (run_dir / "metrics.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    target = ckpt.PRETRAINED_DIR / config_path.stem
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(folder / ckpt.MODEL_FILE, target / ckpt.MODEL_FILE)
    shutil.copy(folder / ckpt.CONFIG_FILE, target / ckpt.CONFIG_FILE)
    shutil.rmtree(target / ckpt.ROLLOUT_DIR, ignore_errors=True)  # an earlier recipe's
    if (folder / ckpt.ROLLOUT_DIR).is_dir():
        shutil.copytree(folder / ckpt.ROLLOUT_DIR, target / ckpt.ROLLOUT_DIR)
    shutil.copy(run_dir / "learning_curve.png", target / "learning_curve.png")
    training = {
        "config": config_path.stem,
        "minutes": round(minutes, 2),
        "env_steps": int(rows[-1]["env_steps"]),
        "imitation_env_steps": int(
            float(next((r["imitation/env_steps"] for r in rows if r.get("imitation/env_steps")), 0))
        ),
        "teacher": config.imitation.teacher,
        "improvement_positions": int(
            float(next((r[PHASE_POSITIONS] for r in reversed(rows) if r.get(PHASE_POSITIONS)), 0))
        ),
    }
    write_evaluation(target, training, games, search_games, workers=workers)
    print(f"shipped {target} in {minutes:.1f} minutes of training")
    return target


def write_evaluation(
    target: Path, training: dict, games: int, search_games: int, kept: dict | None = None, workers: int = 1
) -> None:
    """Evaluate the agent shipped in ``target`` and write its ``evaluation.md`` and
    ``summary.json``; ``training`` holds how it was trained (config name, minutes, steps,
    teacher), as ``summary.json`` keeps it, and ``kept`` earlier rows (``summary.json``'s
    ``results``) that this evaluation does not measure again."""
    kept = kept or {}
    name = training["config"]
    config = load_config(target / ckpt.CONFIG_FILE)
    game = make_game(config.env.variant, **config.env.options)
    policy = PolicyAgent(ckpt.load_network(target, game), name=name)
    table, figures = evaluate_policy(game, policy, games, search_games, EVALUATION_SEED, workers)
    opponents = " ".join(fair_agents(game))
    teacher = f", after imitating the {training['teacher']}" if training["teacher"] else ""
    improved = training.get("improvement_positions", 0)
    then = f", then {improved:,} positions of improvement steps" if improved else ""
    report = (
        f"# {name}\n\n"
        f"Trained by `python -m arena.ship configs/{name}.yaml` in {training['minutes']:.1f} minutes{teacher} "
        f"({training['env_steps']:,} self-play environment steps and {training['imitation_env_steps']:,} "
        f"imitation steps{then}) on 2 CPU cores.\n\n"
        f"Evaluated on seed {EVALUATION_SEED} (deals the training never played), seats rotated; "
        f"`python -m arena evaluate {name} {opponents} --against {opponents} "
        f"--games {games} --seed {EVALUATION_SEED}` gives the first rows:\n\n{table}\n"
    )
    if kept:
        rows = [
            f"{opponent} {row['win_rate']:.3f} [{row['interval'][0]:.3f}, {row['interval'][1]:.3f}] "
            f"over {row['episodes']:,} games ({row['verdict']})"
            for opponent, row in kept.items()
        ]
        report += f"\nFrom an earlier evaluation, against tables of {'; '.join(rows)}.\n"
    (target / "evaluation.md").write_text(report)
    summary = training | {"evaluation_seed": EVALUATION_SEED, "results": kept | figures}
    (target / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n")
    print(report)


def reevaluate(name: str, games: int, search_games: int, workers: int = 1) -> None:
    """Measure the shipped agent ``name`` again without training it, keeping its training
    figures; with ``search_games`` 0 its rows against the search agents are kept as they were."""
    target = ckpt.PRETRAINED_DIR / name
    path = target / SUMMARY_FILE
    if not path.is_file():
        raise ValueError(f"no shipped agent {name!r}; shipped: {', '.join(ckpt.pretrained_names())}")
    summary = json.loads(path.read_text())
    training = {key: summary[key] for key in ("config", "minutes", "env_steps", "imitation_env_steps", "teacher")}
    training["improvement_positions"] = summary.get("improvement_positions", 0)
    kept = {k: v for k, v in summary["results"].items() if k in SEARCH_AGENTS} if search_games == 0 else {}
    write_evaluation(target, training, games, search_games, kept, workers)


def pretrained_table() -> str:
    """The README's table of shipped agents, read from each one's ``summary.json``."""
    lines = [
        "| config | training minutes | self-play steps | vs random | vs greedy | vs heuristic | vs planner | vs pimc "
        "| vs ismcts | ms/move |",
        "|---|---:|---:|---|---|---|---|---|---|---:|",
    ]
    for folder in sorted(ckpt.PRETRAINED_DIR.iterdir()):
        path = folder / SUMMARY_FILE
        if not path.is_file():
            continue
        summary = json.loads(path.read_text())
        cells = []
        for opponent in ("random", "greedy", "heuristic", "planner", "pimc", "ismcts"):
            row = summary["results"].get(opponent)
            if row is None:
                cells.append("")
                continue
            low, high = row["interval"]
            mark = "**" if row["verdict"] == "above" else ""
            cells.append(f"{mark}{row['win_rate']:.3f}{mark} [{low:.3f}, {high:.3f}]")
        lines.append(
            f"| {summary['config']} | {summary['minutes']:.1f} | {summary['env_steps']:,} | {' | '.join(cells)} | "
            f"{summary['results']['ms_per_move']:.2f} |"
        )
    return "\n".join(lines)


def time_profile(run_dir: Path) -> dict[str, float]:
    """A run's mean share of each timed part of an update (``time/*`` in its metrics) and its
    self-play steps per second over the whole run, from ``metrics.csv``."""
    with (Path(run_dir) / "metrics.csv").open() as handle:
        rows = [r for r in csv.DictReader(handle) if r.get("speed/env_steps_per_second")]
    parts = sorted({k for r in rows for k in r if k.startswith("time/") and r[k]})
    profile = {part: sum(float(r[part] or 0) for r in rows) / len(rows) for part in parts}
    profile["steps/s"] = sum(float(r["speed/env_steps_per_second"]) for r in rows) / len(rows)
    return profile


def check_arguments(args: argparse.Namespace) -> None:
    """Every refusal of a command line, before anything is trained, measured or written."""
    if args.games < 1:
        raise UsageError(f"--games must be a positive number of episodes, got {args.games}")
    if args.search_games < 0:
        raise UsageError(f"--search-games must be 0 (none) or a positive number of episodes, got {args.search_games}")
    check_workers_flag(args.workers)
    if not (args.configs or args.evaluate or args.table or args.profile):
        raise UsageError("nothing to do: give configs to train and ship, --evaluate NAME, --table or --profile RUN")
    shipped = [name for name in ckpt.pretrained_names() if (ckpt.PRETRAINED_DIR / name / SUMMARY_FILE).is_file()]
    for name in args.evaluate:
        if name not in shipped:
            raise UsageError(f"--evaluate {name!r}: no shipped agent of that name; shipped: {', '.join(shipped)}")
    for run_dir in args.profile or []:
        if not (run_dir / "metrics.csv").is_file():
            raise UsageError(f"--profile {str(run_dir)!r}: no metrics.csv there (give a training run's folder)")
    for path in args.configs:
        if not (path.stem.isascii() and path.stem.replace("_", "").isalnum()):
            raise UsageError(
                f"{str(path)!r}: the shipped agent is named after its config file, so the name must be a plain "
                f"identifier ([A-Za-z0-9_]+), got {path.stem!r}"
            )
        config = load_config(path, [f"run.dir={json.dumps(args.runs_dir)}"])
        if EVALUATION_SEED in training_seeds(config):
            raise UsageError(
                f"{path}: run.seed {config.run.seed} would train on the evaluation deals (seed {EVALUATION_SEED})"
            )
        check_writable(Path(config.run.dir) / config.run.name, "--runs-dir")


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(prog="python -m arena.ship", description=__doc__.split("\n\n")[0])
    parser.add_argument("configs", nargs="*", type=Path)
    parser.add_argument("--games", type=int, default=16000, help="episodes against each fair agent")
    parser.add_argument("--search-games", type=int, default=0, help="episodes against PIMC and ISMCTS (0: none)")
    parser.add_argument("--workers", type=int, default=1, help="processes sharing the games against PIMC and ISMCTS")
    parser.add_argument("--runs-dir", default="runs")
    parser.add_argument("--evaluate", nargs="+", metavar="NAME", default=[], help="evaluate shipped agents again")
    parser.add_argument("--table", action="store_true", help="print the pretrained table of the README")
    parser.add_argument("--profile", nargs="+", type=Path, metavar="RUN", help="where each run's time went")
    args = parser.parse_args(argv)
    try:
        check_arguments(args)
    except (UsageError, ConfigError, ckpt.CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    for name in args.evaluate:
        reevaluate(name, args.games, args.search_games, args.workers)
    if args.table:
        print(pretrained_table())
    for run_dir in args.profile or []:
        profile = time_profile(run_dir)
        print(
            f"{run_dir.name}: "
            + ", ".join(f"{k.removeprefix('time/')} {v:.0%}" for k, v in profile.items() if k != "steps/s")
            + f"; {profile['steps/s']:,.0f} steps/s"
        )
    for path in args.configs:
        ship(path, args.games, args.search_games, args.runs_dir, args.workers)


if __name__ == "__main__":
    main()
