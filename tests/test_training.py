"""The training package: masked distribution, configs, smoke runs, resume, checkpoints, arena."""

from __future__ import annotations

import csv
import time
from pathlib import Path

import numba
import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

import arena.evaluation as arena_module
from agents import make_agent
from agents.network import ILLEGAL_LOGIT, PolicyNetwork, legal_entropy, masked_distribution
from agents.policy import PolicyAgent
from agents.tournament import Record
from arena.cli import main as cli_main
from arena.evaluation import bradley_terry, run_arena
from domino_env import make_game
from training import checkpoint as ckpt
from training.config import ConfigError, build_config, load_config, parse_override
from training.logger import MetricsLogger
from training.ppo import train

CONFIGS = sorted(Path("configs").rglob("*.yaml"))  # the shipped configs and the small research ones (configs/small)
TINY = [
    "ppo.num_envs=16",
    "ppo.rollout_steps=8",
    "ppo.total_env_steps=384",
    "ppo.update_epochs=1",
    "eval.every=1",
    "eval.games=8",
    "pool.snapshot_every=1",
    "run.checkpoint_every=1",
    "run.time_limit_minutes=0",
    "network.hidden_sizes=[32]",
    "imitation.rounds=1",  # the shipped configs' head start, kept tiny
    "imitation.decisions_per_round=64",
    "imitation.epochs=1",
    "improve.positions=0",  # the shipped configs' last phase off (tests/test_improvement.py runs it)
]


# ------------------------------------------------------------------------------------- masked PPO


def test_masked_distribution_never_samples_illegal_actions_and_gives_them_no_gradient() -> None:
    torch.manual_seed(0)
    logits = torch.randn(512, 9, requires_grad=True)
    mask = torch.rand(512, 9) < 0.3
    mask[:, 4] = True  # every row has a legal action
    distribution = masked_distribution(logits, mask)
    samples = distribution.sample((50,))
    assert mask.gather(1, samples.T).all()
    assert (distribution.probs[~mask] == 0).all()
    assert torch.isfinite(distribution.logits).all()
    entropy = legal_entropy(distribution, mask)
    (distribution.log_prob(samples[0]).sum() + entropy.sum()).backward()
    assert (logits.grad[~mask] == 0).all()
    assert (logits.grad[mask] != 0).any()
    assert ILLEGAL_LOGIT < -1e8


def test_entropy_counts_legal_actions_only() -> None:
    logits = torch.zeros(1, 6)
    mask = torch.tensor([[1, 1, 0, 0, 0, 0]], dtype=torch.bool)
    entropy = legal_entropy(masked_distribution(logits, mask), mask)
    assert entropy.item() == pytest.approx(np.log(2), abs=1e-6)


# ------------------------------------------------------------------------------------- configs


def test_every_shipped_config_loads() -> None:
    assert {p.stem for p in CONFIGS} >= {"draw_2p", "draw_4p_partners", "block_2p", "hungarian_3p"}
    for path in CONFIGS:
        config = load_config(path)
        assert config.run.name == f"{path.stem}_seed{config.run.seed}"
        make_game(config.env.variant, **config.env.options)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["ppo.lerning_rate=0.1"], "did you mean ppo.learning_rate"),
        (["ppo.num_envs=many"], "ppo.num_envs must be an integer"),
        (["ppo.num_envs=0"], "ppo.num_envs must be positive"),
        (["ppo.gamma=1.5"], "ppo.gamma must lie in [0, 1]"),
        (["pool.baselines=[random, wizard]"], "unknown agent 'wizard'"),
        (["env.options={num_players: 11}"], "env: option num_players"),
        (["env.variant=chess"], "unknown variant 'chess'"),
        (["run.device=tpu"], "run.device"),
        (["nonsense"], "section.key=value"),
    ],
)
def test_bad_configs_are_refused_with_a_clear_message(overrides: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=__import__("re").escape(message)):
        load_config("configs/draw_2p.yaml", overrides)


def test_overrides_reach_nested_fields() -> None:
    config = build_config({"env": {"variant": "block"}}, ["ppo.learning_rate=0.001", "env.options={num_players: 4}"])
    assert config.ppo.learning_rate == 0.001
    assert config.env.options == {"num_players": 4}


