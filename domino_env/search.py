"""Engine support for search: copy a game, apply actions to the copy, and determinize.

Search agents explore futures on copies of a game, moved forward by the variant's own compiled
rules, so no rule is written twice. A copy is a one-record array of the variant's state dtype:
it shares nothing with the original. Determinization is how a fair agent meets the real game:
from one seat's point of view it samples a complete game consistent with everything that seat
knows (own hand, the table, every count, the numbers each opponent is known not to hold), so an
agent that only ever reads determinized copies cannot peek at hidden tiles.

    copy = copy_state(env.unwrapped.state_array)
    apply(game, copy, game.action_from_name("draw"))
    worlds = determinize(game, env.unwrapped.state_array, observer=0, count=16, seed=1)
"""

from __future__ import annotations

import numpy as np

from domino_env.game import Game
from domino_env.rng import game_seed


def copy_state(state: np.ndarray, game: int = 0) -> np.ndarray:
    """Game ``game`` of the batch ``state`` as an independent batch of one."""
    return state[game : game + 1].copy()


def legal_actions(game: Game, state: np.ndarray, g: int = 0) -> np.ndarray:
    """The acting seat's legal action indices in game ``g``."""
    mask = np.zeros(game.num_actions, np.int8)
    game.legal_mask(state, g, mask)
    return np.flatnonzero(mask)


def apply(game: Game, state: np.ndarray, action: int, g: int = 0) -> int:
    """Play ``action`` for the acting seat of game ``g`` (a legal one, or ValueError naming the
    legal ones) and return the rules' PLAYING, HAND_OVER or GAME_OVER."""
    legal = legal_actions(game, state, g)
    if action not in legal:
        names = [game.action_name(int(a)) for a in legal]
        raise ValueError(f"action {action} is not legal here; legal actions: {names}")
    return game.step(state, g, int(action))


def determinize(game: Game, state: np.ndarray, observer: int, count: int = 1, seed: int = 0, g: int = 0) -> np.ndarray:
    """``count`` complete games (a batch) sampled uniformly among those ``observer`` cannot tell
    from game ``g``: same own hand, table and counts; hidden tiles placed anew, never giving a
    seat a number it is known not to hold. Sample ``i`` depends only on what ``observer`` knows,
    ``seed`` and ``i``. Each sample carries its own generator, so later deals (a match's next
    hand) in the sample are not the real game's either."""
    samples = game.new_state(count)
    for i in range(count):
        samples[i]["rng"] = game_seed(seed, i)
        game.determinize(state, g, observer, samples, i)
    return samples
