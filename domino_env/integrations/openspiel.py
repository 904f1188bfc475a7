"""Every variant as an OpenSpiel game, for OpenSpiel's solvers (CFR, exploitability, best responses).

Importing this module registers ``domino_env_draw``, ``domino_env_block``, ``domino_env_hungarian``
and ``domino_env_mexican_train`` with ``pyspiel`` (the ``bench`` extra)::

    import pyspiel
    import domino_env.integrations.openspiel  # noqa: F401  (registers the games)

    game = pyspiel.load_game("domino_env_block", {"set_size": 2, "hand_size": 2})

The rules are the project's own: each OpenSpiel state drives the variant's :class:`~domino_env.game.Game`
(``start_from_deal(prepare_deal(deal))``, then ``step``), so legal actions, observations and
rewards are exactly the AEC environment's. What this module adds is what OpenSpiel needs and the
engine hides: explicit chance nodes, and information states.

**Parameters** are the variant's rule options with their defaults. OpenSpiel parameters cannot be
``None``, so an option whose default is ``None`` (``set_size``, ``hand_size``, Block's
``partnerships``) is an int here with :data:`DEFAULT` (-1) meaning "the variant's default";
``partnerships`` otherwise reads 0 or 1. ``match=True`` is refused: later hands of a match are
dealt by the engine's own generator, which OpenSpiel could not see as chance nodes. ``reward``
picks the returns ("win": +1 shared by the winners, -1 by the losers; "points").

**Chance model.** One chance node per tile dealt, hands in seat order; within a hand the tiles
come in increasing index order, each outcome weighted by how many complete deals it leaves, so
the deal is uniform over sets of hands while the chance tree is ``hand_size!`` times smaller per
hand than dealing in every order. Where the rules throw in a deal and redeal (``lead`` or
``engine`` = ``"highest_double"`` with no double dealt), the weights count only deals holding a
double: the same distribution as redealing, without an unbounded tree. The boneyard is not
ordered at the deal: each draw is a chance node uniform over the tiles no one has seen yet, so the
chance tree holds only orders that matter (Mexican Train's draws for a ``"descending"`` engine
nobody holds are such chance nodes too, and Hungarian's lot for the first leader is one node).
The engine state is built once the deal is complete, with the boneyard ordered as the tiles were
drawn, and rebuilt (replaying the moves) after each draw; other moves step it directly.

**Information state** of a seat: its own dealt hand, and every event in order: each player's
action (all public), the tile behind each of its own draws, public chance (the lot, a drawn
engine), and how many tiles have been dealt. That is everything the seat has seen, so it tells
apart exactly the histories the seat can (perfect recall), as CFR needs. The tensor holds the
observation, the dealt hand one-hot, then one row per event of three numbers (relative actor + 1,
event code + 1, tile seen + 1; zeros pad): exact, but compact rather than one-hot, so learners
should prefer the observation tensor, which is the environment's observation vector
(:meth:`Game.observe`, layout in ``game.observation_layout``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from domino_env.game import Game
from domino_env.games import draw_rules
from domino_env.integrations import require
from domino_env.tiles import TILE_HIGH, TILE_LOW, tile_faces, tile_index, tile_name
from domino_env.variants import GAMES

pyspiel = require("pyspiel", "bench")

DEFAULT = -1  # an int parameter's value for "the variant's default" (the option's default is None)
PREFIX = "domino_env_"
BOOLEAN_WHEN_SET = ("partnerships",)  # None-default options that are booleans once given

# Event codes of the information state beyond the player actions (0 .. num_actions - 1).
_LOT, _ENGINE_DRAW = 0, 1


def short_name(variant: str) -> str:
    return PREFIX + variant


def parameter_spec(variant: str) -> dict[str, Any]:
    """The OpenSpiel parameters of ``variant``: its rule options, ``None`` as :data:`DEFAULT`."""
    return {key: DEFAULT if value is None else value for key, value in GAMES[variant].defaults.items()}


def options_from_params(variant: str, params: dict[str, Any]) -> dict[str, Any]:
    """The rule options that OpenSpiel ``params`` stand for (the inverse of :func:`parameter_spec`)."""
    options = {}
    for key, default in GAMES[variant].defaults.items():
        value = params.get(key, DEFAULT if default is None else default)
        if default is None:
            value = None if value == DEFAULT else bool(value) if key in BOOLEAN_WHEN_SET else value
        options[key] = value
    if options.get("match"):
        raise ValueError(
            f"{short_name(variant)} plays one hand: the engine deals a match's later hands from its own "
            "generator, which OpenSpiel cannot see as chance nodes; leave match=False"
        )
    return options


class _Rules:
    """What every state of one game shares: the project's Game and how its deal is made.
    Immutable, so a state's deep copy (OpenSpiel's clone) keeps it shared."""

    def __init__(self, variant: str, options: dict[str, Any]) -> None:
        self.variant = variant
        self.game: Game = GAMES[variant](**options)
        game, cfg = self.game, self.game.config
        self.players = game.num_players
        self.tiles = game.num_tiles
        self.draw_action = -1
        if game.allow_draw:
            self.draw_action = game.action_from_name("draw")
        engine_name = ""
        self.engine_tile = -1
        if variant == "hungarian":
            from domino_env.games import hungarian_rules

            self.hand = int(hungarian_rules.hand_size(self.players))
        else:
            self.hand = int(cfg.hand_size)
        if variant == "mexican_train":
            from domino_env.games import mexican_train_rules as mt

            engine_name = mt.ENGINE_NAMES[cfg.engine]
            self.engine_tile = tile_index(cfg.set_size, cfg.set_size)
        lead = getattr(cfg, "lead", None) if variant in ("draw", "block") else None
        self.lot = variant == "hungarian"  # the first leader is drawn by lot
        self.need_double = engine_name == "highest_double" or lead == draw_rules.LEAD_HIGHEST_DOUBLE
        self.search_engine = engine_name == "descending"  # nobody holds N-N: draw for it
        self.set_aside = self.engine_tile if engine_name == "set_aside" else -1
        self.pool = [t for t in range(self.tiles) if t != self.set_aside]
        self.double = np.array([TILE_LOW[t] == TILE_HIGH[t] for t in range(self.tiles)], bool)
        self.to_deal = self.players * self.hand
        boneyard = len(self.pool) - self.to_deal
        # Moves: each tile is played once and drawn at most once; a pass either closes a turn that
        # played or drew (Mexican Train) or is one of fewer than P in a row before a play.
        plays_and_draws = self.tiles + boneyard
        self.max_moves = plays_and_draws + self.players * (plays_and_draws + 1)
        self.max_events = self.max_moves + boneyard + 1
        self.observation_size = game.observation_size
        self.info_size = game.observation_size + self.tiles + 3 * self.max_events

    def __deepcopy__(self, memo: dict) -> _Rules:
        return self

    # ------------------------------------------------------------------ the deal's chance nodes
    def deal_outcomes(self, deal: list[int]) -> list[tuple[int, float]]:
        """The next tile of the deal and its probability, uniform over complete deals (see the
        module docstring)."""
        last = deal[-1] if len(deal) % self.hand else -1
        taken = set(deal)
        weights = [(t, self.completions([*deal, t])) for t in self.pool if t > last and t not in taken]
        weights = [(t, w) for t, w in weights if w > 0]
        total = sum(w for _, w in weights)
        return [(t, w / total) for t, w in weights]

    def completions(self, deal: list[int]) -> int:
        """How many ways the rest of the deal can go (hands as sets, each dealt in increasing
        order), counting only deals with a double in some hand where the rules need one."""
        taken = set(deal)
        undealt = [t for t in self.pool if t not in taken]
        filled = len(deal) % self.hand
        need = self.hand - filled if filled else 0
        later = self.players - (len(deal) + need) // self.hand
        last = deal[-1] if filled else -1
        above = [t for t in undealt if t > last]

        def count(free: list[int], free_above: list[int]) -> int:
            ways = math.comb(len(free_above), need)
            rest = len(free) - need
            for i in range(later):
                ways *= math.comb(rest - i * self.hand, self.hand)
            return ways

        ways = count(undealt, above)
        if self.need_double and not any(self.double[t] for t in deal):
            plain = [t for t in undealt if not self.double[t]]
            ways -= count(plain, [t for t in above if not self.double[t]])
        return ways

    def unseen(self, deal: list[int], drawn: list[int]) -> list[int]:
        """Tiles still in the boneyard, none of them seen by anyone: what a draw may bring."""
        seen = set(deal) | set(drawn)
        return [t for t in self.pool if t not in seen]

    # ------------------------------------------------------------------ the engine
    def deal_dict(self, deal: list[int], drawn: list[int], leader: int) -> dict[str, Any]:
        """The deal as the variant's ``prepare_deal`` reads it, the boneyard in draw order."""
        hands = [sorted(deal[seat * self.hand : (seat + 1) * self.hand]) for seat in range(self.players)]
        rest = self.unseen(deal, drawn)
        if self.variant == "hungarian":
            return {"hands": _faces(hands), "set_aside": _faces([rest])[0], "leader": leader}
        result: dict[str, Any] = {"hands": hands, "boneyard": drawn + rest}
        if self.search_engine:
            holder = next((seat for seat, hand in enumerate(hands) if self.engine_tile in hand), None)
            if holder is not None:  # its holder places it while dealing: the deal lists it in no hand
                hands[holder].remove(self.engine_tile)
                result["leader"] = holder
        result["hands"] = _faces(result["hands"])
        result["boneyard"] = _faces([result["boneyard"]])[0]
        return result

    def build(self, deal: list[int], drawn: list[int], leader: int, moves: list[int]) -> np.ndarray:
        """The engine state after ``moves`` from the deal, draws taking ``drawn`` in order."""
        state = self.game.new_state(1)
        self.game.start_from_deal(state, 0, self.game.prepare_deal(self.deal_dict(deal, drawn, leader)))
        for action in moves:
            self.game.step(state, 0, action)
        return state


