"""The attention trunk (:class:`agents.tile_attention.TileAttention`) and its play scores
(:class:`agents.tile_attention.PlayScores`) as arrays and a compiled forward pass, so that the
guided tree (:mod:`agents.guided_tree`) can ask an attention policy for its prior at every node
without leaving its compiled loop.

:func:`attend` builds the tokens as the torch trunk does (each tile's place, the faces it shows to
each number block, what it is, its embedding; one token for the whole observation), runs the
pre-norm transformer layers over them and returns the whole-observation token's output, the
``hidden`` vector every head reads. :func:`add_play_scores` then adds each legal play's score from
its tile's token. tests/test_guided_tree.py checks the prior they make against the network's at
positions of every variant.

An attention forward pass reads every token, so it costs about twenty times the prior of a
256,256 MLP (``python -m benchmarks.head_cost draw_2p --attention 64,64``, its last column),
and a guided tree over an attention policy runs fewer iterations in the same time.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch
from numba import njit

from agents.compiled_afterstate import dense
from agents.tile_attention import ATTENTION_HEADS, PlayScores, TileAttention

LAYER_NORM_EPS = 1e-5  # torch.nn.LayerNorm's default, which the trunk's norms use


class AttentionWeights(NamedTuple):
    """A :class:`TileAttention` trunk and its :class:`PlayScores` as float32 and int64 arrays.

    ``places`` holds where the hand and the table blocks start in the observation, ``low_face``
    and ``high_face`` (``[T, G]``) where each tile's faces are read in the number blocks, and
    ``identity`` (``[T, I]``) what each tile is. Each transformer layer's weights are stacked on a
    first axis of layers, every matrix ``[inputs, outputs]`` so that a row is one input's
    contribution (``qkv_w`` is the attention's query, key and value projections side by side).
    ``score_in_w`` reads a tile's token then the whole-observation token, and ``score_out_w`` is
    ``[width, targets]``. A network without an attention trunk has no tiles here."""

    places: np.ndarray
    low_face: np.ndarray
    high_face: np.ndarray
    identity: np.ndarray
    tile_in_w: np.ndarray
    tile_in_b: np.ndarray
    embedding: np.ndarray
    observation_in_w: np.ndarray
    observation_in_b: np.ndarray
    norm1_w: np.ndarray
    norm1_b: np.ndarray
    qkv_w: np.ndarray
    qkv_b: np.ndarray
    attention_out_w: np.ndarray
    attention_out_b: np.ndarray
    norm2_w: np.ndarray
    norm2_b: np.ndarray
    feedforward_in_w: np.ndarray
    feedforward_in_b: np.ndarray
    feedforward_out_w: np.ndarray
    feedforward_out_b: np.ndarray
    norm_w: np.ndarray
    norm_b: np.ndarray
    score_in_w: np.ndarray
    score_in_b: np.ndarray
    score_out_w: np.ndarray
    score_out_b: np.ndarray
    plays: np.ndarray
    play_tile: np.ndarray
    play_target: np.ndarray


def _floats(tensor: torch.Tensor) -> np.ndarray:
    return np.ascontiguousarray(tensor.detach().cpu().float().numpy())


def _ints(tensor: torch.Tensor) -> np.ndarray:
    return np.ascontiguousarray(tensor.detach().cpu().numpy().astype(np.int64))


def no_attention() -> AttentionWeights:
    """The arrays of a network with an MLP trunk: no tiles, so :func:`attend` is never reached."""
    ints, vector = np.zeros(0, np.int64), np.zeros(0, np.float32)
    matrix, stack, table = np.zeros((0, 0), np.float32), np.zeros((0, 0, 0), np.float32), np.zeros((0, 0), np.int64)
    return AttentionWeights(
        np.zeros(2, np.int64), table, table, matrix, matrix, vector, matrix, matrix, vector,
        matrix, matrix, stack, matrix, stack, matrix, matrix, matrix, stack, matrix, stack, matrix,
        vector, vector, matrix, vector, matrix, vector, ints, ints, ints,
    )  # fmt: skip


def compiled_attention(trunk: TileAttention, scores: PlayScores) -> AttentionWeights:
    """``trunk``'s and ``scores``' tables and layers copied out of torch."""
    layers = list(trunk.layers.layers)

    def stacked(get) -> np.ndarray:
        return np.ascontiguousarray(np.stack([_floats(get(layer)) for layer in layers]))

    score_in, score_out = scores.score[0], scores.score[2]
    return AttentionWeights(
        np.array([int(trunk.hand[0]), int(trunk.table[0])], np.int64),
        _ints(trunk.low_face),
        _ints(trunk.high_face),
        _floats(trunk.identity),
        _floats(trunk.tile_in.weight.T),
        _floats(trunk.tile_in.bias),
        _floats(trunk.tile_embedding.weight),
        _floats(trunk.observation_in.weight.T),
        _floats(trunk.observation_in.bias),
        stacked(lambda layer: layer.norm1.weight),
        stacked(lambda layer: layer.norm1.bias),
        stacked(lambda layer: layer.self_attn.in_proj_weight.T),
        stacked(lambda layer: layer.self_attn.in_proj_bias),
        stacked(lambda layer: layer.self_attn.out_proj.weight.T),
        stacked(lambda layer: layer.self_attn.out_proj.bias),
        stacked(lambda layer: layer.norm2.weight),
        stacked(lambda layer: layer.norm2.bias),
        stacked(lambda layer: layer.linear1.weight.T),
        stacked(lambda layer: layer.linear1.bias),
        stacked(lambda layer: layer.linear2.weight.T),
        stacked(lambda layer: layer.linear2.bias),
        _floats(trunk.norm.weight),
        _floats(trunk.norm.bias),
        _floats(score_in.weight.T),
        _floats(score_in.bias),
        _floats(score_out.weight.T),
        _floats(score_out.bias),
        _ints(scores.plays),
        _ints(scores.play_tile),
        _ints(scores.play_target),
    )


@njit(cache=True)
def layer_norm(tokens, weight, bias, out):
    """Write into ``out`` each row of ``tokens`` normalised to mean 0 and variance 1, then scaled
    by ``weight`` and shifted by ``bias``."""
    width = tokens.shape[1]
    for i in range(tokens.shape[0]):
        mean = np.float32(0.0)
        for j in range(width):
            mean += tokens[i, j]
        mean /= width
        variance = np.float32(0.0)
        for j in range(width):
            centred = tokens[i, j] - mean
            variance += centred * centred
        scale = np.float32(1.0) / np.sqrt(variance / width + np.float32(LAYER_NORM_EPS))
        for j in range(width):
            out[i, j] = (tokens[i, j] - mean) * scale * weight[j] + bias[j]


@njit(cache=True)
def self_attention(att, layer, normed, out):
    """Add to ``out`` the multi-head self-attention of layer ``layer`` over the rows of ``normed``."""
    count, width = normed.shape
    size = width // ATTENTION_HEADS
    qkv = np.empty((count, 3 * width), np.float32)
    for i in range(count):
        qkv[i] = dense(normed[i], att.qkv_w[layer], att.qkv_b[layer], False)
    scale = np.float32(1.0 / np.sqrt(size))
    mixed = np.zeros((count, width), np.float32)
    weights = np.empty(count, np.float32)
    for head in range(ATTENTION_HEADS):
        q_at, k_at, v_at = head * size, width + head * size, 2 * width + head * size
        for i in range(count):
            top = -np.inf
            for j in range(count):
                score = np.float32(0.0)
                for k in range(size):
                    score += qkv[i, q_at + k] * qkv[j, k_at + k]
                weights[j] = score * scale
                top = max(top, weights[j])
            total = np.float32(0.0)
            for j in range(count):
                weights[j] = np.exp(weights[j] - top)
                total += weights[j]
            for j in range(count):
                share = weights[j] / total
                for k in range(size):
                    mixed[i, q_at + k] += share * qkv[j, v_at + k]
    for i in range(count):
        out[i] += dense(mixed[i], att.attention_out_w[layer], att.attention_out_b[layer], False)


@njit(cache=True)
def attend(att, observation):
    """The trunk's output for ``observation``: ``[1 + T, width]``, the whole-observation token's
    row first, then each tile's, after the last norm."""
    tiles, width = att.embedding.shape
    hand_at, table_at = att.places[0], att.places[1]
    groups, identity = att.low_face.shape[1], att.identity.shape[1]
    tokens = np.empty((1 + tiles, width), np.float32)
    tokens[0] = dense(observation, att.observation_in_w, att.observation_in_b, False)
    inputs = np.empty(3 + groups + identity, np.float32)
    for t in range(tiles):
        held, laid = observation[hand_at + t], observation[table_at + t]
        inputs[0], inputs[1], inputs[2] = held, laid, np.float32(1.0) - held - laid
        for g in range(groups):
            inputs[3 + g] = observation[att.low_face[t, g]] + observation[att.high_face[t, g]]
        inputs[3 + groups :] = att.identity[t]
        tokens[1 + t] = dense(inputs, att.tile_in_w, att.tile_in_b, False) + att.embedding[t]
    normed = np.empty_like(tokens)
    for layer in range(att.qkv_w.shape[0]):
        layer_norm(tokens, att.norm1_w[layer], att.norm1_b[layer], normed)
        self_attention(att, layer, normed, tokens)
        layer_norm(tokens, att.norm2_w[layer], att.norm2_b[layer], normed)
        for i in range(tokens.shape[0]):
            inner = dense(normed[i], att.feedforward_in_w[layer], att.feedforward_in_b[layer], True)
            tokens[i] += dense(inner, att.feedforward_out_w[layer], att.feedforward_out_b[layer], False)
    layer_norm(tokens, att.norm_w, att.norm_b, normed)
    return normed


@njit(cache=True)
def add_play_scores(att, encoded, mask, logits):
    """Add to ``logits`` the score of every play ``mask`` allows, from its tile's row of
    ``encoded`` (:func:`attend`) beside the whole-observation row; a tile with several legal
    plays is read once. Plays the mask forbids get nothing: the prior never reads them."""
    width = encoded.shape[1]
    pair = np.empty(2 * width, np.float32)
    pair[width:] = encoded[0]
    read = np.zeros((encoded.shape[0] - 1, width), np.float32)
    done = np.zeros(encoded.shape[0] - 1, np.bool_)
    for p in range(att.plays.shape[0]):
        if not mask[att.plays[p]]:
            continue
        tile, target = att.play_tile[p], att.play_target[p]
        if not done[tile]:
            pair[:width] = encoded[1 + tile]
            read[tile] = dense(pair, att.score_in_w, att.score_in_b, True)
            done[tile] = True
        score = att.score_out_b[target]
        for k in range(width):
            score += read[tile, k] * att.score_out_w[k, target]
        logits[att.plays[p]] += score
