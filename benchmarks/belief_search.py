"""Search with belief-weighted worlds against the same search with uniform worlds, equal budget.

    python -m benchmarks.belief_search                          # draw_2p, pimc and ismcts
    python -m benchmarks.belief_search --configs draw_2p block_2p --agents pimc --games 400
    python -m benchmarks.belief_search --agents pimc --arms belief true --simulations 1000

For each config and search agent, ``AGENT:belief=CONFIG`` (worlds drawn in proportion to the
shipped belief model, :meth:`Game.determinize_weighted`) plays (a) ``AGENT`` with uniform worlds
and (b) the heuristic, at the same number of simulations a move, seats rotated over the same
deals (:func:`agents.tournament.rotated_match`). In games of more than two seats the belief
agent takes one seat and its opponent every other. A Markdown row per pairing: the belief
agent's win rate with its 95% interval.

``--arms true`` adds (or with ``--arms true`` alone, plays only) the ceiling of any belief: the
same search whose every world puts each hidden tile where it really is, in the hand that holds
it or in the pile, while the pile's order is still drawn at random. It reads the hidden tiles,
so it is not a fair player (it lives here, not among the agents): its lead over uniform worlds
is the most that knowing where the tiles are, from any model of the other seats' play, can
give this search. ``--doubts Q ...`` blurs it: each hidden tile's real place weighs 1 and every
other place Q, so that Q from 0 towards 1 runs from knowing to guessing, a row for each.

Each row also gives the log-loss (nats per hidden tile, as ``benchmarks.belief`` prints it) of
the worlds the agent draws: the marginals of ``--worlds`` draws in each of ``--positions``
positions of held-out deals, the line above the table giving uniform worlds' own. It places
every row on the scale the belief model is measured on.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable

import numpy as np
import torch

from agents import make_agent
from agents.base import Agent
from agents.belief import load_belief, place_weights
from agents.tournament import rotated_match
from benchmarks import nonnegative_int, positive_int
from benchmarks.belief import CONFIGS
from domino_env.game import Game
from domino_env.variants import make_game
from training.belief import Positions, record_positions, sampled_marginals, scores, true_places

ARMS = ("belief", "true")
LOG_LOSS_SEED = 10_007  # the deals benchmarks.belief scores its models on


def doubted_places(game: Game, places: np.ndarray, observer: int, doubt: float) -> np.ndarray:
    """``[P + 1, T]`` place weights for ``observer`` from each tile's real place (``places``, as
    :func:`training.belief.true_places` gives it: -1 for a tile it sees): 1 at the real place and
    ``doubt`` at every other (0: the floor of :func:`domino_env.sampling.place_weighted`)."""
    probabilities = np.zeros((game.num_tiles, game.num_players), np.float64)
    hidden = np.flatnonzero(places >= 0)
    probabilities[hidden] = doubt
    probabilities[hidden, places[hidden]] = 1.0
    return place_weights(game, probabilities, observer)


def knowing_the_places(agent: Agent, game: Game, doubt: float = 0.0) -> Agent:
    """``agent`` (a search built with a belief model, so that it draws weighted worlds) made to
    weight each world by where the hidden tiles really are (:func:`doubted_places`): with
    ``doubt`` 0 each world holds the real hands and the real pile, shuffled."""

    def believe(state: np.ndarray, g: int) -> None:
        seat = game.current_seat(state, g)
        places = true_places(game, state, np.array([g]), np.array([seat]))[0]
        agent.space.weights[:] = doubted_places(game, places, seat, doubt)

    agent.believe = believe
    return agent


def worlds_log_loss(
    game: Game, data: Positions, worlds: int, weights: Callable[[int], np.ndarray] | None = None
) -> float:
    """Log-loss of the marginals of the worlds drawn with ``weights(i)`` (uniform ones: None)."""
    return scores(sampled_marginals(game, data, worlds, seed=LOG_LOSS_SEED, weights=weights), data)["log_loss"]


def arms_of(game: Game, config: str, args: argparse.Namespace, data: Positions) -> list[tuple]:
    """Each arm's label, its doubt (None: the belief model's worlds) and its place weights for
    position ``i`` of ``data`` (what its worlds' log-loss is measured with)."""
    arms = []
    for arm in args.arms:
        if arm == "belief":
            model = load_belief(config, game)
            arms.append((f"belief={config}", None, lambda i, m=model: m.place_weights(data.obs[i], int(data.seat[i]))))
            continue
        for doubt in args.doubts:
            label = "true places" if doubt == 0 else f"true places, doubt {doubt:g}"
            arms.append((label, doubt, lambda i, q=doubt: doubted_places(game, data.place[i], int(data.seat[i]), q)))
    return arms


def doubt_level(text: str) -> float:
    """An argparse type: a weight from 0 (the real place alone) to 1 (every place alike)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, not {text!r}")
    return value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configs", nargs="+", default=["draw_2p"], choices=list(CONFIGS))
    parser.add_argument("--agents", nargs="+", default=["pimc", "ismcts"], choices=["pimc", "ismcts"])
    parser.add_argument("--arms", nargs="+", default=["belief"], choices=ARMS,
                        help="belief: the shipped model's worlds; true: the real places (the ceiling)")  # fmt: skip
    parser.add_argument("--doubts", nargs="+", type=doubt_level, default=[0.0], metavar="Q",
                        help="true: weight of every place but a tile's real one (0: none)")  # fmt: skip
    parser.add_argument("--simulations", type=positive_int, default=200)
    parser.add_argument("--games", type=positive_int, default=300)
    parser.add_argument("--seed", type=nonnegative_int, default=20_011)
    parser.add_argument("--positions", type=positive_int, default=300, help="held-out positions for the log-loss")
    parser.add_argument("--worlds", type=positive_int, default=64, help="worlds drawn per position for the log-loss")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    lines = [
        "| config | agent | opponent | simulations | games | win rate | 95% interval | log-loss | seconds |",
        "|---|---|---|---:|---:|---:|---|---:|---:|",
    ]
    for config in args.configs:
        variant, options = CONFIGS[config]
        game = make_game(variant, **options)
        data = record_positions(game, args.positions, seed=LOG_LOSS_SEED)
        print(f"{config}: uniform worlds' log-loss {worlds_log_loss(game, data, args.worlds):.3f}", flush=True)
        arms = [
            (label, doubt, worlds_log_loss(game, data, args.worlds, weights))
            for label, doubt, weights in arms_of(game, config, args, data)
        ]
        for name in args.agents:
            spec = f"{name}:simulations={args.simulations}"
            for label, doubt, loss in arms:
                for opponent in (spec, "heuristic"):
                    started = time.perf_counter()
                    ours = make_agent(f"{spec},belief={config}", game, seed=1)
                    if doubt is not None:
                        knowing_the_places(ours, game, doubt)
                    ours.name = f"{name}:{label}"
                    others = [make_agent(opponent, game, seed=2 + k) for k in range(game.num_players - 1)]
                    records = rotated_match(game, [ours, *others], args.games, seed=args.seed, batch_size=16)
                    mine = records[0]
                    low, high = mine.win_interval()
                    against = "heuristic" if opponent == "heuristic" else f"{name} (uniform)"
                    lines.append(
                        f"| {config} | {name}:{label} | {against} | {args.simulations} | {mine.episodes}"
                        f" | {mine.win_rate:.3f} | [{low:.3f}, {high:.3f}] | {loss:.3f}"
                        f" | {time.perf_counter() - started:.0f} |"
                    )
                    print(lines[-1], flush=True)
    print()
    print("\n".join(lines))


if __name__ == "__main__":
    main()
