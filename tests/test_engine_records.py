"""Game records from outside are checked before the compiled rules see them.

A run folder (shared between people) stores the batched engine's records, and the compiled
rules check no bounds: ``Game.check_records`` must pass every record the rules produce (no false
refusals, at every step of many random games of every variant, finished games included) and
refuse each kind of damage naming the game and the field; ``BatchedEnv.restore`` must refuse
damaged records, a finished game or a mask that is not the rules' own, and change nothing when
it does.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cache

import numpy as np
import pytest

import domino_env
from agents import sample_legal
from domino_env.games import core

pytestmark = pytest.mark.core

CONFIGS: dict[str, tuple[str, dict]] = {
    "draw-2p": ("draw", {}),
    "draw-4p-partners": ("draw", {"num_players": 4, "partnerships": True}),
    "draw-3p-match-difference": (
        "draw",
        {"num_players": 3, "match": True, "target": 40, "block_scoring": "difference", "reward": "points"},
    ),
    "draw-2p-voluntary-reserve": ("draw", {"voluntary_draw": True, "reserve": 2, "lead": "heaviest_tile"}),
    "draw-10p-double-twelve": ("draw", {"num_players": 10}),
    "draw-5p-any-lead-match": ("draw", {"num_players": 5, "lead": "any", "leader": 2, "match": True, "target": 30}),
    "block-2p": ("block", {"num_players": 2}),
    "block-4p-match": ("block", {"num_players": 4, "match": True, "target": 50}),
    "block-3p-highest-double": ("block", {"num_players": 3, "lead": "highest_double"}),
    "hungarian-2p": ("hungarian", {}),
    "hungarian-3p-two-ends": ("hungarian", {"num_players": 3, "open_ends": 2}),
    "hungarian-4p-elimination": (
        "hungarian",
        {"num_players": 4, "open_ends": 2, "match": True, "limit": 40, "elimination": True},
    ),
    "hungarian-3p-match-play-on": (
        "hungarian",
        {"num_players": 3, "match": True, "limit": 30, "end_on_domino": False, "reward": "points"},
    ),
    "mexican-2p-descending-chain": (
        "mexican_train",
        {"num_players": 2, "set_size": 9, "engine": "descending", "match": True, "first_turn": "chain"},
    ),
    "mexican-4p": ("mexican_train", {}),
    "mexican-8p": ("mexican_train", {"num_players": 8}),
    "mexican-3p-set-aside": (
        "mexican_train",
        {
            "num_players": 3,
            "set_size": 9,
            "engine": "set_aside",
            "match": True,
            "must_play_drawn": True,
            "double_blank_value": 50,
        },
    ),
    "mexican-5p-match-points": ("mexican_train", {"num_players": 5, "set_size": 9, "match": True, "reward": "points"}),
}

GAMES = 200  # episodes played per configuration with every state checked ...
HANDS = 1500  # ... or hands, for matches of many hands
BATCH = 50


# ---------------------------------------------------------------------------------------------- no false refusals


@pytest.mark.parametrize("name", list(CONFIGS))
def test_every_record_the_rules_produce_passes_and_restores(name: str) -> None:
    """Every state of random games, at every step, passes the check; and every few steps the
    whole batch, with its mask, restores into another engine (whose masks must then agree)."""
    variant, options = CONFIGS[name]
    batch = domino_env.make_batched(variant, BATCH, num_threads=1, **options)
    twin = domino_env.make_batched(variant, BATCH, num_threads=1, **options)
    twin.reset(seed=99)
    rng = np.random.default_rng(7)
    _, mask, _ = batch.reset(seed=11)
    games = hands = steps = 0
    while games < GAMES and hands < HANDS:
        batch.game.check_records(batch.state)
        if steps % 10 == 0:
            twin.restore(batch.state.copy(), mask)
        _, mask, _, _, done = batch.step(sample_legal(mask, rng.random(BATCH)))
        games += int(done.sum())
        hands += int(batch.hand_over.sum())
        steps += 1


@pytest.mark.parametrize("name", list(CONFIGS))
def test_finished_games_pass(name: str) -> None:
    """Games played to their end one step at a time (the batched engine restarts them, the AEC
    environment keeps them), each checked at every step and once over."""
    variant, options = CONFIGS[name]
    game = domino_env.make_game(variant, **options)
    state = game.new_state(4)
    rng = np.random.default_rng(3)
    mask = np.zeros(game.num_actions, np.int8)
    for g in range(state.shape[0]):
        game.seed(state, g, 21)
        game.start(state, g)
    for g in range(state.shape[0]):
        while not game.is_over(state, g):
            game.check_records(state)
            game.legal_mask(state, g, mask)
            game.step(state, g, int(rng.choice(np.flatnonzero(mask))))
    game.check_records(state)
    assert state["game_over"].all()


@pytest.mark.parametrize("name", list(CONFIGS))
def test_determinized_games_pass(name: str) -> None:
    """The rules' ``determinize`` (for search agents) writes records too, which need not keep
    every invariant of play (a sampled hand may block the line, or hide a higher double than the
    lead): they pass, at the deal and during play, seen from every seat."""
    variant, options = CONFIGS[name]
    game = domino_env.make_game(variant, **options)
    batch = domino_env.make_batched(variant, 16, num_threads=1, **options)
    rng = np.random.default_rng(6)
    _, mask, _ = batch.reset(seed=9)
    out = game.new_state(batch.batch_size)
    for step in range(60):
        if step % 6 == 0:
            for g in range(batch.batch_size):
                game.seed(out, g, step * 100 + g)
                game.determinize(batch.state, g, (g + step) % game.num_players, out, g)
            game.check_records(out)
        _, mask, _, _, _ = batch.step(sample_legal(mask, rng.random(batch.batch_size)))


def test_a_batch_of_1024_is_checked_well_under_a_second() -> None:
    for variant, options in (("draw", {"num_players": 10}), ("mexican_train", {"num_players": 8})):
        batch = domino_env.make_batched(variant, 1024, num_threads=1, **options)
        rng = np.random.default_rng(0)
        _, mask, _ = batch.reset(seed=2)
        for _ in range(30):
            _, mask, _, _, _ = batch.step(sample_legal(mask, rng.random(1024)))
        start = time.perf_counter()
        batch.game.check_records(batch.state)
        assert time.perf_counter() - start < 0.5


# ---------------------------------------------------------------------------------------------- damage


@cache
def played(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Records and masks of 16 games some way into their hands (read-only: copy them)."""
    variant, options = CONFIGS[name]
    batch = domino_env.make_batched(variant, 16, num_threads=1, **options)
    rng = np.random.default_rng(5)
    _, mask, _ = batch.reset(seed=8)
    for _ in range(14):
        _, mask, _, _, _ = batch.step(sample_legal(mask, rng.random(16)))
    state = batch.state.copy()
    state.flags.writeable = mask.flags.writeable = False
    return state, mask


