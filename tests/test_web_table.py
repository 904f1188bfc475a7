"""What a finished hand shows the players: exactly the tiles each seat held when it ended, even
when the hand ended on a draw (the last tile taken, and then nobody can play) and the next hand
of a match was dealt in the same step."""

from __future__ import annotations

import numpy as np
import pytest

from arena.web.table import Session
from domino_env import make_game
from domino_env.tiles import tile_index


@pytest.mark.parametrize(
    ("variant", "options"),
    [("draw", {"num_players": 2}), ("draw", {"num_players": 2, "match": True}), ("mexican_train", {"num_players": 2})],
)
def test_each_finished_hand_holds_the_tiles_whose_pips_were_counted(variant: str, options: dict) -> None:
    game = make_game(variant, **options)
    ended_on_a_draw = 0
    for seed in range(120):
        state = game.new_state(1)
        game.seed(state, 0, seed)
        game.start(state, 0)
        session = Session("test", game, state, [None] * game.num_players, ["person"] * game.num_players)
        rng = np.random.default_rng(seed)
        while not session.over:
            action = int(rng.choice(session.legal()))
            hands_before = len(session.results)
            session.apply(action)
            ended_on_a_draw += len(session.results) > hands_before and game.action_name(action) == "draw"
        for result in session.results:
            assert [sum(a + b for a, b in hand) for hand in result.hands] == result.pips
            for hand in result.hands:  # in index order, as the hand was shown before it ended
                assert hand == sorted(hand, key=lambda faces: tile_index(*faces))
    if variant == "draw":  # the case that once lost the drawn tile
        assert ended_on_a_draw > 0
