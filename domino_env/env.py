"""The PettingZoo AEC environment shared by every variant: a batch of one game.

The environment owns no rule. It keeps PettingZoo's bookkeeping (agents, rewards, terminations,
infos) and asks the variant's :class:`~domino_env.game.Game` for everything else, so the
observations and masks it hands out are exactly those of the batched engine.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from domino_env.game import Game
from domino_env.games.core import GAME_OVER, ILLEGAL, PLAYING
from domino_env.picture import table_image
from domino_env.rng import check_seed

ILLEGAL_ACTION_MODES = ("raise", "penalty")
ILLEGAL_PENALTY = -1.0


RESET_OPTIONS = ("deal",)


class IllegalActionError(ValueError):
    """An agent chose an action its mask does not allow; the game is left untouched."""


class GameOverError(RuntimeError):
    """``step`` with no game to move: before the first ``reset``, or after every agent has left."""


class DominoEnv(AECEnv):
    """A domino game as a PettingZoo AEC environment.

    Agents are ``player_0 .. player_{P-1}`` in seat order. Each observation is a dict with
    ``"observation"`` (float32, relative to the observer; ``observation_layout`` names its
    slices) and ``"action_mask"`` (int8, all zeros for agents not to act). When a hand ends,
    every agent's info holds ``"hand_points"`` (what the hand added to the agent's match total:
    points won in Draw and Block, penalty pips in Hungarian and Mexican Train), ``"pips_left"``
    (the pips left in the agent's hand, in every variant) and ``"match_points"`` (every seat's
    total, in seat order).

    ``illegal_action="raise"`` (default) refuses an illegal action with
    :class:`IllegalActionError` and changes nothing; ``"penalty"`` ends the episode with reward
    -1 for the offender and 0 for the others, as PettingZoo's classic environments do.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "name": "dominoes", "is_parallelizable": False}

    def __init__(self, game: Game, render_mode: str | None = None, illegal_action: str = "raise") -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"option illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        self.game = game
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.metadata = {**self.metadata, "name": f"dominoes/{game.name}-v0"}
        self.possible_agents = [f"player_{seat}" for seat in range(game.num_players)]
        self.agent_seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, np.inf, (game.observation_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (game.num_actions,), np.int8),
            }
        )
        action_space = spaces.Discrete(game.num_actions)
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: action_space for agent in self.possible_agents}
        self._state = game.new_state(1)
        self._config = game.packed_config
        self._advance, self._legal_mask, self._observe = game.machine_code(self._state)
        self._observation_size = game.observation_size
        self._mask = np.zeros(game.num_actions, np.int8)
        self._current = self._state["current"]  # a view: reading it costs no record copy
        self._hand_reported = False
        self._seeded = False
        self._started = False  # reset() has been called: step()'s error says which mistake it is
        self.last_move: tuple[int, int] | None = None  # (seat, action), ringed on the rgb_array picture
        self.render_face_up: Collection[int] | str = ()  # seats (or "all") whose hands rgb_array shows
        self.agents: list[str] = []

    # ------------------------------------------------------------------ PettingZoo API
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode. ``options={"deal": {...}}`` plays a given first deal; other keys are
        ignored, as PettingZoo expects of reset options, but options that are not a dict, or a
        misspelt ``"deal"``, are refused (see :func:`reset_options`). Everything is checked (the
        options, the deal, the seed: an integer in 0..2**64-1) before the game changes."""
        deal = reset_options(options).get("deal")
        prepared = self.game.prepare_deal(deal) if deal is not None else None
        if seed is not None:
            check_seed(seed)
            self.game.seed(self._state, 0, seed)
            self._seeded = True
        elif not self._seeded:
            self.game.seed(self._state, 0, int(np.random.SeedSequence().entropy % (1 << 63)))
            self._seeded = True
        if prepared is None:
            self.game.start(self._state, 0)
        else:
            self.game.start_from_deal(self._state, 0, prepared)
        self.agents = self.possible_agents[:]
        self._started = True
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._hand_reported = False
        self.last_move = None
        self._after_move()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_seat[agent]
        observation = np.empty(self._observation_size, np.float32)
        self._observe(self._state, self._config, 0, seat, observation)
        acting = agent == self.agent_selection and not self.terminations[agent]
        mask = self._mask.copy() if acting else np.zeros_like(self._mask)
        return {"observation": observation, "action_mask": mask}

    def step(self, action: int) -> None:
        if not self.agents:
            raise GameOverError(self.no_game_message(action))
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:  # PettingZoo's own refusal names neither the agent nor the action
                raise ValueError(
                    f"{agent} is done (its game is over or it is out of the match): step it with None, "
                    f"which removes it from agents, got action {action!r}"
                )
            self._was_dead_step(action)
            return
        if type(action) is not int:
            action = action_index(action)
        try:
            status = self._advance(self._state, self._config, 0, action, self._mask)
        except OverflowError:  # an index beyond 64 bits is out of range, as -1 is
            status = ILLEGAL
        if status == ILLEGAL:
            if self.illegal_action == "raise":
                raise IllegalActionError(self._illegal_message(agent, action))
            self._end_for_illegal(agent)
            return
        self._cumulative_rewards[agent] = 0.0
        self.last_move = (self.agent_seat[agent], action)
        if self._hand_reported:  # the last step paid a hand: this one starts clean
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.infos = {a: {} for a in self.agents}
            self._hand_reported = False
        if status == PLAYING:  # no rewards and nobody finished: the seat to act has its mask already
            self.agent_selection = self.possible_agents[self._current[0]]
            return
        self._pay_hand()
        if status == GAME_OVER:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self._terminate_seats_out()
        self._after_move()
        self._accumulate_rewards()

    def render(self) -> str | np.ndarray | None:
        """The table as text (``"ansi"``, every hand shown) or as a picture (``"rgb_array"``, see
        :mod:`domino_env.picture`): seats with hand size and score, the seat to act, the last move
        ringed, the hands of the seats in ``render_face_up`` (default none, ``"all"``: every one)
        face up and the others face down. Every picture of one configuration has one shape (the
        largest table it can show, :func:`domino_env.picture.canvas_size`), as video recorders
        need: a smaller table is padded with the felt."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode; use 'ansi' or 'rgb_array'")
            return None
        if self.render_mode == "rgb_array":
            return table_image(
                self.game, self._state, 0, face_up=self.render_face_up, last_move=self.last_move, canvas=True
            )
        return self.game.render(self._state, 0, self.possible_agents)

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ names and layout
    def action_name(self, action: int) -> str:
        """Readable name of an action index: ``"play 3-5 on left"``, ``"draw"``, ``"pass"``."""
        return self.game.action_name(action)

    def action_from_name(self, name: str) -> int:
        """The action index a name from :meth:`action_name` stands for."""
        return self.game.action_from_name(name)

    @property
    def observation_layout(self) -> dict[str, slice]:
        """Feature name -> slice of the observation vector (``observation_doc`` explains each)."""
        return self.game.observation_layout

    @property
    def observation_doc(self) -> dict[str, str]:
        return self.game.observation_doc

    @property
    def state_array(self) -> np.ndarray:
        """The engine's record of this game (a batch of one), for search agents and tests."""
        return self._state

    # ------------------------------------------------------------------ internals
    def no_game_message(self, action: Any) -> str:
        """Why ``step`` has no agent to move: never reset, or every agent already stepped out."""
        if not self._started:
            return f"step({action!r}) before reset(): call reset() to start a game"
        return (
            f"step({action!r}) after the game is over: every agent is done and has left agents; "
            "call reset() to start a new game"
        )

    def _after_move(self) -> None:
        """Select the seat to act (after a reset, or a move that ended a hand); agents that just
        finished (eliminated) step out first, as PettingZoo expects, before play resumes with
        that seat."""
        acting = self.possible_agents[self._current[0]]
        finished = [agent for agent in self.agents if self.terminations[agent]]
        if finished and len(finished) < len(self.agents):
            self._skip_agent_selection = acting
            self.agent_selection = finished[0]
        else:
            self.agent_selection = acting
        self._legal_mask(self._state, self._config, 0, self._mask)

    def _terminate_seats_out(self) -> None:
        """Mark the agents of seats the game has eliminated as terminated (they leave
        ``agents`` on their next, ``None``, step)."""
        in_play = set(self.game.seats_in_play(self._state, 0))
        for agent in self.agents:
            if self.agent_seat[agent] not in in_play:
                self.terminations[agent] = True

    def _pay_hand(self) -> None:
        self._hand_reported = True
        rewards = self.game.rewards(self._state, 0)
        hand_points = self.game.hand_points(self._state, 0)
        pips_left = self.game.pips_left(self._state, 0)
        match_points = self.game.match_points(self._state, 0)
        for agent in self.agents:
            seat = self.agent_seat[agent]
            self.rewards[agent] = float(rewards[seat])
            self.infos[agent] = {
                "hand_points": hand_points[seat],
                "pips_left": pips_left[seat],
                "match_points": list(match_points),
            }

    def _illegal_message(self, agent: str, action: int) -> str:
        legal = [self.game.action_name(a) for a in np.flatnonzero(self._mask)]
        what = self.game.action_name(action) if 0 <= action < self.game.num_actions else "out of range"
        return f"{agent} chose illegal action {action} ({what}); legal actions: {legal}"

    def _end_for_illegal(self, agent: str) -> None:
        self.rewards = {a: (ILLEGAL_PENALTY if a == agent else 0.0) for a in self.agents}
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos = {a: {"illegal_action": a == agent} for a in self.agents}
        self._state[0]["game_over"] = 1
        self._mask[:] = 0
        self._cumulative_rewards[agent] = 0.0
        self._accumulate_rewards()


