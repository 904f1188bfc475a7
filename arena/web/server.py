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

The modules, each with one job: :mod:`arena.web.reception` takes connections in and hands whole
requests to the workers; :mod:`arena.web.handler` checks who asks and answers the page and the
interface; :mod:`arena.web.lobby` keeps the games, deals and seats them and saves the finished
ones; :mod:`arena.web.table` is one game and what each seat sees of it; :mod:`arena.web.fields`
checks what a request holds. This module puts them together: :class:`PlayServer`,
:func:`make_server` and :func:`serve`.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.base import Agent
from arena.web.fields import MAX_DEPTH, RequestError
from arena.web.handler import PAGE, Handler, script_json
from arena.web.lobby import MAX_GAMES, Lobby, PolicyLoader, offered_policies, trained_policies_playable
from arena.web.reception import BACKLOG, MAX_BODY, MAX_CONNECTIONS, MAX_HEAD, WORKERS, Reception
from arena.web.table import HandResult, Session
from domino_env.game import Game

# The names this package's users import from here, wherever they live now.
__all__ = [
    "BACKLOG",
    "HOST",
    "MAX_BODY",
    "MAX_CONNECTIONS",
    "MAX_DEPTH",
    "MAX_GAMES",
    "MAX_HEAD",
    "PAGE",
    "WORKERS",
    "HandResult",
    "Handler",
    "Lobby",
    "PlayServer",
    "PolicyLoader",
    "RequestError",
    "Session",
    "make_server",
    "offered_policies",
    "script_json",
    "serve",
    "trained_policies_playable",
]

HOST = "127.0.0.1"


class PlayServer(Reception):
    """The play server: its lobby, its token, the names it answers to, and the reception (one
    thread that reads requests as they arrive, and a fixed pool of workers answering complete
    ones: see :mod:`arena.web.reception`)."""

    def __init__(self, lobby: Lobby, port: int = 0, workers: int = WORKERS) -> None:
        super().__init__((HOST, port), Handler, workers)
        self.lobby = lobby
        self.token = secrets.token_urlsafe(32)
        self.hosts = {f"127.0.0.1:{self.server_port}", f"localhost:{self.server_port}"}
        self.origins = {f"http://{host}" for host in self.hosts}

    @property
    def url(self) -> str:
        """The page's address, with this run's token."""
        return f"http://{HOST}:{self.server_port}/?token={self.token}"

    def token_matches(self, given: str) -> bool:
        return hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode())


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
