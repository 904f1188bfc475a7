"""benchmarks.head_cost: each action head's update and forward time beside the flat head's, and
the guided tree's compiled prior where it compiles the network."""

from __future__ import annotations

import pytest

from benchmarks.head_cost import main


@pytest.mark.parametrize("policy", ["draw_2p", "hungarian_3p"])
def test_it_prints_a_row_per_head(policy, capsys) -> None:
    main([policy, "--positions", "64", "--repeats", "2", "--sizes", "16"])
    rows = [line.strip("| ").split(" | ") for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert [row[0] for row in rows[1:]] == ["flat", "tiles", "afterstate"]  # after the header
    assert rows[1][2] == "1.00" and rows[1][4] == "1.00"  # the flat head is the unit
    for row in rows[1:]:
        assert float(row[1]) > 0 and float(row[3]) > 0
    # the guided tree compiles the line games' afterstate head, not Hungarian's
    compiled = {"draw_2p": ["flat", "tiles", "afterstate"], "hungarian_3p": ["flat", "tiles"]}[policy]
    assert [row[0] for row in rows[1:] if row[5] != "-"] == compiled
    assert all(float(row[5]) > 0 for row in rows[1:] if row[5] != "-")


def test_a_bad_size_is_refused_in_one_line(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["draw_2p", "--sizes", "0"])
    assert "layer widths" in capsys.readouterr().err


def test_an_attention_trunk_is_timed_beside_the_heads_and_a_bad_width_refused(capsys) -> None:
    main(["draw_2p", "--positions", "32", "--repeats", "1", "--sizes", "16", "--attention", "8,8"])
    rows = [line.strip("| ").split(" | ") for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert rows[-1][0] == "attention 8,8, flat" and float(rows[-1][1]) > 0 and float(rows[-1][5]) > 0
    with pytest.raises(SystemExit, match="one width for all its layers"):
        main(["draw_2p", "--positions", "32", "--attention", "8,16"])
