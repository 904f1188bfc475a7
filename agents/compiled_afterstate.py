"""The line games' afterstate head (:class:`agents.afterstate.AfterstateScores`) as arrays and a
compiled forward pass, so that the guided tree (:mod:`agents.guided_tree`) can ask a policy with
that head for its prior at every node without leaving its compiled loop.

:func:`add_line_scores` computes, for each play that may be legal, the same features the torch head
computes from the observation (the line after the play, the hand's and the unseen tiles' counts
per number, the voids on what stays open) and adds ``v . relu(U features + C hidden) + b`` to that
play's logit. tests/test_compiled_afterstate.py checks the features against the torch head's at
every position of random Draw, Block and partnership games, and tests/test_guided_tree.py the
prior they make. Hungarian's and Mexican Train's heads add searches of their own (the run, the chain) and
are not compiled here.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch
from numba import njit

from agents.afterstate import AfterstateHead, AfterstateScores
from agents.run_afterstate import RunAfterstateScores
from agents.train_afterstate import TrainAfterstateScores
from domino_env.tiles import TILE_HIGH, TILE_LOW

# Where the head reads the observation: the starts of these blocks, then the count of numbers
# and of opponents, in this order in ``LineHead.layout``.
BLOCKS = ("hand", "table", "left_end", "right_end", "voids")
PER_PLAY = 9  # the features every play has besides the per-number and per-opponent ones
# The afterstate heads this forward pass does not compute, named as a refusal names them.
NOT_COMPILED = {RunAfterstateScores: "Hungarian's run", TrainAfterstateScores: "Mexican Train's chain"}


class LineHead(NamedTuple):
    """An :class:`AfterstateScores` head as float32 and int64 arrays: where it reads the
    observation (``layout``), each candidate play's action, tile, side (0 left, 1 right) and
    faces, every tile's faces and pips, and the small network's layers (``in_w`` is ``[features, hidden]``,
    ``context_w`` ``[trunk width, hidden]``). A network without the head has no plays."""

    layout: np.ndarray
    plays: np.ndarray
    play_tile: np.ndarray
    play_side: np.ndarray
    low: np.ndarray
    high: np.ndarray
    tile_low: np.ndarray
    tile_high: np.ndarray
    tile_pips: np.ndarray
    play_pips: np.ndarray
    play_double: np.ndarray
    in_w: np.ndarray
    in_b: np.ndarray
    context_w: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray


def no_line_head() -> LineHead:
    """The arrays of a network without an afterstate head: no plays, so nothing is added."""
    ints, floats = np.zeros(0, np.int64), np.zeros(0, np.float32)
    table = np.zeros((0, 0), np.float32)
    return LineHead(
        np.zeros(len(BLOCKS) + 2, np.int64), ints, ints, ints, ints, ints, ints, ints, floats, floats, floats,
        table, floats, table, floats, np.zeros(1, np.float32),
    )  # fmt: skip


def compiled_line_head(head: AfterstateHead) -> LineHead:
    """``head``'s tables and layers copied out of torch. Only the line games' own head: Hungarian's
    run head and Mexican Train's chain head compute features this forward pass does not."""
    if type(head) is not AfterstateScores:
        owner = NOT_COMPILED.get(type(head), "this")
        raise ValueError(
            f"the guided tree (tree=1) compiles the line games' afterstate head (Draw, Block), "
            f"not {owner} head ({type(head).__name__}): search this policy with plain +search"
        )

    def numpy(tensor: torch.Tensor, dtype: type) -> np.ndarray:
        return np.ascontiguousarray(tensor.detach().cpu().numpy().astype(dtype))

    layout = [head.layout[name][0] for name in BLOCKS] + [head.numbers, head.opponents]
    game_tiles = len(head.tile_pips)
    return LineHead(
        np.array(layout, np.int64),
        numpy(head.plays, np.int64),
        numpy(head.play_tile, np.int64),
        numpy(head.play_side, np.int64),
        numpy(head.low.argmax(1), np.int64),
        numpy(head.high.argmax(1), np.int64),
        TILE_LOW[:game_tiles].astype(np.int64),
        TILE_HIGH[:game_tiles].astype(np.int64),
        numpy(head.tile_pips, np.float32),
        numpy(head.play_pips, np.float32),
        numpy(head.play_double, np.float32),
        numpy(head.features_in.weight.T, np.float32),
        numpy(head.features_in.bias, np.float32),
        numpy(head.context.weight.T, np.float32),
        numpy(head.out.weight[0], np.float32),
        numpy(head.out.bias, np.float32),
    )


@njit(cache=True)
def dense(inputs, weight, bias, relu):
    """``inputs @ weight + bias`` (and ReLU), skipping zero inputs: an observation is mostly
    zeros, and so are a play's features. The layer every compiled forward pass here and in
    :mod:`agents.guided_tree` is made of."""
    out = bias.copy()
    for i in range(inputs.shape[0]):
        x = inputs[i]
        if x != 0.0:
            row = weight[i]
            for j in range(out.shape[0]):
                out[j] += x * row[j]
    if relu:
        for j in range(out.shape[0]):
            if out[j] < 0.0:
                out[j] = 0.0
    return out


