"""The command line: ``train``, ``evaluate``, ``play``, ``replay`` and ``exploit``.

python -m arena train --config configs/draw_2p.yaml --seed 1 [section.key=value ...]
python -m arena train --resume runs/draw_2p_seed1 [run.time_limit_minutes=60 ...]
python -m arena train --config configs/draw_2p.yaml --init-from runs/draw_2p_seed1 --name tuned [...]
python -m arena evaluate runs/draw_2p_seed1 greedy random --games 2000
python -m arena evaluate draw_2p+search:simulations=1024 pimc --against pimc --games 400
python -m arena play draw_2p            # you against the shipped draw_2p agent
python -m arena play draw_2p --web      # the same in the browser, any variant and agent
python -m arena replay draw_2p greedy --seed 3 --out game.html   # or game.gif
python -m arena exploit random heuristic --variant block --steps 1000000   # best responses' winnings
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from agents import AGENTS, make_agent
from agents.base import Agent
from agents.tournament import rotated_match
from agents.workers import check_workers
from arena.evaluation import run_arena
from domino_env import make_game, raw_env
from domino_env.game import Game

# Trained policies, checkpoints and configs need the ``train`` extra (torch, safetensors, yaml):
# their modules (agents.policy, agents.policy_search, training.*) are imported where a command
# names one, so that built-in agents play, replay and serve the web page in a core-only install.
TRAIN_EXTRA = ("torch", "safetensors", "yaml")


class UsageError(ValueError):
    """A command line that cannot be carried out; printed without a traceback."""


MAX_SEED = 2**63 - 1  # seeds are offset per policy and per game slot, and must stay within the engine's 64 bits
MAX_PORT = 65535


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, saying what is wrong with a command line in one line (``error: ...``,
    exit status 2) instead of its usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {' '.join(message.split())} (see {self.prog} --help)\n")


@contextmanager
def train_extra(what: str) -> Iterator[None]:
    """Around imports of modules that need the ``train`` extra: where it is not installed, a
    usage error saying that ``what`` needs it."""
    try:
        yield
    except ModuleNotFoundError as error:
        if error.name not in TRAIN_EXTRA:
            raise
        raise UsageError(f"{what} need the train extra ({error}): pip install 'domino_env[train]'") from None


def printed_errors() -> tuple[type[Exception], ...]:
    """The errors printed without a traceback: the config's and checkpoints' only where their
    modules were imported (they need the ``train`` extra), since nowhere else can they be raised."""
    errors: list[type[Exception]] = [UsageError]
    for module, name in (("training.config", "ConfigError"), ("training.checkpoint", "CheckpointError")):
        if module in sys.modules:
            errors.append(getattr(sys.modules[module], name))
    return tuple(errors)


def parse_options(pairs: list[str]) -> dict[str, Any]:
    options = {}
    for pair in pairs:  # the form first: a core-only install says what is wrong before asking for YAML
        if "=" not in pair or not pair.split("=", 1)[0].strip():
            raise UsageError(f"--option {pair!r} is not of the form key=value")
    if pairs:
        with train_extra("--option values (read as YAML)"):
            import yaml

            from training.config import load_yaml
    for pair in pairs:
        key, raw = pair.split("=", 1)
        try:
            options[key.strip()] = load_yaml(raw)
        except yaml.YAMLError as error:
            raise UsageError(f"--option {pair!r}: the value is not YAML ({' '.join(str(error).split())})") from None
    return options


def made_game(variant: str, options: dict[str, Any]) -> Game:
    """``make_game``, its refusal of an unknown variant or a bad option a usage error."""
    try:
        return make_game(variant, **options)
    except (TypeError, ValueError) as error:
        raise UsageError(" ".join(str(error).split())) from None


def check_seed(seed: int) -> None:
    if not 0 <= seed <= MAX_SEED:
        raise UsageError(f"--seed must lie in [0, {MAX_SEED}], got {seed}")


def check_workers_flag(workers: int) -> None:
    """``--workers``, refused as a usage error where :func:`agents.workers.check_workers` refuses it."""
    try:
        check_workers("--workers", workers)
    except ValueError as error:
        raise UsageError(str(error)) from None


def check_writable(folder: str | Path, flag: str) -> None:
    """Refuse, before any work, a folder that cannot be made or written in: the nearest part of
    it that exists must be a folder this user may write in."""
    folder = Path(folder)
    existing = folder
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{flag} {str(folder)!r}: {str(existing)!r} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"{flag} {str(folder)!r}: cannot write in {str(existing)!r}")


def arena_slots(game: Game, episodes: int) -> int:
    """How many deals (game slots) each arena matchup plays: those ``--replays`` may name."""
    batch = inspect.signature(rotated_match).parameters["batch_size"].default  # what run_arena plays with
    return max(1, min(batch, math.ceil(episodes / game.num_players)))


def resolve_game(args: argparse.Namespace, policies: list[str]) -> Game:
    """The game named on the command line, else the one the first checkpoint was trained on."""
    if args.variant:
        return made_game(args.variant, parse_options(args.option))
    for spec in policies:
        if spec.partition(":")[0] in AGENTS:  # a built-in agent: no game to read from it
            continue
        with train_extra("trained policies and checkpoints"):
            from training import checkpoint as ckpt
        name = searched_checkpoint(spec) or spec
        path = ckpt.resolve_checkpoint(name)
        if path is not None and name not in AGENTS:
            variant, options = ckpt.game_of_checkpoint(path)
            return made_game(variant, options | parse_options(args.option))
    raise UsageError("name the game with --variant (and --option key=value), or give a checkpoint")


def searched_checkpoint(spec: str) -> str | None:
    """The checkpoint of a ``NAME+search[:simulations=N]`` spec, else None."""
    from agents.policy_search import split_spec  # torch: called where training.checkpoint imported already

    try:
        parsed = split_spec(spec)
    except ValueError as error:
        raise UsageError(str(error)) from None
    return None if parsed is None else parsed[0]


def load_policy(name: str, game: Game, seed: int, deterministic: bool = True) -> Agent:
    """A built-in agent, a shipped pretrained agent, or a checkpoint (file, folder or run); with
    ``+search`` after a pretrained name or checkpoint, that policy on top of determinized search
    (:mod:`agents.policy_search`)."""
    if name.partition(":")[0] in AGENTS:  # an agent, perhaps with options: pimc:simulations=200
        try:
            return make_agent(name, game, seed=seed)
        except (TypeError, ValueError) as error:  # unknown or out-of-range options
            raise UsageError(" ".join(str(error).split())) from None
    with train_extra("trained policies and checkpoints"):
        from agents.policy import PolicyAgent
        from agents.policy_search import SUFFIX, split_spec
        from training import checkpoint as ckpt
    checkpoint = searched_checkpoint(name) or name
    path = ckpt.resolve_checkpoint(checkpoint)
    if path is None:
        known = ", ".join(list(AGENTS) + ckpt.pretrained_names())
        raise UsageError(
            f"{checkpoint!r} is neither an agent ({known}) nor a checkpoint path "
            f"(a checkpoint followed by {SUFFIX} or {SUFFIX}:simulations=N plays with search)"
        )
    label = Path(checkpoint).name if Path(checkpoint).exists() else checkpoint
    network = ckpt.load_network(path, game)
    if checkpoint != name:
        options = split_spec(name)[1]
        try:
            return ckpt.load_search_agent(path, game, network, name=label + SUFFIX, seed=seed, **options)
        except ckpt.CheckpointError:  # its rollout network's: printed as any checkpoint's
            raise
        except (TypeError, ValueError) as error:  # its search options out of range
            raise UsageError(" ".join(str(error).split())) from None
    return PolicyAgent(network, name=label, deterministic=deterministic, seed=seed)


# ---------------------------------------------------------------------------------------------- train


def train_command(args: argparse.Namespace) -> None:
    with train_extra("training runs"):
        from training import checkpoint as ckpt
        from training.config import load_config
        from training.ppo import train

    overrides = list(args.overrides)
    for flag, key in (
        ("seed", "run.seed"),
        ("device", "run.device"),
        ("name", "run.name"),
        ("runs_dir", "run.dir"),
        ("init_from", "run.init_from"),
    ):
        if getattr(args, flag) is not None:
            overrides.append(f"{key}={json.dumps(getattr(args, flag))}")  # a JSON string or number is YAML
    if args.resume:
        if args.config or args.init_from:
            raise UsageError(
                "--resume continues a run with its own config and weights: give it only overrides of its schedule "
                "(a new run from its weights: --config FILE --init-from CHECKPOINT)"
            )
        run_dir = Path(args.resume)
        # train() refuses an override of anything but the schedule (training.config.SCHEDULE_KEYS)
        config = load_config(run_dir / ckpt.CONFIG_FILE, overrides)
        folder = train(config, run_dir, resume=True)
    else:
        if not args.config:
            raise UsageError("train needs --config FILE (or --resume RUN_DIR)")
        config = load_config(args.config, overrides)
        run_dir = Path(config.run.dir) / config.run.name
        check_writable(run_dir, "the run folder (run.dir/run.name)")
        if ckpt.latest_checkpoint(run_dir) is not None:
            raise UsageError(f"{run_dir} already holds a run: use --resume {run_dir} or another --name")
        folder = train(config, run_dir)
    print(f"checkpoint: {folder}")
    print(f"learning curve: {run_dir / 'learning_curve.png'}; metrics: {run_dir / 'metrics.csv'}")


# ---------------------------------------------------------------------------------------------- evaluate


def evaluate_command(args: argparse.Namespace) -> None:
    if len(args.policies) < 2:
        raise UsageError("evaluate needs at least two policies (agents, pretrained names or checkpoints)")
    if args.games < 1:
        raise UsageError(f"--games must be a positive number of episodes per matchup, got {args.games}")
    check_seed(args.seed)
    check_workers_flag(args.workers)
    if args.replays and not args.out:
        raise UsageError("--replays needs --out, the folder the replays are written to")
    if args.out:
        check_writable(args.out, "--out")
    game = resolve_game(args, args.policies)
    if args.replays:
        slots = arena_slots(game, args.games)
        outside = [i for i in args.replays if not 0 <= i < slots]
        if outside:
            raise UsageError(
                f"--replays {' '.join(map(str, outside))}: each matchup of --games {args.games} plays "
                + (f"games 0 to {slots - 1} ({slots} deals, seats rotated over them)" if slots > 1 else "game 0 only")
            )
    # Each policy is keyed by its name as the command line spells it (options and all:
    # "pimc:simulations=10", "draw_2p+search:simulations=8"), the same name typed twice by "#i".
    keys = [name if name not in args.policies[:i] else f"{name}#{i}" for i, name in enumerate(args.policies)]
    against = [against_key(name, keys, args.policies) for name in args.against or []]
    policies: dict[str, Agent] = {}
    for i, (key, name) in enumerate(zip(keys, args.policies, strict=True)):
        policies[key] = load_policy(name, game, seed=args.seed + i, deterministic=not args.sample)
    opponents = [key for key in keys if key in against] if args.against else None
    result = run_arena(game, policies, args.games, seed=args.seed, opponents=opponents, workers=args.workers)
    if not result.matchups:  # cannot happen with two policies or more; never an empty table without a word
        raise UsageError("no matchup to play: name at least two policies, and --against one of them")
    print(f"{result.game}, {args.games} episodes per matchup, seats rotated:\n")
    print(result.markdown())
    if args.out:
        result.write(args.out)
        print(f"\nwrote {Path(args.out) / 'arena.md'}, arena.csv and arena.png (win rates with their intervals)")
    if args.replays:
        from arena.replay import save_arena_replays

        specs = dict(zip(keys, args.policies, strict=True))

        def seat_agents(names: list[str], seed: int) -> list[Agent]:
            return replay_agents(names, game, seed, args.sample)

        paths = save_arena_replays(game, specs, opponents, args.replays, args.seed, args.out, seat_agents, args.sample)
        print(f"wrote {len(paths)} replays in {Path(args.out) / 'replays'} (each names the command that replays it)")


def against_key(name: str, keys: list[str], spelled: list[str]) -> str:
    """The policy ``--against name`` means: one spelled so on the command line (the first, if
    typed twice), or the ``NAME#i`` of the table; else a usage error naming those it may be."""
    if name in keys:
        return name
    if name in spelled:
        return keys[spelled.index(name)]
    raise UsageError(
        f"--against {name!r} is not one of the policies evaluated: {', '.join(keys)} "
        "(name one as the command line names it, options and all)"
    )


