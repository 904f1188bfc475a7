"""A trunk that reads the observation as a set of tiles: one token per tile, attention across them.

An MLP reads the observation as one flat vector, so its first layer must rebuild, for every tile,
where the tile is and what it fits: that it is in the hand and that one of its numbers is open
at the left end lie in different blocks of the vector. Here each tile gets a token that holds
those facts side by side:

- where it is: in the hand, on the table, or unseen (in another hand or the boneyard);
- for every block of the observation indexed by number (the open ends, the trains' ends, the
  engine, the double to satisfy, each opponent's voids): how many of the tile's faces show a
  number that block marks, so "fits the left end" or "the next seat is void in one of its
  numbers" is one input of the token;
- which tile it is: its numbers, pips and whether it is a double, and an embedding of its own.

A further token reads the whole observation (hand sizes, boneyard, scores, turn phase). Pre-norm
transformer layers let every token read every other; the whole-observation token's output is the
``hidden`` vector the value head and the action heads read, as an MLP trunk's last layer is, and
:class:`PlayScores` scores each play from its tile's token. Only the observation is read, so the
trunk sees exactly what the player may know.

Attention's cost grows with the square of the tokens: 29 in double-six, 92 in double-twelve.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from domino_env.game import Game, action_targets
from domino_env.tiles import TILE_HIGH, TILE_LOW, TILE_VALUE

ATTENTION_HEADS = 4
# Bounds on what a config or a checkpoint's metadata may ask for, checked before anything is
# built: a width of 1,024 over 92 tokens is already far beyond what trains in an hour here.
MAX_ATTENTION_WIDTH = 1024
FEEDFORWARD_FACTOR = 4
# The observation blocks indexed by number (one entry per number of the set, or several such
# groups: one per train, one per opponent), in every variant that has them.
NUMBER_BLOCKS = ("left_end", "right_end", "engine", "train_ends", "double_number", "voids")


def attention_sizes_problem(hidden_sizes: list[int]) -> str | None:
    """Why ``hidden_sizes`` cannot shape an attention trunk (one equal width per layer, a
    multiple of the heads, at most ``MAX_ATTENTION_WIDTH``), or None when it can."""
    width = hidden_sizes[0]
    if any(size != width for size in hidden_sizes):
        return "an attention trunk has one width for all its layers (for example [64, 64])"
    if width % ATTENTION_HEADS or width > MAX_ATTENTION_WIDTH:
        return f"an attention trunk's width must be a multiple of {ATTENTION_HEADS} up to {MAX_ATTENTION_WIDTH}"
    return None


def tile_identity(num_tiles: int) -> np.ndarray:
    """``[T, numbers + 2]``: how many of each tile's faces show each number, its pips scaled to
    [0, 1] and whether it is a double: what tiles with a number in common share."""
    numbers = int(TILE_HIGH[:num_tiles].max()) + 1
    features = np.zeros((num_tiles, numbers + 2), np.float32)
    for t in range(num_tiles):
        features[t, TILE_LOW[t]] += 1.0
        features[t, TILE_HIGH[t]] += 1.0
        features[t, numbers] = TILE_VALUE[t] / (2.0 * (numbers - 1))
        features[t, numbers + 1] = float(TILE_LOW[t] == TILE_HIGH[t])
    return features


def face_indices(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """Two ``[T, G]`` index arrays into the observation: for each tile and each group of a number
    block (:data:`NUMBER_BLOCKS`), where its low face's and its high face's entries are."""
    num_tiles = game.num_tiles
    numbers = int(TILE_HIGH[:num_tiles].max()) + 1
    blocks = {name: part for name, part in game.observation_layout.items() if name in NUMBER_BLOCKS}
    for name, part in blocks.items():
        if (part.stop - part.start) % numbers:
            raise ValueError(f"observation block {name} is not a whole number of groups of {numbers} numbers")
    starts = [
        part.start + group * numbers for part in blocks.values() for group in range((part.stop - part.start) // numbers)
    ]
    starts_row = np.asarray(starts, np.int64)[None, :]
    low = starts_row + TILE_LOW[:num_tiles, None].astype(np.int64)
    high = starts_row + TILE_HIGH[:num_tiles, None].astype(np.int64)
    return low, high


class TileAttention(nn.Module):
    """The trunk: ``forward`` gives the whole-observation token's output ``[N, width]``, and
    ``encode`` that and every tile token's ``[N, T, width]``."""

    def __init__(self, game: Game, width: int, layers: int) -> None:
        super().__init__()
        layout = game.observation_layout
        low, high = face_indices(game)
        identity = tile_identity(game.num_tiles)
        # derived from the game, so kept out of checkpoints
        self.register_buffer("hand", torch.arange(layout["hand"].start, layout["hand"].stop), persistent=False)
        self.register_buffer("table", torch.arange(layout["table"].start, layout["table"].stop), persistent=False)
        self.register_buffer("low_face", torch.as_tensor(low), persistent=False)
        self.register_buffer("high_face", torch.as_tensor(high), persistent=False)
        self.register_buffer("identity", torch.as_tensor(identity), persistent=False)
        token_inputs = 3 + low.shape[1] + identity.shape[1]
        self.tile_in = nn.Linear(token_inputs, width)
        self.tile_embedding = nn.Embedding(game.num_tiles, width)
        nn.init.normal_(self.tile_embedding.weight, std=0.02)
        self.observation_in = nn.Linear(game.observation_size, width)
        layer = nn.TransformerEncoderLayer(
            width, ATTENTION_HEADS, FEEDFORWARD_FACTOR * width, dropout=0.0, batch_first=True, norm_first=True
        )
        self.layers = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(width)

    def tokens(self, observations: torch.Tensor) -> torch.Tensor:
        """``[N, T, inputs]``: each tile's place, the faces it shows to each number block, and
        what it is."""
        hand = observations[:, self.hand]
        table = observations[:, self.table]
        place = torch.stack([hand, table, 1.0 - hand - table], -1)
        faces = observations[:, self.low_face] + observations[:, self.high_face]
        identity = self.identity.expand(len(observations), -1, -1)
        return torch.cat([place, faces, identity], -1)

    def encode(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The whole-observation token's output ``[N, width]`` and the tiles' ``[N, T, width]``."""
        tiles = self.tile_in(self.tokens(observations)) + self.tile_embedding.weight
        whole = self.observation_in(observations)[:, None]
        out = self.norm(self.layers(torch.cat([whole, tiles], 1)))
        return out[:, 0], out[:, 1:]

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.encode(observations)[0]


class PlayScores(nn.Module):
    """Scores each (tile, target) play from its tile's token and the whole-observation token:
    a small MLP over the pair gives one score per target, and a play takes its target's. What
    the trunk learned about a tile reaches the logit of every play of it directly."""

    def __init__(self, width: int, action_tiles: np.ndarray) -> None:
        super().__init__()
        tiles = np.asarray(action_tiles)
        plays = np.flatnonzero(tiles >= 0)
        targets = action_targets(tiles)[plays]
        self.num_actions = len(tiles)
        self.register_buffer("plays", torch.as_tensor(plays), persistent=False)
        self.register_buffer("play_tile", torch.as_tensor(tiles[plays]), persistent=False)
        self.register_buffer("play_target", torch.as_tensor(targets), persistent=False)
        out = nn.Linear(width, int(targets.max()) + 1)
        nn.init.orthogonal_(out.weight, 0.01)
        nn.init.zeros_(out.bias)
        self.score = nn.Sequential(nn.Linear(2 * width, width), nn.ReLU(), out)

    def forward(self, hidden: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
        pairs = torch.cat([tokens, hidden[:, None].expand_as(tokens)], -1)
        scores = self.score(pairs)  # [N, T, targets]
        out = hidden.new_zeros(len(hidden), self.num_actions)
        out[:, self.plays] = scores[:, self.play_tile, self.play_target]
        return out
