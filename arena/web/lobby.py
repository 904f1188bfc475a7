"""The lobby: the games in progress, how one is dealt and seated, the moves requests make in
them, and the finished games kept as replays.

Games do not wait on each other: each :class:`~arena.web.table.Session` has its own lock, held
while its agents think, and the lobby's table of games is locked only to look a game up or add
one. Deals the server makes are secret (see :mod:`arena.web.server`); a client's seed names only
a practice deal. The opponents a request may name are those :func:`offered_policies` lets
through, so a request cannot make the server read any other file as a checkpoint.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import secrets
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http import HTTPStatus
from pathlib import Path
from typing import Any

from agents import AGENTS
from agents.base import Agent
from arena.web.fields import RequestError, field_of, look_of
from arena.web.table import Session
from domino_env import VARIANTS, make_game
from domino_env.game import Game
from domino_env.picture.read import score_label

MAX_GAMES = 32
PRACTICE_SEEDS = 1 << 63  # a client's seed is 0..2**63-1; the server deals 2**63 and above
# What playing a trained policy needs beyond the core install: the ``train`` extra's torch and
# safetensors, and the yaml of the runs' configs (imported by ``training.checkpoint``).
TRAINED_POLICY_MODULES = ("torch", "safetensors", "yaml")
SEARCH_SUFFIX = "+search"  # agents.policy_search.SUFFIX, which imports torch

PolicyLoader = Callable[[str, Game, int], Agent]


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
        self.offered: dict[str, Any] | None = None  # what the page offers, once worked out

    def choices(self) -> dict[str, Any]:
        """What the page offers: variants, agents, shipped policies and the game they play, and
        the policy named on the command line (an agent with options, a checkpoint, a run).
        Worked out at the first page asked for: the shipped folder and the command line do not
        change while serving."""
        if self.offered is None:
            self.offered = self.work_out_choices()
        return self.offered

    def work_out_choices(self) -> dict[str, Any]:
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


@functools.cache
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
