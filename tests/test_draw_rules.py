"""Draw Dominoes and Block Dominoes played by the rules of RULES.md sections 1, 2, 5 and 6.

Every test starts from a hand-built deal (``reset(options={"deal": ...})``) and drives the game
by action names, so each assertion reads as a rule: which actions are legal, who acts next, what
the line's open ends are, who scores what. Tiles are written ``"a-b"`` in the helpers and handed
to the environment as ``[a, b]`` pairs, as users write deals.
"""

from __future__ import annotations

import numpy as np
import pytest

import domino_env
from domino_env import IllegalActionError
from domino_env.tiles import num_tiles, tile_faces, tile_index, total_pips
from tests.scripted import legal, play, to_act

pytestmark = pytest.mark.core

SCALE = total_pips(6)  # 168: the documented divisor of reward="points" for the double-six set


# ---------------------------------------------------------------------------------------------
# Helpers


def tiles(text: str) -> list[list[int]]:
    """``"6-6 3-5"`` -> ``[[6, 6], [3, 5]]``."""
    return [[int(face) for face in tile.split("-")] for tile in text.split()]


def pips(text: str) -> int:
    return sum(a + b for a, b in tiles(text))


def make_deal(hands: list[str], boneyard: str = "", set_size: int = 6, leader: int | None = None) -> dict:
    """A complete deal: ``hands`` one string per seat; the boneyard holds ``boneyard`` first (drawn
    first, in that order) and then every other undealt tile in index order (sixes last)."""
    dealt = [tiles(hand) for hand in hands]
    front = tiles(boneyard)
    used = {tile_index(a, b) for tile_list in [*dealt, front] for a, b in tile_list}
    rest = [list(tile_faces(t)) for t in range(num_tiles(set_size)) if t not in used]
    deal: dict = {"hands": dealt, "boneyard": front + rest}
    if leader is not None:
        deal["leader"] = leader
    return deal


def start(hands: list[str], boneyard: str = "", variant: str = "draw", leader: int | None = None, **options):
    """A raw environment of ``variant`` under ``options``, reset to the given deal."""
    env = domino_env.raw_env(variant, **options)
    set_size = env.game.config.set_size
    env.reset(seed=0, options={"deal": make_deal(hands, boneyard, set_size, leader)})
    return env


def reserve_all(num_players: int, hand_size: int) -> int:
    """A reserve as large as the double-six boneyard: nobody may ever draw."""
    return 28 - num_players * hand_size


def ends(env) -> tuple[int, int]:
    left, right = env.state_array[0]["ends"]
    return int(left), int(right)


def line(env) -> list[tuple[int, int]]:
    s = env.state_array[0]
    first = int(s["line_first"])
    return [(int(a), int(b)) for a, b in s["line_faces"][first : first + int(s["tiles_on_table"])]]


def hand_counts(env) -> list[int]:
    return [int(n) for n in env.state_array[0]["hand_count"][: env.num_agents]]


def rewards(env) -> list[float]:
    return [env.rewards[agent] for agent in env.possible_agents]


def hand_points(env) -> list[int]:
    return [env.infos[agent]["hand_points"] for agent in env.possible_agents]


def match_points(env) -> list[int]:
    points = env.infos[env.possible_agents[0]]["match_points"]
    assert all(env.infos[agent]["match_points"] == points for agent in env.possible_agents)
    return points


def over(env) -> bool:
    return all(env.terminations.values())


def play_randomly(env, rng: np.random.Generator) -> None:
    """One step with a uniformly random legal action."""
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(rng.choice(np.flatnonzero(mask))))


# ---------------------------------------------------------------------------------------------
# Section 1: players and deal


@pytest.mark.parametrize(
    ("num_players", "set_size", "expected_set", "expected_hand"),
    [
        (2, None, 6, 7),
        (3, None, 6, 7),
        (4, None, 6, 6),
        (5, None, 6, 5),
        (2, 9, 9, 7),
        (6, None, 9, 7),
        (7, None, 9, 5),
        (9, None, 9, 5),
        (2, 12, 12, 7),
        (10, None, 12, 7),
    ],
)
def test_hand_sizes_follow_the_table(num_players, set_size, expected_set, expected_hand):
    options = {"num_players": num_players} | ({"set_size": set_size} if set_size else {})
    env = domino_env.raw_env("draw", **options)
    env.reset(seed=3)
    s = env.state_array[0]
    assert env.game.config.set_size == expected_set
    assert hand_counts(env) == [expected_hand] * num_players
    assert int(s["boneyard_size"]) == num_tiles(expected_set) - num_players * expected_hand
    locations = s["location"][: num_tiles(expected_set)]
    assert [int((locations == seat).sum()) for seat in range(num_players)] == [expected_hand] * num_players


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_players": 5, "hand_size": 6}, r"5 hands of 6 tiles need 30 tiles; the double-6 set has 28"),
        ({"num_players": 9, "set_size": 9, "hand_size": 7}, r"need 63 tiles; the double-9 set has 55"),
        ({"num_players": 2, "hand_size": 15}, r"need 30 tiles; the double-6 set has 28"),
        ({"num_players": 6, "set_size": 6}, r"double-6 set seats at most 5 players"),
        ({"num_players": 10, "set_size": 9}, r"double-9 set seats at most 9 players"),
    ],
)
def test_hand_sizes_that_do_not_fit_the_set_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        domino_env.raw_env("draw", **options)


