"""The general checks of the draw environment, for Mexican Train.

PettingZoo's api_test and seed_test; invariants over 10,000 random rounds per configuration on
the batched engine, against a restatement of RULES.md section 4 in plain numpy (legal actions,
every transition, the voids, scoring, the engine and the rounds of a match); no leak of hidden
tiles, nor of whether a drawn tile could be played; the built-in agents on the batched engine
(determinism and AEC-batched agreement: tests/test_determinism.py).

The invariants run by default on ``INVARIANT_CONFIGS``, which between them cover 2, 4, 6 and 8
players, every ``engine`` mode, ``first_turn="chain"`` and ``must_play_drawn`` on and off. Setting
``MEXICAN_TRAIN_GRID=1`` adds every combination of those (``GRID_CONFIGS``, 48 of them, a few
minutes): ``MEXICAN_TRAIN_GRID=1 python -m pytest tests/test_mexican_train_general.py -k invariants``.
"""

from __future__ import annotations

import itertools
import os
from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import domino_env
from agents import GreedyAgent, RandomAgent, sample_legal
from domino_env import mexican_train_v0
from domino_env.games import mexican_train_rules as rules
from domino_env.tiles import TILE_HIGH, TILE_LOW, TILE_VALUE
from tests.snapshots import mid_game_states

pytestmark = pytest.mark.core

CONFIGS: dict[str, dict] = {
    "2p": {"num_players": 2},
    "4p": {"num_players": 4},
    "6p": {"num_players": 6},
    "8p": {"num_players": 8},
    "4p-descending": {"num_players": 4, "engine": "descending"},
    "6p-descending-chain-must-play": {
        "num_players": 6,
        "engine": "descending",
        "first_turn": "chain",
        "must_play_drawn": True,
    },
    "8p-chain-must-play": {"num_players": 8, "first_turn": "chain", "must_play_drawn": True},
    "2p-match-descending-chain": {"num_players": 2, "match": True, "engine": "descending", "first_turn": "chain"},
    "3p-double-nine-blank-50-points": {"num_players": 3, "set_size": 9, "double_blank_value": 50, "reward": "points"},
    "4p-set-aside-chain-must-play": {
        "num_players": 4,
        "engine": "set_aside",
        "first_turn": "chain",
        "must_play_drawn": True,
    },
    "6p-match-chain-points": {"num_players": 6, "match": True, "first_turn": "chain", "reward": "points"},
    "2p-big-hands-set-aside": {"num_players": 2, "hand_size": 40, "engine": "set_aside"},  # blocked rounds
    "2p-match": {"num_players": 2, "match": True},
    "4p-match-set-aside": {"num_players": 4, "match": True, "engine": "set_aside"},
    "8p-match-double-nine-blank-50-points": {
        "num_players": 8,
        "match": True,
        "set_size": 9,
        "double_blank_value": 50,
        "reward": "points",
    },
}
ROUNDS = 10_000
BATCH = 1_000
# The invariants run on every configuration but 6p and 2p-match, which others cover (six players
# in a match, matches of four and eight).
INVARIANT_CONFIGS = [name for name in CONFIGS if name not in ("6p", "2p-match")]
GRID_CONFIGS = {
    f"grid-{players}p-{engine}-{first_turn}-{'must' if must else 'may'}-play": {
        "num_players": players,
        "engine": engine,
        "first_turn": first_turn,
        "must_play_drawn": must,
    }
    for players, engine, first_turn, must in itertools.product(
        (2, 4, 6, 8), rules.ENGINE_NAMES, rules.FIRST_TURN_NAMES, (False, True)
    )
}
if os.environ.get("MEXICAN_TRAIN_GRID") == "1":
    INVARIANT_CONFIGS += list(GRID_CONFIGS)
    CONFIGS |= GRID_CONFIGS


# ---------------------------------------------------------------------------------------------
# PettingZoo's own tests

API_CONFIGS = list(CONFIGS)  # 2, 4, 6 and 8 players, single rounds and matches, every option


