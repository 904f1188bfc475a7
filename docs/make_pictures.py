"""Make the README's pictures: each variant's table, the play page and a replay page.

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


def pages() -> None:
    """The play page a few moves into a game against the shipped draw_2p agent, and a Mexican
    Train replay with the hidden hands shown."""
    defaults = {"variant": "draw", "options": {"num_players": 2}, "opponent": "draw_2p", "seat": 0, "seed": 5}
    server = make_server(lambda name, game, seed: load_policy(name, game, seed=seed), defaults)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    game = domino_env.make_game("mexican_train", num_players=4)
    replay = record_game(game, [make_agent("heuristic", game, seed=s) for s in range(4)], seed=2)
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1340, "height": 560})
        page.goto(f"http://127.0.0.1:{server.server_port}/")
        page.wait_for_selector("#table svg")
        for _ in range(12):  # a few moves in, to a turn with a tile to play
            step = page.evaluate("view.step")
            if step >= 3 and page.locator(".tile.hand.playable").count():
                break
            page.evaluate("send(view.legal[0].name)")
            page.wait_for_function(f"view.step > {step}")
        several = page.evaluate("view.legal.find((a, i, all) => all.filter((b) => b.tile === a.tile).length > 1)")
        if several:  # selected: its targets are outlined
            page.click(f'.tile.hand[data-tile="{several["tile"]}"]')
        page.screenshot(path=str(OUT / "web_play.png"))
        path = write_html(replay, Path(folder) / "replay.html")
        page.set_viewport_size({"width": 1560, "height": 800})
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
