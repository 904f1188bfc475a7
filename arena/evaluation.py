"""The evaluation arena: any set of policies against each other, with ratings.

Every ordered pair (A, B) of policies plays as "A against a table of B": A in one seat and B in
all others (with partnerships, A's team against B's team). Seats are rotated over the same
deals, so every policy plays each deal from each seat. The arena reports win rates with 95%
Wilson intervals against the fair share (1/P, or 1/2 for teams), mean points per hand, and a
rating on the Elo scale fitted to all results at once (Bradley-Terry; with more than two
players each episode counts as each winning seat beating each losing seat of another policy, so
a policy alone against three heuristics that wins a quarter of the time rates level with them).
"""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import dataclass
from itertools import permutations
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.tournament import episode_winners, lineup, rotated_match
from arena.matchup import Matchup, matchup_table
from domino_env.game import Game

ELO_SCALE = 400.0 / math.log(10.0)
ELO_MEAN = 1500.0


@dataclass
class ArenaResult:
    matchups: list[Matchup]
    ratings: dict[str, float]
    game: str = ""  # the variant, its options and players (game_label), for the picture's title

    def markdown(self) -> str:
        lines = [matchup_table(self.matchups)]
        lines += ["", "| policy | rating (Elo scale) |", "|---|---:|"]
        lines += [f"| {name} | {rating:.0f} |" for name, rating in sorted(self.ratings.items(), key=lambda x: -x[1])]
        return "\n".join(lines)

    def write(self, folder: str | Path) -> None:
        """``arena.md``, ``arena.csv`` and ``arena.png`` (:func:`arena.plot.plot_arena`) in
        ``folder``."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "arena.md").write_text(self.markdown() + "\n")
        with (folder / "arena.csv").open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["policy", "opponent", "episodes", "wins", "win_rate", "low", "high", "fair_share",
                             "points_per_hand", "rating"])  # fmt: skip
            for m in self.matchups:
                low, high = m.interval()
                writer.writerow([m.policy, m.opponent, m.episodes, m.wins, f"{m.win_rate:.4f}", f"{low:.4f}",
                                 f"{high:.4f}", f"{m.fair_share:.4f}", f"{m.points_per_hand:.3f}",
                                 f"{self.ratings[m.policy]:.1f}"])  # fmt: skip
        from arena.plot import plot_arena  # matplotlib only where a picture is asked for

        plot_arena(self.matchups, folder / "arena.png", game=self.game)


YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "none", "y", "n", "~"}


def option_text(value: object) -> str:
    """``value`` as a command line's ``--option key=value`` reads it (YAML): a plain word as
    itself, anything else as JSON (which YAML reads)."""
    if isinstance(value, str) and re.fullmatch(r"[A-Za-z_][\w-]*", value) and value.lower() not in YAML_WORDS:
        return value
    return json.dumps(value)


def changed_options(game: Game, skip: tuple[str, ...] = ()) -> list[str]:
    """``key=value`` for each of ``game``'s options not at its default (but those in ``skip``)."""
    return [
        f"{key}={option_text(value)}"
        for key, value in game.options.items()
        if key not in skip and game.defaults.get(key) != value
    ]


def game_label(game: Game) -> str:
    """The variant with the options not at their defaults, and its players:
    ``"Draw Dominoes (match=true), 2 players"``."""
    options = changed_options(game, skip=("num_players",))
    return game.title + (f" ({', '.join(options)})" if options else "") + f", {game.num_players} players"


def fair_share(game: Game) -> float:
    return 0.5 if game.partnerships else 1.0 / game.num_players


def bradley_terry(names: list[str], beats: np.ndarray, iterations: int = 500) -> dict[str, float]:
    """Ratings on the Elo scale from ``beats[i, j]`` (times i beat j), by the MM algorithm.
    Every pair gets half a virtual win each way so that unbeaten policies stay finite."""
    wins = beats + 0.5 * (1 - np.eye(len(names)))
    games = wins + wins.T
    strength = np.ones(len(names))
    for _ in range(iterations):
        denominator = (games / (strength[:, None] + strength[None, :])).sum(1)
        strength = wins.sum(1) / denominator
        strength /= np.exp(np.log(strength).mean())
    return {name: ELO_MEAN + ELO_SCALE * math.log(s) for name, s in zip(names, strength, strict=True)}


def matchup_pairs(names: list[str], opponents: list[str] | None = None) -> list[tuple[str, str]]:
    """Every ordered (policy, table of opponent) pair the arena plays, only tables of
    ``opponents`` when given."""
    return [(a, b) for a, b in permutations(names, 2) if opponents is None or b in opponents]


def run_arena(
    game: Game,
    policies: dict[str, Agent],
    episodes: int,
    seed: int = 0,
    opponents: list[str] | None = None,
    workers: int = 1,
) -> ArenaResult:
    """Play every policy against a table of every other (or only of ``opponents``), each
    matchup's games shared by ``workers`` processes (:func:`agents.tournament.rotated_match`)."""
    names = list(policies)
    index = {name: i for i, name in enumerate(names)}
    beats = np.zeros((len(names), len(names)))
    matchups: list[Matchup] = []
    for a, b in matchup_pairs(names, opponents):
        seated = lineup(game, policies[a], policies[b])
        records = rotated_match(game, seated, episodes, seed=seed, workers=workers)
        rewards = np.array([r.per_episode_reward for r in records]).T  # [episodes, seats]
        matchups.append(
            Matchup(
                a,
                b,
                records[0].episodes,
                records[0].wins,
                records[0].hands,
                records[0].points,
                fair_share(game),
                records[0].ms_per_move,
            )
        )
        owner = [index[a] if agent is policies[a] else index[b] for agent in seated]
        winners = episode_winners(rewards)
        losers = rewards < rewards.max(axis=1, keepdims=True)
        for won, lost in zip(winners, losers, strict=True):  # every winner beats every loser another policy holds
            for w in np.flatnonzero(won):
                for loser in np.flatnonzero(lost):
                    if owner[w] != owner[loser]:
                        beats[owner[w], owner[loser]] += 1
    return ArenaResult(matchups, bradley_terry(names, beats), game_label(game))
