"""Play in the browser: a small local web server (the standard library's ``http.server``) with
one page and a JSON interface.

    python -m arena play draw_2p --web      # prints http://127.0.0.1:8000/

The page (``play.html``) draws the table with :mod:`domino_env.picture` as the person's seat
sees it: the other hands face down and absent from what is sent. A person plays by clicking a
tile of their hand and then, when it fits more than one place, a target (a line end or a train);
the agents answer at once. With no person seated, agents play each other one move per request.

The interface, every request a JSON object and every answer the table's view or
``{"error": ...}``:

    POST /api/new      {"variant", "options", "opponent", "seat" (null: watch), "seed"}
    POST /api/move     {"game", "step", "action"}   the person's action, by name
    POST /api/advance  {"game", "step"}             one agent move

A request that cannot be carried out (malformed, an illegal or out-of-turn move, an unknown game
id, a ``step`` that is not the game's latest) is answered with an error status and a message,
and changes nothing. Games are kept in memory, the most recent :data:`MAX_GAMES` of them.
"""

from __future__ import annotations

import importlib.util
import json
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np

from agents import AGENTS
from agents.base import Agent
from domino_env import VARIANTS, make_game
from domino_env.game import Game
from domino_env.games.core import PLAYING
from domino_env.picture import say_move, table_svg

PAGE = Path(__file__).parent / "play.html"
MAX_GAMES = 32
MAX_BODY = 64 * 1024
HOST = "127.0.0.1"
# What playing a trained policy needs beyond the core install: the ``train`` extra's torch and
# safetensors, and the yaml of the runs' configs (imported by ``training.checkpoint``).
TRAINED_POLICY_MODULES = ("torch", "safetensors", "yaml")

PolicyLoader = Callable[[str, Game, int], Agent]


class RequestError(ValueError):
    """A request the server refuses, with the HTTP status to answer."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Session:
    """One game in progress: the engine record, who sits where, and what happened."""

    id: str
    game: Game
    state: np.ndarray
    agents: list[Agent | None]  # None: the person's seat
    names: list[str]
    step: int = 0
    last_move: tuple[int, int] | None = None
    log: list[str] = field(default_factory=list)

    @property
    def person(self) -> int | None:
        seats = [seat for seat, agent in enumerate(self.agents) if agent is None]
        return seats[0] if seats else None

    @property
    def over(self) -> bool:
        return self.game.is_over(self.state, 0)

    def to_act(self) -> int:
        return self.game.current_seat(self.state, 0)

    def legal(self) -> list[int]:
        mask = np.zeros(self.game.num_actions, np.int8)
        self.game.legal_mask(self.state, 0, mask)
        return [int(a) for a in np.flatnonzero(mask)]

    def apply(self, action: int) -> None:
        """Play a legal ``action`` of the seat to act and note it."""
        seat = self.to_act()
        status = self.game.step(self.state, 0, action)
        self.step += 1
        self.last_move = (seat, action)
        self.log.append(say_move(self.game, self.names, seat, action))
        if status != PLAYING:
            points = self.game.hand_points(self.state, 0)
            self.log.append(
                "hand over · points " + ", ".join(f"{n} {p}" for n, p in zip(self.names, points, strict=True))
            )

    def agent_move(self) -> None:
        seat = self.to_act()
        agent = self.agents[seat]
        assert agent is not None, "the person's seat is not played by an agent"
        action = int(agent.act_states(self.game, self.state, np.zeros(1, np.int64))[0])
        if action not in self.legal():
            raise RuntimeError(f"{agent.name} chose illegal action {action}")
        self.apply(action)

    def agents_until_person(self) -> None:
        """Agents play until the person is to act or the game is over (watching: no moves)."""
        while self.person is not None and not self.over and self.to_act() != self.person:
            self.agent_move()

    def view(self) -> dict[str, Any]:
        """What the page shows: the table as the person's seat may see it (a spectator sees
        every hand), the person's legal actions by tile and target, and the recent moves."""
        person = self.person
        face_up: Any = "all" if person is None else {person}
        svg = table_svg(self.game, self.state, 0, face_up=face_up, names=self.names, last_move=self.last_move,
                        viewer=person)  # fmt: skip
        yours = person is not None and not self.over and self.to_act() == person
        legal = [describe(self.game.action_name(a)) for a in self.legal()] if yours else []
        return {
            "game": self.id,
            "step": self.step,
            "svg": svg,
            "variant": self.game.name,
            "seat": person,
            "your_turn": yours,
            "legal": legal,
            "over": self.over,
            "result": self.result() if self.over else "",
            "log": self.log[-12:],
        }

    def result(self) -> str:
        totals = self.game.match_points(self.state, 0)
        rewards = self.game.rewards(self.state, 0)
        return "game over · " + ", ".join(
            f"{name}: reward {reward:+.2f}, score {total}"
            for name, reward, total in zip(self.names, rewards, totals, strict=True)
        )


