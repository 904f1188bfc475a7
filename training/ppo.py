"""Masked PPO with self-play on the batched engine, readable top to bottom.

The shape follows CleanRL's ppo.py, with what a multi-seat card game changes:

* **One network, many seats.** In each of ``num_envs`` games the learner plays some seats (all
  of them when the opponent drawn from the pool is the learner itself) and pool members play the
  rest. Every batched step, the rows whose acting seat is the learner's go through the network;
  the other rows go to their owners.
* **Each seat its own trajectory.** A transition's successor is the same seat's next decision in
  the same game, never the next row of the batch, and the reward of a hand is added to each
  learner seat's last decision when the hand ends. No perspective is mixed with another.
* **Masks everywhere.** The legal-action mask is stored with each transition and applied again in
  the update: illegal logits become a large negative finite number, and the entropy bonus counts
  legal actions only.
* **Nothing lost at rollout boundaries.** A decision whose successor has not happened yet when a
  rollout ends is carried into the next rollout instead of being trained on with a guessed
  target; decisions that precede it are bootstrapped from its value (the usual truncation).

``train``, at the end, is the loop; each of its steps is a function of the :class:`TrainingRun`
it carries from one update to the next (setup, head start, rollout, advantages, update,
evaluation, checkpoint), in the order they run.
"""

from __future__ import annotations

import dataclasses
import math
import shutil
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from numba import njit
from torch import nn
from tqdm import tqdm

from agents import make_agent
from agents.network import PolicyNetwork, legal_entropy, masked_distribution, network_for
from agents.policy import PolicyAgent
from agents.tournament import against_table
from domino_env import BatchedEnv, make_game
from domino_env.batched import thread_count
from domino_env.game import Game
from training import checkpoint as ckpt
from training.config import ConfigError, NetworkConfig, TrainConfig, save_config
from training.critic_inputs import critic_input_size, hidden_tiles
from training.distill import distill_round
from training.imitation import imitate
from training.improvement import improvement_chunks, improvement_seed, reached_bar, student_network
from training.logger import END_PHASE, MetricsLogger
from training.pool import SELF, OpponentPool


def pick_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


class Transitions:
    """The learner's decisions of one rollout, plus those carried over from the last one."""

    def __init__(self, capacity: int, observation_size: int, num_actions: int, critic_inputs: int = 0) -> None:
        self.obs = np.zeros((capacity, observation_size), np.float32)
        self.hidden = np.zeros((capacity, critic_inputs), np.float32)  # a privileged critic's inputs
        self.mask = np.zeros((capacity, num_actions), np.int8)
        self.action = np.zeros(capacity, np.int64)
        self.logprob = np.zeros(capacity, np.float32)
        self.value = np.zeros(capacity, np.float32)
        self.reward = np.zeros(capacity, np.float32)
        self.done = np.zeros(capacity, np.bool_)  # the episode ended after this decision
        self.next = np.full(capacity, -1, np.int64)  # the same seat's next decision, if in the buffer
        self.count = 0

    def add(self, obs, hidden, mask, action, logprob, value) -> np.ndarray:
        rows = np.arange(self.count, self.count + len(action))
        for field, values in zip(
            (self.obs, self.hidden, self.mask, self.action, self.logprob, self.value),
            (obs, hidden, mask, action, logprob, value),
            strict=True,
        ):
            field[rows] = values
        self.reward[rows] = 0.0
        self.done[rows] = False
        self.next[rows] = -1
        self.count += len(action)
        return rows

    def carry_pending(self, pending: np.ndarray) -> np.ndarray:
        """Move the ``pending`` decisions to the front and empty the rest; returns their new rows."""
        fields = (self.obs, self.hidden, self.mask, self.action, self.logprob, self.value, self.reward)
        kept = [field[pending].copy() for field in fields]
        for field, values in zip(fields, kept, strict=True):
            field[: len(pending)] = values
        self.done[: len(pending)] = False
        self.next[: len(pending)] = -1
        self.count = len(pending)
        return np.arange(len(pending))

    def state_dict(self) -> dict:
        n = self.count
        fields = ("obs", "hidden", "mask", "action", "logprob", "value", "reward")
        return {k: getattr(self, k)[:n].copy() for k in fields}

    def load_state_dict(self, state: dict) -> None:
        n = len(state["action"])
        for key, values in state.items():
            getattr(self, key)[:n] = values
        self.done[:n] = False
        self.next[:n] = -1
        self.count = n


