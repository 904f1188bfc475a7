"""The training configuration: typed sections loaded from YAML, overridable from the command line.

Every hyperparameter lives here, in one object, so a run is fully described by the resolved
config it writes beside its checkpoints. Unknown keys and values of the wrong type are refused
with a message naming the key, so a typo never silently trains with a default.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agents.network import ACTION_HEADS, TRUNKS, network_shape_problem
from agents.policy_search import MAX_SIMULATIONS
from agents.workers import MAX_WORKERS, check_workers
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
DISTILL_TARGETS = ("values", "policy")  # training/distill.py: SearchLabels.targets
DISTILL_LABELS = ("search", "rollouts")  # training/distill.py, training/action_values.py


@dataclass
class NetworkConfig:
    hidden_sizes: list[int] = field(default_factory=lambda: [256, 256])
    # "shared": the value head shares the policy's trunk. "privileged": a critic of its own that
    # also reads the hidden tiles, in training only (training/critic_inputs.py).
    critic: str = "shared"
    # "flat": one logit per action from the trunk. "tiles": plus scores shared across tiles
    # (agents/network.py, TileScores). "afterstate": plus scores of what each play leaves.
    action_head: str = "flat"
    # "mlp": dense layers of hidden_sizes. "attention": a token per tile and attention across
    # them (agents/tile_attention.py), one layer per entry of hidden_sizes, all of one width.
    trunk: str = "mlp"


@dataclass
class PoolConfig:
    snapshot_every: int = 20  # updates between frozen snapshots of the learner
    max_snapshots: int = 16  # oldest snapshots leave the pool first
    self_play_share: float = 0.5  # episodes against the current policy itself
    baseline_share: float = 0.2  # episodes against the built-in agents and frozen policies below
    baselines: list[str] = field(default_factory=lambda: ["random", "greedy"])
    # Trained policies (shipped names such as draw_2p, or checkpoint paths) drawn with the
    # baselines, frozen: what a best response trains against (python -m arena exploit). They play
    # their most likely action, as the arena seats them, or sample their softmax (frozen_sample).
    frozen: list[str] = field(default_factory=list)
    frozen_sample: bool = False
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
class DistillConfig:
    """Search distilled into the policy during PPO (see :mod:`training.distill`); off by default."""

    every: int = 0  # updates between distillation rounds; 0: never (the run is plain PPO)
    # "search": each position labelled by policy+search at `simulations` rollouts, fitted to the
    # soft `target`. "rollouts": every legal move played out once from the real state, the logits
    # fitted by regression to log prior + values / temperature (training/action_values.py);
    # `simulations`, `target` and the coefficients are then unused.
    labels: str = "search"
    positions: int = 2_000  # unforced positions the current policy reaches, labelled per round
    simulations: int = 64  # rollouts of policy+search per labelled position
    temperature: float = 0.1  # softmax temperature over the searched action values
    # "values": softmax(values / temperature). "policy": the labelling policy's probabilities
    # times exp(values / temperature), so that where search's values are close the policy keeps
    # its own preference and only a clear difference moves it.
    target: str = "values"
    epochs: int = 1  # passes over a round's positions
    minibatch_size: int = 256
    policy_coef: float = 1.0  # weight of the cross-entropy to the search's soft targets
    value_coef: float = 0.5  # weight of the value head's squared error to the best action's value
    eval_games: int = 0  # games against pimc and ismcts after each round (0: none)
    eval_simulations: int = 50  # their budget


MAX_IMPROVEMENT_CHUNK = 2_000_000  # positions held at once, each with its observation and every move's value


@dataclass
class ImprovementConfig:
    """The optional last phase after PPO (see :mod:`training.improvement`); off by default."""

    positions: int = 0  # unforced positions labelled in all; 0: no phase (the run ends with PPO)
    chunk: int = 1_000_000  # positions labelled and fitted at once, each chunk by the policy so far
    opponent: str = ""  # an agent (heuristic) whose table the positions and rollouts are played against
    labeller: str = ""  # a search agent (pimc:simulations=64) valuing the moves; "": one rollout from the real state
    driver: str = ""  # an agent (ismcts:simulations=2000) whose own games reach the positions; "": the policy's
    temperature: float = 0.05  # logits fitted to log prior + values / temperature
    anchored: bool = True  # false: to values / temperature alone, the labels' preference replacing the policy's
    epochs: int = 2  # passes over each chunk
    learning_rate: float = 3e-4
    anneal: bool = False  # the rate falls to zero over each chunk's passes
    minibatch_size: int = 1024
    # "": the phase fits the policy PPO trained. mlp or attention: it fits a new network of that
    # trunk, student_hidden_sizes and student_head from scratch to one step over the PPO policy,
    # which, frozen, reaches the positions and anchors the targets; the run ends with the new one.
    student_trunk: str = ""
    student_hidden_sizes: list[int] = field(default_factory=list)
    student_head: str = "flat"
    # Processes sharing a labeller's searches, one a core (agents/workers.py). The labels are the
    # same for any number above one, and differ from one process's by the searches' draws.
    workers: int = 1


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
    distill: DistillConfig = field(default_factory=DistillConfig)
    improve: ImprovementConfig = field(default_factory=ImprovementConfig)
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
            raise ConfigError(f"{key} must be an integer, got {value!r}{_allowed(key)}")
        return value
    if annotation is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{key} must be a number, got {value!r}{_allowed(key)}")
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


def _allowed(key: str) -> str:
    """The allowed range of a numeric field, for a message refusing a value of the wrong type."""
    return f"; the allowed range is {BOUNDS[key].interval}" if key in BOUNDS else ""


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


@dataclass(frozen=True)
class Range:
    """The values a numeric config field may take: from ``low`` to ``high``, ``low`` itself
    excluded when ``low_open``; ``says`` is how a refusal puts it (default: the interval)."""

    low: float
    high: float = math.inf
    low_open: bool = False
    says: str = ""

    def __contains__(self, value: float) -> bool:
        above = value > self.low if self.low_open else value >= self.low
        return above and value <= self.high

    @property
    def interval(self) -> str:
        def number(x: float) -> str:
            return str(x) if isinstance(x, int) else f"{x:g}"

        closing = "]" if math.isfinite(self.high) else ")"
        return f"{'(' if self.low_open else '['}{number(self.low)}, {number(self.high)}{closing}"

    def refusal(self, key: str, value: float) -> str | None:
        """Why ``value`` is refused for ``key`` (naming the key, the value and the range), or None."""
        if isinstance(value, float) and not math.isfinite(value):
            return f"{key} must be a finite number, got {value!r}; the allowed range is {self.interval}"
        if value in self:
            return None
        says = self.says or f"lie in {self.interval}"
        allowed = "" if self.interval in says else f"; the allowed range is {self.interval}"
        return f"{key} must {says}, got {value!r}{allowed}"


POSITIVE = Range(0, low_open=True, says="be positive")
NON_NEGATIVE = Range(0, says="be 0 or more")
FRACTION = Range(0, 1)
THREADS = Range(0, says="be 0 (the default) or a positive number of threads")

BOUNDS: dict[str, Range] = {
    "ppo.num_envs": POSITIVE,
    "ppo.rollout_steps": POSITIVE,
    "ppo.total_env_steps": POSITIVE,
    "ppo.learning_rate": POSITIVE,
    "ppo.gamma": FRACTION,
    "ppo.gae_lambda": FRACTION,
    "ppo.update_epochs": POSITIVE,
    "ppo.num_minibatches": POSITIVE,
    "ppo.clip_coef": POSITIVE,
    "ppo.ent_coef": NON_NEGATIVE,
    "ppo.vf_coef": NON_NEGATIVE,
    "ppo.max_grad_norm": POSITIVE,
    "imitation.rounds": POSITIVE,
    "imitation.decisions_per_round": POSITIVE,
    "imitation.epochs": POSITIVE,
    "imitation.minibatch_size": POSITIVE,
    "imitation.learning_rate": POSITIVE,
    "pool.snapshot_every": POSITIVE,
    "pool.max_snapshots": POSITIVE,
    "pool.self_play_share": FRACTION,
    "pool.baseline_share": FRACTION,
    "pool.pfsp_power": NON_NEGATIVE,
    "pool.result_decay": FRACTION,
    "distill.every": Range(0, says="be 0 (no distillation) or a positive number of updates"),
    "distill.positions": POSITIVE,
    "distill.simulations": Range(1, MAX_SIMULATIONS),
    "distill.temperature": POSITIVE,
    "distill.epochs": POSITIVE,
    "distill.minibatch_size": POSITIVE,
    "distill.policy_coef": NON_NEGATIVE,
    "distill.value_coef": NON_NEGATIVE,
    "distill.eval_games": NON_NEGATIVE,
    "distill.eval_simulations": POSITIVE,
    "improve.positions": Range(0, says="be 0 (no improvement phase) or a positive number of positions"),
    "improve.chunk": Range(1, MAX_IMPROVEMENT_CHUNK),
    "improve.temperature": POSITIVE,
    "improve.epochs": POSITIVE,
    "improve.learning_rate": POSITIVE,
    "improve.minibatch_size": POSITIVE,
    "improve.workers": Range(1, MAX_WORKERS),
    "eval.every": POSITIVE,
    "eval.games": POSITIVE,
    "run.seed": Range(0, 2**63 - 1),
    "run.checkpoint_every": POSITIVE,
    "run.time_limit_minutes": Range(0, says="be 0 (no limit) or a positive number of minutes"),
    "run.torch_threads": THREADS,
    "run.engine_threads": THREADS,
}
"""The range of every numeric field (``network.hidden_sizes`` is checked on its own)."""


def _validate_student(improve: ImprovementConfig) -> None:
    """The improvement phase's new network, if it asks for one: a shape that can be built, and
    no sizes or head without a trunk to give them to. With ``improve.positions: 0`` the phase is
    off, its student with it, so that a config's phase can be turned off by that one override."""
    if not improve.student_trunk:
        if improve.student_hidden_sizes or improve.student_head != "flat":
            raise ConfigError("improve.student_hidden_sizes and improve.student_head need improve.student_trunk")
        return
    if improve.student_trunk not in TRUNKS:
        raise ConfigError(
            f"improve.student_trunk must be empty or one of {', '.join(TRUNKS)}, got {improve.student_trunk!r}"
        )
    problem = network_shape_problem(improve.student_hidden_sizes, improve.student_trunk)
    if problem:
        raise ConfigError(f"improve.student_hidden_sizes={improve.student_hidden_sizes}: {problem}")
    if improve.student_head not in ACTION_HEADS:
        heads = ", ".join(ACTION_HEADS)
        raise ConfigError(f"improve.student_head must be one of {heads}, got {improve.student_head!r}")


