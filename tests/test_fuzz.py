"""``python -m benchmarks.fuzz`` plays checked games of every shipped configuration and counts
what breaks an invariant."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import fuzz
from tests import test_draw_invariants


def test_every_shipped_configuration_is_fuzzed_without_violations(capsys: pytest.CaptureFixture) -> None:
    assert fuzz.main(["--games", "40", "--batch-size", "16"]) == 0
    table = capsys.readouterr().out
    for name in fuzz.shipped_configs():
        assert f"\n{name} " in table
    assert "first violation" not in table


def test_a_broken_invariant_is_counted_and_named(monkeypatch: pytest.MonkeyPatch) -> None:
    reference_mask = test_draw_invariants.reference_mask

    def one_action_off(state: np.ndarray, cfg: object) -> np.ndarray:
        mask = reference_mask(state, cfg)
        mask[:, 0] ^= 1
        return mask

    monkeypatch.setattr(test_draw_invariants, "reference_mask", one_action_off)
    result = fuzz.fuzz("draw_2p", "draw", {"num_players": 2}, games=20, batch_size=8, seed=0)
    assert result.violations == fuzz.MAX_VIOLATIONS
    assert result.first_violation.startswith("AssertionError")
