"""The training configuration: typed sections loaded from YAML, overridable from the command line.

Every hyperparameter lives here, in one object, so a run is fully described by the resolved
config it writes beside its checkpoints. Unknown keys and values of the wrong type are refused
with a message naming the key, so a typo never silently trains with a default.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agents.network import ACTION_HEADS
from domino_env import make_game


class ConfigError(ValueError):
    """A config file or override that does not describe a valid run."""


class NumberLoader(yaml.SafeLoader):
    """YAML's safe loader, reading scientific notation without a dot (``1e-4``, ``3E-5``, ``1e4``)
    as a number. YAML 1.1 makes those strings, so ``ppo.learning_rate=1e-4`` would be refused."""


NumberLoader.yaml_implicit_resolvers = {k: list(v) for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
NumberLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)


def load_yaml(text: str | typing.IO[str]) -> Any:
    """A YAML document (a string or an open file) with numbers in any usual notation."""
    return yaml.load(text, Loader=NumberLoader)  # NumberLoader is a SafeLoader: no arbitrary objects


@dataclass
class EnvConfig:
    variant: str = "draw"
    options: dict[str, Any] = field(default_factory=dict)  # rule options of domino_env.make


@dataclass
class PPOConfig:
    num_envs: int = 256  # games stepped together by the batched engine
    rollout_steps: int = 32  # batched steps per rollout (each yields one decision per game)
    total_env_steps: int = 5_000_000  # decisions of all seats, the learner's and opponents'
    learning_rate: float = 3e-4
    anneal_lr: bool = True
    gamma: float = 1.0  # hands are short and the reward comes at their end
    gae_lambda: float = 0.95
    update_epochs: int = 4
    num_minibatches: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    norm_adv: bool = True
    # Decisions with a single legal action skip the network and the buffer: their log-probability
    # is 0 whatever the weights, so they carry no policy gradient, and with gamma = 1 leaving them
    # out of each seat's chain changes no return. True trains on them too (slower; ablations).
    learn_forced: bool = False


CRITICS = ("shared", "privileged")


@dataclass
class NetworkConfig:
    hidden_sizes: list[int] = field(default_factory=lambda: [256, 256])
    # "shared": the value head shares the policy's trunk. "privileged": a critic of its own that
    # also reads the hidden tiles, in training only (training/critic_inputs.py).
    critic: str = "shared"
    # "flat": one logit per action from the trunk. "tiles": plus scores shared across tiles
    # (training/network.py, TileScores).
    action_head: str = "flat"


@dataclass
class PoolConfig:
    snapshot_every: int = 20  # updates between frozen snapshots of the learner
    max_snapshots: int = 16  # oldest snapshots leave the pool first
    self_play_share: float = 0.5  # episodes against the current policy itself
    baseline_share: float = 0.2  # episodes against the built-in agents below
    baselines: list[str] = field(default_factory=lambda: ["random", "greedy"])
    pfsp_power: float = 2.0  # weight (1 - win rate) ** power: harder opponents more often
    result_decay: float = 0.95  # moving average of the learner's results per opponent


@dataclass
class ImitationConfig:
    """The optional head start before PPO (see :mod:`training.imitation`)."""

    teacher: str = ""  # an agent name (heuristic, pimc, ...); empty: PPO starts from random weights
    rounds: int = 3  # 1: behaviour cloning only; more: DAgger rounds on the student's own positions
    decisions_per_round: int = 50_000  # unforced teacher-labelled decisions recorded per round
    epochs: int = 4  # passes over all decisions so far after each round
    minibatch_size: int = 512
    learning_rate: float = 1e-3


@dataclass
class EvalConfig:
    every: int = 25  # updates between strength checks shown in the progress bar
    games: int = 256
    deterministic: bool = True  # the evaluated policy plays its most likely action


@dataclass
class RunConfig:
    name: str = ""  # default: the config file's name and the seed
    dir: str = "runs"
    seed: int = 1
    device: str = "auto"  # auto: CUDA when present, else CPU
    checkpoint_every: int = 50  # updates
    time_limit_minutes: float = 0.0  # stop early when reached; 0 means no limit
    torch_threads: int = 0  # 0: torch's default
    engine_threads: int = 0  # threads of the batched engine (0: every core numba may use; more: refused at start)
    init_from: str = ""  # a checkpoint (or shipped agent) whose weights a new run starts from


@dataclass
class TrainConfig:
    env: EnvConfig = field(default_factory=EnvConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    imitation: ImitationConfig = field(default_factory=ImitationConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    run: RunConfig = field(default_factory=RunConfig)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


SCHEDULE_KEYS = frozenset(
    {
        "ppo.total_env_steps",
        "run.time_limit_minutes",
        "run.checkpoint_every",
        "run.device",
        "run.torch_threads",
        "run.engine_threads",
        "eval.every",
        "eval.games",
    }
)
"""The keys a resumed run may change: how long it trains, how often it evaluates and saves, and
where it computes. None changes what is learned from a given state, so the resumed run is the
same run, longer or shorter. Anything else (the game, the network, PPO's settings, the pool, the
seed) would make the checkpoint's state belong to another experiment: that is a new run, started
from the checkpoint's weights with ``--init-from``.

