"""Checkpoints: weights in safetensors, the run's config and training state beside them.

A checkpoint is a folder::

    model.safetensors            the network's weights, with the variant, options and sizes as metadata
    config.yaml                  the resolved training config of the run
    training_state.safetensors   the training state's arrays: optimizer moments, pool snapshots'
                                 weights, live games, pending decisions, generator states of torch
    training_state.json          everything else, with a reference for each array: counters, numpy
                                 generators, pool scores, optimizer hyper-parameters (for resume)

Every file is plain data, read without running anything it holds: playing, evaluating, resuming
or branching from a run folder someone shares runs no code of theirs. (Earlier versions pickled the training state into
``training_state.pt``; such a checkpoint still plays, and is refused for resume.) What a file
claims is checked before anything is built from it: the network's sizes are bounded and must
match the shapes of the tensors the file holds, weights must be finite, and the live games'
records must have this game's own record layout.

Only ``model.safetensors`` is needed to play; loading checks that it fits the game it is asked
to play, so a draw network never silently plays Mexican Train.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from safetensors.torch import load_file, safe_open, save_file

from agents.network import ACTION_HEADS, TRUNKS, PolicyNetwork, network_for, network_shape_problem
from agents.weights_file import expected_tensors, one_line, read_checked_weights
from domino_env import make_game
from domino_env.game import Game
from training.config import ConfigError, TrainConfig, load_config, resume_changes
from training.critic_inputs import critic_input_size

if TYPE_CHECKING:
    from agents.policy_search import PolicySearchAgent

MODEL_FILE = "model.safetensors"
CONFIG_FILE = "config.yaml"
STATE_TENSORS = "training_state.safetensors"
STATE_FILE = "training_state.json"  # written last: a checkpoint with it is complete
LEGACY_STATE_FILE = "training_state.pt"  # a pickle, written by earlier versions: never loaded
STATE_FORMAT = "domino_env training state"
STATE_VERSION = 1
PRETRAINED_DIR = Path(__file__).parent / "pretrained"
IMPROVED_DIR = "checkpoints/improved"  # a run's policy after its improvement phase (weights and config only)
# Beside a policy's weights: a faster network that plays its search's rollouts (NAME+search). The
# improvement phase leaves there the PPO policy a slower student was fitted over.
ROLLOUT_DIR = "rollout"


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
        "trunk": network.trunk_kind,
    }
    save_file(
        {k: v.detach().cpu().contiguous() for k, v in network.state_dict().items()}, folder / MODEL_FILE, metadata
    )


def model_path(path: str | Path) -> Path:
    """The weights file of a checkpoint given as its folder, its file, or a run folder (the
    policy it ended with: its improvement phase's when it had one, else its latest checkpoint)."""
    path = Path(path)
    if path.is_file():
        return path
    if (path / MODEL_FILE).is_file():
        return path / MODEL_FILE
    if (path / IMPROVED_DIR / MODEL_FILE).is_file():
        return path / IMPROVED_DIR / MODEL_FILE
    latest = latest_checkpoint(path)
    if latest is not None:
        return latest / MODEL_FILE
    raise CheckpointError(f"no checkpoint at {path} (expected {MODEL_FILE}, a checkpoint folder or a run folder)")


def load_rollout_network(path: str | Path, game: Game) -> PolicyNetwork | None:
    """The network that plays the rollouts of the policy at ``path`` when searched
    (:data:`ROLLOUT_DIR` beside its weights, checked as :func:`load_network` checks any
    checkpoint), or None when it has none and plays its own rollouts."""
    folder = model_path(path).parent / ROLLOUT_DIR
    return load_network(folder, game) if (folder / MODEL_FILE).is_file() else None


def load_search_agent(
    path: str | Path, game: Game, network: PolicyNetwork | None = None, **options: Any
) -> PolicySearchAgent:
    """``NAME+search`` over the policy at ``path`` (``network``, when the caller loaded it
    already): its network gives the prior at the root and its :func:`load_rollout_network`, where
    it has one, plays the rollouts. Every caller builds it here, since an attention policy
    searched without its rollout network costs some twenty times as much a move. ``options`` are
    :class:`~agents.policy_search.PolicySearchAgent`'s; a bad one raises ValueError."""
    from agents.policy_search import PolicySearchAgent  # numba: only where search is played

    network = load_network(path, game) if network is None else network
    return PolicySearchAgent(game, network, rollout_network=load_rollout_network(path, game), **options)


def latest_checkpoint(run_dir: str | Path) -> Path | None:
    folders = sorted(Path(run_dir).glob("checkpoints/update_*"))
    complete = [f for f in folders if (f / MODEL_FILE).is_file() and _has_state(f)]
    return complete[-1] if complete else None


def _has_state(folder: Path) -> bool:
    """Its training state was written (a legacy pickle counts: the weights beside it still play,
    and a resume says why it refuses it)."""
    return ((folder / STATE_TENSORS).is_file() and (folder / STATE_FILE).is_file()) or (
        folder / LEGACY_STATE_FILE
    ).is_file()


def read_metadata(path: str | Path) -> dict[str, str]:
    try:
        with safe_open(str(model_path(path)), framework="pt") as handle:
            return dict(handle.metadata() or {})
    except CheckpointError:
        raise
    except Exception as error:  # safetensors raises its own error types for damaged files
        raise CheckpointError(f"{path} is not a readable safetensors checkpoint: {one_line(error)}") from None


def _network_options(path: str | Path, metadata: dict[str, str], game: Game) -> tuple[list[int], int, str, str]:
    """The hidden sizes, critic inputs, action head and trunk a checkpoint's metadata records,
    each checked for type and range before anything is built from it."""
    try:
        hidden = json.loads(metadata["hidden_sizes"])
    except (KeyError, ValueError, RecursionError):
        raise CheckpointError(f"checkpoint {path} does not record its network's hidden sizes") from None
    critic_inputs = metadata.get("critic_inputs", "0")  # older checkpoints: a shared critic
    privileged = critic_input_size(game)
    if critic_inputs not in ("0", str(privileged)):
        raise CheckpointError(
            f"checkpoint {path} records critic_inputs={_clip(critic_inputs)}: this game's critic reads 0 "
            f"(shared) or {privileged} (privileged) inputs"
        )
    action_head = metadata.get("action_head", "flat")  # older checkpoints: one logit per action
    if action_head not in ACTION_HEADS:
        raise CheckpointError(f"checkpoint {path} records an unknown action_head={_clip(action_head)}")
    trunk = metadata.get("trunk", "mlp")  # older checkpoints: dense layers
    if trunk not in TRUNKS:
        raise CheckpointError(f"checkpoint {path} records an unknown trunk={_clip(trunk)}")
    problem = network_shape_problem(hidden, trunk)
    if problem:
        raise CheckpointError(
            f"checkpoint {path} records hidden_sizes={_clip(metadata['hidden_sizes'])} for its {trunk} trunk: {problem}"
        )
    return hidden, int(critic_inputs), action_head, trunk


def _clip(text: str, limit: int = 60) -> str:
    """``repr(text)``, cut short: an error message quotes what a file says, not all of it."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


PAYOFF_OPTIONS = ("reward",)  # change what a seat is paid, never what it sees or may do


def _played_options(text: str | None) -> dict[str, Any] | None:
    """The options a checkpoint's metadata records, less those that only change the payoff: a
    policy trained on ``reward="points"`` plays the same game as one trained on the win, so it
    may sit at a table that counts wins. None where the text is not a JSON mapping."""
    try:
        options = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(options, dict):
        return None
    return {key: value for key, value in options.items() if key not in PAYOFF_OPTIONS}


def load_network(path: str | Path, game: Game) -> PolicyNetwork:
    """The network stored at ``path``, refusing one made for another game or configuration
    (the reward aside, which changes neither the observation nor the actions).

    Nothing is allocated before the file is known to fit: the metadata's sizes are bounded, and
    the tensors the file's header lists must be exactly those of the network the metadata
    describes (names, shapes, dtypes), checked on a network without storage. Weights that are
    not finite are refused."""
    metadata = read_metadata(path)
    expected = describe_game(game)
    for key in ("variant", "options", "observation_size", "num_actions"):
        fits = (
            _played_options(metadata.get(key)) == _played_options(expected[key])
            if key == "options"
            else metadata.get(key) == expected[key]
        )
        if not fits:
            raise CheckpointError(
                f"checkpoint {path} was trained for {key}={_clip(str(metadata.get(key)))}, "
                f"but this game has {key}={expected[key]!r}"
            )
    shape = _network_options(path, metadata, game)
    with torch.device("meta"):  # shapes only, no storage
        expected = expected_tensors(network_for(game, *shape))
    weights = read_checked_weights(model_path(path), expected, CheckpointError, f"checkpoint {path}")
    network = network_for(game, *shape)
    try:
        network.load_state_dict(weights)
    except RuntimeError as error:
        raise CheckpointError(f"checkpoint {path} does not fit its recorded network: {one_line(error)}") from None
    return network


def initial_weights(
    path: str | Path,
    game: Game,
    hidden_sizes: list[int],
    critic_inputs: int = 0,
    action_head: str = "flat",
    trunk: str = "mlp",
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
    if network.trunk_kind != trunk:
        kind = network.trunk_kind
        raise CheckpointError(f"run.init_from: {path} holds a network with an {kind} trunk: set network.trunk={kind}")
    return network.state_dict()


def game_of_checkpoint(path: str | Path) -> tuple[str, dict[str, Any]]:
    """(variant, options) a checkpoint was trained on."""
    metadata = read_metadata(path)
    try:
        variant, options = metadata["variant"], json.loads(metadata["options"])
    except (KeyError, ValueError, RecursionError):
        raise CheckpointError(f"checkpoint {path} does not record the game it was trained on") from None
    if not isinstance(options, dict):
        raise CheckpointError(f"checkpoint {path} records options={_clip(metadata['options'])}, not a mapping")
    try:  # the game checks its variant and options (names, ranges) before building anything
        make_game(variant, **options)
    except (ValueError, TypeError) as error:
        raise CheckpointError(
            f"checkpoint {path} was trained on a game this version cannot make: {one_line(error)[:300]}"
        ) from None
    return variant, options


def load_policy(name_or_path: str) -> tuple[Path, Game, PolicyNetwork]:
    """A shipped agent (by name) or a checkpoint, with the game it was trained on and its network:
    what a script that measures a policy starts from. A name that is neither, or a checkpoint
    that cannot be read, raises a one-line CheckpointError."""
    folder = resolve_checkpoint(name_or_path)
    if folder is None:
        raise CheckpointError(f"{name_or_path!r} is neither a shipped agent nor a checkpoint or run folder")
    variant, options = game_of_checkpoint(folder)
    game = make_game(variant, **options)
    return folder, game, load_network(folder, game)


def pretrained_names() -> list[str]:
    """The shipped agents' names: the subfolders of :data:`PRETRAINED_DIR` named by a plain
    identifier that hold weights."""
    if not PRETRAINED_DIR.is_dir():
        return []
    return sorted(p.name for p in PRETRAINED_DIR.iterdir() if _shipped_folder(p.name) is not None)


PRETRAINED_PREFIX = "pretrained:"


def _shipped_folder(name: str) -> Path | None:
    """The folder of the shipped agent ``name``, or None. A shipped name is a plain identifier
    (``[A-Za-z0-9_]+``) naming a folder directly inside :data:`PRETRAINED_DIR`, links resolved:
    never a path (``../x``, ``/x``) that would lead elsewhere."""
    if not (name.isascii() and name.replace("_", "").isalnum()):
        return None
    root = PRETRAINED_DIR.resolve()
    folder = (root / name).resolve()
    if folder.parent != root or not (folder / MODEL_FILE).is_file():
        return None
    return PRETRAINED_DIR / name


def resolve_checkpoint(name_or_path: str) -> Path | None:
    """A shipped pretrained agent by name (``draw_2p`` or ``pretrained:draw_2p``), or a path
    (None where there is nothing). After ``pretrained:`` only a shipped name is accepted (a
    CheckpointError otherwise); a plain identifier without the prefix is a shipped agent when
    there is one of that name, and every other text is the user's own path."""
    if name_or_path.startswith(PRETRAINED_PREFIX):
        name = name_or_path.removeprefix(PRETRAINED_PREFIX)
        folder = _shipped_folder(name)
        if folder is None:
            shipped = ", ".join(pretrained_names()) or "none"
            raise CheckpointError(
                f"{name_or_path!r}: no shipped agent of that name (a shipped name is a plain identifier "
                f"[A-Za-z0-9_]+ inside {PRETRAINED_DIR}); shipped: {shipped}"
            )
        return folder
    folder = _shipped_folder(name_or_path)
    if folder is not None:
        return folder
    path = Path(name_or_path)
    return path if path.exists() else None


# ------------------------------------------------------------------------------------- training state
#
# The training state is a tree of dicts, lists and tuples whose leaves are numbers, strings,
# torch tensors and numpy arrays. It is written as two files of plain data: the tensors and
# arrays in safetensors, and the tree in JSON with a reference in place of each of them. Tagged
# JSON objects (their one key starts with "$") stand for what JSON lacks:
#
#     {"$tensor": name}                           a torch tensor of training_state.safetensors
#     {"$array": name}                            a numpy array, stored there as a tensor
#     {"$records": name, "shape": [...], "dtype": descr}
#                                                 a numpy structured array (the engine's game
#                                                 records), stored as its bytes; read back only
#                                                 with the caller's own dtype, whose description
#                                                 must equal the recorded one (never parsed)
#     {"$number": value, "dtype": name}           a numpy scalar of a plain numeric dtype
#     {"$tuple": [...]}                           a tuple
#     {"$dict": [[key, value], ...]}              a dict whose keys are not all plain strings
#                                                 (the optimizer's and the pool's int keys)

_NUMBER_DTYPES = {
    name: np.dtype(name)
    for name in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")
}


def encode_state(state: Any) -> tuple[dict[str, torch.Tensor], Any]:
    """``state`` as (tensors to store in safetensors, a JSON-able tree referring to them)."""
    tensors: dict[str, torch.Tensor] = {}

    def name_for(path: str) -> str:
        name, n = path or "root", 1
        while name in tensors:
            name, n = f"{path}#{n}", n + 1
        return name

    def join(path: str, key: Any) -> str:
        return f"{path}/{key}" if path else str(key)

    def encode(value: Any, path: str) -> Any:
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, torch.Tensor):
            name = name_for(path)
            tensors[name] = value.detach().cpu().contiguous().clone()
            return {"$tensor": name}
        if isinstance(value, np.ndarray):
            name = name_for(path)
            if value.dtype.names is not None:
                tensors[name] = torch.from_numpy(np.frombuffer(value.tobytes(), np.uint8).copy())
                return {"$records": name, "shape": list(value.shape), "dtype": str(value.dtype.descr)}
            if value.dtype.name not in _NUMBER_DTYPES or not value.dtype.isnative:
                raise TypeError(f"training state {path}: cannot store a numpy array of dtype {value.dtype}")
            tensors[name] = torch.from_numpy(np.array(value, copy=True, order="C"))
            return {"$array": name}
        if isinstance(value, np.generic):
            if value.dtype.name not in _NUMBER_DTYPES:
                raise TypeError(f"training state {path}: cannot store a numpy scalar of dtype {value.dtype}")
            return {"$number": value.item(), "dtype": value.dtype.name}
        if isinstance(value, tuple):
            return {"$tuple": [encode(v, join(path, i)) for i, v in enumerate(value)]}
        if isinstance(value, list):
            return [encode(v, join(path, i)) for i, v in enumerate(value)]
        if isinstance(value, dict):
            if all(isinstance(k, str) and not k.startswith("$") for k in value):
                return {k: encode(v, join(path, k)) for k, v in value.items()}
            return {"$dict": [[encode(k, join(path, "key")), encode(v, join(path, k))] for k, v in value.items()]}
        raise TypeError(f"training state {path}: cannot store a {type(value).__name__}")

    return tensors, encode(state, "")