def test_a_deal_that_fills_the_set_exactly_is_accepted():
    env = domino_env.raw_env("draw", num_players=4, hand_size=7)
    env.reset(seed=1)
    assert hand_counts(env) == [7, 7, 7, 7]
    assert int(env.state_array[0]["boneyard_size"]) == 0


# ---------------------------------------------------------------------------------------------
# Section 1: the lead


@pytest.mark.parametrize(
    ("hands", "leader", "double"),
    [
        # 6-6 in a hand leads, even against 5-5
        (["5-5 0-1 0-2 0-3 1-2 1-3 2-3", "6-6 0-4 1-4 2-4 3-4 0-5 1-5"], 1, "6-6"),
        # 6-6 and 5-5 in the boneyard: 4-4 is the highest double held
        (
            ["3-3 0-1 0-2 0-3 1-2 1-3 2-3", "0-0 0-4 1-4 2-4 3-4 0-5 1-5", "4-4 2-5 3-5 4-5 0-6 1-6 2-6"],
            2,
            "4-4",
        ),
        (
            [
                "0-0 0-1 0-2 0-3 0-4 0-5",
                "1-1 1-2 1-3 1-4 1-5 1-6",
                "2-2 2-3 2-4 2-5 2-6 3-4",
                "6-6 3-5 3-6 4-5 4-6 5-6",
            ],
            3,
            "6-6",
        ),
    ],
)
def test_lead_highest_double_must_be_placed_first(hands, leader, double):
    env = start(hands, num_players=len(hands))
    assert to_act(env) == leader
    assert int(env.state_array[0]["leader"]) == leader
    assert legal(env) == {f"play {double} on left"}
    play(env, f"play {double} on left", by=leader)
    n = int(double[0])
    assert ends(env) == (n, n)
    assert to_act(env) == (leader + 1) % len(hands)  # play proceeds in seat order from the leader


def test_lead_heaviest_tile_leads_any_tile_and_needs_no_double():
    hands = ["0-1 0-2 0-3 1-2 1-3 2-3 3-6", "0-4 1-4 2-4 3-4 0-5 1-5 4-6"]  # 5-6 and 6-6 undealt
    env = start(hands, lead="heaviest_tile")
    assert to_act(env) == 1
    assert legal(env) == {"play 4-6 on left"}
    play(env, "play 4-6 on left", by=1)
    assert ends(env) == (4, 6)
    assert to_act(env) == 0


def test_lead_any_lets_the_given_seat_lead_any_tile():
    hands = ["6-6 0-1 0-2 0-3 1-2 1-3 2-3", "5-5 0-4 1-4 2-4 3-4 0-5 1-5"]
    env = start(hands, lead="any", leader=1)  # the option
    assert to_act(env) == 1
    assert legal(env) == {f"play {t} on left" for t in hands[1].split()}
    play(env, "play 1-4 on left", by=1)
    assert ends(env) == (1, 4)
    assert to_act(env) == 0

    env = domino_env.raw_env("draw", lead="any", leader=1)
    env.reset(options={"deal": make_deal(hands, leader=0)})  # the deal's leader wins over the option
    assert to_act(env) == 0
    assert len(legal(env)) == 7

    env = start(hands, lead="any")  # default leader: seat 0
    assert to_act(env) == 0


def test_lead_any_rotates_over_the_hands_of_a_match():
    # One tile each: the leader plays it and dominoes at once, so each hand is one action.
    env = start(["2-3", "4-4", "0-5"], leader=1, num_players=3, lead="any", hand_size=1, match=True, target=40)
    leaders = []
    while not over(env):
        leaders.append(to_act(env))
        (name,) = legal(env)
        assert name.endswith("on left")
        env.step(env.action_from_name(name))
    assert len(leaders) >= 4
    assert leaders == [(1 + i) % 3 for i in range(len(leaders))]  # from the deal's leader, in seat order


def test_lead_highest_double_leads_every_hand_of_a_match():
    env = domino_env.raw_env("draw", hand_size=3, match=True, target=60)
    rng = np.random.default_rng(5)
    env.reset(seed=5)
    hands_seen = 0
    while not over(env):
        s = env.state_array[0]
        if int(s["tiles_on_table"]) == 0:
            hands_seen += 1
            held = [t for t in range(28) if s["location"][t] >= 0 and tile_faces(t)[0] == tile_faces(t)[1]]
            top = max(held)
            assert to_act(env) == int(s["location"][top])
            assert legal(env) == {f"play {tile_faces(top)[0]}-{tile_faces(top)[1]} on left"}
        play_randomly(env, rng)
    assert hands_seen >= 2


# ---------------------------------------------------------------------------------------------
# Section 1: play