``ppo.total_env_steps`` and ``run.time_limit_minutes`` also move the end of the learning-rate
anneal: from the resumed update on, the rate is the one a run planned with the new length would
have at that point (so it rises again when a run is extended)."""


def resume_changes(saved: TrainConfig, config: TrainConfig) -> dict[str, tuple[Any, Any]]:
    """``{key: (before, after)}`` for every field ``config`` changes in the run ``saved``
    describes; a ConfigError naming the keys if any is not in :data:`SCHEDULE_KEYS`."""
    before, after = _flatten(saved.to_dict()), _flatten(config.to_dict())
    changes = {key: (before[key], after[key]) for key in after if before.get(key) != after[key]}
    refused = sorted(set(changes) - SCHEDULE_KEYS)
    if refused:
        raise ConfigError(
            f"a resumed run cannot change {', '.join(refused)}: that trains something else. Start a new run "
            f"from its checkpoint's weights instead (train --config FILE --init-from CHECKPOINT ...); "
            f"a resume may change only {', '.join(sorted(SCHEDULE_KEYS))}"
        )
    return changes


def _flatten(values: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"ppo": {"gamma": 1.0}}`` -> ``{"ppo.gamma": 1.0}``; rule options stay one value."""
    flat = {}
    for key, value in values.items():
        if isinstance(value, dict) and key != "options":
            flat |= _flatten(value, f"{prefix}{key}.")
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _check_value(key: str, value: Any, annotation: Any) -> Any:
    """``value`` converted to ``annotation``'s type, or a ConfigError naming ``key``."""
    origin = typing.get_origin(annotation)
    if annotation is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{key} must be true or false, got {value!r}")
        return value
    if annotation is int:
        if isinstance(value, float) and value.is_integer():  # 1e4, 2.5e6
            return int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key} must be an integer, got {value!r}")
        return value
    if annotation is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{key} must be a number, got {value!r}")
        return float(value)
    if annotation is str:
        if not isinstance(value, str):
            raise ConfigError(f"{key} must be a string, got {value!r}")
        return value
    if origin is list:
        (item,) = typing.get_args(annotation)
        if not isinstance(value, list):
            raise ConfigError(f"{key} must be a list, got {value!r}")
        return [_check_value(f"{key}[{i}]", v, item) for i, v in enumerate(value)]
    if origin is dict or annotation is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{key} must be a mapping, got {value!r}")
        return dict(value)
    if isinstance(annotation, types.UnionType):
        raise ConfigError(f"{key}: unsupported field type {annotation}")
    raise ConfigError(f"{key}: unsupported field type {annotation}")


def _fill(section: Any, values: dict[str, Any], prefix: str) -> None:
    hints = typing.get_type_hints(type(section))
    names = [f.name for f in dataclasses.fields(section)]
    for key, value in values.items():
        if key not in names:
            close = difflib.get_close_matches(key, names, n=1)
            hint = f"; did you mean {prefix}{close[0]}?" if close else f"; keys are {', '.join(names)}"
            raise ConfigError(f"unknown config key {prefix}{key}{hint}")
        current = getattr(section, key)
        if dataclasses.is_dataclass(current):
            if not isinstance(value, dict):
                raise ConfigError(f"{prefix}{key} must be a mapping of its own keys, got {value!r}")
            _fill(current, value, f"{prefix}{key}.")
        else:
            setattr(section, key, _check_value(f"{prefix}{key}", value, hints[key]))