def chosen(state: np.ndarray) -> int:
    """The game to damage: one with tiles on the table and, where there is a boneyard, some of it
    drawn and some left; never game 0, so that the message must name the right game."""
    score = state["tiles_on_table"].astype(np.int64)
    if "boneyard_top" in state.dtype.names:
        score = score + 100 * ((state["boneyard_top"] > 0) & (state["boneyard_top"] < state["boneyard_size"]))
    score[0] = -1
    return int(score.argmax())


def held(s: np.ndarray, g: int, seat: int = 0) -> int:
    return int(np.flatnonzero(s["location"][g] == seat)[0])


def laid(s: np.ndarray, g: int) -> int:
    return int(np.flatnonzero(s["location"][g] == core.ON_TABLE)[-1])


def undrawn(s: np.ndarray, g: int) -> int:
    return int(s["boneyard"][g, s["boneyard_top"][g]])


def move(s: np.ndarray, g: int, tile: int, seat: int) -> None:
    """Put ``tile`` in ``seat``'s hand, keeping the hand counts right (so another check fires)."""
    s["hand_count"][g, seat] += 1
    s["location"][g, tile] = seat


def set_field(field: str, value: object, index: tuple = ()) -> Callable[[np.ndarray, int], None]:
    def damage(s: np.ndarray, g: int) -> None:
        s[field][(g, *index)] = value

    return damage


def adding(field: str, amount: int, index: tuple = ()) -> Callable[[np.ndarray, int], None]:
    def damage(s: np.ndarray, g: int) -> None:
        s[field][(g, *index)] += amount

    return damage


def line_end_face(s: np.ndarray, g: int) -> None:
    """An open end's number changed to another number of the set."""
    side = int(np.flatnonzero(s["ends"][g] != core.NO_END)[0])
    s["ends"][g, side] = (s["ends"][g, side] + 1) % 7


