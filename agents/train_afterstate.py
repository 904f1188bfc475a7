"""Mexican Train's afterstate head: each play scored from the trains it leaves.

A Mexican Train play is a tile and a train. What decides it is what the trains look like after
it: the number the played train now shows; which numbers the player can reach on the next turn
(the own train, the Mexican Train once it may be started, trains with a marker) and how many
tiles in hand fit them; how many fit the own train alone, the line a player wants to keep for
itself; which numbers the other seats can reach, and whether each is known to lack them; and
whether a double asks to be satisfied; and the plan the play leaves, the longest chain the rest
of the hand makes from the number the own train then shows and the tiles it leaves over (the
planner's measure, :mod:`agents.planner`). The plain and tiles heads give each (tile, train) a
score from the trunk, which must rebuild those counts for each of 455 actions and cannot search
a hand for its longest chain. This head computes them from the observation, from public facts and
the observer's own hand only (the counts in closed form, the chain by the planner's compiled
search), and scores each candidate play with the network the line head uses
(:class:`agents.afterstate.AfterstateHead`).
"""

from __future__ import annotations

import numpy as np
import torch

from agents.afterstate import AfterstateHead
from agents.planner import PLAN_VISITS, chains_after_plays
from domino_env.game import Game, action_targets
from domino_env.games import mexican_train_rules
from domino_env.games.mexican_train_rules import MEXICAN, OWN


