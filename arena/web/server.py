"""Play in the browser: a small local web server (the standard library's ``http.server``) with
one page and a JSON interface.

    python -m arena play draw_2p --web      # prints http://127.0.0.1:8000/?token=...

The page (``play.html``) draws the table with :mod:`domino_env.picture` as the person's seat
sees it: the other hands face down and absent from what is sent. A person plays by clicking a
tile of their hand and then, when it fits more than one place, a target (a line end or a train);
the agents answer at once. With no person seated, agents play each other one move per request.

The interface, every request a JSON object and every answer the table's view or
``{"error": ...}``:

    POST /api/new      {"variant", "options", "opponent", "seat" (null: watch), "seed" (null: secret),
                        "people" (optional: a list of seats, or a count, instead of "seat")}
    POST /api/move     {"game", "step", "action", "key"}   a person's action, by name
    POST /api/advance  {"game", "step", "key"}             one agent move
    POST /api/view     {"game", "key"}                     the game as the key's seat sees it now

Every call may also send ``"numerals": true`` (tiles show digits instead of pips) and
``"width"`` (the table picture's width in pixels: a phone asks for a narrow picture).

Several people at a table
-------------------------
``/api/new`` with ``"people": [0, 2]`` (or a count, ``2``: the first two seats) seats a person in
each of those seats and the opponent agent in every other. Each person's seat has its own secret
key (``secrets.token_urlsafe(24)``); the answer is the first person's view, with its ``key`` and
``links``: for each person's seat, the page's address with the run's token, the game and that
seat's key (``/?token=...&game=...&key=...``). A page opened at such a link shows that seat's
game, polls ``/api/view`` while it is someone else's turn, and sends the key with every call.
In a game of several people every call must carry a seat's key, and is answered with that seat's
view: its own hand face up, the others face down and absent, until the game is over. (A game of
one person may leave the key out: the run's token is that person's.) Agents move as soon as it
is their turn. The server listens on 127.0.0.1 only: the seats are for people at this computer,
each in a browser window of their own (or reaching it through an SSH tunnel).

What a view holds: the table's SVG, the seat's legal moves by tile and target (``can_draw``,
``can_pass``), the boneyard's count (``pile``), the scores and what they mean (``score_label``:
"points won" in Draw and Block, "penalty pips" in Hungarian and Mexican Train, where lower is
better), every move numbered from 1, and, for each hand that is over, its result in words and
every hand it held with the pips and points counted (``hands``). Hands are shown only once
their hand is over: the engine has dealt the next hand by then, so nothing hidden is revealed.

Finished games are kept (``python -m arena play ... --web --save-games DIR``, default
``games/`` under the current folder; ``--save-games ""``: not kept): each as a replay page,
``DIR/<time>_<variant>_<game>.html`` written by :func:`arena.replay.write_html` (people named
``person``), and a line of ``DIR/games.jsonl`` with the variant, options, who sat where, the
deal's seed, the result, the match points and each seat's summed rewards, for reporting people
against agents.

A request that cannot be carried out (malformed, an illegal or out-of-turn move, an unknown game
id, a ``step`` that is not the game's latest) is answered with an error status and a message,
and changes nothing. Games are kept in memory, the most recent :data:`MAX_GAMES` of them.

Only its user, and many games at once
-------------------------------------
Any web page the user visits can send requests to 127.0.0.1, so the server answers only its own
page, and no request waits on another game:

* Host and Origin. A request whose ``Host`` is not ``127.0.0.1:PORT`` or ``localhost:PORT``, or
  whose ``Origin`` (when sent) is not ``http://`` one of those, gets 403: a hostile site that
  rebinds its DNS name to 127.0.0.1 still sends its own name as the Host, and a page of another
  origin (another port included) sends its own Origin.
* A secret token per run, as notebook servers have: the address printed at start carries
  ``?token=...`` (``secrets.token_urlsafe(32)``). The page is served only to a request with the
  token, and embeds it; the page sends it back in an ``X-Token`` header on every API call, and
  an API call without it (compared with ``hmac.compare_digest``) gets 403. A header rather than
  a cookie: cookies are shared by every port of 127.0.0.1 (and SameSite does not separate
  ports), so a cookie would reach, and be sent to, any other local server; a custom header is
  bound to this page's origin, and makes a cross-origin ``fetch`` ask a CORS preflight that
  this server never grants.
* Deals. A game's deal follows from its seed, and a spectator sees every hand, so a seed the
  client chooses must not name another game in progress. Games the server deals take a seed
  from :mod:`secrets` with the top bit set (``2**63 + secrets.randbits(63)``), which no one can
  guess or ask for; a client's ``seed`` is accepted only in ``0..2**63-1``, a replayable
  "practice" deal of the client's own choosing that is therefore never one the server dealt.
  The page leaves the seed empty (a secret deal) unless the person types one (or the command
  line gave ``--seed N``, N not 0).
* Games do not wait on each other: each game has its own lock, held while its agents think, and
  the games' table is locked only to look a game up or add one. A second request for a game
  whose agent is still thinking is answered at once (409) instead of queuing behind it. Agents'
  thinking is bounded: their options are checked with bounded budgets where they are built.
* Connections. One reception thread reads every connection without blocking until its request
  has fully arrived (the head and its ``Content-Length`` of body), within
  :attr:`Handler.timeout` seconds of connecting (else 408 and closed: a half-sent request holds
  no thread); only then does one of a fixed pool of :data:`WORKERS` threads answer it. So idle
  or trickling connections cannot take the workers, at most :data:`MAX_CONNECTIONS` are held
  (the oldest unfinished one is dropped for a new one), the listen backlog is
  :data:`BACKLOG`, and a client that goes away mid-answer costs one log line.
* Bodies. JSON objects of at most :data:`MAX_BODY` bytes and :data:`MAX_DEPTH` levels of
  nesting, with a matching ``Content-Length`` and ``Content-Type: application/json``; anything
  else is a 4xx answer.
* Opponents. The page offers the built-in agents, the shipped policies, and the policy named on
  the command line (a checkpoint or run folder included); :func:`serve` plays only those, so a
  request cannot make the server read any other file as a checkpoint.
"""