def test_plays_match_an_open_end_and_doubles_expose_one_number():
    env = start(["6-6 4-6 3-3 0-0 0-1 0-2 1-1", "3-6 1-6 3-5 2-2 1-2 0-3 0-4"])
    play(env, "play 6-6 on left", by=0)
    assert ends(env) == (6, 6)
    assert legal(env) == {"play 3-6 on left", "play 3-6 on right", "play 1-6 on left", "play 1-6 on right"}
    play(env, "play 3-6 on left", by=1)
    assert ends(env) == (3, 6)
    assert legal(env) == {"play 4-6 on right", "play 3-3 on left"}
    play(env, "play 3-3 on left", by=0)  # a double, laid crosswise: still one open 3, no spinner
    assert ends(env) == (3, 6)
    assert legal(env) == {"play 3-5 on left", "play 0-3 on left", "play 1-6 on right"}
    play(env, "play 3-5 on left", by=1)
    assert ends(env) == (5, 6)
    assert line(env) == [(5, 3), (3, 3), (3, 6), (6, 6)]
    assert hand_counts(env) == [5, 5]
    assert to_act(env) == 0


FORCED_DRAW_HANDS = ["6-6 0-0 0-1 0-2 0-3 0-4 0-5", "1-1 1-2 1-3 1-4 1-5 2-2 2-3"]


def test_forced_draw_one_tile_at_a_time_then_the_drawn_tile_must_be_played():
    env = start(FORCED_DRAW_HANDS, boneyard="2-4 2-5 3-3 4-6")
    play(env, "play 6-6 on left", by=0)
    for drawn in range(3):  # 2-4, 2-5, 3-3: none fits a 6
        assert legal(env) == {"draw"}
        play(env, "draw", by=1)
        assert hand_counts(env) == [6, 8 + drawn]
        assert int(env.state_array[0]["boneyard_top"]) == drawn + 1
    play(env, "draw", by=1)  # 4-6 fits: it is the only tile that may be played, and at once
    assert legal(env) == {"play 4-6 on left", "play 4-6 on right"}
    play(env, "play 4-6 on right", by=1)
    assert ends(env) == (6, 4)
    assert hand_counts(env) == [6, 10]
    assert to_act(env) == 0


def test_the_drawn_tile_is_seen_only_by_the_drawer():
    envs = [
        start(FORCED_DRAW_HANDS, boneyard="2-4 2-5 3-3 4-6"),
        start(FORCED_DRAW_HANDS, boneyard="3-4 3-5 4-4 4-6"),
    ]
    for env in envs:
        play(env, "play 6-6 on left", by=0)
        for _ in range(3):
            play(env, "draw", by=1)
    first, second = ([env.observe(agent)["observation"] for agent in env.possible_agents] for env in envs)
    np.testing.assert_array_equal(first[0], second[0])  # player_0 sees three draws, not the faces
    assert not np.array_equal(first[1], second[1])  # player_1 sees their own hand


def test_pass_when_no_play_and_the_boneyard_is_empty():
    hands = [
        "6-6 0-6 0-0 0-1 0-2 0-3 0-4",
        "1-1 1-2 1-3 1-4 1-5 2-2 2-3",  # no six
        "1-6 2-6 2-4 2-5 3-3 3-4 3-5",
        "3-6 4-6 5-6 4-4 4-5 5-5 0-5",
    ]
    env = start(hands, num_players=4, hand_size=7)
    assert int(env.state_array[0]["boneyard_size"]) == 0
    play(env, "play 6-6 on left", by=0)
    assert legal(env) == {"pass"}
    play(env, "pass", by=1)
    assert to_act(env) == 2
    assert ends(env) == (6, 6)
    assert hand_counts(env) == [6, 7, 7, 7]
    play(env, "play 2-6 on right", by=2)
    assert ends(env) == (6, 2)


@pytest.mark.parametrize("voluntary", [False, True])
def test_voluntary_draw_allows_drawing_while_able_to_play(voluntary):
    env = start(
        ["6-6 4-6 3-3 0-0 0-1 0-2 1-1", "3-6 1-6 3-5 2-2 1-2 0-3 0-4"], boneyard="2-4", voluntary_draw=voluntary
    )
    play(env, "play 6-6 on left", by=0)
    plays = {"play 3-6 on left", "play 3-6 on right", "play 1-6 on left", "play 1-6 on right"}
    if not voluntary:
        assert legal(env) == plays
        return
    assert legal(env) == plays | {"draw"}
    play(env, "draw", by=1)
    assert hand_counts(env) == [6, 8]
    assert to_act(env) == 1  # drawing does not end the turn
    assert legal(env) == plays | {"draw"}