def _validate(config: TrainConfig) -> None:
    """Ranges and cross-field rules that types alone do not catch."""
    for key, bounds in BOUNDS.items():
        section, name = key.split(".")
        refusal = bounds.refusal(key, getattr(getattr(config, section), name))
        if refusal:
            raise ConfigError(refusal)
    shares = config.pool.self_play_share + config.pool.baseline_share
    if shares > 1.0 + 1e-9:
        raise ConfigError(f"pool.self_play_share and pool.baseline_share must sum to at most 1, got {shares:g}")

    if config.network.trunk not in TRUNKS:
        raise ConfigError(f"network.trunk must be one of {', '.join(TRUNKS)}, got {config.network.trunk!r}")
    problem = network_shape_problem(config.network.hidden_sizes, config.network.trunk)
    if problem:
        raise ConfigError(f"network.hidden_sizes={config.network.hidden_sizes}: {problem}")
    _validate_student(config.improve)
    if config.improve.workers > 1:
        try:
            check_workers("improve.workers", config.improve.workers)
        except ValueError as error:
            raise ConfigError(str(error)) from None
    if config.network.critic not in CRITICS:
        raise ConfigError(f"network.critic must be one of {', '.join(CRITICS)}, got {config.network.critic!r}")
    if config.distill.labels not in DISTILL_LABELS:
        labels = ", ".join(DISTILL_LABELS)
        raise ConfigError(f"distill.labels must be one of {labels}, got {config.distill.labels!r}")
    if config.distill.target not in DISTILL_TARGETS:
        targets = ", ".join(DISTILL_TARGETS)
        raise ConfigError(f"distill.target must be one of {targets}, got {config.distill.target!r}")
    if config.network.action_head not in ACTION_HEADS:
        heads = ", ".join(ACTION_HEADS)
        raise ConfigError(f"network.action_head must be one of {heads}, got {config.network.action_head!r}")
    if config.run.device not in ("auto", "cpu", "cuda") and not config.run.device.startswith("cuda:"):
        raise ConfigError(f"run.device must be auto, cpu or cuda[:N], got {config.run.device!r}")
    try:
        game = make_game(config.env.variant, **config.env.options)
    except (TypeError, ValueError) as error:
        raise ConfigError(f"env: {error}") from None
    from agents.registry import check_labeller, make_agent  # every pool agent and the teacher must be buildable

    named = [(f"pool.baselines[{i}]", name) for i, name in enumerate(config.pool.baselines)]
    named.append(("improve.opponent", config.improve.opponent or "random"))
    named.append(("improve.labeller", config.improve.labeller or "pimc"))
    named.append(("improve.driver", config.improve.driver or "random"))
    for key, spec in [*named, ("imitation.teacher", config.imitation.teacher or "random")]:
        try:
            agent = make_agent(spec, game)
            if key == "improve.labeller":
                check_labeller(agent, spec)
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
    if not all(part.strip() for part in key.split(".")):
        raise ConfigError(f"override {text!r} is not of the form section.key=value")
    if not raw.strip():
        return key.strip().split("."), ""
    try:
        value = load_yaml(raw)
    except yaml.YAMLError as error:
        raise ConfigError(f"override {text!r} is not a YAML value: {' '.join(str(error).split())}") from None
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
        raise ConfigError(f"config file {path} {'is not a file' if path.exists() else 'does not exist'}")
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
