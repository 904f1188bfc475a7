"""Hungarian Dominoes played by the rules of RULES.md sections 3, 5 and 6.

Every test starts from a hand-built deal (``reset(options={"deal": ...})``) and drives the game
by action names, so each assertion reads as a rule: which actions are legal, who acts next, what
the line's open ends are, who scores what. Tiles are written ``"a-b"``; the 4 tiles no hand
holds are set aside.
"""

from __future__ import annotations

import numpy as np
import pytest

import domino_env
from domino_env import IllegalActionError
from domino_env.games import hungarian_rules as rules
from domino_env.tiles import tile_faces, tile_index
from tests import scripted
from tests.scripted import legal, to_act

pytestmark = pytest.mark.core

CLOSED = -1

# 2 players, one end: the leader's run is 6-6, 5-6, 0-5, 0-0; player_1's 0-1, 1-5; then nobody
# holds a 5 (all four others are set aside) and the hand is blocked.
DEAL_A = ["6-6 5-6 0-5 0-0 1-1 1-2 2-2 2-3 3-3 1-3 4-4 2-4", "4-6 3-6 2-6 1-6 0-6 0-1 0-2 0-3 0-4 1-4 1-5 3-4"]
# 3 players: player_1 holds no 3 and no 6.
DEAL_B = ["6-6 3-6 0-0 1-1 1-2 2-2 0-1 0-2", "4-4 4-5 5-5 2-4 2-5 1-4 1-5 0-4", "3-3 3-4 3-5 2-3 1-3 0-3 4-6 5-6"]
# 3 players, for two open ends.
DEAL_C = ["6-6 2-6 1-6 1-1 5-5 4-4 3-3 4-5", "0-6 0-1 2-3 2-4 3-4 3-5 4-6 5-6", "0-0 0-2 0-3 0-4 0-5 1-2 1-3 2-2"]
# 4 players: player_0 can lay all six tiles in one run and go out.
DEAL_D = ["0-0 0-1 1-2 2-3 3-4 4-5", "5-6 6-6 0-2 0-3 1-3 1-4", "2-6 2-2 0-4 0-5 1-5 2-5", "3-3 3-5 3-6 4-4 4-6 5-5"]
DOMINO_RUN = ["0-0 on left", "0-1 on left", "1-2 on left", "2-3 on left", "3-4 on left", "4-5 on left"]


# ---------------------------------------------------------------------------------------------
# Helpers


def tiles(text: str) -> list[list[int]]:
    """``"6-6 3-5"`` -> ``[[6, 6], [3, 5]]``."""
    return [[int(face) for face in tile.split("-")] for tile in text.split()]


def pips(text: str) -> int:
    return sum(a + b for a, b in tiles(text))


def make_deal(hands: list[str], leader: int | None = 0) -> dict:
    """A complete deal: ``hands`` one string per seat, every other tile set aside."""
    dealt = [tiles(hand) for hand in hands]
    used = {tile_index(a, b) for hand in dealt for a, b in hand}
    deal: dict = {"hands": dealt, "set_aside": [list(tile_faces(t)) for t in range(28) if t not in used]}
    if leader is not None:
        deal["leader"] = leader
    return deal


def start(hands: list[str], leader: int = 0, **options):
    """A raw environment under ``options``, reset to the given deal, ``leader`` to lead."""
    env = domino_env.raw_env("hungarian", num_players=len(hands), **options)
    env.reset(seed=0, options={"deal": make_deal(hands, leader)})
    return env


def play(env, name: str, by: int | None = None) -> None:
    """Step the action called ``name`` (``"pass"`` or a play without its ``"play "``), after
    checking it is legal and, with ``by``, whose turn it is."""
    scripted.play(env, name if name == "pass" else f"play {name}", by)


def plays(*names: str) -> set[str]:
    return {f"play {name}" for name in names}


def ends(env) -> tuple[int, int]:
    left, right = env.state_array[0]["ends"]
    return int(left), int(right)


def hand_counts(env) -> list[int]:
    return [int(n) for n in env.state_array[0]["hand_count"][: env.game.num_players]]


def voids(env, seat: int) -> set[int]:
    return {int(n) for n in np.flatnonzero(env.state_array[0]["voids"][seat])}


def lost(env) -> list[int]:
    return [int(flag) for flag in env.state_array[0]["lost"][: env.game.num_players]]


