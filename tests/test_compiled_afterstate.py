"""The compiled line afterstate head (agents/compiled_afterstate.py) computes what the torch head
computes: the same candidate plays and the same features for each, at every position of random
Draw, Block and partnership games, voids and the lead included."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.afterstate import AfterstateScores
from agents.compiled_afterstate import compiled_line_head, hand_counts, play_features
from domino_env import make_game

PARTNERS = {"num_players": 4, "partnerships": True}
LINE_GAMES = [("draw", {"num_players": 2}), ("block", {"num_players": 2}), ("draw", PARTNERS)]


@pytest.mark.parametrize(("variant", "options"), LINE_GAMES)
def test_every_candidate_and_feature_matches_the_torch_head(variant: str, options: dict) -> None:
    game = make_game(variant, **options)
    head = AfterstateScores(16, game)
    compiled = compiled_line_head(head)
    state = game.new_state(1)
    mask = np.zeros(game.num_actions, np.int8)
    rng = np.random.default_rng(7)
    features = np.zeros(head.num_features, np.float32)
    counts = np.zeros((3, head.numbers), np.float32)
    positions = voided = 0
    for episode in range(30):
        game.seed(state, 0, 11, stream=episode)
        game.start(state, 0)
        while not game.is_over(state, 0):
            observation, mask = game.view(state, 0, game.current_seat(state, 0))
            rows = torch.as_tensor(observation[None])
            with torch.no_grad():
                candidates = head.candidates(rows)[0].numpy()
                expected = head.features(rows.expand(len(head.plays), -1), torch.arange(len(head.plays))).numpy()
            hand_counts(compiled, observation, counts)
            for p in range(len(head.plays)):
                assert play_features(compiled, observation, counts, p, features) == candidates[p]
                if candidates[p]:
                    np.testing.assert_allclose(features, expected[p], atol=1e-6)
            legal = np.flatnonzero(mask)
            plays = {int(a) for a in head.plays[candidates].numpy()}
            assert {int(a) for a in legal if game.action_tiles[a] >= 0} <= plays
            positions += 1
            voided += observation[game.observation_layout["voids"]].any()
            game.step(state, 0, int(rng.choice(legal)))
    assert positions > 300 and voided > 50