def test_an_empty_value_on_the_command_line_switches_imitation_off(tmp_path: Path) -> None:
    """A shell turns ``imitation.teacher=""`` into ``imitation.teacher=``: that must mean "no
    teacher", not YAML's null."""
    assert parse_override("imitation.teacher=") == (["imitation", "teacher"], "")
    assert load_config("configs/draw_2p.yaml", ["imitation.teacher="]).imitation.teacher == ""
    with pytest.raises(ConfigError, match=r"unknown agent 'none'.*empty \(imitation\.teacher=\) trains without"):
        load_config("configs/draw_2p.yaml", ["imitation.teacher=none"])
    flags = ["train", "--config", "configs/draw_2p.yaml", "--runs-dir", str(tmp_path), "--name", "plain"]
    cli_main([*flags, *TINY, "imitation.teacher="])
    with (tmp_path / "plain" / "metrics.csv").open() as handle:
        steps = [int(row["env_steps"]) for row in csv.DictReader(handle)]
    assert steps == [128, 256, 384]  # no head start's row at step 0


def test_engine_threads_numba_cannot_use_are_refused_when_the_run_starts(tmp_path: Path) -> None:
    """A config names a thread count for any machine; the engine, the one place that knows this
    machine's range, refuses it when the run starts, before anything is written."""
    with pytest.raises(ConfigError, match=r"run\.engine_threads must be 0"):
        build_config({}, ["run.engine_threads=-1"])
    cores = numba.config.NUMBA_NUM_THREADS
    config = build_config({}, [*TINY, f"run.engine_threads={cores + 1}"])
    with pytest.raises(ConfigError, match=rf"^run\.engine_threads: num_threads must be an integer from 1 to {cores} "):
        train(config, tmp_path / "run")
    assert not (tmp_path / "run").exists()


# ------------------------------------------------------------------------------------- training runs


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_every_config_trains_a_few_updates(path: Path, tmp_path: Path) -> None:
    """Each config as written, at a tiny size; one with an improvement phase runs it on a few
    dozen positions and ends with the improved policy (its student, when it fits one, with the
    PPO policy kept beside it for search)."""
    improve = load_config(path).improve
    tiny_phase = ["improve.positions=48", "improve.chunk=24", "improve.minibatch_size=16"] if improve.positions else []
    tiny_phase += ["improve.student_hidden_sizes=[16]"] if improve.student_trunk else []
    config = load_config(path, [*TINY, *tiny_phase, f"run.dir={tmp_path}"])
    folder = train(config, tmp_path / "run")
    assert folder == tmp_path / "run" / (ckpt.IMPROVED_DIR if improve.positions else "checkpoints/update_000003")
    game = make_game(config.env.variant, **config.env.options)
    network = ckpt.load_network(folder, game)
    if improve.student_trunk:
        assert (network.trunk_kind, network.hidden_sizes) == (improve.student_trunk, [16])
        assert network.action_head == improve.student_head
        network = ckpt.load_rollout_network(folder, game)
    assert network.hidden_sizes == [32] and network.action_head == config.network.action_head
    assert (tmp_path / "run" / "learning_curve.png").is_file()
    header = (tmp_path / "run" / "metrics.csv").read_text().splitlines()[0]
    assert "eval/vs_greedy" in header and "speed/env_steps_per_second" in header
    assert list((tmp_path / "run" / "tensorboard").iterdir())


