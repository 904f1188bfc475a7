"""Mexican Train played by the rules of RULES.md sections 4, 5 and 6.

Every test starts from a hand-built deal (``reset(options={"deal": ...})``) and drives the game
by action names, so each assertion reads as a rule: which actions are legal, who acts next, which
trains are open, who scores what. Tiles are written ``"a-b"`` in the helpers and handed to the
environment as ``[a, b]`` pairs. Unless a test says otherwise the set is double-twelve, the
boneyard holds the given tiles first, then every other tile in index order (0-0, 0-1, 1-1, 0-2,
...), and the rules of trains, turns, doubles and scoring are played under
``engine="descending"``: the engine 12-12 is held by the deal's ``leader`` (so its hand lists one
tile fewer) and the next seat plays first. The rules that depend on the engine mode are tested in
every mode, with deals written the way each mode takes them.
"""

from __future__ import annotations

import numpy as np
import pytest

import domino_env
from domino_env import IllegalActionError
from domino_env.games import mexican_train_rules as rules
from domino_env.tiles import num_tiles, tile_faces, tile_index, total_pips
from tests.scripted import legal, play, to_act

pytestmark = pytest.mark.core

# ---------------------------------------------------------------------------------------------
# Helpers


def tiles(text: str) -> list[list[int]]:
    """``"6-6 3-5"`` -> ``[[6, 6], [3, 5]]``."""
    return [[int(face) for face in tile.split("-")] for tile in text.split()]


def pips(text: str) -> int:
    return sum(a + b for a, b in tiles(text))


def make_deal(
    hands: list[str], boneyard: str = "", leader: int | None = 0, set_size: int = 12, engine_out: bool = True
) -> dict:
    """A complete deal: the boneyard holds ``boneyard`` first, then every other tile in index
    order but, when ``engine_out`` (the deals of ``descending`` and ``set_aside``), the engine N-N
    (unless ``boneyard`` lists it)."""
    dealt = [tiles(hand) for hand in hands]
    front = tiles(boneyard)
    used = {tile_index(a, b) for tile_list in [*dealt, front] for a, b in tile_list}
    if engine_out:
        used.add(tile_index(set_size, set_size))
    rest = [list(tile_faces(t)) for t in range(num_tiles(set_size)) if t not in used]
    deal: dict = {"hands": dealt, "boneyard": front + rest}
    if leader is not None:
        deal["leader"] = leader
    return deal


def start(hands: list[str], boneyard: str = "", leader: int | None = 0, **options):
    """A raw environment for ``len(hands)`` players under ``options`` (``engine="descending"``
    unless they say otherwise), reset to the given deal; the hand size is that of the longest hand."""
    options = {"num_players": len(hands), "hand_size": max(len(hand.split()) for hand in hands)} | options
    options = {"engine": "descending"} | options
    env = domino_env.raw_env("mexican_train", **options)
    engine_out = options["engine"] != "highest_double"
    env.reset(seed=0, options={"deal": make_deal(hands, boneyard, leader, env.game.config.set_size, engine_out)})
    return env


ENGINES = ["highest_double", "descending", "set_aside"]


def begin(engine: str, hands: list[str], boneyard: str = "", first: int = 0, spare: str = "11-11", **options):
    """Seat ``first`` to act on the engine 12-12 with nothing played yet, the hands as ``hands``
    list them, under any ``engine`` mode, each dealt as that mode takes deals: the seat before
    ``first`` (which lists one tile fewer) held the engine and placed it, as dealt and then
    passing its opening turn (``highest_double``) or named as ``leader`` (``descending``); with
    the engine set aside it was dealt ``spare`` instead, and ``first`` is the deal's leader."""
    placer = (first - 1) % len(hands)
    hands = list(hands)
    if engine == "highest_double":
        hands[placer] += " 12-12"
        env = start(hands, boneyard, None, engine=engine, **options)
        play(env, "pass", by=placer)
    elif engine == "descending":
        env = start(hands, boneyard, placer, engine=engine, **options)
    else:
        hands[placer] += f" {spare}"
        env = start(hands, boneyard, first, engine=engine, **options)
    assert to_act(env) == first
    return env


def draw_and_keep(env, seat: int) -> None:
    """``seat`` draws, then keeps the drawn tile (``pass``): its turn ends with its marker up."""
    play(env, "draw", by=seat)
    play(env, "pass", by=seat)


def record(env):
    return env.state_array[0]


def hand_counts(env) -> list[int]:
    return [int(n) for n in record(env)["hand_count"][: env.num_agents]]


def markers(env) -> list[int]:
    return [int(m) for m in record(env)["marker"][: env.num_agents]]


def train_end(env, train: int) -> int:
    return int(record(env)["train_end"][train])


def hand(env, seat: int) -> set[str]:
    location = record(env)["location"][: env.game.config.num_tiles]
    return {"{}-{}".format(*tile_faces(int(t))) for t in np.flatnonzero(location == seat)}


def rewards(env) -> list[float]:
    return [env.rewards[agent] for agent in env.possible_agents]


def hand_points(env) -> list[int]:
    return [env.infos[agent]["hand_points"] for agent in env.possible_agents]


def over(env) -> bool:
    return all(env.terminations.values())


def block(env, seat: int, name: str) -> np.ndarray:
    """Block ``name`` of ``seat``'s observation."""
    return env.observe(env.possible_agents[seat])["observation"][env.observation_layout[name]]


# ---------------------------------------------------------------------------------------------
# Players, deal and options


