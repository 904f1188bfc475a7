"""The tiles action head: each (tile, target) action scored from what its tile is, with weights
shared by every tile, on top of the plain head."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.network import TileScores, network_for
from agents.policy import PolicyAgent
from domino_env import make_game
from domino_env.tiles import TILE_HIGH, TILE_LOW
from training import checkpoint as ckpt
from training.config import ConfigError, build_config


@pytest.mark.parametrize(
    ("variant", "players", "targets"), [("draw", 2, 2), ("hungarian", 3, 2), ("mexican_train", 4, 5)]
)
def test_every_play_is_scored_from_its_tile_and_target_and_nothing_else_is(variant, players, targets) -> None:
    game = make_game(variant, num_players=players)
    head = TileScores(8, game.action_tiles)
    assert head.num_targets == targets
    torch.manual_seed(0)
    hidden = torch.randn(3, 8)
    scores = head(hidden)
    weights = head.weights(hidden).view(3, targets, -1)
    seen: dict[int, int] = {}
    for action, tile in enumerate(game.action_tiles):
        if tile < 0:  # draw and pass keep the plain head's logit alone
            assert torch.all(scores[:, action] == 0)
            continue
        target = seen.get(tile, 0)
        seen[tile] = target + 1
        faces = torch.zeros(head.features.shape[1])
        faces[TILE_LOW[tile]] += 1
        faces[TILE_HIGH[tile]] += 1
        torch.testing.assert_close(
            scores[:, action],
            weights[:, target, : len(faces) - 2] @ faces[:-2] + (weights[:, target, -2:] @ head.features[tile, -2:]),
        )
    assert set(seen.values()) == {targets}


def test_tiles_that_show_the_same_numbers_share_what_is_learned() -> None:
    """Raising one target's weight for a number raises every tile with that number there, and
    no other tile or target: the sharing a plain head cannot do."""
    game = make_game("mexican_train", num_players=4)
    network = network_for(game, [16], action_head="tiles")
    obs = torch.zeros(1, game.observation_size)
    before = network.logits(obs)
    head = network.tile_scores
    with torch.no_grad():
        head.weights.bias.view(head.num_targets, -1)[0, 5] += 1.0  # first target, number 5
    change = (network.logits(obs) - before)[0].detach().numpy()
    for action, tile in enumerate(game.action_tiles):
        target = action % (game.num_players + 1) if tile >= 0 else -1
        shows_five = tile >= 0 and 5 in (TILE_LOW[tile], TILE_HIGH[tile])
        expected = (1.0 + (TILE_LOW[tile] == TILE_HIGH[tile])) if shows_five and target == 0 else 0.0
        assert change[action] == pytest.approx(expected, abs=1e-5), action


@pytest.mark.parametrize(
    ("variant", "head"),
    [("draw", "tiles"), ("block", "afterstate"), ("hungarian", "afterstate"), ("mexican_train", "afterstate")],
)
def test_a_checkpoint_of_each_head_reloads_and_plays_the_same(variant, head, tmp_path: Path) -> None:
    """The checkpoint records the head; a new run starting from it must ask for the same one."""
    game = make_game(variant, num_players=2)
    network = network_for(game, [16], action_head=head)
    ckpt.save_model(tmp_path / head, network, game)
    loaded = ckpt.load_network(tmp_path / head, game)
    assert loaded.action_head == head
    obs = np.random.default_rng(0).random((5, game.observation_size), dtype=np.float32)
    mask = np.ones((5, game.num_actions), np.int8)
    torch.testing.assert_close(loaded.logits(torch.as_tensor(obs)), network.logits(torch.as_tensor(obs)))
    np.testing.assert_array_equal(PolicyAgent(loaded).act(obs, mask), PolicyAgent(network).act(obs, mask))
    with pytest.raises(ckpt.CheckpointError, match=rf"'{head}' action head: set network\.action_head={head}"):
        ckpt.initial_weights(tmp_path / head, game, [16])


def test_an_unknown_action_head_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"network\.action_head must be one of flat, tiles, afterstate, got 'pairs'"):
        build_config({}, ["network.action_head=pairs"])