def rewards(env) -> list[float]:
    return [env.rewards[agent] for agent in env.possible_agents]


def hand_points(env) -> list[int]:
    return [env.infos[agent]["hand_points"] for agent in env.possible_agents]


def match_points(env) -> list[int]:
    return env.infos[env.possible_agents[0]]["match_points"]


def over(env) -> bool:
    return all(env.terminations.values())


def run_the_domino(env) -> None:
    """Deal D: player_0 leads and goes out in one run."""
    for name in DOMINO_RUN:
        play(env, name, by=0)


def step_out_the_eliminated(env) -> None:
    """Give the last step (None) to eliminated agents, where the environment removes them as
    PettingZoo removes finished agents (see ``test_eliminated_agents_leave_the_env``)."""
    while not over(env) and env.terminations[env.agent_selection]:
        env.step(None)


def play_randomly(env, rng: np.random.Generator) -> None:
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(rng.choice(np.flatnonzero(mask))))


# ---------------------------------------------------------------------------------------------
# Players and deal


@pytest.mark.parametrize(("num_players", "size"), [(2, 12), (3, 8), (4, 6)])
def test_hands_of_12_8_or_6_and_four_tiles_set_aside(num_players, size):
    env = domino_env.raw_env("hungarian", num_players=num_players)
    env.reset(seed=3)
    location = env.state_array[0]["location"]
    assert hand_counts(env) == [size] * num_players
    assert [int((location == seat).sum()) for seat in range(num_players)] == [size] * num_players
    assert int((location == rules.SET_ASIDE).sum()) == 4
    assert env.observe("player_0")["observation"][env.observation_layout["hand"]].sum() == size


def test_every_hand_reshuffles_all_28_tiles():
    env = domino_env.raw_env("hungarian", num_players=3, match=True, limit=10_000)
    rng = np.random.default_rng(1)
    env.reset(seed=1)
    set_asides = []
    while len(set_asides) < 6:
        s = env.state_array[0]
        if int(s["tiles_on_table"]) == 0 and not s["run_active"]:
            assert hand_counts(env) == [8, 8, 8]
            set_asides.append(frozenset(np.flatnonzero(s["location"] == rules.SET_ASIDE)))
        while True:  # to the next hand
            play_randomly(env, rng)
            if "hand_points" in env.infos["player_0"]:
                break
    assert len(set(set_asides)) == 6


# ---------------------------------------------------------------------------------------------
# The lead


def test_the_first_leader_is_drawn_by_lot_from_the_seed():
    env = domino_env.raw_env("hungarian", num_players=3)
    leaders = []
    for seed in range(60):
        env.reset(seed=seed)
        leaders.append(to_act(env))
        env.reset(seed=seed)
        assert to_act(env) == leaders[-1]
        assert int(env.state_array[0]["leader"]) == leaders[-1]
    assert set(leaders) == {0, 1, 2}
    # A deal without a leader draws the lot too; a deal with one is led by it.
    drawn = set()
    for seed in range(30):
        env.reset(seed=seed, options={"deal": make_deal(DEAL_B, leader=None)})
        drawn.add(to_act(env))
    assert drawn == {0, 1, 2}
    env.reset(seed=0, options={"deal": make_deal(DEAL_B, leader=2)})
    assert to_act(env) == 2


def test_the_lead_passes_to_the_next_seat_each_hand():
    env = domino_env.raw_env("hungarian", num_players=3, match=True, limit=10_000)
    rng = np.random.default_rng(2)
    env.reset(seed=4)
    first = to_act(env)
    leaders = [first]
    while len(leaders) < 7:
        play_randomly(env, rng)
        if "hand_points" in env.infos["player_0"]:
            leaders.append(to_act(env))
    assert leaders == [(first + k) % 3 for k in range(7)]


# ---------------------------------------------------------------------------------------------
# Play with one open end


def test_the_leader_may_lead_any_tile_and_chooses_which_number_stays_open():
    env = start(DEAL_B)
    held = DEAL_B[0].split()
    expected = plays(*(f"{t} on left" for t in held)) | plays(*(f"{t} on right" for t in held if t[0] != t[2]))
    assert legal(env) == expected  # a double leads "on left" only: both sides would be one move
    play(env, "3-6 on right", by=0)  # keep the 6 open
    assert ends(env) == (CLOSED, 6)
    assert legal(env) == plays("6-6 on right")
    play(env, "6-6 on right", by=0)
    assert ends(env) == (CLOSED, 6)

    env = start(DEAL_B)
    play(env, "3-6 on left", by=0)  # keep the 3 open: player_0 holds no other 3
    assert ends(env) == (3, CLOSED)
    assert to_act(env) == 1