@pytest.mark.parametrize("name", API_CONFIGS)
def test_api(name: str) -> None:
    api_test(domino_env.make("mexican_train", **CONFIGS[name]), num_cycles=300)


@pytest.mark.parametrize("name", API_CONFIGS)
def test_seed(name: str) -> None:
    seed_test(lambda: mexican_train_v0.env(**CONFIGS[name]), num_cycles=300)


# ---------------------------------------------------------------------------------------------
# The rules restated in numpy, over whole batches of state records. A position is a dict of
# integer arrays named as the record's fields, so that positions between two steps (after a
# draw, after a play) can be built and judged too.

FIELDS = (
    "location",
    "hand_count",
    "boneyard_top",
    "train_end",
    "train_size",
    "marker",
    "pending_train",
    "had_turn",
    "turn_played",
    "turn_drew",
    "opening",
    "passes",
    "current",
    "voids",
)


def position(state: np.ndarray, cfg: rules.MexicanTrainConfig) -> dict[str, np.ndarray]:
    """The fields of ``FIELDS`` for this configuration's tiles, seats and trains (int16 copies)."""
    t, p = cfg.num_tiles, cfg.num_players
    sizes = {"location": t, "hand_count": p, "train_end": p + 1, "train_size": p + 1}
    sizes |= {"marker": p, "had_turn": p, "voids": p}
    return {key: (state[key][:, : sizes[key]] if key in sizes else state[key]).astype(np.int16) for key in FIELDS}


NUMBER = np.arange(rules.NUMBERS)[:, None]
SHOWS = (TILE_LOW[None, :] == NUMBER) | (TILE_HIGH[None, :] == NUMBER)  # [N, MAX_TILES]: tile t shows n


def rows_of(pos: dict, which: np.ndarray) -> dict[str, np.ndarray]:
    """The games ``which`` of a position (the reference judges only the games that need it)."""
    return {key: value[which] for key, value in pos.items()}


def fitting(numbers: np.ndarray, cfg: rules.MexicanTrainConfig) -> np.ndarray:
    """[..., T]: tile t shows ``numbers[...]``."""
    return SHOWS[:, : cfg.num_tiles][numbers]


def open_trains(pos: dict, seat: np.ndarray, cfg: rules.MexicanTrainConfig) -> np.ndarray:
    """[B, P+1] (trains in seat order, then the Mexican Train): where ``seat`` may play now.

    RULES.md: a pending double must be satisfied on its own train; otherwise a seat plays on its
    own train, on the Mexican Train once it or its own train is started, and on every marked
    train, an empty one only once its own train is started; on its first turn it begins its own
    train if it can; a first-turn chain stays on it."""
    rows = np.arange(len(seat))
    players = cfg.num_players
    trains = np.arange(players + 1)[None]
    own = trains == seat[:, None]
    mine = pos["location"] == seat[:, None]
    can_begin = (mine & fitting(pos["train_end"][rows, seat], cfg)).any(1) & (pos["had_turn"][rows, seat] == 0)
    chaining = (pos["current"] == seat) & (pos["turn_played"] == 1)
    started = pos["train_size"] > 0
    own_started = started[rows, seat][:, None]
    startable = started[:, :players] | own_started  # an empty station needs the own train started
    marked = np.concatenate([(pos["marker"] == 1) & startable, np.zeros_like(own_started)], 1)
    mexican = (trains == players) & (started[:, [players]] | own_started)
    allowed = np.where((can_begin | chaining)[:, None], own, own | mexican | marked)
    pending = pos["pending_train"][:, None]
    return np.where(pending >= 0, trains == pending, allowed)


def plays(pos: dict, seat: np.ndarray, cfg: rules.MexicanTrainConfig, trains: np.ndarray | None = None) -> np.ndarray:
    """[B, T, K]: ``seat`` may play tile t on train ``trains[b, k]`` (default: train k)."""
    rows = np.arange(len(seat))[:, None]
    trains = np.arange(cfg.num_players + 1)[None] if trains is None else trains
    mine = pos["location"] == seat[:, None]
    fit = fitting(pos["train_end"][rows, trains], cfg).transpose(0, 2, 1)
    return mine[:, :, None] & fit & open_trains(pos, seat, cfg)[rows, trains][:, None, :]