def action_index(action: Any) -> int:
    """``action`` as an index; refuses what only looks like one (``3.5``, ``"3"``, ``True``), which
    ``int()`` would silently turn into a different move."""
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"an action must be an integer index, got {action!r} ({type(action).__name__})")
    return int(action)


def reset_options(options: Any) -> dict[str, Any]:
    """``reset``'s ``options`` (None: none), refused unless a dict.

    Keys other than those of :data:`RESET_OPTIONS` are ignored, as PettingZoo's protocol wants
    (its ``api_test`` resets with ``options={"options": 1}``, and wrappers may add their own), except
    a key that reads as a misspelt one (``"Deal"``, ``"deals"``): that is surely a deal the user
    meant to play, and ignoring it would play a random deal in silence.
    """
    if options is None:
        return {}
    if not isinstance(options, dict):
        what = type(options).__name__
        raise TypeError(f"reset options must be None or a dict such as {{'deal': {{...}}}}, got {what} {options!r:.60}")
    for key in options:
        if key in RESET_OPTIONS or not isinstance(key, str):
            continue
        meant = difflib.get_close_matches(key.strip().lower(), RESET_OPTIONS, n=1, cutoff=0.8)
        if meant:
            raise ValueError(
                f"reset has no option {key!r}: did you mean {meant[0]!r}? Its options are {list(RESET_OPTIONS)}"
            )
    return options


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper, except that a ``step`` after every agent has left
    raises :class:`GameOverError` (PettingZoo's only logs a warning and does nothing, so a loop
    that forgot to reset would run on without playing)."""

    def step(self, action: Any) -> None:
        if self._has_reset and not self.agents:
            raise GameOverError(self.unwrapped.no_game_message(action))
        super().step(action)


def wrap(raw: DominoEnv) -> AECEnv:
    """PettingZoo's order-enforcing wrapper, as the classic environments use it (see
    :class:`OrderEnforcingWrapper`). Bounds and legality are checked by the environment itself,
    with an error that names the legal moves."""
    return OrderEnforcingWrapper(raw)