@pytest.mark.parametrize("reserve", [0, 2])
def test_reserve_tiles_are_never_drawn(reserve):
    hands = [
        "6-6 0-6 1-6 2-6 3-6 2-5 3-3 3-4 3-5 4-4 4-5 5-5",
        "0-0 0-1 0-2 0-3 0-4 0-5 1-1 1-2 1-3 1-4 1-5 2-2",  # no six
    ]
    env = start(hands, boneyard="2-3 2-4 4-6 5-6", hand_size=12, reserve=reserve)
    play(env, "play 6-6 on left", by=0)
    play(env, "draw", by=1)
    play(env, "draw", by=1)
    s = env.state_array[0]
    assert int(s["boneyard_size"] - s["boneyard_top"]) == 2
    if reserve:
        assert legal(env) == {"pass"}  # two tiles left, both reserved
        play(env, "pass", by=1)
        assert to_act(env) == 0
    else:
        play(env, "draw", by=1)
        assert legal(env) == {"play 4-6 on left", "play 4-6 on right"}


# ---------------------------------------------------------------------------------------------
# Section 1: end of hand and scoring


@pytest.mark.parametrize("block_scoring", ["opponents", "difference"])  # difference is for blocks only
def test_domino_winner_scores_the_opponents_pips(block_scoring):
    env = start(["6-6 5-6", "1-6 2-3"], hand_size=2, block_scoring=block_scoring)
    play(env, "play 6-6 on left", by=0)
    play(env, "play 1-6 on left", by=1)
    assert not over(env)
    assert env.infos == {"player_0": {}, "player_1": {}}
    play(env, "play 5-6 on right", by=0)
    assert over(env)
    assert hand_points(env) == [pips("2-3"), 0]
    assert match_points(env) == [5, 0]
    assert rewards(env) == [1.0, -1.0]
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}
    _, reward, termination, _, info = env.last()
    assert termination
    assert reward == env._cumulative_rewards[env.agent_selection]
    assert info["match_points"] == [5, 0]


def test_domino_with_three_players_scores_both_opponents():
    env = start(["6-6 2-6", "1-6 0-0", "1-3 4-5"], num_players=3, hand_size=2)
    play(env, "play 6-6 on left", by=0)
    play(env, "play 1-6 on left", by=1)
    play(env, "play 1-3 on left", by=2)
    play(env, "play 2-6 on right", by=0)
    assert over(env)
    assert hand_points(env) == [0 + 9, 0, 0]
    assert rewards(env) == [1.0, -0.5, -0.5]


# Blocked hands: 6-6 is led and every other six is in a reserve as large as the boneyard, so the
# hand is blocked at once and the pips left are those of the hands below less 6-6.
BLOCKED = {
    "2p": ["6-6 0-0 0-1 1-1", "2-2 3-3 4-5 0-2"],  # 3 against 21
    "2p tie": ["6-6 3-3 1-3 0-2", "0-0 0-5 1-2 2-2"],  # 12 against 12
    "3p": ["6-6 0-0 0-1 0-2", "1-1 1-2 2-2 0-3", "3-3 4-4 5-5 4-5"],  # 3, 12, 33
    "3p second seat": ["6-6 4-4 5-5 4-5", "0-0 0-1 0-2 1-1", "3-3 2-3 1-3 0-3"],  # 27, 5, 18
    "3p tie": ["6-6 3-3 1-3 0-2", "0-0 0-5 1-2 2-2", "4-4 5-5 4-5 3-5"],  # 12, 12, 35
}


@pytest.mark.parametrize(
    ("case", "block_scoring", "expected_points", "expected_rewards"),
    [
        ("2p", "opponents", [21, 0], [1.0, -1.0]),
        ("2p", "difference", [21 - 3, 0], [1.0, -1.0]),
        ("2p tie", "opponents", [0, 0], [0.0, 0.0]),
        ("2p tie", "difference", [0, 0], [0.0, 0.0]),
        ("3p", "opponents", [12 + 33, 0, 0], [1.0, -0.5, -0.5]),
        ("3p", "difference", [(12 - 3) + (33 - 3), 0, 0], [1.0, -0.5, -0.5]),
        ("3p second seat", "opponents", [0, 27 + 18, 0], [-0.5, 1.0, -0.5]),
        ("3p second seat", "difference", [0, (27 - 5) + (18 - 5), 0], [-0.5, 1.0, -0.5]),
        ("3p tie", "opponents", [0, 0, 0], [0.0, 0.0, 0.0]),
    ],
)
def test_blocked_hand_lowest_pips_wins(case, block_scoring, expected_points, expected_rewards):
    hands = BLOCKED[case]
    players = len(hands)
    env = start(hands, num_players=players, hand_size=4, reserve=reserve_all(players, 4), block_scoring=block_scoring)
    play(env, "play 6-6 on left", by=0)
    assert over(env)
    assert hand_points(env) == expected_points
    assert match_points(env) == expected_points
    assert rewards(env) == pytest.approx(expected_rewards)
    assert sum(rewards(env)) == pytest.approx(0.0)