def test_a_run_must_go_on_while_a_tile_fits_and_then_the_turn_moves_on_by_itself():
    env = start(DEAL_A)
    play(env, "6-6 on left", by=0)
    for name, open_number in [("5-6 on left", 5), ("0-5 on left", 0), ("0-0 on left", 0)]:
        assert to_act(env) == 0
        assert legal(env) == {f"play {name}"}  # the only tile that fits, and it must be played
        play(env, name, by=0)
        assert ends(env) == (open_number, CLOSED)
    # No 0 left: player_1's turn, with no action from player_0. Everyone now knows player_0
    # holds no 0.
    assert to_act(env) == 1
    assert hand_counts(env) == [8, 12]
    assert voids(env, 0) == {0}
    assert legal(env) == plays("0-6 on left", "0-1 on left", "0-2 on left", "0-3 on left", "0-4 on left")
    play(env, "0-1 on left", by=1)
    assert legal(env) == plays("1-4 on left", "1-5 on left", "1-6 on left")  # the 1s, not the 0s


def test_a_player_who_cannot_play_at_the_start_of_the_turn_passes():
    env = start(DEAL_B)
    play(env, "6-6 on left", by=0)
    play(env, "3-6 on left", by=0)
    assert to_act(env) == 1 and ends(env) == (3, CLOSED)
    assert legal(env) == {"pass"}  # player_1 holds no 3
    play(env, "pass", by=1)
    assert voids(env, 1) == {3}
    assert ends(env) == (3, CLOSED) and hand_counts(env) == [6, 8, 8]
    assert to_act(env) == 2
    assert legal(env) == plays(*(f"{t} on left" for t in ["3-3", "3-4", "3-5", "2-3", "1-3", "0-3"]))


def test_the_hand_ends_when_blocked_and_the_lowest_total_wins():
    env = start(DEAL_A)
    for name in ["6-6 on left", "5-6 on left", "0-5 on left", "0-0 on left"]:
        play(env, name, by=0)
    play(env, "0-1 on left", by=1)
    play(env, "1-5 on left", by=1)  # nobody holds a 5: blocked
    assert over(env)
    expected = [pips("1-1 1-2 2-2 2-3 3-3 1-3 4-4 2-4"), pips("4-6 3-6 2-6 1-6 0-6 0-2 0-3 0-4 1-4 3-4")]
    assert hand_points(env) == expected == [38, 61]
    assert match_points(env) == [38, 61]
    assert rewards(env) == [1.0, -1.0]


# ---------------------------------------------------------------------------------------------
# Two open ends


def test_two_ends_the_leader_leads_on_left_and_the_second_tile_binds_the_run():
    env = start(DEAL_C, open_ends=2)
    assert legal(env) == plays(*(f"{t} on left" for t in DEAL_C[0].split()))
    play(env, "6-6 on left", by=0)
    assert ends(env) == (6, 6)
    assert legal(env) == plays("2-6 on left", "2-6 on right", "1-6 on left", "1-6 on right")
    play(env, "2-6 on right", by=0)
    # Bound to the right, where nothing fits: the run ends though 1-6 fits the left end.
    assert ends(env) == (6, 2)
    assert to_act(env) == 1
    assert voids(env, 0) == {2}


def test_two_ends_a_run_stays_on_the_end_its_first_tile_went_to():
    env = start(DEAL_C, open_ends=2)
    play(env, "6-6 on left", by=0)
    play(env, "2-6 on right", by=0)
    assert legal(env) == plays("0-6 on left", "4-6 on left", "5-6 on left", "2-3 on right", "2-4 on right")
    play(env, "0-6 on left", by=1)
    assert legal(env) == plays("0-1 on left")  # 2-3 and 2-4 fit the right end, but the run is on the left
    view = env.observe("player_2")["observation"]
    layout = env.observation_layout
    assert view[layout["run_in_progress"]].tolist() == [1.0]
    assert view[layout["run_end"]].tolist() == [1.0, 0.0]
    assert view[layout["left_end"]].tolist() == [1.0, 0, 0, 0, 0, 0, 0]
    assert view[layout["right_end"]].tolist() == [0, 0, 1.0, 0, 0, 0, 0]
    assert view[layout["to_act"]].tolist() == [0, 0, 1.0]  # player_1 is two seats after player_2
    play(env, "0-1 on left", by=1)
    assert to_act(env) == 2  # no 1 left: the turn ends with 2-3 and 2-4 still in hand
    assert voids(env, 1) == {1}
    assert env.observe("player_2")["observation"][layout["run_in_progress"]].tolist() == [0.0]
    assert legal(env) == plays("1-2 on left", "1-2 on right", "1-3 on left", "0-2 on right", "2-2 on right")


