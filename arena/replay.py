"""Replays: one game between any agents, recorded move by move, written as a self-contained HTML
page or an animated GIF.

A game is played on the engine record (a batch of one) exactly as ``DominoEnv.reset(seed=S)``
deals it, each agent asked through ``act_states`` so trained policies, baselines and search
agents all take part. Every position is kept, and drawn at write time by
:mod:`domino_env.picture`: the page holds one SVG per position, with the hidden hands' faces
included but hidden until the viewer asks; the GIF rasterizes the same pictures.

    python -m arena replay draw_2p greedy --seed 3 --out game.html
    python -m arena replay heuristic random --variant mexican_train --out game.gif

A replay names what reproduces it: its title gives the variant's options, the seed and the
stream (the game slot of a batch seeded with the seed, as ``evaluate --replays`` numbers games),
and its ``command`` is the ``python -m arena replay`` line that plays it again, move for move.
Its last position names the winner and shows every hand face up.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import shlex
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.tournament import episode_winners
from arena.evaluation import changed_options, game_label, matchup_pairs
from domino_env.game import Game
from domino_env.games.core import PLAYING
from domino_env.picture import rasterize, table_svg
from domino_env.picture.svg import FELT, FONT

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
    stream: int = 0  # the game slot of the batch seeded with ``seed`` (0: what env.reset(seed) deals)
    command: str = ""  # the command line that plays this game again (replay_command_line)

    @property
    def seat_names(self) -> list[str]:
        return [f"player_{seat} ({name})" for seat, name in enumerate(self.names)]

    def title(self) -> str:
        """The game with its options (those not at their defaults), the seed and the stream, and
        who sat where: what a reader needs to play the same deal again."""
        where = f"seed {self.seed}" + (f" stream {self.stream}" if self.stream else "")
        return f"{game_label(self.game)}, {where}: " + ", ".join(self.seat_names)

    @property
    def totals(self) -> list[float]:
        """Each seat's reward over the whole game."""
        totals = [0.0] * self.game.num_players
        for position in self.positions:
            for seat, reward in enumerate(position.rewards):
                totals[seat] += reward
        return totals

    def result(self) -> str:
        """Who won, in words ("player_1 (greedy) wins"), as the arena counts a win: the highest
        reward over the game (:func:`~agents.tournament.episode_winners`)."""
        if not self.game.is_over(self.positions[-1].state, 0):
            return "the game did not end"
        won = episode_winners(np.array(self.totals))
        winners = [name for name, winner in zip(self.seat_names, won, strict=True) if winner]
        if not winners:
            return "game over: no winner (a draw)"
        return f"game over: {' and '.join(winners)} {'wins' if len(winners) == 1 else 'win'}"


def replay_command_line(
    game: Game, policies: Sequence[str], seed: int, stream: int = 0, sample: bool = False, out: str = "game.html"
) -> str:
    """The ``python -m arena replay`` line that plays ``policies`` (one per seat, repeated in
    turn if fewer, as the command seats them) on ``game`` from the deal of ``seed`` and
    ``stream``."""
    words = ["python", "-m", "arena", "replay", *policies, "--variant", game.name]
    for option in changed_options(game):
        words += ["--option", option]
    words += ["--seed", str(seed)]
    if stream:
        words += ["--stream", str(stream)]
    if sample:
        words.append("--sample")
    words += ["--out", out]
    return shlex.join(words)


def record_game(game: Game, agents: list[Agent], seed: int, stream: int = 0, command: str = "") -> Replay:
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
    return Replay(game, [agent.name for agent in agents], seed, positions, stream, command)


def picture(replay: Replay, index: int, face_up: Collection[int] | str = (), reveal_toggle: bool = False) -> str:
    """The SVG of position ``index``, the move that led to it ringed. The last position shows
    every hand face up, with the result in words below the table."""
    position = replay.positions[index]
    last = (position.seat, position.action) if position.seat >= 0 else None
    final = index == len(replay.positions) - 1
    svg = table_svg(
        replay.game,
        position.state,
        0,
        face_up="all" if final else face_up,
        names=replay.seat_names,
        last_move=last,
        reveal_toggle=reveal_toggle and not final,
    )
    return with_caption(svg, replay.result()) if final else svg