@pytest.mark.parametrize(
    ("num_players", "set_size", "hand_size"),
    [
        *[(2, 12, 15), (3, 12, 15), (4, 12, 15), (5, 12, 12), (6, 12, 12), (7, 12, 10), (8, 12, 10)],
        *[(2, 9, 9), (3, 9, 9), (4, 9, 9), (5, 9, 7), (6, 9, 7), (7, 9, 7), (8, 9, 6)],
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_hand_sizes_follow_the_table(num_players, set_size, hand_size, engine):
    env = domino_env.raw_env("mexican_train", num_players=num_players, set_size=set_size, engine=engine)
    env.reset(seed=num_players)
    s = record(env)
    assert env.game.config.hand_size == hand_size
    counts = hand_counts(env)
    drawn = int(s["boneyard_top"])  # the draw for the engine, when nobody held it
    starter = int(s["starter"])
    if engine == "set_aside":
        assert counts == [hand_size] * num_players and drawn == 0
    elif engine == "highest_double":  # the engine left its holder's hand; nobody draws
        assert counts == [hand_size - (seat == starter) for seat in range(num_players)] and drawn == 0
    else:
        assert sum(counts) == num_players * hand_size - 1 + drawn
    assert sum(counts) + int(s["boneyard_size"]) - drawn + 1 == num_tiles(set_size)
    engine_number = int(s["engine"])
    assert s["location"][tile_index(engine_number, engine_number)] == rules.ON_TABLE
    if engine == "highest_double":
        assert all(s["location"][tile_index(n, n)] == rules.IN_BONEYARD for n in range(engine_number + 1, set_size + 1))
    else:
        assert engine_number == set_size


def test_with_four_players_every_hand_is_dealt_fifteen_and_the_highest_double_opens():
    env = domino_env.make("mexican_train", render_mode="ansi")
    env.reset(seed=3)
    s = record(env.unwrapped)
    starter, engine = int(s["starter"]), int(s["engine"])
    assert hand_counts(env.unwrapped) == [15 - (seat == starter) for seat in range(4)]
    assert int(s["boneyard_size"]) == 91 - 60 and int(s["boneyard_top"]) == 0
    assert to_act(env.unwrapped) == starter
    assert f"engine {engine}-{engine} (started by player_{starter}) · player_{starter} to act" in env.render()


def test_hand_size_option_and_refusals():
    env = domino_env.raw_env("mexican_train", num_players=3, hand_size=20)
    assert env.game.config.hand_size == 20
    with pytest.raises(ValueError, match=r"8 hands of 12 tiles need 96 tiles; the double-12 set has 91"):
        domino_env.raw_env("mexican_train", num_players=8, hand_size=12)
    with pytest.raises(ValueError, match=r"the double-9 set has 54 to deal"):
        domino_env.raw_env("mexican_train", num_players=2, set_size=9, hand_size=28, engine="set_aside")
    with pytest.raises(ValueError, match=r"set_size must be 12 \(double-twelve\) or 9"):
        domino_env.raw_env("mexican_train", set_size=6)
    with pytest.raises(ValueError, match=r"num_players must be between 2 and 8"):
        domino_env.raw_env("mexican_train", num_players=9)
    with pytest.raises(ValueError, match=r"hand_size must be at least 2"):
        domino_env.raw_env("mexican_train", hand_size=1)  # the holder would go out placing the engine
    domino_env.raw_env("mexican_train", hand_size=1, engine="set_aside")
    with pytest.raises(ValueError, match=r"engine must be one of 'highest_double', 'descending', 'set_aside'"):
        domino_env.raw_env("mexican_train", engine="holder")
    with pytest.raises(ValueError, match=r"first_turn must be one of 'single', 'chain'"):
        domino_env.raw_env("mexican_train", first_turn="all")
    with pytest.raises(ValueError, match=r"double_blank_value must be at least 0"):
        domino_env.raw_env("mexican_train", double_blank_value=-5)
    with pytest.raises(TypeError, match=r"must_play_drawn must be True or False"):
        domino_env.raw_env("mexican_train", must_play_drawn=1)
    with pytest.raises(TypeError, match=r"unknown option\(s\) 'target'"):
        domino_env.raw_env("mexican_train", target=100)


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        (make_deal(["12-12 1-2", "3-4 5-6"]), r"the engine 12-12 sits in no hand"),
        (make_deal(["1-2", "3-4 5-6"], leader=None), r"does not say who holds the engine 12-12"),
        (make_deal(["1-2 2-2", "3-4 5-6"], leader=0), r"hand 0 must hold 1 tiles \(the engine it placed left out\)"),
        (make_deal(["1-2", "3-4 5-6 0-1"], leader=0), r"hand 1 must hold 2 tiles, got 3"),
        (make_deal(["1-2", "1-2 5-6"]), r"tile 1-2 is dealt twice \(hand 0 and hand 1\)"),
        ({"hands": [[[1, 2]], [[3, 4], [5, 6]]], "boneyard": [], "leader": 0}, r"the deal is missing tile\(s\) 0-0"),
        ({"hands": [[[1, 2]], [[3, 4], [5, 6]]], "leader": 0}, r"the deal needs 'boneyard'"),
        ({**make_deal(["1-2", "3-4 5-6"]), "set_aside": []}, r"mexican_train deals have no 'set_aside'"),
        (make_deal(["1-2 2-2", "3-4 5-6"], "0-1 12-12", leader=0), r"seat 1 draws 12-12 from the boneyard"),
        (make_deal(["1-2", "3-4 5-6"], leader=2), r"deal\['leader'\] must be between 0 and 1"),
        (make_deal(["1-2", "3-4 5-13"]), r"tile \[5, 13\] is not in the double-12 set"),
    ],
)
def test_descending_deals_that_break_the_rules_are_refused(deal, message):
    env = domino_env.raw_env("mexican_train", num_players=2, hand_size=2, engine="descending")
    refused_before_any_change(env, deal, message)