class TrainAfterstateScores(AfterstateHead):
    """Adds to each play's logit a score from the features of the trains after it (see the
    module's docstring); draw and pass get none, the plain head scores them.

    Targets are the observer's: its own train, the Mexican Train, then the trains of the seats
    after it (``train+1`` ...), whose owners' voids are the observation's rows in that order."""

    def __init__(self, width: int, game: Game, hidden: int = 64) -> None:
        if game.rules is not mexican_train_rules:
            raise ValueError(f"{type(self).__name__} does not read {game.name}")
        layout = game.observation_layout
        tiles = np.asarray(game.action_tiles)
        plays = np.flatnonzero(tiles >= 0)
        numbers = layout["engine"].stop - layout["engine"].start
        trains = layout["train_started"].stop - layout["train_started"].start
        opponents = trains - 2
        super().__init__(width, game, plays, 5 * numbers + trains + 2 * opponents + 13, hidden)
        self.numbers, self.trains, self.opponents = numbers, trains, opponents
        self.scale = float(numbers)  # counts of tiles, about a hand's size
        self.register_tile_tables(game, plays, numbers)
        targets = action_targets(tiles)[plays]
        self.register_buffer(
            "play_target", torch.as_tensor(np.eye(trains, dtype=np.float32)[targets]), persistent=False
        )
        entry = targets * game.num_tiles + tiles[plays]  # (train, tile) flattened
        self.register_buffer("play_entry", torch.as_tensor(entry), persistent=False)

    def ends(self, observations: torch.Tensor) -> torch.Tensor:
        """``[B, T, N]``: each train's open number, one-hot (the engine's while it is empty)."""
        return self.block(observations, "train_ends").view(len(observations), self.trains, self.numbers)

    def open_to_me(self, observations: torch.Tensor) -> torch.Tensor:
        """``[B, T]``: the trains the observer may play on once started: its own, the Mexican
        Train and those carrying a marker."""
        trains = self.block(observations, "train_public").clone()
        trains[:, OWN] = 1.0
        trains[:, MEXICAN] = 1.0
        return trains

    def candidates(self, observations: torch.Tensor) -> torch.Tensor:
        """``[B, M]``: the plays that may be legal, a tile in hand on a train whose open number it
        shows, the other seats' trains only while they carry a marker. Every legal play is one."""
        hand = self.block(observations, "hand")[:, self.play_tile]
        # [B, T, tiles]: which tiles fit each train open to the observer; then each play's entry
        fits = (self.open_to_me(observations).unsqueeze(2) * self.ends(observations)) @ self.contains.T
        return (hand * fits.flatten(1)[:, self.play_entry]) > 0

    def features(self, observations: torch.Tensor, plays: torch.Tensor) -> torch.Tensor:
        """``[K, F]``: the trains after the play ``plays[k]`` (an index into :attr:`plays`) from
        the observation ``observations[k]``, as the observer sees it."""
        hand, table = self.block(observations, "hand"), self.block(observations, "table")
        started, public = self.block(observations, "train_started"), self.block(observations, "train_public")
        voids = self.block(observations, "voids").view(len(observations), self.opponents, self.numbers)
        ends = self.ends(observations)
        tile, target = self.play_tile[plays], self.play_target[plays]  # [K], [K, T]
        on = target.unsqueeze(2)
        opened = self.face_left_open((on * ends).sum(1), plays)  # the face the train now shows
        ends_after = ends * (1 - on) + on * opened.unsqueeze(1)
        # Which trains the observer may play on next turn: its own; the Mexican Train once started
        # or once the own train is; a marked train once started or once the own train is.
        own_started = torch.maximum(started[:, OWN], target[:, OWN]).unsqueeze(1)
        started_after = torch.maximum(started, target)
        may_start = torch.maximum(started_after, own_started.expand_as(started))
        reach = self.open_to_me(observations) * may_start
        reach[:, OWN] = 1.0
        open_mine = (reach.unsqueeze(2) * ends_after).sum(1).clamp(max=1.0)  # [K, N]
        # What the other seats may reach: the public trains (the own train's marker comes off
        # when the owner plays on it), and each seat its own train.
        marked_after = public.clone()
        marked_after[:, OWN] = public[:, OWN] * (1 - target[:, OWN])
        open_public = (marked_after.unsqueeze(2) * ends_after).sum(1).clamp(max=1.0)
        open_each = (open_public.unsqueeze(1) + ends_after[:, MEXICAN + 1 :]).clamp(max=1.0)  # [K, R, N]
        void_share = (voids * open_each).sum(2) / open_each.sum(2).clamp(min=1.0)  # [K, R]
        unseen = 1.0 - hand - table
        mine = hand @ self.contains - self.contains[tile]  # [K, N] my tiles per number after the play
        others = unseen @ self.contains

        def held_fitting(open_numbers: torch.Tensor) -> torch.Tensor:
            fits = ((open_numbers @ self.contains.T) > 0).float()  # [K, tiles]
            return (fits * hand).sum(1) - fits.gather(1, tile.view(-1, 1)).squeeze(1)

        chain = self.planned_chain(hand, tile, ends_after[:, OWN])
        own_void = (target[:, MEXICAN + 1 :] * (voids @ opened.unsqueeze(2)).squeeze(2)).sum(1)
        per_play = torch.stack(
            [
                held_fitting(open_mine) / self.scale,  # my tiles I can play next turn
                held_fitting(ends_after[:, OWN]) / self.scale,  # my tiles that go on my own train
                (mine * opened).sum(1) / self.scale,  # mine that follow this play (a double's satisfiers)
                (others * opened).sum(1) / self.scale,
                ((open_public @ self.contains.T > 0).float() * unseen).sum(1) / self.scale,
                (hand @ self.tile_pips - self.tile_pips[tile]) / self.scale,  # pips left in hand
                (hand.sum(1) - 1) / self.scale,
                self.play_pips[plays],
                self.play_double[plays],
                target[:, OWN] * public[:, OWN],  # takes my marker off
                own_void,  # the train's owner is known to lack the number it now shows
                chain / self.scale,  # the longest chain my own train can take after the play
                (hand.sum(1) - 1 - chain) / self.scale,  # the tiles that chain leaves over
            ],
            1,
        )
        return torch.cat(
            [
                opened,
                open_mine,
                open_public,
                mine / self.scale,
                others / self.scale,
                target,
                void_share,
                (void_share >= 1.0).float(),
                per_play,
            ],
            1,
        )

    def planned_chain(self, hand: torch.Tensor, tile: torch.Tensor, own_end: torch.Tensor) -> torch.Tensor:
        """``[K]``: the longest chain from the number ``own_end[k]`` (one-hot) through the hand
        ``hand[k]`` less the played ``tile[k]``, by the planner's search on the CPU (a count, not
        differentiable: the features are inputs)."""
        chains = chains_after_plays(
            (hand > 0).to(torch.uint8).cpu().numpy(),
            tile.cpu().numpy().astype(np.int64),
            own_end.argmax(1).cpu().numpy().astype(np.int64),
            PLAN_VISITS,
        )
        return torch.as_tensor(chains, dtype=hand.dtype, device=hand.device)
