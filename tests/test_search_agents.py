"""Engine support for search (copy, apply, determinize) and the heuristic, search and oracle agents.

Determinization is checked against what the observer knows (its observation, its legal moves,
every public field), against the known voids, against hidden information (two games the
observer cannot tell apart give the same samples), and for uniformity: over many samples each
hidden tile lands in each place, and first in the boneyard, as often as an exact enumeration of
the consistent deals says.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

import domino_env
from agents import make_agent
from agents.base import StatefulAgent
from agents.heuristic import HeuristicAgent
from agents.search import ISMCTSAgent, OracleAgent, PIMCAgent
from agents.tournament import rotated_match
from domino_env.games import draw_rules, hungarian_rules
from domino_env.rng import game_seed
from domino_env.sampling import place_hidden
from domino_env.search import apply, copy_state, determinize, legal_actions
from domino_env.tiles import TILE_HIGH, TILE_LOW, tile_index
from tests import test_draw_hidden_information as draw_tests
from tests import test_hungarian_general as hungarian_tests
from tests import test_mexican_train_general as mexican_tests
from tests.configs import CONFIGS
from tests.snapshots import mid_game_states

pytestmark = pytest.mark.core

# name -> (variant, options); draw and block configs come from tests.configs.
CASES: dict[str, tuple[str, dict]] = {
    **{name: CONFIGS[name] for name in ("draw-2p", "draw-3p", "draw-4p", "draw-4p-partners", "block-4p")},
    "draw-2p-voluntary-reserve-points": CONFIGS["draw-2p-voluntary-reserve-points"],
    "hungarian-2p": ("hungarian", {"num_players": 2}),
    "hungarian-3p": ("hungarian", {"num_players": 3}),
    "hungarian-4p-two-ends": ("hungarian", {"num_players": 4, "open_ends": 2}),
    "hungarian-4p-elimination": ("hungarian", hungarian_tests.CONFIGS["4p-elimination"]),
    "mexican_train-2p": ("mexican_train", {"num_players": 2}),
    # Double-nine: late positions with few hidden tiles and voids on two seats, which the
    # uniformity test enumerates, come within the snapshots' horizon.
    "mexican_train-4p-double-nine": ("mexican_train", {"num_players": 4, "set_size": 9}),
    "mexican_train-4p-set-aside-chain": ("mexican_train", mexican_tests.CONFIGS["4p-set-aside-chain-must-play"]),
    "mexican_train-3p-double-nine-match": ("mexican_train", {"num_players": 3, "set_size": 9, "match": True}),
}
DETERMINIZE_CASES = [name for name in CASES if name not in ("draw-4p", "mexican_train-4p-double-nine")]
HIDDEN_FIELDS = ("location", "boneyard", "rng")  # everything else of a record is public
POOL = -1  # location of a tile in the boneyard (draw) or set aside (Hungarian)


def live_states(name: str, count: int = 120) -> list[np.ndarray]:
    """Records of unfinished games caught at many different moments."""
    variant, options = CASES[name]
    states = mid_game_states(variant, options, count=count, seed=5)
    return [s for s in states if not s[0]["game_over"]]


def shuffle_hidden(game, record: np.ndarray, observer: int, rng: np.random.Generator) -> np.ndarray:
    """A copy of ``record`` that ``observer`` cannot tell from it (the tests of each variant's
    observation leaks build it), with the real game's generator changed too."""
    if game.name == "hungarian":
        other = hungarian_tests.shuffle_hidden(record, observer, rng)
    elif game.name == "mexican_train":
        other = mexican_tests.shuffle_hidden(record, observer, game.config, rng)
    else:
        other = draw_tests.shuffle_hidden(record, game.config, observer, rng)
    other[0]["rng"] += 12345
    return other


def num_tiles(game) -> int:
    return game.config.num_tiles if game.name != "hungarian" else hungarian_rules.NUM_TILES