def test_the_time_limit_bounds_the_imitation_head_start(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A run's time budget counts its head start: a teacher that would take minutes stops at the
    deadline, and the run ends with its one update soon after."""
    limit = 3.0
    overrides = [
        *TINY,
        "imitation.teacher=heuristic",
        "imitation.rounds=3",
        "imitation.decisions_per_round=1000000",  # minutes of recording on 16 games
        "ppo.total_env_steps=128000",
        "eval.every=1000",
        f"run.time_limit_minutes={limit / 60}",
    ]
    config = load_config("configs/draw_2p.yaml", overrides)
    started = time.perf_counter()
    folder = train(config, tmp_path / "run")
    elapsed = time.perf_counter() - started
    assert elapsed < limit + 20, f"the run took {elapsed:.0f} s on a {limit:.0f} s budget"
    with (tmp_path / "run" / "metrics.csv").open() as handle:
        head_start = next(csv.DictReader(handle))
    assert head_start["env_steps"] == "0" and float(head_start["imitation/seconds"]) < limit + 2
    assert ckpt.load_training_state(folder)["progress"]["update"] == 1
    assert "imitation stopped by the run's time limit in round 1/3" in capsys.readouterr().out


def test_a_killed_run_resumes_from_its_checkpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = load_config("configs/draw_2p.yaml", [*TINY, "ppo.total_env_steps=640"])  # 5 updates
    run_dir = tmp_path / "run"
    original_log = MetricsLogger.log

    def dies_after_two(self, step, values):  # the process is killed during update 3
        if step > 2 * 128:
            raise KeyboardInterrupt
        original_log(self, step, values)

    monkeypatch.setattr(MetricsLogger, "log", dies_after_two)
    with pytest.raises(KeyboardInterrupt):
        train(config, run_dir)
    assert ckpt.latest_checkpoint(run_dir).name == "update_000002"
    saved = ckpt.load_network(ckpt.latest_checkpoint(run_dir), make_game("draw", num_players=2)).state_dict()

    monkeypatch.setattr(MetricsLogger, "log", original_log)
    resumed_weights = {}
    original_train_state = ckpt.load_network

    def spy(path, game):
        network = original_train_state(path, game)
        resumed_weights.update(network.state_dict())
        return network

    monkeypatch.setattr(ckpt, "load_network", spy)
    folder = train(config, run_dir, resume=True)
    assert folder.name == "update_000005"
    assert all(torch.equal(saved[k], resumed_weights[k]) for k in saved)
    state = ckpt.load_training_state(folder)
    assert state["progress"]["update"] == 5 and state["progress"]["env_steps"] == 5 * 128
    steps = [line.split(",")[0] for line in (run_dir / "metrics.csv").read_text().splitlines()[1:]]
    # the imitation head start's row, updates 1-2, then 3-5 after the resume
    assert steps == ["0"] + [str(128 * u) for u in range(1, 6)]


def test_resume_cli_refuses_a_folder_without_checkpoint(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "config.yaml").write_text("env: {variant: draw}\n")
    with pytest.raises(SystemExit):
        cli_main(["train", "--resume", str(tmp_path)])
    assert "no complete checkpoint" in capsys.readouterr().err


# ------------------------------------------------------------------------------------- checkpoints


def test_mismatched_or_damaged_checkpoints_are_refused(tmp_path: Path) -> None:
    draw = make_game("draw", num_players=2)
    ckpt.save_model(tmp_path / "draw", PolicyNetwork(draw.observation_size, draw.num_actions, [16]), draw)
    assert ckpt.load_network(tmp_path / "draw", draw).hidden_sizes == [16]
    with pytest.raises(ckpt.CheckpointError, match="variant='draw'"):
        ckpt.load_network(tmp_path / "draw", make_game("block", num_players=2))
    with pytest.raises(ckpt.CheckpointError, match="options"):
        ckpt.load_network(tmp_path / "draw", make_game("draw", num_players=2, voluntary_draw=True))
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / ckpt.MODEL_FILE).write_bytes(b"not a safetensors file")
    with pytest.raises(ckpt.CheckpointError, match="not a readable"):
        ckpt.load_network(tmp_path / "bad", draw)
    with pytest.raises(ckpt.CheckpointError, match="no checkpoint"):
        ckpt.load_network(tmp_path / "missing", draw)


def test_a_checkpoint_trained_on_the_points_reward_sits_at_a_table_that_counts_wins(tmp_path: Path) -> None:
    """The reward changes neither the observation nor the actions, so it alone never refuses a
    checkpoint; every other option still does, and so do options that are not a JSON mapping."""
    points = make_game("hungarian", num_players=3, reward="points")
    ckpt.save_model(tmp_path / "points", PolicyNetwork(points.observation_size, points.num_actions, [16]), points)
    network = ckpt.load_network(tmp_path / "points", make_game("hungarian", num_players=3, reward="win"))
    assert network.hidden_sizes == [16]
    with pytest.raises(ckpt.CheckpointError, match="options"):
        ckpt.load_network(tmp_path / "points", make_game("hungarian", num_players=3, reward="win", open_ends=2))
    for options in ("[1, 2]", "{not json", '{"reward": "win"}'):
        weights = load_file(tmp_path / "points" / ckpt.MODEL_FILE)
        metadata = ckpt.read_metadata(tmp_path / "points") | {"options": options}
        (tmp_path / "damaged").mkdir(exist_ok=True)
        save_file(weights, tmp_path / "damaged" / ckpt.MODEL_FILE, metadata)
        with pytest.raises(ckpt.CheckpointError, match="options"):
            ckpt.load_network(tmp_path / "damaged", points)


# ------------------------------------------------------------------------------------- arena


def test_arena_counts_rotation_and_intervals_on_a_fixed_outcome_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """'strong' wins 3 of every 4 episodes from whichever seat; the arena must report that."""
    game = make_game("draw", num_players=2)
    seen_lineups = []

    def fixed_match(game, agents, episodes, seed=0, batch_size=256, workers=1):
        seen_lineups.append([a.name for a in agents])
        strong_first = agents[0].name == "strong"
        records = [Record(agents[0].name), Record(agents[1].name)]
        for episode in range(episodes):
            strong_wins = episode % 4 != 3
            first_wins = strong_wins == strong_first
            for seat, record in enumerate(records):
                won = first_wins == (seat == 0)
                record.episodes += 1
                record.wins += won
                record.hands += 1
                record.points += 10 if won else 0
                record.per_episode_reward.append(1.0 if won else -1.0)
        return records

    monkeypatch.setattr(arena_module, "rotated_match", fixed_match)
    strong, weak = make_agent("greedy", game), make_agent("random", game, seed=1)
    strong.name, weak.name = "strong", "weak"
    result = run_arena(game, {"strong": strong, "weak": weak}, episodes=400)
    assert seen_lineups == [["strong", "weak"], ["weak", "strong"]]
    first, second = result.matchups
    assert (first.policy, first.episodes, first.wins) == ("strong", 400, 300)
    assert (second.policy, second.wins) == ("weak", 100)
    low, high = first.interval()
    assert (low, high) == pytest.approx((0.7052, 0.7898), abs=1e-3)  # Wilson, n=400, p=0.75
    assert first.verdict == "above" and second.verdict == "below"
    assert first.points / first.hands == pytest.approx(7.5)
    assert result.ratings["strong"] - result.ratings["weak"] == pytest.approx(400 * np.log10(3), abs=15)


def test_a_policy_winning_its_fair_share_of_a_four_seat_table_rates_level(monkeypatch: pytest.MonkeyPatch) -> None:
    """Alone against three copies of an agent, a quarter of the wins is a level result: every
    losing seat counts, not each losing policy once."""
    game = make_game("mexican_train", num_players=4)

    def fair_match(game, agents, episodes, seed=0, batch_size=256, workers=1):
        records = [Record(agent.name) for agent in agents]
        for episode in range(episodes):
            for seat, record in enumerate(records):
                won = seat == episode % 4
                record.episodes += 1
                record.wins += won
                record.hands += 1
                record.per_episode_reward.append(1.0 if won else -1.0 / 3)
        return records

    monkeypatch.setattr(arena_module, "rotated_match", fair_match)
    one, other = make_agent("greedy", game), make_agent("random", game, seed=1)
    one.name, other.name = "one", "other"
    result = run_arena(game, {"one": one, "other": other}, episodes=400, opponents=["other"])
    assert result.ratings["one"] == pytest.approx(result.ratings["other"], abs=1)


def test_bradley_terry_recovers_elo_differences() -> None:
    beats = np.array([[0, 760, 910], [240, 0, 760], [90, 240, 0]], float)
    ratings = bradley_terry(["a", "b", "c"], beats)
    assert ratings["a"] - ratings["b"] == pytest.approx(200, abs=10)
    assert ratings["b"] - ratings["c"] == pytest.approx(200, abs=10)


def test_real_arena_with_a_network_policy(tmp_path: Path) -> None:
    game = make_game("draw", num_players=3)
    policy = PolicyAgent(PolicyNetwork(game.observation_size, game.num_actions, [16]), name="net")
    result = run_arena(game, {"net": policy, "greedy": make_agent("greedy", game)}, episodes=90)
    assert [m.episodes for m in result.matchups] == [90, 90]
    assert all(m.fair_share == pytest.approx(1 / 3) for m in result.matchups)
    result.write(tmp_path)
    assert "| net | greedy | 90 |" in (tmp_path / "arena.md").read_text()
    assert (tmp_path / "arena.csv").read_text().count("\n") == 3


def test_evaluate_command_prints_the_table(capsys: pytest.CaptureFixture) -> None:
    cli_main(["evaluate", "greedy", "random", "--variant", "block", "--games", "40"])
    out = capsys.readouterr().out
    assert "| greedy | random | 40 |" in out and "rating" in out


def test_evaluate_refuses_an_unknown_policy(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        cli_main(["evaluate", "greedy", "nobody", "--variant", "draw"])
    assert "'nobody' is neither an agent" in capsys.readouterr().err
