"""The belief model over hidden tiles and the weighted determinization that samples from it."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

from agents.belief import (
    WEIGHTS_FILE,
    BeliefError,
    BeliefModel,
    load_belief,
    network_for,
    place_weights,
    possible_places,
    save_belief,
)
from domino_env.games.core import ON_TABLE, UNDEALT
from domino_env.sampling import NO_WEIGHTS
from domino_env.tiles import TILE_HIGH, TILE_LOW
from domino_env.variants import make_game
from training.belief import record_positions, tile_loss

GAMES = {
    "draw_2p": ("draw", {"num_players": 2}),
    "block_2p": ("block", {"num_players": 2}),
    "hungarian_3p": ("hungarian", {"num_players": 3}),
    "mexican_train_4p": ("mexican_train", {"num_players": 4}),
    "draw_4p_partners": ("draw", {"num_players": 4, "partnerships": True}),
}


def game_of(name):
    variant, options = GAMES[name]
    return make_game(variant, **options)


def random_model(game, seed=0):
    """An untrained network with random (not zero) last-layer weights: probabilities that vary."""
    torch.manual_seed(seed)
    return BeliefModel(game, network_for(game, [32]))


@pytest.fixture(scope="module", params=list(GAMES))
def positions(request):
    game = game_of(request.param)
    return request.param, game, record_positions(game, 400, seed=5, num_envs=32)


def test_masks_follow_the_observation(positions):
    """Hidden tiles are exactly those the seat neither holds nor sees; every true place is
    possible; the model gives impossible places zero and each hidden tile a distribution."""
    _, game, data = positions
    location = data.state["location"][:, : game.num_tiles]
    hidden = (location != ON_TABLE) & (location != data.seat[:, None])
    places = possible_places(game, data.obs)
    assert (places.any(2) == hidden).all()
    assert ((data.place >= 0) == hidden).all()
    rows, tiles = np.nonzero(hidden)
    assert places[rows, tiles, data.place[rows, tiles]].all()
    probabilities = random_model(game).probabilities(data.obs)
    assert (probabilities[~places] == 0).all()
    assert np.allclose(probabilities.sum(2)[hidden], 1.0)
    assert (probabilities.sum(2)[~hidden] == 0).all()
    logp = random_model(game).network(torch.from_numpy(data.obs), torch.zeros(len(data), game.num_tiles, 1))
    assert logp.shape[1] == game.num_tiles  # the network itself runs
    assert torch.isfinite(tile_loss(torch.log(torch.from_numpy(probabilities)), torch.from_numpy(data.place).long()))


def check_world(game, real, world, observer):
    """``world`` keeps what ``observer`` knows of ``real``: its hand, the table, every hand size,
    the pile's size, the voids; every tile is somewhere; the rules accept the record."""
    tiles = game.num_tiles
    before, after = real["location"][:tiles], world["location"][:tiles]
    seen = (before == ON_TABLE) | (before == observer)
    assert (after[seen] == before[seen]).all()
    assert ((after >= 0) | (after == UNDEALT) | (after == ON_TABLE)).all()
    assert ((after == ON_TABLE) == (before == ON_TABLE)).all()
    for seat in range(game.num_players):
        assert (after == seat).sum() == (before == seat).sum() == world["hand_count"][seat]
        if seat == observer:
            continue
        voids = world["voids"][seat]
        held = np.flatnonzero(~seen & (after == seat))
        assert not (voids[TILE_LOW[held]] | voids[TILE_HIGH[held]]).any(), "a seat holds a number it is void in"
    assert (after == UNDEALT).sum() == (before == UNDEALT).sum()
    game.check_records(np.asarray([world]))


def test_weighted_determinization_is_consistent(positions):
    """Over every recorded position, with the model's weights, random weights, and weights that
    put everything in one place: every drawn world is consistent."""
    _, game, data = positions
    model = random_model(game)
    probabilities = model.probabilities(data.obs)
    rng = np.random.default_rng(0)
    out = game.new_state(1)
    game.seed(out, 0, 3)
    for i in range(len(data)):
        observer = int(data.seat[i])
        choices = [
            place_weights(game, probabilities[i], observer),
            rng.random((game.num_players + 1, game.num_tiles)) * (rng.random((game.num_players + 1, 1)) < 0.7),
            np.eye(game.num_players + 1, game.num_tiles, k=0)[[int(rng.integers(game.num_players + 1))] * 1].repeat(
                game.num_players + 1, 0
            ),
        ]
        for weights in choices:
            game.determinize_weighted(data.state, i, observer, out, 0, weights)
            check_world(game, data.state[i], out[0], observer)


