"""The attention trunk (``network.trunk: attention``): its tokens hold each tile's place and what
it fits, read from the observation alone; it trains, saves, loads, plays in the arena and starts
runs like the MLP; a checkpoint's metadata cannot make it build more than it may."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import save_file

import domino_env
from agents.network import PolicyNetwork, masked_logits, network_for
from agents.policy import PolicyAgent
from agents.policy_search import PolicySearchAgent
from agents.tile_attention import MAX_ATTENTION_WIDTH, NUMBER_BLOCKS, PlayScores
from arena.cli import main as cli_main
from domino_env import make_game
from domino_env.tiles import TILE_HIGH, TILE_LOW
from tests.test_policy_search import positions
from tests.test_training import TINY
from training import checkpoint as ckpt
from training import improvement
from training.action_values import ActionValues, fit_improvement
from training.config import ConfigError, ImprovementConfig, load_config
from training.fitting import fit_minibatches
from training.ppo import train

VARIANTS = [("draw", {"num_players": 2}), ("hungarian", {"num_players": 3}), ("mexican_train", {"num_players": 4})]


def observations_of_random_games(variant: str, options: dict, turns: int, seed: int) -> list[np.ndarray]:
    """The acting seat's observation at each of ``turns`` turns of random games (new ones as
    they end), through the PettingZoo environment."""
    env = domino_env.make(variant, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen = []
    for _ in range(turns):
        if all(env.terminations.values()) or all(env.truncations.values()):
            env.reset(seed=int(rng.integers(1 << 30)))
        observation = env.observe(env.agent_selection)
        seen.append(observation["observation"].copy())
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return seen


@pytest.mark.parametrize(("variant", "options"), VARIANTS, ids=[v for v, _ in VARIANTS])
def test_each_token_holds_its_tiles_place_and_the_faces_each_number_block_marks(variant, options) -> None:
    """Checked against the observation's named blocks, read here tile by tile: in hand, on the
    table or unseen, then for every group of every block indexed by number (ends, trains, engine,
    double, each opponent's voids) how many of the tile's faces that group marks."""
    game = make_game(variant, **options)
    trunk = network_for(game, [16], trunk="attention").trunk
    numbers = int(TILE_HIGH[: game.num_tiles].max()) + 1
    layout = game.observation_layout
    sizes = {name: part.stop - part.start for name, part in layout.items() if name in NUMBER_BLOCKS}
    groups = [(name, g) for name, size in sizes.items() for g in range(size // numbers)]
    marked = 0.0
    for observation in observations_of_random_games(variant, options, 60, seed=7):
        tokens = trunk.tokens(torch.as_tensor(observation[None]))[0].numpy()
        for t in range(game.num_tiles):
            hand, table = observation[layout["hand"]][t], observation[layout["table"]][t]
            assert tokens[t, :3].tolist() == [hand, table, 1.0 - hand - table]
            for k, (name, g) in enumerate(groups):
                marks = observation[layout[name]][g * numbers : (g + 1) * numbers]
                assert tokens[t, 3 + k] == marks[TILE_LOW[t]] + marks[TILE_HIGH[t]]
        marked += tokens[:, 3 : 3 + len(groups)].sum()
    assert marked > 0  # the games' ends and trains did reach the tokens


def test_draw_tokens_mark_the_tiles_that_fit_an_end() -> None:
    """On a hand-built Draw position: the first seat leads 2-2 and the second plays 2-5 on the
    left, so the ends show 5 and 2 when the first seat looks. The 5-5 fits the left end with both
    faces, the 2-6 each end with one, the 0-2 the right end, the 3-4 nothing."""
    env = domino_env.make("draw", num_players=2)
    hands = [[[2, 2], [3, 4], [0, 0], [1, 1], [0, 1], [1, 3], [0, 3]],
             [[2, 5], [0, 2], [0, 4], [0, 5], [0, 6], [1, 2], [1, 4]]]  # fmt: skip
    rest = [[a, b] for a in range(7) for b in range(a, 7) if [a, b] not in hands[0] + hands[1]]
    env.reset(options={"deal": {"hands": hands, "boneyard": rest, "leader": 0}})
    env.step(env.unwrapped.action_from_name("play 2-2 on left"))
    env.step(env.unwrapped.action_from_name("play 2-5 on left"))
    observation = env.observe(env.agent_selection)["observation"]
    trunk = network_for(env.unwrapped.game, [16], trunk="attention").trunk
    tokens = trunk.tokens(torch.as_tensor(observation[None]))[0].numpy()
    index = {(int(TILE_LOW[t]), int(TILE_HIGH[t])): t for t in range(28)}
    left, right = tokens[:, 3], tokens[:, 4]  # the left and right end's groups
    assert tokens[index[2, 5], :3].tolist() == [0.0, 1.0, 0.0]  # on the table
    assert tokens[index[3, 4], :3].tolist() == [1.0, 0.0, 0.0]  # in the observer's hand
    assert tokens[index[0, 2], :3].tolist() == [0.0, 0.0, 1.0]  # the other seat's: unseen from here
    assert tokens[index[5, 5], :3].tolist() == [0.0, 0.0, 1.0]  # in the boneyard: unseen too
    assert (left[index[5, 5]], right[index[5, 5]]) == (2, 0)
    assert (left[index[2, 6]], right[index[2, 6]]) == (0, 1)
    assert (left[index[0, 2]], right[index[0, 2]]) == (0, 1)
    assert (left[index[0, 5]], right[index[0, 5]]) == (1, 0)
    assert (left[index[3, 4]], right[index[3, 4]]) == (0, 0)


def test_the_trunk_scores_every_play_from_its_own_tiles_token() -> None:
    """Changing one tile's token moves the logits of that tile's plays and of no other play."""
    game = make_game("mexican_train", num_players=4)
    head = PlayScores(8, game.action_tiles)
    torch.manual_seed(0)
    hidden, tokens = torch.randn(2, 8), torch.randn(2, game.num_tiles, 8)
    before = head(hidden, tokens)
    tokens[:, 17] += 1.0
    changed = (head(hidden, tokens) - before).abs().sum(0) > 0
    assert set(np.flatnonzero(changed.numpy())) == set(np.flatnonzero(game.action_tiles == 17))


@pytest.mark.parametrize(("variant", "options"), VARIANTS, ids=[v for v, _ in VARIANTS])
@pytest.mark.parametrize("head", ["flat", "tiles"])
def test_logits_and_values_for_a_batch_of_observations(variant, options, head) -> None:
    game = make_game(variant, **options)
    network = network_for(game, [16, 16], action_head=head, trunk="attention")
    obs = torch.as_tensor(np.stack(observations_of_random_games(variant, options, 12, seed=1)))
    logits, values = network(obs)
    assert logits.shape == (12, game.num_actions) and values.shape == (12,)
    assert torch.isfinite(logits).all() and torch.isfinite(values).all()
    torch.testing.assert_close(network.logits(obs), logits)
    one = network.logits(obs[3:4])  # each row is computed from its own observation alone
    torch.testing.assert_close(one[0], logits[3], rtol=1e-5, atol=1e-5)


def test_a_checkpoint_round_trip_keeps_the_trunk_and_its_moves(tmp_path: Path) -> None:
    game = make_game("draw", num_players=2)
    torch.manual_seed(0)
    network = network_for(game, [16, 16], action_head="tiles", trunk="attention")
    ckpt.save_model(tmp_path, network, game)
    assert ckpt.read_metadata(tmp_path)["trunk"] == "attention"
    loaded = ckpt.load_network(tmp_path, game)
    assert loaded.trunk_kind == "attention" and loaded.hidden_sizes == [16, 16]
    obs = torch.as_tensor(np.stack(observations_of_random_games("draw", {"num_players": 2}, 20, seed=2)))
    torch.testing.assert_close(loaded.logits(obs), network.logits(obs))


def test_an_older_checkpoint_without_a_trunk_entry_is_an_mlp(tmp_path: Path) -> None:
    game = make_game("draw", num_players=2)
    network = network_for(game, [16])
    metadata = {**ckpt.describe_game(game), "hidden_sizes": "[16]"}
    save_file({k: v.contiguous() for k, v in network.state_dict().items()}, tmp_path / ckpt.MODEL_FILE, metadata)
    assert ckpt.load_network(tmp_path, game).trunk_kind == "mlp"


@pytest.mark.parametrize(
    ("trunk", "hidden", "message"),
    [
        ("lstm", [16], "unknown trunk='lstm'"),
        ("attention", [16, 8], "one width for all its layers"),
        ("attention", [18], f"a multiple of 4 up to {MAX_ATTENTION_WIDTH}"),
        ("attention", [4096, 4096], f"a multiple of 4 up to {MAX_ATTENTION_WIDTH}"),
    ],
)
def test_a_checkpoint_claiming_a_trunk_it_cannot_have_is_refused_before_building(
    tmp_path: Path, trunk: str, hidden: list[int], message: str
) -> None:
    """The metadata is checked before any network is built, so a header asking for an attention
    trunk 4,096 wide allocates nothing; the refusal is one line."""
    game = make_game("draw", num_players=2)
    weights = network_for(game, [16], trunk="attention").state_dict()
    metadata = {**ckpt.describe_game(game), "hidden_sizes": json.dumps(hidden), "trunk": trunk}
    save_file({k: v.contiguous() for k, v in weights.items()}, tmp_path / ckpt.MODEL_FILE, metadata)
    with pytest.raises(ckpt.CheckpointError, match=message) as refused:
        ckpt.load_network(tmp_path, game)
    assert "\n" not in str(refused.value)


def test_an_mlp_file_claiming_to_be_attention_does_not_fit_its_tensors(tmp_path: Path) -> None:
    game = make_game("draw", num_players=2)
    weights = network_for(game, [16]).state_dict()
    metadata = {**ckpt.describe_game(game), "hidden_sizes": "[16]", "trunk": "attention"}
    save_file({k: v.contiguous() for k, v in weights.items()}, tmp_path / ckpt.MODEL_FILE, metadata)
    with pytest.raises(ckpt.CheckpointError, match="does not hold the tensors of its recorded network"):
        ckpt.load_network(tmp_path, game)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["network.trunk=cnn"], "network.trunk must be one of mlp, attention, got 'cnn'"),
        (["network.trunk=attention", "network.hidden_sizes=[64,32]"], "one width for all its layers"),
        (["network.trunk=attention", "network.hidden_sizes=[2048]"], "a multiple of 4 up to 1024"),
    ],
)
def test_configs_asking_for_a_trunk_that_cannot_be_built_are_refused(overrides, message) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config("configs/draw_2p.yaml", overrides)


def test_a_run_trains_saves_resumes_from_and_plays_an_attention_network(tmp_path: Path, capsys) -> None:
    """A few PPO updates after an imitation head start; the checkpoint plays in ``arena
    evaluate``; a run may start from it only with the same trunk."""
    overrides = [*TINY, "network.trunk=attention", "network.hidden_sizes=[16]", f"run.dir={tmp_path}"]
    folder = train(load_config("configs/draw_2p.yaml", overrides), tmp_path / "run")
    game = make_game("draw", num_players=2)
    assert ckpt.load_network(folder, game).trunk_kind == "attention"
    cli_main(["evaluate", str(folder), "random", "--games", "20", "--seed", "3"])
    assert str(folder) in capsys.readouterr().out
    longer = load_config("configs/draw_2p.yaml", [*overrides, "ppo.total_env_steps=512"])
    resumed = train(longer, tmp_path / "run", resume=True)
    assert resumed.name == "update_000004"
    with pytest.raises(ckpt.CheckpointError, match=r"with an attention trunk: set network\.trunk=attention"):
        ckpt.initial_weights(folder, game, [16], action_head="tiles")
    assert ckpt.initial_weights(folder, game, [16], action_head="tiles", trunk="attention").keys()


def test_the_guided_tree_and_plain_search_both_play_an_attention_network() -> None:
    """The guided tree's compiled prior is checked against the network's in
    tests/test_guided_tree.py; here both searches play legal moves with it."""
    game = make_game("draw", num_players=2)
    network = network_for(game, [16], trunk="attention")
    state = positions(game, 4, seed=2)
    mask = np.zeros(game.num_actions, np.int8)
    for g in range(len(state)):
        game.legal_mask(state, g, mask)
        for tree in (0, 1):
            assert mask[PolicySearchAgent(game, network, simulations=8, seed=0, tree=tree).act_state(state, g)]


def test_annealing_takes_the_rate_to_zero_over_the_passes_and_restores_it() -> None:
    network = torch.nn.Linear(3, 1)
    optimizer = torch.optim.Adam(network.parameters(), lr=0.01)
    rates: list[float] = []

    def loss(batch: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        rates.append(optimizer.param_groups[0]["lr"])  # the rate of the step before
        return network(torch.ones(len(batch), 3)).pow(2).mean(), {}

    fit_minibatches(network, optimizer, 40, loss, 2, 10, torch.Generator(), torch.device("cpu"), anneal=True)
    assert rates == pytest.approx([0.01] + [0.01 * (1 - k / 8) for k in range(7)])
    assert optimizer.param_groups[0]["lr"] == 0.01


def test_a_new_network_is_fitted_to_one_step_over_a_frozen_player(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``player``, that network reaches the positions and anchors the targets (its own
    log-probabilities), and is left as it was; the network fitted is the new one."""
    game = make_game("draw", num_players=2)
    torch.manual_seed(0)
    player, student = network_for(game, [32]), network_for(game, [16], trunk="attention")
    kept, started = copy.deepcopy(player.state_dict()), copy.deepcopy(student.state_dict())
    settings = ImprovementConfig(positions=40, chunk=20, minibatch_size=16)
    seen: list[ActionValues] = []

    def fit(network, optimizer, data, *args):
        assert network is student
        seen.append(data)
        return fit_improvement(network, optimizer, data, *args)

    monkeypatch.setattr(improvement, "fit_improvement", fit)
    list(improvement.improvement_chunks(game, student, settings, 3, torch.device("cpu"), player=player))
    assert len(seen) == 2 and all(torch.equal(kept[k], player.state_dict()[k]) for k in kept)
    assert not all(torch.equal(started[k], student.state_dict()[k]) for k in started)
    for data in seen:
        with torch.no_grad():
            logits = masked_logits(player.logits(torch.as_tensor(data.obs)), torch.as_tensor(data.mask))
        prior = np.where(data.mask > 0, torch.log_softmax(logits, -1).numpy(), 0.0)
        np.testing.assert_allclose(data.prior, prior, rtol=1e-5, atol=1e-5)


def test_a_policy_agent_plays_only_legal_moves_with_an_attention_network() -> None:
    game = make_game("mexican_train", num_players=4)
    agent = PolicyAgent(network_for(game, [16], trunk="attention"))
    assert isinstance(agent.network, PolicyNetwork)
    env = domino_env.make("mexican_train", num_players=4)
    env.reset(seed=5)
    for _ in range(80):
        if all(env.terminations.values()):
            break
        observation = env.observe(env.agent_selection)
        action = int(agent.act(observation["observation"][None], observation["action_mask"][None])[0])
        assert observation["action_mask"][action] == 1
        env.step(action)
