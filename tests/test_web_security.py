"""The play server serves its user only, and many requests at once: requests from another name
or origin, or without the run's token, are refused and create nothing (a hostile page in a real
browser included); a slow agent holds up its own game only; a burst of games and hundreds of
idle connections leave it answering at once; half-sent requests are closed; clients that go
away cost a log line; a client's seed never replays a game the server dealt; and the policy
named on the command line is offered by the page (and no other file)."""

from __future__ import annotations

import http.client
import http.server
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agents import RandomAgent, make_agent
from arena.web import server as web
from arena.web.server import MAX_DEPTH, WORKERS, Handler, PlayServer, make_server

SLOW = {"slow": 2.0, "sluggish": 0.6}  # seconds an agent of that name thinks per move
DRAW = {"variant": "draw", "options": {"num_players": 2}, "opponent": "random"}
CHROMIUM = Path("/usr/bin/chromium")


class SlowAgent(RandomAgent):
    """A random agent that thinks for a while: ``started`` is set when it begins a move."""

    def __init__(self, game, seconds: float) -> None:
        super().__init__(game, seed=0)
        self.seconds = seconds
        self.started = threading.Event()

    def act_states(self, game, state, games):
        self.started.set()
        time.sleep(self.seconds)
        return super().act_states(game, state, games)


class Loader:
    """The server's policy loader: built-in agents, and slow ones whose instances it keeps."""

    def __init__(self) -> None:
        self.slow: list[SlowAgent] = []

    def __call__(self, name: str, game, seed: int):
        if name in SLOW:
            self.slow.append(SlowAgent(game, SLOW[name]))
            return self.slow[-1]
        return make_agent(name, game, seed=seed)


@contextmanager
def running(timeout: float | None = None, defaults: dict | None = None, loader=None) -> Iterator[PlayServer]:
    """A play server on a free port of 127.0.0.1, its handler's read timeout ``timeout``."""
    server = make_server(loader or Loader(), defaults or {})
    if timeout is not None:
        server.RequestHandlerClass = type("QuickHandler", (Handler,), {"timeout": timeout})
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture(scope="module")
def server() -> Iterator[PlayServer]:
    with running() as server:
        yield server


def request(
    server: PlayServer, method: str, path: str, body: object = None, headers: dict | None = None, token: bool = True
) -> tuple[int, bytes]:
    """One request, the headers as given (``Host`` too, when named); (status, body)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=30)
    sent = {"Content-Type": "application/json"} | ({"X-Token": server.token} if token else {}) | (headers or {})
    try:
        connection.request(method, path, None if body is None else json.dumps(body).encode(), sent)
        answer = connection.getresponse()
        return answer.status, answer.read()
    finally:
        connection.close()


def api(server: PlayServer, path: str, body: object, **options) -> tuple[int, dict]:
    status, data = request(server, "POST", path, body, **options)
    return status, json.loads(data)


def new_game(server: PlayServer, **fields) -> dict:
    status, view = api(server, "/api/new", DRAW | {"seat": 0} | fields)
    assert status == 200, view
    return view


# ------------------------------------------------------------------------------ only its user


def test_foreign_names_origins_and_missing_tokens_are_refused_and_create_nothing(server: PlayServer) -> None:
    port = server.server_port
    before = len(server.lobby.sessions)
    for headers, token, words in [
        ({"Host": f"rebound.example:{port}"}, True, "Host"),  # DNS rebinding: the attacker's name
        ({"Host": f"127.0.0.1:{port + 1}"}, True, "Host"),
        ({"Host": ""}, True, "Host"),
        ({"Origin": "http://evil.example"}, True, "Origin"),
        ({"Origin": f"http://127.0.0.1:{port + 1}"}, True, "Origin"),  # another local server's page
        ({"Origin": "null"}, True, "Origin"),  # a sandboxed frame, a file
        ({}, False, "X-Token"),
        ({"X-Token": server.token[:-1] + "x"}, False, "X-Token"),
        ({"X-Token": ""}, False, "X-Token"),
    ]:
        status, answer = api(server, "/api/new", DRAW | {"seat": None}, headers=headers, token=token)
        assert status == 403 and words in answer["error"], (headers, answer)
    status, answer = api(server, f"/api/new?token={server.token}", DRAW, token=False)  # a header, not the URL
    assert status == 403
    assert len(server.lobby.sessions) == before

    for path, headers, status in [
        (f"/?token={server.token}", {"Host": f"rebound.example:{port}"}, 403),
        ("/", {}, 403),
        ("/?token=wrong", {}, 403),
        (f"/?token={server.token}", {}, 200),
        (f"/?token={server.token}", {"Host": f"LOCALHOST:{port}"}, 200),
    ]:
        got, page = request(server, "GET", path, headers=headers, token=False)
        assert got == status, (path, headers, page[:200])
        assert (server.token.encode() in page) == (status == 200)  # the token is only in its own page
    same = {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"}
    assert api(server, "/api/new", DRAW | {"seat": None}, headers=same)[0] == 200


HOSTILE_PAGE = """<!doctype html><meta charset="utf-8"><title>free dominoes</title><script>
const target = "TARGET";
const body = JSON.stringify({variant: "draw", opponent: "random", seat: null, options: {num_players: 2}});
async function attempt(label, options) {
  try { const answer = await fetch(target, options); return label + ": " + answer.type + " " + answer.status; }
  catch (error) { return label + ": failed " + error.message; }
}
(async () => {
  window.results = [
    await attempt("simple", {method: "POST", body}),
    await attempt("no-cors", {method: "POST", body, mode: "no-cors", credentials: "include"}),
    await attempt("json", {method: "POST", body, headers: {"Content-Type": "application/json"}}),
    await attempt("token", {method: "POST", body, headers: {"Content-Type": "application/json", "X-Token": "guess"}}),
  ];
})();
</script>"""


class Recording(Handler):
    """The play server's handler, noting the Origin of each POST it was sent."""

    origins: list[str | None]

    def do_POST(self) -> None:
        self.origins.append(self.headers.get("Origin"))
        super().do_POST()