def _faces(groups: list[list[int]]) -> list[list[list[int]]]:
    return [[list(tile_faces(t)) for t in group] for group in groups]


class DominoGame(pyspiel.Game):
    """One variant under one set of parameters, as an OpenSpiel game (see the module docstring)."""

    variant: str

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**parameter_spec(self.variant), **(params or {})}
        self.rules = _Rules(self.variant, options_from_params(self.variant, params))
        rules = self.rules
        exact = rules.players == 2 or rules.game.partnerships
        info = pyspiel.GameInfo(
            num_distinct_actions=rules.game.num_actions,
            max_chance_outcomes=max(rules.tiles, rules.players),
            num_players=rules.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if exact else None,
            max_game_length=rules.max_moves,
        )
        super().__init__(game_type(self.variant, zero_sum=exact), info, params)

    def new_initial_state(self) -> DominoState:
        return DominoState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> DominoObserver:
        if params:
            raise ValueError(f"observer parameters are not supported; got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return DominoObserver(self.rules, perfect_recall)


class DominoState(pyspiel.State):
    """A history: the deal so far, the draws, the moves; the engine state built from them."""

    def __init__(self, game: DominoGame) -> None:
        super().__init__(game)
        self.rules = game.rules
        self.leader = -1 if self.rules.lot else 0  # Hungarian's lot, its first chance node
        self.deal: list[int] = []
        self.drawn: list[int] = []  # boneyard tiles in the order they left it
        self.moves: list[int] = []  # player actions, in order
        self.events: list[tuple[int, int, int]] = []  # (seat, code, tile or -1): see the observer
        self.pending_draw = False
        self.engine: np.ndarray | None = None
        self.returns_so_far = np.zeros(self.rules.players)

    # ------------------------------------------------------------------ where we are
    def _phase_chance(self) -> bool:
        if self.leader < 0 or len(self.deal) < self.rules.to_deal or self.pending_draw:
            return True
        return self._searching()

    def _searching(self) -> bool:
        """Seats still drawing for a descending engine nobody was dealt."""
        rules = self.rules
        return rules.search_engine and rules.engine_tile not in self.deal and rules.engine_tile not in self.drawn

    def current_player(self) -> int:
        if self.engine is not None and self.rules.game.is_over(self.engine, 0):
            return pyspiel.PlayerId.TERMINAL
        if self._phase_chance():
            return pyspiel.PlayerId.CHANCE
        return self.rules.game.current_seat(self.engine, 0)

    def is_terminal(self) -> bool:
        return self.engine is not None and self.rules.game.is_over(self.engine, 0)

    def returns(self) -> list[float]:
        return [float(x) for x in self.returns_so_far]

    def _legal_actions(self, player: int) -> list[int]:
        mask = np.zeros(self.rules.game.num_actions, np.int8)
        self.rules.game.legal_mask(self.engine, 0, mask)
        return [int(a) for a in np.flatnonzero(mask)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        rules = self.rules
        if self.leader < 0:
            return [(seat, 1.0 / rules.players) for seat in range(rules.players)]
        if len(self.deal) < rules.to_deal:
            return rules.deal_outcomes(self.deal)
        unseen = rules.unseen(self.deal, self.drawn)
        return [(t, 1.0 / len(unseen)) for t in unseen]

    # ------------------------------------------------------------------ moving on
    def _apply_action(self, action: int) -> None:
        rules = self.rules
        if self.is_chance_node():
            self._apply_chance(int(action))
        elif action == rules.draw_action:  # the tile drawn is the next chance node's
            self.moves.append(int(action))
            self.events.append((self.current_player(), int(action), -1))
            self.pending_draw = True
        else:
            self.moves.append(int(action))
            self.events.append((self.current_player(), int(action), -1))
            rules.game.step(self.engine, 0, int(action))
            self.returns_so_far += rules.game.rewards(self.engine, 0)

    def _apply_chance(self, outcome: int) -> None:
        rules = self.rules
        if self.leader < 0:
            self.leader = outcome
            self.events.append((outcome, rules.game.num_actions + _LOT, -1))
        elif len(self.deal) < rules.to_deal:
            self.deal.append(outcome)
        elif self.pending_draw:
            seat, code, _ = self.events[-1]
            self.events[-1] = (seat, code, outcome)
            self.drawn.append(outcome)
            self.pending_draw = False
            self.engine = rules.build(self.deal, self.drawn, self.leader, self.moves)
            self.returns_so_far += rules.game.rewards(self.engine, 0)
            return
        else:  # drawing for the engine, seats in turn from seat 0
            seat = len(self.drawn) % rules.players
            self.drawn.append(outcome)
            self.events.append((seat, rules.game.num_actions + _ENGINE_DRAW, outcome))
        if not self._phase_chance():
            self.engine = rules.build(self.deal, self.drawn, self.leader, self.moves)

    def _action_to_string(self, player: int, action: int) -> str:
        rules = self.rules
        if player != pyspiel.PlayerId.CHANCE:
            return rules.game.action_name(action)
        if self.leader < 0:
            return f"lot: seat {action} leads"
        if len(self.deal) < rules.to_deal:
            return f"deal {tile_name(action)} to seat {len(self.deal) // rules.hand}"
        return f"draw {tile_name(action)}"

    # ------------------------------------------------------------------ for tests and users
    def engine_deal(self) -> dict[str, Any]:
        """The deal as far as chance has made it, in the form ``reset(options={"deal": ...})``
        takes (undrawn boneyard tiles in index order); complete once the game is over."""
        return self.rules.deal_dict(self.deal, self.drawn, self.leader)

    def seen_by(self, player: int) -> tuple:
        """Everything ``player`` has seen: its dealt hand and the events with other seats' draws
        hidden (see the module docstring)."""
        rules = self.rules
        own = sorted(self.deal[player * rules.hand : (player + 1) * rules.hand])
        events = []
        for seat, code, tile in self.events:
            public = code == rules.game.num_actions + _ENGINE_DRAW and tile == rules.engine_tile
            events.append((seat, code, tile if seat == player or public else -1))
        return own, len(self.deal), events

    def __str__(self) -> str:
        if self.engine is None:
            return f"dealing: {' '.join(map(tile_name, self.deal))}"
        names = [f"player_{seat}" for seat in range(self.rules.players)]
        return self.rules.game.render(self.engine, 0, names)


class DominoObserver:
    """Observations (``perfect_recall=False``: the environment's observation vector) and
    information states (``perfect_recall=True``: see the module docstring)."""

    def __init__(self, rules: _Rules, perfect_recall: bool) -> None:
        self.rules = rules
        self.perfect_recall = perfect_recall
        size = rules.info_size if perfect_recall else rules.observation_size
        self.tensor = np.zeros(size, np.float32)
        game = rules.game
        self.dict = {name: self.tensor[part] for name, part in game.observation_layout.items()}
        if perfect_recall:
            start = rules.observation_size
            self.dict["dealt"] = self.tensor[start : start + rules.tiles]
            self.dict["events"] = self.tensor[start + rules.tiles :].reshape(rules.max_events, 3)

    def _observe(self, state: DominoState, player: int) -> np.ndarray:
        observation = self.tensor[: self.rules.observation_size]
        if state.engine is not None:
            self.rules.game.observe(state.engine, 0, player, observation)
        else:  # still dealing: only the seat's own tiles so far
            observation[:] = 0.0
            hand = self.rules.game.observation_layout["hand"]
            for t in state.seen_by(player)[0]:
                observation[hand.start + t] = 1.0
        return observation

    def set_from(self, state: DominoState, player: int) -> None:
        self.tensor.fill(0.0)
        self._observe(state, player)
        if not self.perfect_recall:
            return
        own, _, events = state.seen_by(player)
        self.dict["dealt"][own] = 1.0
        players = self.rules.players
        for row, (seat, code, tile) in enumerate(events):
            self.dict["events"][row] = ((seat - player) % players + 1, code + 1, tile + 1)

    def string_from(self, state: DominoState, player: int) -> str:
        if self.perfect_recall:
            own, dealt, events = state.seen_by(player)
            rules = self.rules
            parts = [f"p{player} hand {' '.join(map(tile_name, own))} dealt {dealt}"]
            for seat, code, tile in events:
                if code == rules.game.num_actions + _LOT:
                    parts.append(f"lot s{seat}")
                    continue
                name = "draws for engine" if code >= rules.game.num_actions else rules.game.action_name(code)
                parts.append(f"s{seat} {name}" + (f" {tile_name(tile)}" if tile >= 0 else ""))
            return " | ".join(parts)
        observation = self._observe(state, player)
        parts = [f"p{player}"]
        for name, part in self.rules.game.observation_layout.items():
            block = observation[part]
            nonzero = np.flatnonzero(block)
            if len(nonzero):
                parts.append(f"{name}:" + ",".join(f"{i}={block[i]:g}" for i in nonzero))
        return " ".join(parts)


def game_type(variant: str, zero_sum: bool = True) -> Any:
    """The game's OpenSpiel type. Every reward convention of every variant is zero-sum in exact
    arithmetic (the winners' +1 is the losers' -1; points are measured from their mean), but the
    engine pays float32 rewards: shares such as 1/3 sum to zero only within float32 rounding,
    which OpenSpiel's zero-sum checks refuse. So a game is declared zero-sum where the sum is
    exactly zero (2 players, or two partnerships), and general-sum otherwise."""
    cls = GAMES[variant]
    maximum = {"draw": 10, "block": 4, "hungarian": 4, "mexican_train": 8}[variant]
    return pyspiel.GameType(
        short_name=short_name(variant),
        long_name=f"domino_env {cls.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=maximum,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_spec(variant),
    )


def _register() -> None:
    """Register each variant once (a second import, e.g. after a reload, keeps the first)."""
    registered = set(pyspiel.registered_names())
    for variant in GAMES:
        cls = type(f"{GAMES[variant].__name__}OpenSpiel", (DominoGame,), {"variant": variant})
        globals()[cls.__name__] = cls
        if short_name(variant) not in registered:
            pyspiel.register_game(game_type(variant), cls)


_register()
