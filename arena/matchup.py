"""One matchup of the arena, "A against a table of B", and the Markdown table of several."""

from __future__ import annotations

from dataclasses import dataclass

from agents.tournament import wilson_interval


@dataclass
class Matchup:
    policy: str
    opponent: str
    episodes: int
    wins: int
    hands: int
    points: int
    fair_share: float
    ms_per_move: float = 0.0  # the policy's mean time per move, forced moves included

    @property
    def win_rate(self) -> float:
        return self.wins / self.episodes if self.episodes else 0.0

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson score interval of the win rate."""
        return wilson_interval(self.wins, self.episodes, z)

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
        low, high = m.interval()
        lines.append(
            f"| {m.policy} | {m.opponent} | {m.episodes} | {m.win_rate:.3f} | [{low:.3f}, {high:.3f}] | "
            f"{m.fair_share:.3f} | {m.verdict} | {m.points / max(m.hands, 1):.2f} | {m.ms_per_move:.2f} |"
        )
    return "\n".join(lines)