def test_a_hostile_page_in_a_real_browser_creates_no_game() -> None:
    if not CHROMIUM.exists():
        pytest.fail(f"the browser tests need Debian's chromium at {CHROMIUM}: run `make browser`")
    from playwright.sync_api import sync_playwright

    with running() as server:
        origins: list[str | None] = []
        server.RequestHandlerClass = type("Recorded", (Recording,), {"origins": origins})
        port = server.server_port
        page_bytes = HOSTILE_PAGE.replace("TARGET", f"http://127.0.0.1:{port}/api/new").encode()

        class Hostile(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page_bytes)))
                self.end_headers()
                self.wfile.write(page_bytes)

            def log_message(self, *args) -> None:
                pass

        hostile = http.server.HTTPServer(("127.0.0.1", 0), Hostile)
        threading.Thread(target=hostile.serve_forever, daemon=True).start()
        try:
            with sync_playwright() as playwright:
                rules = "--host-resolver-rules=MAP rebound.test 127.0.0.1"  # DNS rebinding, simulated
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", rules])
                page = browser.new_page()
                page.goto(f"http://127.0.0.1:{hostile.server_port}/")
                page.wait_for_function("window.results !== undefined", timeout=15_000)
                results = page.evaluate("window.results")
                # after rebinding, the attacker's page is same-origin with the server, under its own name
                answer = page.goto(f"http://rebound.test:{port}/")
                assert answer is not None and answer.status == 403
                rebound = page.evaluate(
                    """fetch("/api/new", {method: "POST", headers: {"Content-Type": "application/json"},
                                          body: JSON.stringify({variant: "draw", opponent: "random"})})
                         .then((answer) => answer.status)"""
                )
                browser.close()
        finally:
            hostile.shutdown()
            hostile.server_close()
        assert not server.lobby.sessions, results  # nothing was created
        assert rebound == 403
        assert f"http://127.0.0.1:{hostile.server_port}" in origins  # the requests came, and were refused
        assert results[0].startswith("simple: failed") and results[1] == "no-cors: opaque 0", results
        assert results[2].startswith("json: failed") and results[3].startswith("token: failed"), results  # preflight


# ------------------------------------------------------------------------------ many at once


