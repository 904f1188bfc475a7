"""A Gymnasium single-agent view of any variant: one seat learns, given agents play the others.

Single-agent libraries (Stable-Baselines3, sb3-contrib's ``MaskablePPO``, CleanRL scripts) expect
``reset() -> obs, info`` and ``step(a) -> obs, reward, terminated, truncated, info`` for one
player. This view keeps the multi-agent game underneath and plays every other seat itself, inside
``step``, until the learner must act again or the game ends, so the learner sees exactly the
turns it owns and nothing of the opponents' hidden information.

    env = agents.make_single_agent("draw", opponents="greedy", learner_seat="rotate")  # by name
    env = domino_env.make_single_agent("draw", opponents=my_policy)  # any object with act_one
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import gymnasium
import numpy as np

from domino_env.env import DominoEnv, reset_options
from domino_env.game import Game
from domino_env.rng import check_seed
from domino_env.variants import make_game


@runtime_checkable
class Opponent(Protocol):
    """Whatever plays a seat: one PettingZoo observation (and the engine record, which stateful
    agents read through determinization) in, one legal action out. Every :class:`agents.Agent`
    is one."""

    def act_one(self, observation: dict[str, np.ndarray], state: np.ndarray | None = None) -> int: ...


OpponentBuilder = Callable[[Game, int], Opponent]
"""Builds an opponent for a game from a seed: the view calls it at every seeded reset, so
opponents it builds are reseeded with the episode (``agents.make_single_agent`` passes builders
for agents named by name)."""
OpponentSpec = Opponent | OpponentBuilder
LEARNER_SEAT_MODES = ("rotate", "random")
SEED_BOUND = 2**63


class DominoSingleAgentEnv(gymnasium.Env):
    """One seat of a domino game as a Gymnasium environment.

    Args:
        variant: any of ``domino_env.VARIANTS``.
        opponents: who plays the other seats: an :class:`Opponent` (any object with
            ``act_one``, such as an :class:`agents.Agent` or a trained policy), a builder
            ``(game, seed) -> Opponent`` called at every seeded reset, or a sequence with one
            of those per other seat, the i-th for the i-th seat after the learner (so that a
            partner stays a partner when the learner's seat rotates). Agents named by name
            (``"random"``, ``"greedy"``) come through ``agents.make_single_agent``, which knows
            the names.
        learner_seat: a seat index, ``"rotate"`` (the next seat each episode; ``reset(seed=s)``
            restarts the turn at seat ``s % num_players``, so seeds 0, 1, 2, ... rotate too) or
            ``"random"`` (drawn per episode from the environment's seeded generator).
        illegal_action: ``"penalty"`` (default: the episode ends with -1 for the learner, so
            that every action of the ``Discrete`` space is a valid input, as Gymnasium expects)
            or ``"raise"`` (refuse with :class:`domino_env.IllegalActionError`; use it to prove
            that a masked learner never tries one).
        render_mode: ``None``, ``"ansi"`` or ``"rgb_array"`` (the whole table, as the AEC
            environment draws it).
        **options: the variant's rule options (``num_players``, ``match``, ``reward``, ...).

    The observation is the learner's observation vector; its legal actions are returned by
    :meth:`action_masks` (sb3-contrib's convention) and in ``info["action_mask"]``. The reward of
    a step is everything the learner earned from its action until its next turn (the sum over
    the opponents' moves in between); summed over the episode it is the learner's return in the
    multi-agent game. ``info`` also holds ``"learner_seat"`` and, when a hand ended during the
    step, ``"hand_points"`` and ``"match_points"``.

    Seeding: ``reset(seed=s)`` deals as ``domino_env.make(variant).reset(seed=s)`` does, and
    rebuilds the opponents given as builders from seeds it draws. Opponent objects keep their
    own generators. If a game
    ends before the learner's first turn (a Hungarian leader can go out in one run), the view
    deals again, so every episode gives the learner at least one decision.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        variant: str,
        opponents: OpponentSpec | Sequence[OpponentSpec],
        learner_seat: int | str = 0,
        illegal_action: str = "penalty",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        self.aec_env = DominoEnv(make_game(variant, **options), render_mode=render_mode, illegal_action=illegal_action)
        self.game = self.aec_env.game
        self.variant = variant
        self.render_mode = render_mode
        num_players = self.game.num_players
        if isinstance(learner_seat, str):
            if learner_seat not in LEARNER_SEAT_MODES:
                raise ValueError(
                    f"learner_seat must be a seat index or one of {LEARNER_SEAT_MODES}, got {learner_seat!r}"
                )
        elif isinstance(learner_seat, bool) or not isinstance(learner_seat, int) or not 0 <= learner_seat < num_players:
            raise ValueError(
                f"learner_seat must be a seat in 0..{num_players - 1}, 'rotate' or 'random', got {learner_seat!r}"
            )
        self.learner_seat_mode = learner_seat
        self._opponent_specs = _opponent_list(opponents, num_players)
        self._opponents: list[Opponent] | None = None  # built at the first reset, from np_random
        self._episode = 0
        self.learner_seat = learner_seat if isinstance(learner_seat, int) else 0
        self.learner = self.aec_env.possible_agents[self.learner_seat]
        self.observation_space = self.aec_env.observation_space(self.learner)["observation"]
        self.action_space = self.aec_env.action_space(self.learner)
        self.metadata = {**self.metadata, "name": f"dominoes/{variant}-single-agent"}
        self._mask = np.zeros(self.game.num_actions, np.int8)

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Start an episode; ``options={"deal": {...}}`` plays a given deal (see ``domino_env.make``)."""
        reset_options(options)  # bad options and seeds are refused before the generator, the
        if seed is not None:  # opponents or the rotation change
            seed = check_seed(seed)  # (a numpy integer becomes an int, which Gymnasium's seeding requires)
        super().reset(seed=seed)
        if seed is not None or self._opponents is None:
            self._opponents = self._build_opponents()
        if seed is not None:  # the rotation restarts from the seed, so seeded resets are reproducible
            self._episode = seed
        self._choose_learner_seat()
        self.aec_env.reset(seed=seed, options=options)
        info: dict[str, Any] = {}
        self._play_opponents(info)
        while self.aec_env.terminations[self.learner]:  # over before the learner's first turn
            self.aec_env.reset()
            info = {}
            self._play_opponents(info)
        self._episode += 1
        return self._observe(info)[0], info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self.aec_env.terminations[self.learner]:
            raise RuntimeError("the episode is over: call reset() before step()")
        info: dict[str, Any] = {}
        self.aec_env.step(int(action))
        reward = self._collect(info)
        reward += self._play_opponents(info)
        observation, terminated = self._observe(info)
        return observation, reward, terminated, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (what sb3-contrib's ``MaskablePPO`` reads)."""
        return self._mask.astype(bool)

    def render(self) -> str | np.ndarray | None:
        return self.aec_env.render()

    def close(self) -> None:
        self.aec_env.close()

    def action_name(self, action: int) -> str:
        """Readable name of an action index, as ``DominoEnv.action_name``."""
        return self.aec_env.action_name(action)

    # ------------------------------------------------------------------ internals
    def _build_opponents(self) -> list[Opponent]:
        return [
            spec if isinstance(spec, Opponent) else spec(self.game, int(self.np_random.integers(SEED_BOUND)))
            for spec in self._opponent_specs
        ]

    def _choose_learner_seat(self) -> None:
        num_players = self.game.num_players
        if self.learner_seat_mode == "rotate":
            self.learner_seat = self._episode % num_players
        elif self.learner_seat_mode == "random":
            self.learner_seat = int(self.np_random.integers(num_players))
        self.learner = self.aec_env.possible_agents[self.learner_seat]
        agents = self.aec_env.possible_agents
        self._opponent_of = {
            agents[(self.learner_seat + 1 + i) % num_players]: opponent for i, opponent in enumerate(self._opponents)
        }

    def _play_opponents(self, info: dict[str, Any]) -> float:
        """Let the other seats move until the learner must act or the game is over; returns the
        learner's reward over those moves."""
        env = self.aec_env
        reward = 0.0
        while not env.terminations[self.learner] and env.agent_selection != self.learner:
            agent = env.agent_selection
            if env.terminations[agent]:  # an eliminated seat leaves the table
                env.step(None)
            else:  # stateful agents (search, heuristics) read the engine record
                env.step(self._opponent_of[agent].act_one(env.observe(agent), state=env.state_array))
            reward += self._collect(info)
        return reward

    def _collect(self, info: dict[str, Any]) -> float:
        """The learner's reward from the AEC step just taken; keeps the hand report if any."""
        info.update(self.aec_env.infos[self.learner])
        return float(self.aec_env.rewards[self.learner])

    def _observe(self, info: dict[str, Any]) -> tuple[np.ndarray, bool]:
        observation = self.aec_env.observe(self.learner)
        self._mask = observation["action_mask"]
        info["action_mask"] = self._mask.copy()
        info["learner_seat"] = self.learner_seat
        return observation["observation"], bool(self.aec_env.terminations[self.learner])


def _opponent_list(opponents: OpponentSpec | Sequence[OpponentSpec], num_players: int) -> list[OpponentSpec]:
    """One opponent per other seat, checked now so that a mistake fails at construction."""
    single = isinstance(opponents, str) or not isinstance(opponents, Sequence)
    specs = [opponents] * (num_players - 1) if single else list(opponents)
    if len(specs) != num_players - 1:
        raise ValueError(f"opponents needs one entry per other seat ({num_players - 1}), got {len(specs)}")
    for spec in specs:
        if isinstance(spec, str):
            raise TypeError(
                f"opponent {spec!r} is a name: agents.make_single_agent(variant, opponents={spec!r}, ...) "
                "builds agents by name; domino_env.make_single_agent takes agent objects"
            )
        if not (isinstance(spec, Opponent) or callable(spec)):
            raise TypeError(
                f"an opponent must have act_one(observation, state) or build one from (game, seed), "
                f"got {type(spec).__name__}"
            )
    return specs