@njit(cache=True)
def per_seat_gae(reward, value, done, next_index, pending, gamma, gae_lambda):
    """Generalized advantage estimates along each seat's own chain of decisions.

    Chains point forward (``next_index[i] > i``), so one backward pass suffices. A pending
    decision has no known future: its advantage is left at zero, which makes the decision
    before it bootstrap from its value.
    """
    n = reward.shape[0]
    advantage = np.zeros(n, np.float32)
    for i in range(n - 1, -1, -1):
        if pending[i]:
            continue
        following = next_index[i]
        next_value = 0.0
        next_advantage = 0.0
        if not done[i] and following >= 0:
            next_value = value[following]
            next_advantage = advantage[following]
        delta = reward[i] + gamma * next_value - value[i]
        advantage[i] = delta + gamma * gae_lambda * next_advantage
    return advantage


def explained_variance(predicted: np.ndarray, target: np.ndarray) -> float:
    """1 - Var(target - predicted) / Var(target): 1 for a perfect value head, 0 for one that
    predicts the mean, negative for one worse than that (NaN-free: 0 when the target is flat)."""
    spread = float(np.var(target))
    return 0.0 if spread == 0.0 else 1.0 - float(np.var(target - predicted)) / spread


def assign_seats(pool: OpponentPool, game, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """Who plays each seat of a new episode (SELF or a pool member) and the opponent it is
    measured against (SELF when the learner plays every seat). In partnerships the learner also
    plays its partner's seat, as a trained policy plays in evaluation: a partner drawn from the
    pool (a random player, say) taught it to play for a partner it will never have."""
    players = game.num_players
    opponent = pool.sample()
    if opponent == SELF:
        return np.full(players, SELF), SELF
    owners = np.full(players, opponent)
    learner = int(rng.integers(players))
    owners[learner] = SELF
    if game.partnerships:
        owners[(learner + 2) % players] = SELF
    return owners, opponent


def evaluate_strength(game, network: PolicyNetwork, config: TrainConfig, device) -> dict[str, float]:
    """Win rate of the current policy against tables of each baseline, seats rotated."""
    agent = PolicyAgent(network, "policy", deterministic=config.eval.deterministic, device=device)
    results = {}
    for name in config.pool.baselines:
        opponent = make_agent(name, game, seed=config.run.seed)
        record = against_table(game, agent, opponent, config.eval.games, seed=config.run.seed + 7919)
        results[f"eval/vs_{name}"] = record.win_rate
    return results


class Stopwatch:
    """Seconds spent in each part of an update (engine, acting, opponents, update, evaluation),
    so a run's metrics say where its time goes."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, part: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(part, time.perf_counter() - start)

    def add(self, part: str, seconds: float) -> None:
        self.seconds[part] = self.seconds.get(part, 0.0) + seconds

    def shares(self) -> dict[str, float]:
        """Each part's share of the timed seconds since the last call, then start again."""
        total = sum(self.seconds.values()) or 1.0
        shares = {f"time/{part}": seconds / total for part, seconds in self.seconds.items()}
        self.seconds = {}
        return shares


@dataclass
class Progress:
    update: int = 0
    env_steps: int = 0
    learner_steps: int = 0
    seconds: float = 0.0  # training time before this process (for resumed runs)


@dataclass
class TrainingRun:
    """What one update hands to the next: the learner and its optimizer, the opponents, the games
    in play and the learner's decisions still in the buffer. ``save_checkpoint`` writes every
    changing part of it, so a resumed run goes on exactly as the uninterrupted one would have."""

    config: TrainConfig
    run_dir: Path
    game: Game
    device: torch.device
    network: PolicyNetwork
    optimizer: torch.optim.Optimizer
    pool: OpponentPool
    envs: BatchedEnv
    buffer: Transitions
    rng: np.random.Generator  # draws the learner's seats
    progress: Progress
    obs: np.ndarray  # [num_envs, D] the acting seat's view in each game
    mask: np.ndarray  # [num_envs, A] its legal actions
    seat: np.ndarray  # [num_envs] the acting seat
    owners: np.ndarray  # [num_envs, players] SELF or the pool member playing each seat
    opponent: np.ndarray  # [num_envs] the pool member each game measures the learner against
    last: np.ndarray  # [num_envs, players] each learner seat's latest decision row (-1: none)
    episode_reward: np.ndarray  # [num_envs, players] each seat's reward so far this episode
    clock: Stopwatch  # where this process's time goes, shared out in each update's metrics
    started: float = 0.0  # time.perf_counter() when this process began training
    deadline: float = math.inf  # the run's time limit, a time.perf_counter() time

    @property
    def batch_size(self) -> int:
        return self.config.ppo.num_envs * self.config.ppo.rollout_steps

    @property
    def num_updates(self) -> int:
        return update_count(self.config)


def update_count(config: TrainConfig) -> int:
    """The PPO updates ``config`` asks for: its steps in batches of every game's rollout."""
    return max(1, config.ppo.total_env_steps // (config.ppo.num_envs * config.ppo.rollout_steps))


def network_shape(config: TrainConfig, game: Game) -> tuple[Game, list[int], int, str, str]:
    """The arguments of ``network_for``: the learner, its pool snapshots and ``run.init_from``'s
    weights all need the same shape."""
    critic_inputs = critic_input_size(game) if config.network.critic == "privileged" else 0
    network = config.network
    return game, network.hidden_sizes, critic_inputs, network.action_head, network.trunk


def start_run(config: TrainConfig, run_dir: Path) -> TrainingRun:
    """A new run seeded from ``run.seed``. The order of the draws below is part of what a seed
    means; a resumed run then replaces every one of them with its checkpoint's."""
    torch.manual_seed(config.run.seed)
    if config.run.torch_threads:
        torch.set_num_threads(config.run.torch_threads)
    device = pick_device(config.run.device)
    rng = np.random.default_rng(config.run.seed)
    game = make_game(config.env.variant, **config.env.options)
    try:  # the engine knows how many threads this machine allows; the message names the key to change
        num_threads = thread_count(config.run.engine_threads or None)
    except ValueError as error:
        raise ConfigError(f"run.engine_threads: {error}") from None
    envs = BatchedEnv(game, config.ppo.num_envs, num_threads)
    shape = network_shape(config, game)
    network = network_for(*shape).to(device)
    optimizer = torch.optim.Adam(network.parameters(), lr=config.ppo.learning_rate, eps=1e-5)
    pool = OpponentPool(config.pool, game, lambda: network_for(*shape), config.run.seed + 1)
    num_envs, players = config.ppo.num_envs, game.num_players
    capacity = num_envs * config.ppo.rollout_steps + num_envs * players  # a rollout and the decisions carried in
    buffer = Transitions(capacity, game.observation_size, game.num_actions, network.critic_inputs)
    obs, mask, seat = envs.reset(seed=config.run.seed)
    owners = np.zeros((num_envs, players), np.int64)
    opponent = np.zeros(num_envs, np.int64)
    for g in range(num_envs):
        owners[g], opponent[g] = assign_seats(pool, game, rng)
    return TrainingRun(
        config, run_dir, game, device, network, optimizer, pool, envs, buffer, rng, Progress(),
        obs=obs, mask=mask, seat=seat, owners=owners, opponent=opponent,
        last=np.full((num_envs, players), -1, np.int64),
        episode_reward=np.zeros((num_envs, players), np.float32), clock=Stopwatch(),
    )  # fmt: skip


def resume_run(run: TrainingRun) -> str:
    """Put ``run`` back where its latest checkpoint left it: weights, optimizer, pool, every
    random generator, the games in play and the decisions waiting for their successor. Only
    schedule keys may differ from the checkpoint's config (``config.SCHEDULE_KEYS``). Returns the
    line the run's log records the resume with.

    The checkpoint's files are data (training/checkpoint.py): the games' records are read with
    this engine's own record layout, each array must have the shape and dtype of the one it
    replaces, and a state that does not fit this run is refused (a CheckpointError)."""
    folder, saved, changes = ckpt.open_resume(run.run_dir, run.config, run.num_updates, run.envs.state.dtype)
    network = ckpt.load_network(folder, run.game)
    try:
        arrays = {
            name: _fitting(saved[name], getattr(run, name), name)
            for name in ("obs", "mask", "seat", "owners", "opponent", "last", "episode_reward")
        }
        env_state = _fitting(saved["env_state"], run.envs.state, "env_state")
        run.network.load_state_dict(network.state_dict())
        run.optimizer.load_state_dict(saved["optimizer"])
        run.pool.load_state_dict(saved["pool"])
        run.rng.bit_generator.state = saved["rng"]
        torch.set_rng_state(saved["torch_rng"])
        run.progress = Progress(**saved["progress"])
        run.envs.restore(env_state, arrays["mask"])
        for name, values in arrays.items():
            setattr(run, name, values)
        if not all(type(v) in (int, float) for v in vars(run.progress).values()):
            raise ValueError(f"progress counters that are not numbers: {vars(run.progress)}")
        if not all(type(i) is int and i >= 0 for i in run.pool.members) or not set(run.pool.snapshot_ids) <= set(
            run.pool.members
        ):
            raise ValueError("the opponent pool's members are not numbered as a pool numbers them")
        members = set(run.pool.members) | {SELF}
        if not set(run.owners.ravel().tolist()) <= members or not set(run.opponent.tolist()) <= members:
            raise ValueError("games are seated with players the opponent pool does not hold")
        pending = saved["pending"]
        if not isinstance(pending, dict) or set(pending) != set(run.buffer.state_dict()):
            raise ValueError("the pending decisions do not have the buffer's fields")
        for name, values in pending.items():
            _fitting(values, getattr(run.buffer, name)[: len(values)], f"pending/{name}")
        if len({len(values) for values in pending.values()}) != 1 or len(pending["action"]) > len(run.buffer.action):
            raise ValueError("the pending decisions do not fit the buffer")
        run.buffer.load_state_dict(pending)
        if run.last.min() < -1 or run.last.max() >= run.buffer.count:
            raise ValueError("the seats' latest decisions point outside the pending decisions")
    except (KeyError, TypeError, ValueError, IndexError, RuntimeError, OverflowError, AttributeError) as error:
        raise ckpt.CheckpointError(
            f"{folder}: the training state does not fit this run: {' '.join(str(error).split())[:300]}"
        ) from None
    changed = "".join(f"; {key}: {before} -> {after}" for key, (before, after) in changes.items())
    return f"resumed at update {run.progress.update} from {folder}{changed}"


def _fitting(saved: object, current: np.ndarray, name: str) -> np.ndarray:
    """``saved`` if it is an array of ``current``'s shape and dtype."""
    if not isinstance(saved, np.ndarray) or saved.shape != current.shape or saved.dtype != current.dtype:
        found = f"{saved.dtype} {saved.shape}" if isinstance(saved, np.ndarray) else type(saved).__name__
        raise ValueError(f"{name} is {found}, this run needs {current.dtype} {current.shape}")
    return saved


def setup_run(config: TrainConfig, run_dir: Path, resume: bool) -> tuple[TrainingRun, MetricsLogger]:
    """The run to train: new, new from ``run.init_from``'s weights, or resumed. Every refusal
    (a checkpoint that does not fit, a resume with nothing left to do) comes before anything is
    written to ``run_dir``. The run's clock starts here: a resumed run keeps what is left of its
    time budget."""
    run = start_run(config, run_dir)
    resumed = resume_run(run) if resume else ""
    if not resume and config.run.init_from:
        run.network.load_state_dict(ckpt.initial_weights(config.run.init_from, *network_shape(config, run.game)))
    run_dir.mkdir(parents=True, exist_ok=True)
    save_config(config, run_dir / ckpt.CONFIG_FILE)  # a resume records its schedule changes here
    logger = MetricsLogger(run_dir, keep_until=run.progress.env_steps if resume else -1)
    if resume:
        logger.note(resumed)
        shutil.rmtree(run_dir / ckpt.IMPROVED_DIR, ignore_errors=True)  # the policy it improved trains on
    run.started = time.perf_counter()
    if config.run.time_limit_minutes > 0:
        run.deadline = run.started + 60 * config.run.time_limit_minutes - run.progress.seconds
    return run, logger


def head_start(run: TrainingRun, logger: MetricsLogger) -> None:
    """Imitate ``imitation.teacher`` before PPO (training/imitation.py), on the run's time budget,
    and log how well the student fits and plays as the run's first row (step 0)."""
    config = run.config
    run.network.eval()
    fitted = imitate(
        run.game, run.network, config.imitation, config.ppo.vf_coef, config.ppo.num_envs, config.run.seed,
        run.device, log=tqdm.write, deadline=run.deadline,
    )  # fmt: skip
    logger.log(0, fitted | evaluate_strength(run.game, run.network, config, run.device))


def anneal_learning_rate(run: TrainingRun, now: float) -> None:
    """To zero at the end of the steps or of the time budget, whichever comes first."""
    config = run.config
    if not config.ppo.anneal_lr:
        return
    done_fraction = run.progress.update / run.num_updates
    if math.isfinite(run.deadline):
        done_fraction = max(done_fraction, 1.0 - (run.deadline - now) / (60 * config.run.time_limit_minutes))
    run.optimizer.param_groups[0]["lr"] = config.ppo.learning_rate * max(0.0, 1.0 - done_fraction)


def learner_acts(run: TrainingRun, rows: np.ndarray) -> np.ndarray:
    """The learner's sampled actions in games ``rows``; each decision goes into the buffer,
    linked as the successor of the same seat's previous one."""
    seats = run.seat[rows]
    with run.clock("acting"), torch.no_grad():
        hidden = hidden_tiles(run.game, run.envs.state, rows, seats, run.network.critic_inputs)
        logits, values = run.network(
            torch.as_tensor(run.obs[rows], device=run.device), torch.as_tensor(hidden, device=run.device)
        )
        distribution = masked_distribution(logits, torch.as_tensor(run.mask[rows], device=run.device))
        chosen = distribution.sample()
        logprobs = distribution.log_prob(chosen)
    actions = chosen.cpu().numpy()
    added = run.buffer.add(run.obs[rows], hidden, run.mask[rows], actions, logprobs.cpu().numpy(), values.cpu().numpy())
    previous = run.last[rows, seats]
    run.buffer.next[previous[previous >= 0]] = added[previous >= 0]
    run.last[rows, seats] = added
    return actions


def settle_rewards(run: TrainingRun, rewards: np.ndarray, done: np.ndarray) -> None:
    """A hand's reward goes to each learner seat's latest decision in that game. An episode's
    end closes its seats' chains, scores the learner against the opponent it met, and seats the
    game's next episode."""
    buffer, last, owners = run.buffer, run.last, run.owners
    paid = run.envs.hand_over[:, None] & (owners == SELF) & (last >= 0)
    np.add.at(buffer.reward, last[paid], rewards[paid])
    run.episode_reward += rewards
    for g in np.flatnonzero(done):
        buffer.done[last[g][last[g] >= 0]] = True
        last[g] = -1
        if run.opponent[g] != SELF:
            learner_seat = int(np.flatnonzero(owners[g] == SELF)[0])
            run.pool.record(run.opponent[g], 0.5 + 0.5 * float(np.sign(run.episode_reward[g, learner_seat])))
        run.episode_reward[g] = 0.0
        owners[g], run.opponent[g] = assign_seats(run.pool, run.game, run.rng)


def collect_rollout(run: TrainingRun) -> tuple[int, int]:
    """``rollout_steps`` batched steps: the learner acts where it owns the acting seat, pool
    members where they do. Returns the learner's decisions without and with a choice."""
    num_envs = run.config.ppo.num_envs
    run.network.eval()
    forced = decided = 0
    for _ in range(run.config.ppo.rollout_steps):
        acting_owner = run.owners[np.arange(num_envs), run.seat]
        actions = np.argmax(run.mask, axis=1)  # the only legal action, where there is no choice
        choosing = np.ones(num_envs, np.bool_) if run.config.ppo.learn_forced else run.mask.sum(1) > 1
        learner_rows = np.flatnonzero((acting_owner == SELF) & choosing)
        forced += int(((acting_owner == SELF) & ~choosing).sum())
        if learner_rows.size:
            actions[learner_rows] = learner_acts(run, learner_rows)
        for owner in np.unique(acting_owner[(acting_owner != SELF) & choosing]):
            rows = np.flatnonzero((acting_owner == owner) & choosing)
            with run.clock("opponents"):
                actions[rows] = run.pool.act(owner, run.envs.state, rows, run.obs[rows], run.mask[rows])

        with run.clock("engine"):
            run.obs, run.mask, run.seat, rewards, done = run.envs.step(actions)
        run.progress.env_steps += num_envs
        run.progress.learner_steps += len(learner_rows)
        decided += len(learner_rows)
        settle_rewards(run, rewards, done)
    return forced, decided


def compute_advantages(run: TrainingRun) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Advantages and returns of the buffer's decisions, and which of them are pending: a seat's
    latest decision, whose successor has not happened yet (trained on in the next rollout)."""
    buffer, last, ppo = run.buffer, run.last, run.config.ppo
    n = buffer.count
    pending = np.zeros(n, np.bool_)
    pending[last[last >= 0]] = True
    advantages = per_seat_gae(
        buffer.reward[:n], buffer.value[:n], buffer.done[:n], buffer.next[:n], pending, ppo.gamma, ppo.gae_lambda
    )
    return advantages, advantages + buffer.value[:n], pending


def update_policy(
    run: TrainingRun, ready: np.ndarray, advantages: np.ndarray, returns: np.ndarray
) -> dict[str, list[float]]:
    """PPO's clipped objective on the ``ready`` decisions, legal actions only, over
    ``update_epochs`` passes of ``num_minibatches`` minibatches. Returns each minibatch's losses."""
    ppo, network, optimizer, buffer, device = run.config.ppo, run.network, run.optimizer, run.buffer, run.device
    network.train()
    b_obs = torch.as_tensor(buffer.obs[ready], device=device)
    b_hidden = torch.as_tensor(buffer.hidden[ready], device=device)
    b_mask = torch.as_tensor(buffer.mask[ready], device=device)
    b_actions = torch.as_tensor(buffer.action[ready], device=device)
    b_logprobs = torch.as_tensor(buffer.logprob[ready], device=device)
    b_advantages = torch.as_tensor(advantages[ready], device=device)
    b_returns = torch.as_tensor(returns[ready], device=device)
    losses: dict[str, list[float]] = {"policy": [], "value": [], "entropy": [], "approx_kl": [], "clip_fraction": []}
    for _ in range(ppo.update_epochs):
        # num_minibatches chunks of (nearly) equal size: the number of ready decisions varies
        for mb in torch.randperm(len(ready), device=device).tensor_split(ppo.num_minibatches):
            if len(mb) == 0:  # fewer decisions than minibatches (tiny smoke runs)
                continue
            logits, new_values = network(b_obs[mb], b_hidden[mb])
            distribution = masked_distribution(logits, b_mask[mb])
            new_logprobs = distribution.log_prob(b_actions[mb])
            entropy = legal_entropy(distribution, b_mask[mb]).mean()
            log_ratio = new_logprobs - b_logprobs[mb]
            ratio = log_ratio.exp()
            with torch.no_grad():
                losses["approx_kl"].append(((ratio - 1) - log_ratio).mean().item())
                losses["clip_fraction"].append(((ratio - 1.0).abs() > ppo.clip_coef).float().mean().item())
            mb_advantages = b_advantages[mb]
            if ppo.norm_adv and len(mb) > 1:
                mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
            clipped = torch.clamp(ratio, 1 - ppo.clip_coef, 1 + ppo.clip_coef)
            policy_loss = torch.max(-mb_advantages * ratio, -mb_advantages * clipped).mean()
            value_loss = 0.5 * ((new_values - b_returns[mb]) ** 2).mean()
            loss = policy_loss - ppo.ent_coef * entropy + ppo.vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(network.parameters(), ppo.max_grad_norm)
            optimizer.step()
            losses["policy"].append(policy_loss.item())
            losses["value"].append(value_loss.item())
            losses["entropy"].append(entropy.item())
    return losses


def carry_pending(run: TrainingRun, pending: np.ndarray) -> None:
    """The decisions still waiting for their successor start the next rollout; each seat's
    latest-decision row follows its decision there."""
    pending_rows = np.flatnonzero(pending)
    remap = np.full(len(pending), -1, np.int64)
    remap[pending_rows] = run.buffer.carry_pending(pending_rows)
    last = run.last
    last[last >= 0] = remap[last[last >= 0]]


def evaluate(run: TrainingRun, network: PolicyNetwork | None = None) -> dict[str, float]:
    """The win rates of the run's policy (or of ``network``, the improvement phase's student)
    against the baselines, timed as the update's evaluation share."""
    network = run.network if network is None else network
    network.eval()
    with run.clock("evaluation"):
        return evaluate_strength(run.game, network, run.config, run.device)


def save_checkpoint(run: TrainingRun) -> Path:
    """The weights (loadable alone, as any shipped policy) and everything else ``resume_run``
    needs to go on exactly as this process would have; returns the checkpoint's folder."""
    folder = run.run_dir / "checkpoints" / f"update_{run.progress.update:06d}"
    ckpt.save_model(folder, run.network, run.game)
    save_config(run.config, folder / ckpt.CONFIG_FILE)
    seconds = run.progress.seconds + time.perf_counter() - run.started
    ckpt.save_training_state(
        folder,
        {
            "optimizer": run.optimizer.state_dict(),
            "pool": run.pool.state_dict(),
            "rng": run.rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(),
            "progress": vars(run.progress) | {"seconds": seconds},
            "env_state": run.envs.state.copy(),
            "obs": run.obs,
            "mask": run.mask,
            "seat": run.seat,
            "owners": run.owners,
            "opponent": run.opponent,
            "last": run.last,
            "episode_reward": run.episode_reward,
            "pending": run.buffer.state_dict(),
        },
    )
    return folder


def improvement_phase(run: TrainingRun, logger: MetricsLogger) -> Path:
    """After PPO, ``improve.positions`` of improvement steps over the policy
    (training/improvement.py), each chunk's figures logged at the run's last step and the
    strength checked again at the end. The steps fit the PPO policy itself, or with
    ``improve.student_trunk`` a new network over it; the PPO policy is then kept beside it
    (``ckpt.ROLLOUT_DIR``) to play its search's rollouts, which it does many times faster.
    Returns the improved policy's folder: its weights and config, no training state (a run
    resumed to train longer runs the phase again at its end)."""
    config, steps = run.config, run.progress.env_steps
    settings, seed = config.improve, improvement_seed(config.run.seed)
    student = student_network(run.game, settings, seed)
    network = run.network if student is None else student.to(run.device)
    bar = tqdm(total=settings.positions, desc="improvement: positions valued", unit="position")
    with bar, reached_bar(settings) as reached:
        chunks = improvement_chunks(
            run.game, network, settings, seed, run.device, max_grad_norm=config.ppo.max_grad_norm,
            player=None if student is None else run.network, advance=bar.update, log=tqdm.write,
            reached=None if reached is None else reached.update,
        )  # fmt: skip
        for stats in chunks:
            bar.set_postfix(loss=f"{stats['loss']:.4f}")
            logger.log(steps, {f"{END_PHASE}{key}": value for key, value in stats.items()})
    strength = {f"{END_PHASE}{key.removeprefix('eval/')}": value for key, value in evaluate(run, network).items()}
    logger.log(steps, strength)
    tqdm.write(
        "after the improvement phase: " + ", ".join(f"{k.removeprefix(END_PHASE)} {v:.2f}" for k, v in strength.items())
    )
    folder = run.run_dir / ckpt.IMPROVED_DIR
    ckpt.save_model(folder, network, run.game)
    save_config(config if student is None else student_config(config), folder / ckpt.CONFIG_FILE)
    if student is not None:  # the PPO policy, faster, plays the student's search rollouts
        ckpt.save_model(folder / ckpt.ROLLOUT_DIR, run.network, run.game)
        save_config(config, folder / ckpt.ROLLOUT_DIR / ckpt.CONFIG_FILE)
    return folder


def student_config(config: TrainConfig) -> TrainConfig:
    """``config`` with its network section describing the improvement phase's student, so the
    improved folder's config and weights agree (the critic of a student is the shared one)."""
    improve = config.improve
    network = NetworkConfig(
        hidden_sizes=list(improve.student_hidden_sizes), critic="shared", action_head=improve.student_head,
        trunk=improve.student_trunk,
    )  # fmt: skip
    return dataclasses.replace(config, network=network)


def train(config: TrainConfig, run_dir: Path, resume: bool = False) -> Path:
    """Train the configured policy into ``run_dir``; returns the folder of the policy it ends
    with (the last checkpoint's, or the improvement phase's)."""
    run, logger = setup_run(config, run_dir, resume)
    if config.imitation.teacher and not resume and not config.run.init_from:
        head_start(run, logger)
    progress, batch_size = run.progress, run.batch_size
    bar = tqdm(
        total=run.num_updates * batch_size, initial=progress.env_steps, unit="step", unit_scale=True, smoothing=0.1
    )
    strength: dict[str, float] = {}
    stop = False  # decided after each update, before its checkpoint, which then records why the run ended
    while not stop:
        update_start = time.perf_counter()
        anneal_learning_rate(run, update_start)
        forced, decided = collect_rollout(run)
        advantages, returns, pending = compute_advantages(run)
        ready = np.flatnonzero(~pending)
        explained = explained_variance(run.buffer.value[ready], returns[ready])  # before the update moves rows
        with run.clock("update"):
            losses = update_policy(run, ready, advantages, returns)
        carry_pending(run, pending)
        progress.update += 1

        elapsed = time.perf_counter() - update_start
        scalars = {f"loss/{name}": float(np.mean(values)) for name, values in losses.items() if values} | {
            "loss/explained_variance": explained,
            "rollout/forced_share": forced / max(1, forced + decided),
            "rollout/decisions": float(len(ready)),
            "speed/env_steps_per_second": batch_size / elapsed,
            "pool/snapshots": len(run.pool.snapshots),
            "learning_rate": run.optimizer.param_groups[0]["lr"],
        }
        scalars |= distill_round(run.game, run.network, run.optimizer, config, progress.update, run.deadline)
        if progress.update % config.pool.snapshot_every == 0:
            run.pool.add_snapshot(run.network, progress.update)
            run.pool.prune(run.owners)
        stop = progress.update >= run.num_updates or time.perf_counter() >= run.deadline
        if progress.update % config.eval.every == 0 or stop:
            strength = evaluate(run)
            scalars.update(strength)
        logger.log(progress.env_steps, scalars | run.clock.shares())
        if progress.update % config.run.checkpoint_every == 0 or stop:
            folder = save_checkpoint(run)
        bar.update(batch_size)
        bar.set_postfix(
            {"steps/s": f"{batch_size / elapsed:,.0f}"}
            | {k.removeprefix("eval/"): f"{v:.2f}" for k, v in strength.items()}
        )
    bar.close()
    if config.improve.positions:
        folder = improvement_phase(run, logger)
    logger.plot()
    logger.close()
    return folder