@pytest.mark.parametrize("name", DETERMINIZE_CASES)
def test_determinization_keeps_what_the_observer_knows(name: str) -> None:
    variant, options = CASES[name]
    game = domino_env.make_game(variant, **options)
    tiles = num_tiles(game)
    moved = 0
    for record in live_states(name):
        for observer in range(game.num_players):
            samples = determinize(game, record, observer, count=3, seed=observer)
            for i in range(3):
                sample = samples[i : i + 1]
                for before, after in zip(game.view(record, 0, observer), game.view(sample, 0, observer), strict=True):
                    assert np.array_equal(before, after)
                for field in set(record.dtype.names) - set(HIDDEN_FIELDS):
                    assert np.array_equal(record[0][field], sample[0][field]), field
                loc, true_loc = sample[0]["location"][:tiles], record[0]["location"][:tiles]
                assert np.array_equal(loc == observer, true_loc == observer)
                assert np.array_equal(loc == draw_rules.ON_TABLE, true_loc == draw_rules.ON_TABLE)
                for seat in range(game.num_players):
                    assert (loc == seat).sum() == record[0]["hand_count"][seat]
                assert (loc == POOL).sum() == (true_loc == POOL).sum()
                if variant != "hungarian":
                    top, size = int(sample[0]["boneyard_top"]), int(sample[0]["boneyard_size"])
                    undrawn = sample[0]["boneyard"][top:size]
                    assert sorted(undrawn) == sorted(np.flatnonzero(loc == POOL))
                moved += not np.array_equal(loc, true_loc)
    assert moved > 500, "determinizations must actually move hidden tiles"


@pytest.mark.parametrize("name", DETERMINIZE_CASES)
def test_determinization_never_gives_a_seat_a_number_it_lacks(name: str) -> None:
    variant, options = CASES[name]
    game = domino_env.make_game(variant, **options)
    constrained = 0
    for record in live_states(name):
        observer = game.current_seat(record, 0)  # the seat that searches
        voids = record[0]["voids"]
        constrained += int(voids.sum() > 0)
        for s in range(4):
            loc = determinize(game, record, observer, seed=s)[0]["location"]
            for tile in np.flatnonzero(loc[: num_tiles(game)] >= 0):
                seat = loc[tile]
                if seat == observer:  # its own hand is kept: a seat that drew may hold a fit
                    continue
                assert not voids[seat, TILE_LOW[tile]] and not voids[seat, TILE_HIGH[tile]]
    assert constrained > 5


@pytest.mark.parametrize(
    "name", ["draw-3p", "draw-4p-partners", "block-4p", "hungarian-3p", "mexican_train-4p-set-aside-chain"]
)
def test_determinization_reads_nothing_hidden(name: str) -> None:
    """Two games that differ only where the observer cannot see give identical samples."""
    variant, options = CASES[name]
    game = domino_env.make_game(variant, **options)
    rng = np.random.default_rng(1)
    for record in live_states(name, count=60):
        for observer in range(game.num_players):
            other = shuffle_hidden(game, record, observer, rng)
            assert determinize(game, record, observer, count=2, seed=9).tobytes() == (
                determinize(game, other, observer, count=2, seed=9).tobytes()
            )


# ---------------------------------------------------------------------------------------------- uniformity


def consistent_deals(hidden: list[int], capacity: list[int], forbidden: np.ndarray) -> list[tuple[int, ...]]:
    """Every placement of ``hidden`` (place per tile) that fills the capacities and breaks no
    void, by enumeration."""
    deals: list[tuple[int, ...]] = []

    def fill(place: int, left: frozenset, placed: dict[int, int]) -> None:
        if place == len(capacity):
            deals.append(tuple(placed[t] for t in hidden))
            return
        allowed = [t for t in sorted(left) if not forbidden[place, TILE_LOW[t]] and not forbidden[place, TILE_HIGH[t]]]
        for chosen in itertools.combinations(allowed, capacity[place]):
            fill(place + 1, left - set(chosen), {**placed, **dict.fromkeys(chosen, place)})

    fill(0, frozenset(hidden), {})
    return deals


