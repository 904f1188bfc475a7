"""Replays: one game between any agents, recorded move by move, written as a self-contained HTML
page or an animated GIF.

A game is played on the engine record (a batch of one) exactly as ``DominoEnv.reset(seed=S)``
deals it, each agent asked through ``act_states`` so trained policies, baselines and search
agents all take part. Every position is kept, and drawn at write time by
:mod:`domino_env.picture`: the page holds one SVG per position, with the hidden hands' faces
included but hidden until the viewer asks; the GIF rasterizes the same pictures.

    python -m arena replay draw_2p greedy --seed 3 --out game.html
    python -m arena replay heuristic random --variant mexican_train --out game.gif
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

import numpy as np

from agents.base import Agent
from arena.evaluation import lineup, matchup_pairs
from domino_env.game import Game
from domino_env.games.core import PLAYING
from domino_env.picture import rasterize, table_svg
from domino_env.picture.svg import FELT

PAGE = Path(__file__).parent / "web" / "replay.html"
REPLAY_SUFFIXES = (".html", ".gif")
MAX_MOVES = 10_000  # far above any game's length: a guard against an agent that never ends one


@dataclass
class Position:
    """The table after a move (the first position: the deal), with what the move was."""

    state: np.ndarray  # a copy of the one-game engine record
    seat: int = -1  # who moved (-1 for the deal)
    action: int = -1
    action_name: str = ""
    rewards: list[float] = field(default_factory=list)  # rewards of this move (non-zero when a hand ends)
    hand_points: list[int] = field(default_factory=list)  # when the move ended a hand


@dataclass
class Replay:
    game: Game
    names: list[str]  # the agent in each seat
    seed: int
    positions: list[Position]

    @property
    def seat_names(self) -> list[str]:
        return [f"player_{seat} ({name})" for seat, name in enumerate(self.names)]

    def title(self) -> str:
        return f"{self.game.title}, {self.game.num_players} players, seed {self.seed}: " + ", ".join(self.seat_names)


def record_game(game: Game, agents: list[Agent], seed: int, stream: int = 0) -> Replay:
    """Play one game, ``agents[s]`` in seat ``s``, from the deal of ``seed`` (``stream`` picks one
    of the seed's game slots, as the arena numbers them; 0 is what ``env.reset(seed)`` deals)."""
    if len(agents) != game.num_players:
        raise ValueError(
            f"{game.name} with {game.num_players} players needs {game.num_players} agents, got {len(agents)}"
        )
    state = game.new_state(1)
    game.seed(state, 0, seed, stream)
    game.start(state, 0)
    positions = [Position(state.copy())]
    mask = np.zeros(game.num_actions, np.int8)
    only_game = np.zeros(1, np.int64)
    while not game.is_over(state, 0):
        if len(positions) > MAX_MOVES:
            raise RuntimeError(f"the game did not end within {MAX_MOVES} moves")
        seat = game.current_seat(state, 0)
        action = int(agents[seat].act_states(game, state, only_game)[0])
        game.legal_mask(state, 0, mask)
        if not (0 <= action < game.num_actions and mask[action]):
            raise ValueError(f"{agents[seat].name} in seat {seat} chose illegal action {action}")
        status = game.step(state, 0, action)
        ended = status != PLAYING
        positions.append(
            Position(
                state.copy(),
                seat,
                action,
                game.action_name(action),
                [float(r) for r in game.rewards(state, 0)],
                game.hand_points(state, 0) if ended else [],
            )
        )
    return Replay(game, [agent.name for agent in agents], seed, positions)


def picture(replay: Replay, index: int, face_up: Collection[int] | str = (), reveal_toggle: bool = False) -> str:
    """The SVG of position ``index``, the move that led to it ringed."""
    position = replay.positions[index]
    last = (position.seat, position.action) if position.seat >= 0 else None
    return table_svg(
        replay.game,
        position.state,
        0,
        face_up=face_up,
        names=replay.seat_names,
        last_move=last,
        reveal_toggle=reveal_toggle,
    )


def write_html(replay: Replay, path: str | Path, show_hands: bool = False) -> Path:
    """A page that needs nothing else: step forward and back, play, show or hide the hidden
    hands, and the list of moves with their rewards. The positions are stored as gzipped JSON
    (``read_html_data`` reads it back): successive pictures repeat each other, so a long game's
    page shrinks about twentyfold."""
    frames = []
    for index, position in enumerate(replay.positions):
        frames.append(
            {
                "svg": picture(replay, index, reveal_toggle=True),
                "seat": position.seat,
                "who": replay.seat_names[position.seat] if position.seat >= 0 else "",
                "action": position.action_name or "deal",
                "rewards": position.rewards,
                "hand_points": position.hand_points,
            }
        )
    data = {"title": replay.title(), "frames": frames, "show_hands": show_hands}
    payload = base64.b64encode(gzip.compress(json.dumps(data).encode(), mtime=0)).decode("ascii")
    html = fill_page(PAGE.read_text(encoding="utf-8"), {"TITLE": escape(replay.title()), "REPLAY_DATA": payload})
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")
    return path


def fill_page(template: str, values: dict[str, str]) -> str:
    """``template`` with each ``__NAME__`` replaced by ``values[NAME]``, in one pass: a value
    is never searched for placeholders itself (a title holding ``__REPLAY_DATA__`` stays text).
    The values must already be escaped for where they go: agent names, the variant and its
    options come from the command line and from checkpoint folders' names, so the title is
    ``html.escape``d, and the positions are base64 (no ``<``, ``&`` or quote to escape)."""
    placeholders = re.compile("__(" + "|".join(map(re.escape, values)) + ")__")
    return placeholders.sub(lambda match: values[match[1]], template)


def read_html_data(path: str | Path) -> dict:
    """The title and positions a replay page holds (what ``write_html`` stored)."""
    page = Path(path).read_text(encoding="utf-8")
    payload = page.split('id="replay">', 1)[1].split("</script>", 1)[0]
    return json.loads(gzip.decompress(base64.b64decode(payload)))


def write_gif(replay: Replay, path: str | Path, show_hands: bool = False, seconds_per_move: float = 0.8) -> Path:
    """An animated GIF of every position (the last held three times as long)."""
    from PIL import Image

    face_up = "all" if show_hands else ()
    images = [rasterize(picture(replay, index, face_up=face_up)) for index in range(len(replay.positions))]
    height = max(image.shape[0] for image in images)
    width = max(image.shape[1] for image in images)
    frames = []
    for image in images:  # a table that grows (longer hands) keeps the first frames' corner
        canvas = Image.new("RGB", (width, height), FELT)
        canvas.paste(Image.fromarray(image), (0, 0))
        frames.append(canvas.convert("P", palette=Image.Palette.ADAPTIVE))
    durations = [int(seconds_per_move * 1000)] * len(frames)
    durations[-1] *= 3
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=durations, loop=0)
    return path