def open_numbers(pos: dict, seat: np.ndarray, cfg: rules.MexicanTrainConfig) -> np.ndarray:
    """[B, N]: the open numbers of the trains ``seat`` may play on."""
    numbers = np.zeros((len(seat), rules.NUMBERS), bool)
    trains = open_trains(pos, seat, cfg)
    rows = np.repeat(np.arange(len(seat)), trains.shape[1])
    numbers[rows[trains.ravel()], pos["train_end"].ravel()[trains.ravel()]] = True
    return numbers


def trains_by_target(seat: np.ndarray, cfg: rules.MexicanTrainConfig) -> np.ndarray:
    """[B, P+1]: the train ``seat`` calls target j (0 own, 1 Mexican, 1 + k the k-th seat after)."""
    players = cfg.num_players
    target = np.arange(players + 1)[None]
    return np.where(target == 0, seat[:, None], np.where(target == 1, players, (seat[:, None] + target - 1) % players))


def reference_mask(state: np.ndarray, pos: dict, cfg: rules.MexicanTrainConfig) -> np.ndarray:
    """The acting seat's legal actions: its plays; ``draw`` when it has none and has not drawn
    since its last play and the boneyard is not empty, else ``pass``; ``pass`` also keeps a
    playable drawn tile (unless ``must_play_drawn`` or a double is pending), ends a first-turn
    chain, and ends the starter's opening turn (where there is no draw)."""
    batch, stride = state.shape[0], cfg.num_players + 1
    seat = pos["current"]
    legal = plays(pos, seat, cfg, trains_by_target(seat, cfg))
    mask = np.zeros((batch, cfg.num_tiles * stride + 2), np.int8)
    mask[:, :-2] = legal.reshape(batch, -1)
    can_play = legal.any((1, 2))
    pending = pos["pending_train"] >= 0
    chaining = ((pos["turn_played"] == 1) & ~pending) | (pos["opening"] == 1)
    drew = pos["turn_drew"] == 1
    boneyard = state["boneyard_size"] - state["boneyard_top"]
    draw = ~can_play & ~drew & (boneyard > 0) & ~chaining
    keep = can_play & drew & ~pending & (not cfg.must_play_drawn)
    mask[:, -2] = draw
    mask[:, -1] = chaining | (~can_play & ~draw) | keep
    return mask