def knowledge(game, record: np.ndarray, observer: int) -> tuple[list[int], list[int], np.ndarray]:
    """The observer's hidden tiles, the places' capacities (seats, then the boneyard or the
    tiles set aside as place P) and the places' voids, restated from the record for the
    enumeration."""
    s = record[0]
    players = game.num_players
    loc = s["location"][: num_tiles(game)]
    hidden = [int(t) for t in np.flatnonzero((loc != draw_rules.ON_TABLE) & (loc != observer))]
    capacity = [0 if seat == observer else int(s["hand_count"][seat]) for seat in range(players)]
    capacity.append(len(hidden) - sum(capacity))
    forbidden = np.zeros((players + 1, 13), np.uint8)
    forbidden[:players, : s["voids"].shape[1]] = s["voids"][:players]
    forbidden[observer] = 0
    return hidden, capacity, forbidden


def uniformity_cases(name: str, wanted: int) -> list[tuple[np.ndarray, list[tuple[int, ...]]]]:
    """Late positions with voids on at least two seats and a few hundred to a few thousand
    consistent deals, each with its enumeration."""
    variant, options = CASES[name]
    game = domino_env.make_game(variant, **options)
    cases = []
    for record in live_states(name, count=400):
        observer = game.current_seat(record, 0)
        hidden, capacity, forbidden = knowledge(game, record, observer)
        voided = sum(forbidden[seat].any() for seat in range(game.num_players))
        if record[0]["tiles_on_table"] == 0 or voided < 2 or len(hidden) > 12:
            continue
        deals = consistent_deals(hidden, capacity, forbidden)
        if 30 <= len(deals) <= 5000:
            cases.append((record, deals))
        if len(cases) == wanted:
            break
    assert len(cases) == wanted
    return cases


@pytest.mark.parametrize("name", ["draw-3p", "draw-4p", "hungarian-4p-two-ends", "mexican_train-4p-double-nine"])
def test_determinization_places_hidden_tiles_uniformly(name: str) -> None:
    variant, options = CASES[name]
    game = domino_env.make_game(variant, **options)
    samples = 20_000
    for record, deals in uniformity_cases(name, wanted=2):
        observer = game.current_seat(record, 0)
        hidden, capacity, _ = knowledge(game, record, observer)
        places = len(capacity)
        expected = np.zeros((len(hidden), places))
        for deal in deals:
            expected[np.arange(len(hidden)), deal] += 1
        expected /= len(deals)
        out = game.new_state(1)
        out[0]["rng"] = game_seed(3, 0)
        seen = np.zeros_like(expected)
        first_drawn: Counter[int] = Counter()
        top = int(record[0]["boneyard_top"]) if variant != "hungarian" else 0
        for _ in range(samples):
            assert game.determinize(record, 0, observer, out, 0)  # exact, never the fallback
            loc = out[0]["location"][hidden].astype(np.int64)
            seen[np.arange(len(hidden)), np.where(loc == POOL, places - 1, loc)] += 1
            if capacity[-1] and variant != "hungarian":
                first_drawn[int(out[0]["boneyard"][top])] += 1
        seen /= samples
        tolerance = 5 * np.sqrt(expected * (1 - expected) / samples) + 1e-9
        assert (np.abs(seen - expected) <= tolerance).all(), (seen, expected)
        for i, tile in enumerate(hidden if variant != "hungarian" else []):  # the draw order is uniform too
            p = expected[i, -1] / max(capacity[-1], 1)
            assert abs(first_drawn[tile] / samples - p) <= 5 * np.sqrt(p * (1 - p) / samples) + 1e-9


