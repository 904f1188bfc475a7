"""benchmarks.value_fit: a network fitted to a search's action values, against the labels' noise."""

from __future__ import annotations

import pytest

from benchmarks.value_fit import main


def test_it_prints_the_noise_and_a_row_per_network(capsys) -> None:
    main(["draw_2p", "--positions", "300", "--held-out", "60", "--sizes", "16", "--epochs", "1",
          "--heads", "tiles", "afterstate",
          "--labeller", "pimc:simulations=16", "--reference", "pimc:simulations=32"])  # fmt: skip
    out = capsys.readouterr().out
    noise = float(out.split("noise ")[1].split(";")[0])
    assert noise > 0  # two labellings with different seeds differ
    assert float(out.split("| no preference (equal logits) | | ")[1].split(" |")[0]) > 0
    rows = [line for line in out.splitlines() if line.startswith("| draw_2p") or line.startswith("| 16 ")]
    labels = [row.split(" | ")[0] for row in rows]
    assert labels == [
        "| draw_2p as it is",
        "| draw_2p's own, from its weights",
        "| 16 tiles, from scratch",
        "| 16 afterstate, from scratch",
    ]
    for row in rows[1:]:
        cells = row.strip("| ").split(" | ")
        assert float(cells[1]) > 0 and float(cells[2]) > 0 and 0 <= float(cells[4]) <= 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--labeller", "greedy"], "'greedy' does not value each move"),
        (["--sizes", "0,4"], "layer widths"),
        (["--epochs", "0"], "must be a positive whole number"),
        (["--heads", "pairs"], "invalid choice: 'pairs'"),
    ],
)
def test_bad_arguments_are_refused_in_one_line(argv, message, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["draw_2p", "--positions", "10", *argv])
    assert message in str(stop.value) + capsys.readouterr().err
