"""The improvement phase after PPO (training/improvement.py): checked config keys, a run left as
it was when the phase is off, the improved policy as the run's final one when it is on, the same
result under a seed and after a resume, and chunk labels from the policy as fitted so far."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
import torch
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

from agents.network import network_for
from arena.cli import load_policy
from arena.cli import main as cli_main
from arena.ship import EVALUATION_SEED, training_seeds
from domino_env import make_game
from tests.test_training_resume import BATCH, metrics, new_run
from training import checkpoint as ckpt
from training import improvement
from training.config import ConfigError, ImprovementConfig, build_config, load_config

GAME = make_game("draw", num_players=2)
PHASE = ["improve.positions=48", "improve.chunk=24", "improve.opponent=heuristic", "improve.minibatch_size=16"]


def weights_at(path: Path) -> dict[str, torch.Tensor]:
    return ckpt.load_network(path, GAME).state_dict()


def same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_improve_keys_are_checked() -> None:
    assert build_config({}).improve.positions == 0  # off unless asked
    config = build_config({}, ["improve.positions=5000", "improve.opponent=heuristic", "improve.temperature=0.1"])
    assert (config.improve.positions, config.improve.opponent, config.improve.temperature) == (5000, "heuristic", 0.1)
    assert build_config({}, ["improve.labeller=pimc:simulations=64"]).improve.labeller == "pimc:simulations=64"
    assert build_config({}, ["improve.anchored=false"]).improve.anchored is False
    assert build_config({}, ["improve.workers=2"]).improve.workers == 2
    assert build_config({}, ["improve.driver=ismcts:simulations=200"]).improve.driver == "ismcts:simulations=200"
    for override, message in (
        ("improve.positions=-1", r"improve\.positions must be 0 \(no improvement phase\)"),
        ("improve.chunk=0", r"improve\.chunk must lie in \[1, 2000000\]"),
        ("improve.chunk=3000000", r"improve\.chunk must lie in \[1, 2000000\]"),
        ("improve.workers=0", r"improve\.workers must lie in \[1, 256\]"),
        ("improve.workers=100000", r"improve\.workers must lie in \[1, 256\]"),
        ("improve.temperature=0", r"improve\.temperature must be positive"),
        ("improve.opponent=nobody", r"improve\.opponent: .*nobody"),
        ("improve.driver=nobody", r"improve\.driver: .*nobody"),
        ("improve.labeller=heuristic", r"improve\.labeller: 'heuristic' does not value each move"),
        ("improve.labeller=pimc:simulations=0", r"improve\.labeller: .*simulations"),
        ("improve.temprature=1", r"unknown config key improve\.temprature; did you mean improve\.temperature\?"),
    ):
        with pytest.raises(ConfigError, match=message):
            build_config({}, [override])


def test_off_the_run_is_as_it_was_and_on_it_ends_with_the_improved_policy(tmp_path: Path) -> None:
    plain = new_run(tmp_path, f"ppo.total_env_steps={2 * BATCH}", name="plain")
    off = new_run(tmp_path, f"ppo.total_env_steps={2 * BATCH}", "improve.positions=0", *PHASE[1:], name="off")
    assert same(weights_at(plain), weights_at(off))
    assert not (off / ckpt.IMPROVED_DIR).exists()

    on = new_run(tmp_path, f"ppo.total_env_steps={2 * BATCH}", *PHASE, name="on")
    assert ckpt.model_path(on) == on / ckpt.IMPROVED_DIR / ckpt.MODEL_FILE  # what evaluate and ship read
    last = ckpt.latest_checkpoint(on)
    assert same(weights_at(last), weights_at(plain))  # PPO's part of the run is untouched
    assert not same(weights_at(on), weights_at(plain))
    rows = metrics(on)
    chunks = [row for row in rows if row.get("improve/chunk")]
    assert [float(row["improve/chunk"]) for row in chunks] == [1.0, 2.0]
    assert 30 <= float(chunks[-1]["improve/positions"]) <= 80  # about 48: whole episodes
    assert rows[-1]["improve/vs_random"] and rows[-1]["env_steps"] == chunks[-1]["env_steps"]  # checked again

    again = new_run(tmp_path, f"ppo.total_env_steps={2 * BATCH}", *PHASE, name="again")
    assert same(weights_at(on), weights_at(again))  # the same seed labels and fits the same


def test_a_resumed_run_improves_again_and_ends_where_the_uninterrupted_one_does(tmp_path: Path) -> None:
    whole = new_run(tmp_path, f"ppo.total_env_steps={2 * BATCH}", *PHASE, name="whole")
    parted = new_run(tmp_path, f"ppo.total_env_steps={BATCH}", *PHASE, name="parted")
    stale = weights_at(parted)
    cli_main(["train", "--resume", str(parted), f"ppo.total_env_steps={2 * BATCH}"])
    assert ckpt.latest_checkpoint(parted).name == "update_000002"
    assert not same(weights_at(parted), stale)
    assert same(weights_at(whole), weights_at(parted))
    phase = [[row["env_steps"] for row in metrics(run) if row.get("improve/chunk")] for run in (whole, parted)]
    assert phase[0] == phase[1] and len(phase[1]) == 2  # the first part's phase left the metrics with it
    tags = [  # and the TensorBoard scalars
        value.tag
        for path in sorted((parted / "tensorboard").glob("events.out.tfevents.*"))
        for event in EventFileLoader(str(path)).Load()
        for value in event.summary.value
    ]
    assert tags.count("improve/chunk") == 2


STUDENT = ["improve.student_trunk=attention", "improve.student_hidden_sizes=[16]", "improve.student_head=tiles"]


def test_student_keys_are_checked() -> None:
    config = build_config({}, ["improve.positions=100", *STUDENT])
    assert (config.improve.student_trunk, config.improve.student_hidden_sizes) == ("attention", [16])
    for overrides, message in (
        (["improve.student_trunk=lstm"], r"improve\.student_trunk must be empty or one of mlp, attention, got 'lstm'"),
        (["improve.positions=100", "improve.student_trunk=attention", "improve.student_hidden_sizes=[16,8]"],
         r"improve\.student_hidden_sizes=\[16, 8\]: an attention trunk has one width"),
        (["improve.positions=100", "improve.student_trunk=mlp"], r"student_hidden_sizes=\[\]: expected a list"),
        (["improve.positions=100", "improve.student_trunk=mlp", "improve.student_hidden_sizes=[8]",
          "improve.student_head=pairs"], r"improve\.student_head must be one of flat, tiles, afterstate"),
        (["improve.student_hidden_sizes=[16]"], r"improve\.student_hidden_sizes and improve\.student_head need"),
    ):  # fmt: skip
        with pytest.raises(ConfigError, match=message):
            build_config({}, overrides)
    # improve.positions=0 turns the phase off, its student with it (a shipped config's, on the command line)
    assert improvement.chunk_count(build_config({}, STUDENT).improve) == 0
    shipped = load_config("configs/draw_2p.yaml", ["improve.positions=0"])
    assert shipped.improve.student_trunk == "attention" and improvement.chunk_count(shipped.improve) == 0


def test_a_student_is_fitted_over_the_ppo_policy_and_ends_the_run(tmp_path: Path) -> None:
    """With ``improve.student_trunk`` the phase fits a new network of that shape; PPO's policy is
    left as it was, and the improved folder holds the student, with a config that describes it,
    and PPO's policy beside it, which plays the student's search rollouts."""
    plain = new_run(tmp_path, f"ppo.total_env_steps={2 * BATCH}", name="plain")
    run = new_run(tmp_path, f"ppo.total_env_steps={2 * BATCH}", *PHASE, *STUDENT, name="student")
    assert same(weights_at(ckpt.latest_checkpoint(run)), weights_at(plain))
    student = ckpt.load_network(run, GAME)
    assert (student.trunk_kind, student.hidden_sizes, student.action_head) == ("attention", [16], "tiles")
    saved = load_config(run / ckpt.IMPROVED_DIR / ckpt.CONFIG_FILE)
    assert (saved.network.trunk, saved.network.hidden_sizes, saved.network.action_head) == ("attention", [16], "tiles")
    chunks = [row for row in metrics(run) if row.get("improve/chunk")]
    assert [float(row["improve/chunk"]) for row in chunks] == [1.0, 2.0] and metrics(run)[-1]["improve/vs_random"]
    again = new_run(tmp_path, f"ppo.total_env_steps={2 * BATCH}", *PHASE, *STUDENT, name="again")
    assert same(weights_at(again), student.state_dict())  # the same seed builds and fits the same student
    rollout = ckpt.load_rollout_network(run, GAME)
    assert rollout is not None and same(rollout.state_dict(), weights_at(plain))
    searched = load_policy(f"{run}+search:simulations=8", GAME, seed=1)
    assert same(searched.network.state_dict(), student.state_dict()) and searched.rollout_network is not None
    assert same(searched.rollout_network.state_dict(), weights_at(plain))
    direct = ckpt.load_search_agent(run, GAME, simulations=8)  # the benchmarks' way to the same pair
    assert same(direct.network.state_dict(), student.state_dict())
    assert same(direct.rollout_network.state_dict(), weights_at(plain))
    tree = load_policy(f"{run}+search:tree=1", GAME, seed=1).tree
    assert tree.weights.attention.embedding.size == 0  # the tree's prior is the MLP rollout network's
    assert ckpt.load_rollout_network(plain, GAME) is None  # a run without a student searches with its own policy
    own = load_policy(f"{plain}+search", GAME, seed=1)
    assert own.rollout_network is own.network


def test_each_chunk_is_labelled_by_the_policy_as_fitted_so_far_unless_frozen(monkeypatch) -> None:
    labellers: list[dict[str, torch.Tensor]] = []
    real = improvement.label_positions

    def spy(game, network, *args, **kwargs):
        labellers.append(copy.deepcopy(network.state_dict()))
        return real(game, network, *args, **kwargs)

    monkeypatch.setattr(improvement, "label_positions", spy)
    settings = ImprovementConfig(positions=60, chunk=20, minibatch_size=16)
    for iterate in (True, False):
        labellers.clear()
        torch.manual_seed(0)
        network = network_for(GAME, [32])
        start = copy.deepcopy(network.state_dict())
        fitted = []
        for stats in improvement.improvement_chunks(GAME, network, settings, 3, torch.device("cpu"), iterate):
            fitted.append(copy.deepcopy(network.state_dict()))
            assert stats["loss"] > 0
        assert len(labellers) == len(fitted) == 3
        assert same(labellers[0], start)
        if iterate:
            assert all(same(labellers[k + 1], fitted[k]) for k in range(2))
        else:
            assert all(same(labeller, start) for labeller in labellers)
        assert not same(fitted[-1], start)


@pytest.mark.parametrize(("labeller", "workers"), [("", 1), ("pimc:simulations=8", 1), ("pimc:simulations=8", 2)])
def test_progress_counts_every_position_valued_and_says_when_each_fit_begins(labeller: str, workers: int) -> None:
    """The bar's ``update`` hears of each position as it is valued (by rollouts or by search,
    in this process or in forked workers), all of a chunk's before the line that its fit
    begins, and nothing after."""
    events: list[tuple[str, int]] = []
    settings = ImprovementConfig(positions=40, chunk=20, minibatch_size=16, labeller=labeller, workers=workers)
    chunks = improvement.improvement_chunks(
        GAME, network_for(GAME, [32]), settings, 3, torch.device("cpu"),
        advance=lambda count: events.append(("valued", count)), log=lambda line: events.append((line, 0)),
    )  # fmt: skip
    for stats in chunks:
        events.append(("fitted", int(stats["positions"])))
    lines = [i for i, (what, _) in enumerate(events) if what.startswith("improvement chunk")]
    fitted = [i for i, (what, _) in enumerate(events) if what == "fitted"]
    assert len(lines) == len(fitted) == 2 and all(line == fit - 1 for line, fit in zip(lines, fitted, strict=True))
    assert events[lines[0]][0].startswith("improvement chunk 1/2:")
    valued = [count for what, count in events if what == "valued"]
    assert all(count > 0 for count in valued)
    assert sum(count for what, count in events[: lines[0]] if what == "valued") == events[fitted[0]][1]
    assert sum(valued) == events[fitted[-1]][1]  # every position the two chunks fitted, each once


def test_a_driver_reaches_each_chunks_positions_in_its_own_games_and_says_so_as_it_plays() -> None:
    """With ``improve.driver`` the heuristic's own games reach the positions: each chunk hears of
    every recorded decision before its positions are valued, and the bar exists only then."""
    events: list[tuple[str, int]] = []
    settings = ImprovementConfig(positions=40, chunk=20, minibatch_size=16, driver="heuristic")
    chunks = improvement.improvement_chunks(
        GAME, network_for(GAME, [32]), settings, 3, torch.device("cpu"),
        advance=lambda count: events.append(("valued", count)), reached=lambda count: events.append(("reached", count)),
    )  # fmt: skip
    for stats in chunks:
        events.append(("fitted", int(stats["positions"])))
    kinds = [what for what, _ in events]
    first = kinds.index("fitted")
    assert kinds[0] == "reached" and kinds.index("valued") > kinds.index("reached")
    assert "reached" in kinds[first + 1 :]  # the second chunk's games come after the first chunk's fit
    assert sum(count for what, count in events[:first] if what == "reached") >= events[first][1]
    with improvement.reached_bar(settings) as bar:
        assert bar is not None
    with improvement.reached_bar(ImprovementConfig(positions=40)) as bar:
        assert bar is None


def test_the_phase_trains_on_deals_of_its_own() -> None:
    config = build_config({}, ["improve.positions=2500000", "improve.chunk=1000000", "run.seed=4"])
    seeds = training_seeds(config)
    chunks = {improvement.chunk_seed(improvement.improvement_seed(4), k) for k in range(3)}
    assert chunks <= seeds and len(seeds) == 4 and EVALUATION_SEED not in seeds


def test_a_search_labeller_values_the_chunks_and_unanchored_targets_drop_the_prior(monkeypatch) -> None:
    """With ``labeller`` every chunk's values come from that search agent (seeded from the
    phase's seed); with ``anchored`` false the targets are the values alone, the prior cleared
    before the fit sees them."""
    seen: list[tuple[object, object]] = []
    real_label, real_fit = improvement.label_positions, improvement.fit_improvement

    def label(game, network, *args, labeller=None, **kwargs):
        data = real_label(game, network, *args, labeller=labeller, **kwargs)
        seen.append((labeller, data))
        return data

    def fit(network, optimizer, data, *args, **kwargs):
        assert data is seen[-1][1]
        seen[-1] = (seen[-1][0], data.prior.copy())
        return real_fit(network, optimizer, data, *args, **kwargs)

    monkeypatch.setattr(improvement, "label_positions", label)
    monkeypatch.setattr(improvement, "fit_improvement", fit)
    for anchored in (True, False):
        seen.clear()
        settings = ImprovementConfig(
            positions=40, chunk=20, minibatch_size=16, labeller="pimc:simulations=8", anchored=anchored
        )
        torch.manual_seed(0)
        list(improvement.improvement_chunks(GAME, network_for(GAME, [32]), settings, 3, torch.device("cpu")))
        assert len(seen) == 2
        assert all(type(labeller).__name__ == "PIMCAgent" for labeller, _ in seen)
        assert all(prior.any() == anchored for _, prior in seen)


def test_a_rollout_network_for_another_game_is_refused(tmp_path: Path) -> None:
    """The rollout network beside a policy passes a checkpoint's checks against the game searched."""
    folder = tmp_path / "draw_policy"
    shutil.copytree(ckpt.PRETRAINED_DIR / "draw_2p", folder)
    assert load_policy(f"{folder}+search:simulations=8", GAME, seed=1).rollout_network.trunk_kind == "mlp"
    for name in (ckpt.MODEL_FILE, ckpt.CONFIG_FILE):
        shutil.copy(ckpt.PRETRAINED_DIR / "block_2p" / name, folder / ckpt.ROLLOUT_DIR / name)
    with pytest.raises(ckpt.CheckpointError, match="was trained for variant='block'"):
        load_policy(f"{folder}+search:simulations=8", GAME, seed=1)
