"""Make the README's pictures: each variant's table, the play page (desktop and phone, mid-game
and at the end) and a replay page.

    .venv/bin/python docs/make_pictures.py          # writes docs/pictures/*.png

The tables are the environments' own ``rgb_array`` pictures after some moves of greedy agents;
the pages are screenshots of headless chromium (Debian's, at /usr/bin/chromium: ``make browser``).
"""

from __future__ import annotations

import sys
import tempfile
import threading
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import domino_env  # noqa: E402 (the repository's code, run from anywhere)
from agents import make_agent  # noqa: E402
from arena.cli import load_policy  # noqa: E402
from arena.replay import record_game, write_html  # noqa: E402
from arena.web.server import make_server  # noqa: E402

OUT = ROOT / "docs" / "pictures"
TABLES = {  # variant: (options, moves played before the picture)
    "draw": ({"num_players": 3}, 14),
    "block": ({"num_players": 4}, 9),
    "hungarian": ({"num_players": 3}, 12),
    "mexican_train": ({"num_players": 4}, 36),
}


def tables() -> None:
    """Each variant mid-game, seat 0's hand face up and the others face down."""
    for variant, (options, moves) in TABLES.items():
        env = domino_env.raw_env(variant, render_mode="rgb_array", **options)
        env.reset(seed=4)
        agent = make_agent("greedy", env.game, seed=0)
        for _ in range(moves):
            env.step(agent.act_one(env.observe(env.agent_selection), state=env.state_array))
        env.render_face_up = {0}
        Image.fromarray(env.render()).save(OUT / f"table_{variant}.png")


def play(page, moves: int) -> None:
    """The person plays their first legal move until ``moves`` moves have been made (or the end)."""
    while not page.evaluate("view.over") and page.evaluate("view.step") < moves:
        step = page.evaluate("view.step")
        page.evaluate("send(view.legal[0].name)")
        page.wait_for_function(f"view.step > {step} || view.over")


def pages() -> None:
    """The play page against the heuristic agent (a practice deal, so the pictures are the same
    every time) at a desktop's and a phone's width, mid-game and at the end; and a Mexican Train
    replay with the hidden hands shown."""
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
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    tables()
    pages()
    print(f"wrote {', '.join(sorted(p.name for p in OUT.glob('*.png')))} in {OUT}")
