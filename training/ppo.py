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
"""

from __future__ import annotations

import math
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np
import torch
from numba import njit
from torch import nn
from tqdm import tqdm

from agents import make_agent
from agents.network import PolicyNetwork, legal_entropy, masked_distribution, network_for
from agents.policy import PolicyAgent
from agents.tournament import rotated_match
from domino_env import BatchedEnv, make_game
from training import checkpoint as ckpt
from training.config import TrainConfig, save_config
from training.critic_inputs import critic_input_size, hidden_tiles
from training.imitation import imitate
from training.logger import MetricsLogger
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
        seated = [agent] + [opponent] * (game.num_players - 1)
        if game.partnerships:
            seated = [agent, opponent, agent, opponent]
        records = rotated_match(game, seated, config.eval.games, seed=config.run.seed + 7919)
        results[f"eval/vs_{name}"] = records[0].win_rate
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


def train(config: TrainConfig, run_dir: Path, resume: bool = False) -> Path:
    """Train the configured policy into ``run_dir``; returns the last checkpoint's folder."""
    # ---------------------------------------------------------------- setup
    torch.manual_seed(config.run.seed)
    cores = numba.config.NUMBA_NUM_THREADS  # the most threads the batched engine may use
    if config.run.torch_threads:
        torch.set_num_threads(config.run.torch_threads)
    device = pick_device(config.run.device)
    rng = np.random.default_rng(config.run.seed)
    game = make_game(config.env.variant, **config.env.options)
    envs = BatchedEnv(game, config.ppo.num_envs, num_threads=min(config.run.engine_threads, cores) or None)
    players, num_envs = game.num_players, config.ppo.num_envs
    critic_inputs = critic_input_size(game) if config.network.critic == "privileged" else 0
    shape = (game, config.network.hidden_sizes, critic_inputs, config.network.action_head)
    network = network_for(*shape).to(device)
    optimizer = torch.optim.Adam(network.parameters(), lr=config.ppo.learning_rate, eps=1e-5)
    pool = OpponentPool(config.pool, game, lambda: network_for(*shape), config.run.seed + 1)
    batch_size = num_envs * config.ppo.rollout_steps
    num_updates = max(1, config.ppo.total_env_steps // batch_size)
    buffer = Transitions(batch_size + num_envs * players, game.observation_size, game.num_actions, critic_inputs)
    progress = Progress()

    obs, mask, seat = envs.reset(seed=config.run.seed)
    owners = np.zeros((num_envs, players), np.int64)  # SELF or pool member, per game and seat
    opponent = np.zeros(num_envs, np.int64)
    for g in range(num_envs):
        owners[g], opponent[g] = assign_seats(pool, game, rng)
    last = np.full((num_envs, players), -1, np.int64)  # each learner seat's latest decision row
    episode_reward = np.zeros((num_envs, players), np.float32)

    if resume:  # only schedule keys may differ from the checkpoint's config (config.SCHEDULE_KEYS)
        folder, saved, changes = ckpt.open_resume(run_dir, config, num_updates)
        network.load_state_dict(ckpt.load_network(folder, game).state_dict())
        optimizer.load_state_dict(saved["optimizer"])
        pool.load_state_dict(saved["pool"])
        rng.bit_generator.state = saved["rng"]
        torch.set_rng_state(saved["torch_rng"])
        progress = Progress(**saved["progress"])
        envs.state[:] = saved["env_state"]
        obs, mask, seat = saved["obs"], saved["mask"], saved["seat"]
        envs._mask = mask.copy()
        owners, opponent, last, episode_reward = (
            saved["owners"],
            saved["opponent"],
            saved["last"],
            saved["episode_reward"],
        )
        buffer.load_state_dict(saved["pending"])
    elif config.run.init_from:
        network.load_state_dict(ckpt.initial_weights(config.run.init_from, *shape))
    run_dir.mkdir(parents=True, exist_ok=True)
    save_config(config, run_dir / ckpt.CONFIG_FILE)  # a resume records its schedule changes here
    logger = MetricsLogger(run_dir, keep_until=progress.env_steps if resume else -1)
    if resume:
        changed = "".join(f"; {key}: {before} -> {after}" for key, (before, after) in changes.items())
        logger.note(f"resumed at update {progress.update} from {folder}{changed}")

    def save_checkpoint() -> Path:
        folder = run_dir / "checkpoints" / f"update_{progress.update:06d}"
        ckpt.save_model(folder, network, game)
        save_config(config, folder / ckpt.CONFIG_FILE)
        ckpt.save_training_state(
            folder,
            {
                "optimizer": optimizer.state_dict(),
                "pool": pool.state_dict(),
                "rng": rng.bit_generator.state,
                "torch_rng": torch.get_rng_state(),
                "progress": vars(progress) | {"seconds": progress.seconds + time.perf_counter() - started},
                "env_state": envs.state.copy(),
                "obs": obs,
                "mask": mask,
                "seat": seat,
                "owners": owners,
                "opponent": opponent,
                "last": last,
                "episode_reward": episode_reward,
                "pending": buffer.state_dict(),
            },
        )
        return folder

    # ---------------------------------------------------------------- the loop
    started = time.perf_counter()
    limit = 60 * config.run.time_limit_minutes - progress.seconds  # a resumed run keeps its budget
    deadline = started + limit if config.run.time_limit_minutes > 0 else math.inf
    if config.imitation.teacher and not resume and not config.run.init_from:  # timed with the run's budget
        network.eval()
        head_start = imitate(
            game, network, config.imitation, config.ppo.vf_coef, num_envs, config.run.seed, device, log=tqdm.write
        )
        logger.log(0, head_start | evaluate_strength(game, network, config, device))
    bar = tqdm(total=num_updates * batch_size, initial=progress.env_steps, unit="step", unit_scale=True, smoothing=0.1)
    strength: dict[str, float] = {}
    clock = Stopwatch()
    stop = False  # decided after each update, before its checkpoint, which then records why the run ended
    while not stop:
        update_start = time.perf_counter()
        if config.ppo.anneal_lr:  # to zero at the end of the steps or of the time budget, whichever is first
            done_fraction = progress.update / num_updates
            if math.isfinite(deadline):
                done_fraction = max(
                    done_fraction, 1.0 - (deadline - update_start) / (60 * config.run.time_limit_minutes)
                )
            optimizer.param_groups[0]["lr"] = config.ppo.learning_rate * max(0.0, 1.0 - done_fraction)

        # ------------------------------------------------------------ rollout
        network.eval()
        forced = decided = 0  # the learner's decisions without and with a choice
        for _ in range(config.ppo.rollout_steps):
            acting_owner = owners[np.arange(num_envs), seat]
            actions = np.argmax(mask, axis=1)  # the only legal action, where there is no choice
            choosing = np.ones(num_envs, np.bool_) if config.ppo.learn_forced else mask.sum(1) > 1
            learner_rows = np.flatnonzero((acting_owner == SELF) & choosing)
            forced += int(((acting_owner == SELF) & ~choosing).sum())
            if learner_rows.size:
                with clock("acting"), torch.no_grad():
                    hidden = hidden_tiles(game, envs.state, learner_rows, seat[learner_rows], critic_inputs)
                    logits, values = network(
                        torch.as_tensor(obs[learner_rows], device=device), torch.as_tensor(hidden, device=device)
                    )
                    distribution = masked_distribution(logits, torch.as_tensor(mask[learner_rows], device=device))
                    chosen = distribution.sample()
                    logprobs = distribution.log_prob(chosen)
                actions[learner_rows] = chosen.cpu().numpy()
                rows = buffer.add(
                    obs[learner_rows],
                    hidden,
                    mask[learner_rows],
                    actions[learner_rows],
                    logprobs.cpu().numpy(),
                    values.cpu().numpy(),
                )
                seats = seat[learner_rows]
                previous = last[learner_rows, seats]
                buffer.next[previous[previous >= 0]] = rows[previous >= 0]
                last[learner_rows, seats] = rows
            for owner in np.unique(acting_owner[(acting_owner != SELF) & choosing]):
                rows = np.flatnonzero((acting_owner == owner) & choosing)
                with clock("opponents"):
                    actions[rows] = pool.act(owner, envs.state, rows, obs[rows], mask[rows])

            with clock("engine"):
                obs, mask, seat, rewards, done = envs.step(actions)
            progress.env_steps += num_envs
            progress.learner_steps += len(learner_rows)
            decided += len(learner_rows)

            # The hand's reward goes to each learner seat's latest decision in that game.
            paid = envs.hand_over[:, None] & (owners == SELF) & (last >= 0)
            np.add.at(buffer.reward, last[paid], rewards[paid])
            episode_reward += rewards
            for g in np.flatnonzero(done):
                buffer.done[last[g][last[g] >= 0]] = True
                last[g] = -1
                if opponent[g] != SELF:
                    learner_seat = int(np.flatnonzero(owners[g] == SELF)[0])
                    pool.record(opponent[g], 0.5 + 0.5 * float(np.sign(episode_reward[g, learner_seat])))
                episode_reward[g] = 0.0
                owners[g], opponent[g] = assign_seats(pool, game, rng)

        # ------------------------------------------------------------ advantages
        n = buffer.count
        pending = np.zeros(n, np.bool_)
        pending[last[last >= 0]] = True
        advantages = per_seat_gae(
            buffer.reward[:n], buffer.value[:n], buffer.done[:n], buffer.next[:n], pending,
            config.ppo.gamma, config.ppo.gae_lambda,
        )  # fmt: skip
        ready = np.flatnonzero(~pending)
        returns = advantages + buffer.value[:n]

        explained = explained_variance(buffer.value[ready], returns[ready])  # before the update moves rows

        # ------------------------------------------------------------ update
        update_started = time.perf_counter()
        network.train()
        b_obs = torch.as_tensor(buffer.obs[ready], device=device)
        b_hidden = torch.as_tensor(buffer.hidden[ready], device=device)
        b_mask = torch.as_tensor(buffer.mask[ready], device=device)
        b_actions = torch.as_tensor(buffer.action[ready], device=device)
        b_logprobs = torch.as_tensor(buffer.logprob[ready], device=device)
        b_advantages = torch.as_tensor(advantages[ready], device=device)
        b_returns = torch.as_tensor(returns[ready], device=device)
        losses: dict[str, list[float]] = {
            "policy": [],
            "value": [],
            "entropy": [],
            "approx_kl": [],
            "clip_fraction": [],
        }
        for _ in range(config.ppo.update_epochs):
            # num_minibatches chunks of (nearly) equal size: the number of ready decisions varies
            for mb in torch.randperm(len(ready), device=device).tensor_split(config.ppo.num_minibatches):
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
                    losses["clip_fraction"].append(((ratio - 1.0).abs() > config.ppo.clip_coef).float().mean().item())
                mb_advantages = b_advantages[mb]
                if config.ppo.norm_adv and len(mb) > 1:
                    mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
                clipped = torch.clamp(ratio, 1 - config.ppo.clip_coef, 1 + config.ppo.clip_coef)
                policy_loss = torch.max(-mb_advantages * ratio, -mb_advantages * clipped).mean()
                value_loss = 0.5 * ((new_values - b_returns[mb]) ** 2).mean()
                loss = policy_loss - config.ppo.ent_coef * entropy + config.ppo.vf_coef * value_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(network.parameters(), config.ppo.max_grad_norm)
                optimizer.step()
                losses["policy"].append(policy_loss.item())
                losses["value"].append(value_loss.item())
                losses["entropy"].append(entropy.item())

        clock.add("update", time.perf_counter() - update_started)

        # The decisions still waiting for their successor start the next rollout.
        pending_rows = np.flatnonzero(pending)
        remap = np.full(n, -1, np.int64)
        remap[pending_rows] = buffer.carry_pending(pending_rows)
        last[last >= 0] = remap[last[last >= 0]]
        progress.update += 1

        # ------------------------------------------------------------ bookkeeping
        elapsed = time.perf_counter() - update_start
        scalars = {f"loss/{name}": float(np.mean(values)) for name, values in losses.items() if values} | {
            "loss/explained_variance": explained,
            "rollout/forced_share": forced / max(1, forced + decided),
            "rollout/decisions": float(len(ready)),
            "speed/env_steps_per_second": batch_size / elapsed,
            "pool/snapshots": len(pool.snapshots),
            "learning_rate": optimizer.param_groups[0]["lr"],
        }
        if progress.update % config.pool.snapshot_every == 0:
            pool.add_snapshot(network, progress.update)
            pool.prune(owners)
        stop = progress.update >= num_updates or time.perf_counter() >= deadline
        if progress.update % config.eval.every == 0 or stop:
            network.eval()
            with clock("evaluation"):
                strength = evaluate_strength(game, network, config, device)
            scalars.update(strength)
        logger.log(progress.env_steps, scalars | clock.shares())
        if progress.update % config.run.checkpoint_every == 0 or stop:
            folder = save_checkpoint()
        bar.update(batch_size)
        bar.set_postfix(
            {"steps/s": f"{batch_size / elapsed:,.0f}"}
            | {k.removeprefix("eval/"): f"{v:.2f}" for k, v in strength.items()}
        )
    bar.close()
    logger.plot()
    logger.close()
    return folder