def test_fallback_placement_is_consistent() -> None:
    """With no rejection tries left, the fallback still honours every capacity and void."""
    rng = np.zeros(1, draw_rules.STATE_DTYPE)
    rng[0]["rng"] = game_seed(0, 0)
    hidden = np.array([tile_index(a, b) for a, b in [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4), (5, 5), (1, 5)]])
    capacity = np.array([2, 2, 3])
    forbidden = np.zeros((3, 13), np.uint8)
    forbidden[0, [1, 3]] = 1  # place 0 may hold only 0-4 and 5-5
    forbidden[1, [0, 4]] = 1
    placement = np.empty(len(hidden), np.int64)
    for _ in range(50):
        assert not place_hidden(rng, 0, hidden, capacity, forbidden, placement, 0)
        assert np.bincount(placement, minlength=3).tolist() == capacity.tolist()
        assert sorted(hidden[placement == 0].tolist()) == sorted([tile_index(0, 4), tile_index(5, 5)])
        for tile in hidden[placement == 1]:
            assert not forbidden[1, TILE_LOW[tile]] and not forbidden[1, TILE_HIGH[tile]]


# ---------------------------------------------------------------------------------------------- copy and apply


def test_a_copied_state_evolves_independently() -> None:
    game = domino_env.make_game("draw", num_players=3)
    state = game.new_state(4)
    for g in range(4):
        game.seed(state, g, 8)
        game.start(state, g)
    copy = copy_state(state, 2)
    frozen = state.copy()
    rng = np.random.default_rng(0)
    for _ in range(10):
        apply(game, copy, int(rng.choice(legal_actions(game, copy))))
    assert state.tobytes() == frozen.tobytes()
    assert copy.tobytes() != state[2:3].tobytes()
    kept = copy.copy()
    apply(game, state, int(legal_actions(game, state, 2)[0]), g=2)
    assert copy.tobytes() == kept.tobytes()


def test_apply_refuses_an_illegal_action() -> None:
    game = domino_env.make_game("block")
    state = game.new_state(1)
    game.seed(state, 0, 1)
    game.start(state, 0)
    illegal = next(a for a in range(game.num_actions) if a not in legal_actions(game, state))
    before = state.copy()
    with pytest.raises(ValueError, match="legal actions"):
        apply(game, state, illegal)
    assert state.tobytes() == before.tobytes()


# ---------------------------------------------------------------------------------------------- agents

SMALL = {"heuristic": {}, "pimc": {"simulations": 60}, "ismcts": {"simulations": 60}, "oracle": {"simulations": 60}}


@pytest.mark.parametrize("variant", ["draw", "block", "hungarian"])
def test_search_agents_play_only_legal_actions(variant: str) -> None:
    """Every agent against random in rotated matches (the runner refuses an illegal action)."""
    for num_players in (2, 3):
        game = domino_env.make_game(variant, num_players=num_players)
        for name, budget in SMALL.items():
            agents = [make_agent(name, game, seed=1, **budget)]
            agents += [make_agent("random", game, seed=s) for s in range(num_players - 1)]
            records = rotated_match(game, agents, episodes=6 * num_players, seed=3, batch_size=3)
            assert records[0].moves > 0


def test_search_agents_play_only_legal_actions_in_mexican_train() -> None:
    """Mexican Train rounds are long: fewer episodes, but every agent in two and three seats."""
    for num_players in (2, 3):
        game = domino_env.make_game("mexican_train", num_players=num_players)
        for name, budget in SMALL.items():
            budget = {"simulations": 8} if budget else {}
            agents = [make_agent(name, game, seed=1, **budget)]
            agents += [make_agent("random", game, seed=s) for s in range(num_players - 1)]
            records = rotated_match(game, agents, episodes=2 * num_players, seed=3, batch_size=2)
            assert records[0].moves > 0


def match_records(game, agents, workers: int) -> list[tuple]:
    """Each agent's totals and its episodes (reward, points, hands) in a fixed order, from a
    rotated match of 80 episodes on 40 slots: three blocks of ``MATCH_BLOCK`` a rotation, the
    last one short."""
    records = rotated_match(game, agents, episodes=80, seed=3, batch_size=40, workers=workers)
    return [(r.episodes, r.wins, r.losses, r.points, r.hands, r.moves, sorted_episodes(r)) for r in records]


