"""Checkpoints: weights in safetensors, the run's config and training state beside them.

A checkpoint is a folder::

    model.safetensors   the network's weights, with the variant, options and sizes as metadata
    config.yaml         the resolved training config of the run
    training_state.pt   optimizer, opponent pool, counters, generators, live games (for resume)

Only ``model.safetensors`` is needed to play; loading checks that it fits the game it is asked
to play, so a draw network never silently plays Mexican Train.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, safe_open, save_file

from agents.network import ACTION_HEADS, PolicyNetwork, network_for
from domino_env.game import Game
from training.config import ConfigError, TrainConfig, load_config, resume_changes

MODEL_FILE = "model.safetensors"
CONFIG_FILE = "config.yaml"
STATE_FILE = "training_state.pt"
PRETRAINED_DIR = Path(__file__).parent / "pretrained"


class CheckpointError(ValueError):
    """A checkpoint that is missing, damaged, or made for another game or network."""


def describe_game(game: Game) -> dict[str, str]:
    """What a network was trained on, stored with its weights."""
    return {
        "variant": game.name,
        "options": json.dumps(game.options, sort_keys=True),
        "observation_size": str(game.observation_size),
        "num_actions": str(game.num_actions),
    }


def save_model(folder: Path, network: PolicyNetwork, game: Game) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    metadata = {
        **describe_game(game),
        "hidden_sizes": json.dumps(network.hidden_sizes),
        "critic_inputs": str(network.critic_inputs),
        "action_head": network.action_head,
    }
    save_file(
        {k: v.detach().cpu().contiguous() for k, v in network.state_dict().items()}, folder / MODEL_FILE, metadata
    )


def model_path(path: str | Path) -> Path:
    """The weights file of a checkpoint given as its folder, its file, or a run folder (its
    latest checkpoint)."""
    path = Path(path)
    if path.is_file():
        return path
    if (path / MODEL_FILE).is_file():
        return path / MODEL_FILE
    latest = latest_checkpoint(path)
    if latest is not None:
        return latest / MODEL_FILE
    raise CheckpointError(f"no checkpoint at {path} (expected {MODEL_FILE}, a checkpoint folder or a run folder)")


def latest_checkpoint(run_dir: str | Path) -> Path | None:
    folders = sorted(Path(run_dir).glob("checkpoints/update_*"))
    complete = [f for f in folders if (f / MODEL_FILE).is_file() and (f / STATE_FILE).is_file()]
    return complete[-1] if complete else None


def read_metadata(path: str | Path) -> dict[str, str]:
    try:
        with safe_open(str(model_path(path)), framework="pt") as handle:
            return dict(handle.metadata() or {})
    except CheckpointError:
        raise
    except Exception as error:  # safetensors raises its own error types for damaged files
        raise CheckpointError(f"{path} is not a readable safetensors checkpoint: {error}") from None


def load_network(path: str | Path, game: Game) -> PolicyNetwork:
    """The network stored at ``path``, refusing one made for another game or configuration."""
    metadata = read_metadata(path)
    expected = describe_game(game)
    for key in ("variant", "options", "observation_size", "num_actions"):
        if metadata.get(key) != expected[key]:
            raise CheckpointError(
                f"checkpoint {path} was trained for {key}={metadata.get(key)!r}, "
                f"but this game has {key}={expected[key]!r}"
            )
    try:
        hidden = json.loads(metadata["hidden_sizes"])
    except (KeyError, ValueError):
        raise CheckpointError(f"checkpoint {path} does not record its network's hidden sizes") from None
    critic_inputs = metadata.get("critic_inputs", "0")  # older checkpoints: a shared critic
    if not critic_inputs.isdigit():
        raise CheckpointError(f"checkpoint {path} records critic_inputs={critic_inputs!r}, not a count")
    action_head = metadata.get("action_head", "flat")  # older checkpoints: one logit per action
    if action_head not in ACTION_HEADS:
        raise CheckpointError(f"checkpoint {path} records an unknown action_head={action_head!r}")
    network = network_for(game, hidden, int(critic_inputs), action_head)
    try:
        network.load_state_dict(load_file(str(model_path(path))))
    except RuntimeError as error:
        raise CheckpointError(f"checkpoint {path} does not fit its recorded network: {error}") from None
    return network


def initial_weights(
    path: str | Path, game: Game, hidden_sizes: list[int], critic_inputs: int = 0, action_head: str = "flat"
) -> dict[str, torch.Tensor]:
    """The weights a new run starts from (``run.init_from``: a checkpoint, run folder or shipped
    agent's name), refusing a checkpoint of another game or another network shape."""
    resolved = resolve_checkpoint(str(path))
    if resolved is None:
        raise CheckpointError(f"run.init_from: no checkpoint or pretrained agent named {str(path)!r}")
    network = load_network(resolved, game)
    if network.hidden_sizes != list(hidden_sizes):
        raise CheckpointError(
            f"run.init_from: {path} holds a network with hidden sizes {network.hidden_sizes}, but the config "
            f"asks for {list(hidden_sizes)}: set network.hidden_sizes={network.hidden_sizes}"
        )
    if network.critic_inputs != critic_inputs:
        critic = "privileged" if network.critic_inputs else "shared"
        raise CheckpointError(
            f"run.init_from: {path} holds a network with a {critic} critic: set network.critic={critic}"
        )
    if network.action_head != action_head:
        head = network.action_head
        raise CheckpointError(
            f"run.init_from: {path} holds a network with a {head!r} action head: set network.action_head={head}"
        )
    return network.state_dict()


def game_of_checkpoint(path: str | Path) -> tuple[str, dict[str, Any]]:
    """(variant, options) a checkpoint was trained on."""
    metadata = read_metadata(path)
    return metadata["variant"], json.loads(metadata["options"])


def pretrained_names() -> list[str]:
    return (
        sorted(p.name for p in PRETRAINED_DIR.iterdir() if (p / MODEL_FILE).is_file())
        if PRETRAINED_DIR.is_dir()
        else []
    )


def resolve_checkpoint(name_or_path: str) -> Path | None:
    """A shipped pretrained agent by name (``draw_2p`` or ``pretrained:draw_2p``), or a path."""
    name = name_or_path.removeprefix("pretrained:")
    if (PRETRAINED_DIR / name / MODEL_FILE).is_file():
        return PRETRAINED_DIR / name
    path = Path(name_or_path)
    return path if path.exists() else None


def save_training_state(folder: Path, state: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    torch.save(state, folder / STATE_FILE)


def load_training_state(folder: Path) -> dict[str, Any]:
    """The state saved with a checkpoint, its tensors on the CPU: a run trained on a GPU resumes
    on any machine (the optimizer moves its state to the network's device when it loads it)."""
    try:
        return torch.load(folder / STATE_FILE, weights_only=False, map_location="cpu")
    except FileNotFoundError:
        raise CheckpointError(f"{folder} has no {STATE_FILE}: it cannot be resumed") from None


def open_resume(
    run_dir: Path, config: TrainConfig, num_updates: int
) -> tuple[Path, dict[str, Any], dict[str, tuple[Any, Any]]]:
    """The latest checkpoint of ``run_dir``, its training state, and what ``config`` changes in
    the config the checkpoint was saved with ({key: (before, after)}).

    Refused, before anything is written: a run without a checkpoint, a change of anything but
    the schedule (:data:`training.config.SCHEDULE_KEYS`), and a run that has nothing left to do
    under ``config`` (all its updates done, or its time budget spent), with the key to raise.
    """
    folder = latest_checkpoint(run_dir)
    if folder is None:
        raise CheckpointError(f"{run_dir} has no complete checkpoint to resume from")
    changes = resume_changes(load_config(folder / CONFIG_FILE), config)
    state = load_training_state(folder)
    progress = state["progress"]
    if progress["update"] >= num_updates:
        raise ConfigError(
            f"{run_dir} has done all {num_updates} updates of ppo.total_env_steps={config.ppo.total_env_steps}: "
            f"give a larger ppo.total_env_steps to train on"
        )
    budget = config.run.time_limit_minutes
    if budget > 0 and progress["seconds"] >= 60 * budget:
        raise ConfigError(
            f"{run_dir} has used its run.time_limit_minutes={budget:g} ({progress['seconds'] / 60:.2f} minutes "
            f"trained): give a larger run.time_limit_minutes (0: no limit) to train on"
        )
    return folder, state, changes