from __future__ import annotations

import hmac
import importlib.util
import io
import json
import queue
import re
import secrets
import selectors
import socket
import sys
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np

from agents import AGENTS
from agents.base import Agent
from domino_env import VARIANTS, make_game
from domino_env.game import Game
from domino_env.games.core import PLAYING
from domino_env.picture import say_move, table_svg
from domino_env.picture.read import PENALTY_VARIANTS, score_label
from domino_env.tiles import tile_faces

PAGE = Path(__file__).parent / "play.html"
MAX_GAMES = 32
MAX_BODY = 64 * 1024
MAX_HEAD = 16 * 1024  # a request's line and headers; the page's are well under 2 KiB
MAX_DEPTH = 8  # nesting of a request's JSON: {"options": {...}} is 2
WORKERS = 16  # threads answering complete requests
BACKLOG = 128  # connections the kernel holds before they are accepted
MAX_CONNECTIONS = 512  # connections held at once, arriving or being answered
HOST = "127.0.0.1"
MIN_PICTURE, MAX_PICTURE = 320, 2400  # the widths of table picture a page may ask for
PRACTICE_SEEDS = 1 << 63  # a client's seed is 0..2**63-1; the server deals 2**63 and above
# What playing a trained policy needs beyond the core install: the ``train`` extra's torch and
# safetensors, and the yaml of the runs' configs (imported by ``training.checkpoint``).
TRAINED_POLICY_MODULES = ("torch", "safetensors", "yaml")
SEARCH_SUFFIX = "+search"  # agents.policy_search.SUFFIX, which imports torch

PolicyLoader = Callable[[str, Game, int], Agent]