def sorted_episodes(record) -> list[tuple]:
    """A record's (reward, points, hands) of each episode, in order of their values: workers
    return the blocks' episodes in another order than one process finishes them."""
    return sorted(zip(record.per_episode_reward, record.per_episode_points, record.per_episode_hands, strict=True))


def test_workers_sharing_a_match_give_the_same_results_for_any_number_of_them() -> None:
    """PIMC against the heuristic, its games shared by two and by three forked workers: every
    agent restarts its generator at each block from the block's seed, so the records are the
    same episode for episode, whichever worker played which block."""
    game = domino_env.make_game("draw", num_players=2)

    def table() -> list:
        return [make_agent("pimc", game, seed=1, simulations=8), make_agent("heuristic", game, seed=2)]

    two = match_records(game, table(), workers=2)
    assert two == match_records(game, table(), workers=3)
    assert two[0][0] == 80 and two[0][5] > 0


def test_workers_play_the_deals_of_one_process() -> None:
    """Greedy against greedy draws nothing, so the deals decide everything: shared by workers
    (on engine records, block by block) the match is the batched engine's in one process."""
    game = domino_env.make_game("block", num_players=2)
    agents = [make_agent("greedy", game), make_agent("greedy", game)]
    one = match_records(game, agents, workers=1)
    shared = match_records(game, agents, workers=2)
    assert [r[:5] + r[6:] for r in shared] == [r[:5] + r[6:] for r in one]


@pytest.mark.parametrize("name", ["random", "heuristic", "pimc:simulations=8", "ismcts:simulations=8"])
def test_a_reseeded_agent_plays_as_one_built_with_that_seed(name: str) -> None:
    """``reseed(s)`` after some play restarts the agent's draws exactly where an agent built
    with seed ``s`` starts them, which is what makes a worker's block of games its own."""
    game = domino_env.make_game("draw", num_players=2)
    opponent = make_agent("greedy", game)

    def play(agent) -> list[tuple]:
        return match_records(game, [agent, opponent], workers=1)

    used = make_agent(name, game, seed=1)
    play(used)
    used.reseed(7)
    assert play(used) == play(make_agent(name, game, seed=7))


def test_a_match_refuses_workers_that_are_not_a_positive_number() -> None:
    game = domino_env.make_game("draw", num_players=2)
    agents = [make_agent("greedy", game), make_agent("random", game, seed=1)]
    for workers in (0, -2, 1.5):
        with pytest.raises(ValueError, match="workers must be a positive number of processes"):
            rotated_match(game, agents, episodes=4, workers=workers)


def test_the_mexican_train_heuristic_plays_a_full_round() -> None:
    """Heuristic against heuristic, four seats, until the round ends: every choice is legal."""
    game = domino_env.make_game("mexican_train", num_players=4)
    state = game.new_state(1)
    game.seed(state, 0, 11)
    game.start(state, 0)
    agents = [HeuristicAgent(game, seed=seat) for seat in range(4)]
    moves = 0
    status = game.rules.PLAYING
    while status == game.rules.PLAYING:
        action = agents[game.current_seat(state, 0)].act_state(state, 0)
        status = apply(game, state, action)  # refuses an illegal action
        moves += 1
    assert state[0]["game_over"] and moves > 20
    assert state[0]["hand_count"][:4].min() == 0 or state[0]["passes"] >= 4  # went out, or blocked


def test_agents_play_on_the_aec_environment_with_a_time_budget() -> None:
    env = domino_env.raw_env("draw", num_players=2)
    env.reset(seed=4)
    players = {
        "player_0": PIMCAgent(env.game, seed=0, milliseconds=2.0),
        "player_1": ISMCTSAgent(env.game, seed=0, milliseconds=2.0),
    }
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = players[agent].act_one(observation, state=env.state_array)
        assert observation["action_mask"][action]
        env.step(action)
    with pytest.raises(TypeError, match="state"):
        players["player_0"].act_one(observation)


