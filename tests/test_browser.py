"""The pages in a real browser: Debian's chromium (``make browser`` installs it), driven by
playwright, playing a whole game by clicks, an illegal click refused, a replay stepped through."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

import domino_env
from agents import make_agent
from arena.replay import record_game, write_html
from arena.web.server import make_server
from tests.browser_helpers import SERVER_WAIT_MS

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(
            f"the browser tests need Debian's chromium at {CHROMIUM}: run `make browser` (apt-get install chromium)"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture()
def page(browser: Browser) -> Iterator[Page]:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.set_default_timeout(SERVER_WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    page.close()
    assert not errors, errors


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    defaults = {"variant": "draw", "options": {"num_players": 2}, "opponent": "greedy", "seat": 0, "seed": 2}
    server = make_server(lambda name, game, seed: make_agent(name, game, seed=seed), defaults)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.url  # the page's address with this run's token, as the server prints it
    server.shutdown()
    server.server_close()


def step_of(page: Page) -> int:
    return page.evaluate("view.step")


def click_and_wait(page: Page, selector: str) -> None:
    """Click, then wait until the game has moved on."""
    before = step_of(page)
    page.click(selector)
    page.wait_for_function(f"view.step > {before} || view.over")


def test_a_person_plays_a_whole_game_by_clicking(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#table svg")
    assert page.locator(".hidden-back .tile.back").count() >= 6  # the agent's hand, face down
    assert page.locator(".hidden-face").count() == 0  # and not in the page at all
    for _ in range(200):
        if page.evaluate("view.over"):
            break
        assert page.evaluate("view.your_turn")
        playable = page.locator(".tile.hand.playable")
        if playable.count():
            tile = playable.first.get_attribute("data-tile")
            targets = page.evaluate(f"view.legal.filter((a) => a.tile === '{tile}').length")
            if targets == 1:
                click_and_wait(page, f'.tile.hand[data-tile="{tile}"]')
            else:
                page.click(f'.tile.hand[data-tile="{tile}"]')
                assert page.locator(".target.choice").count() == targets
                click_and_wait(page, ".target.choice >> nth=0")
        else:
            legal = page.evaluate("view.legal.map((a) => a.name)")
            click_and_wait(page, "#draw" if "draw" in legal else "#pass")
    assert page.evaluate("view.over")
    assert page.locator("#message").inner_text() == page.evaluate("view.result")  # "You win: domino, 8 points"


def test_an_illegal_click_is_refused_and_changes_nothing(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#table svg")
    tiles = "[...document.querySelectorAll('#table .tile.hand, #table .tile.table')].map((t) => t.dataset.tile)"
    before = page.evaluate(tiles)
    step = step_of(page)
    assert page.evaluate("view.legal.every((a) => a.name !== 'pass')")
    assert not page.locator("#pass").is_visible()  # offered only when legal: sent anyway
    page.evaluate("send('pass')")
    page.wait_for_selector("#message.error")
    assert "illegal move 'pass'" in page.inner_text("#message")
    blocked = page.evaluate("[...document.querySelectorAll('.tile.hand:not(.playable)')].map((t) => t.dataset.tile)")
    if blocked:  # a tile that fits nowhere, dropped on an end anyway
        page.click(f'.tile.hand[data-tile="{blocked[0]}"]')
        page.click(".target >> nth=0")
        page.wait_for_function("document.querySelector('#message').textContent.includes('illegal move')")
    assert step_of(page) == step and page.evaluate(tiles) == before
    page.evaluate("send(view.legal[0].name)")  # the server takes a move at the same step: it had not moved
    page.wait_for_function(f"view.step > {step}")


def test_watching_agents_and_a_new_game_from_the_form(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#table svg")
    page.select_option("#variant", "mexican_train")
    page.fill("#players", "3")
    page.dispatch_event("#players", "change")
    page.select_option("#seat", "watch")
    page.select_option("#opponent", "heuristic")
    page.click("#new")
    page.wait_for_function("view.variant === 'mexican_train' && view.seat === null")
    assert page.locator(".target").count() == 4  # three personal trains and the Mexican Train
    click_and_wait(page, "#step")
    assert page.locator("#moves li").count() == 1


def test_a_replay_steps_back_and_forth_and_reveals_hands(page: Page, tmp_path: Path) -> None:
    game = domino_env.make_game("draw")
    replay = record_game(game, [make_agent("greedy", game, seed=0), make_agent("random", game, seed=1)], seed=3)
    path = write_html(replay, tmp_path / "game.html")
    page.goto(path.as_uri())
    page.wait_for_function("frames.length > 0")  # unpacked
    moves = len(replay.positions) - 1
    assert page.inner_text("#step-label") == f"move 0 / {moves}"
    page.click("#next")
    page.click("#next")
    assert page.inner_text("#step-label") == f"move 2 / {moves}"
    assert page.inner_text("#action-label") == f"player_1 (random): {replay.positions[2].action_name}"
    page.click("#prev")
    assert page.inner_text("#step-label") == f"move 1 / {moves}"
    assert not page.locator(".hidden-face .tile").first.is_visible()
    page.click("#reveal")
    assert page.locator(".hidden-face .tile").first.is_visible()
    page.click(f'#move-rows tr[data-index="{moves}"]')
    assert page.inner_text("#step-label") == f"move {moves} / {moves}"
    assert "rewards" in page.inner_text("#reward-label")