def both_ends_open(s: np.ndarray, g: int) -> None:
    """Hungarian with one open end: the closed end opened on the line's outer face there (so the
    line itself still reads right)."""
    closed = int(np.flatnonzero(s["ends"][g] == core.NO_END)[0])
    first, count = int(s["line_first"][g]), int(s["tiles_on_table"][g])
    s["ends"][g, closed] = s["line_faces"][g, first, 0] if closed == 0 else s["line_faces"][g, first + count - 1, 1]


def broken_line(s: np.ndarray, g: int) -> None:
    """Two tiles on the line that do not meet."""
    first = s["line_first"][g]
    s["line_faces"][g, first, 1] = (s["line_faces"][g, first, 1] + 1) % 7


def tile_in_two_places(s: np.ndarray, g: int) -> None:
    """A tile of a hand also listed as the boneyard's next draw."""
    s["boneyard"][g, s["boneyard_top"][g]] = held(s, g)


def table_tile_not_on_line(s: np.ndarray, g: int) -> None:
    """A tile on the line said to be undealt, and an undealt one said to be on the table: every
    count still agrees, but the line does not hold the tiles located on the table."""
    undealt, on_line = int(np.flatnonzero(s["location"][g] == core.UNDEALT)[0]), laid(s, g)
    s["location"][g, undealt], s["location"][g, on_line] = core.ON_TABLE, core.UNDEALT


def missing_tile(s: np.ndarray, g: int) -> None:
    """A tile the boneyard lists moved into a hand: the boneyard no longer holds it."""
    move(s, g, undrawn(s, g), 1)


def repeated_in_boneyard(s: np.ndarray, g: int) -> None:
    s["boneyard"][g, s["boneyard_size"][g] - 1] = s["boneyard"][g, 0]


COMMON = [
    ("seat 9", set_field("current", 9), "current"),
    ("no seat", set_field("current", -1), "current"),
    ("bad phase", set_field("game_over", 2), "game_over"),
    ("nan reward", set_field("rewards", np.nan, (0,)), r"rewards\[0\]=nan"),
    ("infinite reward", set_field("rewards", -np.inf, (1,)), r"rewards\[1\]=-inf"),
    ("reward too large", set_field("rewards", 3.0, (1,)), r"rewards\[1\]"),
    ("reward of no seat", set_field("rewards", 0.5, (-1,)), r"rewards\[\d\]"),
    ("negative points", set_field("hand_points", -4, (0,)), r"hand_points\[0\]"),
    ("huge total", set_field("match_points", 10**9, (1,)), r"match_points\[1\]"),
    ("pips of no seat", set_field("pips_left", 3, (-1,)), r"pips_left\[\d\]"),
    ("tile with seat 100", lambda s, g: s["location"].__setitem__((g, held(s, g)), 100), r"location\["),
    ("tile at -7", lambda s, g: s["location"].__setitem__((g, held(s, g)), -7), r"location\["),
    ("hand count off by one", adding("hand_count", 1, (0,)), r"hand_count\[0\]"),
    ("negative hand count", set_field("hand_count", -3, (1,)), r"hand_count\[1\]"),
    ("table count off", adding("tiles_on_table", 1), "tiles_on_table"),
    ("void not a flag", set_field("voids", 2, (0, 3)), r"voids\[0\]\[3\]"),
    ("void of no seat", set_field("voids", 1, (-1, 0)), r"voids\[\d\]\[0\]"),
]

LINE = [
    ("line_first 0", set_field("line_first", 0), "line_first"),
    ("line_first past the array", set_field("line_first", 300), "line_first"),
    ("line_first negative", set_field("line_first", -5), "line_first"),
    ("end number 13", set_field("ends", 13, (1,)), r"ends\[1\]"),
    ("end number -4", set_field("ends", -4, (0,)), r"ends\[0\]"),
    ("end not the line's face", line_end_face, r"ends\[\d\]"),
    ("face outside the set", lambda s, g: s["line_faces"].__setitem__((g, s["line_first"][g], 0), 40), "line_faces"),
    ("tiles that do not meet", broken_line, "line_faces"),
    ("tile on the table off the line", table_tile_not_on_line, r"location\["),
    ("hand number of a one-hand game", set_field("hand_number", 3), "hand_number"),
]