def test_weights_tilt_the_draw():
    """Weights that favour one seat for a tile put it there more often than uniform draws do."""
    game = game_of("hungarian_3p")
    data = record_positions(game, 40, seed=2, num_envs=8)
    i = int(np.flatnonzero((data.place >= 0).sum(1) > 6)[0])
    observer, tile = int(data.seat[i]), int(np.flatnonzero(data.place[i] >= 0)[0])
    target = (observer + 1) % game.num_players
    weights = np.ones((game.num_players + 1, game.num_tiles))
    weights[:, tile] = 1e-3
    weights[target, tile] = 1.0
    out = game.new_state(1)
    game.seed(out, 0, 1)
    tilted = uniform = 0
    for _ in range(300):
        game.determinize_weighted(data.state, i, observer, out, 0, weights)
        tilted += out[0]["location"][tile] == target
        game.determinize(data.state, i, observer, out, 0)
        uniform += out[0]["location"][tile] == target
    if possible_places(game, data.obs[i : i + 1])[0, tile].sum() > 1:
        assert tilted > uniform


def test_determinism_and_the_uniform_default():
    """The same seed draws the same world; no weights draws exactly what ``determinize`` does."""
    for name in GAMES:
        game = game_of(name)
        data = record_positions(game, 32, seed=9, num_envs=8)
        weights = place_weights(game, random_model(game).probabilities(data.obs[5:6])[0], int(data.seat[5]))
        draws = []
        for _ in range(2):
            out = game.new_state(1)
            game.seed(out, 0, 42)
            game.determinize_weighted(data.state, 5, int(data.seat[5]), out, 0, weights)
            draws.append(out.tobytes())
        assert draws[0] == draws[1]
        plain, empty = game.new_state(1), game.new_state(1)
        game.seed(plain, 0, 7)
        game.seed(empty, 0, 7)
        game.determinize(data.state, 5, int(data.seat[5]), plain, 0)
        game.rules.determinize_weighted(data.state, game.packed_config, 5, int(data.seat[5]), empty, 0, NO_WEIGHTS)
        assert plain.tobytes() == empty.tobytes()


def test_bad_weights_are_refused():
    game = game_of("draw_2p")
    state = game.new_state(1)
    game.seed(state, 0, 1)
    game.start(state, 0)
    out = game.new_state(1)
    for bad in (np.ones((2, 28)), np.full((3, 28), np.nan), -np.ones((3, 28))):
        with pytest.raises(ValueError, match="weights"):
            game.determinize_weighted(state, 0, 0, out, 0, bad)
        with pytest.raises(ValueError, match="weights must be finite, non-negative, of shape"):
            game.determinize_worlds(state, 0, 0, out, bad)


def test_a_moves_worlds_in_one_call_are_the_worlds_drawn_one_by_one():
    """``determinize_worlds`` fills every game of ``out`` as ``determinize`` (no weights) or
    ``determinize_weighted`` would, each world with its own generator."""
    for name in GAMES:
        game = game_of(name)
        data = record_positions(game, 16, seed=4, num_envs=8)
        seat = int(data.seat[3])
        weights = place_weights(game, random_model(game).probabilities(data.obs[3:4])[0], seat)
        for given in (None, weights):
            together, alone = game.new_state(6), game.new_state(6)
            for w in range(6):
                game.seed(together, w, 100 + w)
                game.seed(alone, w, 100 + w)
            game.determinize_worlds(data.state, 3, seat, together, given)
            for w in range(6):
                if given is None:
                    game.determinize(data.state, 3, seat, alone, w)
                else:
                    game.determinize_weighted(data.state, 3, seat, alone, w, given)
            assert together.tobytes() == alone.tobytes()
            assert len({together[w]["location"].tobytes() for w in range(6)}) > 1


