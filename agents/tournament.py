"""Agents against agents, with seats rotated over mirrored deals.

A game's deals come from its own generator and never depend on the moves, so game slot ``g``
plays the same sequence of deals whoever sits where. Rotating the agents through the seats and
replaying the same slots therefore plays every deal from every seat, which removes the luck of
the deal from the comparison.

Observation-only agents play on the batched engine (``play_seated``). As soon as one agent is a
:class:`~agents.base.StatefulAgent` (heuristic, search, oracle) the match runs on engine records
instead (``play_seated_states``): the same deals, every agent asked through ``act_states``.

Run ``python -m agents.tournament --variant draw --agents greedy random`` to watch one game and
get the results table.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, field

import numpy as np

from agents.base import Agent, StatefulAgent
from agents.registry import AGENTS, make_agent
from agents.workers import check_workers, fork_context, one_thread
from domino_env import VARIANTS, BatchedEnv, make_game, raw_env
from domino_env.game import Game
from domino_env.games.core import GAME_OVER, PLAYING
from domino_env.rng import game_seed

MATCH_BLOCK = 16  # game slots a worker of rotated_match plays in one task
_FORKED_MATCH: tuple[Game, list[Agent], int, int, int] | None = None  # play_shared's inputs, for its workers


class WinTally:
    """The win rate of ``wins`` over ``episodes`` with its Wilson interval, and the points per
    hand: one implementation for every result that counts them (a tournament :class:`Record`,
    an arena ``Matchup``)."""

    episodes: int
    wins: int
    hands: int
    points: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.episodes if self.episodes else 0.0

    def win_interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson score interval of the win rate (95% by default)."""
        return wilson_interval(self.wins, self.episodes, z)

    def win_cells(self) -> str:
        """The win rate and its 95% interval as two cells of a Markdown row."""
        low, high = self.win_interval()
        return f"{self.win_rate:.3f} | [{low:.3f}, {high:.3f}]"

    @property
    def points_per_hand(self) -> float:
        return self.points / self.hands if self.hands else 0.0