@njit(cache=True)
def hand_counts(head, observation, counts):
    """Write into ``counts`` what every play of ``observation`` shares: my tiles and the unseen
    ones per number (rows 0 and 1, ``numbers`` wide), then the pips in my hand and whether the
    table is empty (row 2, columns 0 and 1)."""
    hand_at, table_at, left_at, _, _, numbers, _ = head.layout
    counts[:] = 0.0
    for t in range(head.tile_low.shape[0]):
        held = observation[hand_at + t]
        unseen = 1 - held - observation[table_at + t]
        low, high = head.tile_low[t], head.tile_high[t]
        counts[0, low] += held
        counts[1, low] += unseen
        if high != low:
            counts[0, high] += held
            counts[1, high] += unseen
        counts[2, 0] += held * head.tile_pips[t]
    left_total = np.float32(0.0)
    for n in range(numbers):
        left_total += observation[left_at + n]
    counts[2, 1] = np.float32(left_total == 0.0)


@njit(cache=True, inline="always")
def play_features(head, observation, counts, p, out):
    """Write into ``out`` the features of play ``p`` (an index into ``head.plays``) from
    ``observation`` and its :func:`hand_counts`, in :meth:`AfterstateScores.features`' order, and
    return True; return False, writing nothing, when the play cannot be legal there
    (:meth:`AfterstateScores.candidates`)."""
    hand_at, table_at, left_at, right_at, voids_at, numbers, opponents = head.layout
    tile, side = head.play_tile[p], head.play_side[p]
    low, high = head.low[p], head.high[p]
    if observation[hand_at + tile] == 0.0:
        return False
    lead = counts[2, 1]
    played_at, kept_at = (right_at, left_at) if side == 1 else (left_at, right_at)
    if lead == 0.0:
        if observation[played_at + low] + (observation[played_at + high] if high != low else 0.0) <= 0.0:
            return False
    elif side == 1:
        return False
    low_matches = observation[played_at + low]
    at = 5 * numbers
    biggest = np.float32(0.0)
    mine_opened, others_opened, open_count = np.float32(0.0), np.float32(0.0), np.float32(0.0)
    for n in range(numbers):
        face = low_matches * np.float32(n == high) + (1 - low_matches) * np.float32(n == low)
        if lead == 1.0:
            open_after = np.float32(n == low) + np.float32(n == high)
            opened = np.float32(n == high)
        else:
            open_after = observation[kept_at + n] + face
            opened = face
        mine = counts[0, n] - np.float32((n == low) | (n == high))
        void_most = np.float32(0.0)
        for r in range(opponents):
            void_most = max(void_most, observation[voids_at + r * numbers + n])
        is_open = np.float32(open_after > 0)
        out[n] = open_after
        out[numbers + n] = opened
        out[2 * numbers + n] = mine / 7
        out[3 * numbers + n] = counts[1, n] / 7
        out[4 * numbers + n] = is_open * void_most
        biggest = max(biggest, open_after)
        mine_opened += mine * opened
        others_opened += counts[1, n] * opened
        open_count += is_open
    follow_mine, follow_unseen = np.float32(0.0), np.float32(0.0)
    for t in range(head.tile_low.shape[0]):
        if out[head.tile_low[t]] > 0 or out[head.tile_high[t]] > 0:
            held = observation[hand_at + t]
            follow_mine += held
            follow_unseen += 1 - held - observation[table_at + t]
    out[at] = (follow_mine - 1) / 7  # the played tile fits the line it was laid on
    out[at + 1] = follow_unseen / 7
    out[at + 2] = mine_opened / 7
    out[at + 3] = others_opened / 7
    out[at + 4] = (counts[2, 0] - head.tile_pips[tile]) / 7
    out[at + 5] = np.float32(biggest > 1)
    out[at + 6] = head.play_pips[p]
    out[at + 7] = head.play_double[p]
    out[at + 8] = lead
    at += PER_PLAY
    open_count = max(open_count, np.float32(1.0))
    for r in range(opponents):
        void_open = np.float32(0.0)
        for n in range(numbers):
            if out[n] > 0:
                void_open += observation[voids_at + r * numbers + n]
        void_open /= open_count
        out[at + r] = void_open
        out[at + opponents + r] = np.float32(void_open >= 1.0)
    return True


@njit(cache=True)
def add_line_scores(head, observation, hidden, logits):
    """Add to ``logits`` the head's score of every play that may be legal in ``observation``,
    ``hidden`` being the trunk's output: the torch head's forward pass, one play at a time."""
    features = np.zeros(head.in_w.shape[0], np.float32)
    counts = np.zeros((3, max(head.layout[5], 2)), np.float32)
    hand_counts(head, observation, counts)
    context = dense(hidden, head.context_w, head.in_b, False)
    hand_at = head.layout[0]
    for p in range(head.plays.shape[0]):
        # play_features asks this first too, but most plays' tiles are not in hand, and asking
        # here skips the call for them: the head's cost halves (9 µs against 18)
        if observation[hand_at + head.play_tile[p]] == 0.0:
            continue
        if not play_features(head, observation, counts, p, features):
            continue
        inner = dense(features, head.in_w, context, True)
        logits[head.plays[p]] += head.out_b[0] + (inner * head.out_w).sum()