def refused_before_any_change(env, deal: dict, message: str) -> None:
    env.reset(seed=5)
    before = env.state_array.copy()
    with pytest.raises(ValueError, match=message):
        env.reset(options={"deal": deal})
    assert env.state_array.tobytes() == before.tobytes()


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        (make_deal(["1-2 3-4", "5-6 0-1"], engine_out=False), r"no hand holds a double, so .* would deal again"),
        (make_deal(["1-2 5-5", "3-4 9-9"], leader=0, engine_out=False), r"seat 1 holds the highest double 9-9"),
        (make_deal(["1-2 5-5", "3-4"], leader=None, engine_out=False), r"hand 1 must hold 2 tiles, got 1"),
        (make_deal(["1-2 5-5", "3-4 6-6"], leader=None), r"the deal is missing tile\(s\) 12-12"),
        (make_deal(["1-2 5-5", "5-5 6-6"], engine_out=False), r"tile 5-5 is dealt twice"),
    ],
)
def test_highest_double_deals_are_the_hands_as_dealt_and_others_are_refused(deal, message):
    env = domino_env.raw_env("mexican_train", num_players=2, hand_size=2)
    refused_before_any_change(env, deal, message)
    # The same hands with a double, 12-12 in the boneyard: 9-9's holder places it and opens.
    env.reset(options={"deal": make_deal(["1-2 5-5", "3-4 9-9"], leader=1, engine_out=False)})
    assert int(record(env)["engine"]) == 9 and int(record(env)["starter"]) == 1 and hand_counts(env) == [2, 1]


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        (make_deal(["1-2 2-2", "3-4 5-6"], "12-12", leader=None), r"engine='set_aside' the engine 12-12 is not in"),
        (make_deal(["1-2 12-12", "3-4 5-6"]), r"with engine='set_aside' the engine 12-12 sits in no hand"),
        (make_deal(["1-2", "3-4 5-6"]), r"hand 0 must hold 2 tiles, got 1"),
    ],
)
def test_set_aside_deals_keep_the_engine_out_and_others_are_refused(deal, message):
    env = domino_env.raw_env("mexican_train", num_players=2, hand_size=2, engine="set_aside")
    refused_before_any_change(env, deal, message)


# ---------------------------------------------------------------------------------------------
# The engine: the highest double held (the default)


def test_the_highest_double_held_is_the_engine_and_its_holder_opens_the_round():
    env = start(["1-2 3-12 4-4", "6-7 8-9 9-9", "0-1 9-12 0-3"], leader=None, engine="highest_double")
    s = record(env)
    assert int(s["engine"]) == 9 and int(s["starter"]) == 1 and to_act(env) == 1
    assert s["location"][tile_index(9, 9)] == rules.ON_TABLE  # it left its holder's hand
    assert s["location"][tile_index(12, 12)] == rules.IN_BONEYARD and int(s["boneyard_top"]) == 0
    assert hand_counts(env) == [3, 2, 3] and [train_end(env, train) for train in range(4)] == [9] * 4
    assert list(block(env, 0, "turn")) == [0.0, 0.0, 1.0]  # everyone sees the opening turn
    # The starter may begin its own train with a tile matching the engine, or end its turn.
    assert legal(env) == {"play 8-9 on own", "pass"}
    play(env, "play 8-9 on own", by=1)
    assert to_act(env) == 2 and train_end(env, 1) == 8 and markers(env) == [0, 0, 0]
    assert legal(env) == {"play 9-12 on own"}  # the next seat's first turn begins its own train


def test_the_starter_may_end_its_opening_turn_with_no_draw_and_no_marker():
    env = start(["1-2 3-12 4-4", "6-7 8-9 9-9", "0-1 9-12 0-3"], leader=None, engine="highest_double")
    play(env, "pass", by=1)
    s = record(env)
    assert to_act(env) == 2 and markers(env) == [0, 0, 0] and int(s["boneyard_top"]) == 0
    assert hand_counts(env) == [3, 2, 3] and int(s["passes"]) == 0
    assert not block(env, 2, "voids").any()  # it may have held a tile for the engine
    assert list(block(env, 1, "had_turn")) == [1.0, 0.0, 0.0]  # its first turn is over
    play(env, "play 9-12 on own", by=2)
    draw_and_keep(env, 0)
    # A later turn is an ordinary one: its own train, not the Mexican Train before it.
    assert legal(env) == {"play 8-9 on own"}


def test_a_starter_holding_nothing_for_the_engine_may_only_end_its_opening_turn():
    env = start(["1-2 3-12", "6-7 5-5"], "8-9", leader=None, engine="highest_double")
    assert int(record(env)["engine"]) == 5 and to_act(env) == 1
    assert legal(env) == {"pass"}  # no draw in the opening turn
    play(env, "pass", by=1)
    assert to_act(env) == 0 and hand_counts(env) == [2, 1] and markers(env) == [0, 0]


def test_the_opening_turn_is_the_starters_first_turn_for_a_chain():
    env = start(
        ["1-2 3-12 4-4 0-0", "6-7 8-9 9-9 1-8", "0-1 9-12 0-3 2-3"],
        leader=None,
        engine="highest_double",
        first_turn="chain",
    )
    play(env, "play 8-9 on own", by=1)
    assert legal(env) == {"play 1-8 on own", "pass"}
    play(env, "play 1-8 on own", by=1)
    assert legal(env) == {"pass"}
    play(env, "pass", by=1)
    assert to_act(env) == 2 and markers(env) == [0, 0, 0] and int(record(env)["train_size"][1]) == 2


def test_highest_double_deals_always_give_a_hand_a_double():
    """Two hands of two double-nine tiles hold no double about half the time: such a deal is
    dealt again, so every round starts with a double from a hand and nothing drawn."""
    env = domino_env.raw_env("mexican_train", num_players=2, set_size=9, hand_size=2)
    engines = set()
    for seed in range(200):
        env.reset(seed=seed)
        s = record(env)
        engines.add(int(s["engine"]))
        assert int(s["boneyard_top"]) == 0 and sorted(hand_counts(env)) == [1, 2]
        assert to_act(env) == int(s["starter"]) and "pass" in legal(env) and "draw" not in legal(env)
    assert len(engines) > 5  # the engine is whichever double is highest


# ---------------------------------------------------------------------------------------------
# The engine: descending and set aside


def test_the_holder_places_the_engine_and_the_next_seat_plays_first():
    env = start(["1-2 3-12 4-5", "6-7 8-9", "0-1 0-2 0-3"], leader=1)
    s = record(env)
    assert s["location"][tile_index(12, 12)] == rules.ON_TABLE
    assert int(s["starter"]) == 1 and to_act(env) == 2
    assert hand_counts(env) == [3, 2, 3]
    assert int(s["boneyard_top"]) == 0
    assert block(env, 0, "engine")[12] == 1.0
    assert list(block(env, 0, "table")).count(1.0) == 1  # the engine alone


