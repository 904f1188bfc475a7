"""One matchup of the arena, "A against a table of B", and the Markdown table of several."""

from __future__ import annotations

from dataclasses import dataclass

from agents.tournament import WinTally


@dataclass
class Matchup(WinTally):
    """The policy's results against a table of the opponent, and how they compare with the
    policy's fair share of the wins."""

    policy: str
    opponent: str
    episodes: int
    wins: int
    hands: int
    points: int
    fair_share: float
    ms_per_move: float = 0.0  # the policy's mean time per move, forced moves included

    interval = WinTally.win_interval  # the arena's name for it

    @property
    def verdict(self) -> str:
        low, high = self.interval()
        return "above" if low > self.fair_share else "below" if high < self.fair_share else "level"


def matchup_table(matchups: list[Matchup]) -> str:
    """A Markdown row per matchup: win rate with its interval against the fair share, points per
    hand and the policy's time per move."""
    lines = [
        "| policy | against a table of | episodes | win rate | 95% interval | fair share | verdict "
        "| points / hand | policy ms/move |",
        "|---|---|---:|---:|---|---:|---|---:|---:|",
    ]
    for m in matchups:
        lines.append(
            f"| {m.policy} | {m.opponent} | {m.episodes} | {m.win_cells()} | {m.fair_share:.3f} | {m.verdict} "
            f"| {m.points_per_hand:.2f} | {m.ms_per_move:.2f} |"
        )
    return "\n".join(lines)
