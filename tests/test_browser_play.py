"""The play page as a player sees it, in Debian's chromium at a phone's width (412 px) and a
desktop's (1440 px): playable tiles raised and the rest dimmed, Draw and Pass only when legal, the
boneyard, scores named by what they mean, the result in words with every hand face up, a new deal
for each new game, the whole move log, names never clipped, numerals, no sideways scrolling, and
two people at one table, each seeing only their own hand."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from agents import make_agent
from arena.web.server import PlayServer, make_server
from tests.browser_helpers import CLIPPED, SERVER_WAIT_MS, no_sideways_scroll
from tests.test_browser import browser  # noqa: F401 (the module's chromium)

PHONE = {"width": 412, "height": 900}
DESKTOP = {"width": 1440, "height": 900}
SIZES = pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
LONG = "heuristic-with-a-long-name:rollouts=64"


def loader(name: str, game, seed: int):
    if name == "long":  # an agent whose name is long, to see that no label cuts it off
        agent = make_agent("greedy", game, seed=seed)
        agent.name = LONG
        return agent
    return make_agent(name, game, seed=seed)


@pytest.fixture(scope="module")
def server() -> Iterator[PlayServer]:
    defaults = {"variant": "draw", "options": {"num_players": 2}, "opponent": "greedy", "seat": 0, "seed": None}
    server = make_server(loader, defaults)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def open_page(browser: Browser, server: PlayServer, size: dict, url: str | None = None) -> Page:  # noqa: F811
    page = browser.new_page(viewport=size)
    page.set_default_timeout(SERVER_WAIT_MS)
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.errors.append(str(error)))  # type: ignore[attr-defined]
    page.goto(url or server.url)
    page.wait_for_function("view !== null")
    return page


def start(page: Page, variant: str, players: int, opponent: str = "greedy", people: int = 1) -> None:
    step = page.evaluate("view.game")
    page.select_option("#variant", variant)
    page.fill("#players", str(players))
    page.dispatch_event("#players", "change")
    page.select_option("#seat", "0")
    if opponent not in page.evaluate("choices.agents"):  # the test's own agent: the server's loader knows it
        page.evaluate(f"$('opponent').add(new Option({json.dumps(opponent)}, {json.dumps(opponent)}))")
    page.select_option("#opponent", opponent)
    page.fill("#people", str(people))
    page.click("#new")
    page.wait_for_function(f"view.game !== {json.dumps(step)} && view.variant === {json.dumps(variant)}")


def play_one(page: Page) -> None:
    """The person's first legal move, as a click would send it."""
    step = page.evaluate("view.step")
    page.evaluate("send(view.legal[0].name)")
    page.wait_for_function(f"view.step > {step} || view.over")


def hand_of(page: Page) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('#table .tile.hand')].map((t) => t.dataset.tile)")


def check_turn(page: Page) -> None:
    """Playable tiles raised (``playable``), the rest dimmed, and Draw / Pass shown only when legal."""
    legal = page.evaluate("view.legal")
    fits = {a["tile"] for a in legal if a["tile"]}
    names = {a["name"] for a in legal}
    if not page.evaluate("view.your_turn"):
        assert page.locator("#table .tile.hand.playable").count() == 0
    else:
        playable = set(
            page.evaluate("[...document.querySelectorAll('.tile.hand.playable')].map((t) => t.dataset.tile)")
        )
        dimmed = set(page.evaluate("[...document.querySelectorAll('.tile.hand.dimmed')].map((t) => t.dataset.tile)"))
        assert playable == fits and dimmed == set(hand_of(page)) - fits
        if playable:
            raised = page.evaluate("getComputedStyle(document.querySelector('.tile.hand.playable')).filter")
            assert "drop-shadow" in raised
        if dimmed:
            assert page.evaluate("getComputedStyle(document.querySelector('.tile.hand.dimmed')).opacity") == "0.4"
    assert page.locator("#draw").is_visible() == ("draw" in names)
    assert page.locator("#pass").is_visible() == ("pass" in names)


@SIZES
def test_a_whole_game_reads_at_a_glance(browser: Browser, server: PlayServer, size: dict) -> None:  # noqa: F811
    page = open_page(browser, server, size)
    no_sideways_scroll(page)
    assert page.locator("#pile").is_visible() and page.locator("#table svg .pile").count() == 1
    assert page.inner_text("#pile .count") == str(page.evaluate("view.pile.count"))
    assert page.inner_text("#scores .score-label").startswith("points won")
    for _ in range(200):
        check_turn(page)
        assert page.inner_text("#pile .count") == str(page.evaluate("view.pile.count"))
        if page.evaluate("view.over"):
            break
        play_one(page)
    assert page.evaluate("view.over")
    check_turn(page)
    assert not page.locator("#draw").is_visible() and not page.locator("#pass").is_visible()
    # the result in words, every hand face up, and how the points were counted
    sentence = page.inner_text("#result .sentence")
    assert re.match(r"(You win: domino, \d+ points?|.+ wins: domino, \d+ points?|Blocked: .+)", sentence), sentence
    assert sentence == page.evaluate("view.result") and page.inner_text("#message") == sentence
    assert page.locator("#table .hidden-back").count() == 0
    last = page.evaluate("view.hands[view.hands.length - 1]")
    assert len(hand_of(page)) == sum(len(seat["tiles"]) for seat in last["seats"])
    assert page.locator("#result tr").count() == 3 and "How it was counted" in page.inner_text("#result")
    # the whole log, numbered as played
    numbers = page.evaluate("[...document.querySelectorAll('#moves li.move')].map((li) => Number(li.dataset.n))")
    assert numbers == list(range(1, page.evaluate("view.step") + 1)) and len(numbers) > 12
    assert page.locator("#moves li.move").first.inner_text().startswith("1.")
    no_sideways_scroll(page)
    assert not page.errors  # type: ignore[attr-defined]
    page.close()