def test_nobody_holds_the_engine_seats_draw_for_it_in_seat_order():
    # Seats 0, 1, 2, 0, 1 draw 0-9, 1-9, 2-9, 3-9, 12-12: seat 1 draws the engine and places it.
    env = start(["1-2 3-12", "4-5 6-7", "0-1 0-2"], "0-9 1-9 2-9 3-9 12-12 4-9", leader=None)
    s = record(env)
    assert int(s["starter"]) == 1 and to_act(env) == 2
    assert int(s["boneyard_top"]) == 5
    assert hand_counts(env) == [4, 3, 3]
    assert hand(env, 0) == {"1-2", "3-12", "0-9", "3-9"}
    assert hand(env, 1) == {"4-5", "6-7", "1-9"}
    assert hand(env, 2) == {"0-1", "0-2", "2-9"}
    # The draws are public as counts: everyone sees the sizes, only the drawer the faces.
    np.testing.assert_allclose(block(env, 2, "hand_sizes") * 91, [3, 4, 3])  # relative to seat 2
    np.testing.assert_allclose(block(env, 2, "boneyard") * 91, 91 - 6 - 5)
    env = domino_env.raw_env("mexican_train", num_players=3, hand_size=2, engine="descending")
    env.reset(options={"deal": make_deal(["1-2 3-12", "4-5 6-7", "0-1 0-2"], "0-9 1-9 2-9 3-9 12-12", leader=1)})
    assert int(record(env)["starter"]) == 1  # a leader that agrees with the draw is accepted


def test_set_aside_engine_seat_leader_plays_first():
    env = start(["1-2 3-12", "4-5 6-7", "0-1 0-2"], leader=2, engine="set_aside")
    assert to_act(env) == 2 and int(record(env)["starter"]) == 2
    assert hand_counts(env) == [2, 2, 2]
    assert legal(env) == {"draw"}
    env = start(["1-2 3-12", "4-5 6-7", "0-1 0-2"], leader=None, engine="set_aside")
    assert to_act(env) == 0