class RequestError(ValueError):
    """A request the server refuses, with the HTTP status to answer."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class HandResult:
    """A hand that is over, as every seat may now see it: what each hand held, its pips, what the
    hand scored and the totals, and the result in words."""

    number: int
    winners: list[int]
    domino: bool  # a seat went out; else the hand was blocked
    hands: list[list[tuple[int, int]]]
    pips: list[int]
    points: list[int]  # hand_points: points won (Draw, Block) or penalty pips (Hungarian, Mexican Train)
    totals: list[int]  # match_points after the hand


@dataclass
class Session:
    """One game in progress: the engine record, who sits where, and what happened. Its
    ``lock`` is held while a request plays it, so that games never wait on each other.

    People's seats have an agent of ``None`` and a secret ``key`` each: a request for a game
    that seats more than one person must carry its seat's key, and sees that seat's hand only."""

    id: str
    game: Game
    state: np.ndarray
    agents: list[Agent | None]  # None: a person's seat
    names: list[str]  # as a replay names the seats: "player_0 (person)", "player_1 (greedy)"
    practice: int | None = None  # the client's seed of a practice deal; None: a secret deal
    deal: int = 0  # the seed the deal came from
    keys: dict[int, str] = field(default_factory=dict)  # a person's seat: its secret
    step: int = 0
    last_move: tuple[int, int] | None = None
    moves: list[tuple[int, int]] = field(default_factory=list)  # (seat, action), every move in order
    results: list[HandResult] = field(default_factory=list)  # the hands that are over
    ends: list[int] = field(default_factory=list)  # the move count at which each hand ended
    positions: list[Any] = field(default_factory=list)  # arena.replay Positions, for the saved replay
    rewards: list[float] = field(default_factory=list)  # each seat's rewards summed over the game
    saved: str = ""  # the replay file, once saved
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def people(self) -> list[int]:
        return [seat for seat, agent in enumerate(self.agents) if agent is None]

    @property
    def person(self) -> int | None:
        people = self.people
        return people[0] if people else None

    @property
    def over(self) -> bool:
        return self.game.is_over(self.state, 0)

    @property
    def penalty(self) -> bool:
        """Whether a score counts against its seat (lower is better)."""
        return self.game.name in PENALTY_VARIANTS

    def to_act(self) -> int:
        return self.game.current_seat(self.state, 0)

    def legal(self) -> list[int]:
        mask = np.zeros(self.game.num_actions, np.int8)
        self.game.legal_mask(self.state, 0, mask)
        return [int(a) for a in np.flatnonzero(mask)]

    def seat_of(self, key: str | None) -> int | None:
        """The person's seat a request speaks for: the seat whose ``key`` it carries; with one
        person, that person's seat without a key too (the run's token is theirs alone); with
        nobody seated, ``None`` (watching). A missing or wrong key in a game of several people
        is refused."""
        if key is not None:
            for seat, secret in self.keys.items():
                if hmac.compare_digest(key.encode("utf-8", "replace"), secret.encode()):
                    return seat
            raise RequestError(HTTPStatus.FORBIDDEN, "this key is not one of this game's seats: use your seat's link")
        if len(self.people) > 1:
            raise RequestError(HTTPStatus.FORBIDDEN, "this game seats several people: send your seat's key")
        return self.person

    def names_for(self, viewer: int | None) -> list[str]:
        """The seats' names as ``viewer`` reads them: their own seat is "you"."""
        return [f"player_{seat} (you)" if seat == viewer else name for seat, name in enumerate(self.names)]

    def apply(self, action: int) -> None:
        """Play a legal ``action`` of the seat to act and note it (and, when it ends a hand,
        what every hand held)."""
        seat = self.to_act()
        players = self.game.num_players
        held = [list(hand) for hand in self.game.scene(self.state, 0)[-players:]]
        status = self.game.step(self.state, 0, action)
        self.step += 1
        self.last_move = (seat, action)
        self.moves.append((seat, action))
        rewards = [float(r) for r in self.game.rewards(self.state, 0)]
        self.rewards = [a + b for a, b in zip(self.rewards or [0.0] * players, rewards, strict=True)]
        hand_points = self.game.hand_points(self.state, 0) if status != PLAYING else []
        if status != PLAYING:
            tile = int(self.game.action_tiles[action])
            if tile >= 0 and tile_faces(tile) in held[seat]:
                held[seat].remove(tile_faces(tile))
            self.results.append(self.hand_result(held, seat, hand_points))
            self.ends.append(self.step)
        if self.positions:  # recording a replay
            from arena.replay import Position

            name = self.game.action_name(action)
            self.positions.append(Position(self.state.copy(), seat, action, name, rewards, hand_points))

    def hand_result(self, held: list[list[tuple[int, int]]], mover: int, points: list[int]) -> HandResult:
        pips = self.game.pips_left(self.state, 0)
        domino = not held[mover]
        if domino:
            winners = [mover]
            if self.game.partnerships:
                winners = [s for s in range(self.game.num_players) if s % 2 == mover % 2]
        elif self.penalty:
            in_play = [s for s in range(self.game.num_players) if held[s] or pips[s]] or list(range(len(pips)))
            low = min(pips[s] for s in in_play)
            winners = [s for s in in_play if pips[s] == low]
        else:
            winners = [s for s, p in enumerate(points) if p > 0]
        totals = self.game.match_points(self.state, 0)
        return HandResult(len(self.results) + 1, winners, domino, held, pips, points, totals)

    def agent_move(self) -> None:
        seat = self.to_act()
        agent = self.agents[seat]
        assert agent is not None, "a person's seat is not played by an agent"
        action = int(agent.act_states(self.game, self.state, np.zeros(1, np.int64))[0])
        if action not in self.legal():
            raise RuntimeError(f"{agent.name} chose illegal action {action}")
        self.apply(action)

    def agents_until_person(self) -> None:
        """Agents play until a person is to act or the game is over (watching: no moves)."""
        while self.people and not self.over and self.agents[self.to_act()] is not None:
            self.agent_move()

    def view(self, viewer: int | None, numerals: bool = False, width: int | None = None) -> dict[str, Any]:
        """What the page shows ``viewer`` (a person's seat; None: a spectator, who sees every
        hand): the table with that seat's hand alone face up until the game is over, then every
        hand; its legal actions by tile and target; the whole move log; each finished hand's
        result with every hand it held; and the scores, named by what they mean."""
        names = self.names_for(viewer)
        over = self.over
        face_up: Any = "all" if viewer is None or over else {viewer}
        svg = table_svg(self.game, self.state, 0, face_up=face_up, names=names, last_move=self.last_move,
                        viewer=viewer, numerals=numerals, width=width)  # fmt: skip
        to_act = None if over else self.to_act()
        yours = viewer is not None and to_act == viewer
        legal = [describe(self.game.action_name(a)) for a in self.legal()] if yours else []
        kinds = {a["name"] for a in legal}
        pile = int((self.state[0]["location"][: self.game.num_tiles] == -1).sum())
        return {
            "game": self.id,
            "step": self.step,
            "svg": svg,
            "variant": self.game.name,
            "title": self.game.title,
            "seat": viewer,
            "people": self.people,
            "names": names,
            "to_act": to_act,
            "your_turn": yours,
            "legal": legal,
            "can_draw": "draw" in kinds,
            "can_pass": "pass" in kinds,
            "over": over,
            "result": self.result(viewer) if over else "",
            "hands": [self.say_hand(result, names, viewer) for result in self.results],
            "log": self.log(names),
            "score_label": score_label(self.game),
            "lower_is_better": self.penalty,
            "scores": self.game.match_points(self.state, 0),
            "pile": {"label": "boneyard" if self.game.allow_draw else "set aside", "count": pile},
            "practice": self.practice,
            "saved": self.saved,
        }

    def log(self, names: list[str]) -> list[dict[str, Any]]:
        """Every move, numbered from 1 as played, and a line where each hand ended."""
        lines: list[dict[str, Any]] = []
        ends = dict(zip(self.ends, self.results, strict=True))
        for number, (seat, action) in enumerate(self.moves, 1):
            lines.append({"n": number, "text": say_move(self.game, names, seat, action)})
            if number in ends:
                result = ends[number]
                lines.append({"n": None, "text": f"hand {result.number} over: {self.sentence(result, names, None)}"})
        return lines

    def who(self, seats: list[int], names: list[str], viewer: int | None) -> tuple[str, bool]:
        """The seats in words, and whether that is "you" (a plural verb)."""
        words = ["you" if s == viewer else names[s] for s in seats]
        text = " and ".join(words)
        return ("Y" + text[1:] if text.startswith("you") else text), len(seats) > 1 or viewer in seats

    def sentence(self, result: HandResult, names: list[str], viewer: int | None) -> str:
        """A hand's result in words: "You win: domino, 45 points", "Blocked: player_1 wins
        with 12 pips to 20"."""
        others = [s for s in range(len(names)) if s not in result.winners]
        if not result.winners:
            return f"Blocked: a tie at {min(result.pips)} pips, nobody scores"
        who, plural = self.who(result.winners, names, viewer)
        win = "win" if plural else "wins"
        if self.penalty:
            lows = sorted(result.pips[s] for s in result.winners)
            if not result.domino and len(result.winners) > 1:
                return f"Blocked: {who} tie at {lows[0]} pips"
            rest = " and ".join(str(result.pips[s]) for s in others)
            if result.domino:
                return f"{who} {win}: domino" + (f" · the others keep {rest} penalty pips" if rest else "")
            return f"Blocked: {who} {win} with {lows[0]} pips to {rest}"
        scored = max(result.points)
        points = f"{scored} point{'s' if scored != 1 else ''}"
        if result.domino:
            return f"{who} {win}: domino, {points}"
        if self.game.partnerships:  # the teams' pips, added up
            mine, rest = sum(result.pips[s] for s in result.winners), str(sum(result.pips[s] for s in others))
        else:
            mine, rest = min(result.pips[s] for s in result.winners), " and ".join(str(result.pips[s]) for s in others)
        return f"Blocked: {who} {win} with {mine} pips to {rest}, {points}"

    def how(self, result: HandResult) -> str:
        """How the hand's points were counted."""
        if self.penalty:
            return "each player adds the pips left in their own hand to their penalty total: lower is better"
        if not result.winners:
            return "a blocked hand tied for the fewest pips: nobody scores"
        scored = max(result.points)
        losers = [result.pips[s] for s in range(len(result.pips)) if s not in result.winners]
        counted = " + ".join(map(str, losers))
        if self.game.partnerships and sum(losers) == scored:
            return f"the winning team scores the pips left in the losing team's hands: {counted} = {scored}"
        if sum(losers) == scored and len(losers) == 1:
            return f"the winner scores the pips left in the other hand: {scored}"
        if sum(losers) == scored:
            return f"the winner scores the pips left in the other hands: {counted} = {scored}"
        if len(losers) == 1 and len(result.winners) == 1:
            mine = result.pips[result.winners[0]]
            return f"the winner scores the difference of the hands: {losers[0]} − {mine} = {scored}"
        return f"the winner scores {scored} by this game's block_scoring option (RULES.md)"

    def say_hand(self, result: HandResult, names: list[str], viewer: int | None) -> dict[str, Any]:
        seats = [
            {
                "name": names[s],
                "tiles": [f"{a}-{b}" for a, b in result.hands[s]],
                "pips": result.pips[s],
                "points": result.points[s],
                "total": result.totals[s],
                "won": s in result.winners,
            }
            for s in range(len(names))
        ]
        return {"number": result.number, "sentence": self.sentence(result, names, viewer), "how": self.how(result),
                "seats": seats}  # fmt: skip

    def result(self, viewer: int | None) -> str:
        """The game's result in words: the last hand's, and the match's when there were hands
        before it."""
        names = self.names_for(viewer)
        last = self.sentence(self.results[-1], names, viewer) if self.results else "game over"
        if not self.game.options.get("match"):
            return last
        totals = self.game.match_points(self.state, 0)
        in_play = self.game.seats_in_play(self.state, 0)
        if self.penalty:
            best = min(totals[s] for s in in_play)
            winners = [s for s in in_play if totals[s] == best]
        else:
            best = max(totals)
            winners = [s for s, t in enumerate(totals) if t == best]
        who, plural = self.who(winners, names, viewer)
        unit = "penalty pips" if self.penalty else "points"
        rest = " and ".join(str(totals[s]) for s in range(len(totals)) if s not in winners)
        return f"{last}. Match over: {who} {'win' if plural else 'wins'} the match with {best} {unit}" + (
            f" to {rest}" if rest else ""
        )

    def replay(self) -> Any:
        """The finished game as an :class:`arena.replay.Replay`."""
        from arena.replay import Replay

        players = [agent.name if agent is not None else "person" for agent in self.agents]
        return Replay(self.game, players, self.deal, self.positions)