def test_blocked_while_the_boneyard_is_not_empty_players_keep_drawing():
    # Ten plays put all seven sixes on the table with 6 open at both ends; 14 tiles remain to draw.
    env = start(["6-6 2-3 1-6 0-6 4-5 0-0 1-1", "2-6 3-6 0-1 4-6 5-6 5-5 4-4"])
    for seat, name in enumerate(
        [
            "play 6-6 on left",
            "play 2-6 on right",
            "play 2-3 on right",
            "play 3-6 on right",
            "play 1-6 on left",
            "play 0-1 on left",
            "play 0-6 on left",
            "play 4-6 on right",
            "play 4-5 on right",
            "play 5-6 on right",
        ]
    ):
        play(env, name, by=seat % 2)
    assert ends(env) == (6, 6)
    for _ in range(14):  # nothing can ever be played, yet the boneyard is drawn to the end
        assert not over(env)
        assert legal(env) == {"draw"}
        play(env, "draw", by=0)
    assert over(env)  # no play and no draw left: blocked
    assert hand_counts(env) == [16, 2]
    boneyard = "0-2 0-3 0-4 0-5 1-2 1-3 1-4 1-5 2-2 2-4 2-5 3-3 3-4 3-5"
    assert hand_points(env) == [0, pips("0-0 1-1") + pips(boneyard)]  # 72 against 18: seat 1 wins
    assert rewards(env) == [-1.0, 1.0]


# ---------------------------------------------------------------------------------------------
# Section 1: partnerships


def test_partnership_domino_wins_for_the_team():
    env = start(["1-4 0-0", "4-4 3-5", "6-6 5-6", "1-6 2-3"], num_players=4, hand_size=2, partnerships=True)
    play(env, "play 6-6 on left", by=2)
    play(env, "play 1-6 on left", by=3)
    play(env, "play 1-4 on left", by=0)
    play(env, "play 4-4 on left", by=1)
    play(env, "play 5-6 on right", by=2)
    assert over(env)
    losers = pips("3-5") + pips("2-3")  # seat 0's 0-0 is its own team's
    assert hand_points(env) == [losers, 0, losers, 0]
    assert rewards(env) == [0.5, -0.5, 0.5, -0.5]


@pytest.mark.parametrize(
    ("hands", "block_scoring", "expected"),
    [
        # seat 1 holds the fewest pips (5), but team 0+2 holds 10 + 18 = 28 against 5 + 35 = 40
        (["6-6 0-3 1-2 0-4", "0-0 0-1 0-2 1-1", "1-3 2-2 2-3 1-4", "4-4 5-5 4-5 3-5"], "opponents", [40, 0, 40, 0]),
        (["6-6 0-3 1-2 0-4", "0-0 0-1 0-2 1-1", "1-3 2-2 2-3 1-4", "4-4 5-5 4-5 3-5"], "difference", [12, 0, 12, 0]),
        # 28 against 28: nobody scores
        (["6-6 0-3 1-2 0-4", "0-0 0-1 0-2 1-1", "1-3 2-2 2-3 1-4", "3-3 2-4 0-5 1-5"], "opponents", [0, 0, 0, 0]),
    ],
)
def test_partnership_blocked_lower_team_total_wins(hands, block_scoring, expected):
    env = start(
        hands, num_players=4, hand_size=4, partnerships=True, reserve=reserve_all(4, 4), block_scoring=block_scoring
    )
    play(env, "play 6-6 on left", by=0)
    assert over(env)
    assert hand_points(env) == expected
    assert rewards(env) == ([0.5, -0.5, 0.5, -0.5] if any(expected) else [0.0] * 4)


# ---------------------------------------------------------------------------------------------
# Section 5: rewards


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("2p domino", [2.5 / SCALE, -2.5 / SCALE]),  # points [5, 0], mean 2.5
        ("3p domino", [6 / SCALE, -3 / SCALE, -3 / SCALE]),  # points [9, 0, 0], mean 3
        ("4p partnership domino", [6.5 / SCALE, -6.5 / SCALE, 6.5 / SCALE, -6.5 / SCALE]),  # [13, 0, 13, 0]
        ("2p tie", [0.0, 0.0]),
    ],
)
def test_reward_points_is_points_minus_mean_over_the_set_total(case, expected):
    if case == "2p domino":
        env = start(["6-6 5-6", "1-6 2-3"], hand_size=2, reward="points")
        for name in ["play 6-6 on left", "play 1-6 on left", "play 5-6 on right"]:
            play(env, name)
    elif case == "3p domino":
        env = start(["6-6 2-6", "1-6 0-0", "1-3 4-5"], num_players=3, hand_size=2, reward="points")
        for name in ["play 6-6 on left", "play 1-6 on left", "play 1-3 on left", "play 2-6 on right"]:
            play(env, name)
    elif case == "4p partnership domino":
        hands = ["1-4 0-0", "4-4 3-5", "6-6 5-6", "1-6 2-3"]
        env = start(hands, num_players=4, hand_size=2, partnerships=True, reward="points")
        for name in [
            "play 6-6 on left",
            "play 1-6 on left",
            "play 1-4 on left",
            "play 4-4 on left",
            "play 5-6 on right",
        ]:
            play(env, name)
    else:
        env = start(BLOCKED["2p tie"], hand_size=4, reserve=reserve_all(2, 4), reward="points")
        play(env, "play 6-6 on left")
    assert over(env)
    assert env.game.config.points_scale == SCALE
    assert rewards(env) == pytest.approx(expected)
    assert sum(rewards(env)) == pytest.approx(0.0)
    assert all(abs(r) <= 1 for r in rewards(env))