def engines_of_a_match(env, seed: int) -> list[tuple[int, int, int, list[int], int, list[int]]]:
    """Play a random match; for every round, (engine, previous starter, starter, hand counts,
    tiles drawn for the engine, seat to act) as the round begins."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    rounds = []
    previous = env.num_agents - 1
    while True:
        s = record(env)
        rounds.append(
            (int(s["engine"]), previous, int(s["starter"]), hand_counts(env), int(s["boneyard_top"]), to_act(env))
        )
        previous = int(s["starter"])
        while True:
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
            if "hand_points" in env.infos[env.possible_agents[0]]:
                break
        if over(env):
            return rounds


@pytest.mark.parametrize(("set_size", "players", "hand_size"), [(12, 2, 15), (9, 3, 9)])
def test_a_descending_match_plays_every_engine_from_the_top_double_down(set_size, players, hand_size):
    env = domino_env.raw_env("mexican_train", num_players=players, set_size=set_size, match=True, engine="descending")
    held = searched = 0
    for seed in range(3):
        rounds = engines_of_a_match(env, seed)
        assert [r[0] for r in rounds] == list(range(set_size, -1, -1))  # 13 or 10 rounds
        for engine, previous, starter, counts, drawn, first in rounds:
            # Seats draw for the engine from the one after the previous round's starter; the seat
            # that draws it (or held it) places it and the next seat plays.
            drawers = [(previous + 1 + i) % players for i in range(drawn)]
            if drawn:
                assert starter == drawers[-1]
                searched += 1
            else:
                held += 1
            expected = [hand_size + drawers.count(seat) - (seat == starter) for seat in range(players)]
            assert counts == expected, (engine, previous, starter, drawn)
            assert first == (starter + 1) % players
        assert over(env) and len(rounds) == set_size + 1
        totals = env.infos["player_0"]["match_points"]
        assert env.game.match_winners(env.state_array, 0) == [p for p in range(players) if totals[p] == min(totals)]
    assert held and searched


@pytest.mark.parametrize(("set_size", "players", "hand_size"), [(12, 4, 15), (9, 2, 9)])
def test_a_highest_double_match_starts_every_round_with_the_highest_double_held(set_size, players, hand_size):
    env = domino_env.raw_env("mexican_train", num_players=players, set_size=set_size, match=True)
    rounds = engines_of_a_match(env, 2)
    assert len(rounds) == set_size + 1  # 13 or 10 rounds
    for _, _, starter, counts, drawn, first in rounds:
        assert counts == [hand_size - (seat == starter) for seat in range(players)] and drawn == 0
        assert first == starter  # the opening turn
    assert len({r[0] for r in rounds}) > 1 and len({r[2] for r in rounds}) > 1


def test_a_set_aside_engine_rotates_the_first_seat_by_round():
    env = domino_env.raw_env("mexican_train", num_players=3, engine="set_aside", match=True)
    rounds = engines_of_a_match(env, 4)
    assert [r[0] for r in rounds] == list(range(12, -1, -1))
    assert [r[5] for r in rounds] == [k % 3 for k in range(13)]
    assert all(r[3] == [15, 15, 15] and r[4] == 0 for r in rounds)


# ---------------------------------------------------------------------------------------------
# Trains: private, public while marked, the Mexican Train


def test_personal_trains_are_private_until_marked_and_private_again_when_the_owner_plays():
    env = start(["3-12 3-5 1-2 0-0 8-10", "4-12 5-9 4-6 10-11"], "7-8 9-11", leader=1)
    assert legal(env) == {"play 3-12 on own"}  # nothing else: the Mexican Train needs my own train
    play(env, "play 3-12 on own", by=0)
    assert legal(env) == {"play 4-12 on own"}
    play(env, "play 4-12 on own", by=1)
    assert legal(env) == {"play 3-5 on own"}
    play(env, "play 3-5 on own", by=0)
    # 5-9 fits player_0's open 5, but that train is private.
    assert legal(env) == {"play 4-6 on own"}
    play(env, "play 4-6 on own", by=1)
    assert legal(env) == {"draw"}
    assert list(block(env, 1, "train_public")) == [0.0, 1.0, 0.0]  # own, Mexican, player_0's
    draw_and_keep(env, 0)  # 7-8 fits nothing: kept, and the marker goes up
    assert to_act(env) == 1 and markers(env) == [1, 0]
    assert list(block(env, 1, "train_public")) == [0.0, 1.0, 1.0]
    assert list(block(env, 0, "train_public")) == [1.0, 1.0, 0.0]
    assert legal(env) == {"play 5-9 on train+1"}
    play(env, "play 5-9 on train+1", by=1)
    assert markers(env) == [1, 0]  # another player's tile leaves the marker where it is
    assert train_end(env, 0) == 9
    assert legal(env) == {"draw"}
    play(env, "draw", by=0)  # 9-11 fits the own train: play it or keep it
    assert legal(env) == {"play 9-11 on own", "pass"}
    play(env, "play 9-11 on own", by=0)
    assert markers(env) == [0, 0]  # the owner played on their own train
    assert legal(env) == {"draw"}  # 10-11 fits player_0's open 11, private again


def test_the_mexican_train_starts_only_after_the_own_train():
    env = start(["1-2 3-4 5-6 7-8", "6-12 11-12 0-1"], "10-12 2-3", leader=1)
    play(env, "draw", by=0)
    assert legal(env) == {"play 10-12 on own", "pass"}
    play(env, "pass", by=0)  # keeps the drawn tile: turn over, marker on the empty station
    assert markers(env) == [1, 0] and to_act(env) == 1
    assert legal(env) == {"play 6-12 on own", "play 11-12 on own"}  # a first turn begins the own train
    play(env, "play 6-12 on own", by=1)
    # player_0 holds 10-12 but has no train yet: the own train only, not the Mexican Train.
    assert legal(env) == {"play 10-12 on own"}
    play(env, "play 10-12 on own", by=0)
    assert markers(env) == [0, 0]
    assert legal(env) == {"play 11-12 on mexican"}  # player_1's train is started
    play(env, "play 11-12 on mexican", by=1)
    assert train_end(env, 2) == 11 and int(record(env)["train_size"][2]) == 1
    assert list(block(env, 0, "train_started")) == [1.0, 1.0, 1.0]


def test_anyone_may_play_on_the_started_mexican_train_and_on_marked_empty_stations():
    env = start(["6-12 5-12 0-1", "1-2 2-3 5-7", "3-4 0-2"], "4-5 8-9", leader=2)
    play(env, "play 6-12 on own", by=0)
    draw_and_keep(env, 1)  # 4-5: no 12 for the own train, nothing else open
    draw_and_keep(env, 2)  # 8-9
    assert markers(env) == [0, 1, 1]
    assert legal(env) == {"play 5-12 on mexican", "play 5-12 on train+1", "play 5-12 on train+2"}
    play(env, "play 5-12 on mexican", by=0)
    # player_1 never started a train, yet plays on the Mexican Train once it is started.
    assert legal(env) == {"play 5-7 on mexican", "play 4-5 on mexican"}
    play(env, "play 4-5 on mexican", by=1)
    assert train_end(env, 3) == 4 and markers(env) == [0, 1, 1]


@pytest.mark.parametrize("engine", ENGINES)
def test_an_empty_marked_station_is_started_only_by_a_player_whose_own_train_is(engine):
    # player_2 placed the engine (or was dealt 11-11 instead when it is set aside).
    env = begin(engine, ["1-2 3-4 5-6", "6-12 9-12 7-8", "0-2 1-3"], "0-1 10-12 11-12")
    draw_and_keep(env, 0)  # 0-1: player_0's empty station is marked
    play(env, "play 6-12 on own", by=1)
    play(env, "draw", by=2)  # 10-12 fits player_0's station, but player_2's own train is empty
    assert legal(env) == {"play 10-12 on own", "pass"}
    play(env, "pass", by=2)
    play(env, "draw", by=0)  # 11-12: the same for player_0 and player_2's station
    assert legal(env) == {"play 11-12 on own", "pass"}
    play(env, "pass", by=0)
    assert markers(env) == [1, 0, 1]
    # player_1 has started its own train: both empty marked stations are open to it.
    assert legal(env) == {"play 9-12 on mexican", "play 9-12 on train+1", "play 9-12 on train+2"}
    play(env, "play 9-12 on train+2", by=1)
    assert train_end(env, 0) == 9 and markers(env) == [1, 0, 1]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_text_table_names_the_engine_and_the_seat_that_placed_it(engine):
    env = begin(engine, ["1-2 3-4 0-4", "5-12 5-6", "0-3 0-5 0-6"], first=2, render_mode="ansi")
    starter = 2 if engine == "set_aside" else 1  # set aside: the seat that played first
    header = env.render().splitlines()[0]
    assert header == f"Mexican Train · round 1 of 13 · engine 12-12 (started by player_{starter}) · player_2 to act"


def test_one_tile_a_turn():
    env = start(["3-12 3-4 3-5 3-6", "7-12 7-8 7-9"], leader=1)
    play(env, "play 3-12 on own", by=0)
    play(env, "play 7-12 on own", by=1)
    assert legal(env) == {"play 3-4 on own", "play 3-5 on own", "play 3-6 on own"}
    play(env, "play 3-4 on own", by=0)
    assert to_act(env) == 1


# ---------------------------------------------------------------------------------------------
# Drawing, passing and the marker


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("must_play_drawn", [False, True])
def test_draw_one_when_unable_then_play_it_or_keep_it(engine, must_play_drawn):
    env = begin(engine, ["1-2 3-4 0-3", "5-12 5-6"], "2-12 0-0", must_play_drawn=must_play_drawn)
    assert legal(env) == {"draw"}  # nothing fits the engine's 12
    play(env, "draw", by=0)
    assert hand_counts(env)[0] == 4 and to_act(env) == 0
    plays = {"play 2-12 on own"}
    assert legal(env) == (plays if must_play_drawn else plays | {"pass"})
    if must_play_drawn:
        play(env, "play 2-12 on own", by=0)
        assert markers(env) == [0, 0]
    else:
        play(env, "pass", by=0)
        assert markers(env) == [1, 0] and hand_counts(env)[0] == 4
    assert to_act(env) == 1


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("must_play_drawn", [False, True])
def test_a_drawn_tile_that_cannot_be_played_is_kept_with_a_pass_and_the_marker(engine, must_play_drawn):
    env = begin(engine, ["1-2 3-4 0-3", "5-12 5-6"], "0-0 2-12", must_play_drawn=must_play_drawn)
    play(env, "draw", by=0)
    # The seat decides after every draw, so the table sees the same whether 0-0 fits or not.
    assert to_act(env) == 0 and legal(env) == {"pass"}
    play(env, "pass", by=0)
    assert to_act(env) == 1 and markers(env) == [1, 0] and hand_counts(env)[0] == 4
    # Had the drawn tile fitted, player_0 might have kept it all the same: the pass shows nothing,
    # unless must_play_drawn makes it show that player_0 holds no 12 (the only number open to it).
    assert list(np.flatnonzero(block(env, 1, "voids"))) == ([12] if must_play_drawn else [])
    assert not block(env, 0, "voids").any()


def test_with_the_boneyard_empty_a_player_who_cannot_play_passes_and_marks():
    # The engine set aside and 2 x 45 tiles: the whole set is dealt, nothing to draw.
    below_twelve = [f"{a}-{b}" for b in range(12) for a in range(b + 1)]
    twelves = [f"{a}-12" for a in range(12)]
    env = start([" ".join(below_twelve[:45]), " ".join(below_twelve[45:] + twelves)], engine="set_aside")
    assert int(record(env)["boneyard_size"]) == 0
    assert legal(env) == {"pass"}  # no 12 in hand, nothing to draw
    play(env, "pass", by=0)
    assert markers(env) == [1, 0] and to_act(env) == 1
    assert list(np.flatnonzero(block(env, 1, "voids"))) == [12]
    # player_0's empty station is open now, but a first turn begins the own train.
    assert legal(env) == {f"play {a}-12 on own" for a in range(12)}


# ---------------------------------------------------------------------------------------------
# Doubles


def test_a_double_is_satisfied_by_its_player_in_the_same_turn():
    env = start(["5-12 5-5 5-6 5-7 8-8", "3-12 3-3 3-4 2-3"], leader=1)
    play(env, "play 5-12 on own", by=0)
    play(env, "play 3-12 on own", by=1)
    play(env, "play 5-5 on own", by=0)
    assert to_act(env) == 0 and int(record(env)["pending_train"]) == 0
    assert list(block(env, 0, "double_train")) == [1.0, 0.0, 0.0]
    assert list(block(env, 1, "double_train")) == [0.0, 0.0, 1.0]  # player_0's train, seen from player_1
    assert block(env, 1, "double_number")[5] == 1.0
    assert legal(env) == {"play 5-6 on own", "play 5-7 on own"}
    play(env, "play 5-6 on own", by=0)
    assert to_act(env) == 1 and int(record(env)["pending_train"]) == rules.NO_DOUBLE
    assert markers(env) == [0, 0]
    assert legal(env) == {"play 3-3 on own", "play 3-4 on own", "play 2-3 on own"}


def test_the_double_player_must_play_a_drawn_tile_that_satisfies_it():
    env = start(["5-12 5-5 8-8", "3-12 3-4"], "5-9 1-1", leader=1)
    play(env, "play 5-12 on own", by=0)
    play(env, "play 3-12 on own", by=1)
    play(env, "play 5-5 on own", by=0)
    assert legal(env) == {"draw"}
    play(env, "draw", by=0)
    assert legal(env) == {"play 5-9 on own"}  # no pass: the double must be satisfied
    play(env, "play 5-9 on own", by=0)
    assert to_act(env) == 1 and markers(env) == [0, 0]


def test_an_unsatisfied_double_passes_to_the_next_player_after_a_failed_draw():
    # Three players: player_0's 5-5 cannot be satisfied, player_1 draws and fails, player_2
    # satisfies, and play goes on with the seat after player_2.
    env = start(["5-12 5-5 8-8 2-2", "6-12 6-7 1-2 3-4", "9-12 5-11 3-3"], "0-0 1-1 0-1", leader=2)
    play(env, "play 5-12 on own", by=0)
    play(env, "play 6-12 on own", by=1)
    play(env, "play 9-12 on own", by=2)
    play(env, "play 5-5 on own", by=0)
    assert legal(env) == {"draw"}
    play(env, "draw", by=0)  # 0-0: still no 5
    assert legal(env) == {"pass"}
    play(env, "pass", by=0)
    assert to_act(env) == 1 and markers(env) == [1, 0, 0]
    assert list(np.flatnonzero(block(env, 1, "voids")[13:])) == [5]  # a drawn 5 would have had to be played
    assert int(record(env)["pending_train"]) == 0
    # player_1 could play 6-7 on its own train, but the double comes first.
    assert legal(env) == {"draw"}
    draw_and_keep(env, 1)  # 1-1
    assert to_act(env) == 2 and markers(env) == [1, 1, 0]
    assert legal(env) == {"play 5-11 on train+1"}  # on player_0's train, where the double lies
    play(env, "play 5-11 on train+1", by=2)
    assert int(record(env)["pending_train"]) == rules.NO_DOUBLE
    assert to_act(env) == 0
    assert markers(env) == [1, 1, 0]  # only an owner's own play takes a marker down
    assert legal(env) == {"draw"}  # 8-8 and 0-0 fit neither the own 11 nor player_1's 6


def test_a_double_on_a_private_train_must_still_be_satisfied_there():
    """The failing double player's marker always opens their train; so the record is edited to
    take that marker down, and the next seat must satisfy the double on the private train."""
    env = start(["5-12 5-5 8-8 1-2", "6-12 6-7 5-6"], "0-0 1-1", leader=1)
    play(env, "play 5-12 on own", by=0)
    play(env, "play 6-12 on own", by=1)
    play(env, "play 5-5 on own", by=0)
    draw_and_keep(env, 0)
    assert to_act(env) == 1 and markers(env) == [1, 0]
    state = env.state_array.copy()
    state[0]["marker"][0] = 0
    mask = np.zeros(env.game.num_actions, np.int8)
    env.game.legal_mask(state, 0, mask)
    assert {env.action_name(int(a)) for a in np.flatnonzero(mask)} == {"play 5-6 on train+1"}
    env.game.step(state, 0, env.action_from_name("play 5-6 on train+1"))
    assert int(state[0]["pending_train"]) == rules.NO_DOUBLE and int(state[0]["train_end"][0]) == 6
    assert int(state[0]["current"]) == 0


def test_a_double_as_the_last_tile_ends_the_round():
    env = start(["5-12 5-5", "3-12 3-4 4-4"], leader=0)
    play(env, "play 3-12 on own", by=1)
    play(env, "play 5-12 on own", by=0)
    play(env, "play 3-4 on own", by=1)
    play(env, "play 5-5 on own", by=0)  # no satisfying: player_0 is out
    assert over(env)
    assert hand_points(env) == [0, pips("4-4")]
    assert rewards(env) == [1.0, -1.0]


# ---------------------------------------------------------------------------------------------
# The first turn


def test_a_first_turn_begins_the_own_train_when_able():
    env = start(["0-1 0-2 1-1", "5-12 7-12 1-5", "1-3 2-3"], "0-3 0-4", leader=2)
    draw_and_keep(env, 0)  # 0-3: no 12, the turn ends with the marker on the empty station
    assert markers(env) == [1, 0, 0]
    # player_0's empty station is open, but player_1's first turn must begin its own train.
    assert legal(env) == {"play 5-12 on own", "play 7-12 on own"}
    play(env, "play 5-12 on own", by=1)
    draw_and_keep(env, 2)  # 0-4
    draw_and_keep(env, 0)  # 0-0
    assert markers(env) == [1, 0, 1]
    # The second turn: the own train, the Mexican Train, and both marked empty stations.
    assert legal(env) == {"play 1-5 on own", "play 7-12 on mexican", "play 7-12 on train+1", "play 7-12 on train+2"}


def test_first_turn_chain_lays_tiles_on_the_own_train_until_stopped_or_stuck():
    hands = ["4-12 4-6 6-6 1-6 2-3 3-3", "7-12 7-8 8-9 1-2 0-5"]
    env = start(hands, leader=1, first_turn="chain")
    play(env, "play 4-12 on own", by=0)
    assert legal(env) == {"play 4-6 on own", "pass"}
    play(env, "play 4-6 on own", by=0)
    assert legal(env) == {"play 6-6 on own", "play 1-6 on own", "pass"}
    play(env, "play 6-6 on own", by=0)
    assert legal(env) == {"play 1-6 on own"}  # a double in the chain is satisfied first
    play(env, "play 1-6 on own", by=0)
    assert legal(env) == {"pass"}  # nothing fits the 1, but only the player says the chain is over
    play(env, "pass", by=0)
    assert to_act(env) == 1 and markers(env) == [0, 0]
    assert train_end(env, 0) == 1 and int(record(env)["train_size"][0]) == 4
    play(env, "play 7-12 on own", by=1)
    assert legal(env) == {"play 7-8 on own", "pass"}
    play(env, "pass", by=1)  # stopping a chain is not a failed turn: no marker
    assert markers(env) == [0, 0] and to_act(env) == 0
    assert legal(env) == {"draw"}
    # A second turn is one tile again.
    env = start(hands, leader=1, first_turn="chain")
    play(env, "play 4-12 on own", by=0)
    play(env, "pass", by=0)
    play(env, "play 7-12 on own", by=1)
    play(env, "pass", by=1)
    play(env, "play 4-6 on own", by=0)
    assert to_act(env) == 1


def test_without_chain_the_first_turn_is_one_tile():
    env = start(["4-12 4-6 6-6", "7-12 7-8"], leader=1)
    play(env, "play 4-12 on own", by=0)
    assert to_act(env) == 1


# ---------------------------------------------------------------------------------------------
# The end of a round and scoring


BLOCKING_SCRIPT = [
    (0, "play 0-9 on own"),
    (1, "play 1-9 on own"),
    (0, "play 2-9 on mexican"),
    (1, "play 0-1 on own"),
    (0, "play 0-2 on mexican"),
    (1, "play 0-0 on own"),
    (1, "play 0-3 on own"),  # satisfies the 0-0
    (0, "play 0-5 on own"),
    (1, "play 3-4 on own"),
    (0, "play 5-6 on own"),
    (1, "play 0-4 on own"),
    (0, "play 0-6 on own"),
    (1, "play 0-7 on mexican"),
    (0, "play 7-8 on mexican"),
    (1, "play 0-8 on mexican"),
]


def blocked_deal(tie: bool) -> list[str]:
    """Double-nine, engine 9-9 set aside, 2 x 27 tiles, nothing to draw. ``BLOCKING_SCRIPT``
    plays every 0 and leaves the three trains open on 0; the other 39 tiles are kept, 20 by
    player_0 and 19 by player_1: the heaviest by player_0, or split to equal totals (``tie``)."""
    hands = [[name.split()[1] for who, name in BLOCKING_SCRIPT if who == seat] for seat in (0, 1)]
    scripted = set(hands[0] + hands[1])
    others = [f"{a}-{b}" for b in range(10) for a in range(b + 1) if f"{a}-{b}" not in scripted | {"9-9"}]
    others.sort(key=pips, reverse=True)
    kept: list[list[str]] = [[], []]
    if not tie:
        kept = [others[:20], others[20:]]
    else:  # greedy balance, then one swap that evens out the difference
        for tile in others:
            seat = (
                0
                if len(kept[1]) == 19 or (len(kept[0]) < 20 and sum(map(pips, kept[0])) <= sum(map(pips, kept[1])))
                else 1
            )
            kept[seat].append(tile)
        half = (sum(map(pips, kept[0])) - sum(map(pips, kept[1]))) // 2
        a, b = next((a, b) for a in kept[0] for b in kept[1] if pips(a) - pips(b) == half)
        kept = [[b if t == a else t for t in kept[0]], [a if t == b else t for t in kept[1]]]
        assert sum(map(pips, kept[0])) == sum(map(pips, kept[1]))
    return [" ".join(hands[seat] + kept[seat]) for seat in (0, 1)]


@pytest.mark.parametrize("tie", [False, True])
def test_a_blocked_round_ends_when_every_player_has_passed_in_succession(tie):
    env = start(blocked_deal(tie), set_size=9, engine="set_aside")
    assert int(record(env)["boneyard_size"]) == 0
    for seat, name in BLOCKING_SCRIPT:
        play(env, name, by=seat)
    assert [train_end(env, train) for train in range(3)] == [0, 0, 0]
    assert legal(env) == {"pass"}
    play(env, "pass", by=0)
    assert not over(env) and legal(env) == {"pass"}
    play(env, "pass", by=1)
    assert over(env)
    left = [pips(" ".join(hand(env, seat))) for seat in range(2)]
    assert hand_points(env) == left
    if tie:
        assert left[0] == left[1] and rewards(env) == [0.0, 0.0]  # everyone tied: nobody wins
    else:
        assert left[1] < left[0] and rewards(env) == [-1.0, 1.0]  # the lowest total wins


@pytest.mark.parametrize("double_blank_value", [0, 50])
@pytest.mark.parametrize("reward", ["win", "points"])
def test_scoring_counts_the_pips_left_and_the_double_blank_as_set(double_blank_value, reward):
    env = start(["3-12 3-4", "0-0"], "1-2", leader=1, double_blank_value=double_blank_value, reward=reward)
    play(env, "play 3-12 on own", by=0)
    draw_and_keep(env, 1)  # 1-2: no 12
    play(env, "play 3-4 on own", by=0)  # player_0 goes out
    assert over(env)
    left = double_blank_value + pips("1-2")
    assert hand_points(env) == [0, left]
    assert env.infos["player_1"]["match_points"] == [0, left]
    if reward == "win":
        assert rewards(env) == [1.0, -1.0]
    else:
        scale = total_pips(12) + double_blank_value
        assert env.game.config.points_scale == scale
        assert rewards(env) == pytest.approx([left / 2 / scale, -left / 2 / scale])


# ---------------------------------------------------------------------------------------------
# Actions, observation, errors and rendering


def test_action_names_name_the_tile_and_the_train_relative_to_the_actor():
    env = domino_env.raw_env("mexican_train", num_players=4)
    game = env.game
    stride = 5
    assert game.num_actions == 91 * stride + 2
    assert env.action_name(tile_index(3, 5) * stride + 0) == "play 3-5 on own"
    assert env.action_name(tile_index(3, 5) * stride + 1) == "play 3-5 on mexican"
    assert env.action_name(tile_index(12, 0) * stride + 4) == "play 0-12 on train+3"
    assert env.action_name(91 * stride) == "draw" and env.action_name(91 * stride + 1) == "pass"
    for action in range(game.num_actions):
        assert env.action_from_name(env.action_name(action)) == action
    assert list(game.action_tiles[:stride]) == [0] * stride and list(game.action_tiles[-2:]) == [-1, -1]


def test_train_plus_k_is_the_train_of_the_kth_seat_after_the_actor():
    env = start(["0-12 5-12 1-3", "1-2 0-3 2-3", "2-12 2-4 1-4", "0-4 3-4"], "0-5 0-6", leader=3)
    play(env, "play 0-12 on own", by=0)
    draw_and_keep(env, 1)  # 0-5
    play(env, "play 2-12 on own", by=2)
    draw_and_keep(env, 3)  # 0-6
    assert markers(env) == [0, 1, 0, 1]
    # player_1's and player_3's stations are marked and empty, and player_0's own train is started.
    assert legal(env) == {"play 5-12 on mexican", "play 5-12 on train+1", "play 5-12 on train+3"}
    play(env, "play 5-12 on train+1", by=0)
    assert int(record(env)["train_size"][1]) == 1 and train_end(env, 1) == 5


def test_the_observation_shows_the_trains_from_the_observers_seat():
    env = start(["3-12 3-5 1-2 0-0", "4-12 5-9 4-6"], "7-8", leader=1)
    play(env, "play 3-12 on own", by=0)
    play(env, "play 4-12 on own", by=1)
    play(env, "play 3-5 on own", by=0)
    play(env, "play 4-6 on own", by=1)
    draw_and_keep(env, 0)
    ends = block(env, 1, "train_ends").reshape(3, 13)
    assert [int(np.argmax(row)) for row in ends] == [6, 12, 5]  # own, Mexican (empty: the engine), player_0's
    assert list(block(env, 1, "train_started")) == [1.0, 0.0, 1.0]
    np.testing.assert_allclose(block(env, 1, "train_sizes") * 91, [2, 0, 2])
    assert list(block(env, 1, "train_public")) == [0.0, 1.0, 1.0]
    np.testing.assert_allclose(block(env, 1, "hand_sizes") * 91, [1, 3])
    np.testing.assert_allclose(block(env, 0, "hand_sizes") * 91, [3, 1])
    assert list(block(env, 1, "had_turn")) == [1.0, 1.0]
    assert list(block(env, 1, "to_act")) == [1.0, 0.0] and list(block(env, 0, "to_act")) == [0.0, 1.0]
    assert not block(env, 1, "voids").any()  # the kept 7-8 might have fitted: nothing is shown
    assert not block(env, 1, "double_train").any() and not block(env, 1, "match_points").any()
    obs = env.observe("player_1")["observation"]
    assert obs.shape == env.observation_space("player_1")["observation"].shape
    assert set(env.observation_layout) == set(env.observation_doc)


def test_an_illegal_action_is_refused_and_changes_nothing():
    env = start(["3-12 3-5", "4-12"], leader=1)
    before = env.state_array.copy()
    with pytest.raises(
        IllegalActionError, match=r"player_0 chose illegal action .*play 3-5 on own.*'play 3-12 on own'"
    ):
        env.step(env.action_from_name("play 3-5 on own"))
    assert env.state_array.tobytes() == before.tobytes()
    with pytest.raises(ValueError, match=r"names no action of mexican_train"):
        env.action_from_name("play 3-5 on left")


def test_render_draws_the_trains_and_the_hands():
    env = start(["3-12 3-5 1-2 0-0", "4-12 5-9 4-6"], "7-8", leader=1, render_mode="ansi")
    play(env, "play 3-12 on own", by=0)
    play(env, "play 4-12 on own", by=1)
    play(env, "play 3-5 on own", by=0)
    text = env.render()
    assert "Mexican Train · round 1 of 13 · engine 12-12 (started by player_1) · player_1 to act" in text
    assert "player_0's train: [12|3][3|5]  · open 5" in text
    assert "Mexican Train: (not started)  · open 12" in text
    assert "player_1: 4-6 5-9  · total 0" in text
    image = domino_env.raw_env("mexican_train", num_players=2, render_mode="rgb_array")
    image.reset(seed=1)
    picture = image.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3