# ---------------------------------------------------------------------------------------------- play


def ask_action(env, agent: str) -> int:
    """Read a legal action from the terminal, by its number in the list or by its name."""
    legal = list(np.flatnonzero(env.observe(agent)["action_mask"]))
    for number, action in enumerate(legal):
        print(f"  [{number}] {env.action_name(action)}")
    while True:
        try:
            text = input("your move: ").strip()
        except EOFError:  # stdin closed or not a terminal: nobody to ask
            print()
            raise UsageError("the input ended before your move: play reads your moves from the terminal") from None
        if text.isdigit() and int(text) < len(legal):
            return int(legal[int(text)])
        try:
            action = env.action_from_name(text)
        except ValueError:
            action = -1
        if action in legal:
            return int(action)
        print("not a legal move: type its number or its name")


def play_command(args: argparse.Namespace) -> None:
    check_seed(args.seed)
    if not 0 <= args.port <= MAX_PORT:
        raise UsageError(f"--port must lie in [0, {MAX_PORT}] (0: any free port), got {args.port}")
    policies = [args.policy]
    game = resolve_game(args, policies)
    if not 0 <= args.seat < game.num_players:
        raise UsageError(f"--seat {args.seat}: {game.title} seats players 0 to {game.num_players - 1}")
    if args.web:
        from arena.web.server import serve

        serve(game, args.policy, load_policy, seat=args.seat, watch=args.watch, seed=args.seed, port=args.port,
              save_games=args.save_games or None)  # fmt: skip
        return
    env = raw_env(game.name, render_mode="ansi", **game.options)
    opponent = load_policy(args.policy, env.game, seed=args.seed)
    human = None if args.watch else f"player_{args.seat}"
    env.reset(seed=args.seed)
    print(f"{game.title}: {'watching ' + opponent.name if human is None else 'you are ' + human}")
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if agent == human:
            print("\n" + visible_table(env, env.agent_seat[agent]))
            action = ask_action(env, agent)
        else:
            action = opponent.act_one(observation, state=env.state_array)
            print(f"{agent}: {env.action_name(action)}")
        env.step(action)
        if "hand_points" in env.infos.get(agent, {}):
            print(f"hand over · points {[env.infos[a]['hand_points'] for a in env.agents]}")
    print("\n" + env.render())


