"""benchmarks.policy_average: each member and their average against one table, on the same deals."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.network import network_for
from benchmarks.policy_average import AveragedPolicy, main
from domino_env import make_game


def test_the_average_plays_the_move_of_the_summed_log_probabilities() -> None:
    game = make_game("draw", num_players=2)
    torch.manual_seed(0)
    networks = [network_for(game, [8]) for _ in range(3)]
    obs = np.random.default_rng(0).random((64, game.observation_size), dtype=np.float32)
    mask = (np.random.default_rng(1).random((64, game.num_actions)) < 0.3).astype(np.int8)
    mask[:, 0] = 1
    with torch.no_grad():
        logits = [net.logits(torch.as_tensor(obs)) for net in networks]
    total = sum(torch.log_softmax(torch.where(torch.as_tensor(mask).bool(), x, -1e9), -1) for x in logits)
    actions = AveragedPolicy(networks).act(obs, mask)
    np.testing.assert_array_equal(actions, total.argmax(-1).numpy())
    assert mask[np.arange(64), actions].all()
    # one member alone is that member's own greedy choice
    np.testing.assert_array_equal(
        AveragedPolicy(networks[:1]).act(obs, mask),
        logits[0].masked_fill(torch.as_tensor(mask) == 0, -1e9).argmax(-1).numpy(),
    )


def test_it_prints_each_member_and_the_average(capsys) -> None:
    main(["draw_2p", "draw_2p", "--games", "16", "--against", "random"])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "random" in line]
    assert [row.split(" | ")[0].strip("| ") for row in rows] == ["draw_2p", "draw_2p", "average of 2"]
    assert len({row.split(" | ")[3] for row in rows}) == 1  # the same network twice plays the same games


def test_members_of_different_games_are_refused(capsys) -> None:
    with pytest.raises(SystemExit, match="block_2p was trained on Block"):
        main(["draw_2p", "block_2p", "--games", "4"])
    with pytest.raises(SystemExit, match="two policies or more"):
        main(["draw_2p"])


def test_no_members_plays_the_average_alone_on_the_same_deals(capsys) -> None:
    main(["draw_2p", "draw_2p", "--games", "16", "--against", "random"])
    both = capsys.readouterr().out
    main(["draw_2p", "draw_2p", "--games", "16", "--against", "random", "--no-members"])
    alone = capsys.readouterr().out
    rows = [line for line in alone.splitlines() if line.startswith("| ") and "random" in line]
    assert [row.split(" | ")[0].strip("| ") for row in rows] == ["average of 2"]
    same_games = rows[0].rsplit(" | ", 1)[0]  # all but the time a move
    assert any(line.startswith(same_games) for line in both.splitlines())
