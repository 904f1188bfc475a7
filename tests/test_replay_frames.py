"""Pictures of a game keep one size: ``render_mode="rgb_array"`` frames are drawn on a canvas the
size of the largest table the game's configuration can show, so a video recorder gets one shape
for a whole game (and for every game of that configuration)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import domino_env
from domino_env.game import Game
from domino_env.picture import canvas_size, fit_to_canvas, table_svg
from domino_env.picture.svg import FELT

# every variant, with the configurations whose tables grow the most (more seats, matches)
CONFIGS = [
    ("draw", {}),
    ("draw", {"num_players": 3, "match": True}),
    ("draw", {"num_players": 4, "partnerships": True}),
    ("block", {}),
    ("block", {"num_players": 4}),
    ("hungarian", {"num_players": 3}),
    ("hungarian", {"match": True}),
    ("mexican_train", {"num_players": 2}),
    ("mexican_train", {}),
]
FELT_RGB = tuple(int(FELT[i : i + 2], 16) for i in (1, 3, 5))


def random_positions(game: Game, seed: int):
    """Every position of one game of random legal moves: (state, last move)."""
    rng = np.random.default_rng(seed)
    state = game.new_state(1)
    game.seed(state, 0, seed)
    game.start(state, 0)
    mask = np.zeros(game.num_actions, np.int8)
    yield state, None
    while not game.is_over(state, 0):
        seat = game.current_seat(state, 0)
        game.legal_mask(state, 0, mask)
        action = int(rng.choice(np.flatnonzero(mask)))
        game.step(state, 0, action)
        yield state, (seat, action)


def svg_size(svg: str) -> tuple[float, float]:
    root = re.match(r'<svg[^>]*?\swidth="([0-9.]+)"[^>]*?\sheight="([0-9.]+)"', svg)
    return float(root[2]), float(root[1])


@pytest.mark.parametrize(("variant", "options"), CONFIGS)
def test_no_table_of_a_configuration_outgrows_its_canvas(variant: str, options: dict) -> None:
    """Over many random games, every picture (any last move, hands face up or down) fits the
    canvas as drawn: the canvas is the largest picture, never one a frame is squeezed into."""
    game = domino_env.make_game(variant, **options)
    height, width = canvas_size(game)
    tallest = 0.0
    for seed in range(25):
        for state, last in random_positions(game, seed):
            picture_height, picture_width = svg_size(table_svg(game, state, 0, last_move=last, face_up="all"))
            assert picture_width <= width
            tallest = max(tallest, picture_height)
    assert tallest <= height
    assert canvas_size(domino_env.make_game(variant, **options)) == (height, width)  # one per configuration


@pytest.mark.parametrize(("variant", "options"), [CONFIGS[0], CONFIGS[2], CONFIGS[4], CONFIGS[5], CONFIGS[7]])
def test_rgb_array_frames_keep_one_shape_for_a_whole_game(variant: str, options: dict) -> None:
    """Rasterized frames (about 50 ms each, so two games per configuration; the test above
    checks many more games' pictures against the canvas)."""
    env = domino_env.raw_env(variant, render_mode="rgb_array", **options)
    shapes = set()
    for seed in (1,) if variant == "mexican_train" else (1, 2):  # Mexican Train's games are long
        env.reset(seed=seed)
        env.render_face_up = "all" if seed == 2 else ()  # face up or down: the same size
        rng = np.random.default_rng(seed)
        shapes.add(env.render().shape)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            frame = env.render()
            assert frame.dtype == np.uint8
            shapes.add(frame.shape)
    assert shapes == {(*canvas_size(env.game), 3)}


def test_a_picture_is_padded_with_the_felt_or_scaled_down_to_the_canvas() -> None:
    small = np.full((10, 20, 3), 255, np.uint8)
    padded = fit_to_canvas(small, (30, 20))
    assert padded.shape == (30, 20, 3)
    assert (padded[:10] == 255).all() and (padded[10:] == FELT_RGB).all()  # the picture on top, felt below
    large = np.full((60, 20, 3), 255, np.uint8)
    fitted = fit_to_canvas(large, (30, 20))  # halved, its aspect kept, centred across
    assert fitted.shape == (30, 20, 3)
    assert (fitted[:, 5:15] > 200).all() and (fitted[:, :4] == FELT_RGB).all() and (fitted[:, 16:] == FELT_RGB).all()
    assert fit_to_canvas(small, (10, 20)) is small