def test_reward_points_constant_is_the_sets_total_pips():
    assert domino_env.raw_env("draw", set_size=9).game.config.points_scale == total_pips(9) == 495
    assert domino_env.raw_env("draw", set_size=12).game.config.points_scale == total_pips(12) == 1092


# ---------------------------------------------------------------------------------------------
# Section 1 and 5: match mode


def test_match_accumulates_scores_and_pays_each_hand():
    env = start(["2-3", "4-4"], lead="any", hand_size=1, match=True, target=40)
    play(env, "play 2-3 on left", by=0)  # domino: seat 0 scores 8
    assert not over(env)
    assert hand_points(env) == [8, 0]
    assert match_points(env) == [8, 0]
    assert rewards(env) == [1.0, -1.0]  # the hand's rewards, paid as it ends
    s = env.state_array[0]
    assert int(s["hand_number"]) == 1  # a new hand is dealt
    assert int(s["tiles_on_table"]) == 0
    assert hand_counts(env) == [1, 1]
    assert ends(env) == (-1, -1)

    totals = [8, 0]
    while not over(env):
        assert max(totals) < 40
        seat = to_act(env)
        (name,) = legal(env)
        env.step(env.action_from_name(name))
        assert hand_points(env)[1 - seat] == 0
        totals[seat] += hand_points(env)[seat]
        assert match_points(env) == totals
        assert rewards(env)[seat] == 1.0
        assert sum(rewards(env)) == 0.0
    assert max(totals) >= 40
    assert env._cumulative_rewards[env.agent_selection] == env.rewards[env.agent_selection]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"num_players": 3},
        {"num_players": 4, "partnerships": True},
        {"reward": "points", "block_scoring": "difference"},
    ],
)
def test_match_ends_when_a_player_reaches_the_target(options):
    env = domino_env.raw_env("draw", match=True, target=60, **options)
    rng = np.random.default_rng(11)
    env.reset(seed=11)
    totals = np.zeros(env.num_agents, np.int64)
    hands = 0
    while not over(env):
        assert totals.max() < 60
        play_randomly(env, rng)
        if env.infos[env.agent_selection]:  # a hand ended
            hands += 1
            points = np.array(hand_points(env))
            totals += points
            assert match_points(env) == totals.tolist()
            assert sum(rewards(env)) == pytest.approx(0.0)
            if points.any():  # somebody won the hand: its rewards are paid now, not lost to the next deal
                assert any(rewards(env))
            if options.get("partnerships"):
                assert points[0] == points[2] and points[1] == points[3]
        else:
            assert rewards(env) == [0.0] * env.num_agents
    assert totals.max() >= 60
    assert hands >= 2


# ---------------------------------------------------------------------------------------------
# Section 2: Block Dominoes


def test_block_two_players_deal_without_boneyard_and_lead_any_from_seat_0():
    env = domino_env.raw_env("block")
    hands = ["6-6 0-0 0-1 0-2 1-1 1-2 0-3", "2-2 3-3 4-4 5-5 2-3 2-4 3-4"]
    env.reset(options={"deal": {"hands": [tiles(h) for h in hands]}})  # the 14 unused tiles may be omitted
    assert hand_counts(env) == [7, 7]
    assert int(env.state_array[0]["boneyard_size"]) == 14  # set aside, never drawn
    assert env.observe("player_0")["observation"][env.observation_layout["boneyard"]].tolist() == [0.0]
    assert to_act(env) == 0
    assert legal(env) == {f"play {t} on left" for t in hands[0].split()}
    play(env, "play 6-6 on left", by=0)  # no other six is held: blocked at once
    assert over(env)
    assert hand_points(env) == [pips(hands[1]), 0]  # 11 against 46: scored as in Draw
    assert rewards(env) == [1.0, -1.0]


def test_block_pass_when_stuck():
    env = start(["6-6 0-6 1-6 2-6 3-6 4-6 5-6", "0-0 0-1 0-2 0-3 0-4 0-5 1-1"], variant="block")
    play(env, "play 6-6 on left", by=0)
    assert legal(env) == {"pass"}
    play(env, "pass", by=1)
    play(env, "play 5-6 on right", by=0)
    assert ends(env) == (6, 5)
    assert legal(env) == {"play 0-5 on right"}


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_block_never_offers_a_draw(num_players):
    env = domino_env.raw_env("block", num_players=num_players)
    rng = np.random.default_rng(num_players)
    for seed in range(10):
        env.reset(seed=seed)
        assert hand_counts(env) == [7] * num_players
        while not over(env):
            options = legal(env)
            assert "draw" not in options
            assert options == {"pass"} or "pass" not in options
            play_randomly(env, rng)
        assert sum(rewards(env)) == pytest.approx(0.0)


