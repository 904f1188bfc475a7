"""What the server answers, and to whom: the page (``GET /?token=...``), the JSON interface
(``POST /api/...``, routed to the :class:`~arena.web.lobby.Lobby`), and the checks every request
passes first: the ``Host`` and ``Origin`` name this server, the run's token comes with it, and
the body is a JSON object of bounded size and nesting (:mod:`arena.web.server` says why each).

Every answer carries headers that keep the page to itself: not cached, not framed, no referrer
(its address holds the token), and a content policy that lets it call only its own server.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

from arena.web.fields import MAX_DEPTH, RequestError, nesting, refuse_constant
from arena.web.lobby import Lobby
from arena.web.reception import MAX_BODY, Received

PAGE = Path(__file__).parent / "play.html"
PAGE_TEXT = PAGE.read_text()  # read once: every page load fills in the same template


class Door(Protocol):
    """What a :class:`Handler` needs of its server (:class:`arena.web.server.PlayServer`): the
    lobby it answers for, and the token and names that say a request is its user's."""

    lobby: Lobby
    token: str
    hosts: set[str]
    origins: set[str]

    @property
    def url(self) -> str: ...

    def token_matches(self, given: str) -> bool: ...


class Handler(Received):
    """GET / for the page (with the token); POST /api/... with a JSON body and the token.

    It is given a request that has fully arrived (the server's reception reads it first), so it
    reads from memory; ``timeout`` bounds both that arrival and the sending of the answer."""

    server: Door  # a PlayServer (an HTTPServer too)
    routes = {"/api/new": Lobby.new, "/api/move": Lobby.move, "/api/advance": Lobby.advance, "/api/view": Lobby.see}

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
        self.send_body(HTTPStatus.OK, PAGE_TEXT.replace("__CHOICES_JSON__", text).encode(), "text/html")

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


SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(value: Any) -> str:
    """``value`` as JSON that is safe inside a page's ``<script>``: no character of it can close
    the tag, open a comment or end a line of JavaScript, whatever names or paths it holds."""
    text = json.dumps(value)
    for character, escaped in SCRIPT_ESCAPES.items():
        text = text.replace(character, escaped)
    return text