DRAW = [
    ("tile outside the set", set_field("location", 0, (90,)), r"location\[90\]"),
    ("boneyard tile 100", lambda s, g: s["boneyard"].__setitem__((g, s["boneyard_top"][g]), 100), r"boneyard\["),
    ("boneyard tile -3", set_field("boneyard", -3, (0,)), r"boneyard\[0\]"),
    ("stale boneyard entry out of range", set_field("boneyard", 120, (80,)), r"boneyard\[80\]"),
    (
        "boneyard pointer past the deal",
        lambda s, g: s["boneyard_top"].__setitem__(g, s["boneyard_size"][g] + 1),
        "boneyard_top",
    ),
    ("negative boneyard pointer", set_field("boneyard_top", -1), "boneyard_top"),
    ("boneyard larger than the deal leaves", set_field("boneyard_size", 60), "boneyard_size"),
    ("tile in hand and boneyard", tile_in_two_places, "boneyard"),
    ("tile missing from the boneyard", missing_tile, r"boneyard\["),
    ("tile listed twice", repeated_in_boneyard, "boneyard lists tile"),
    ("leader 5", set_field("leader", 5), "leader"),
    ("first leader -1", set_field("first_leader", -1), "first_leader"),
    ("lead tile 100", set_field("lead_tile", 100), "lead_tile"),
    ("no lead tile", set_field("lead_tile", -1), "lead_tile"),
]

HUNGARIAN = [
    ("lost not a flag", set_field("lost", 2, (0,)), r"lost\[0\]"),
    ("lost seat of no player", set_field("lost", 1, (3,)), r"lost"),
    ("nobody left to play", set_field("lost", 1, (0,)), "lost"),
    ("run_end 2", set_field("run_end", 2), "run_end"),
    ("run_active 3", set_field("run_active", 3), "run_active"),
    ("leader 7", set_field("leader", 7), "leader"),
    ("both ends open with one open end", both_ends_open, "open_ends=1 keeps 1 open"),
    (
        "a tile set aside in a hand",
        lambda s, g: move(s, g, int(np.flatnonzero(s["location"][g] == -1)[0]), 1),
        "set aside",
    ),
]

