"""benchmarks.move_agreement: the share of positions where two agents choose the same move."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.move_agreement import agreement, main


def test_agreement_is_the_share_of_equal_moves() -> None:
    choices = np.array([[0, 1, 2, 3], [0, 1, 0, 0], [5, 5, 5, 5]])
    shares = agreement(choices)
    np.testing.assert_allclose(shares, [[1.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]])


def test_the_table_has_each_agent_agree_with_itself_and_a_policy_twice_with_itself(capsys) -> None:
    main(["draw_2p", "--agents", "draw_2p", "draw_2p", "greedy", "pimc:simulations=8", "--positions", "40"])
    out = capsys.readouterr().out
    assert "unforced positions of its own play" in out
    rows = [line for line in out.splitlines() if line.startswith("| draw_2p #")]
    assert len(rows) == 2
    cells = [float(cell) for cell in rows[0].strip("| ").split(" | ")[1:]]
    assert cells[0] == cells[1] == 1.0  # a deterministic policy always agrees with itself
    assert min(cells) >= 0.0 and max(cells) <= 1.0


def test_an_unknown_agent_is_refused_in_one_line() -> None:
    with pytest.raises(SystemExit, match=r"error: --agents: .*nobody"):
        main(["draw_2p", "--agents", "nobody", "--positions", "10"])
