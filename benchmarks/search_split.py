"""Where a search agent's edge over a policy lies: a player that asks the search in some kinds of
decision and the policy in the others, against a table of an agent.

    python -m benchmarks.search_split hungarian_3p --search ismcts:simulations=2000 \
        --arms lead turn_start run lead+turn_start+run --against heuristic --games 16000 --workers 2

Each arm names the kinds of decision the search makes (joined by ``+``); the policy (a shipped
one or a checkpoint, its most likely move) makes every other. ``--search`` takes any agent
``python -m arena evaluate`` does, so another policy can take the search's place, to compare two
networks kind by kind. The kinds are the variant's
(``DECISION_KINDS``): in Hungarian the lead (the hand's first tile), the first tile of a later
turn, and each tile after it in the same turn's run; in Draw the decisions while the boneyard
still holds tiles and those after. An arm of every kind is the search alone, and the policy
alone is the shipped table's row, so each arm reads between the two. Every arm plays the
evaluation deals (seed 12345, never trained on), seats rotated, its games shared by
``--workers`` processes. Prints a Markdown row per arm: the win rate with its 95% interval and
the milliseconds a move.

If the search's edge were the sum of better single decisions, the arms of one kind each would
add up to the search alone. Where they do not, the search's moves pay off only together: a
policy that learns some of them, as a student fitted to the search's values does, gets little
of the edge.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
from collections.abc import Callable

import numpy as np
import torch

from agents.base import Agent, StatefulAgent
from agents.policy import PolicyAgent
from agents.tournament import against_table
from arena.cli import UsageError, load_policy
from arena.ship import EVALUATION_SEED
from benchmarks import policy_or_exit, positive_int, worker_count
from domino_env.game import Game
from domino_env.games.core import ON_TABLE

SEARCH_SEED = 7  # the strength ladder's search agents' seed


def hungarian_kind(state: np.ndarray, g: int) -> str:
    """``lead`` before any tile is on the table, ``run`` after the seat's first tile this turn,
    ``turn_start`` otherwise."""
    if not (state["location"][g] == ON_TABLE).any():
        return "lead"
    return "run" if state["run_active"][g] else "turn_start"


def draw_kind(state: np.ndarray, g: int) -> str:
    """``boneyard`` while it still holds tiles, ``no_boneyard`` after."""
    return "boneyard" if state["boneyard_top"][g] < state["boneyard_size"][g] else "no_boneyard"


DECISION_KINDS: dict[str, tuple[Callable[[np.ndarray, int], str], tuple[str, ...]]] = {
    "hungarian": (hungarian_kind, ("lead", "turn_start", "run")),
    "draw": (draw_kind, ("boneyard", "no_boneyard")),
}


class SplitPlayer(StatefulAgent):
    """``search`` in the decisions whose kind is in ``searched``, ``policy`` in the others."""

    def __init__(self, game: Game, policy: Agent, search: Agent, searched: set[str]) -> None:
        super().__init__(game)
        self.kind = DECISION_KINDS[game.name][0]
        self.policy, self.search, self.searched = policy, search, searched
        self.name = "search on " + "+".join(sorted(searched))

    def act_states(self, game: Game, state: np.ndarray, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, np.int64)
        searched = np.array([self.kind(state, int(g)) in self.searched for g in games], bool)
        actions = np.empty(len(games), np.int64)
        if (~searched).any():
            actions[~searched] = self.policy.act_states(game, state, games[~searched])
        if searched.any():
            actions[searched] = self.search.act_states(game, state, games[searched])
        return actions

    def reseed(self, seed: int) -> None:
        self.policy.reseed(seed)
        self.search.reseed(seed + 1)


def arm_kinds(arm: str, kinds: tuple[str, ...]) -> set[str]:
    """The kinds an ``--arms`` entry names, refused in one line unless each is the variant's."""
    named = set(arm.split("+"))
    unknown = sorted(named - set(kinds))
    if unknown:
        raise SystemExit(
            f"error: --arms {arm!r}: {', '.join(unknown)} is not a kind of decision here: {', '.join(kinds)}"
        )
    return named


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("policy", help="a shipped policy (hungarian_3p) or a checkpoint")
    parser.add_argument("--search", required=True, help="who makes the arms' decisions (ismcts:simulations=2000)")
    parser.add_argument("--arms", nargs="+", required=True, help="kinds of decision the search makes (lead+run)")
    parser.add_argument("--against", default="heuristic", help="the agent whose table every arm plays")
    parser.add_argument("--games", type=positive_int, default=16000, help="episodes per arm")
    parser.add_argument("--workers", type=worker_count, default=1, help="processes sharing each arm's games")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    _, game, network = policy_or_exit(args.policy)
    if game.name not in DECISION_KINDS:
        raise SystemExit(f"error: {args.policy}: decision kinds are defined for {', '.join(DECISION_KINDS)} only")
    kinds = DECISION_KINDS[game.name][1]
    arms = [arm_kinds(arm, kinds) for arm in args.arms]  # every arm refused before any game
    try:
        search = load_policy(args.search, game, seed=SEARCH_SEED)
        table = load_policy(args.against, game, seed=EVALUATION_SEED)
    except UsageError as error:
        raise SystemExit(f"error: {error}") from None
    policy = PolicyAgent(network, args.policy, deterministic=True)
    print(f"{args.policy} and {args.search} against a table of {args.against}, {args.games} games an arm\n")
    print(f"| arm | vs {args.against} | 95% | ms/move |")
    print("|---|---:|---|---:|")
    for searched in arms:
        player = SplitPlayer(game, policy, search, searched)
        record = against_table(game, player, table, args.games, seed=EVALUATION_SEED, workers=args.workers)
        print(f"| {player.name} | {record.win_cells()} | {record.ms_per_move:.2f} |", flush=True)


if __name__ == "__main__":
    main()