def describe(name: str) -> dict[str, str | None]:
    """An action name as the page's clicks see it: ``play 3-5 on left`` is tile ``3-5`` on
    target ``left`` (the words the picture's ``data-tile`` and ``data-target`` carry)."""
    if name.startswith("play "):
        tile, _, target = name[len("play ") :].partition(" on ")
        return {"name": name, "tile": tile, "target": target}
    return {"name": name, "tile": None, "target": None}


def look_of(request: dict[str, Any]) -> dict[str, Any]:
    """How the request's page wants the table drawn: ``numerals`` instead of pips, and the
    picture's ``width`` (a phone asks for a narrow one)."""
    numerals = field_of(request, "numerals", bool, default=False)
    width = field_of(request, "width", int, default=None)
    if width is not None and not MIN_PICTURE <= width <= MAX_PICTURE:
        raise RequestError(HTTPStatus.BAD_REQUEST, f"width must be {MIN_PICTURE}..{MAX_PICTURE} pixels or null")
    return {"numerals": numerals, "width": width}


class Lobby:
    """The games in progress and how to start one; every method checks before it changes.

    ``lock`` guards only the table of games (a lookup, an insertion); playing a game holds that
    game's own lock, so an agent thinking in one game never holds up a request for another.
    ``save_games``: a folder where every finished game is written as a replay page (and a line
    of ``games.jsonl``); None: not kept."""

    def __init__(
        self, load_policy: PolicyLoader, defaults: dict[str, Any], save_games: str | Path | None = None
    ) -> None:
        self.load_policy = load_policy
        self.defaults = defaults
        self.save_games = Path(save_games) if save_games else None
        self.sessions: OrderedDict[str, Session] = OrderedDict()
        self.lock = threading.Lock()
        self.save_lock = threading.Lock()  # games.jsonl is appended one game at a time

    def choices(self) -> dict[str, Any]:
        """What the page offers: variants, agents, shipped policies and the game they play, and
        the policy named on the command line (an agent with options, a checkpoint, a run)."""
        agents = list(AGENTS)
        pretrained = {}
        if trained_policies_playable():
            from training import checkpoint as ckpt

            for name in ckpt.pretrained_names():
                variant, options = ckpt.game_of_checkpoint(ckpt.resolve_checkpoint(name))
                pretrained[name] = {"variant": variant, "options": options}
        named = self.defaults.get("opponent")
        if named and named not in agents and named not in pretrained:
            if named.partition(":")[0] in AGENTS:
                agents.append(named)
            else:  # the game it was resolved for on the command line is the one it plays
                pretrained[named] = {"variant": self.defaults["variant"], "options": self.defaults["options"]}
        return {"variants": list(VARIANTS), "agents": agents, "pretrained": pretrained, "defaults": self.defaults,
                "save_games": str(self.save_games) if self.save_games else None}  # fmt: skip

    def new(self, request: dict[str, Any]) -> dict[str, Any]:
        variant = field_of(request, "variant", str)
        if variant not in VARIANTS:
            raise RequestError(
                HTTPStatus.BAD_REQUEST, f"unknown variant {variant!r}; variants are {', '.join(VARIANTS)}"
            )
        options = field_of(request, "options", dict, default={})
        opponent = field_of(request, "opponent", str)
        look = look_of(request)
        practice = field_of(request, "seed", int, default=None)
        if practice is None:  # a secret deal, never one a client can name (see the module's notes)
            deal, agent_seed = PRACTICE_SEEDS + secrets.randbits(63), secrets.randbits(63)
        elif 0 <= practice < PRACTICE_SEEDS:
            deal = agent_seed = practice
        else:
            raise RequestError(
                HTTPStatus.BAD_REQUEST, f"seed must be 0..{PRACTICE_SEEDS - 1}, or null for a secret deal"
            )
        try:
            game = make_game(variant, **options)
        except (ValueError, TypeError) as error:  # bad options
            raise RequestError(HTTPStatus.BAD_REQUEST, str(error)) from None
        people = self.people_of(request, game.num_players)
        try:  # one agent plays every seat that no person takes
            agent = self.load_policy(opponent, game, agent_seed)
        except (ValueError, TypeError) as error:  # unknown or unfit policies
            raise RequestError(HTTPStatus.BAD_REQUEST, str(error)) from None
        agents: list[Agent | None] = [None if seat in people else agent for seat in range(game.num_players)]
        names = [f"player_{s} ({'person' if a is None else a.name})" for s, a in enumerate(agents)]
        state = game.new_state(1)
        game.seed(state, 0, deal)
        game.start(state, 0)
        keys = {seat: secrets.token_urlsafe(24) for seat in people}
        session = Session(uuid.uuid4().hex[:12], game, state, agents, names, practice, deal, keys)
        session.rewards = [0.0] * game.num_players
        if self.save_games is not None:
            from arena.replay import Position

            session.positions = [Position(state.copy())]
        session.agents_until_person()  # nobody else can name this game yet: no lock needed
        self.finish(session)
        with self.lock:
            self.sessions[session.id] = session
            while len(self.sessions) > MAX_GAMES:
                self.sessions.popitem(last=False)
        viewer = people[0] if people else None
        view = session.view(viewer, **look)
        view["key"] = keys.get(viewer) if viewer is not None else None
        view["keys"] = {str(seat): key for seat, key in keys.items()}  # the page makes each seat's link
        return view

    @staticmethod
    def people_of(request: dict[str, Any], players: int) -> list[int]:
        """The seats people take: ``people`` (a list of seats, or a count: the first seats), or
        the one ``seat`` (null: nobody, the agents play each other)."""
        if "people" in request and request["people"] is not None:
            people = request["people"]
            if isinstance(people, int) and not isinstance(people, bool):
                if not 0 <= people <= players:
                    raise RequestError(HTTPStatus.BAD_REQUEST, f"people must be 0..{players} seats")
                return list(range(people))
            if not isinstance(people, list) or not all(
                isinstance(s, int) and not isinstance(s, bool) and 0 <= s < players for s in people
            ):
                raise RequestError(
                    HTTPStatus.BAD_REQUEST, f"people must be a count or a list of seats 0..{players - 1}"
                )
            if len(set(people)) != len(people):
                raise RequestError(HTTPStatus.BAD_REQUEST, "people names a seat twice")
            return sorted(people)
        seat = field_of(request, "seat", int, default=None)
        if seat is not None and not 0 <= seat < players:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"seat must be 0..{players - 1} or null to watch")
        return [] if seat is None else [seat]

    def move(self, request: dict[str, Any]) -> dict[str, Any]:
        name = field_of(request, "action", str)
        look = look_of(request)
        with self.playing(request) as (session, seat):
            if seat is None:
                raise RequestError(HTTPStatus.CONFLICT, "nobody plays in this game: agents play each other (advance)")
            if session.over:
                raise RequestError(HTTPStatus.CONFLICT, "the game is over: start a new one")
            if session.to_act() != seat:
                names = session.names_for(seat)
                raise RequestError(HTTPStatus.CONFLICT, f"it is {names[session.to_act()]}'s turn, not yours")
            try:
                action = session.game.action_from_name(name)
            except ValueError as error:
                raise RequestError(HTTPStatus.BAD_REQUEST, str(error)) from None
            legal = session.legal()
            if action not in legal:
                options = ", ".join(session.game.action_name(a) for a in legal)
                raise RequestError(HTTPStatus.BAD_REQUEST, f"illegal move {name!r}; legal: {options}")
            session.apply(action)
            session.agents_until_person()
            self.finish(session)
            return session.view(seat, **look)

    def advance(self, request: dict[str, Any]) -> dict[str, Any]:
        look = look_of(request)
        with self.playing(request) as (session, seat):
            if session.over:
                raise RequestError(HTTPStatus.CONFLICT, "the game is over: start a new one")
            if session.agents[session.to_act()] is None:
                whose = "your" if session.to_act() == seat else "a person's"
                raise RequestError(HTTPStatus.CONFLICT, f"it is {whose} turn: the agents wait for that move")
            session.agent_move()
            self.finish(session)
            return session.view(seat, **look)

    def see(self, request: dict[str, Any]) -> dict[str, Any]:
        """The game as the request's seat sees it now, changing nothing: what a joining page
        loads, and what a waiting page polls."""
        look = look_of(request)
        with self.playing(request, any_step=True) as (session, seat):
            return session.view(seat, **look)

    def finish(self, session: Session) -> None:
        """Keep a game that has just ended: its replay page and a line of ``games.jsonl`` in
        :attr:`save_games` (once; nothing when no folder was given)."""
        if self.save_games is None or not session.over or session.saved:
            return
        from arena.replay import write_html

        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = write_html(session.replay(), self.save_games / f"{stamp}_{session.game.name}_{session.id}.html")
        session.saved = str(path)
        names = session.names
        record = {
            "file": path.name,
            "finished": stamp,
            "variant": session.game.name,
            "options": session.game.options,
            "seats": [("person" if a is None else a.name) for a in session.agents],
            "people": session.people,
            "deal": "practice" if session.practice is not None else "secret",
            "seed": session.deal,
            "moves": session.step,
            "result": session.result(None),
            "hands": [session.sentence(r, names, None) for r in session.results],
            "score_label": score_label(session.game),
            "match_points": session.game.match_points(session.state, 0),
            "rewards": session.rewards,
        }
        with self.save_lock, (self.save_games / "games.jsonl").open("a", encoding="utf-8") as log:
            log.write(json.dumps(record, default=str) + "\n")

    @contextmanager
    def playing(self, request: dict[str, Any], any_step: bool = False) -> Iterator[tuple[Session, int | None]]:
        """The session a request names and the seat it speaks for (its ``key``), held for this
        request alone, and refused unless ``step`` is its latest (``any_step``: a look that
        changes nothing needs none). A game already being played (its agent thinking) is
        refused at once rather than waited for: the request would be stale by then anyway, and
        a worker thread is not tied up waiting."""
        game_id = field_of(request, "game", str)
        step = None if any_step else field_of(request, "step", int)
        key = field_of(request, "key", str, default=None)
        with self.lock:
            session = self.sessions.get(game_id)
        if session is None:
            raise RequestError(HTTPStatus.NOT_FOUND, f"no game {game_id!r} here (finished long ago, or never started)")
        seat = session.seat_of(key)
        if not session.lock.acquire(blocking=False):
            raise RequestError(HTTPStatus.CONFLICT, "an agent is still thinking in this game: wait for its move")
        try:
            if step is not None and step != session.step:
                raise RequestError(
                    HTTPStatus.CONFLICT, f"stale request: it answers move {step}, the game is at move {session.step}"
                )
            yield session, seat
        finally:
            session.lock.release()