# ---------------------------------------------------------------------------------------------
# End of hand and scoring


def test_a_domino_ends_the_hand_and_everyone_scores_the_pips_left():
    env = start(DEAL_D)
    run_the_domino(env)
    assert over(env)
    assert hand_points(env) == [0, pips(DEAL_D[1]), pips(DEAL_D[2]), pips(DEAL_D[3])] == [0, 37, 34, 51]
    assert rewards(env) == pytest.approx([1.0, -1 / 3, -1 / 3, -1 / 3])


def test_reward_points_is_minus_the_pips_less_the_mean_over_168():
    env = start(DEAL_D, reward="points")
    run_the_domino(env)
    mean = (0 + 37 + 34 + 51) / 4
    assert rewards(env) == pytest.approx([(mean - p) / 168 for p in (0, 37, 34, 51)])


def test_end_on_domino_false_plays_on_until_blocked_and_ties_share_the_win():
    env = start(DEAL_D, end_on_domino=False)
    run_the_domino(env)
    assert not over(env)
    assert hand_counts(env) == [0, 6, 6, 6] and to_act(env) == 1
    play(env, "5-6 on left", by=1)
    play(env, "6-6 on left", by=1)
    for name in ["2-6 on left", "2-2 on left", "2-5 on left", "0-5 on left", "0-4 on left"]:
        play(env, name, by=2)
    for name in ["4-4 on left", "4-6 on left", "3-6 on left", "3-3 on left", "3-5 on left", "5-5 on left"]:
        play(env, name, by=3)
    assert hand_counts(env) == [0, 4, 1, 0]
    play(env, "pass", by=0)  # out of tiles, so out of moves
    play(env, "pass", by=1)
    play(env, "1-5 on left", by=2)
    play(env, "pass", by=3)
    play(env, "pass", by=0)
    play(env, "1-3 on left", by=1)
    play(env, "0-3 on left", by=1)
    assert not over(env)
    play(env, "0-2 on left", by=1)  # the 2s left are set aside: blocked
    assert over(env)
    assert hand_points(env) == [0, 5, 0, 0]
    assert rewards(env) == pytest.approx([1 / 3, -1.0, 1 / 3, 1 / 3])


# ---------------------------------------------------------------------------------------------
# The match and its limit


def test_a_match_goes_on_below_the_limit_with_the_next_leader():
    env = start(DEAL_D, match=True, limit=52)
    run_the_domino(env)
    assert not over(env)
    assert match_points(env) == [0, 37, 34, 51]
    assert rewards(env) == pytest.approx([1.0, -1 / 3, -1 / 3, -1 / 3])
    assert hand_counts(env) == [6, 6, 6, 6] and to_act(env) == 1
    assert int(env.state_array[0]["hand_number"]) == 1
    assert lost(env) == [0, 0, 0, 0]


@pytest.mark.parametrize(
    ("limit", "before", "expected_lost"),
    [
        (40, [0, 0, 0, 0], [0, 0, 0, 1]),  # only player_3 (51) reaches 40
        (35, [0, 0, 0, 0], [0, 0, 0, 1]),  # player_1 (37) and player_3 (51) cross: the highest loses
        (35, [0, 14, 0, 0], [0, 1, 0, 1]),  # 51 and 51: a tie for highest shares the loss
    ],
)
def test_the_first_to_reach_the_limit_loses_the_match(limit, before, expected_lost):
    env = start(DEAL_D, match=True, limit=limit)
    env.state_array["match_points"][0, :4] = before
    run_the_domino(env)
    assert over(env)
    assert match_points(env) == [b + p for b, p in zip(before, [0, 37, 34, 51], strict=True)]
    assert lost(env) == expected_lost