def test_no_hidden_information_reaches_the_model(positions):
    """States that differ only in the tiles a seat cannot see give it the same probabilities."""
    _, game, data = positions
    model = random_model(game, seed=1)
    other = game.new_state(len(data))
    for i in range(0, len(data), 7):
        observer = int(data.seat[i])
        game.seed(other, i, 100 + i)
        game.determinize(data.state, i, observer, other, i)
        if (other[i]["location"] == data.state[i]["location"]).all():
            continue
        mine = np.empty(game.observation_size, np.float32)
        theirs = np.empty(game.observation_size, np.float32)
        game.observe(data.state, i, observer, mine)
        game.observe(other, i, observer, theirs)
        assert (mine == theirs).all()
        assert (model.probabilities(mine) == model.probabilities(theirs)).all()


def test_save_load_and_refusals(tmp_path):
    game = game_of("draw_2p")
    model = random_model(game)
    folder = tmp_path / "belief"
    save_belief(folder, model.network, game, {"positions": 1})
    loaded = load_belief(folder, game)
    obs = record_positions(game, 16, seed=1, num_envs=8).obs
    assert np.allclose(loaded.probabilities(obs), model.probabilities(obs), atol=1e-2)
    with pytest.raises(BeliefError, match="variant"):
        load_belief(folder, game_of("block_2p"))
    with pytest.raises(BeliefError, match="no belief model"):
        load_belief(tmp_path / "nothing", game)

    def broken(name, change):
        target = tmp_path / name
        shutil.copytree(folder, target)
        change(target)
        return target

    def meta(key, value):
        def change(target):
            data = json.loads((target / "belief.json").read_text())
            data[key] = value
            (target / "belief.json").write_text(json.dumps(data))

        return change

    def tensors(edit):
        def change(target):
            weights = load_file(str(target / WEIGHTS_FILE))
            edit(weights)
            save_file(weights, str(target / WEIGHTS_FILE))

        return change

    cases = {
        "sizes": (meta("hidden_sizes", [10**9]), "hidden_sizes"),
        "sizes_type": (meta("hidden_sizes", "big"), "hidden_sizes"),
        "options": (meta("options", {"num_players": 3}), "options"),
        "json": (lambda t: (t / "belief.json").write_text("{"), "JSON"),
        "garbage": (lambda t: (t / WEIGHTS_FILE).write_bytes(b"\x00" * 64), "safetensors"),
        "shape": (tensors(lambda w: w.update({"body.0.weight": torch.zeros(3, 3, dtype=torch.float16)})), "tensor"),
        "extra": (tensors(lambda w: w.update({"extra": torch.zeros(1, dtype=torch.float16)})), "tensors"),
        "nan": (tensors(lambda w: w["body.0.bias"].fill_(float("nan"))), "finite"),
        "dtype": (tensors(lambda w: w.update({"body.0.bias": w["body.0.bias"].float()})), "F16"),
    }
    for name, (change, message) in cases.items():
        with pytest.raises(BeliefError, match=message):
            load_belief(broken(name, change), game)


def test_shipped_beliefs_load():
    from agents.belief import shipped_beliefs

    for name in shipped_beliefs():
        model = load_belief(name, game_of(name))
        assert model.meta["summary"]["positions"] > 0


def test_search_agents_take_a_belief():
    """``pimc:belief=draw_2p`` and ``ismcts:...`` play legal moves; a bad belief is refused."""
    from agents import make_agent
    from agents.registry import parse_agent

    game = game_of("draw_2p")
    data = record_positions(game, 24, seed=4, num_envs=8)
    mask = np.zeros(game.num_actions, np.int8)
    for name in ("pimc", "ismcts"):
        agent = make_agent(f"{name}:simulations=16,belief=draw_2p", game, seed=1)
        for g in range(8, 16):
            game.legal_mask(data.state, g, mask)
            assert mask[agent.act_state(data.state, g)]
        with pytest.raises(ValueError, match="belief"):
            parse_agent(f"{name}:belief=nonsense")
    with pytest.raises(ValueError, match="variant"):
        make_agent("pimc:belief=hungarian_3p", game)


def followed_game(name: str, seed: int):
    """A started game of config ``name`` (a batch of one), an empty :class:`PlayHistory` to
    follow it, and a mask to read its legal moves into."""
    from training.belief import PlayHistory

    game = game_of(name)
    state = game.new_state(1)
    game.seed(state, 0, seed)
    game.start(state, 0)
    return game, state, PlayHistory(game, 1), np.zeros(game.num_actions, np.int8)


