"""The table picture: what it shows of every variant, what it hides, and its raster form."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import domino_env
from agents import make_agent
from arena.replay import record_game
from domino_env.picture import canvas_size, rasterize, table_image, table_svg
from domino_env.picture.layout import _snake
from domino_env.picture.svg import HALF, HIGHLIGHT, PIP_COLOURS, PIP_GRID, pip_defs
from tests.scripted import play

pytestmark = pytest.mark.core

SVG = "{http://www.w3.org/2000/svg}"
VARIANTS = {
    "draw": {"num_players": 3},
    "block": {"num_players": 4},
    "hungarian": {"num_players": 3},
    "mexican_train": {"num_players": 4},
}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def texts(root: ET.Element) -> str:
    return " | ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))


def groups(root: ET.Element, cls: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if cls in g.get("class", "").split()]


def played(variant: str, moves: int, seed: int = 3, **options) -> domino_env.DominoEnv:
    """An environment after ``moves`` first-legal actions."""
    env = domino_env.raw_env(variant, **options)
    env.reset(seed=seed)
    for _ in range(moves):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    return env


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_seat_shows_its_hand_size_score_and_the_seat_to_act(variant: str) -> None:
    env = played(variant, 6, **VARIANTS[variant])
    root = parse(table_svg(env.game, env.state_array, names=[f"seat {i}" for i in range(env.game.num_players)]))
    words = texts(root)
    hands = env.game.scene(env.state_array, 0)[-env.game.num_players :]
    scores = env.game.match_points(env.state_array, 0)
    label = "penalty pips" if variant in ("hungarian", "mexican_train") else "points won"
    for seat, hand in enumerate(hands):
        assert f"{len(hand)} tile{'s' if len(hand) != 1 else ''} · {label} {scores[seat]}" in words
    acting = env.game.current_seat(env.state_array, 0)
    assert f"▶ seat {acting}" in words and words.count("▶") == 1
    pile = "boneyard" if variant in ("draw", "mexican_train") else "set aside"
    assert f"{pile}: " in words


@pytest.mark.parametrize("variant", VARIANTS)
def test_hidden_hands_are_face_down_and_absent_from_the_markup(variant: str) -> None:
    env = played(variant, 4, **VARIANTS[variant])
    hands = env.game.scene(env.state_array, 0)[-env.game.num_players :]
    root = parse(table_svg(env.game, env.state_array, face_up={1}))
    shown = [g.get("data-tile") for g in groups(root, "hand")]
    assert shown == [f"{min(t)}-{max(t)}" for t in hands[1]]
    assert len(groups(root, "back")) == sum(len(h) for s, h in enumerate(hands) if s != 1)
    everything = parse(table_svg(env.game, env.state_array, face_up="all"))
    assert len(groups(everything, "hand")) == sum(len(h) for h in hands) and not groups(everything, "back")


def test_a_replay_picture_carries_the_hidden_faces_in_groups_a_page_can_reveal() -> None:
    env = played("draw", 2)
    root = parse(table_svg(env.game, env.state_array, face_up={0}, reveal_toggle=True))
    hidden = groups(root, "hidden-face")
    assert len(hidden) == 1 and len(list(hidden[0])) == len(env.game.scene(env.state_array, 0)[2])
    assert ".hidden-face{display:none}" in "".join(root.find(f"{SVG}style").itertext())


def test_draw_line_lays_doubles_crosswise_shows_open_ends_and_rings_the_last_tile() -> None:
    env = domino_env.raw_env("draw")
    deal = {
        "hands": [["6-6", "6-2", "0-1", "0-2", "0-3", "0-4", "0-5"], ["2-2", "1-1", "1-3", "1-4", "1-5", "4-4", "5-5"]],
        "boneyard": ["0-0", "1-2", "2-3", "3-6", "0-6", "1-6", "2-4", "2-5", "3-3", "3-4", "3-5", "4-5", "4-6",
                     "5-6"],
    }  # fmt: skip
    env.reset(options={"deal": deal})
    play(env, "play 6-6 on left", by=0)
    play(env, "draw", by=1)
    play(env, "draw", by=1)
    play(env, "draw", by=1)
    play(env, "draw", by=1)
    play(env, "play 3-6 on right", by=1)
    root = parse(table_svg(env.game, env.state_array, last_move=env.last_move))
    table = {g.get("data-tile"): g for g in groups(root, "table")}
    assert list(table) == ["6-6", "3-6"]
    double = table["6-6"].find(f"{SVG}rect")
    assert (double.get("width"), double.get("height")) == (str(HALF), str(2 * HALF))  # crosswise
    assert any(r.get("stroke") == HIGHLIGHT for r in table["3-6"].iter(f"{SVG}rect"))
    assert not any(r.get("stroke") == HIGHLIGHT for r in table["6-6"].iter(f"{SVG}rect"))
    ends = {g.get("data-target"): "".join(g.itertext()) for g in groups(root, "target")}
    assert ends == {"left": "left6", "right": "right3"}
    assert "last move: player_1 played 3-6 on right" in texts(root)


def test_hungarian_marks_the_closed_end() -> None:
    env = played("hungarian", 1)
    root = parse(table_svg(env.game, env.state_array))
    closed = groups(root, "closed")
    assert len(closed) == 1 and "×" in "".join(closed[0].itertext())


def test_mexican_train_hub_trains_owners_markers_and_targets_from_the_viewer() -> None:
    env = played("mexican_train", 0, num_players=3)
    env.state_array[0]["marker"][2] = 1
    root = parse(table_svg(env.game, env.state_array, viewer=1))
    words = texts(root)
    assert words.count("train, private") == 2 and words.count("train, marker: open") == 1
    assert "Mexican Train" in words and "engine" in words
    assert len(groups(root, "engine")) == 1
    targets = [g.get("data-target") for g in groups(root, "target")]
    assert targets == ["train+2", "own", "train+1", "mexican"]


def test_pip_faces_up_to_twelve_are_distinct_and_do_not_touch() -> None:
    assert len(set(PIP_COLOURS.values())) == 12
    assert [len(PIP_GRID[n]) for n in range(13)] == list(range(13))
    root = parse(f'<svg xmlns="http://www.w3.org/2000/svg">{pip_defs()}</svg>')
    for group in root.iter(f"{SVG}g"):
        circles = [(float(c.get("cx")), float(c.get("cy")), float(c.get("r"))) for c in group]
        for (x1, y1, r), (x2, y2, _) in itertools.combinations(circles, 2):
            assert np.hypot(x1 - x2, y1 - y2) > 3 * r  # a clear gap between neighbours
        assert all(r <= x <= 1 - r and r <= y <= 1 - r for x, y, r in circles)


@pytest.mark.parametrize("variant", VARIANTS)
def test_rgb_array_is_the_svg_rasterized(variant: str) -> None:
    env = domino_env.raw_env(variant, render_mode="rgb_array", **VARIANTS[variant])
    env.reset(seed=1)
    image = env.render()
    svg = table_svg(env.game, env.state_array)
    root = parse(svg)
    drawn = rasterize(svg)
    assert drawn.dtype == np.uint8 and drawn.shape == (int(root.get("height")), int(root.get("width")), 3)
    assert image.dtype == np.uint8 and image.shape == (*canvas_size(env.game), 3)  # one size for the whole game
    np.testing.assert_array_equal(image[: drawn.shape[0], : drawn.shape[1]], drawn)  # on top of the felt canvas
    assert (image[drawn.shape[0] :] == image[-1, -1]).all()
    env.render_face_up = "all"
    assert not np.array_equal(image, env.render())  # the faces now show
    assert np.array_equal(table_image(env.game, env.state_array, face_up="all", canvas=True), env.render())


def test_a_bad_face_up_or_names_is_refused() -> None:
    env = played("draw", 0)
    for face_up in ("none", {2}, [-1]):
        with pytest.raises(ValueError, match=r"face_up must be seats 0\.\.1"):
            table_svg(env.game, env.state_array, face_up=face_up)
    with pytest.raises(ValueError, match="viewer"):
        table_svg(env.game, env.state_array, viewer=5)
    with pytest.raises(ValueError, match="2 names"):
        table_svg(env.game, env.state_array, names=["one"])


def test_a_long_line_snakes_back_at_the_edge() -> None:
    places = _snake([46, 60, 60, 60], left=0, right=150)
    assert places == [(0, 0, True), (50, 0, True), (90, 1, False), (26, 1, False)]


def test_the_last_move_names_a_mexican_train_by_its_owner() -> None:
    game = domino_env.make_game("mexican_train", num_players=8)
    replay = record_game(game, [make_agent("greedy", game, seed=s) for s in range(8)], seed=5)
    moves = [(p.seat, p.action, p.action_name) for p in replay.positions[1:]]
    seat, action, name = next(m for m in moves if " on train+" in m[2])
    owner = (seat + int(name.split("+")[1])) % 8
    root = parse(table_svg(game, replay.positions[0].state, last_move=(seat, action)))
    assert f"last move: player_{seat} played {name.split()[1]} on player_{owner}'s train" in texts(root)


def test_a_hungarian_run_in_progress_is_said() -> None:
    game = domino_env.make_game("hungarian", num_players=2)
    replay = record_game(game, [make_agent("greedy", game, seed=s) for s in range(2)], seed=1)
    running = [p.state for p in replay.positions if p.state[0]["run_active"] and not p.state[0]["game_over"]]
    assert running
    for state in running:
        assert "to act again: the run goes on" in texts(parse(table_svg(game, state)))
    assert "the run goes on" not in texts(parse(table_svg(game, replay.positions[0].state)))


def test_the_raster_shows_the_words() -> None:
    env = played("draw", 0)
    svg = table_svg(env.game, env.state_array)
    wordless = re.sub(r"<text[^>]*>[^<]*</text>", "", svg)
    assert wordless != svg and not np.array_equal(rasterize(svg), rasterize(wordless))  # a font was found
