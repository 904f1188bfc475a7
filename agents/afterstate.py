"""Scores for each play from what the line looks like after it: the action head ``"afterstate"``.

A search agent values a move by what follows it: which numbers are left open, how many of my
tiles and of the unseen ones fit them, whether a seat known to be void on them is blocked. An MLP
on the observation has to rebuild each of those quantities for each of the 56 moves from the
hand, table and end vectors; :func:`benchmarks.value_fit` measured that it does not, at any width
tried. This head computes them in closed form from the observation (they are sums over public
tiles and the observer's own hand, so no hidden information enters) and scores each play by one
small network shared by all plays, fed with those features and a summary of the trunk's state:
``score[a] = v . relu(U features[a] + C hidden)``. Only the plays that may be legal are scored
(:meth:`AfterstateScores.candidates`), two or so of the 56 a position: the rest are masked anyway.

It serves the line games (Draw and Block: one tile per move on the left or right end); Hungarian's
head (:mod:`agents.run_afterstate`) adds the run a play goes on with, and Mexican Train's
(:mod:`agents.train_afterstate`) reads the trains a play leaves.
:func:`agents.network.afterstate_scores` picks the one a game takes.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from domino_env.game import Game, action_targets
from domino_env.games import draw_rules
from domino_env.tiles import TILE_HIGH, TILE_LOW, TILE_VALUE


class AfterstateHead(nn.Module):
    """What every afterstate head shares: each candidate play scored by one small network fed
    with the play's features and a summary of the trunk's state, ``v . relu(U features + C
    hidden)``. A subclass says which plays may be legal (:meth:`candidates`, a superset of the
    legal ones: the rest are masked anyway) and what each leaves (:meth:`features`)."""

    def __init__(self, width: int, game: Game, plays: np.ndarray, num_features: int, hidden: int = 64) -> None:
        super().__init__()
        self.layout = {name: (part.start, part.stop) for name, part in game.observation_layout.items()}
        self.num_actions = game.num_actions
        self.register_buffer("plays", torch.as_tensor(plays), persistent=False)
        self.num_features = num_features
        self.features_in = nn.Linear(num_features, hidden)
        self.context = nn.Linear(width, hidden, bias=False)
        self.out = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.features_in.weight, float(np.sqrt(2)))
        nn.init.zeros_(self.features_in.bias)
        nn.init.orthogonal_(self.context.weight, float(np.sqrt(2)) / 4)
        nn.init.orthogonal_(self.out.weight, 0.01)
        nn.init.zeros_(self.out.bias)

    def register_tile_tables(self, game: Game, plays: np.ndarray, numbers: int) -> None:
        """Buffers every head reads, derived from the game and so kept out of checkpoints: each
        play's tile, its faces one-hot (``low``, ``high``), pips and doubleness, and the
        :func:`face_table` with every tile's pips."""
        tiles = np.asarray(game.action_tiles)[plays]
        low, high = TILE_LOW[tiles], TILE_HIGH[tiles]
        eye = np.eye(numbers, dtype=np.float32)
        pips = 2.0 * (numbers - 1)
        buffers = {
            "play_tile": torch.as_tensor(tiles),
            "low": torch.as_tensor(eye[low]),  # [M, N] one-hot of each play's faces
            "high": torch.as_tensor(eye[high]),
            "contains": torch.as_tensor(face_table(game.num_tiles, numbers)),
            "tile_pips": torch.as_tensor(TILE_VALUE[: game.num_tiles].astype(np.float32) / pips),
            "play_pips": torch.as_tensor(TILE_VALUE[tiles].astype(np.float32) / pips),
            "play_double": torch.as_tensor((low == high).astype(np.float32)),
        }
        for name, value in buffers.items():
            self.register_buffer(name, value, persistent=False)

    def block(self, observations: torch.Tensor, name: str) -> torch.Tensor:
        start, stop = self.layout[name]
        return observations[:, start:stop]

    def face_left_open(self, played_on: torch.Tensor, plays: torch.Tensor) -> torch.Tensor:
        """``[K, N]``: the face the play ``plays[k]`` leaves open when laid against the number
        ``played_on[k]`` (one-hot): the high one when the low one matches it, else the low one."""
        low, high = self.low[plays], self.high[plays]
        low_matches = (played_on * low).sum(1, keepdim=True)
        return low_matches * high + (1 - low_matches) * low

    def candidates(self, observations: torch.Tensor) -> torch.Tensor:
        """``[B, M]``: which of :attr:`plays` may be legal in each position."""
        raise NotImplementedError

    def features(self, observations: torch.Tensor, plays: torch.Tensor) -> torch.Tensor:
        """``[K, F]``: what the play ``plays[k]`` (an index into :attr:`plays`) leaves, from the
        observation ``observations[k]``, as the observer sees it."""
        raise NotImplementedError

    def forward(self, observations: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
        rows, plays = self.candidates(observations).nonzero(as_tuple=True)
        features = self.features(observations[rows], plays)
        inner = torch.relu(self.features_in(features) + self.context(hidden)[rows])
        out = hidden.new_zeros(len(hidden), self.num_actions)
        return out.index_put((rows, self.plays[plays]), self.out(inner).squeeze(-1))


def face_table(num_tiles: int, numbers: int) -> np.ndarray:
    """``[T, N]``: 1 where tile ``t`` shows number ``n`` (once for a double), so that a count of
    tiles per number is a product with it."""
    contains = np.zeros((num_tiles, numbers), np.float32)
    contains[np.arange(num_tiles), TILE_LOW[:num_tiles]] = 1.0
    contains[np.arange(num_tiles), TILE_HIGH[:num_tiles]] = 1.0
    return contains


class AfterstateScores(AfterstateHead):
    """The line games' afterstate head: each play's logit gets a score computed from the features
    of the line after it (see the module's docstring); draw and pass get none, the plain head
    scores them."""

    reads: tuple = (draw_rules,)  # the rules modules whose observations this head reads
    extra_features = 0  # a subclass's own features, after the line's

    def __init__(self, width: int, game: Game, hidden: int = 64) -> None:
        if game.rules not in self.reads:
            raise ValueError(f"{type(self).__name__} does not read {game.name}")
        layout = game.observation_layout
        tiles = np.asarray(game.action_tiles)
        plays = np.flatnonzero(tiles >= 0)
        numbers = layout["left_end"].stop - layout["left_end"].start
        opponents = (layout["voids"].stop - layout["voids"].start) // numbers
        super().__init__(width, game, plays, 5 * numbers + 9 + 2 * opponents + self.extra_features, hidden)
        self.numbers = numbers
        self.opponents = opponents
        self.register_tile_tables(game, plays, numbers)
        sides = action_targets(tiles)[plays]  # 0 left, 1 right
        self.register_buffer("play_side", torch.as_tensor(sides), persistent=False)

    def candidates(self, observations: torch.Tensor) -> torch.Tensor:
        """``[B, M]``: the plays that may be legal, a tile in hand on an end it shows (the first
        side only on the lead). Every legal play is one; a position has 1.8 on average of the 56
        in the partnership, so the head scores those alone."""
        hand = self.block(observations, "hand")[:, self.play_tile]
        left, right = self.block(observations, "left_end"), self.block(observations, "right_end")
        lead = self.leading(observations)
        shows = self.contains[self.play_tile]  # [M, N] the numbers each play's tile shows
        on_left, on_right = left @ shows.T, right @ shows.T
        fits = torch.where(self.play_side.bool(), on_right, on_left)
        fits = lead * (1 - self.play_side.float()) + (1 - lead) * fits
        return (hand * fits) > 0

    def leading(self, observations: torch.Tensor) -> torch.Tensor:
        """``[B, 1]``: 1 where nothing is on the table yet (Draw's left end shows a number once a
        tile is down)."""
        return (self.block(observations, "left_end").sum(1, keepdim=True) == 0).float()

    def after_play(self, observations: torch.Tensor, plays: torch.Tensor, lead: torch.Tensor) -> tuple:
        """``([K, N], [K, N])``: how many open ends show each number after the play, and the
        number the play itself leaves open."""
        left, right = self.block(observations, "left_end"), self.block(observations, "right_end")
        side = self.play_side[plays].view(-1, 1)
        low, high = self.low[plays], self.high[plays]
        played_on = torch.where(side.bool(), right, left)  # the end the play covers
        kept = torch.where(side.bool(), left, right)  # the end it leaves
        opened = self.face_left_open(played_on, plays)
        open_after = lead * (low + high) + (1 - lead) * (kept + opened)  # [K, N] count per number
        return open_after, lead * high + (1 - lead) * opened

    def features(self, observations: torch.Tensor, plays: torch.Tensor) -> torch.Tensor:
        """``[K, F]``: the line after the play ``plays[k]`` (an index into :attr:`plays`) from the
        observation ``observations[k]``, as the observer sees it."""
        hand, table = self.block(observations, "hand"), self.block(observations, "table")
        voids = self.block(observations, "voids").view(len(observations), self.opponents, self.numbers)
        tile = self.play_tile[plays]
        lead = self.leading(observations)
        open_after, opened = self.after_play(observations, plays, lead)
        # The played tile was in hand, so it leaves the hand and was never unseen: each count
        # over the hand after the play is the count over the hand less the tile's own share.
        unseen = 1.0 - hand - table  # [K, T]
        mine = hand @ self.contains - self.contains[tile]  # [K, N] my tiles per number
        others = unseen @ self.contains
        is_open = (open_after > 0).float()
        fits = ((is_open @ self.contains.T) > 0).float()  # [K, T] tiles that fit an open end
        fits_played = fits.gather(1, tile.view(-1, 1)).squeeze(1)
        open_numbers = is_open.sum(1, keepdim=True).clamp(min=1.0)
        void_open = (voids @ is_open.unsqueeze(2)).squeeze(2) / open_numbers  # [K, R] share of open numbers void
        per_play = torch.stack(
            [
                ((fits * hand).sum(1) - fits_played) / 7.0,  # my tiles that can follow
                (fits * unseen).sum(1) / 7.0,  # unseen tiles that fit: what the others may play
                (mine * opened).sum(1) / 7.0,
                (others * opened).sum(1) / 7.0,
                (hand @ self.tile_pips - self.tile_pips[tile]) / 7.0,  # pips left in hand
                (open_after.max(1).values > 1).float(),  # both ends the same number
                self.play_pips[plays],
                self.play_double[plays],
                lead.squeeze(1),
            ],
            1,
        )
        return torch.cat(
            [
                open_after,
                opened,
                mine / 7.0,
                others / 7.0,
                is_open * voids.amax(1),
                per_play,
                void_open,
                (void_open >= 1.0).float(),
                *self.more_features(observations, plays, lead, open_after, opened),
            ],
            1,
        )

    def more_features(
        self,
        observations: torch.Tensor,
        plays: torch.Tensor,
        lead: torch.Tensor,
        open_after: torch.Tensor,
        opened: torch.Tensor,
    ) -> list[torch.Tensor]:
        """A subclass's :attr:`extra_features` columns, after the line's, from what
        :meth:`after_play` gave them; none here."""
        return []