def test_a_slow_agent_holds_up_only_its_own_game(server: PlayServer) -> None:
    slow = new_game(server, opponent="slow", seat=None)  # watching: nobody has moved yet
    agent = server.lobby.load_policy.slow[-1]
    answers: list[tuple[int, dict]] = []
    thinking = threading.Thread(target=lambda: answers.append(api(server, "/api/advance", slow)))
    thinking.start()
    assert agent.started.wait(10)
    began = time.monotonic()
    other = new_game(server)
    status, moved = api(server, "/api/move", {"game": other["game"], "step": other["step"],
                                               "action": other["legal"][0]["name"]})  # fmt: skip
    busy, answer = api(server, "/api/advance", slow)  # the slow game itself answers at once too
    took = time.monotonic() - began
    thinking.join(10)
    assert status == 200 and moved["step"] > other["step"]
    assert busy == 409 and "still thinking" in answer["error"]
    assert took < 1.0, f"another game waited {took:.2f}s on a thinking agent"
    assert answers[0][0] == 200 and answers[0][1]["step"] == 1


def half_open(port: int, count: int) -> list[socket.socket]:
    """``count`` connections that each send part of a request and then wait."""
    partial = f"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 200\r\n\r\n{{".encode()
    sockets = []
    try:
        for _ in range(count):
            sockets.append(socket.create_connection(("127.0.0.1", port), timeout=5))
            sockets[-1].sendall(partial)
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def test_a_burst_of_games_and_idle_connections_leave_the_server_answering() -> None:
    with running() as server:
        threads_before = threading.active_count()
        idle = half_open(server.server_port, 300)
        try:
            deadline = time.monotonic() + 5
            while len(server.arriving) < 300 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert len(server.arriving) == 300  # all held, none answered, no thread each
            start = threading.Barrier(51)
            answers: list[int] = []

            def play() -> None:
                start.wait(10)
                answers.append(api(server, "/api/new", DRAW | {"seat": 0})[0])

            burst = [threading.Thread(target=play) for _ in range(50)]
            for thread in burst:
                thread.start()
            start.wait(10)
            threads_during = threading.active_count()
            began = time.monotonic()
            status, page = request(server, "GET", f"/?token={server.token}", token=False)
            took = time.monotonic() - began
            for thread in burst:
                thread.join(30)
            assert status == 200 and b"choices" in page
            assert took < 2.0, f"a request waited {took:.2f}s behind a burst and idle connections"
            assert answers == [200] * 50
            assert threads_during - threads_before <= 50 + WORKERS + 1  # the burst's own 50, and the pool
            assert len(server.arriving) == 300  # still waiting, and harmless
        finally:
            for sock in idle:
                sock.close()
        deadline = time.monotonic() + 5
        while server.arriving and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not server.arriving  # closed by their clients: forgotten


def read_all(sock: socket.socket) -> bytes:
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass
    return data


