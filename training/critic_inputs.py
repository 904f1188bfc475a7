"""What a privileged critic reads besides the observation: every hand but the actor's, and the boneyard.

PPO's advantage of a decision is the return that followed it minus the critic's estimate of the
position. In these games the deal decides much of a hand, so a critic that sees only the actor's
observation can explain little of the return (explained variance 0.15-0.25 in the shipped runs)
and each advantage is mostly the luck of the hidden tiles. A critic that also sees them
removes that luck from the advantage, leaving the effect of the decision.

This is "perfect-training, imperfect-execution" (Yang et al., PerfectDou, NeurIPS 2022): the
critic is a training device only. The policy never reads these inputs, so the trained agent
still plays on what its seat may see; the critic and its inputs are used by the trainer and the
imitation head start and by nothing that plays.
"""

from __future__ import annotations

import numpy as np

from domino_env.game import Game
from domino_env.games.core import UNDEALT


def critic_input_size(game: Game) -> int:
    """One block of tiles per other seat, then one for the boneyard (tiles dealt to nobody)."""
    return game.num_players * game.num_tiles


def hidden_tiles(game: Game, state: np.ndarray, games: np.ndarray, seats: np.ndarray, size: int) -> np.ndarray:
    """``[len(games), size]`` float32: for game ``games[i]`` seen by ``seats[i]``, block ``k - 1``
    (k = 1 .. P-1) marks the tiles in the hand of the seat ``k`` places after it, and the last
    block the tiles in the boneyard (or set aside). ``size`` is ``critic_input_size(game)``, or 0
    for a network whose critic reads nothing more (an empty array then)."""
    if size == 0:
        return np.zeros((len(games), 0), np.float32)
    players, tiles = game.num_players, game.num_tiles
    location = state["location"][games, :tiles].astype(np.int64)  # a seat, UNDEALT or ON_TABLE
    seats = np.asarray(seats, np.int64)[:, None]
    out = np.zeros((len(games), players, tiles), np.float32)
    in_hand = location >= 0
    relative = (location - seats) % players  # 0: the actor's own hand, which the observation shows
    for k in range(1, players):
        out[:, k - 1] = in_hand & (relative == k)
    out[:, players - 1] = location == UNDEALT
    return out.reshape(len(games), players * tiles)