def decode_state(tensors: dict[str, torch.Tensor], tree: Any, records_dtype: np.dtype | None = None) -> Any:
    """The state :func:`encode_state` encoded. A structured array comes back with
    ``records_dtype`` if its recorded description is that dtype's, and is refused otherwise;
    without ``records_dtype``, as its raw bytes (uint8, one row of ``itemsize`` bytes per record).
    Raises ValueError (or TypeError, KeyError) on anything :func:`encode_state` does not write."""

    def tensor(name: Any) -> torch.Tensor:
        if not isinstance(name, str) or name not in tensors:
            raise ValueError(f"refers to a tensor {name!r} that the tensors file does not hold")
        return tensors[name]

    def decode(value: Any) -> Any:
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, list):
            return [decode(v) for v in value]
        if not isinstance(value, dict):
            raise TypeError(f"unexpected {type(value).__name__}")
        tags = [k for k in value if k.startswith("$")]
        if not tags:
            return {k: decode(v) for k, v in value.items()}
        tag = tags[0]
        if tag == "$tensor" and len(value) == 1:
            return tensor(value[tag])
        if tag == "$array" and len(value) == 1:
            return tensor(value[tag]).numpy()
        if tag == "$records" and set(value) == {tag, "shape", "dtype"}:
            return records(tensor(value[tag]), value["shape"], value["dtype"])
        if tag == "$number" and set(value) == {tag, "dtype"}:
            if value["dtype"] not in _NUMBER_DTYPES or not isinstance(value[tag], (bool, int, float)):
                raise ValueError(f"unexpected number {value!r}")
            return _NUMBER_DTYPES[value["dtype"]].type(value[tag])
        if tag == "$tuple" and len(value) == 1 and isinstance(value[tag], list):
            return tuple(decode(v) for v in value[tag])
        if tag == "$dict" and len(value) == 1 and isinstance(value[tag], list):
            pairs = value[tag]
            if not all(isinstance(pair, list) and len(pair) == 2 for pair in pairs):
                raise ValueError("a $dict holds [key, value] pairs")
            return {decode(k): decode(v) for k, v in pairs}  # an unhashable key raises TypeError
        raise ValueError(f"unexpected tagged object with keys {sorted(value)[:4]}")

    def records(raw: torch.Tensor, shape: Any, description: Any) -> np.ndarray:
        if not (isinstance(shape, list) and all(type(n) is int and n >= 0 for n in shape) and len(shape) <= 8):
            raise ValueError(f"records of shape {shape!r}")
        if raw.dtype != torch.uint8 or raw.dim() != 1:
            raise ValueError("records are stored as their bytes, a flat uint8 tensor")
        if records_dtype is None:
            return raw.numpy().reshape(*shape, -1) if raw.numel() else raw.numpy()
        if description != str(records_dtype.descr):
            raise ValueError(
                f"game records of another layout than this version's (written by another version of the engine?): "
                f"{str(description)[:80]}"
            )
        if raw.numel() != math.prod(shape) * records_dtype.itemsize:
            raise ValueError(f"game records of shape {shape} need {math.prod(shape) * records_dtype.itemsize} bytes")
        return np.frombuffer(raw.numpy().tobytes(), records_dtype).reshape(shape).copy()

    return decode(tree)


