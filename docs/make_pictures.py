"""Make the docs' pictures: each variant's table, the play page (desktop and phone, mid-game
and at the end) and a replay page (mid-game, and at its end at a desktop's and a phone's width).

    .venv/bin/python docs/make_pictures.py          # writes docs/pictures/*.png
    .venv/bin/python docs/make_pictures.py --tables # the table pictures only (no browser needed)

The tables are the environments' own ``rgb_array`` pictures after some moves of greedy agents,
written as ``table_<variant>.png`` with the SVG they are drawn from, ``table_<variant>.svg``
(``tests/test_docs_pictures.py`` draws them again and compares: the SVG text exactly, the PNG
pixels where the DejaVu font is installed); the pages are screenshots of headless chromium
(Debian's, at /usr/bin/chromium: ``make browser``, which also installs the font).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import threading
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import domino_env  # noqa: E402 (the repository's code, run from anywhere)
from agents import make_agent  # noqa: E402
from arena.cli import load_policy  # noqa: E402
from arena.replay import Replay, record_game, replay_command_line, write_html  # noqa: E402
from arena.web.server import make_server  # noqa: E402
from domino_env.picture import table_svg  # noqa: E402

OUT = ROOT / "docs" / "pictures"
TABLES = {  # variant: (options, moves played before the picture)
    "draw": ({"num_players": 3}, 14),
    "block": ({"num_players": 4}, 9),
    "hungarian": ({"num_players": 3}, 12),
    "mexican_train": ({"num_players": 4}, 36),
}


def table_env(variant: str):
    """The environment of ``variant``'s picture, mid-game, seat 0's hand face up."""
    options, moves = TABLES[variant]
    env = domino_env.raw_env(variant, render_mode="rgb_array", **options)
    env.reset(seed=4)
    agent = make_agent("greedy", env.game, seed=0)
    for _ in range(moves):
        env.step(agent.act_one(env.observe(env.agent_selection), state=env.state_array))
    env.render_face_up = {0}
    return env


def tables(out: Path = OUT) -> None:
    """Each variant mid-game, seat 0's hand face up and the others face down: ``table_<variant>.png``
    (what ``render()`` returns) and ``table_<variant>.svg`` (the SVG it rasterizes, before the
    canvas's padding)."""
    for variant in TABLES:
        env = table_env(variant)
        svg = table_svg(env.game, env.state_array, face_up=env.render_face_up, last_move=env.last_move)
        (out / f"table_{variant}.svg").write_text(svg)
        Image.fromarray(env.render()).save(out / f"table_{variant}.png")


def play(page, moves: int) -> None:
    """The person plays their first legal move until ``moves`` moves have been made (or the end)."""
    while not page.evaluate("view.over") and page.evaluate("view.step") < moves:
        step = page.evaluate("view.step")
        page.evaluate("send(view.legal[0].name)")
        page.wait_for_function(f"view.step > {step} || view.over")


def replay_ends(browser, replay: Replay, folder: str) -> None:
    """The replay page at its last position (the winner named, every hand face up, the command
    that plays the game again under the title) at a desktop's and a phone's width."""
    policies = ["heuristic"] * replay.game.num_players
    command = replay_command_line(replay.game, policies, replay.seed, replay.stream)
    path = write_html(dataclasses.replace(replay, command=command), Path(folder) / "replay_end.html")
    for name, size in (("desktop", {"width": 1440, "height": 900}), ("phone", {"width": 412, "height": 900})):
        page = browser.new_page(viewport=size)
        page.goto(path.as_uri())
        page.wait_for_function("frames.length > 0")
        page.click("#last")
        page.screenshot(path=str(OUT / f"replay_{name}.png"), full_page=True)
        page.close()


def pages() -> None:
    """The play page against the heuristic agent (a practice deal, so the pictures are the same
    every time) at a desktop's and a phone's width, mid-game and at the end; and a Mexican Train
    replay with the hidden hands shown, and at its end (:func:`replay_ends`)."""
    from playwright.sync_api import sync_playwright  # the dev extra; only the pages need it

    defaults = {"variant": "draw", "options": {"num_players": 2}, "opponent": "heuristic", "seat": 0, "seed": 5}
    server = make_server(lambda name, game, seed: load_policy(name, game, seed=seed), defaults)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    game = domino_env.make_game("mexican_train", num_players=4)
    replay = record_game(game, [make_agent("heuristic", game, seed=s) for s in range(4)], seed=2)
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for name, size in (("desktop", {"width": 1440, "height": 900}), ("phone", {"width": 412, "height": 900})):
            page = browser.new_page(viewport=size)
            page.goto(server.url)
            page.wait_for_function("view !== null")
            play(page, 6)
            while not page.locator(".tile.hand.playable").count() and page.evaluate("view.step") < 30:
                play(page, page.evaluate("view.step") + 1)  # to a turn with a tile to play
            page.screenshot(path=str(OUT / f"web_play_{name}.png"))
            if name == "desktop":
                page.screenshot(path=str(OUT / "web_play.png"))
            play(page, 10_000)
            end = "web_play_end.png" if name == "desktop" else "web_play_end_phone.png"
            page.screenshot(path=str(OUT / end), full_page=name == "phone")
            page.close()
        page = browser.new_page(viewport={"width": 1560, "height": 800})
        path = write_html(replay, Path(folder) / "replay.html")
        page.goto(path.as_uri())
        page.wait_for_function("frames.length > 0")
        page.evaluate(f"show({min(40, len(replay.positions) - 1)})")
        page.click("#reveal")
        page.screenshot(path=str(OUT / "replay.png"))
        replay_ends(browser, replay, folder)
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Make the pictures of docs/pictures/.")
    parser.add_argument("--tables", action="store_true", help="only the table pictures (no browser needed)")
    only_tables = parser.parse_args().tables
    OUT.mkdir(parents=True, exist_ok=True)
    tables()
    if not only_tables:
        pages()
    print(f"wrote {', '.join(sorted(p.name for p in OUT.glob('*.[ps][nv]g')))} in {OUT}")