def test_elimination_drops_the_player_and_deals_for_the_new_count():
    env = start(DEAL_D, match=True, elimination=True, limit=40)
    run_the_domino(env)
    assert not over(env)
    assert lost(env) == [0, 0, 0, 1]
    assert env.game.seats_in_play(env.state_array, 0) == [0, 1, 2]
    assert hand_counts(env) == [8, 8, 8, 0]  # 3 players left: 8 tiles each
    assert int((env.state_array[0]["location"] == rules.SET_ASIDE).sum()) == 4
    step_out_the_eliminated(env)
    assert to_act(env) == 1
    layout = env.observation_layout
    assert env.observe("player_1")["observation"][layout["out"]].tolist() == [0, 0, 1, 0]  # relative seats
    rng = np.random.default_rng(3)
    hand_number = 1
    while not over(env):
        out = [seat for seat in range(4) if lost(env)[seat]]
        assert to_act(env) not in out
        play_randomly(env, rng)
        s = env.state_array[0]
        if s["hand_number"] != hand_number or s["game_over"]:  # a hand ended: the seats out get nothing
            hand_number = int(s["hand_number"])
            assert all(env.game.rewards(env.state_array, 0)[out] == 0)
            assert all(env.game.hand_points(env.state_array, 0)[seat] == 0 for seat in out)
            if not s["game_over"]:
                left = env.game.seats_in_play(env.state_array, 0)
                assert hand_counts(env) == [rules.hand_size(len(left)) if seat in left else 0 for seat in range(4)]
                step_out_the_eliminated(env)
    assert sum(lost(env)) == 3  # down to one player, the winner
    totals = env.game.match_points(env.state_array, 0)
    assert all(totals[seat] >= 40 for seat in range(4) if lost(env)[seat])


def test_elimination_of_two_at_once_leaves_two_players_with_12_tiles():
    env = start(DEAL_D, match=True, elimination=True, limit=35)
    run_the_domino(env)
    assert lost(env) == [0, 1, 0, 1]
    assert hand_counts(env) == [12, 0, 12, 0]
    step_out_the_eliminated(env)
    assert to_act(env) == 2  # the lead passes to the next seat still in play


def test_elimination_ends_when_one_player_is_left():
    env = start(DEAL_D, match=True, elimination=True, limit=30)
    run_the_domino(env)  # 37, 34 and 51 all reach 30
    assert over(env)
    assert lost(env) == [0, 1, 1, 1]


@pytest.mark.parametrize(("before", "expected_lost"), [([70, 50], [0, 1]), ([73, 50], [0, 0])])
def test_elimination_when_everyone_left_crosses_the_lowest_total_survives(before, expected_lost):
    env = start(DEAL_A, match=True, elimination=True, limit=100)
    env.state_array["match_points"][0, :2] = before
    for name in ["6-6 on left", "5-6 on left", "0-5 on left", "0-0 on left", "0-1 on left", "1-5 on left"]:
        play(env, name)
    assert over(env)  # 108 against 111 (or 111 against 111: a shared win)
    assert lost(env) == expected_lost


def test_eliminated_agents_leave_the_env():
    env = domino_env.make("hungarian", num_players=4, match=True, elimination=True, limit=40)
    env.reset(options={"deal": make_deal(DEAL_D)})
    for name in DOMINO_RUN:
        env.step(env.unwrapped.action_from_name(f"play {name}"))
    for agent in env.agent_iter():  # player_3 reached the limit: it is stepped out with None
        _, reward, termination, _, _ = env.last()
        assert agent == "player_3" and termination and reward == pytest.approx(-1 / 3)
        env.step(None)
        break
    assert env.agents == ["player_0", "player_1", "player_2"]
    assert env.agent_selection == "player_1"