def test_block_four_players_are_partnerships_by_default():
    env = domino_env.raw_env("block", num_players=4)
    assert env.game.config.partnerships == 1
    assert domino_env.raw_env("block", num_players=4, partnerships=False).game.config.partnerships == 0
    rng = np.random.default_rng(0)
    for seed in range(5):
        env.reset(seed=seed)
        assert int(env.state_array[0]["boneyard_size"]) == 0  # all 28 dealt
        while not over(env):
            play_randomly(env, rng)
        points, paid = hand_points(env), rewards(env)
        assert points[0] == points[2] and points[1] == points[3]
        assert paid[0] == paid[2] and paid[1] == paid[3]


def test_block_lead_highest_double_option():
    hands = ["5-5 0-1 0-2 0-3 1-2 1-3 2-3", "6-6 0-4 1-4 2-4 3-4 0-5 1-5"]
    env = start(hands, variant="block", lead="highest_double")
    assert to_act(env) == 1
    assert legal(env) == {"play 6-6 on left"}


# ---------------------------------------------------------------------------------------------
# Section 6: edge cases


def test_a_deal_where_nobody_holds_a_double_is_refused():
    env = domino_env.raw_env("draw")
    hands = ["0-1 0-2 0-3 1-2 1-3 2-3 3-6", "0-4 1-4 2-4 3-4 0-5 1-5 4-6"]
    with pytest.raises(ValueError, match="nobody holds a double"):
        env.reset(options={"deal": make_deal(hands)})
    env.reset(seed=0)  # still usable
    assert len(legal(env)) == 1


def test_random_deals_are_redealt_until_someone_holds_a_double():
    env = domino_env.raw_env("draw", hand_size=2)  # 4 tiles dealt: often no double among them
    redeals = []
    for seed in range(100):
        env.reset(seed=seed)
        s = env.state_array[0]
        redeals.append(int(s["redeals"]))
        held = [t for t in range(28) if s["location"][t] >= 0]
        doubles = [t for t in held if tile_faces(t)[0] == tile_faces(t)[1]]
        assert doubles, f"seed {seed}: no double dealt"
        top = tile_faces(max(doubles))[0]
        assert legal(env) == {f"play {top}-{top} on left"}
        assert to_act(env) == int(s["location"][max(doubles)])
    assert any(redeals)
    assert redeals.count(0) > 0


def test_illegal_action_raises_and_changes_nothing():
    env = domino_env.make("draw")
    raw = env.unwrapped
    raw_deal = make_deal(["6-6 4-6 3-3 0-0 0-1 0-2 1-1", "3-6 1-6 3-5 2-2 1-2 0-3 0-4"])
    env.reset(options={"deal": raw_deal})
    env.step(raw.action_from_name("play 6-6 on left"))
    before = raw.state_array.copy()
    legal_names = ["play 3-6 on left", "play 3-6 on right", "play 1-6 on left", "play 1-6 on right"]
    for name in ["play 0-3 on left", "play 4-6 on right", "draw", "pass"]:
        with pytest.raises(IllegalActionError, match=name) as error:
            env.step(raw.action_from_name(name))
        message = str(error.value)
        assert "player_1" in message
        assert all(legal_name in message for legal_name in legal_names)
        assert raw.state_array.tobytes() == before.tobytes()
        assert env.agent_selection == "player_1"
        assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(raw.game.num_actions)
    assert raw.state_array.tobytes() == before.tobytes()
    env.step(raw.action_from_name("play 3-6 on left"))  # the game goes on
    assert tuple(raw.state_array[0]["ends"]) == (3, 6)


def test_illegal_action_penalty_ends_the_game():
    env = start(["6-6 4-6 3-3 0-0 0-1 0-2 1-1", "3-6 1-6 3-5 2-2 1-2 0-3 0-4"], illegal_action="penalty")
    play(env, "play 6-6 on left", by=0)
    env.step(env.action_from_name("play 0-3 on left"))
    assert over(env)
    assert rewards(env) == [0.0, -1.0]
    assert env._cumulative_rewards == {"player_0": 0.0, "player_1": -1.0}
    assert env.infos["player_1"]["illegal_action"] is True


