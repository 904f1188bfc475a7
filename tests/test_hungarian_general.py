"""The general checks of the draw environment, for Hungarian Dominoes.

PettingZoo's api_test and seed_test; invariants over 10,000 random games per configuration on
the batched engine, against a restatement of RULES.md section 3 in plain numpy (legal actions,
every transition of a turn, scoring and the match limit); no leak of hidden tiles, the 4 set
aside included (determinism and AEC-batched agreement: tests/test_determinism.py);
the built-in agents on the batched engine.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import domino_env
from agents import GreedyAgent, RandomAgent, sample_legal
from domino_env import hungarian_v0
from domino_env.games import hungarian_rules as rules
from domino_env.tiles import TILE_HIGH, TILE_LOW, TILE_VALUE
from tests.invariants import play_checked
from tests.snapshots import mid_game_states

pytestmark = pytest.mark.core

T = rules.NUM_TILES
LOW, HIGH, VALUE = TILE_LOW[:T].astype(np.int64), TILE_HIGH[:T].astype(np.int64), TILE_VALUE[:T].astype(np.int64)
CLOSED = -1  # an end that is not open (before the lead, or the closed side with one open end)

CONFIGS: dict[str, dict] = {
    "2p": {"num_players": 2},
    "3p": {"num_players": 3},
    "4p": {"num_players": 4},
    "2p-two-ends": {"num_players": 2, "open_ends": 2},
    "3p-two-ends-points": {"num_players": 3, "open_ends": 2, "reward": "points"},
    "4p-two-ends-until-blocked": {"num_players": 4, "open_ends": 2, "end_on_domino": False},
    "3p-match": {"num_players": 3, "match": True, "limit": 60},
    "2p-two-ends-match-points": {"num_players": 2, "open_ends": 2, "match": True, "limit": 50, "reward": "points"},
    "4p-elimination": {"num_players": 4, "match": True, "elimination": True, "limit": 40},
    "3p-two-ends-elimination-until-blocked-points": {
        "num_players": 3,
        "open_ends": 2,
        "match": True,
        "elimination": True,
        "limit": 30,
        "end_on_domino": False,
        "reward": "points",
    },
}
GAMES = 10_000
BATCH = 1_000


# ---------------------------------------------------------------------------------------------
# PettingZoo's own tests

API_CONFIGS = [
    "2p",
    "3p",
    "4p",
    "2p-two-ends",
    "4p-two-ends-until-blocked",
    "3p-match",
    "4p-elimination",
    "3p-two-ends-elimination-until-blocked-points",
]


@pytest.mark.parametrize("name", API_CONFIGS)
def test_api(name: str) -> None:
    api_test(domino_env.make("hungarian", **CONFIGS[name]), num_cycles=300)


@pytest.mark.parametrize("name", API_CONFIGS)
def test_seed(name: str) -> None:
    seed_test(lambda: hungarian_v0.env(**CONFIGS[name]), num_cycles=300)


# ---------------------------------------------------------------------------------------------
# The rules restated in numpy, over whole batches of state records


def fits(ends: np.ndarray) -> np.ndarray:
    """[B, T]: tile t shows the number ``ends[b]`` (never for a closed end)."""
    ends = ends[:, None].astype(np.int64)
    return (ends != CLOSED) & ((LOW[None] == ends) | (HIGH[None] == ends))


def next_seat_in_play(seat: np.ndarray, lost: np.ndarray) -> np.ndarray:
    """The first seat after ``seat`` that is not lost, row by row."""
    players = lost.shape[1]
    following = (seat + 1) % players
    for _ in range(players):
        skip = lost[np.arange(len(seat)), following].astype(bool)
        following = np.where(skip, (following + 1) % players, following)
    return following


def reference_mask(state: np.ndarray, cfg: rules.HungarianConfig) -> np.ndarray:
    """The acting seat's legal actions: any tile to lead (with one open end also keeping the
    high face open), else the tiles fitting the end the run is bound to, or either open end at
    the start of a turn; pass only when nothing fits."""
    batch = state.shape[0]
    mine = state["location"] == state["current"][:, None]
    mask = np.zeros((batch, rules.NUM_ACTIONS), np.int8)
    leading = (state["tiles_on_table"] == 0)[:, None]
    bound = np.where(state["run_active"] == 1, state["run_end"], CLOSED)
    for side in (0, 1):
        allowed = ((bound == CLOSED) | (bound == side))[:, None]
        plays = mine & ~leading & allowed & fits(state["ends"][:, side])
        mask[:, side : 2 * T : 2] = plays
    mask[:, 0 : 2 * T : 2] |= mine & leading
    if cfg.open_ends == 1:
        mask[:, 1 : 2 * T : 2] |= mine & leading & (LOW != HIGH)[None]
    mask[:, rules.PASS] = ~mask[:, : 2 * T].any(1)
    return mask


def reference_step(before: np.ndarray, actions: np.ndarray, cfg: rules.HungarianConfig) -> dict[str, np.ndarray]:
    """What RULES.md section 3 makes of ``actions`` in the positions ``before``: the tiles, the
    ends, whether the hand ends, and (if it goes on) who acts next and the run's state."""
    batch = before.shape[0]
    rows = np.arange(batch)
    seat = before["current"].astype(np.int64)
    passing = actions == rules.PASS
    playing = ~passing
    tile = np.where(playing, actions // 2, 0)
    side = actions % 2
    leading = before["tiles_on_table"] == 0
    low, high = LOW[tile], HIGH[tile]

    ends = before["ends"].astype(np.int64)
    inner = ends[rows, side]
    outer = np.where(low == inner, high, low)
    lead_ends = np.stack([low, high], 1)
    if cfg.open_ends == 1:
        lead_ends[rows, 1 - side] = CLOSED
    ends_after = ends.copy()
    ends_after[playing & ~leading, side[playing & ~leading]] = outer[playing & ~leading]
    ends_after[playing & leading] = lead_ends[playing & leading]

    location = before["location"].astype(np.int64)
    location[rows[playing], tile[playing]] = rules.ON_TABLE
    counts = before["hand_count"].astype(np.int64)
    counts[rows[playing], seat[playing]] -= 1
    domino = playing & (counts[rows, seat] == 0) & bool(cfg.end_on_domino)

    # The end(s) the run is bound to after this play: the leader's opening tile with two open
    # ends binds nothing yet.
    unbound = playing & leading & (cfg.open_ends == 2)
    run_end = np.where(playing & ~unbound, side, CLOSED)
    mine = location == seat[:, None]
    holds = [(mine & fits(ends_after[:, s])).any(1) for s in (0, 1)]
    continues = playing & ~domino & np.where(unbound, holds[0] | holds[1], np.where(side == 0, holds[0], holds[1]))
    turn_over = passing | (playing & ~domino & ~continues)
    in_hands = location >= 0
    blocked = ~(in_hands & (fits(ends_after[:, 0]) | fits(ends_after[:, 1]))).any(1)

    voids = before["voids"].astype(np.int64)
    for s in (0, 1):  # a pass, or a run that ends, shows the seat holds nothing for the end(s)
        shown = (passing | (turn_over & ((run_end == s) | unbound))) & (ends_after[:, s] != CLOSED)
        voids[rows[shown], seat[shown], ends_after[shown, s]] = 1
    lost = before["lost"][:, : cfg.num_players].astype(np.int64)
    return {
        "location": location,
        "hand_count": counts,
        "ends": ends_after,
        "voids": voids,
        "hand_over": domino | (turn_over & playing & blocked),
        "domino": domino,
        "current": np.where(turn_over, next_seat_in_play(seat, lost), seat),
        "run_active": (~turn_over).astype(np.int64),
        "run_end": np.where(turn_over, CLOSED, run_end),
    }


def reference_hand(
    before: np.ndarray, expected: dict[str, np.ndarray], rows: np.ndarray, cfg: rules.HungarianConfig
) -> tuple[np.ndarray, np.ndarray]:
    """(hand points, rewards) of the hands that end in ``rows``: pips left in each hand; the seat
    that went out, else the lowest totals in play, share +1 and the rest -1 (or points minus the
    mean over 168)."""
    players = cfg.num_players
    location = expected["location"][rows]
    pips = np.stack([(VALUE[None] * (location == p)).sum(1) for p in range(players)], 1)
    in_play = before["lost"][rows, :players] == 0
    assert (pips[~in_play] == 0).all(), "an eliminated seat holds tiles"
    if cfg.reward == 1:
        mean = np.where(in_play, pips, 0).sum(1, keepdims=True) / in_play.sum(1, keepdims=True)
        return pips, np.where(in_play, (mean - pips) / rules.POINTS_SCALE, 0.0)
    lowest = np.where(in_play, pips, 1 << 30).min(1, keepdims=True)
    went_out = np.arange(players)[None] == before["current"][rows, None]
    winners = in_play & np.where(expected["domino"][rows, None], went_out, pips == lowest)
    won, losers = winners.sum(1, keepdims=True), (in_play & ~winners).sum(1, keepdims=True)
    rewards = np.where(winners, 1.0 / won, np.where(in_play, -1.0 / np.maximum(losers, 1), 0.0))
    return pips, np.where(losers > 0, rewards, 0.0)


def reference_limit(totals: np.ndarray, lost: np.ndarray, cfg: rules.HungarianConfig) -> tuple[bool, np.ndarray]:
    """(match over, seats lost) after a hand of a match with new ``totals``."""
    in_play = lost == 0
    crossed = in_play & (totals >= cfg.limit)
    if not crossed.any():
        return False, lost
    if not cfg.elimination:
        return True, (totals == totals.max()).astype(lost.dtype)
    staying = in_play & ~crossed
    if staying.any():
        return staying.sum() == 1, (lost | crossed).astype(lost.dtype)
    lowest = totals[in_play].min()
    return True, (lost | (in_play & (totals > lowest))).astype(lost.dtype)


def check_tiles_accounted(state: np.ndarray, cfg: rules.HungarianConfig) -> None:
    """Each tile in one hand, on the table or among the 4 set aside, the counters agreeing;
    eliminated seats hold nothing and never act; every public void is true."""
    loc = state["location"]
    for seat in range(cfg.num_players):
        assert np.array_equal((loc == seat).sum(1), state["hand_count"][:, seat])
        held = loc == seat
        for n in range(rules.NUMBERS):
            void = state["voids"][:, seat, n] == 1
            assert not (void[:, None] & held & fits(np.full(len(state), n))).any(), "a void is false"
    assert ((loc == rules.SET_ASIDE).sum(1) == rules.SET_ASIDE_TILES).all()
    assert np.array_equal((loc == rules.ON_TABLE).sum(1), state["tiles_on_table"])
    assert ((loc >= 0) | (loc == rules.ON_TABLE) | (loc == rules.SET_ASIDE)).all()
    lost = state["lost"][:, : cfg.num_players] == 1
    assert (state["hand_count"][:, : cfg.num_players][lost] == 0).all()
    assert not lost[np.arange(len(state)), state["current"]].any()


def checked_steps(batch: domino_env.BatchedEnv, seed: int) -> Iterator[tuple[int, int]]:
    """Step ``batch`` with random legal actions for ever, asserting every invariant before and
    after each step; yields the episodes and the hands that ended on each step."""
    cfg = batch.game.config
    players = cfg.num_players
    max_steps = (T - rules.SET_ASIDE_TILES) * players + players  # each play is followed by < P passes
    rng = np.random.default_rng(seed)
    _, mask, seat = batch.reset(seed=seed)
    steps_in_hand = np.zeros(batch.batch_size, np.int64)
    while True:
        state = batch.state
        check_tiles_accounted(state, cfg)
        assert np.array_equal(mask, reference_mask(state, cfg))
        assert np.array_equal(seat, state["current"])
        before = state.copy()
        actions = sample_legal(mask, rng.random(batch.batch_size))
        expected = reference_step(before, actions, cfg)
        _, mask, seat, rewards, done = batch.step(actions)
        after = batch.state
        hand_over = batch.hand_over
        assert np.array_equal(hand_over, expected["hand_over"])
        going_on = ~hand_over
        for key in ("location", "hand_count", "ends", "voids", "current", "run_active", "run_end"):
            assert np.array_equal(after[key][going_on], expected[key][going_on]), key
        assert not rewards[going_on].any()
        assert np.allclose(rewards.sum(1), 0.0, atol=1e-5)
        assert (np.abs(rewards) <= 1.0 + 1e-6).all()

        ended = np.flatnonzero(hand_over)
        points, hand_rewards = reference_hand(before, expected, ended, cfg)
        assert np.array_equal(batch.hand_points[ended], points)
        assert np.allclose(rewards[ended], hand_rewards, atol=1e-6)
        for i, g in enumerate(ended):
            totals = before["match_points"][g, :players] + points[i]
            over, lost = (True, None) if not cfg.match else reference_limit(totals, before["lost"][g, :players], cfg)
            assert done[g] == over
            if not over:  # the next hand of the match: dealt to the seats still in, led in turn
                assert np.array_equal(after["match_points"][g, :players], totals)
                assert np.array_equal(after["lost"][g, :players], lost)
                leader = next_seat_in_play(before["leader"][g : g + 1], lost[None])[0]
                assert after["leader"][g] == leader == after["current"][g]
                size = rules.hand_size(int((lost == 0).sum()))
                assert np.array_equal(after["hand_count"][g, :players], np.where(lost == 0, size, 0))
                assert after["tiles_on_table"][g] == 0
        steps_in_hand += 1
        steps_in_hand[hand_over] = 0
        assert steps_in_hand.max() <= max_steps, "a hand did not end"
        yield int(done.sum()), len(ended)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_random_games_keep_the_invariants(name: str) -> None:
    finished, hands = play_checked(domino_env.make_batched("hungarian", BATCH, **CONFIGS[name]), seed=11, games=GAMES)
    assert hands >= finished


# ---------------------------------------------------------------------------------------------
# No leak: the observation ignores every tile its observer cannot see

LEAK_CONFIGS = ["3p", "4p-two-ends-until-blocked", "2p-two-ends-match-points", "4p-elimination"]


def shuffle_hidden(record: np.ndarray, observer: int, rng: np.random.Generator) -> np.ndarray:
    """A copy of ``record`` with the tiles ``observer`` cannot see (other hands and the tiles
    set aside) dealt anew into the same places."""
    shuffled = record.copy()
    loc = shuffled[0]["location"]
    hidden = np.flatnonzero((loc != observer) & (loc != rules.ON_TABLE))
    loc[hidden] = loc[rng.permutation(hidden)]
    return shuffled


@pytest.mark.parametrize("name", LEAK_CONFIGS)
def test_observation_ignores_hidden_tiles(name: str) -> None:
    game = domino_env.make_game("hungarian", **CONFIGS[name])
    rng = np.random.default_rng(0)
    moved_set_aside = 0
    for record in mid_game_states("hungarian", CONFIGS[name]):
        for observer in range(game.num_players):
            obs, mask = game.view(record, 0, observer)
            for _ in range(3):
                other = shuffle_hidden(record, observer, rng)
                set_aside = record[0]["location"] == rules.SET_ASIDE
                moved_set_aside += not np.array_equal(set_aside, other[0]["location"] == rules.SET_ASIDE)
                other_obs, other_mask = game.view(other, 0, observer)
                assert np.array_equal(obs, other_obs)
                assert np.array_equal(mask, other_mask)
    assert moved_set_aside > 1000, "the shuffles must trade set-aside tiles with hands"


def test_set_aside_tiles_are_hidden_but_own_hand_is_not():
    """Control: trading a set-aside tile with one of the observer's own changes the observer's
    view, and no one else's."""
    game = domino_env.make_game("hungarian", num_players=3)
    record = mid_game_states("hungarian", {"num_players": 3}, count=5)[0]
    loc = record[0]["location"]
    mine = int(np.flatnonzero(loc == 0)[0])
    aside = int(np.flatnonzero(loc == rules.SET_ASIDE)[0])
    traded = record.copy()
    traded[0]["location"][mine], traded[0]["location"][aside] = rules.SET_ASIDE, 0
    assert not np.array_equal(game.view(record, 0, 0)[0], game.view(traded, 0, 0)[0])
    for seat in (1, 2):
        assert np.array_equal(game.view(record, 0, seat)[0], game.view(traded, 0, seat)[0])


# ---------------------------------------------------------------------------------------------
# The built-in agents


@pytest.mark.parametrize("agent_class", [RandomAgent, GreedyAgent])
def test_agents_play_the_batched_engine(agent_class) -> None:
    batch = domino_env.make_batched("hungarian", 256, num_players=3, match=True, elimination=True, limit=50)
    agent = agent_class(batch.game, seed=0)
    obs, mask, _ = batch.reset(seed=1)
    finished = 0
    for _ in range(2000):
        actions = agent.act(obs, mask)
        assert mask[np.arange(256), actions].all()
        obs, mask, _, _, done = batch.step(actions)
        finished += int(done.sum())
    assert finished > 100