def _validate(config: TrainConfig) -> None:
    """Ranges and cross-field rules that types alone do not catch."""
    p = config.ppo
    positive = {
        "ppo.num_envs": p.num_envs,
        "ppo.rollout_steps": p.rollout_steps,
        "ppo.total_env_steps": p.total_env_steps,
        "ppo.update_epochs": p.update_epochs,
        "ppo.num_minibatches": p.num_minibatches,
        "ppo.learning_rate": p.learning_rate,
        "pool.snapshot_every": config.pool.snapshot_every,
        "pool.max_snapshots": config.pool.max_snapshots,
        "eval.every": config.eval.every,
        "eval.games": config.eval.games,
        "run.checkpoint_every": config.run.checkpoint_every,
    }
    for key, value in positive.items():
        if value <= 0:
            raise ConfigError(f"{key} must be positive, got {value}")
    for key, value in {"ppo.gamma": p.gamma, "ppo.gae_lambda": p.gae_lambda}.items():
        if not 0.0 <= value <= 1.0:
            raise ConfigError(f"{key} must lie in [0, 1], got {value}")
    shares = config.pool.self_play_share + config.pool.baseline_share
    if min(config.pool.self_play_share, config.pool.baseline_share) < 0 or shares > 1.0 + 1e-9:
        raise ConfigError(f"pool.self_play_share and pool.baseline_share must be >= 0 and sum to <= 1, got {shares}")
    if not config.network.hidden_sizes or min(config.network.hidden_sizes) <= 0:
        raise ConfigError(f"network.hidden_sizes must be positive sizes, got {config.network.hidden_sizes}")
    if config.network.critic not in CRITICS:
        raise ConfigError(f"network.critic must be one of {', '.join(CRITICS)}, got {config.network.critic!r}")
    if config.network.action_head not in ACTION_HEADS:
        heads = ", ".join(ACTION_HEADS)
        raise ConfigError(f"network.action_head must be one of {heads}, got {config.network.action_head!r}")
    threads = {"run.torch_threads": config.run.torch_threads, "run.engine_threads": config.run.engine_threads}
    for key, value in threads.items():
        if value < 0:
            raise ConfigError(f"{key} must be 0 (the default) or a positive number of threads, got {value}")
    if config.run.device not in ("auto", "cpu", "cuda") and not config.run.device.startswith("cuda:"):
        raise ConfigError(f"run.device must be auto, cpu or cuda[:N], got {config.run.device!r}")
    if config.imitation.teacher:
        for key in ("rounds", "decisions_per_round", "epochs", "minibatch_size", "learning_rate"):
            if getattr(config.imitation, key) <= 0:
                raise ConfigError(f"imitation.{key} must be positive, got {getattr(config.imitation, key)}")
    try:
        game = make_game(config.env.variant, **config.env.options)
    except (TypeError, ValueError) as error:
        raise ConfigError(f"env: {error}") from None
    from agents import make_agent  # every pool agent and the teacher must be buildable for this game

    named = [(f"pool.baselines[{i}]", name) for i, name in enumerate(config.pool.baselines)]
    for key, spec in [*named, ("imitation.teacher", config.imitation.teacher or "random")]:
        try:
            make_agent(spec, game)
        except ValueError as error:
            off = "; empty (imitation.teacher=) trains without a head start" if key == "imitation.teacher" else ""
            raise ConfigError(f"{key}: {error}{off}") from None


def parse_override(text: str) -> tuple[list[str], Any]:
    """``"ppo.learning_rate=1e-3"`` -> (["ppo", "learning_rate"], 0.001); values read as YAML.

    An empty value is the empty string, not YAML's null: ``imitation.teacher=`` is how a command
    line says "no teacher" (a shell drops the quotes of ``imitation.teacher=""``)."""
    if "=" not in text:
        raise ConfigError(f"override {text!r} is not of the form section.key=value")
    key, raw = text.split("=", 1)
    if not raw.strip():
        return key.strip().split("."), ""
    try:
        value = load_yaml(raw)
    except yaml.YAMLError as error:
        raise ConfigError(f"override {text!r}: {error}") from None
    return key.strip().split("."), value


def _nest(path: list[str], value: Any) -> dict[str, Any]:
    for key in reversed(path):
        value = {key: value}
    return value


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict) and key != "options":
            merged[key] = _merge(merged[key], value)
        elif key == "options" and isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def build_config(values: dict[str, Any], overrides: list[str] = ()) -> TrainConfig:
    """A checked TrainConfig from a mapping plus ``section.key=value`` overrides."""
    for text in overrides:
        values = _merge(values, _nest(*parse_override(text)))
    config = TrainConfig()
    _fill(config, values, "")
    _validate(config)
    return config


def load_config(path: str | Path, overrides: list[str] = ()) -> TrainConfig:
    """Read a YAML config file; its name becomes the run's default name."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist")
    try:  # a safe loader: a tag that would build an object (!!python/...) is an error, never run
        with path.open(encoding="utf-8") as handle:
            values = load_yaml(handle) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path} is not a readable YAML config: {' '.join(str(error).split())}") from None
    if not isinstance(values, dict):
        raise ConfigError(f"{path} must hold a mapping of sections, got {type(values).__name__}")
    config = build_config(values, overrides)
    if not config.run.name:
        config.run.name = f"{path.stem}_seed{config.run.seed}"
    return config


def save_config(config: TrainConfig, path: str | Path) -> None:
    with Path(path).open("w") as handle:
        yaml.safe_dump(config.to_dict(), handle, sort_keys=False)