def test_a_new_game_is_a_new_secret_deal(browser: Browser, server: PlayServer) -> None:  # noqa: F811
    page = open_page(browser, server, DESKTOP)
    sent: list[dict] = []
    page.on("request", lambda r: sent.append(json.loads(r.post_data)) if r.url.endswith("/api/new") else None)
    hands = [sorted(hand_of(page))]
    for _ in range(2):
        game = page.evaluate("view.game")
        page.click("#new")
        page.wait_for_function(f"view.game !== {json.dumps(game)}")
        hands.append(sorted(hand_of(page)))
    assert sent and all(body["seed"] is None for body in sent)  # the server deals in secret
    assert hands[0] != hands[1] and hands[1] != hands[2]
    assert page.evaluate("view.practice") is None
    page.close()


@SIZES
@pytest.mark.parametrize(("variant", "players"), [("mexican_train", 4), ("hungarian", 3), ("block", 2)])
def test_scores_are_named_and_no_name_is_clipped(
    browser: Browser,  # noqa: F811
    server: PlayServer,
    size: dict,
    variant: str,
    players: int,
) -> None:
    page = open_page(browser, server, size)
    start(page, variant, players, opponent="long")
    label = "penalty pips (lower is better)" if variant in ("hungarian", "mexican_train") else "points won"
    assert page.inner_text("#scores .score-label") == label + ":"
    words = re.sub(r"\s", "", page.inner_text("#table"))  # a long name may wrap, but is whole: never cut with "…"
    assert f"player_1({LONG})" in words and "…" not in words
    clipped = page.evaluate(CLIPPED)
    assert not clipped, clipped
    no_sideways_scroll(page)
    for _ in range(6):  # a few moves in: the trains or the line grow
        if page.evaluate("view.over"):
            break
        play_one(page)
    no_sideways_scroll(page)
    assert not page.errors  # type: ignore[attr-defined]
    page.close()


def test_numerals_instead_of_pips(browser: Browser, server: PlayServer) -> None:  # noqa: F811
    page = open_page(browser, server, PHONE)
    start(page, "mexican_train", 2)
    assert page.locator("#table .tile.hand text.numeral").count() == 0
    step = page.evaluate("view.step")
    page.check("#numerals")
    page.wait_for_function("document.querySelectorAll('#table .tile.hand text.numeral').length > 0")
    numbers = page.evaluate(
        "[...document.querySelectorAll('#table .tile.hand text.numeral')].map((t) => t.textContent)"
    )
    assert set(numbers) <= {str(n) for n in range(1, 13)}
    assert page.locator("#table .tile.hand use").count() == 0 and page.evaluate("view.step") == step
    page.uncheck("#numerals")
    page.wait_for_function("document.querySelectorAll('#table .tile.hand text.numeral').length === 0")
    assert page.locator("#table .tile.hand use").count() > 0
    page.close()


def test_two_people_at_one_table_each_see_only_their_own_hand(browser: Browser, server: PlayServer) -> None:  # noqa: F811
    first = open_page(browser, server, DESKTOP)
    start(first, "draw", 3, people=2)
    assert first.evaluate("view.people") == [0, 1] and first.evaluate("view.seat") == 0
    links = first.evaluate("links.links")
    assert set(links) == {"0", "1"} and first.locator("#links input.join").count() == 2
    assert all(f"token={server.token}" in link and "&key=" in link for link in links.values())
    assert links["0"] != links["1"]
    other_context = browser.new_context(viewport=PHONE)  # another browser: nothing shared
    second = other_context.new_page()
    second.set_default_timeout(SERVER_WAIT_MS)
    second.errors = []  # type: ignore[attr-defined]
    second.on("pageerror", lambda error: second.errors.append(str(error)))  # type: ignore[attr-defined]
    second.goto(links["1"])
    second.wait_for_function("view !== null")
    assert second.evaluate("view.seat") == 1 and second.evaluate("view.game") == first.evaluate("view.game")
    pages = {0: first, 1: second}
    for _ in range(60):
        mine = {seat: set(hand_of(page)) for seat, page in pages.items()}
        markup = {seat: page.inner_html("#table") for seat, page in pages.items()}
        over = first.evaluate("view.over")
        if over:
            break
        assert mine[0] and mine[1] and not mine[0] & mine[1]
        for seat, page in pages.items():  # neither page holds the other's tiles as hand tiles
            assert not any(f'class="tile hand" data-tile="{t}"' in markup[seat] for t in mine[1 - seat])
            assert page.locator("#table .hidden-back").count() == 2  # the other person's and the agent's
        to_act = first.evaluate("view.to_act")
        assert to_act in pages  # the agent has moved already
        mover, watcher = pages[to_act], pages[1 - to_act]
        assert mover.evaluate("view.your_turn") and not watcher.evaluate("view.your_turn")
        assert "waiting for" in watcher.inner_text("#message")
        play_one(mover)
        step = mover.evaluate("view.step")
        watcher.wait_for_function(f"view.step === {step}", timeout=10_000)  # it polled
    for page in pages.values():
        if over:
            assert page.locator("#table .hidden-back").count() == 0
        assert not page.errors  # type: ignore[attr-defined]
    # a call without the seat's key, or with another game's, is refused
    status = second.evaluate(
        """async () => (await fetch('/api/view', {method: 'POST', headers: {'Content-Type': 'application/json',
            'X-Token': choices.token}, body: JSON.stringify({game: view.game})})).status"""
    )
    assert status == 403
    other_context.close()
    first.close()