# ---------------------------------------------------------------------------------------------
# Options, deals, actions, illegal moves, rendering


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"num_players": 5}, ValueError, r"num_players must be between 2 and 4, got 5"),
        ({"open_ends": 3}, ValueError, r"open_ends must be between 1 and 2, got 3"),
        ({"limit": 0}, ValueError, r"limit must be at least 1, got 0"),
        ({"end_on_domino": 0}, TypeError, r"end_on_domino must be True or False"),
        ({"elimination": True}, ValueError, r"elimination is a way to play a match: set match=True"),
        ({"reward": "score"}, ValueError, r"reward must be one of 'win', 'points'"),
        ({"hand_size": 7}, TypeError, r"unknown option\(s\) 'hand_size'"),
    ],
)
def test_bad_options_are_refused_with_a_clear_message(options, error, message):
    with pytest.raises(error, match=message):
        domino_env.make("hungarian", **options)


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        (lambda d: d.update(hands=d["hands"][:2]), ValueError, r"must have 3 hands"),
        (lambda d: d["hands"][1].pop(), ValueError, r"hand 1 must hold 8 tiles, got 7"),
        (lambda d: d["hands"][2].__setitem__(0, [6, 6]), ValueError, r"tile 6-6 is dealt twice"),
        (lambda d: d.update(set_aside=d["set_aside"][:3]), ValueError, r"'set_aside' must hold the 4 undealt"),
        (lambda d: d.update(boneyard=[]), ValueError, r"hungarian deals have no 'boneyard'"),
        (lambda d: d.update(leader=3), ValueError, r"deal\['leader'\] must be between 0 and 2"),
        (lambda d: d["hands"][0].__setitem__(0, [7, 1]), ValueError, r"not in the double-6 set"),
    ],
)
def test_bad_deals_are_refused_and_leave_the_env_usable(change, error, message):
    env = start(DEAL_B)
    play(env, "6-6 on left", by=0)
    before = env.state_array.copy()
    deal = make_deal(DEAL_B)
    change(deal)
    with pytest.raises(error, match=message):
        env.reset(options={"deal": deal})
    assert env.state_array.tobytes() == before.tobytes()
    env.reset(options={"deal": {"hands": make_deal(DEAL_B)["hands"]}})  # set_aside may be omitted
    assert hand_counts(env) == [8, 8, 8]


def test_action_names_cover_every_action_once():
    env = domino_env.raw_env("hungarian")
    names = [env.action_name(a) for a in range(env.game.num_actions)]
    assert len(set(names)) == len(names) == 2 * 28 + 1
    assert names[-1] == "pass" and env.action_from_name("pass") == 56
    assert names[2 * tile_index(3, 5) : 2 * tile_index(3, 5) + 2] == ["play 3-5 on left", "play 3-5 on right"]
    assert all(env.action_from_name(name) == a for a, name in enumerate(names))


def test_illegal_action_raises_and_changes_nothing():
    env = domino_env.make("hungarian")
    raw = env.unwrapped
    env.reset(options={"deal": make_deal(DEAL_A)})
    env.step(raw.action_from_name("play 6-6 on left"))
    before = raw.state_array.copy()
    for name in ["play 4-6 on left", "play 1-1 on left", "play 5-6 on right", "pass"]:
        with pytest.raises(IllegalActionError, match=name) as error:
            env.step(raw.action_from_name(name))
        assert "player_0" in str(error.value) and "play 5-6 on left" in str(error.value)
        assert raw.state_array.tobytes() == before.tobytes()
        assert env.agent_selection == "player_0"
    env.step(raw.action_from_name("play 5-6 on left"))
    assert tuple(raw.state_array[0]["ends"]) == (5, CLOSED)


def test_illegal_action_penalty_ends_the_game():
    env = start(DEAL_A, illegal_action="penalty")
    play(env, "6-6 on left", by=0)
    env.step(env.action_from_name("pass"))
    assert over(env)
    assert rewards(env) == [-1.0, 0.0]


def test_render_ansi_draws_the_table():
    env = start(DEAL_C, open_ends=2, render_mode="ansi")
    play(env, "6-6 on left", by=0)
    play(env, "2-6 on right", by=0)
    play(env, "0-6 on left", by=1)
    text = env.render()
    assert "Hungarian Dominoes · hand 1 · player_1 to act, run on the left" in text
    assert "line: [0|6][6|6][6|2]  · open: left 0, right 2" in text
    assert "set aside: 4 tiles, face down" in text
    assert "player_0 (led): 1-1 3-3 4-4 4-5 5-5 1-6  · points 0" in text


def test_render_ansi_marks_the_players_out_and_rgb_array_draws_the_line_and_hands():
    env = start(DEAL_D, match=True, elimination=True, limit=40, render_mode="ansi")
    run_the_domino(env)
    assert "player_3 (out): -  · points 51" in env.render()
    env = start(DEAL_C, open_ends=2, render_mode="rgb_array")
    before = env.render()
    assert before.dtype == np.uint8 and before.ndim == 3
    play(env, "6-6 on left", by=0)
    assert not np.array_equal(before, env.render())