def trained_policies_playable() -> bool:
    """Whether trained policies can be played here: not in a core-only install, where the page
    then offers the built-in agents only (and the server never imports torch)."""
    return all(importlib.util.find_spec(module) is not None for module in TRAINED_POLICY_MODULES)


def offered_policies(load_policy: Callable[..., Agent], named: str) -> PolicyLoader:
    """``load_policy`` for the names the page offers only: a built-in agent (with options, whose
    budgets the agents check), a shipped policy, or the policy named on the command line, each
    perhaps with search. Anything else, a path to some file above all, is refused."""

    def base(name: str) -> str:
        return name.partition(":")[0].removesuffix(SEARCH_SUFFIX)

    def load(name: str, game: Game, seed: int) -> Agent:
        if name.partition(":")[0] not in AGENTS and name != named:
            shipped: list[str] = []
            if trained_policies_playable():
                from training import checkpoint as ckpt

                shipped = ckpt.pretrained_names()
            if base(name) not in [*shipped, base(named)]:
                raise ValueError(f"{name!r} is not offered here; the page lists the policies it plays")
        return load_policy(name, game, seed=seed)

    return load


def field_of(request: dict[str, Any], key: str, kind: type, default: Any = ...) -> Any:
    """``request[key]`` checked to be a ``kind`` (``None`` is accepted where the default is)."""
    if key not in request:
        if default is ...:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"the request has no {key!r}")
        return default
    value = request[key]
    if value is None and default is None:
        return None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise RequestError(HTTPStatus.BAD_REQUEST, f"{key!r} must be a {kind.__name__}, got {value!r}")
    return value