def write_replay(replay: Replay, path: str | Path, show_hands: bool = False) -> Path:
    """``write_html`` or ``write_gif``, by the file's extension."""
    suffix = Path(path).suffix.lower()
    if suffix not in REPLAY_SUFFIXES:
        raise ValueError(f"a replay is written as {' or '.join(REPLAY_SUFFIXES)}, not {str(path)!r}")
    return write_gif(replay, path, show_hands) if suffix == ".gif" else write_html(replay, path, show_hands)


def save_arena_replays(
    game: Game,
    policies: dict[str, Agent],
    opponents: list[str] | None,
    games: list[int],
    seed: int,
    folder: str | Path,
) -> list[Path]:
    """Replays of the chosen ``games`` of every arena matchup, in ``folder/replays``: game ``i``
    is the first deal of the arena's game slot ``i``, seated as the arena's first rotation."""
    if any(i < 0 for i in games):
        raise ValueError(f"replay games are numbered from 0, got {games}")
    paths = []
    for a, b in matchup_pairs(list(policies), opponents):
        seated = lineup(game, policies[a], policies[b])
        for i in games:
            name = re.sub(r"[^\w.+-]", "_", f"{a}_vs_{b}_game{i}.html")
            paths.append(write_html(record_game(game, seated, seed, stream=i), Path(folder) / "replays" / name))
    return paths