def visible_table(env, seat: int) -> str:
    """What ``seat`` may see: the table, its own hand and the other hands' sizes."""
    rows = env.game.scene(env.state_array, 0)
    players = env.game.num_players
    table, hands = rows[:-players], rows[-players:]
    lines = ["table: " + " ".join(f"[{a}|{b}]" for a, b in row) for row in table]
    lines.append("your hand: " + " ".join(f"{a}-{b}" for a, b in hands[seat]))
    lines.append("others hold: " + ", ".join(f"player_{s}: {len(h)}" for s, h in enumerate(hands) if s != seat))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- replay


def replay_agents(policies: list[str], game: Game, seed: int, sample: bool = False) -> list[Agent]:
    """The replay command's agents, one per policy named: policy ``i`` seeded with ``seed + i``.
    ``evaluate --replays`` builds its replays' agents here too, so that the command a replay's
    title names plays the same game."""
    return [load_policy(name, game, seed=seed + i, deterministic=not sample) for i, name in enumerate(policies)]


def replay_command(args: argparse.Namespace) -> None:
    from arena.replay import REPLAY_SUFFIXES, record_game, replay_command_line, write_replay

    if Path(args.out).suffix.lower() not in REPLAY_SUFFIXES:
        raise UsageError(f"--out must end in {' or '.join(REPLAY_SUFFIXES)}, got {args.out!r}")
    if Path(args.out).is_dir():
        raise UsageError(f"--out {args.out!r} is a folder: name the file to write")
    check_writable(Path(args.out).parent, "--out")
    check_seed(args.seed)
    if not 0 <= args.stream <= MAX_SEED:
        raise UsageError(f"--stream must lie in [0, {MAX_SEED}], got {args.stream}")
    game = resolve_game(args, args.policies)
    if len(args.policies) > game.num_players:
        raise UsageError(
            f"{game.title} with {game.num_players} players seats {game.num_players} policies, got {len(args.policies)}"
        )
    agents = replay_agents(args.policies, game, args.seed, args.sample)
    seated = [agents[seat % len(agents)] for seat in range(game.num_players)]
    command = replay_command_line(game, args.policies, args.seed, args.stream, args.sample, out=Path(args.out).name)
    replay = record_game(game, seated, args.seed, stream=args.stream, command=command)
    path = write_replay(replay, args.out, show_hands=args.show_hands)
    print(f"{replay.title()}: {len(replay.positions) - 1} moves, {replay.result()}; wrote {path}")


