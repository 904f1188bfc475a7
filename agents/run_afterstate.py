"""Hungarian's afterstate head: each play scored from the line it leaves and the run it goes on with.

A Hungarian turn lays a run of tiles on one end while any fits, so a play decides two things:
how the run can go on (the number it leaves open, which of the player's tiles fit it, and which
fit the number after those) and, once the run stops, what the next seat is left to play on
(whether it is known to lack that number). The line's features are those of
:class:`agents.afterstate.AfterstateScores`, with Hungarian's lead (by default the leader's side
says which face stays open, the other end closed) and its run: only the run's end takes a tile.
"""

from __future__ import annotations

import numpy as np
import torch

from agents.afterstate import AfterstateScores
from domino_env.game import Game
from domino_env.games import hungarian_rules
from domino_env.tiles import TILE_HIGH, TILE_LOW


class RunAfterstateScores(AfterstateScores):
    """The line head's features, and five of the run's: after the play, the longest next step of
    the run (how many tiles in hand fit the number each follower leaves), how many followers lead
    on, whether the run stops here, and whether the next seat or every other seat is known to lack
    the number left open."""

    reads = (hungarian_rules,)
    extra_features = 5

    def __init__(self, width: int, game: Game, hidden: int = 64) -> None:
        super().__init__(width, game, hidden)
        self.one_end = game.config.open_ends == 1
        numbers = self.numbers
        follow = np.zeros((game.num_tiles, numbers, numbers), np.float32)  # [T, N, N]
        for t in range(game.num_tiles):  # tile t laid against number n leaves its other face open
            low, high = TILE_LOW[t], TILE_HIGH[t]
            follow[t, low, high] = 1.0
            follow[t, high, low] = 1.0
        self.register_buffer("follow", torch.as_tensor(follow), persistent=False)

    def leading(self, observations: torch.Tensor) -> torch.Tensor:
        """``[B, 1]``: 1 where no end is shown: nothing is on the table (one end may be closed)."""
        ends = self.block(observations, "left_end").sum(1) + self.block(observations, "right_end").sum(1)
        return (ends.unsqueeze(1) == 0).float()

    def candidates(self, observations: torch.Tensor) -> torch.Tensor:
        """``[B, M]``: a tile in hand on an end it shows, the run's end only while a run is bound
        to one; on the lead any tile in hand, on either side where the side says which face stays
        open (one open end, not a double). Every legal play is one."""
        hand = self.block(observations, "hand")[:, self.play_tile]
        left, right = self.block(observations, "left_end"), self.block(observations, "right_end")
        lead = self.leading(observations)
        shows = self.contains[self.play_tile]
        fits = torch.where(self.play_side.bool(), right @ shows.T, left @ shows.T)
        run_end = self.block(observations, "run_end")  # [B, 2], zero while no run is bound to an end
        bound = run_end.sum(1, keepdim=True)
        fits = fits * ((1 - bound) + run_end[:, self.play_side])
        lead_sides = 1 - self.play_side.float()
        if self.one_end:
            lead_sides = torch.maximum(lead_sides, 1 - self.play_double)
        return (hand * (lead * lead_sides + (1 - lead) * fits)) > 0

    def after_play(self, observations: torch.Tensor, plays: torch.Tensor, lead: torch.Tensor) -> tuple:
        open_after, opened = super().after_play(observations, plays, lead)
        if not self.one_end:
            return open_after, opened
        side = self.play_side[plays].view(-1, 1).float()
        kept = (1 - side) * self.low[plays] + side * self.high[plays]  # the face the leader keeps open
        return lead * kept + (1 - lead) * open_after, lead * kept + (1 - lead) * opened

    def more_features(
        self,
        observations: torch.Tensor,
        plays: torch.Tensor,
        lead: torch.Tensor,
        open_after: torch.Tensor,
        opened: torch.Tensor,
    ) -> list[torch.Tensor]:
        hand = self.block(observations, "hand")
        voids = self.block(observations, "voids").view(len(observations), self.opponents, self.numbers)
        tile = self.play_tile[plays]
        # the numbers the run goes on from: the one the play leaves, or on the lead every open end
        run_open = lead * (open_after > 0).float() + (1 - lead) * opened
        hand_after = hand.clone()
        hand_after[torch.arange(len(tile)), tile] = 0.0
        mine = hand_after @ self.contains  # [K, N]
        followers = hand_after * ((run_open @ self.contains.T) > 0).float()  # [K, T] tiles that go on next
        leaves = torch.einsum("kn,tnm->ktm", run_open, self.follow).clamp(max=1.0)  # [K, T, N] what each leaves open
        # a follower itself shows the number it leaves, so the tiles fitting after it are one fewer
        next_step = ((leaves * mine.unsqueeze(1)).sum(2) - 1).clamp(min=0) * followers
        stops = (followers.sum(1) == 0).float()
        void_on = (voids @ run_open.unsqueeze(2)).squeeze(2) / run_open.sum(1, keepdim=True)  # [K, R]
        return [
            next_step.amax(1, keepdim=True) / 7.0,
            (next_step > 0).float().sum(1, keepdim=True) / 7.0,
            stops.unsqueeze(1),
            (stops * void_on[:, 0]).unsqueeze(1),
            (stops * void_on.prod(1)).unsqueeze(1),
        ]
