"""How often a policy, and the policy with search, misplay an ending they could see to the end:
the Draw positions with the boneyard spent, where every unseen tile is the opponent's.

    .venv/bin/python -m benchmarks.endgame [draw_2p] [--games 400] [--simulations 512] [--seed 1000]

The policy (a shipped two-player Draw policy or a checkpoint) plays itself on ``--games`` deals
(seeds ``--seed`` onwards, its most likely moves). At every choice made with the boneyard spent
each legal move is solved exactly (:mod:`agents.endgame`), and the move of the policy alone and
of ``NAME+search`` at ``--simulations`` rollouts (without ``solve``) are checked against the best
value. Prints how many such choices there were, how many each agent made below the best value
(a win or a tie thrown away against best play), and in how many games.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse

import numpy as np
import torch

from agents.endgame import check_solvable, new_solver, solved_values
from agents.policy import PolicyAgent
from benchmarks import nonnegative_int, policy_or_exit, positive_int
from training import checkpoint as ckpt


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("policy", nargs="?", default="draw_2p", help="a two-player Draw policy or checkpoint")
    parser.add_argument("--games", type=positive_int, default=400)
    parser.add_argument("--simulations", type=positive_int, default=512, help="NAME+search's rollouts per move")
    parser.add_argument("--seed", type=nonnegative_int, default=1000, help="the first deal's seed")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    folder, game, network = policy_or_exit(args.policy)
    if game.name != "draw":
        raise SystemExit(f"error: {args.policy!r} plays {game.name}; only Draw spends its boneyard")
    check_solvable(args.policy, game)
    policy = PolicyAgent(network)
    search = ckpt.load_search_agent(folder, game, network, simulations=args.simulations, seed=3)
    solver = new_solver(game)
    state = game.new_state(1)
    mask = np.zeros(game.num_actions, np.int8)
    choices = 0
    misplayed = {"policy": 0, "search": 0}
    games_misplayed = {"policy": 0, "search": 0}
    for episode in range(args.games):
        game.seed(state, 0, args.seed + episode)
        game.start(state, 0)
        lost = {"policy": False, "search": False}
        while not game.is_over(state, 0):
            observation, legal_mask = game.view(state, 0, game.current_seat(state, 0))
            move = int(policy.act(observation[None], legal_mask[None])[0])
            spent = state[0]["boneyard_top"] >= state[0]["boneyard_size"]
            if spent and game.legal_mask(state, 0, mask) > 1:
                choices += 1
                value = solved_values(game, state, solver)
                best = max(value.values())
                for who, chosen in (("policy", move), ("search", search.act_state(state, 0))):
                    if value[chosen] < best:
                        misplayed[who] += 1
                        lost[who] = True
            game.step(state, 0, move)
        for who in lost:
            games_misplayed[who] += lost[who]
    name = folder.name if folder.parent == ckpt.PRETRAINED_DIR else args.policy
    print(f"{name} against itself, {args.games} games: {choices} choices with the boneyard spent")
    print("| agent | below the best value | in games |")
    print("|---|---:|---:|")
    for who, label in (("policy", name), ("search", f"{name}+search:simulations={args.simulations}")):
        choice_share, game_share = misplayed[who] / max(choices, 1), games_misplayed[who] / args.games
        print(f"| {label} | {misplayed[who]} ({choice_share:.1%}) | {games_misplayed[who]} ({game_share:.1%}) |")


if __name__ == "__main__":
    main()
