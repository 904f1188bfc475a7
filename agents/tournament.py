"""Agents against agents on the batched engine, with seats rotated over mirrored deals.

A game's deals come from its own generator and never depend on the moves, so game slot ``g``
plays the same sequence of deals whoever sits where. Rotating the agents through the seats and
replaying the same slots therefore plays every deal from every seat, which removes the luck of
the deal from the comparison.

Run ``python -m agents.tournament --variant draw --agents greedy random`` to watch one game and
get the results table.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field

import numpy as np

from agents.base import Agent
from agents.registry import AGENTS, make_agent
from domino_env import VARIANTS, BatchedEnv, make_game, raw_env
from domino_env.game import Game


@dataclass
class Record:
    """One agent's results over the episodes it played."""

    name: str
    episodes: int = 0
    wins: int = 0
    reward: float = 0.0
    hands: int = 0
    points: int = 0
    per_episode_reward: list[float] = field(default_factory=list)

    @property
    def win_rate(self) -> float:
        return self.wins / self.episodes if self.episodes else 0.0

    def win_interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson score interval of the win rate (95% by default)."""
        n = self.episodes
        if n == 0:
            return 0.0, 1.0
        p = self.win_rate
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)


def play_seated(
    game: Game, seated: list[Agent], episodes_per_slot: int, seed: int, batch_size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play ``episodes_per_slot`` episodes in each of ``batch_size`` game slots, ``seated[s]``
    in seat ``s``. Returns per-seat arrays over the episodes: total reward, points, hands."""
    players = game.num_players
    batch = BatchedEnv(game, batch_size)
    obs, mask, seat = batch.reset(seed)
    completed = np.zeros(batch_size, np.int64)
    reward = np.zeros((batch_size, players))
    points = np.zeros((batch_size, players), np.int64)
    hands = np.zeros(batch_size, np.int64)
    out_reward, out_points, out_hands = [], [], []
    actions = np.empty(batch_size, np.int64)
    while (completed < episodes_per_slot).any():
        for s, agent in enumerate(seated):
            rows = np.flatnonzero(seat == s)
            if rows.size:
                actions[rows] = agent.act(obs[rows], mask[rows])
        obs, mask, seat, rewards, done = batch.step(actions)
        reward += rewards
        points += batch.hand_points
        hands += batch.hand_over
        for g in np.flatnonzero(done):
            if completed[g] < episodes_per_slot:
                out_reward.append(reward[g].copy())
                out_points.append(points[g].copy())
                out_hands.append(hands[g])
            completed[g] += 1
            reward[g] = 0.0
            points[g] = 0
            hands[g] = 0
    return np.array(out_reward), np.array(out_points), np.array(out_hands)


def rotated_match(game: Game, agents: list[Agent], episodes: int, seed: int = 0, batch_size: int = 256) -> list[Record]:
    """Seat ``agents`` (one per seat) in every rotation over the same deals and total the
    results per agent. An agent wins an episode when its episode reward is positive."""
    players = game.num_players
    if len(agents) != players:
        raise ValueError(f"{game.name} with {players} players needs {players} agents, got {len(agents)}")
    batch_size = max(1, min(batch_size, math.ceil(episodes / players)))
    per_slot = max(1, math.ceil(episodes / (players * batch_size)))
    records = [Record(agent.name) for agent in agents]
    for shift in range(players):
        seated = [agents[(s + shift) % players] for s in range(players)]
        reward, points, hands = play_seated(game, seated, per_slot, seed, batch_size)
        for s in range(players):
            record = records[(s + shift) % players]
            record.episodes += len(reward)
            record.wins += int((reward[:, s] > 0).sum())
            record.reward += float(reward[:, s].sum())
            record.points += int(points[:, s].sum())
            record.hands += int(hands.sum())
            record.per_episode_reward.extend(reward[:, s].tolist())
    return records


def results_table(records: list[Record]) -> str:
    """A Markdown table: win rate with its 95% interval, mean reward and points per hand."""
    lines = [
        "| seat agent | episodes | win rate | 95% interval | mean reward | points / hand |",
        "|---|---:|---:|---|---:|---:|",
    ]
    for r in records:
        low, high = r.win_interval()
        lines.append(
            f"| {r.name} | {r.episodes} | {r.win_rate:.3f} | [{low:.3f}, {high:.3f}] | "
            f"{r.reward / max(r.episodes, 1):+.3f} | {r.points / max(r.hands, 1):.2f} |"
        )
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
        action = agents[agent].act_one(observation)
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
    if not args.no_show:
        show_game(args.variant, names, args.seed, num_players=args.players)
    game = make_game(args.variant, num_players=args.players)
    agents = [make_agent(n, game, seed=args.seed + i) for i, n in enumerate(names)]
    records = rotated_match(game, agents, args.episodes, seed=args.seed)
    print(f"\n{game.title}, {args.players} players, seats rotated over mirrored deals:\n")
    print(results_table(records))


if __name__ == "__main__":
    main()
