"""The picture asks each variant what differs between variants, and knows none by its class."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import domino_env
from domino_env.picture import read_table, say_move

PICTURE = Path(__file__).resolve().parent.parent / "domino_env" / "picture"


def test_the_picture_imports_no_variant() -> None:
    imported = {
        node.module or ""
        for path in PICTURE.glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom)
    }
    assert not [module for module in imported if module.startswith("domino_env.games")]


@pytest.mark.parametrize(
    ("variant", "pile_label"),
    [("draw", "boneyard"), ("block", "set aside"), ("hungarian", "set aside"), ("mexican_train", "boneyard")],
)
def test_each_variant_says_whether_its_undealt_tiles_are_a_boneyard(variant: str, pile_label: str) -> None:
    env = domino_env.raw_env(variant)
    env.reset(seed=0)
    table = read_table(env.game, env.state_array)
    assert table.pile_label == pile_label
    assert table.is_train_game == (variant == "mexican_train")
    assert table.status.startswith("one round" if variant == "mexican_train" else "one hand")


def test_every_mexican_train_play_is_said_on_the_train_its_action_name_counts_to() -> None:
    game = domino_env.make_game("mexican_train", num_players=4)
    names = ["Ann", "Bo", "Cy", "Di"]
    said = {"own": "their own train", "mexican": "the Mexican Train"}
    for seat in range(4):
        for action in range(game.num_actions):
            what = game.action_name(action)
            if not what.startswith("play "):
                continue
            tile, _, target = what[len("play ") :].partition(" on ")
            owner = names[(seat + int(target.removeprefix("train+"))) % 4] if target.startswith("train+") else ""
            place = said.get(target, f"{owner}'s train")
            assert say_move(game, names, seat, action) == f"{names[seat]} played {tile} on {place}"


def test_a_line_play_is_said_on_its_end() -> None:
    game = domino_env.make_game("draw")
    action = game.action_from_name("play 3-5 on right")
    assert say_move(game, ["Ann", "Bo"], 1, action) == "Bo played 3-5 on right"