@pytest.mark.parametrize(
    ("variant", "options", "error", "message"),
    [
        ("draw", {"num_player": 3}, TypeError, r"unknown option\(s\) 'num_player'"),
        ("draw", {"num_players": "3"}, TypeError, r"num_players must be an integer, got '3'"),
        ("draw", {"voluntary_draw": 1}, TypeError, r"voluntary_draw must be True or False"),
        ("draw", {"partnerships": "yes", "num_players": 4}, TypeError, r"partnerships must be True or False"),
        ("draw", {"num_players": 3, "partnerships": True}, ValueError, r"partnerships need exactly 4 players"),
        ("draw", {"num_players": 1}, ValueError, r"num_players must be between 2 and 10"),
        ("draw", {"num_players": 11}, ValueError, r"num_players must be between 2 and 10"),
        ("draw", {"set_size": 8}, ValueError, r"set_size must be one of"),
        ("draw", {"hand_size": 0}, ValueError, r"hand_size must be at least 1"),
        ("draw", {"num_players": 4, "hand_size": 8}, ValueError, r"4 hands of 8 tiles need 32 tiles"),
        ("draw", {"lead": "lowest_double"}, ValueError, r"lead must be one of .*'lowest_double'"),
        ("draw", {"reserve": 15}, ValueError, r"reserve=15 is larger than the boneyard \(14 tiles\)"),
        ("draw", {"reserve": -1}, ValueError, r"reserve must be at least 0"),
        ("draw", {"leader": 2}, ValueError, r"leader must be between 0 and 1"),
        ("draw", {"block_scoring": "diff"}, ValueError, r"block_scoring must be one of"),
        ("draw", {"reward": "score"}, ValueError, r"reward must be one of"),
        ("draw", {"target": 0}, ValueError, r"target must be at least 1"),
        ("draw", {"illegal_action": "ignore"}, ValueError, r"illegal_action must be one of"),
        ("block", {"voluntary_draw": True}, TypeError, r"unknown option\(s\) 'voluntary_draw'"),
        ("block", {"reserve": 2}, TypeError, r"unknown option\(s\) 'reserve'"),
        ("block", {"num_players": 5}, ValueError, r"num_players must be between 2 and 4"),
        ("block", {"partnerships": True}, ValueError, r"partnerships need exactly 4 players"),
        ("dominos", {}, ValueError, r"unknown variant 'dominos'"),
    ],
)
def test_bad_options_are_refused_with_a_clear_message(variant, options, error, message):
    with pytest.raises(error, match=message):
        domino_env.make(variant, **options)


GOOD_HANDS = ["6-6 4-6 3-3 0-0 0-1 0-2 1-1", "3-6 1-6 3-5 2-2 1-2 0-3 0-4"]


def bad_deal(kind: str) -> object:
    deal = make_deal(GOOD_HANDS)
    if kind == "tile twice":
        deal["hands"][1][0] = [6, 6]
    elif kind == "tile missing":
        deal["boneyard"].pop()
    elif kind == "short hand":
        deal["hands"][0].pop()
        deal["boneyard"].append([0, 0])
    elif kind == "tile not in set":
        deal["boneyard"][-1] = [7, 7]
    elif kind == "not a tile":
        deal["boneyard"][-1] = [1, 2, 3]
    elif kind == "unknown key":
        deal["set_aside"] = []
    elif kind == "wrong leader":
        deal["leader"] = 1
    elif kind == "leader out of range":
        deal["leader"] = 2
    elif kind == "three hands":
        deal["hands"].append([])
    elif kind == "no boneyard":
        del deal["boneyard"]
    elif kind == "not a dict":
        deal = [GOOD_HANDS]
    return deal


@pytest.mark.parametrize(
    ("kind", "error", "message"),
    [
        ("tile twice", ValueError, r"tile 6-6 is dealt twice \(hand 0 and hand 1\)"),
        ("tile missing", ValueError, r"missing tile\(s\) 5-6"),
        ("short hand", ValueError, r"hand 0 must hold 7 tiles, got 6"),
        ("tile not in set", ValueError, r"not in the double-6 set"),
        ("not a tile", ValueError, r"is not a pair of numbers"),
        ("unknown key", ValueError, r"draw deals have no 'set_aside'"),
        ("wrong leader", ValueError, r"deal\['leader'\]=1 disagrees with the lead rule 'highest_double'.*seat 0"),
        ("leader out of range", ValueError, r"deal\['leader'\] must be between 0 and 1"),
        ("three hands", ValueError, r"must have 2 hands"),
        ("no boneyard", ValueError, r"no 'boneyard'"),
        ("not a dict", TypeError, r"a deal must be a dict"),
    ],
)
def test_bad_deals_are_refused_and_leave_the_env_usable(kind, error, message):
    env = start(GOOD_HANDS)
    play(env, "play 6-6 on left", by=0)
    before = env.state_array.copy()
    with pytest.raises(error, match=message):
        env.reset(options={"deal": bad_deal(kind)})
    assert env.state_array.tobytes() == before.tobytes()
    play(env, "play 1-6 on right", by=1)  # the hand in progress goes on
    assert ends(env) == (6, 1)
    env.reset(options={"deal": make_deal(GOOD_HANDS, leader=0)})  # and a good deal starts afresh
    assert legal(env) == {"play 6-6 on left"}


def test_a_deal_of_the_right_size_for_larger_sets_is_accepted():
    hands = [
        "9-9 0-1 0-2 0-3 0-4",
        "1-1 1-7 1-8 1-9 0-5",
        "2-2 2-7 2-8 2-9 0-6",
        "3-3 3-7 3-8 3-9 0-7",
        "4-4 4-7 4-8 4-9 0-8",
        "5-5 5-7 5-8 5-9 0-9",
        "6-6 6-7 6-8 6-9 7-7",
    ]
    env = start(hands, num_players=7, set_size=9)
    assert hand_counts(env) == [5] * 7
    assert int(env.state_array[0]["boneyard_size"]) == 55 - 35
    assert legal(env) == {"play 9-9 on left"}
    with pytest.raises(ValueError, match="hand 0 must hold 5 tiles, got 7"):
        env.reset(options={"deal": make_deal(GOOD_HANDS + [""] * 5, set_size=9)})
