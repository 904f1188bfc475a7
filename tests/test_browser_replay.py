"""The replay page as a viewer watches it, in Debian's chromium at a phone's width (412 px) and a
desktop's (1440 px): the title names the seed and the options and the page shows the command that
plays the game again; the last position names the winner and shows every hand face up; buttons,
the slider and the keyboard step back and forth; nothing scrolls sideways on a phone and the
picture fills its width; a Mexican Train table of four long names cuts none of them off. And the
GIF's last frame carries the same winner's caption as the page's last picture."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import Browser, Page

import domino_env
from agents import make_agent
from arena.replay import (
    CAPTION_COLOUR,
    CAPTION_HEIGHT,
    Replay,
    picture,
    record_game,
    replay_command_line,
    write_gif,
    write_html,
)
from domino_env.picture import rasterize, read_table
from domino_env.tiles import tile_index, tile_name
from tests.browser_helpers import CLIPPED, no_sideways_scroll
from tests.test_browser import browser  # noqa: F401 (the module's chromium)

PHONE = {"width": 412, "height": 900}
DESKTOP = {"width": 1440, "height": 900}
SIZES = pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
LONG = "heuristic-with-a-long-name:rollouts=64"
POLICIES = ["greedy", "random", "greedy"]
SEED, STREAM = 7, 2


def draw_replay() -> Replay:
    """Draw Dominoes with an option off its default, from stream 2 of seed 7, with its command."""
    game = domino_env.make_game("draw", num_players=3, hand_size=6)
    agents = [make_agent(name, game, seed=seat) for seat, name in enumerate(POLICIES)]
    command = replay_command_line(game, POLICIES, SEED, STREAM)
    return record_game(game, agents, seed=SEED, stream=STREAM, command=command)


def train_replay() -> Replay:
    """Mexican Train, four players, every one with a long name."""
    game = domino_env.make_game("mexican_train", num_players=4)
    agents = []
    for seat in range(4):
        agent = make_agent("greedy", game, seed=seat)
        agent.name = f"{LONG}-{seat}"
        agents.append(agent)
    return record_game(game, agents, seed=2)


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Replay, Path]]]:
    folder = tmp_path_factory.mktemp("replays")
    made = {}
    for name, replay in (("draw", draw_replay()), ("train", train_replay())):
        made[name] = (replay, write_html(replay, folder / f"{name}.html"))
    yield made


def open_replay(browser: Browser, path: Path, size: dict) -> Page:  # noqa: F811
    page = browser.new_page(viewport=size)
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.errors.append(str(error)))  # type: ignore[attr-defined]
    page.goto(path.as_uri())
    page.wait_for_function("frames.length > 0 && document.querySelector('#table svg') !== null")
    return page


def close(page: Page) -> None:
    assert not page.errors  # type: ignore[attr-defined]
    page.close()


def at(page: Page) -> int:
    """The position shown, read from the page's label ("move 3 / 25"), checked against the picture."""
    label = page.inner_text("#step-label")
    match = re.fullmatch(r"move (\d+) / (\d+)", label)
    assert match, label
    index = int(match[1])
    assert page.evaluate("index") == index and page.evaluate("Number(slider.value)") == index
    same = "(i) => { const d = document.createElement('div'); d.innerHTML = frames[i].svg; return d.innerHTML; }"
    assert page.evaluate(f"({same})({index}) === table.innerHTML")  # the picture of that position
    return index


@SIZES
def test_the_title_names_the_seed_and_options_and_the_command_is_shown(
    browser: Browser,  # noqa: F811
    replays: dict,
    size: dict,
) -> None:
    replay, path = replays["draw"]
    page = open_replay(browser, path, size)
    title = page.inner_text("#title")
    assert title == replay.title() == page.title()
    assert title.startswith("Draw Dominoes (hand_size=6), 3 players, seed 7 stream 2: ")
    assert "player_1 (random)" in title
    assert page.locator("#command").is_visible()
    command = page.inner_text("#command-line")
    assert command == replay.command
    assert "--option hand_size=6" in command and "--seed 7 --stream 2" in command
    box = page.locator("#command-line").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= size["width"]  # all of it on screen
    close(page)


@SIZES
def test_the_last_position_names_the_winner_and_shows_every_hand(
    browser: Browser,  # noqa: F811
    replays: dict,
    size: dict,
) -> None:
    replay, path = replays["draw"]
    page = open_replay(browser, path, size)
    assert not page.is_checked("#reveal")  # the hidden hands are not asked for: the end shows them anyway
    assert page.locator("#table .hidden-back .tile.back").count() > 0  # at the deal, the others' hands face down
    page.click("#last")
    moves = len(replay.positions) - 1
    assert at(page) == moves and page.inner_text("#step-label") == f"move {moves} / {moves}"
    result = replay.result()
    assert re.fullmatch(r"game over: player_\d \((greedy|random)\) wins", result), result
    assert page.inner_text("#result") == f"· {result}"
    assert page.text_content("#table svg text.result") == result
    assert page.locator("#table svg text.result").is_visible()
    # every hand face up: no tile back and no hidden face, one face-up tile for each tile left in a hand
    assert page.locator("#table .tile.back").count() == 0
    assert page.locator("#table .hidden-back, #table .hidden-face").count() == 0
    seats = read_table(replay.game, replay.positions[-1].state, 0).seats
    hands = sorted(tile_name(tile_index(*tile)) for seat in seats for tile in seat.hand)
    assert hands, "the winner went out, but someone holds tiles"
    shown = page.evaluate("[...document.querySelectorAll('#table .tile.hand')].map((t) => t.dataset.tile)")
    assert sorted(shown) == hands
    assert all(page.locator("#table .tile.hand").nth(i).is_visible() for i in range(len(shown)))
    close(page)


