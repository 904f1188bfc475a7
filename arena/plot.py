"""The arena's table as a picture: each matchup's win rate with its 95% interval against the
fair share, so a reader sees at a glance which differences the episodes can tell apart."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: evaluations run on machines without a display
import matplotlib.pyplot as plt

from arena.matchup import Matchup

VERDICT_COLOURS = {"above": "#2e7d32", "level": "#616161", "below": "#c62828"}


def plot_arena(matchups: Sequence[Matchup], path: str | Path, game: str = "") -> Path:
    """One row per matchup ("A vs a table of B"): the win rate, its Wilson interval as an error
    bar, coloured by the verdict, and a dashed line at the fair share. The title names ``game``
    (the variant, its options and players: :func:`arena.evaluation.game_label`). Every label lies
    inside the picture: the layout is constrained, and the file is cut to what was drawn."""
    figure = arena_figure(matchups, game)
    path = Path(path)
    figure.savefig(path, dpi=120, bbox_inches="tight", pad_inches=0.15)
    plt.close(figure)
    return path


def arena_figure(matchups: Sequence[Matchup], game: str = ""):  # -> matplotlib.figure.Figure
    """The figure :func:`plot_arena` saves."""
    figure, axes = plt.subplots(figsize=(8, 1.6 + 0.45 * len(matchups)), layout="constrained")
    rows = list(range(len(matchups)))[::-1]  # the table's first row on top
    for row, m in zip(rows, matchups, strict=True):
        low, high = m.interval()
        axes.errorbar(m.win_rate, row, xerr=[[m.win_rate - low], [high - m.win_rate]], fmt="o", capsize=4,
                      color=VERDICT_COLOURS[m.verdict])  # fmt: skip
        axes.plot([m.fair_share] * 2, [row - 0.4, row + 0.4], "--", color="#1565c0", linewidth=1)
        axes.annotate(f"{m.win_rate:.3f}", (high, row), xytext=(6, -4), textcoords="offset points", fontsize=8)
    axes.set_yticks(rows, [f"{m.policy} vs table of {m.opponent}" for m in matchups])
    axes.set_xlim(0, 1)
    axes.set_ylim(-0.7, len(matchups) - 0.3)
    axes.set_xlabel("win rate, 95% Wilson interval")
    # the key and the title centred on the figure, not on the axes (which long policy names push
    # right), so the constrained layout keeps them inside it
    figure.supxlabel("green: above the fair share (dashed line); red: below; grey: level", fontsize=9)
    episodes = sorted({m.episodes for m in matchups})
    where = f"{game}\n" if game else ""
    figure.suptitle(f"Arena: {where}{', '.join(map(str, episodes))} episodes per matchup, seats rotated", fontsize=10,
                    wrap=True)  # fmt: skip
    axes.grid(axis="x", alpha=0.3)
    return figure
