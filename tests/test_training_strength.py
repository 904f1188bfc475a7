"""What makes self-play strong: the imitation head start, stateful pool agents, forced moves
skipped, the figures a run logs, and the shipped evaluation on unseen deals."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.network import PolicyNetwork
from agents.policy import PolicyAgent
from arena.cli import load_policy
from arena.evaluation import fair_share, run_arena
from arena.ship import EVALUATION_SEED, SUMMARY_FILE, pretrained_table, reevaluate, ship, training_seeds
from domino_env import make_game
from tests.test_training import TINY  # the same few tiny updates
from training import checkpoint as ckpt
from training.config import ConfigError, ImitationConfig, build_config, load_config
from training.imitation import Demonstrations, fit, record_decisions
from training.ppo import explained_variance, train


@pytest.mark.parametrize("variant", ["draw", "hungarian", "mexican_train"])
def test_teacher_decisions_are_the_teachers_unforced_choices_with_their_episode_outcome(variant: str) -> None:
    game = make_game(variant, num_players=3 if variant == "hungarian" else 2)
    teacher = make_agent("greedy", game)
    data, steps = record_decisions(game, teacher, None, num_decisions=300, num_envs=8, seed=5)
    assert len(data) >= 300 and steps > 0
    assert (data.mask.sum(1) > 1).all()  # forced decisions are not recorded
    assert data.mask[np.arange(len(data)), data.action].all()
    np.testing.assert_array_equal(data.action, teacher.act(data.obs, data.mask))
    # "win" rewards: a seat's episode reward is +-1 split among winners, never beyond
    assert np.all(np.abs(data.outcome) <= 1.0) and np.any(data.outcome > 0) and np.any(data.outcome < 0)


class AskedGames:
    """A teacher (greedy's choices) that notes which games of the batch it was asked about and
    how many decisions."""

    def __init__(self, game) -> None:
        self.greedy = make_agent("greedy", game)
        self.games: set[int] = set()
        self.asked = 0

    def act_states(self, game, state: np.ndarray, games: np.ndarray) -> np.ndarray:
        self.games |= {int(g) for g in games}
        self.asked += len(games)
        return self.greedy.act_states(game, state, games)


@pytest.mark.parametrize("variant", ["draw", "hungarian", "mexican_train"])
def test_whole_episodes_keep_every_episode_begun_before_the_count(variant: str) -> None:
    game = make_game(variant, num_players=3 if variant == "hungarian" else 2)
    # one decision asked of 16 games: stopping at the count keeps the hand that ended first and
    # drops the other games' longer ones; whole episodes keep every game's first hand
    teacher = AskedGames(game)
    data, _ = record_decisions(game, teacher, None, 1, num_envs=16, seed=5, whole_episodes=True)
    assert teacher.games == set(range(16))  # every game's first hand was recorded ...
    assert len(data) == teacher.asked  # ... to its end, and nothing begun after the count
    assert not np.isnan(data.outcome).any()
    cut = AskedGames(game)
    first, _ = record_decisions(game, cut, None, 1, num_envs=16, seed=5)
    assert 1 <= len(first) < cut.asked  # the default drops the hands still running
    # the same games from the same seed: the hands that ended first are among the whole ones
    assert {row.tobytes() for row in first.obs} <= {row.tobytes() for row in data.obs}
    # with many hands a game, at least the count, and again every decision asked is kept
    teacher = AskedGames(game)
    data, _ = record_decisions(game, teacher, None, 300, num_envs=8, seed=5, whole_episodes=True)
    assert len(data) >= 300 and len(data) == teacher.asked


def test_a_stateful_teacher_labels_the_positions_a_student_drives_to() -> None:
    game = make_game("draw", num_players=2)
    student = PolicyAgent(PolicyNetwork(game.observation_size, game.num_actions, [16]), deterministic=False, seed=1)
    data, _ = record_decisions(game, make_agent("heuristic", game, seed=2), student, 200, num_envs=8, seed=3)
    assert len(data) >= 200
    assert data.mask[np.arange(len(data)), data.action].all()
    # the student (random weights) and the heuristic disagree somewhere: labels are the teacher's
    assert (PolicyAgent(student.network).act(data.obs, data.mask) != data.action).any()


def test_behaviour_cloning_learns_a_simple_teacher() -> None:
    torch.manual_seed(0)
    game = make_game("draw", num_players=2)
    teacher = make_agent("greedy", game)
    train_data, _ = record_decisions(game, teacher, None, 4000, num_envs=64, seed=1)
    held_out, _ = record_decisions(game, teacher, None, 1000, num_envs=64, seed=2)
    network = PolicyNetwork(game.observation_size, game.num_actions, [64])
    config = ImitationConfig(teacher="greedy", epochs=15, minibatch_size=256, learning_rate=3e-3)
    before = (PolicyAgent(network).act(held_out.obs, held_out.mask) == held_out.action).mean()
    fit(network, train_data, config, 0.5, torch.device("cpu"), torch.Generator().manual_seed(0))
    after = (PolicyAgent(network).act(held_out.obs, held_out.mask) == held_out.action).mean()
    assert after > 0.9 > before


def test_demonstrations_join_keeps_every_field_aligned() -> None:
    hidden = np.zeros((2, 5), np.uint8), np.ones((1, 5), np.uint8)
    a = Demonstrations(
        np.zeros((2, 3), np.float32), hidden[0], np.ones((2, 4), np.int8), np.array([0, 1]), np.array([1.0, -1.0])
    )
    b = Demonstrations(np.ones((1, 3), np.float32), hidden[1], np.ones((1, 4), np.int8), np.array([3]), np.array([0.5]))
    joined = Demonstrations.join([a, b])
    assert len(joined) == 3 and joined.obs.shape == (3, 3)
    np.testing.assert_array_equal(joined.hidden.sum(1), [0, 0, 5])
    np.testing.assert_array_equal(joined.action, [0, 1, 3])
    np.testing.assert_array_equal(joined.outcome, [1.0, -1.0, 0.5])


def test_explained_variance() -> None:
    target = np.array([1.0, -1.0, 1.0, -1.0])
    assert explained_variance(target, target) == 1.0
    assert explained_variance(np.zeros(4), target) == 0.0
    assert explained_variance(-target, target) < 0
    assert explained_variance(np.zeros(3), np.ones(3)) == 0.0


@pytest.mark.parametrize("variant", ["draw", "hungarian", "mexican_train"])
def test_imitation_then_ppo_with_stateful_pool_agents_logs_ppo_figures(variant: str, tmp_path: Path) -> None:
    players = 3 if variant == "hungarian" else 2
    config = build_config(
        {"env": {"variant": variant, "options": {"num_players": players}}},
        [
            *TINY,
            "pool.baselines=[heuristic, greedy]",
            "pool.baseline_share=0.9",
            "pool.self_play_share=0.1",
            "imitation.teacher=heuristic",
            "imitation.rounds=2",
            "imitation.decisions_per_round=200",
            "imitation.epochs=1",
        ],
    )
    train(config, tmp_path / "run")
    with (tmp_path / "run" / "metrics.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    first = rows[0]
    assert float(first["imitation/decisions"]) >= 400
    assert 0.0 <= float(first["imitation/agreement"]) <= 1.0
    assert first["eval/vs_heuristic"] != ""  # the head start is measured before PPO begins
    ppo_rows = [r for r in rows if r.get("loss/approx_kl")]
    assert ppo_rows
    for key in ("loss/explained_variance", "loss/clip_fraction", "loss/entropy", "loss/value", "rollout/forced_share"):
        assert all(r[key] != "" for r in ppo_rows), key
    assert all(0.0 < float(r["rollout/forced_share"]) < 1.0 for r in ppo_rows)


def test_forced_decisions_can_be_learned_from_for_ablations(tmp_path: Path) -> None:
    block = {"env": {"variant": "block", "options": {"num_players": 2}}}
    config = build_config(block, [*TINY, "ppo.learn_forced=true"])
    train(config, tmp_path / "run")
    with (tmp_path / "run" / "metrics.csv").open() as handle:
        rows = [r for r in csv.DictReader(handle) if r.get("rollout/forced_share")]
    assert all(float(r["rollout/forced_share"]) == 0.0 for r in rows)


def test_an_unknown_teacher_or_empty_round_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"imitation\.teacher: unknown agent 'heurstic'"):
        build_config({}, ["imitation.teacher=heurstic"])
    with pytest.raises(ConfigError, match=r"imitation\.rounds must be positive"):
        build_config({}, ["imitation.teacher=heuristic", "imitation.rounds=0"])


def test_a_config_that_seats_the_planner_in_another_variant_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"pool\.baselines\[0\]: the planner plays Mexican Train only"):
        build_config({"env": {"variant": "draw"}}, ["pool.baselines=[planner]"])
    mexican = {"env": {"variant": "mexican_train", "options": {"num_players": 4}}}
    config = build_config(mexican, ["pool.baselines=[planner]", "imitation.teacher=planner"])
    assert config.imitation.teacher == "planner"


def test_shipped_evaluation_deals_are_never_training_deals() -> None:
    for path in sorted(Path("configs").glob("*.yaml")):
        assert EVALUATION_SEED not in training_seeds(load_config(path)), path


def test_the_pretrained_table_lists_every_shipped_config_with_intervals() -> None:
    table = pretrained_table()
    for path in sorted(Path("configs").glob("*.yaml")):
        assert f"| {path.stem} |" in table
    assert "heuristic" in table.splitlines()[0]


@pytest.mark.parametrize("name", ckpt.pretrained_names())
def test_a_shipped_policy_beats_a_table_of_heuristics_on_deals_it_never_saw(name: str) -> None:
    """The bar every shipped agent was trained to clear, measured again on deals neither its
    training nor its shipped evaluation played (seed 777), with games enough to resolve a small
    edge; a change to the rules or the encodings that weakens a shipped agent fails here."""
    variant, options = ckpt.game_of_checkpoint(ckpt.PRETRAINED_DIR / name)
    game = make_game(variant, **options)
    policy = PolicyAgent(ckpt.load_network(ckpt.PRETRAINED_DIR / name, game), name=name)
    heuristic = make_agent("heuristic", game, seed=0)
    result = run_arena(game, {name: policy, "heuristic": heuristic}, 16000, seed=777, opponents=["heuristic"])
    matchup = next(m for m in result.matchups if m.policy == name)
    assert matchup.episodes >= 16000
    assert matchup.interval()[0] > fair_share(game), (matchup.win_rate, matchup.interval())


TINY_SHIP = """env: {variant: draw, options: {num_players: 2}}
ppo: {num_envs: 16, rollout_steps: 8, total_env_steps: 256, update_epochs: 1}
network: {hidden_sizes: [32]}
eval: {every: 1, games: 8}
pool: {snapshot_every: 1}
run: {checkpoint_every: 1, torch_threads: 1, engine_threads: 1}
"""
TINY_STUDENT = """improve: {positions: 24, chunk: 24, opponent: heuristic, minibatch_size: 16,
          student_trunk: attention, student_hidden_sizes: [16]}
"""


def test_a_shipped_student_keeps_the_ppo_policy_for_its_search_and_a_later_recipe_drops_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A config whose last phase fits a new network ships that network, with the PPO policy it
    was fitted over in ``rollout/``, where ``NAME+search`` finds it; shipping the name again
    from a config without a student leaves no stale rollout network behind."""
    monkeypatch.setattr(ckpt, "PRETRAINED_DIR", tmp_path / "pretrained")
    config = tmp_path / "tiny_draw.yaml"
    config.write_text(TINY_SHIP + TINY_STUDENT)
    target = ship(config, games=8, search_games=0, runs_dir=str(tmp_path / "runs"))
    game = make_game("draw", num_players=2)
    searched = load_policy("tiny_draw+search:simulations=8", game, seed=1)
    assert searched.network.trunk_kind == "attention" and searched.rollout_network.trunk_kind == "mlp"
    (run,) = (tmp_path / "runs").iterdir()
    ppo_policy = ckpt.load_network(ckpt.latest_checkpoint(run), game)
    for name, tensor in ppo_policy.state_dict().items():
        assert torch.equal(searched.rollout_network.state_dict()[name], tensor), name
    config.write_text(TINY_SHIP)
    ship(config, games=8, search_games=0, runs_dir=str(tmp_path / "runs"))
    assert not (target / ckpt.ROLLOUT_DIR).exists()
    searched = load_policy("tiny_draw+search:simulations=8", game, seed=1)
    assert searched.network.trunk_kind == "mlp" and searched.rollout_network is searched.network


def test_reevaluating_a_shipped_agent_keeps_its_training_figures_and_search_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(ckpt.PRETRAINED_DIR / "draw_2p", tmp_path / "draw_2p")
    monkeypatch.setattr(ckpt, "PRETRAINED_DIR", tmp_path)
    before = json.loads((tmp_path / "draw_2p" / SUMMARY_FILE).read_text())
    reevaluate("draw_2p", games=64, search_games=0)
    after = json.loads((tmp_path / "draw_2p" / SUMMARY_FILE).read_text())
    for key in ("config", "minutes", "env_steps", "imitation_env_steps", "teacher"):
        assert after[key] == before[key], key
    assert after["results"]["pimc"] == before["results"]["pimc"]
    assert after["results"]["ismcts"] == before["results"]["ismcts"]
    assert after["results"]["heuristic"]["episodes"] == 64
    report = (tmp_path / "draw_2p" / "evaluation.md").read_text()
    assert "--games 64 --seed 12345" in report
    pimc, ismcts = before["results"]["pimc"], before["results"]["ismcts"]
    kept = (
        f"against tables of pimc {pimc['win_rate']:.3f} [{pimc['interval'][0]:.3f}, {pimc['interval'][1]:.3f}] "
        f"over {pimc['episodes']:,} games ({pimc['verdict']}); ismcts {ismcts['win_rate']:.3f}"
    )
    assert kept in report
    with pytest.raises(ValueError, match=r"no shipped agent 'draw_9p'; shipped: draw_2p"):
        reevaluate("draw_9p", games=64, search_games=0)


def test_an_agent_spec_carries_its_options_and_a_bad_one_is_refused_before_training() -> None:
    game = make_game("draw", num_players=2)
    agent = make_agent("pimc:simulations=8,epsilon=0.25", game, seed=1)
    assert agent.simulations == 8 and agent.epsilon == 0.25
    config = build_config({}, ["pool.baselines=['pimc:simulations=8', heuristic]"])
    assert config.pool.baselines[0] == "pimc:simulations=8"
    with pytest.raises(ConfigError, match=r"pool\.baselines\[0\]: agent 'pimc' does not take the options"):
        build_config({}, ["pool.baselines=['pimc:simulatons=8']"])
    with pytest.raises(
        ConfigError, match=r"pool\.baselines\[0\]: agent 'pimc:simulations': 'simulations' is not of the form"
    ):
        build_config({}, ["pool.baselines=['pimc:simulations']"])


def test_a_reloaded_pool_plays_on_exactly_as_the_saved_one_would() -> None:
    """Checkpoints keep every opponent's own generator, so a resumed run's opponents draw the
    same moves as an uninterrupted run's: random, heuristic, search and snapshot alike."""
    from training.config import PoolConfig
    from training.pool import OpponentPool

    game = make_game("draw", num_players=2)
    config = PoolConfig(baselines=["random", "heuristic", "pimc:simulations=8"])
    network = PolicyNetwork(game.observation_size, game.num_actions, [16])

    def fresh() -> OpponentPool:
        pool = OpponentPool(config, game, lambda: PolicyNetwork(game.observation_size, game.num_actions, [16]), seed=3)
        pool.add_snapshot(network, update=1)
        return pool

    state = game.new_state(64)
    mask = np.zeros((64, game.num_actions), np.int8)
    for g in range(64):  # positions a few moves in, where most seats have a choice
        game.seed(state, g, 11)
        game.start(state, g)
        for _ in range(2 + g % 5):
            game.legal_mask(state, g, mask[g])
            if game.step(state, g, int(np.flatnonzero(mask[g])[-1])) != 0:
                game.start(state, g)
        game.legal_mask(state, g, mask[g])
    games = np.arange(64)
    obs = np.stack([game.view(state, g, game.current_seat(state, g))[0] for g in games])
    assert (mask.sum(1) > 1).sum() > 16

    def moves(pool: OpponentPool) -> list[np.ndarray]:
        return [pool.act(member, state, games, obs, mask) for member in sorted(pool.members)]

    saved = fresh()
    moves(saved)  # the generators move on
    checkpoint = saved.state_dict()
    expected = moves(saved)
    resumed = fresh()
    resumed.load_state_dict(checkpoint)
    for want, got in zip(expected, moves(resumed), strict=True):
        np.testing.assert_array_equal(want, got)
    # and the generators did move: a fresh pool draws differently somewhere
    assert any((a != b).any() for a, b in zip(expected, moves(fresh()), strict=True))