def save_training_state(folder: Path, state: dict[str, Any]) -> None:
    """``state`` as ``training_state.safetensors`` (its tensors and arrays) and
    ``training_state.json`` (the rest), each written whole or not at all; the JSON file last."""
    folder.mkdir(parents=True, exist_ok=True)
    tensors, tree = encode_state(state)
    document = {"format": STATE_FORMAT, "version": STATE_VERSION, "state": tree}
    for name, write in (
        (STATE_TENSORS, lambda path: save_file(tensors, path)),
        (STATE_FILE, lambda path: Path(path).write_text(json.dumps(document, indent=1))),
    ):
        partial = folder / f"{name}.partial"
        write(str(partial))
        os.replace(partial, folder / name)


def load_training_state(folder: Path, records_dtype: np.dtype | None = None) -> dict[str, Any]:
    """The state saved with a checkpoint, its tensors on the CPU: a run trained on a GPU resumes
    on any machine (the optimizer moves its state to the network's device when it loads it).
    The engine's game records come back with ``records_dtype`` (see :func:`decode_state`).

    Both files are plain data (safetensors, JSON); a legacy pickled ``training_state.pt`` is
    refused unread."""
    folder = Path(folder)
    if not (folder / STATE_FILE).is_file() or not (folder / STATE_TENSORS).is_file():
        if (folder / LEGACY_STATE_FILE).is_file():
            raise CheckpointError(
                f"{folder} holds a {LEGACY_STATE_FILE} written by an older version (a pickle, which could run code): "
                f"it cannot be resumed safely; start a new run from its weights with --init-from {folder}"
            )
        raise CheckpointError(f"{folder} has no {STATE_FILE} and {STATE_TENSORS}: it cannot be resumed")
    try:
        document = json.loads((folder / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise CheckpointError(f"{folder / STATE_FILE} is not a readable JSON file: {one_line(error)}") from None
    if (
        not isinstance(document, dict)
        or document.get("format") != STATE_FORMAT
        or document.get("version") != STATE_VERSION
        or not isinstance(document.get("state"), dict)
    ):
        raise CheckpointError(f"{folder / STATE_FILE} is not a training state of version {STATE_VERSION}")
    try:
        tensors = load_file(str(folder / STATE_TENSORS))
    except Exception as error:  # safetensors raises its own error types for damaged files
        raise CheckpointError(
            f"{folder / STATE_TENSORS} is not a readable safetensors file: {one_line(error)}"
        ) from None
    try:
        return decode_state(tensors, document["state"], records_dtype)
    except (ValueError, TypeError, KeyError, RecursionError) as error:
        raise CheckpointError(f"{folder / STATE_FILE}: {one_line(error)}") from None


def open_resume(
    run_dir: Path, config: TrainConfig, num_updates: int, records_dtype: np.dtype | None = None
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
    state = load_training_state(folder, records_dtype)
    progress = state.get("progress")
    if not (
        isinstance(progress, dict)
        and type(progress.get("update")) is int
        and isinstance(progress.get("seconds"), (int, float))
    ):
        raise CheckpointError(f"{folder / STATE_FILE} does not record the run's progress")
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