@pytest.mark.parametrize("name", ["draw-3p", "hungarian-3p"])
@pytest.mark.parametrize("agent_class", [HeuristicAgent, PIMCAgent, ISMCTSAgent])
def test_fair_agents_decide_the_same_without_seeing_hidden_tiles(agent_class: type[StatefulAgent], name: str) -> None:
    """A fair agent's choice depends on what its seat knows: reshuffling the tiles it cannot see
    (and the game's own generator) changes nothing, for the same agent seed."""
    variant, options = CASES[name]
    game = domino_env.make_game(variant, **options)
    rng = np.random.default_rng(2)
    budget = {} if agent_class is HeuristicAgent else {"simulations": 40}
    for record in live_states(name, count=30):
        other = shuffle_hidden(game, record, game.current_seat(record, 0), rng)
        first = agent_class(game, seed=5, **budget).act_state(record, 0)
        assert first == agent_class(game, seed=5, **budget).act_state(other, 0)


def test_the_oracle_sees_hidden_tiles() -> None:
    """The oracle is the one agent allowed to read the record directly: its choices can change
    when only hidden tiles move."""
    variant, options = CASES["draw-3p"]
    game = domino_env.make_game(variant, **options)
    rng = np.random.default_rng(2)
    differ = 0
    for record in live_states("draw-3p", count=40):
        other = shuffle_hidden(game, record, game.current_seat(record, 0), rng)
        oracle = OracleAgent(game, seed=5, simulations=200, epsilon=0.0)
        differ += oracle.act_state(record, 0) != OracleAgent(game, seed=5, simulations=200, epsilon=0.0).act_state(
            other, 0
        )
    assert differ > 0


def test_registry_builds_the_new_agents() -> None:
    game = domino_env.make_game("draw")
    for name, cls in [
        ("heuristic", HeuristicAgent),
        ("pimc", PIMCAgent),
        ("ismcts", ISMCTSAgent),
        ("oracle", OracleAgent),
    ]:
        agent = make_agent(name, game, seed=0)
        assert isinstance(agent, cls) and agent.name == name
    with pytest.raises(TypeError, match="game state"):
        make_agent("pimc", game).act(np.zeros((1, game.observation_size)), np.ones((1, game.num_actions)))


def test_the_training_arena_seats_any_mix_of_agents() -> None:
    """Trained policies, baselines and stateful agents go through the same runner."""
    from arena.evaluation import run_arena

    game = domino_env.make_game("block")
    policies = {
        "greedy": make_agent("greedy", game),
        "heuristic": make_agent("heuristic", game, seed=1),
        "ismcts": make_agent("ismcts", game, seed=2, simulations=30),
    }
    result = run_arena(game, policies, episodes=8, seed=1)
    assert len(result.matchups) == 6 and all(m.episodes == 8 for m in result.matchups)


def test_strength_script_prints_its_table(capsys) -> None:
    from benchmarks.strength import main as strength_main

    strength_main(["--ladders", "block", "hungarian", "--scale", "0.002", "--workers", "1"])
    out = capsys.readouterr().out
    assert "simulations per move: block 2000, hungarian 2000" in out
    assert all(name in out for name in ("heuristic", "greedy", "pimc", "ismcts", "oracle", "95% interval"))
    rows = [line.split() for line in out.splitlines() if line.startswith(("block ", "hungarian "))]
    assert len(rows) == 10
    # Hungarian is laddered at three players: one agent against two copies of its opponent.
    # (The interval "[low, high]" takes two of the split cells, so the fair share is cell 10.)
    assert {(row[0], row[1], row[10]) for row in rows} == {("block", "2", "0.500"), ("hungarian", "3", "0.333")}
