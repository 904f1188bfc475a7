"""The play server's interface: games, moves, agents' answers, and every bad request refused
with a clear error and no change."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from agents import RandomAgent, make_agent
from arena.web.server import MAX_GAMES, PlayServer, make_server


def loader(name: str, game, seed: int):
    return make_agent(name, game, seed=seed)


@dataclass(frozen=True)
class Site:
    """A running play server: its address and this run's token (sent as ``X-Token``)."""

    base: str
    token: str
    server: PlayServer | None = None

    @property
    def page(self) -> str:
        return f"{self.base}/?token={self.token}"


def serving(server: PlayServer) -> Site:
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return Site(f"http://127.0.0.1:{server.server_port}", server.token, server)


@pytest.fixture(scope="module")
def url() -> Iterator[Site]:
    defaults = {"variant": "draw", "options": {"num_players": 2}, "opponent": "random", "seat": 0, "seed": None}
    server = make_server(loader, defaults)
    yield serving(server)
    server.shutdown()
    server.server_close()


def post(url: Site, path: str, body: object, raw: bytes | None = None, headers: dict | None = None) -> tuple[int, dict]:
    data = raw if raw is not None else json.dumps(body).encode()
    sent = {"Content-Type": "application/json", "X-Token": url.token} | (headers or {})
    request = urllib.request.Request(url.base + path, data=data, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def new_game(url: Site, **fields) -> dict:
    body = {"variant": "draw", "options": {"num_players": 2}, "opponent": "random", "seat": 0, "seed": 3} | fields
    status, view = post(url, "/api/new", body)
    assert status == 200, view
    return view


def test_the_page_is_served_with_the_choices(url: Site) -> None:
    with urllib.request.urlopen(url.page) as answer:
        page = answer.read().decode()
    choices = json.loads(page.split('id="choices">')[1].split("</script>")[0])
    assert choices["variants"] == ["draw", "block", "hungarian", "mexican_train"]
    assert "heuristic" in choices["agents"] and choices["pretrained"]["draw_2p"]["variant"] == "draw"
    assert choices["token"] == url.token  # the page sends it back with every call


@pytest.mark.parametrize(
    ("variant", "players", "seat"), [("draw", 2, 0), ("hungarian", 3, 1), ("mexican_train", 3, 2), ("block", 4, 3)]
)
def test_a_person_sees_only_their_own_hand_and_plays_a_whole_game(
    url: Site, variant: str, players: int, seat: int
) -> None:
    view = new_game(url, variant=variant, options={"num_players": players}, seat=seat)
    assert view["seat"] == seat
    while not view["over"]:
        assert view["your_turn"] and view["legal"]  # the agents answered at once
        svg = view["svg"]
        assert 'class="tile hand"' in svg and 'class="hidden-back"' in svg and "hidden-face" not in svg
        for action in view["legal"]:  # every legal play is a click on a hand tile, then on a target
            if action["tile"] is not None:
                assert f'class="tile hand" data-tile="{action["tile"]}"' in svg
                assert f'data-target="{action["target"]}"' in svg
        move = {"game": view["game"], "step": view["step"], "action": view["legal"][0]["name"]}
        status, view = post(url, "/api/move", move)
        assert status == 200, view
    assert not view["legal"] and not view["can_draw"] and not view["can_pass"]
    assert view["result"].startswith(view["hands"][-1]["sentence"])  # "You win: domino, 45 points", ...
    assert 'class="hidden-back"' not in view["svg"]  # every hand face up at the end
    hands = view["hands"][-1]["seats"]
    assert len(hands) == players and all(seat["tiles"] or seat["pips"] == 0 for seat in hands)


def refused(url: Site, path: str, body: object, status: int, words: str, raw: bytes | None = None) -> None:
    got, answer = post(url, path, body, raw)
    assert got == status and words in answer["error"], answer


def test_bad_requests_are_refused_and_change_nothing(url: Site) -> None:
    view = new_game(url, seed=5)
    game, step = view["game"], view["step"]
    legal = {a["name"] for a in view["legal"]}
    illegal = "pass" if "pass" not in legal else "draw"
    refused(url, "/api/move", {"game": game, "step": step, "action": illegal}, 400, f"illegal move {illegal!r}")
    refused(url, "/api/move", {"game": game, "step": step, "action": "play 9-9 on left"}, 400, "names no action")
    refused(url, "/api/move", {"game": game, "step": step + 1, "action": view["legal"][0]["name"]}, 409, "stale")
    refused(url, "/api/move", {"game": "nope", "step": step, "action": "pass"}, 404, "no game 'nope'")
    refused(url, "/api/move", {"game": game, "step": "0", "action": "pass"}, 400, "'step' must be a int")
    refused(url, "/api/move", {"game": game, "step": step}, 400, "no 'action'")
    refused(url, "/api/move", None, 400, "not JSON", raw=b"{not json")
    refused(url, "/api/move", [1, 2], 400, "must be a JSON object")
    refused(url, "/api/move", None, 400, "nests too deeply", raw=b"[" * 30_000 + b"]" * 30_000)
    refused(url, "/api/move", {"game": game, "step": step, "x": [[[[[[[[[[1]]]]]]]]]]}, 400, "nests deeper")
    refused(url, "/api/move", None, 400, "not JSON", raw=b'{"step": NaN}')
    refused(url, "/api/move", None, 400, "not JSON", raw=b'{"step": ' + b"9" * 5000 + b"}")
    refused(url, "/api/new", {"variant": "draw", "opponent": "random", "seed": -1}, 400, "seed must be")
    refused(url, "/api/new", {"variant": "draw", "opponent": "random", "seed": 2**63}, 400, "seed must be")
    refused(url, "/api/advance", {"game": game, "step": step}, 409, "your turn")
    refused(url, "/api/nothing", {}, 404, "no interface")
    refused(url, "/api/new", {"variant": "chess", "opponent": "random"}, 400, "unknown variant 'chess'")
    refused(
        url, "/api/new", {"variant": "draw", "options": {"num_players": 11}, "opponent": "random"}, 400, "num_players"
    )
    refused(url, "/api/new", {"variant": "draw", "opponent": "nobody"}, 400, "unknown agent 'nobody'")
    refused(url, "/api/new", {"variant": "draw", "opponent": "random", "seat": 2}, 400, "seat must be 0..1")
    status, after = post(url, "/api/move", {"game": game, "step": step, "action": view["legal"][0]["name"]})
    assert status == 200 and after["step"] > step  # the game was where it was


def test_watching_agents_moves_one_step_per_request(url: Site) -> None:
    view = new_game(url, seat=None, variant="mexican_train", options={"num_players": 3})
    assert view["seat"] is None and view["step"] == 0 and 'class="hidden-back"' not in view["svg"]
    refused(url, "/api/move", {"game": view["game"], "step": 0, "action": "draw"}, 409, "nobody plays")
    status, after = post(url, "/api/advance", {"game": view["game"], "step": 0})
    assert status == 200 and after["step"] == 1 and len(after["log"]) == 1
    refused(url, "/api/advance", {"game": view["game"], "step": 0}, 409, "stale")


def test_old_games_are_forgotten(url: Site) -> None:
    first = new_game(url)
    for _ in range(MAX_GAMES):
        new_game(url)
    refused(url, "/api/advance", {"game": first["game"], "step": first["step"]}, 404, "no game")


def test_play_web_prints_its_address_and_serves_the_page() -> None:
    command = [sys.executable, "-m", "training", "play", "draw_2p", "--web", "--port", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("domino table at http://127.0.0.1:"), line
        address = line.split()[3]
        assert "/?token=" in address and len(address.split("=")[1]) >= 43  # 32 random bytes
        with urllib.request.urlopen(address) as answer:
            assert answer.status == 200 and b"draw_2p" in answer.read()
        with pytest.raises(urllib.error.HTTPError) as refusal:  # the page without the token
            urllib.request.urlopen(address.split("?")[0])
        assert refusal.value.code == 403 and b"address the server printed" in refusal.value.read()
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_terminal_play_watches_a_stateful_agent(capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli import main

    main(["play", "heuristic", "--variant", "hungarian", "--watch", "--seed", "1"])
    assert "Hungarian Dominoes · hand 1 · over" in capsys.readouterr().out


def test_a_failing_agent_is_reported_and_the_server_keeps_serving() -> None:
    class Broken(RandomAgent):
        def act_states(self, game, state, games):
            raise RuntimeError("the network file is damaged")

    server = make_server(lambda name, game, seed: Broken(game) if name == "broken" else loader(name, game, seed), {})
    address = serving(server)
    try:
        status, answer = post(address, "/api/new", {"variant": "draw", "opponent": "broken", "seat": None})
        assert status == 200
        refused(address, "/api/advance", {"game": answer["game"], "step": 0}, 500, "the network file is damaged")
        assert new_game(address)["svg"]
    finally:
        server.shutdown()
        server.server_close()


def opponents_tiles(url: Site, view: dict, seat: int) -> list[str]:
    """The tiles the other seats hold now, read from the server's own record."""
    session = url.server.lobby.sessions[view["game"]]
    hands = session.game.scene(session.state, 0)[-session.game.num_players :]
    return [f"{a}-{b}" for s, hand in enumerate(hands) if s != seat for a, b in hand]


@pytest.mark.parametrize(("variant", "players"), [("draw", 2), ("mexican_train", 3), ("hungarian", 2)])
def test_hidden_hands_stay_hidden_until_the_hand_is_over(url: Site, variant: str, players: int) -> None:
    view = new_game(url, variant=variant, options={"num_players": players}, seed=None)
    while not view["over"]:
        hidden = opponents_tiles(url, view, 0)
        assert view["hands"] == [] and hidden
        shown = [t.split('"')[0] for t in view["svg"].split('class="tile hand" data-tile="')[1:]]
        assert shown == [f"{a}-{b}" for a, b in url_hands(url, view)[0]]  # the person's own hand, and no other
        # every field but the picture and the invitation links (random URL-safe tokens, where
        # "u1-5y" is as likely as any other run of characters)
        rest = json.dumps({key: value for key, value in view.items() if key not in ("svg", "links")})
        for tile in hidden:  # no opponent's tile in any other field either
            assert not re.search(rf"(?<![0-9]){tile}(?![0-9])", rest), tile
        move = {"game": view["game"], "step": view["step"], "action": view["legal"][0]["name"]}
        status, view = post(url, "/api/move", move)
        assert status == 200, view
    last = view["hands"][-1]
    assert [len(seat["tiles"]) for seat in last["seats"]] == [len(h) for h in url_hands(url, view)]
    for seat, hand in enumerate(url_hands(url, view)):  # every hand face up now
        assert last["seats"][seat]["tiles"] == [f"{a}-{b}" for a, b in hand]
        for a, b in hand:
            assert f'class="tile hand" data-tile="{a}-{b}"' in view["svg"]
    assert 'class="hidden-back"' not in view["svg"]


def url_hands(url: Site, view: dict) -> list:
    session = url.server.lobby.sessions[view["game"]]
    return session.game.scene(session.state, 0)[-session.game.num_players :]


def test_several_people_each_with_their_seat_s_key(url: Site) -> None:
    status, view = post(url, "/api/new", {"variant": "draw", "options": {"num_players": 3}, "opponent": "random",
                                          "people": [0, 2]})  # fmt: skip
    assert status == 200 and view["people"] == [0, 2] and view["seat"] == 0
    links = view["links"]
    keys = {int(seat): link.split("&key=")[1] for seat, link in links.items()}
    assert set(keys) == {0, 2} and keys[0] == view["key"] and keys[0] != keys[2] and len(keys[2]) >= 32
    assert all(link.startswith(f"{url.base}/?token={url.token}&game={view['game']}&") for link in links.values())
    game = view["game"]
    refused(url, "/api/view", {"game": game}, 403, "send your seat's key")
    refused(url, "/api/view", {"game": game, "key": "guess"}, 403, "not one of this game's seats")
    refused(url, "/api/move", {"game": game, "step": view["step"], "action": "pass"}, 403, "send your seat's key")
    views = {seat: post(url, "/api/view", {"game": game, "key": key})[1] for seat, key in keys.items()}
    for seat, seen in views.items():
        assert seen["seat"] == seat and seen["names"][seat] == f"player_{seat} (you)"
        own = [f"{a}-{b}" for a, b in url_hands(url, seen)[seat]]
        shown = [t.split('"')[0] for t in seen["svg"].split('class="tile hand" data-tile="')[1:]]
        assert shown == own  # its own hand, and no other
    for _ in range(300):
        seen = post(url, "/api/view", {"game": game, "key": keys[0]})[1]
        if seen["over"]:
            break
        seat = seen["to_act"]
        assert seat in keys  # the agent has moved already
        body = {"game": game, "step": seen["step"], "key": keys[seat]}
        other = 2 - seat
        mover = post(url, "/api/view", {"game": game, "key": keys[seat]})[1]
        refused(url, "/api/move", body | {"key": keys[other], "action": mover["legal"][0]["name"]}, 409, "not yours")
        status, after = post(url, "/api/move", body | {"action": mover["legal"][0]["name"]})
        assert status == 200, after
    assert seen["over"] and 'class="hidden-back"' not in seen["svg"]


def test_finished_games_are_kept_as_replays(tmp_path) -> None:
    from arena.replay import read_html_data

    server = make_server(loader, {}, save_games=tmp_path / "games")
    site = serving(server)
    try:
        view = new_game(site, seat=None, variant="block", seed=4)
        while not view["over"]:
            status, view = post(site, "/api/advance", {"game": view["game"], "step": view["step"]})
            assert status == 200, view
        person = new_game(site, seed=5)
        while not person["over"]:
            move = {"game": person["game"], "step": person["step"], "action": person["legal"][0]["name"]}
            person = post(site, "/api/move", move)[1]
    finally:
        server.shutdown()
        server.server_close()
    lines = [json.loads(line) for line in (tmp_path / "games" / "games.jsonl").read_text().splitlines()]
    assert [line["variant"] for line in lines] == ["block", "draw"]
    assert lines[1]["seats"] == ["person", "random"] and lines[1]["people"] == [0] and lines[1]["seed"] == 5
    assert lines[1]["result"] and len(lines[1]["match_points"]) == 2 and person["saved"].endswith(lines[1]["file"])
    data = read_html_data(tmp_path / "games" / lines[1]["file"])
    assert len(data["frames"]) == person["step"] + 1 and "player_0 (person)" in data["title"]
