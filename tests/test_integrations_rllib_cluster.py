"""Ray RLlib on several machines, simulated: a Ray cluster of two nodes on this machine
(``ray.cluster_utils.Cluster``), the self-play config with one env runner on each node, a
checkpoint, and a restore that trains on, again on both nodes.

Kept small: one CPU and 80 MiB of object store per node, a 16-unit network, batches of 64 steps.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import ray
import torch
from ray.cluster_utils import Cluster
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

from arena.integrations.rllib import MAIN, self_play_config

NODE = {"num_cpus": 1, "object_store_memory": 80 * 1024 * 1024}  # an env runner takes one CPU
TINY = {"hidden": (16,), "train_batch_size": 64, "minibatch_size": 32, "num_epochs": 1}


@pytest.fixture(scope="module")
def two_nodes() -> Iterator[list[str]]:
    """A head and a worker node, each with one CPU; yields their node ids."""
    torch.set_num_threads(1)
    cluster = Cluster(initialize_head=True, head_node_args={**NODE, "include_dashboard": False})
    cluster.add_node(**NODE)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    try:
        yield [node["NodeID"] for node in ray.nodes() if node["Alive"]]
    finally:
        ray.shutdown()
        cluster.shutdown()


def runner_nodes(algo: Algorithm) -> list[str]:
    """The node each remote env runner lives on, as the runner itself reports it."""
    return algo.env_runner_group.foreach_env_runner(
        lambda runner: ray.get_runtime_context().get_node_id(), local_env_runner=False
    )


def test_self_play_trains_with_env_runners_on_two_nodes_checkpoints_and_restores(
    two_nodes: list[str], tmp_path: Path
) -> None:
    assert len(two_nodes) == 2
    config = self_play_config(
        "draw", {"illegal_action": "raise"}, num_snapshots=1, snapshot_every=1, num_env_runners=2, **TINY
    )
    algo = config.build_algo()
    try:
        assert sorted(runner_nodes(algo)) == sorted(two_nodes)  # one runner on each node
        for _ in range(2):
            result = algo.train()
        assert result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME] >= 2 * 64
        assert result["snapshot_refreshed"] == 0
        algo.save_to_path(tmp_path)
        trained = algo.learner_group.get_weights()[MAIN]
    finally:
        algo.stop()  # frees both CPUs for the restored algorithm's runners

    restored = Algorithm.from_checkpoint(tmp_path)
    try:
        assert restored.iteration == 2
        weights = restored.learner_group.get_weights()[MAIN]
        assert all(torch.equal(torch.as_tensor(trained[k]), torch.as_tensor(weights[k])) for k in trained)
        assert sorted(runner_nodes(restored)) == sorted(two_nodes)
        result = restored.train()
        assert restored.iteration == 3
        assert result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME] >= 3 * 64
    finally:
        restored.stop()