def nesting(value: Any) -> int:
    """How deeply JSON containers nest in ``value`` (0 for a number or string), counted without
    recursion and stopping once past :data:`MAX_DEPTH`."""
    deepest, todo = 0, [(value, 1)]
    while todo and deepest <= MAX_DEPTH:
        item, depth = todo.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, depth)
            todo.extend((child, depth + 1) for child in children)
    return deepest


def refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON has")


class SocketWriter(io.BufferedIOBase):
    """The answer's stream: every write sent whole (``sendall``), as ``socketserver`` does."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.connection.sendall(data)
        with memoryview(data) as view:
            return view.nbytes


class Handler(BaseHTTPRequestHandler):
    """GET / for the page (with the token); POST /api/... with a JSON body and the token.

    It is given a request that has fully arrived (:class:`PlayServer` reads it first), so it
    reads from memory; ``timeout`` bounds both that arrival and the sending of the answer."""

    server: PlayServer
    timeout = 10.0
    routes = {"/api/new": Lobby.new, "/api/move": Lobby.move, "/api/advance": Lobby.advance, "/api/view": Lobby.see}

    def setup(self) -> None:
        self.connection, received = self.request
        self.connection.settimeout(self.timeout)
        self.rfile = io.BytesIO(received)
        self.wfile = SocketWriter(self.connection)

    def do_GET(self) -> None:
        if self.foreign():
            return
        url = urlsplit(self.path)
        if url.path == "/favicon.ico":
            self.send_body(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
            return
        if url.path != "/":
            self.send_json(HTTPStatus.NOT_FOUND, {"error": f"no page {url.path!r}: the game is at /"})
            return
        if not self.server.token_matches(parse_qs(url.query).get("token", [""])[0]):
            self.send_body(HTTPStatus.FORBIDDEN, NO_TOKEN_PAGE, "text/html")
            return
        choices = self.server.lobby.choices() | {"token": self.server.token}
        text = script_json(choices)
        self.send_body(HTTPStatus.OK, PAGE.read_text().replace("__CHOICES_JSON__", text).encode(), "text/html")

    def do_POST(self) -> None:
        if self.foreign():
            return
        route = self.routes.get(self.path)
        try:
            if not self.server.token_matches(self.headers.get("X-Token", "")):
                raise RequestError(
                    HTTPStatus.FORBIDDEN, "no valid X-Token: use the page at the address the server printed"
                )
            if route is None:
                raise RequestError(
                    HTTPStatus.NOT_FOUND, f"no interface {self.path!r}; there are {', '.join(self.routes)}"
                )
            answer = route(self.server.lobby, self.read_json())
            if "keys" in answer:  # a new game: each person's seat gets its link, token and key
                game = answer["game"]
                links = {seat: f"{self.server.url}&game={game}&key={key}" for seat, key in answer.pop("keys").items()}
                answer["links"] = links
            self.send_json(HTTPStatus.OK, answer)
        except RequestError as error:
            self.send_json(error.status, {"error": str(error)})
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            raise  # the client went away: PlayServer notes it in one line
        except Exception as error:  # an agent or checkpoint failing mid-game: say so, keep serving
            self.send_json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"{type(error).__name__}: {error}"})

    def foreign(self) -> bool:
        """Refuse (403) a request not addressed to this server by its own name (DNS rebinding)
        or sent from a page of another origin; True when refused."""
        host = self.headers.get("Host", "").lower()
        origin = self.headers.get("Origin")
        if host not in self.server.hosts:
            reason = f"Host {host!r} is not this server's"
        elif origin is not None and origin.lower() not in self.server.origins:
            reason = f"Origin {origin!r} is not this server's page"
        else:
            return False
        self.send_json(HTTPStatus.FORBIDDEN, {"error": f"refused: {reason}"})
        return True

    def read_json(self) -> dict[str, Any]:
        if self.headers.get_content_type() != "application/json":
            raise RequestError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "the request body must be application/json")
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            raise RequestError(HTTPStatus.BAD_REQUEST, "Content-Length is not a number") from None
        if not 0 < length <= MAX_BODY:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"the request body must be JSON of 1 to {MAX_BODY} bytes")
        body = self.rfile.read(length)
        if len(body) != length:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"the body has {len(body)} bytes, not its Content-Length")
        try:
            request = json.loads(body, parse_constant=refuse_constant)
        except RecursionError:
            raise RequestError(HTTPStatus.BAD_REQUEST, "the request body nests too deeply") from None
        except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError, NaN, a 5000-digit number
            raise RequestError(HTTPStatus.BAD_REQUEST, f"the request body is not JSON: {error}") from None
        if not isinstance(request, dict):
            raise RequestError(HTTPStatus.BAD_REQUEST, "the request body must be a JSON object")
        if nesting(request) > MAX_DEPTH:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"the request body nests deeper than {MAX_DEPTH} levels")
        return request

    def send_json(self, status: HTTPStatus, body: dict[str, Any]) -> None:
        self.send_body(status, json.dumps(body).encode(), "application/json")

    def send_body(self, status: HTTPStatus, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Referrer-Policy", "no-referrer")  # the page's address holds the token
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Content-Security-Policy", PAGE_POLICY)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the terminal shows the address, not every request


# The page is only ever framed by nobody, calls only its own server, and loads nothing else
# (its script and style are inline: a script-src rule would only stop tools that evaluate).
PAGE_POLICY = "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
NO_TOKEN_PAGE = (
    b"<!doctype html><meta charset='utf-8'><title>403: open the printed address</title>"
    b"<h1>403 Forbidden</h1><p>This page opens only at the address the server printed when it started "
    b"(<code>http://127.0.0.1:PORT/?token=...</code>): copy it from the terminal where "
    b"<code>python -m arena play ... --web</code> runs.</p>"
)
HEAD_END = re.compile(rb"\r?\n\r?\n")
CONTENT_LENGTH = re.compile(rb"^content-length[ \t]*:[ \t]*([^\r\n]*)", re.IGNORECASE | re.MULTILINE)


@dataclass
class Arrival:
    """A connection whose request is still arriving, and what has come so far."""

    address: tuple[str, int]
    deadline: float
    data: bytearray = field(default_factory=bytearray)

    def complete(self) -> bool:
        """Whether the request has fully arrived: its head, and as many bytes of body as its
        Content-Length says (one that is not a number, or out of bounds, is complete at once:
        the handler refuses it)."""
        end = HEAD_END.search(self.data)
        if end is None:
            return False
        length = CONTENT_LENGTH.search(self.data, 0, end.start())
        try:
            wanted = int(length.group(1)) if length else 0
        except ValueError:
            return True
        return not 0 <= wanted <= MAX_BODY or len(self.data) - end.end() >= wanted


class PlayServer(HTTPServer):
    """The play server: its lobby, its token, the names it answers to, one reception thread
    that reads requests as they arrive, and a fixed pool of workers answering complete ones.

    ``ThreadingHTTPServer`` starts a thread per connection, each blocked reading until its
    client sends: a few hundred idle connections are a few hundred threads. Here a connection
    costs a socket in a selector until its request is whole, and at most :data:`WORKERS`
    threads ever answer."""

    request_queue_size = BACKLOG

    def __init__(self, lobby: Lobby, port: int = 0, workers: int = WORKERS) -> None:
        super().__init__((HOST, port), Handler)
        self.lobby = lobby
        self.token = secrets.token_urlsafe(32)
        self.hosts = {f"127.0.0.1:{self.server_port}", f"localhost:{self.server_port}"}
        self.origins = {f"http://{host}" for host in self.hosts}
        self.workers = ThreadPoolExecutor(workers, thread_name_prefix="domino-web")
        self.answering = 0  # connections handed to the workers and not yet closed
        self.count_lock = threading.Lock()
        self.arriving: OrderedDict[socket.socket, Arrival] = OrderedDict()  # oldest first
        self.inbox: queue.SimpleQueue[tuple[socket.socket, tuple[str, int]]] = queue.SimpleQueue()
        self.selector = selectors.DefaultSelector()
        self.wake_in, self.wake_out = socket.socketpair()
        self.wake_in.setblocking(False)
        self.wake_out.setblocking(False)
        self.selector.register(self.wake_in, selectors.EVENT_READ)
        self.closing = False
        self.reception = threading.Thread(target=self.receive, name="domino-web-reception", daemon=True)
        self.reception.start()

    @property
    def url(self) -> str:
        """The page's address, with this run's token."""
        return f"http://{HOST}:{self.server_port}/?token={self.token}"

    def token_matches(self, given: str) -> bool:
        return hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode())

    def log(self, text: str) -> None:
        print(f"domino table: {text}", file=sys.stderr, flush=True)

    # ------------------------------------------------------------------ arrival (the reception thread)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Called by ``serve_forever`` for each accepted connection: hand it to the reception."""
        request.setblocking(False)
        self.inbox.put((request, client_address))
        self.wake()

    def wake(self) -> None:
        with suppress(OSError):  # BlockingIOError: already awake; else closing
            self.wake_out.send(b"\0")

    def receive(self) -> None:
        """Read every arriving request without blocking; hand each complete one to a worker,
        and close those not complete within ``Handler.timeout`` seconds of connecting."""
        while not self.closing:
            now = time.monotonic()
            first = next(iter(self.arriving.values()), None)
            wait = None if first is None else max(0.0, first.deadline - now)
            for key, _ in self.selector.select(wait):
                if key.fileobj is self.wake_in:
                    self.admit()
                else:
                    try:
                        self.read(key.fileobj)  # type: ignore[arg-type]
                    except Exception as error:  # never let one connection stop the reception
                        self.log(f"dropped a connection: {type(error).__name__}: {error}")
                        if key.fileobj in self.arriving:
                            self.drop(key.fileobj)  # type: ignore[arg-type]
            now = time.monotonic()
            while self.arriving:
                connection, arrival = next(iter(self.arriving.items()))
                if arrival.deadline > now:
                    break
                self.drop(connection, HTTPStatus.REQUEST_TIMEOUT, "the request did not arrive in time")

    def admit(self) -> None:
        with suppress(OSError):
            while self.wake_in.recv(4096):
                pass
        while True:
            try:
                connection, address = self.inbox.get_nowait()
            except queue.Empty:
                return
            if len(self.arriving) + self.answering >= MAX_CONNECTIONS:
                if not self.arriving:
                    self.shutdown_request(connection)
                    continue
                self.drop(next(iter(self.arriving)), HTTPStatus.SERVICE_UNAVAILABLE, "too many connections")
            self.arriving[connection] = Arrival(address, time.monotonic() + self.RequestHandlerClass.timeout)
            self.selector.register(connection, selectors.EVENT_READ)

    def read(self, connection: socket.socket) -> None:
        arrival = self.arriving.get(connection)
        if arrival is None:  # dropped for a newer connection since the selector saw it
            return
        try:
            data = connection.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            self.drop(connection)
            return
        arrival.data += data
        if not data:  # the client closed its side: answer what came (a short body is refused)
            if arrival.data:
                self.hand_over(connection, arrival)
            else:
                self.drop(connection)
        elif arrival.complete():
            self.hand_over(connection, arrival)
        elif HEAD_END.search(arrival.data) is None and len(arrival.data) > MAX_HEAD:
            self.drop(connection, HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, f"headers over {MAX_HEAD} bytes")

    def drop(self, connection: socket.socket, status: HTTPStatus | None = None, reason: str = "") -> None:
        """Stop waiting for a request: say why in a few bytes (never blocking), and close."""
        self.selector.unregister(connection)
        del self.arriving[connection]
        if status is not None:
            body = json.dumps({"error": reason}).encode()
            head = f"HTTP/1.0 {status.value} {status.phrase}\r\nContent-Type: application/json\r\n"
            with suppress(OSError):
                connection.send(head.encode() + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        self.shutdown_request(connection)

    def hand_over(self, connection: socket.socket, arrival: Arrival) -> None:
        self.selector.unregister(connection)
        del self.arriving[connection]
        connection.setblocking(True)
        with self.count_lock:
            self.answering += 1
        self.workers.submit(self.answer, connection, arrival.address, bytes(arrival.data))

    # ------------------------------------------------------------------ answer (a worker thread)

    def answer(self, connection: socket.socket, address: tuple[str, int], received: bytes) -> None:
        try:
            if not self.closing:
                self.finish_request((connection, received), address)
        except Exception:
            self.handle_error(connection, address)
        finally:
            self.shutdown_request(connection)
            with self.count_lock:
                self.answering -= 1

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (or stopped reading) mid-answer is one line, not a traceback."""
        error = sys.exc_info()[1]
        if isinstance(error, (BrokenPipeError, ConnectionResetError, TimeoutError)):
            where = f"{client_address[0]}:{client_address[1]}" if isinstance(client_address, tuple) else "a client"
            self.log(f"{where} went away before its answer was sent ({type(error).__name__})")
        else:
            super().handle_error(request, client_address)

    def server_close(self) -> None:
        """Stop listening, close the connections still arriving, and let the workers finish the
        answers under way (each bounded: agents' thinking is). Closing twice does nothing more."""
        super().server_close()
        if self.closing:
            return
        self.closing = True
        self.wake()
        self.reception.join()
        for connection in list(self.arriving):
            self.drop(connection)
        while True:
            try:
                self.shutdown_request(self.inbox.get_nowait()[0])
            except queue.Empty:
                break
        self.workers.shutdown(wait=True)
        self.selector.close()
        self.wake_in.close()
        self.wake_out.close()


SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(value: Any) -> str:
    """``value`` as JSON that is safe inside a page's ``<script>``: no character of it can close
    the tag, open a comment or end a line of JavaScript, whatever names or paths it holds."""
    text = json.dumps(value)
    for character, escaped in SCRIPT_ESCAPES.items():
        text = text.replace(character, escaped)
    return text


def make_server(load_policy: PolicyLoader, defaults: dict[str, Any], port: int = 0,
                save_games: str | Path | None = None) -> PlayServer:  # fmt: skip
    """A server on 127.0.0.1 (``port`` 0: any free port; read it from ``server.server_port``,
    and the page's address, token included, from ``server.url``); ``save_games``: the folder
    finished games are kept in (None: not kept)."""
    return PlayServer(Lobby(load_policy, defaults, save_games), port)


def serve(game: Game, policy: str, load_policy: Callable[..., Agent], seat: int, watch: bool, seed: int,
          port: int, save_games: str | Path | None = None) -> None:  # fmt: skip
    """Serve the page until Ctrl-C; its form starts with this game, policy and seat (and a
    practice deal of ``seed`` when it is not 0: else the server deals in secret). Finished
    games are kept in ``save_games`` (None: not kept)."""
    changed = {key: value for key, value in game.options.items() if value != type(game).defaults.get(key)}
    options = {"num_players": game.num_players, **changed}
    defaults = {
        "variant": game.name,
        "options": options,
        "opponent": policy,
        "seat": None if watch else seat,
        "seed": seed or None,
    }
    try:
        server = make_server(offered_policies(load_policy, policy), defaults, port, save_games)
    except (OSError, OverflowError) as error:  # the port is taken, or not a port
        raise SystemExit(f"error: cannot serve on {HOST}:{port} ({error}); choose another --port") from None
    print(f"domino table at {server.url}  (Ctrl-C to stop)", flush=True)
    print("open that address as printed: its token is this run's password, for this user only", flush=True)
    if save_games:
        print(f"finished games are kept in {Path(save_games).resolve()} (replay pages and games.jsonl)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