MEXICAN = [
    ("train end 13", set_field("train_end", 13, (0,)), r"train_end\[0\]"),
    (
        "train end off its train",
        lambda s, g: s["train_end"].__setitem__((g, 4), (s["train_end"][g, 4] + 1) % 13),
        r"train_end\[4\]",
    ),
    ("end of no train", lambda s, g: s["train_end"].__setitem__((g, 7), (s["engine"][g] + 1) % 13), r"train_end\[7\]"),
    ("engine 13", set_field("engine", 13), "engine"),
    ("engine -1", set_field("engine", -1), "engine"),
    ("round 20", set_field("round_number", 20), "round_number"),
    ("starter 9", set_field("starter", 9), "starter"),
    ("pending train 12", set_field("pending_train", 12), "pending_train"),
    ("pending train -5", set_field("pending_train", -5), "pending_train"),
    ("train 12", lambda s, g: s["train_of"].__setitem__((g, laid(s, g)), 12), r"train_of\["),
    ("hand tile on a train", lambda s, g: s["train_of"].__setitem__((g, held(s, g)), 0), r"train_of\["),
    (
        "play order of the engine",
        lambda s, g: s["play_order"].__setitem__((g, int(s["engine"][g]) * (int(s["engine"][g]) + 3) // 2), 5),
        "play_order",
    ),
    ("play order 500", lambda s, g: s["play_order"].__setitem__((g, laid(s, g)), 500), "play_order"),
    ("marker 2", set_field("marker", 2, (0,)), r"marker\[0\]"),
    ("marker of no seat", set_field("marker", 1, (6,)), r"marker\[6\]"),
    ("train size off", adding("train_size", 1, (4,)), r"train_size\[4\]"),
    ("train of no seat", set_field("train_size", 1, (8,)), r"train_size\[8\]"),
    ("opening mid-game", set_field("opening", 1), "opening"),
    ("turn flag 2", set_field("turn_played", 2), "turn_played"),
    ("boneyard tile 120", lambda s, g: s["boneyard"].__setitem__((g, s["boneyard_top"][g]), 120), r"boneyard\["),
    (
        "boneyard pointer past the deal",
        lambda s, g: s["boneyard_top"].__setitem__(g, s["boneyard_size"][g] + 1),
        "boneyard_top",
    ),
    ("tile in hand and boneyard", tile_in_two_places, "boneyard"),
    ("tile missing from the boneyard", missing_tile, r"boneyard\["),
    ("boneyard larger than the deal leaves", set_field("boneyard_size", 80), "boneyard_size"),
]

CASES = (
    [("draw-2p", *case) for case in COMMON + LINE + DRAW]
    + [("block-4p-match", "block pointer moved", set_field("boneyard_top", 1), "boneyard_top")]
    + [("hungarian-2p", *case) for case in COMMON + LINE + HUNGARIAN]
    + [("hungarian-4p-elimination", "everyone out", set_field("lost", 1, (slice(None),)), "lost")]
    + [("mexican-4p", *case) for case in COMMON + MEXICAN]
)


@pytest.mark.parametrize(
    ("name", "damage", "field"),
    [pytest.param(name, damage, field, id=f"{name}-{what}") for name, what, damage, field in CASES],
)
def test_damaged_records_are_refused_naming_game_and_field(name: str, damage: Callable, field: str) -> None:
    variant, options = CONFIGS[name]
    game = domino_env.make_game(variant, **options)
    state = played(name)[0].copy()
    g = chosen(state)
    game.check_records(state)  # undamaged, it passes
    damage(state, g)
    with pytest.raises(ValueError, match=rf"^game {g}: .*{field}") as refused:
        game.check_records(state)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("name", "damage"),
    [pytest.param(name, damage, id=f"{name}-{what}") for name, what, damage, _ in CASES[::3]],
)
def test_restore_refuses_damaged_records_and_changes_nothing(name: str, damage: Callable) -> None:
    """A refused restore leaves the engine as it was: it plays on exactly as its twin, which was
    never asked to restore anything."""
    variant, options = CONFIGS[name]
    state = played(name)[0].copy()
    damage(state, chosen(state))
    engine, twin = (domino_env.make_batched(variant, 16, num_threads=1, **options) for _ in range(2))
    _, mask, _ = engine.reset(seed=1)
    twin.reset(seed=1)
    with pytest.raises(ValueError, match=r"^game \d+: "):
        engine.restore(state, played(name)[1])
    assert_same_games(engine, twin, mask)


def assert_same_games(engine: domino_env.BatchedEnv, twin: domino_env.BatchedEnv, mask: np.ndarray) -> None:
    assert engine.state.tobytes() == twin.state.tobytes()
    rng = np.random.default_rng(4)
    for _ in range(5):
        actions = sample_legal(mask, rng.random(mask.shape[0]))
        outputs = engine.step(actions)
        assert all(a.tobytes() == b.tobytes() for a, b in zip(outputs, twin.step(actions), strict=True))
        mask = outputs[1]


@pytest.mark.parametrize("name", ["draw-2p", "hungarian-2p", "mexican-4p"])
def test_restore_refuses_a_finished_game_or_a_mask_the_rules_do_not_give(name: str) -> None:
    variant, options = CONFIGS[name]
    saved_state, saved_mask = played(name)
    engine, twin = (domino_env.make_batched(variant, 16, num_threads=1, **options) for _ in range(2))
    _, mask, _ = engine.reset(seed=1)
    twin.reset(seed=1)
    finished = saved_state.copy()
    finished["game_over"][3] = 1
    with pytest.raises(ValueError, match=r"^game 3: game_over=1"):
        engine.restore(finished, saved_mask)
    g = chosen(saved_state)
    for action in (np.flatnonzero(saved_mask[g] == 0)[-1], np.flatnonzero(saved_mask[g])[0]):
        wrong = saved_mask.copy()
        wrong[g, action] ^= 1  # allows a move the rules forbid (a draw from nothing, ...), or forbids a legal one
        with pytest.raises(ValueError, match=rf"^game {g}: the mask .*action {action}"):
            engine.restore(saved_state.copy(), wrong)
    assert_same_games(engine, twin, mask)
    engine.restore(saved_state.copy(), saved_mask)  # undamaged, it restores
    assert engine.state.tobytes() == saved_state.tobytes()


def test_records_of_another_variant_are_refused() -> None:
    draw = domino_env.make_game("draw")
    with pytest.raises(ValueError, match="record type"):
        draw.check_records(played("hungarian-2p")[0])