def reference_step(
    before: np.ndarray, old: dict, actions: np.ndarray, cfg: rules.MexicanTrainConfig
) -> dict[str, np.ndarray]:
    """The position RULES.md section 4 makes of ``actions`` in ``before`` (whose position is
    ``old``), with ``hand_over`` and ``domino`` (the seat went out)."""
    batch, players, stride = before.shape[0], cfg.num_players, cfg.num_players + 1
    draw_action = cfg.num_tiles * stride
    rows = np.arange(batch)
    pos = {key: value.copy() for key, value in old.items()}
    seat = old["current"]
    drawing = actions == draw_action
    passing = actions == draw_action + 1
    playing = ~drawing & ~passing
    voids = pos["voids"]

    # A play: the tile goes on its train, whose open number becomes the tile's other face.
    tile = np.where(playing, actions // stride, 0)
    target = actions % stride
    train = np.where(target == 0, seat, np.where(target == 1, players, (seat + target - 1) % players))
    r, t, k = rows[playing], tile[playing], train[playing]
    inner = pos["train_end"][r, k]
    pos["train_end"][r, k] = np.where(TILE_LOW[t] == inner, TILE_HIGH[t], TILE_LOW[t])
    pos["train_size"][r, k] += 1
    pos["location"][r, t] = rules.ON_TABLE
    pos["hand_count"][r, seat[r]] -= 1
    on_own = playing & (train == seat)
    pos["marker"][rows[on_own], seat[on_own]] = 0
    drawn_played = playing & (old["turn_drew"] == 1)  # the rest of the hand fitted nothing open
    voids[rows[drawn_played], seat[drawn_played]] = open_numbers(rows_of(old, drawn_played), seat[drawn_played], cfg)
    domino = playing & (pos["hand_count"][rows, seat] == 0)
    double = playing & (TILE_LOW[tile] == TILE_HIGH[tile])
    pos["pending_train"] = np.where(double, train, np.where(playing, -1, old["pending_train"]))
    # A first-turn tile on the own train: under "chain" the turn goes on until the seat passes.
    chain = playing & ~double & on_own & (old["had_turn"][rows, seat] == 0) & (cfg.first_turn == rules.FIRST_TURN_CHAIN)

    # A draw: the next boneyard tile, unseen; the seat decides next, whether the tile fits or not.
    r = rows[drawing]
    drawn = before["boneyard"][r, before["boneyard_top"][r]]
    pos["location"][r, drawn] = seat[r]
    pos["hand_count"][r, seat[r]] += 1
    pos["boneyard_top"][r] += 1
    voids[r, seat[r]] = 0
    pos["turn_drew"] = np.where(drawing, 1, np.where(playing, 0, old["turn_drew"]))
    pos["turn_played"] = np.where(playing, 1, old["turn_played"])
    pos["opening"] = np.where(playing | passing, 0, old["opening"])

    # A pass: ends a chain or the opening turn, keeps a drawn tile (showing it fits nothing when
    # it could not have been kept otherwise), or (nothing to play or draw) shows the voids.
    chain_stop = passing & (((old["turn_played"] == 1) & (old["pending_train"] < 0)) | (old["opening"] == 1))
    keep = passing & ~chain_stop & (old["turn_drew"] == 1)
    forced_keep = keep & ((old["pending_train"] >= 0) | bool(cfg.must_play_drawn))
    stuck = passing & ~chain_stop & ~keep
    shown = forced_keep | stuck
    voids[rows[shown], seat[shown]] |= open_numbers(rows_of(old, shown), seat[shown], cfg)
    marker_up = keep | stuck
    pos["marker"][rows[marker_up], seat[marker_up]] = 1
    pos["passes"] = np.where(stuck & (old["turn_played"] == 0), old["passes"] + 1, np.where(stuck, old["passes"], 0))

    turn_over = (playing & ~double & ~chain & ~domino) | passing
    r = rows[turn_over]
    pos["had_turn"][r, seat[r]] = 1
    pos["turn_played"][r] = 0
    pos["turn_drew"][r] = 0
    pos["current"] = np.where(turn_over, (seat + 1) % players, seat)

    # Blocked: everyone passed in succession and nobody can play on the table as it stands.
    blocked = stuck & (pos["passes"] >= players)
    if blocked.any():
        sub = rows_of(pos, blocked)
        anyone = np.zeros(int(blocked.sum()), bool)
        for other in range(players):
            anyone |= plays(sub, np.full(len(anyone), other), cfg).any((1, 2))
        blocked[blocked] = ~anyone
    return pos | {"hand_over": domino | blocked, "domino": domino}


def reference_scores(pos: dict, rows: np.ndarray, cfg: rules.MexicanTrainConfig) -> tuple[np.ndarray, np.ndarray]:
    """(hand points, rewards) of the rounds ending in ``rows``: the pips left in each hand (0-0
    at ``double_blank_value``); the seat that went out, else the lowest totals, share +1 and the
    others -1 (everyone tied: 0), or the mean minus the own points over ``points_scale``."""
    value = TILE_VALUE[: cfg.num_tiles].astype(np.int64).copy()
    value[0] = cfg.double_blank_value
    location = pos["location"][rows]
    points = np.stack([(value * (location == p)).sum(1) for p in range(cfg.num_players)], 1)
    if cfg.reward == rules.REWARD_POINTS:
        return points, (points.mean(1, keepdims=True) - points) / cfg.points_scale
    went_out = np.arange(cfg.num_players)[None] == pos["current"][rows, None]
    winners = np.where(pos["domino"][rows, None], went_out, points == points.min(1, keepdims=True))
    won, lost = winners.sum(1, keepdims=True), (~winners).sum(1, keepdims=True)
    rewards = np.where(winners, 1.0 / won, -1.0 / np.maximum(lost, 1))
    return points, np.where(lost > 0, rewards, 0.0)


def check_fresh_rounds(state: np.ndarray, rows: np.ndarray, previous: np.ndarray, cfg: rules.MexicanTrainConfig):
    """Rounds just dealt in ``rows``, the engine on the hub and nothing else played. Highest
    double: no hand holds a higher double than the engine, whose holder (one tile fewer) opens.
    Descending: engine N - round; seats drew for it from the seat after ``previous`` (the last
    round's starter) and its drawer, or holder, placed it and let the next seat play. Set aside:
    engine N - round, the seat after ``previous`` plays first and nobody drew."""
    s = state[rows]
    players, size = cfg.num_players, cfg.hand_size
    engine = s["engine"].astype(np.int64)
    assert (s["location"][np.arange(len(rows)), engine * (engine + 1) // 2 + engine] == rules.ON_TABLE).all()
    assert np.array_equal(s["opening"], np.full(len(rows), cfg.engine == rules.ENGINE_HIGHEST_DOUBLE))
    assert (s["tiles_on_table"] == 1).all() and not s["train_size"].any() and not s["marker"].any()
    assert not s["had_turn"].any() and (s["pending_train"] == rules.NO_DOUBLE).all()
    assert (s["train_end"][:, : players + 1] == engine[:, None]).all()
    # The boneyard's order lists its tiles once each: the undrawn part exactly the tiles in the
    # boneyard (the draws, checked step by step, keep it so), the drawn part tiles now in hands.
    location = s["location"][:, : cfg.num_tiles].astype(np.int64)
    order = np.arange(s["boneyard"].shape[1])[None]
    dealt = order < s["boneyard_size"][:, None]
    undrawn = dealt & (order >= s["boneyard_top"][:, None])
    where = np.take_along_axis(location, np.where(dealt, s["boneyard"], 0).astype(np.int64), axis=1)
    assert (where[undrawn] == rules.IN_BONEYARD).all() and (where[dealt & ~undrawn] != rules.IN_BONEYARD).all()
    listed = np.sort(np.where(dealt, s["boneyard"], 1000 + order), axis=1)
    assert (np.diff(listed, axis=1) != 0).all()
    first = (previous + 1) % players
    drawn = s["boneyard_top"].astype(np.int64)
    if cfg.engine == rules.ENGINE_HIGHEST_DOUBLE:
        doubles = np.arange(cfg.set_size + 1)
        held = s["location"][:, doubles * (doubles + 1) // 2 + doubles] >= 0  # [B, N]: double n-n in a hand
        assert not (held & (doubles[None] > engine[:, None])).any()
        assert (drawn == 0).all() and np.array_equal(s["current"], s["starter"])
        expected = size - (np.arange(players)[None] == s["starter"][:, None])
        assert np.array_equal(s["hand_count"][:, :players], expected)
        return
    assert np.array_equal(engine, cfg.set_size - s["round_number"])
    if cfg.engine == rules.ENGINE_SET_ASIDE:
        assert (drawn == 0).all() and np.array_equal(s["starter"], first) and np.array_equal(s["current"], first)
        assert (s["hand_count"][:, :players] == size).all()
        return
    searched = drawn > 0
    assert np.array_equal(s["starter"][searched], ((first + drawn - 1) % players)[searched])
    assert np.array_equal(s["current"], (s["starter"] + 1) % players)
    seats = np.arange(players)[None]
    draws = drawn[:, None] // players + ((seats - first[:, None]) % players < drawn[:, None] % players)
    expected = size + draws - (seats == s["starter"][:, None])
    assert np.array_equal(s["hand_count"][:, :players], expected)


def check_tiles_accounted(state: np.ndarray, pos: dict, cfg: rules.MexicanTrainConfig) -> None:
    """Each tile in one hand, the boneyard or on the table (the engine on the hub, the rest on a
    train), the counters agreeing; every public void true of its hand. ``pos`` is the position
    of ``state``."""
    t, players = cfg.num_tiles, cfg.num_players
    batch = len(state)
    rows = np.arange(batch)[:, None]
    loc = pos["location"]
    places = players + 2  # ON_TABLE, IN_BONEYARD, then the seats
    count = np.bincount((rows * places + loc + 2).ravel(), minlength=batch * places).reshape(batch, places)
    assert np.array_equal(count[:, 2:], pos["hand_count"])
    assert np.array_equal(count[:, 0], state["tiles_on_table"])
    assert np.array_equal(count[:, 1], state["boneyard_size"] - state["boneyard_top"])
    assert count.sum(1).tolist() == [t] * batch
    on_trains = np.bincount((rows * (players + 2) + state["train_of"][:, :t] + 1).ravel(), minlength=batch * places)
    assert np.array_equal(on_trains.reshape(batch, places)[:, 1:], state["train_size"][:, : players + 1])
    assert np.array_equal(state["train_size"][:, : players + 1].sum(1) + 1, state["tiles_on_table"])
    voids = pos["voids"] == 1
    for seat in range(players):
        excluded = voids[:, seat, TILE_LOW[:t]] | voids[:, seat, TILE_HIGH[:t]]  # [B, T]
        assert not ((loc == seat) & excluded).any(), "a void is false"


def checked_steps(batch: domino_env.BatchedEnv, seed: int, seen: Counter | None = None) -> Iterator[tuple[int, int]]:
    """Step ``batch`` with random legal actions for ever, asserting every invariant before and
    after each step against the restatement above; yields the episodes and the rounds that ended
    on each step, and counts in ``seen`` the rounds ``"blocked"`` and those ``"passed_on"`` (where
    everyone has passed in succession yet a seat can play on a train marked meanwhile)."""
    seen = Counter() if seen is None else seen
    size = batch.batch_size
    cfg = batch.game.config
    players = cfg.num_players
    max_steps = 2 * cfg.num_tiles * 2 * players + 2 * players
    rng = np.random.default_rng(seed)
    _, mask, seat = batch.reset(seed=seed)
    check_fresh_rounds(batch.state, np.arange(size), np.full(size, players - 1), cfg)
    steps_in_round = np.zeros(size, np.int64)
    keys = ("location", "hand_count", "boneyard_top", "train_end", "train_size", "marker", "pending_train")
    keys += ("had_turn", "turn_played", "turn_drew", "opening", "passes", "current", "voids")
    pos = position(batch.state, cfg)
    while True:
        state = batch.state
        check_tiles_accounted(state, pos, cfg)
        assert np.array_equal(mask, reference_mask(state, pos, cfg))
        assert np.array_equal(seat, state["current"])
        before = state.copy()
        actions = sample_legal(mask, rng.random(size))
        expected = reference_step(before, pos, actions, cfg)
        _, mask, seat, rewards, done = batch.step(actions)
        after = batch.state
        pos = position(after, cfg)
        assert np.array_equal(batch.hand_over, expected["hand_over"])
        going_on = ~batch.hand_over
        for key in keys:
            differs = (pos[key] != expected[key]).reshape(size, -1).any(1)
            assert not (differs & going_on).any(), key
        assert not rewards[going_on].any()
        assert np.allclose(rewards.sum(1), 0.0, atol=1e-5)
        assert (np.abs(rewards) <= 1.0 + 1e-6).all()

        ended = np.flatnonzero(batch.hand_over)
        points, round_rewards = reference_scores(expected, ended, cfg)
        assert np.array_equal(batch.hand_points[ended], points)
        assert np.allclose(rewards[ended], round_rewards, atol=1e-6)
        last_round = before["round_number"][ended] == cfg.set_size
        assert np.array_equal(done[ended], last_round if cfg.match else np.ones(len(ended), bool))
        next_round = ended[~done[ended]]
        totals = before["match_points"][next_round, :players] + points[~done[ended]]
        assert np.array_equal(after["match_points"][next_round, :players], totals)
        assert np.array_equal(after["round_number"][next_round], before["round_number"][next_round] + 1)
        check_fresh_rounds(after, next_round, before["starter"][next_round].astype(np.int64), cfg)
        restarted = np.flatnonzero(done)
        assert not after["match_points"][restarted].any() and not after["round_number"][restarted].any()
        check_fresh_rounds(after, restarted, np.full(len(restarted), players - 1), cfg)

        seen["blocked"] += int((expected["hand_over"] & ~expected["domino"]).sum())
        seen["passed_on"] += int(((expected["passes"] >= players) & going_on).sum())
        steps_in_round += 1
        steps_in_round[batch.hand_over] = 0
        assert steps_in_round.max() <= max_steps, "a round did not end"
        yield int(done.sum()), len(ended)


@pytest.mark.parametrize("name", INVARIANT_CONFIGS)
def test_random_rounds_keep_the_invariants(name: str) -> None:
    """Every step of 10,000 random rounds against the restatement above. Blocked rounds occur, and
    so do rounds where everyone has passed in succession yet a seat can play on a train marked
    meanwhile (they go on)."""
    options = CONFIGS[name]
    # Enough rounds per game for every game of a match to finish one or two whole matches.
    size = ROUNDS // (2 * (options.get("set_size", 12) + 1)) if options.get("match") else BATCH
    seen: Counter = Counter()
    rounds = finished = 0
    for episodes, ended in checked_steps(domino_env.make_batched("mexican_train", size, **options), 11, seen):
        rounds += ended
        finished += episodes
        if rounds >= ROUNDS:
            break
    assert finished > 0 and seen["blocked"] > 0
    assert seen["passed_on"] > 0 or options.get("num_players") == 8  # (eight passes in a row are rare)


# ---------------------------------------------------------------------------------------------
# No leak: the observation ignores every tile its observer cannot see

LEAK_CONFIGS = ["2p", "4p-set-aside-chain-must-play", "3p-double-nine-blank-50-points", "8p", "2p-match"]


def shuffle_hidden(record: np.ndarray, observer: int, cfg: rules.MexicanTrainConfig, rng) -> np.ndarray:
    """A copy of ``record`` with the tiles ``observer`` cannot see (other hands and the undrawn
    boneyard, in any order) dealt anew into the same places."""
    shuffled = record.copy()
    s = shuffled[0]
    loc = s["location"][: cfg.num_tiles]
    hidden = np.flatnonzero((loc != observer) & (loc != rules.ON_TABLE))
    loc[hidden] = loc[rng.permutation(hidden)]
    top, size = int(s["boneyard_top"]), int(s["boneyard_size"])
    s["boneyard"][top:size] = rng.permutation(np.flatnonzero(loc == rules.IN_BONEYARD))
    return shuffled


@pytest.mark.parametrize("name", LEAK_CONFIGS)
def test_observation_ignores_hidden_tiles(name: str) -> None:
    game = domino_env.make_game("mexican_train", **CONFIGS[name])
    rng = np.random.default_rng(0)
    moved = 0
    for record in mid_game_states("mexican_train", CONFIGS[name]):
        for observer in range(game.num_players):
            obs, mask = game.view(record, 0, observer)
            for _ in range(2):
                other = shuffle_hidden(record, observer, game.config, rng)
                moved += not np.array_equal(other["boneyard"], record["boneyard"])
                other_obs, other_mask = game.view(other, 0, observer)
                assert np.array_equal(obs, other_obs)
                assert np.array_equal(mask, other_mask)
    assert moved > 500, "the shuffles must actually move hidden tiles"


def assert_same_for_others(game, games: list[np.ndarray], seat: int) -> None:
    """Every seat but ``seat`` is shown the same in the two ``games``."""
    for other in range(game.num_players):
        if other != seat:
            (obs_a, mask_a), (obs_b, mask_b) = (game.view(g, 0, other) for g in games)
            assert np.array_equal(obs_a, obs_b) and np.array_equal(mask_a, mask_b)


def drawn_next(record: np.ndarray, tile: int) -> np.ndarray:
    """A copy of ``record`` whose boneyard gives ``tile`` (undrawn) at the next draw."""
    other = record.copy()
    order = other[0]["boneyard"]
    top = int(other[0]["boneyard_top"])
    where = top + int(np.flatnonzero(order[top : other[0]["boneyard_size"]] == tile)[0])
    order[top], order[where] = order[where], order[top]
    return other


@pytest.mark.parametrize("name", [*LEAK_CONFIGS, "4p-descending", "6p-descending-chain-must-play"])
def test_whether_a_drawn_tile_fits_is_hidden(name: str) -> None:
    """Two games that differ only in the boneyard's order, so that the acting seat draws a tile
    it can play in one and a tile it cannot in the other: every other seat is shown the same
    after the draw and, where the drawer may keep a playable tile, after it keeps it (``pass``)."""
    game = domino_env.make_game("mexican_train", **CONFIGS[name])
    draw, keep = game.num_actions - 2, game.num_actions - 1
    drawn = kept = 0
    for record in mid_game_states("mexican_train", CONFIGS[name]):
        seat = game.current_seat(record, 0)
        if record[0]["game_over"] or not game.view(record, 0, seat)[1][draw]:
            continue
        trains = rules.open_trains(record, game.packed_config, 0, seat)
        numbers = [int(record[0]["train_end"][k]) for k in range(game.num_players + 1) if (trains >> k) & 1]
        s = record[0]
        undrawn = s["boneyard"][s["boneyard_top"] : s["boneyard_size"]]
        fits = [t for t in undrawn if TILE_LOW[t] in numbers or TILE_HIGH[t] in numbers]
        misses = [t for t in undrawn if t not in fits]
        if not fits or not misses:
            continue
        games = [drawn_next(record, fits[0]), drawn_next(record, misses[0])]
        for g in games:
            game.step(g, 0, draw)
        assert_same_for_others(game, games, seat)
        drawn += 1
        if all(game.view(g, 0, seat)[1][keep] for g in games):
            for g in games:
                game.step(g, 0, keep)
            assert_same_for_others(game, games, seat)
            kept += 1
    assert drawn > 10
    assert kept > 5 or CONFIGS[name].get("must_play_drawn"), "the playable drawn tile must be kept sometimes"


def test_own_hand_is_visible_to_its_owner_only():
    """Control: trading one of seat 0's tiles with one of seat 1's changes their views only."""
    options = {"num_players": 3}
    game = domino_env.make_game("mexican_train", **options)
    record = mid_game_states("mexican_train", options, count=5)[0]
    loc = record[0]["location"]
    mine, theirs = int(np.flatnonzero(loc == 0)[0]), int(np.flatnonzero(loc == 1)[0])
    traded = record.copy()
    traded[0]["location"][mine], traded[0]["location"][theirs] = 1, 0
    assert not np.array_equal(game.view(record, 0, 0)[0], game.view(traded, 0, 0)[0])
    assert not np.array_equal(game.view(record, 0, 1)[0], game.view(traded, 0, 1)[0])
    assert np.array_equal(game.view(record, 0, 2)[0], game.view(traded, 0, 2)[0])


# ---------------------------------------------------------------------------------------------
# The built-in agents


@pytest.mark.parametrize("agent_class", [RandomAgent, GreedyAgent])
def test_agents_play_the_batched_engine(agent_class) -> None:
    batch = domino_env.make_batched("mexican_train", 256, num_players=4)
    agent = agent_class(batch.game, seed=0)
    obs, mask, _ = batch.reset(seed=1)
    finished = 0
    for _ in range(1500):
        actions = agent.act(obs, mask)
        assert mask[np.arange(256), actions].all()
        obs, mask, _, _, done = batch.step(actions)
        finished += int(done.sum())
    assert finished > 500