CAPTION_HEIGHT = 44
CAPTION_COLOUR = "#ffd400"


def with_caption(svg: str, words: str) -> str:
    """The SVG document ``svg`` with a band of ``words`` (escaped) below it."""
    root = re.match(r'<svg[^>]*?\swidth="([0-9.]+)"[^>]*?\sheight="([0-9.]+)"', svg)
    if root is None:
        raise ValueError("not an SVG document of the picture module (no width and height)")
    width, height = float(root[1]), float(root[2])
    total = height + CAPTION_HEIGHT
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{total:g}" viewBox="0 0 {width:g} '
        f'{total:g}" font-family="{FONT}"><rect x="0" y="0" width="{width:g}" height="{total:g}" fill="{FELT}"/>'
        + svg
        + f'<text class="result" x="16" y="{height + 26:g}" font-size="20" font-weight="bold" '
        f'fill="{CAPTION_COLOUR}">{escape(words)}</text></svg>'
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
    data = {
        "title": replay.title(),
        "command": replay.command,
        "seed": replay.seed,
        "stream": replay.stream,
        "result": replay.result(),
        "frames": frames,
        "show_hands": show_hands,
    }
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
    """An animated GIF of every position (the last, every hand face up and the winner named,
    held three times as long). The GIF's comment holds the title and the command that plays the
    game again."""
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
    comment = replay.title() + (f"\nreproduce: {replay.command}" if replay.command else "")
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=durations, loop=0,
                   comment=comment.encode("utf-8"))  # fmt: skip
    return path


def write_replay(replay: Replay, path: str | Path, show_hands: bool = False) -> Path:
    """``write_html`` or ``write_gif``, by the file's extension."""
    suffix = Path(path).suffix.lower()
    if suffix not in REPLAY_SUFFIXES:
        raise ValueError(f"a replay is written as {' or '.join(REPLAY_SUFFIXES)}, not {str(path)!r}")
    return write_gif(replay, path, show_hands) if suffix == ".gif" else write_html(replay, path, show_hands)


def arena_seats(game: Game, policy: str, opponent: str) -> list[str]:
    """The policies the replay command names for the arena's first rotation of ``policy``
    against a table of ``opponent``: one per seat, or the two of a partnership game (which the
    command repeats in turn, as the arena seats one agent object in both partners' seats)."""
    if game.partnerships:
        return [policy, opponent]
    return [policy] + [opponent] * (game.num_players - 1)


def save_arena_replays(
    game: Game,
    specs: dict[str, str],
    opponents: list[str] | None,
    games: list[int],
    seed: int,
    folder: str | Path,
    seat_agents: Callable[[list[str], int], list[Agent]],
    sample: bool = False,
) -> list[Path]:
    """Replays of the chosen ``games`` of every arena matchup, in ``folder/replays``: game ``i``
    is the first deal of the arena's game slot ``i`` (stream ``i`` of ``seed``), seated as the
    arena's first rotation. ``specs`` maps each arena name to the policy as the command line
    names it; ``seat_agents(policies, seed)`` builds fresh agents for the seats exactly as the
    replay command does, so each replay is what its title's command plays again."""
    if any(i < 0 for i in games):
        raise ValueError(f"replay games are numbered from 0, got {games}")
    paths = []
    for a, b in matchup_pairs(list(specs), opponents):
        policies = arena_seats(game, specs[a], specs[b])
        for i in games:
            name = re.sub(r"[^\w.+-]", "_", f"{a}_vs_{b}_game{i}.html")
            command = replay_command_line(game, policies, seed, i, sample, out=name)
            agents = seat_agents(policies, seed)
            seated = [agents[seat % len(agents)] for seat in range(game.num_players)]
            replay = record_game(game, seated, seed, stream=i, command=command)
            paths.append(write_html(replay, Path(folder) / "replays" / name))
    return paths