@SIZES
def test_stepping_back_and_forth_by_buttons_slider_and_keys(
    browser: Browser,  # noqa: F811
    replays: dict,
    size: dict,
) -> None:
    replay, path = replays["draw"]
    moves = len(replay.positions) - 1
    page = open_replay(browser, path, size)
    assert at(page) == 0 and page.inner_text("#action-label") == "the deal"
    page.click("#prev")  # nothing before the deal
    assert at(page) == 0
    page.click("#next")
    page.click("#next")
    assert at(page) == 2
    assert page.inner_text("#action-label") == f"{replay.seat_names[replay.positions[2].seat]}: " + (
        replay.positions[2].action_name
    )
    page.click("#prev")
    assert at(page) == 1
    page.keyboard.press("ArrowRight")  # the keys, with a button focused
    page.keyboard.press("ArrowRight")
    assert at(page) == 3
    page.keyboard.press("ArrowLeft")
    assert at(page) == 2
    page.click("#last")
    assert at(page) == moves
    page.click("#next")  # nothing after the end
    page.keyboard.press("ArrowRight")
    assert at(page) == moves
    page.click("#first")
    assert at(page) == 0
    page.keyboard.press("ArrowLeft")
    assert at(page) == 0
    page.locator("#slider").fill(str(5))  # the slider, dragged
    assert at(page) == 5
    page.focus("#slider")  # a focused slider steps one move per key, as the buttons do
    page.keyboard.press("ArrowRight")
    assert at(page) == 6
    page.keyboard.press("ArrowLeft")
    assert at(page) == 5
    page.click(f'#move-rows tr[data-index="{moves - 1}"]')  # a row of the list of moves
    assert at(page) == moves - 1
    assert page.locator("#move-rows tr.current").get_attribute("data-index") == str(moves - 1)
    # play runs to the end by itself, and space pauses it
    page.click("#first")
    page.keyboard.press(" ")
    assert page.inner_text("#play") == "■ pause"
    page.wait_for_function("index >= 1", timeout=5_000)
    page.keyboard.press(" ")
    assert page.inner_text("#play") == "▶ play"
    paused = at(page)
    page.wait_for_timeout(1_000)
    assert at(page) == paused
    close(page)


def test_on_a_phone_nothing_scrolls_sideways_and_the_picture_fills_the_width(
    browser: Browser,  # noqa: F811
    replays: dict,
) -> None:
    for name in ("draw", "train"):
        replay, path = replays[name]
        page = open_replay(browser, path, PHONE)
        for index in (0, len(replay.positions) // 2, len(replay.positions) - 1):
            page.evaluate(f"show({index})")
            no_sideways_scroll(page)
            box = page.locator("#table > svg").bounding_box()
            assert box is not None and box["x"] >= 0
            assert box["width"] >= 0.9 * (PHONE["width"] - 2 * 16), f"the picture is {box['width']} px wide"
        page.click("#reveal")
        no_sideways_scroll(page)
        close(page)


@SIZES
def test_a_mexican_train_of_four_long_names_clips_none(
    browser: Browser,  # noqa: F811
    replays: dict,
    size: dict,
) -> None:
    replay, path = replays["train"]
    page = open_replay(browser, path, size)
    for index in (0, len(replay.positions) // 2, len(replay.positions) - 1):
        page.evaluate(f"show({index})")
        words = re.sub(r"\s", "", page.inner_text("#table"))  # a long name may wrap, but is whole: never cut with "…"
        assert "…" not in words
        for seat in range(4):
            assert f"player_{seat}({LONG}-{seat})" in words
        assert page.locator("#table rect.label").count() >= 4  # the trains' labels: each seat's and the Mexican
        clipped = page.evaluate(CLIPPED)
        assert not clipped, (index, clipped)
        no_sideways_scroll(page)
    close(page)


def test_the_gifs_last_frame_has_the_winners_caption(tmp_path: Path) -> None:
    replay = draw_replay()
    last = len(replay.positions) - 1
    expected = rasterize(picture(replay, last))  # what the writer draws for the last position
    with Image.open(write_gif(replay, tmp_path / "game.gif")) as gif:
        assert gif.n_frames == len(replay.positions)
        gif.seek(gif.n_frames - 1)
        frame = np.asarray(gif.convert("RGB"))
    height, width = expected.shape[:2]
    assert frame.shape[0] >= height and frame.shape[1] >= width
    band = frame[height - CAPTION_HEIGHT : height, :width].astype(int)
    drawn = expected[height - CAPTION_HEIGHT :].astype(int)
    assert np.abs(band - drawn).mean() < 4  # the same band, up to the GIF's palette
    yellow = np.array([int(CAPTION_COLOUR[i : i + 2], 16) for i in (1, 3, 5)])
    words = (np.abs(band - yellow).sum(axis=2) < 60).sum()
    assert words > 300, f"{words} caption-coloured pixels in the band"  # the sentence, in the caption's colour
    assert np.abs(frame[:height, :width].astype(int) - expected.astype(int)).mean() < 4  # the whole last picture