def test_half_sent_and_malformed_requests_are_closed_or_refused() -> None:
    with running(timeout=1.0) as server:
        port = server.server_port
        head = f"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Token: {server.token}\r\n"
        head += "Content-Type: application/json\r\n"
        began = time.monotonic()
        silent, trickle = half_open(port, 1)[0], socket.create_connection(("127.0.0.1", port), timeout=5)
        closed = None
        for byte in head.encode()[:20]:  # a byte at a time: the deadline counts from connecting, not idling
            try:
                trickle.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                closed = time.monotonic() - began
                break
            time.sleep(0.2)
        assert closed is not None and closed < 2.5, closed
        assert read_all(silent).startswith(b"HTTP/1.0 408")
        silent.close()
        trickle.close()

        def answer_to(data: bytes, half_close: bool = True) -> bytes:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                sock.sendall(data)
                if half_close:
                    sock.shutdown(socket.SHUT_WR)
                return read_all(sock)

        body = json.dumps(DRAW).encode()
        assert b" 400 " in answer_to(head.encode() + b"Content-Length: 900\r\n\r\n" + body)  # body shorter
        assert b" 400 " in answer_to(head.encode() + b"Content-Length: 12\r\n\r\n" + body)  # body longer
        assert b" 400 " in answer_to(head.encode() + b"Content-Length: twelve\r\n\r\n" + body, half_close=False)
        assert b" 400 " in answer_to(head.encode() + b"Content-Length: 99999999\r\n\r\n", half_close=False)
        assert b" 431 " in answer_to(head.encode() + b"X-Padding: " + b"a" * 20_000, half_close=False)
        nested = b"[" * 20_000 + b"]" * 20_000
        assert b"nests too deeply" in answer_to(
            head.encode() + f"Content-Length: {len(nested)}\r\n\r\n".encode() + nested
        )
        deep = json.dumps(DRAW | {"options": json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)}).encode()
        assert b"nests deeper" in answer_to(head.encode() + f"Content-Length: {len(deep)}\r\n\r\n".encode() + deep)
        plain = head.replace("application/json", "text/plain").encode()
        assert b" 415 " in answer_to(plain + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        assert not server.lobby.sessions
        assert b" 200 " in answer_to(head.encode() + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)


def test_a_client_gone_mid_answer_costs_one_log_line(server: PlayServer, capsys: pytest.CaptureFixture) -> None:
    game = new_game(server, opponent="sluggish", seat=None)
    agent = server.lobby.load_policy.slow[-1]
    body = json.dumps({"game": game["game"], "step": 0}).encode()
    head = (
        f"POST /api/advance HTTP/1.1\r\nHost: 127.0.0.1:{server.server_port}\r\nX-Token: {server.token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    sock = socket.create_connection(("127.0.0.1", server.server_port))
    sock.sendall(head.encode() + body)
    assert agent.started.wait(10)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # reset on close
    sock.close()
    err = ""
    deadline = time.monotonic() + 10
    while "went away" not in err and time.monotonic() < deadline:
        time.sleep(0.05)
        err += capsys.readouterr().err
    assert "went away before its answer was sent" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert new_game(server)["svg"]  # and it serves on


# ------------------------------------------------------------------------------ deals


def hands(server: PlayServer, view: dict) -> list:
    session = server.lobby.sessions[view["game"]]
    return session.game.scene(session.state, 0)[-session.game.num_players :]


def test_no_seed_a_client_sends_replays_a_game_the_server_dealt(
    server: PlayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = new_game(server, seat=None)  # the game a person plays, dealt by the server
    assert secret["practice"] is None
    guesses = [new_game(server, seat=None, seed=seed) for seed in range(10)] + [new_game(server, seat=None)]
    assert all(hands(server, guess) != hands(server, secret) for guess in guesses)
    # a practice deal is the client's own: the same seed, the same deal, marked as practice
    again = new_game(server, seat=None, seed=7)
    assert again["practice"] == 7 and hands(server, again) == hands(server, guesses[7])
    # even random bits a client guessed right do not name the server's deal: the two ranges never meet
    monkeypatch.setattr(web.secrets, "randbits", lambda bits: 7)
    guessed = new_game(server, seat=None)
    assert guessed["practice"] is None and hands(server, guessed) != hands(server, guesses[7])
    assert api(server, "/api/new", DRAW | {"seed": 2**63 + 7})[0] == 400


# ------------------------------------------------------------------------------ opponents


def test_the_policy_named_on_the_command_line_is_offered_and_no_other_file() -> None:
    from arena.cli import load_policy

    named = "training/pretrained/draw_2p"  # a checkpoint folder by path, as `play runs/x --web` names one
    defaults = {"variant": "draw", "options": {"num_players": 2}, "opponent": named, "seat": 0, "seed": None}
    with running(defaults=defaults, loader=web.offered_policies(load_policy, named)) as server:
        page = request(server, "GET", f"/?token={server.token}", token=False)[1].decode()
        choices = json.loads(page.split('id="choices">')[1].split("</script>")[0])
        assert choices["pretrained"][named] == {"variant": "draw", "options": {"num_players": 2}}
        assert new_game(server, opponent=named)["your_turn"]
        assert new_game(server, opponent="draw_2p")["your_turn"]  # shipped ones stay offered
        for other in ["training/pretrained/block_2p", "/etc/passwd", "../draw_2p"]:
            status, answer = api(server, "/api/new", DRAW | {"opponent": other})
            assert status == 400 and "not offered" in answer["error"], answer
    with running(defaults=defaults | {"opponent": "pimc:simulations=40"}) as server:
        assert "pimc:simulations=40" in server.lobby.choices()["agents"]


def test_names_embedded_in_the_page_cannot_close_its_script() -> None:
    from arena.web.server import script_json

    hostile = {"policy": "</script><script>alert(1)</script>", "path": "a&b<!--", "line": "x\u2028y"}
    text = script_json(hostile)
    assert not any(character in text for character in "<>&\u2028\u2029")
    assert json.loads(text) == hostile