@dataclass
class Record(WinTally):
    """One agent's results over the episodes it played."""

    name: str
    episodes: int = 0
    wins: int = 0
    reward: float = 0.0
    hands: int = 0
    points: int = 0
    per_episode_reward: list[float] = field(default_factory=list)
    per_episode_points: list[int] = field(default_factory=list)  # an interval needs each episode's
    per_episode_hands: list[int] = field(default_factory=list)
    losses: int = 0
    moves: int = 0  # actions the agent was asked for
    seconds: float = 0.0  # time it took to choose them

    @property
    def decisive_win_rate(self) -> float:
        """Wins over the episodes someone won: an even match scores 0.5 however many are tied."""
        decided = self.wins + self.losses
        return self.wins / decided if decided else 0.5

    def decisive_interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson score interval of ``decisive_win_rate`` (95% by default)."""
        return wilson_interval(self.wins, self.wins + self.losses, z)

    @property
    def ms_per_move(self) -> float:
        return 1000.0 * self.seconds / self.moves if self.moves else 0.0


def episode_winners(rewards: np.ndarray) -> np.ndarray:
    """Which seats won each episode, from ``rewards`` (episodes x seats, each seat's total): those
    with the table's highest reward, unless every seat has it (a hand nobody won).

    In a single hand under ``reward="win"`` these are exactly the seats with a positive reward.
    Under ``reward="points"`` a positive reward only means fewer pips than the table's average,
    so a win is counted by the highest instead: the seat that went out, or had the fewest pips
    when the hand blocked, and its partner."""
    rewards = np.asarray(rewards, dtype=np.float64)
    best = rewards.max(axis=-1, keepdims=True)
    decided = rewards.min(axis=-1, keepdims=True) < best
    return (rewards == best) & decided


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Seated:
    """Per-seat results of ``play_seated*``: arrays over the episodes (total reward, points,
    hands) and, per seat, the actions asked for and the seconds spent choosing them."""

    reward: np.ndarray
    points: np.ndarray
    hands: np.ndarray
    moves: np.ndarray
    seconds: np.ndarray


def play_seated(
    game: Game, seated: list[Agent], episodes_per_slot: int, seed: int, batch_size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play ``episodes_per_slot`` episodes in each of ``batch_size`` game slots, ``seated[s]``
    in seat ``s``, on the batched engine. Returns per-seat arrays over the episodes: total
    reward, points, hands."""
    result = play_seated_batched(game, seated, episodes_per_slot, seed, batch_size)
    return result.reward, result.points, result.hands


class EpisodeLog:
    """Totals of the running episode of every slot, kept until ``episodes_per_slot`` are done."""

    def __init__(self, batch_size: int, players: int, episodes_per_slot: int) -> None:
        self.episodes_per_slot = episodes_per_slot
        self.completed = np.zeros(batch_size, np.int64)
        self.reward = np.zeros((batch_size, players))
        self.points = np.zeros((batch_size, players), np.int64)
        self.hands = np.zeros(batch_size, np.int64)
        self.moves = np.zeros(players, np.int64)
        self.seconds = np.zeros(players)
        self.out_reward: list[np.ndarray] = []
        self.out_points: list[np.ndarray] = []
        self.out_hands: list[int] = []

    def running(self) -> bool:
        return bool((self.completed < self.episodes_per_slot).any())

    def end_episode(self, g: int) -> None:
        if self.completed[g] < self.episodes_per_slot:
            self.out_reward.append(self.reward[g].copy())
            self.out_points.append(self.points[g].copy())
            self.out_hands.append(int(self.hands[g]))
        self.completed[g] += 1
        self.reward[g] = 0.0
        self.points[g] = 0
        self.hands[g] = 0

    def result(self) -> Seated:
        return Seated(
            np.array(self.out_reward), np.array(self.out_points), np.array(self.out_hands), self.moves, self.seconds
        )


def play_seated_batched(game: Game, seated: list[Agent], episodes_per_slot: int, seed: int, batch_size: int) -> Seated:
    """``play_seated`` with the time each seat took: observation agents on the batched engine."""
    batch = BatchedEnv(game, batch_size)
    obs, mask, seat = batch.reset(seed)
    log = EpisodeLog(batch_size, game.num_players, episodes_per_slot)
    actions = np.empty(batch_size, np.int64)
    while log.running():
        for s, agent in enumerate(seated):
            rows = np.flatnonzero(seat == s)
            if rows.size:
                start = time.perf_counter()
                actions[rows] = agent.act(obs[rows], mask[rows])
                log.seconds[s] += time.perf_counter() - start
                log.moves[s] += rows.size
        obs, mask, seat, rewards, done = batch.step(actions)
        log.reward += rewards
        log.points += batch.hand_points
        log.hands += batch.hand_over
        for g in np.flatnonzero(done):
            log.end_episode(int(g))
    return log.result()


def play_seated_states(
    game: Game, seated: list[Agent], episodes_per_slot: int, seed: int, batch_size: int, first_slot: int = 0
) -> Seated:
    """``play_seated`` on engine records, so stateful agents can take part: the same deals as
    the batched engine (each slot seeded and restarted the same way), every agent asked through
    ``act_states``, every action checked against the legal mask. The slots are those from
    ``first_slot`` on, so a worker can play a block of a larger match's slots."""
    state = game.new_state(batch_size)
    for g in range(batch_size):
        game.seed(state, g, seed, stream=first_slot + g)
        game.start(state, g)
    log = EpisodeLog(batch_size, game.num_players, episodes_per_slot)
    mask = np.zeros(game.num_actions, np.int8)
    actions = np.empty(batch_size, np.int64)
    while log.running():
        live = np.flatnonzero(log.completed < episodes_per_slot)
        seats = state["current"][live]
        for s, agent in enumerate(seated):
            rows = live[seats == s]
            if rows.size:
                start = time.perf_counter()
                actions[rows] = agent.act_states(game, state, rows)
                log.seconds[s] += time.perf_counter() - start
                log.moves[s] += rows.size
        for g in live:
            action = int(actions[g])
            game.legal_mask(state, g, mask)
            if not (0 <= action < game.num_actions and mask[action]):
                legal = [game.action_name(int(a)) for a in np.flatnonzero(mask)]
                raise ValueError(f"{seated[state['current'][g]].name} chose illegal action {action}; legal: {legal}")
            status = game.step(state, g, action)
            log.reward[g] += game.rewards(state, g)
            if status != PLAYING:
                log.points[g] += game.hand_points(state, g)
                log.hands[g] += 1
            if status == GAME_OVER:
                log.end_episode(int(g))
                game.start(state, g)
    return log.result()


def rotated_match(
    game: Game, agents: list[Agent], episodes: int, seed: int = 0, batch_size: int = 256, workers: int = 1
) -> list[Record]:
    """Seat ``agents`` (one per seat) in every rotation over the same deals and total the
    results per agent. An agent wins an episode when its episode reward is the table's highest
    (:func:`episode_winners`) and loses it when its reward is below that.

    Search agents take milliseconds a move, one game at a time, so ``workers`` processes
    (:mod:`agents.workers`) can share the games: each rotation's slots go out in blocks of
    ``MATCH_BLOCK``, and every agent's generator restarts at each block from the match's seed and
    the block's index. The deals are the same as with one worker; the agents' draws differ, and
    are the same for any number of workers above one."""
    players = game.num_players
    if len(agents) != players:
        raise ValueError(f"{game.name} with {players} players needs {players} agents, got {len(agents)}")
    check_workers("rotated_match", workers)
    batch_size = max(1, min(batch_size, math.ceil(episodes / players)))
    per_slot = max(1, math.ceil(episodes / (players * batch_size)))
    stateful = any(isinstance(agent, StatefulAgent) for agent in agents)
    play = play_seated_states if stateful else play_seated_batched
    shared = play_shared(game, agents, per_slot, seed, batch_size, workers) if workers > 1 else None
    records = [Record(agent.name) for agent in agents]
    for shift in range(players):
        seated = [agents[(s + shift) % players] for s in range(players)]
        result = play(game, seated, per_slot, seed, batch_size) if shared is None else shared[shift]
        reward = result.reward
        winners = episode_winners(reward)
        losers = reward < reward.max(axis=1, keepdims=True)
        for s in range(players):
            record = records[(s + shift) % players]
            record.episodes += len(reward)
            record.wins += int(winners[:, s].sum())
            record.losses += int(losers[:, s].sum())
            record.reward += float(reward[:, s].sum())
            record.points += int(result.points[:, s].sum())
            record.hands += int(result.hands.sum())
            record.per_episode_reward.extend(reward[:, s].tolist())
            record.per_episode_points.extend(result.points[:, s].tolist())
            record.per_episode_hands.extend(result.hands.tolist())
            record.moves += int(result.moves[s])
            record.seconds += float(result.seconds[s])
    return records


def play_shared(
    game: Game, agents: list[Agent], episodes_per_slot: int, seed: int, batch_size: int, workers: int
) -> list[Seated]:
    """:func:`rotated_match`'s games shared by ``workers`` forked processes: for each rotation,
    its slots' results, block by block in slot order. One game is played here first and its
    result dropped, so that the agents' searches are compiled once and every worker inherits
    them instead of compiling them again."""
    play_seated_states(game, agents, 1, seed, 1)
    global _FORKED_MATCH  # what the forked workers inherit instead of unpickling it
    _FORKED_MATCH = (game, agents, episodes_per_slot, seed, batch_size)
    tasks = [(shift, first) for shift in range(game.num_players) for first in range(0, batch_size, MATCH_BLOCK)]
    blocks: dict[tuple[int, int], Seated] = {}
    try:
        with fork_context().Pool(workers, initializer=one_thread) as pool:
            for task, block in pool.imap_unordered(play_forked_block, tasks):
                blocks[task] = block
    finally:
        _FORKED_MATCH = None
    return [joined([blocks[task] for task in tasks if task[0] == shift]) for shift in range(game.num_players)]


def play_forked_block(task: tuple[int, int]) -> tuple[tuple[int, int], Seated]:
    """In a forked worker of :func:`play_shared`: rotation ``shift``'s slots from ``first``, every
    distinct agent restarted from a seed of the match's seed, the block and the agent's place."""
    game, agents, episodes_per_slot, seed, batch_size = _FORKED_MATCH
    shift, first = task
    players = game.num_players
    block_seed = int(game_seed(seed, shift * batch_size + first))
    distinct = list({id(agent): agent for agent in agents}.values())
    for place, agent in enumerate(distinct):
        agent.reseed(int(game_seed(block_seed, place)))
    seated = [agents[(s + shift) % players] for s in range(players)]
    slots = min(MATCH_BLOCK, batch_size - first)
    return task, play_seated_states(game, seated, episodes_per_slot, seed, slots, first_slot=first)


def joined(blocks: list[Seated]) -> Seated:
    """One :class:`Seated` of the episodes of ``blocks`` in order, moves and seconds summed."""
    return Seated(
        np.concatenate([b.reward for b in blocks]),
        np.concatenate([b.points for b in blocks]),
        np.concatenate([b.hands for b in blocks]),
        np.sum([b.moves for b in blocks], axis=0),
        np.sum([b.seconds for b in blocks], axis=0),
    )


def lineup(game: Game, agent: Agent, opponent: Agent) -> list[Agent]:
    """``agent`` in seat 0 (and its partner's seat) and ``opponent`` everywhere else: a table of
    one opponent, for :func:`rotated_match` to turn through every seat."""
    if game.partnerships:
        return [agent, opponent, agent, opponent]
    return [agent] + [opponent] * (game.num_players - 1)


def against_table(game: Game, agent: Agent, opponent: Agent, episodes: int, seed: int = 0, workers: int = 1) -> Record:
    """``agent``'s record against a table of ``opponent`` (:func:`lineup`), seats rotated over
    the deals of ``seed``, its games shared by ``workers`` processes (:func:`rotated_match`)."""
    return rotated_match(game, lineup(game, agent, opponent), episodes, seed=seed, workers=workers)[0]


def results_table(records: list[Record]) -> str:
    """A Markdown table: win rate with its 95% interval, mean reward and points per hand."""
    lines = [
        "| seat agent | episodes | win rate | 95% interval | mean reward | points / hand |",
        "|---|---:|---:|---|---:|---:|",
    ]
    for r in records:
        mean_reward = r.reward / max(r.episodes, 1)
        lines.append(f"| {r.name} | {r.episodes} | {r.win_cells()} | {mean_reward:+.3f} | {r.points_per_hand:.2f} |")
    return "\n".join(lines)


def show_game(variant: str, agent_names: list[str], seed: int, **options: object) -> None:
    """Play one game on the AEC environment and print the table and every move."""
    env = raw_env(variant, render_mode="ansi", **options)
    env.reset(seed=seed)
    seats = zip(env.possible_agents, agent_names, strict=True)
    agents = {agent: make_agent(name, env.game, seed=seed + i) for i, (agent, name) in enumerate(seats)}
    print(env.render())
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = agents[agent].act_one(observation, state=env.state_array)
        print(f"  {agent} ({agents[agent].name}): {env.action_name(action)}")
        env.step(action)
        if env.infos[agent].get("hand_points") is not None:
            print(f"  hand over: points {[env.infos[a]['hand_points'] for a in env.possible_agents]}")
    print(env.render())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="draw", choices=VARIANTS)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--agents", nargs="+", default=["greedy", "random"], choices=sorted(AGENTS))
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-show", action="store_true", help="skip the rendered example game")
    args = parser.parse_args(argv)
    names = [args.agents[s % len(args.agents)] for s in range(args.players)]
    try:  # a table the variant cannot seat, or an agent it cannot play, is one line
        game = make_game(args.variant, num_players=args.players)
        agents = [make_agent(n, game, seed=args.seed + i) for i, n in enumerate(names)]
    except ValueError as error:
        parser.exit(2, f"error: {error}\n")
    if not args.no_show:
        show_game(args.variant, names, args.seed, num_players=args.players)
    records = rotated_match(game, agents, args.episodes, seed=args.seed)
    print(f"\n{game.title}, {args.players} players, seats rotated over mirrored deals:\n")
    print(results_table(records))


if __name__ == "__main__":
    main()
