"""Replay pages escape what comes from outside: a checkpoint folder's name, agent names, the
variant and its options reach the page's title and the table pictures as text, never as markup."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ElementTree
from html.parser import HTMLParser
from pathlib import Path

import pytest

import domino_env
from agents import make_agent
from arena.cli import main
from arena.replay import PAGE, fill_page, read_html_data, record_game, write_html
from domino_env.picture import table_svg
from training import checkpoint as ckpt

SCRIPT_CLOSE = "</script><script>alert(1)</script>"
ATTRIBUTE = '"><img src=x onerror=alert(1)>'
# A folder's name cannot hold "/": these are the hostile names a checkpoint folder can have.
FOLDER_NAMES = [ATTRIBUTE, "<script>alert(1)<!--", "__REPLAY_DATA__<b>&amp;"]


class Tags(HTMLParser):
    """Every start tag of a page, its attributes, and the title's text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data


def parsed(text: str) -> Tags:
    tags = Tags()
    tags.feed(text)
    tags.close()
    return tags


TEMPLATE_TAGS = [tag for tag, _ in parsed(PAGE.read_text(encoding="utf-8")).tags]


def assert_inert(page: Path, payloads: list[str]) -> dict:
    """The page has exactly the template's elements, its title holds the payloads as text, and
    every table picture holds them as text only."""
    text = page.read_text(encoding="utf-8")
    for payload in payloads:
        assert payload not in text  # nowhere raw: neither in the title nor in the (base64) data
    tags = parsed(text)
    assert [tag for tag, _ in tags.tags] == TEMPLATE_TAGS  # no <img>, no extra <script>
    assert not any(name.startswith("on") for _, attributes in tags.tags for name in attributes)
    data = read_html_data(page)
    assert tags.title == data["title"]  # the title's text, unescaped by the parser, is the replay's title
    for payload in payloads:
        assert payload in tags.title
    for frame in data["frames"]:
        picture = ElementTree.fromstring(frame["svg"])  # well-formed: nothing broke out of a string
        names = {element.tag.rpartition("}")[2] for element in picture.iter()}
        assert not names & {"script", "img", "foreignObject", "iframe"}
        assert not any(key.startswith("on") for element in picture.iter() for key in element.attrib)
        words = "".join(picture.itertext())
        assert all(payload in words for payload in payloads)  # the names are still shown, as text
    return data


def test_agent_names_are_text_in_the_title_and_the_pictures(tmp_path: Path) -> None:
    game = domino_env.make_game("draw")
    agents = [make_agent("random", game, seed=1), make_agent("greedy", game, seed=2)]
    agents[0].name, agents[1].name = SCRIPT_CLOSE, ATTRIBUTE
    replay = record_game(game, agents, seed=3)
    data = assert_inert(write_html(replay, tmp_path / "game.html"), [SCRIPT_CLOSE, ATTRIBUTE])
    assert len(data["frames"]) == len(replay.positions)


def test_a_title_naming_a_placeholder_stays_text() -> None:
    page = fill_page("<title>__TITLE__</title><p>__DATA__</p>", {"TITLE": "__DATA__", "DATA": "x"})
    assert page == "<title>__DATA__</title><p>x</p>"


def test_the_seat_names_of_a_table_picture_are_escaped() -> None:
    game = domino_env.make_game("mexican_train", num_players=2)
    state = game.new_state(1)
    game.seed(state, 0, 5)
    game.start(state, 0)
    picture = table_svg(game, state, 0, names=[SCRIPT_CLOSE, ATTRIBUTE], reveal_toggle=True)
    assert SCRIPT_CLOSE not in picture and ATTRIBUTE not in picture
    root = ElementTree.fromstring(picture)
    assert not {element.tag.rpartition("}")[2] for element in root.iter()} & {"script", "img"}


@pytest.mark.parametrize("folder", FOLDER_NAMES)
def test_a_hostile_checkpoint_folder_name_is_text_on_the_page(tmp_path: Path, folder: str) -> None:
    checkpoint = tmp_path / folder
    shutil.copytree(ckpt.PRETRAINED_DIR / "draw_2p", checkpoint)
    out = tmp_path / "game.html"
    main(["replay", str(checkpoint), "random", "--seed", "2", "--out", str(out)])
    data = assert_inert(out, [folder])
    assert f"player_0 ({folder})" in data["title"]