def describe(name: str) -> dict[str, str | None]:
    """An action name as the page's clicks see it: ``play 3-5 on left`` is tile ``3-5`` on
    target ``left`` (the words the picture's ``data-tile`` and ``data-target`` carry)."""
    if name.startswith("play "):
        tile, _, target = name[len("play ") :].partition(" on ")
        return {"name": name, "tile": tile, "target": target}
    return {"name": name, "tile": None, "target": None}


class Lobby:
    """The games in progress and how to start one; every method checks before it changes."""

    def __init__(self, load_policy: PolicyLoader, defaults: dict[str, Any]) -> None:
        self.load_policy = load_policy
        self.defaults = defaults
        self.sessions: OrderedDict[str, Session] = OrderedDict()
        self.lock = threading.Lock()

    def choices(self) -> dict[str, Any]:
        """What the page offers: variants, agents, shipped policies and the game they play."""
        pretrained = {}
        if trained_policies_playable():
            from training import checkpoint as ckpt

            for name in ckpt.pretrained_names():
                variant, options = ckpt.game_of_checkpoint(ckpt.resolve_checkpoint(name))
                pretrained[name] = {"variant": variant, "options": options}
        return {"variants": list(VARIANTS), "agents": list(AGENTS), "pretrained": pretrained, "defaults": self.defaults}

    def new(self, request: dict[str, Any]) -> dict[str, Any]:
        variant = field_of(request, "variant", str)
        if variant not in VARIANTS:
            raise RequestError(
                HTTPStatus.BAD_REQUEST, f"unknown variant {variant!r}; variants are {', '.join(VARIANTS)}"
            )
        options = field_of(request, "options", dict, default={})
        opponent = field_of(request, "opponent", str)
        seed = field_of(request, "seed", int, default=0)
        try:
            game = make_game(variant, **options)
            agent = self.load_policy(opponent, game, seed)
        except (ValueError, TypeError) as error:  # bad options, unknown or unfit policies
            raise RequestError(HTTPStatus.BAD_REQUEST, str(error)) from None
        seat = field_of(request, "seat", int, default=None)
        if seat is not None and not 0 <= seat < game.num_players:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"seat must be 0..{game.num_players - 1} or null to watch")
        agents: list[Agent | None] = [None if s == seat else agent for s in range(game.num_players)]
        names = [f"player_{s} ({'you' if s == seat else agent.name})" for s in range(game.num_players)]
        state = game.new_state(1)
        game.seed(state, 0, seed)
        game.start(state, 0)
        session = Session(uuid.uuid4().hex[:12], game, state, agents, names)
        session.agents_until_person()
        with self.lock:
            self.sessions[session.id] = session
            while len(self.sessions) > MAX_GAMES:
                self.sessions.popitem(last=False)
        return session.view()

    def move(self, request: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            session = self.current(request)
            name = field_of(request, "action", str)
            if session.person is None:
                raise RequestError(HTTPStatus.CONFLICT, "nobody plays in this game: agents play each other (advance)")
            if session.over:
                raise RequestError(HTTPStatus.CONFLICT, "the game is over: start a new one")
            if session.to_act() != session.person:
                raise RequestError(HTTPStatus.CONFLICT, f"it is {session.names[session.to_act()]}'s turn, not yours")
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
            return session.view()

    def advance(self, request: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            session = self.current(request)
            if session.over:
                raise RequestError(HTTPStatus.CONFLICT, "the game is over: start a new one")
            if session.to_act() == session.person:
                raise RequestError(HTTPStatus.CONFLICT, "it is your turn: the agents wait for your move")
            session.agent_move()
            return session.view()

    def current(self, request: dict[str, Any]) -> Session:
        """The session a request names, refused unless ``step`` is its latest."""
        game_id = field_of(request, "game", str)
        if game_id not in self.sessions:
            raise RequestError(HTTPStatus.NOT_FOUND, f"no game {game_id!r} here (finished long ago, or never started)")
        session = self.sessions[game_id]
        step = field_of(request, "step", int)
        if step != session.step:
            raise RequestError(
                HTTPStatus.CONFLICT, f"stale request: it answers move {step}, the game is at move {session.step}"
            )
        return session


def trained_policies_playable() -> bool:
    """Whether trained policies can be played here: not in a core-only install, where the page
    then offers the built-in agents only (and the server never imports torch)."""
    return all(importlib.util.find_spec(module) is not None for module in TRAINED_POLICY_MODULES)


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


class Handler(BaseHTTPRequestHandler):
    """GET / for the page; POST /api/... with a JSON body."""

    lobby: Lobby
    routes = {"/api/new": Lobby.new, "/api/move": Lobby.move, "/api/advance": Lobby.advance}

    def do_GET(self) -> None:
        if self.path == "/favicon.ico":
            self.send_body(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
            return
        if self.path.split("?")[0] != "/":
            self.send_json(HTTPStatus.NOT_FOUND, {"error": f"no page {self.path!r}: the game is at /"})
            return
        choices = json.dumps(self.lobby.choices()).replace("</", "<\\/")
        self.send_body(HTTPStatus.OK, PAGE.read_text().replace("__CHOICES_JSON__", choices).encode(), "text/html")

    def do_POST(self) -> None:
        route = self.routes.get(self.path)
        try:
            if route is None:
                raise RequestError(
                    HTTPStatus.NOT_FOUND, f"no interface {self.path!r}; there are {', '.join(self.routes)}"
                )
            self.send_json(HTTPStatus.OK, route(self.lobby, self.read_json()))
        except RequestError as error:
            self.send_json(error.status, {"error": str(error)})
        except Exception as error:  # an agent or checkpoint failing mid-game: say so, keep serving
            self.send_json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"{type(error).__name__}: {error}"})

    def read_json(self) -> dict[str, Any]:
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            raise RequestError(HTTPStatus.BAD_REQUEST, "Content-Length is not a number") from None
        if not 0 < length <= MAX_BODY:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"the request body must be JSON of 1 to {MAX_BODY} bytes")
        try:
            request = json.loads(self.rfile.read(length))
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"the request body is not JSON: {error}") from None
        if not isinstance(request, dict):
            raise RequestError(HTTPStatus.BAD_REQUEST, "the request body must be a JSON object")
        return request

    def send_json(self, status: HTTPStatus, body: dict[str, Any]) -> None:
        self.send_body(status, json.dumps(body).encode(), "application/json")

    def send_body(self, status: HTTPStatus, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the terminal shows the address, not every request


def make_server(load_policy: PolicyLoader, defaults: dict[str, Any], port: int = 0) -> ThreadingHTTPServer:
    """A server on 127.0.0.1 (``port`` 0: any free port; read it from ``server.server_port``)."""
    handler = type("BoundHandler", (Handler,), {"lobby": Lobby(load_policy, defaults)})
    return ThreadingHTTPServer((HOST, port), handler)


def serve(game: Game, policy: str, load_policy: Callable[..., Agent], seat: int, watch: bool, seed: int,
          port: int) -> None:  # fmt: skip
    """Serve the page until Ctrl-C; its form starts with this game, policy and seat."""
    changed = {key: value for key, value in game.options.items() if value != type(game).defaults.get(key)}
    options = {"num_players": game.num_players, **changed}
    defaults = {
        "variant": game.name,
        "options": options,
        "opponent": policy,
        "seat": None if watch else seat,
        "seed": seed,
    }
    try:
        server = make_server(lambda name, g, s: load_policy(name, g, seed=s), defaults, port)
    except (OSError, OverflowError) as error:  # the port is taken, or not a port
        raise SystemExit(f"error: cannot serve on {HOST}:{port} ({error}); choose another --port") from None
    print(f"domino table at http://{HOST}:{server.server_port}/  (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