# ---------------------------------------------------------------------------------------------- exploit


def exploit_command(args: argparse.Namespace) -> None:
    check_seed(args.seed)
    game = resolve_game(args, args.agents)
    with train_extra("exploit (a best response trained by the project's trainer)"):
        from arena.exploit import ExploitError, exploit
    try:
        table = exploit(game, args.agents, args.steps, args.games, args.seed, args.exact, args.sample,
                        args.runs_dir, args.set)  # fmt: skip
    except (ExploitError, ImportError) as error:
        raise UsageError(" ".join(str(error).split())) from None
    from arena.evaluation import game_label

    what = "exact best responses (OpenSpiel)" if args.exact else f"responders trained for {args.steps} steps"
    print(f"{game_label(game)}, {what}:\n")
    print(table)


# ---------------------------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="python -m arena", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    train = commands.add_parser("train", help="self-play training from a config")
    train.add_argument("--config", help="YAML config (configs/*.yaml)")
    train.add_argument(
        "--resume",
        metavar="RUN_DIR",
        help="continue a run from its last checkpoint; overrides may change its schedule only (total steps, "
        "time limit, evaluation and checkpoint cadence, device, threads)",
    )
    train.add_argument(
        "--init-from", metavar="CHECKPOINT", help="a new run starting from a checkpoint's (or shipped agent's) weights"
    )
    train.add_argument("--seed", type=int)
    train.add_argument("--device", help="auto, cpu or cuda")
    train.add_argument("--name", help="run name (default: config name and seed)")
    train.add_argument("--runs-dir", help="where runs are written (default runs/)")
    train.add_argument("overrides", nargs="*", metavar="section.key=value", help="override any config field")
    train.set_defaults(handler=train_command)

    def add_game_flags(command: argparse.ArgumentParser) -> None:
        command.add_argument("--variant", help="the game (default: the first checkpoint's)")
        command.add_argument("--option", action="append", default=[], metavar="key=value", help="a rule option")
        command.add_argument("--seed", type=int, default=0)

    evaluate = commands.add_parser("evaluate", help="play policies against each other and rate them")
    evaluate.add_argument("policies", nargs="+", help="agent names, pretrained names or checkpoint paths")
    evaluate.add_argument("--against", nargs="+", help="only tables of these policies")
    evaluate.add_argument("--games", type=int, default=2000, help="episodes per matchup")
    evaluate.add_argument("--sample", action="store_true", help="trained policies sample instead of argmax")
    evaluate.add_argument("--out", help="folder for arena.md, arena.csv and arena.png")
    evaluate.add_argument("--workers", type=int, default=1, help="processes sharing each matchup's games, one a core")
    evaluate.add_argument(
        "--replays", nargs="+", type=int, metavar="GAME", help="write replays of these games (0, 1...) of each matchup"
    )
    add_game_flags(evaluate)
    evaluate.set_defaults(handler=evaluate_command)

    play = commands.add_parser("play", help="play against an agent in the terminal, or watch it")
    play.add_argument("policy", help="agent name, pretrained name or checkpoint path")
    play.add_argument("--seat", type=int, default=0, help="your seat")
    play.add_argument("--watch", action="store_true", help="the agent plays every seat")
    play.add_argument("--web", action="store_true", help="play in the browser: serve a page on 127.0.0.1")
    play.add_argument("--port", type=int, default=8000, help="the page's port with --web (0: any free port)")
    play.add_argument(
        "--save-games", default="games", metavar="DIR",
        help="with --web: keep finished games as replay pages and games.jsonl in DIR (default games/; '': not kept)",
    )  # fmt: skip
    add_game_flags(play)
    play.set_defaults(handler=play_command)

    replay = commands.add_parser("replay", help="record a game between agents as an HTML page or a GIF")
    replay.add_argument("policies", nargs="+", help="one per seat (repeated in turn if fewer): agents or checkpoints")
    replay.add_argument("--out", required=True, help="game.html (step through it in a browser) or game.gif")
    replay.add_argument("--show-hands", action="store_true", help="hidden hands face up (the page can toggle them)")
    replay.add_argument("--sample", action="store_true", help="trained policies sample instead of argmax")
    replay.add_argument(
        "--stream",
        type=int,
        default=0,
        help="the deal of game slot N of a batch seeded with --seed (evaluate --replays N), default 0: "
        "the deal of env.reset(seed)",
    )
    add_game_flags(replay)
    replay.set_defaults(handler=replay_command)
    exploit = commands.add_parser("exploit", help="how much a best response wins against each agent")
    exploit.add_argument("agents", nargs="+", help="agent names (options and all), pretrained names or checkpoints")
    exploit.add_argument("--steps", type=int, default=1_000_000, help="env steps of each responder's training")
    exploit.add_argument("--games", type=int, default=2000, help="episodes of each responder against its agent")
    exploit.add_argument("--exact", action="store_true", help="OpenSpiel's exact best response (tiny sets only)")
    exploit.add_argument("--sample", action="store_true", help="trained policies sample instead of argmax")
    exploit.add_argument("--runs-dir", help="keep the responders' runs here (default: a temporary folder)")
    exploit.add_argument(
        "--set", action="append", default=[], metavar="section.key=value", help="a responder training override"
    )
    add_game_flags(exploit)
    exploit.set_defaults(handler=exploit_command)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    try:
        args.handler(args)
    except printed_errors() as error:  # evaluated when an error is raised, after the imports it needs
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


def train_main() -> None:
    main(["train", *sys.argv[1:]])


def evaluate_main() -> None:
    main(["evaluate", *sys.argv[1:]])


def play_main() -> None:
    main(["play", *sys.argv[1:]])
