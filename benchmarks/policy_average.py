"""Does a vote of several trained policies play better than each of them?

    python -m benchmarks.policy_average draw_4p_partners runs/seed2 runs/seed3 [--against heuristic]
        [--games 16000] [--seed 12345] [--no-members]

Each member, then their average, plays against a table of ``--against`` on the same deals, seats
rotated. The average plays the legal action with the highest mean log-probability over the
members (a product of their distributions, the usual way to ensemble policies that each put
most of their mass on one move). It costs one forward pass a member, so a few members still play
well under a millisecond a move. Every member must have been trained on the same game.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse

import numpy as np
import torch

from agents.base import Agent
from agents.network import PolicyNetwork, masked_distribution
from agents.policy import PolicyAgent
from agents.registry import make_agent
from arena.evaluation import game_label, run_arena
from arena.matchup import matchup_table
from benchmarks import nonnegative_int, policy_or_exit, positive_int


class AveragedPolicy(Agent):
    """Plays the legal action with the highest mean log-probability over ``networks``."""

    def __init__(self, networks: list[PolicyNetwork], name: str = "average") -> None:
        self.networks = networks
        self.name = name

    @torch.no_grad()
    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = torch.as_tensor(observations, dtype=torch.float32)
        mask = torch.as_tensor(masks)
        total = sum(masked_distribution(network.logits(obs), mask).logits for network in self.networks)
        return total.argmax(-1).numpy()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("members", nargs="+", help="shipped names or checkpoints, two or more")
    parser.add_argument("--against", default="heuristic", help="the agent whose table each plays")
    parser.add_argument("--games", type=positive_int, default=16000)
    parser.add_argument("--seed", type=nonnegative_int, default=12345, help="the deals (12345: the README's table)")
    parser.add_argument(
        "--no-members", action="store_true", help="play only the average (the members' rows are known already)"
    )
    args = parser.parse_args(argv)
    if len(args.members) < 2:
        raise SystemExit("error: name two policies or more to average")
    torch.set_num_threads(1)
    loaded = [policy_or_exit(name) for name in args.members]
    game = loaded[0][1]
    for name, (_, other, _) in zip(args.members[1:], loaded[1:], strict=True):
        if (other.name, other.options) != (game.name, game.options):
            raise SystemExit(f"error: {name} was trained on {game_label(other)}, not {game_label(game)}")
    try:
        make_agent(args.against, game, seed=args.seed + 1)  # refused before any game
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None
    players: list[Agent] = []
    if not args.no_members:
        players += [PolicyAgent(network, name=name) for name, (_, _, network) in zip(args.members, loaded, strict=True)]
    players.append(AveragedPolicy([network for _, _, network in loaded], name=f"average of {len(loaded)}"))
    matchups = []
    for player in players:
        # a fresh opponent for each, so that every player meets the same opponent's random stream
        opponent = make_agent(args.against, game, seed=args.seed + 1)
        result = run_arena(
            game, {player.name: player, args.against: opponent}, args.games, seed=args.seed, opponents=[args.against]
        )
        matchups += result.matchups
    print(f"{game_label(game)}, {args.games} episodes each against a table of {args.against}, seed {args.seed}:\n")
    print(matchup_table(matchups))


if __name__ == "__main__":
    main()
