"""The afterstate heads' tests walk random games and compare each legal play's features with the
position the engine reaches after it, as the same seat then observes it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import torch


class PlayAndAfter(NamedTuple):
    play: int  # index into head.plays
    action: int
    candidates: np.ndarray  # [M] the head's candidates in the position before
    legal_plays: np.ndarray  # [M] the legal ones among head.plays
    features: np.ndarray  # [F] the head's features of this play
    after: np.ndarray  # the engine's record after the play
    seen: np.ndarray  # the acting seat's observation after it
    seat: int  # the acting seat


def plays_and_what_follows(game, head, deals: int, seed: int) -> Iterator[PlayAndAfter]:
    """Every legal play of ``deals`` random games that does not end its game, with what follows
    it; each position's legal plays are checked to be among the head's candidates first."""
    state = game.new_state(1)
    rng = np.random.default_rng(seed)
    plays = head.plays.numpy()
    for deal in range(deals):
        game.seed(state, 0, deal)
        game.start(state, 0)
        while not state[0]["game_over"]:
            seat = int(state[0]["current"])
            mask = np.zeros(game.num_actions, np.int8)
            game.legal_mask(state, 0, mask)
            obs = np.zeros(game.observation_size, np.float32)
            game.observe(state, 0, seat, obs)
            candidates = head.candidates(torch.as_tensor(obs[None]))[0].numpy()
            legal_plays = mask[plays].astype(bool)
            assert candidates[legal_plays].all(), "the head scores every legal play"
            for k in np.flatnonzero(legal_plays):
                after = state.copy()
                game.step(after, 0, int(plays[k]))
                if after[0]["game_over"]:  # the hand is over and what it shows no longer follows
                    continue
                seen = np.zeros_like(obs)
                game.observe(after, 0, seat, seen)
                features = head.features(torch.as_tensor(obs[None]), torch.tensor([k]))[0].numpy()
                yield PlayAndAfter(int(k), int(plays[k]), candidates, legal_plays, features, after, seen, seat)
            game.step(state, 0, rng.choice(np.flatnonzero(mask)))