@pytest.mark.parametrize("name", list(GAMES))
def test_the_play_history_names_who_played_each_tile_and_when(name):
    """Stepped one move at a time with random legal moves, :class:`PlayHistory` holds, after
    each play, that the acting seat played that tile at that move; a hand's end clears it, and a
    tile it lists is on the table. Features read the player from each observer's seat."""
    game, state, history, mask = followed_game(name, 3)
    rng = np.random.default_rng(0)
    expected: dict[int, tuple[int, int]] = {}
    move, plays, hands = 0, 0, 0
    while hands < 2:
        game.legal_mask(state, 0, mask)
        action = int(rng.choice(np.flatnonzero(mask)))
        actor = game.current_seat(state, 0)
        tile = int(game.action_tiles[action])
        before = state["location"][:, : game.num_tiles].copy()
        status = game.step(state, 0, action)
        history.update(before, state["location"][:, : game.num_tiles], np.array([status != 0]))
        if status != 0:
            expected, move, hands = {}, 0, hands + 1
            assert (history.played_by == -1).all() and (history.played_at == 0).all()
            if game.is_over(state, 0):
                game.start(state, 0)
            continue
        if tile >= 0 and state[0]["location"][tile] == ON_TABLE and before[0, tile] >= 0:
            expected[tile] = (actor, move)
            plays += 1
        move += 1
        listed = {
            int(t): (int(history.played_by[0, t]), round(float(history.played_at[0, t]) * history.MOVE_SCALE))
            for t in np.flatnonzero(history.played_by[0] >= 0)
        }
        assert listed == expected
        assert (state[0]["location"][list(listed)] == ON_TABLE).all()
        for observer in range(game.num_players):
            features = history.features(np.array([observer]))[0, : history.who_size].reshape(game.num_tiles, -1)
            for t, (seat, _) in expected.items():
                assert features[t, (seat - observer) % game.num_players] == 1.0
                assert features[t, : game.num_players].sum() == 1.0
    assert plays > 5


@pytest.mark.parametrize("name", ["draw_2p", "block_2p", "draw_4p_partners"])
def test_the_play_history_names_the_tiles_each_seat_passed_over(name):
    """In the line games, after random legal moves, :class:`PlayHistory` marks for each seat
    exactly the tiles that were off the table and fitted an open end when that seat laid another
    tile (a lead passes over nothing), and separately those heavier than the tile it laid; a
    hand's end clears both. Features give each seat's marks counted from the observer."""
    game, state, history, mask = followed_game(name, 5)
    tiles, players = game.num_tiles, game.num_players
    rng = np.random.default_rng(1)
    passed = np.zeros((players, tiles), bool)
    heavier = np.zeros((players, tiles), bool)
    pips = TILE_LOW[:tiles].astype(int) + TILE_HIGH[:tiles]
    hands, marked = 0, 0
    while hands < 3:
        game.legal_mask(state, 0, mask)
        action = int(rng.choice(np.flatnonzero(mask)))
        actor = game.current_seat(state, 0)
        tile = int(game.action_tiles[action])
        before = state["location"][:, :tiles].copy()
        ends = state["ends"].copy()
        status = game.step(state, 0, action)
        history.update(before, state["location"][:, :tiles], np.array([status != 0]), ends)
        if status != 0:
            passed[:], heavier[:], hands = False, False, hands + 1
            assert not history.passed_over.any() and not history.passed_heavier.any()
            if game.is_over(state, 0):
                game.start(state, 0)
            continue
        laid = tile >= 0 and state[0]["location"][tile] == ON_TABLE and before[0, tile] >= 0
        if laid and (before[0] == ON_TABLE).any():
            for t in range(tiles):
                fits = {int(TILE_LOW[t]), int(TILE_HIGH[t])} & {int(ends[0, 0]), int(ends[0, 1])}
                if t != tile and before[0, t] != ON_TABLE and fits:
                    passed[actor, t] = True
                    heavier[actor, t] |= bool(pips[t] > pips[tile])
        np.testing.assert_array_equal(history.passed_over[0] > 0, passed)
        np.testing.assert_array_equal(history.passed_heavier[0] > 0, heavier)
        marked += int(passed.sum())
        for observer in range(players):
            features = history.features(np.array([observer]))[0, history.who_size :].reshape(2, players, tiles)
            for k in range(players):
                np.testing.assert_array_equal(features[0, k] > 0, passed[(observer + k) % players])
                np.testing.assert_array_equal(features[1, k] > 0, heavier[(observer + k) % players])
    assert marked > 0
