"""What every variant offers to the environments: one object that drives its compiled rules.

A variant is a ``Game`` subclass that turns the user's options into the integer configuration
its rules module reads, checks deals, names actions and draws the table. Everything that moves
the game forward is the rules module's, and ``Game`` is the only way to it from Python: the AEC
environment (a batch of one), the batched engine and the agents call the methods below (compiled
callers, such as the search agents' loops, take the functions from :attr:`Game.compiled`), so
there is exactly one implementation of each rule. What a rules module provides is written in
:mod:`domino_env.games.core`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

import numba
import numpy as np
from numba.core.dispatcher import Dispatcher

from domino_env import options as opt
from domino_env.games import core
from domino_env.rng import game_seed
from domino_env.tiles import MAX_TILES, TILE_HIGH, parse_tile, tile_faces, tile_name

if TYPE_CHECKING:
    from domino_env.picture.table import Table


class Game:
    """One variant under one set of options (see the subclasses for the options)."""

    name: str
    title: str
    rules: ModuleType
    options: dict[str, Any]  # the rule options, defaults filled in
    config: NamedTuple  # the rules' integers, readable from Python
    packed_config: np.ndarray  # the same as a one-record array: what the compiled calls take
    num_players: int
    num_actions: int
    action_tiles: np.ndarray  # [A] tile each action plays, -1 for draw / pass
    observation_size: int
    observation_layout: dict[str, slice]
    observation_doc: dict[str, str]

    defaults: dict[str, Any]  # every option of the variant with its default
    allow_draw: bool = False  # seats draw from a boneyard; without one the undealt tiles are set aside

    def __init__(self, **options: Any) -> None:
        """Check ``options`` against ``defaults``, build the config, and size the spaces from the
        rules module (``num_actions``, ``observation_size``, ``layout_sizes``)."""
        opt.refuse_unknown(self.name, options, self.defaults)
        self.options = {**self.defaults, **options}
        self.config = self._make_config(self.options)
        self.packed_config = pack_config(self.config)
        self.num_players = self.config.num_players
        self.num_actions = self.rules.num_actions(self.config)
        sizes = self.rules.layout_sizes(self.packed_config)
        self.observation_size = int(sum(sizes))
        self.observation_layout = layout_from_sizes(self.rules.OBSERVATION_BLOCKS, sizes)
        self.packed_config = pack_config(self.config, self.observation_layout)
        self.observation_doc = dict(self.rules.OBSERVATION_BLOCKS)
        self.action_tiles = np.array([self._action_tile(a) for a in range(self.num_actions)], np.int64)
        self.action_tiles.flags.writeable = False
        self.num_tiles = int(self.action_tiles.max()) + 1  # of the set in play
        self._action_names = [self._name_action(a) for a in range(self.num_actions)]
        self._action_by_name = {name: a for a, name in enumerate(self._action_names)}

    # ------------------------------------------------------------------ state and stepping
    def new_state(self, batch_size: int) -> np.ndarray:
        """A zeroed batch of ``batch_size`` games (start each with ``start`` before use)."""
        return np.zeros(batch_size, dtype=self.rules.STATE_DTYPE)

    def seed(self, state: np.ndarray, game: int, seed: int, stream: int | None = None) -> None:
        """Seed game ``game``'s own generator; ``stream`` (default ``game``) picks the stream."""
        state[game]["rng"] = game_seed(seed, game if stream is None else stream)

    def start(self, state: np.ndarray, game: int) -> None:
        """Deal a new episode from the game's generator."""
        self.rules.start_game(state, self.packed_config, game)

    def start_from_deal(self, state: np.ndarray, game: int, prepared: tuple) -> None:
        """Start a new episode from a user's deal, as checked by :meth:`prepare_deal` (which
        refuses a bad deal before anything changes)."""
        self.rules.start_game_from_deal(state, self.packed_config, game, *prepared)

    def step(self, state: np.ndarray, game: int, action: int) -> int:
        """Apply a legal action; returns ``core.PLAYING``, ``HAND_OVER`` or ``GAME_OVER``."""
        return self.rules.step(state, self.packed_config, game, action)

    def legal_mask(self, state: np.ndarray, game: int, out: np.ndarray) -> int:
        return self.rules.legal_mask(state, self.packed_config, game, out)

    def observe(self, state: np.ndarray, game: int, seat: int, out: np.ndarray) -> None:
        self.rules.observe(state, self.packed_config, game, seat, out)

    def view(self, state: np.ndarray, game: int, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """What ``seat`` is shown, as the AEC environment shows it: its observation, and its
        legal actions (all zeros when another seat is to act)."""
        observation = np.empty(self.observation_size, np.float32)
        self.observe(state, game, seat, observation)
        mask = np.zeros(self.num_actions, np.int8)
        if self.current_seat(state, game) == seat:
            self.legal_mask(state, game, mask)
        return observation, mask

    def determinize(self, state: np.ndarray, game: int, observer: int, out: np.ndarray, out_game: int) -> bool:
        """Write into ``out[out_game]`` a complete game ``observer`` cannot tell from game ``game``:
        what it sees is kept, the tiles it cannot see are dealt anew at random with ``out``'s own
        generator (see the rules module's ``determinize``). Returns whether the draw is exactly
        uniform over the consistent deals."""
        return bool(self.rules.determinize(state, self.packed_config, game, observer, out, out_game))

    def determinize_weighted(
        self, state: np.ndarray, game: int, observer: int, out: np.ndarray, out_game: int, weights: np.ndarray
    ) -> None:
        """:meth:`determinize` with the hidden tiles' places drawn in proportion to ``weights``
        (``[P + 1, num_tiles]`` float64: absolute seats, then the boneyard or the tiles set aside;
        a belief model's probabilities, from :func:`agents.belief.place_weights`) instead of
        uniformly. Every hard constraint is kept as :meth:`determinize` keeps it: what
        ``observer`` sees, each hand's size, the boneyard's or set-aside size, the voids
        (:func:`domino_env.sampling.place_weighted`)."""
        weights = self.checked_weights(weights)
        self.rules.determinize_weighted(state, self.packed_config, game, observer, out, out_game, weights)

    def determinize_worlds(
        self, state: np.ndarray, game: int, observer: int, out: np.ndarray, weights: np.ndarray | None = None
    ) -> None:
        """Every game of ``out`` determinized from game ``game`` for ``observer``, each with its
        own generator: uniformly (:meth:`determinize`), or with ``weights`` checked once and the
        places drawn in proportion to them (:meth:`determinize_weighted`). A search's worlds for
        one move, in one call."""
        if weights is None:
            for world in range(len(out)):
                self.rules.determinize(state, self.packed_config, game, observer, out, world)
            return
        weights = self.checked_weights(weights)
        for world in range(len(out)):
            self.rules.determinize_weighted(state, self.packed_config, game, observer, out, world, weights)

    def checked_weights(self, weights: np.ndarray) -> np.ndarray:
        """``weights`` as the compiled determinization takes them (contiguous float64), refused in
        one line unless finite, non-negative and of shape ``[P + 1, num_tiles]``."""
        weights = np.ascontiguousarray(weights, np.float64)
        shape = (self.num_players + 1, self.num_tiles)
        if weights.shape != shape or not np.isfinite(weights).all() or (weights < 0).any():
            raise ValueError(f"weights must be finite, non-negative, of shape {shape}, got {weights.shape}")
        return weights

    def batch_reset(self, state: np.ndarray, obs: np.ndarray, mask: np.ndarray, seat: np.ndarray) -> None:
        """Start every game of ``state`` and write each acting seat, its view and its legal
        actions (see :func:`domino_env.games.core.batch_reset`)."""
        core.batch_reset(state, self.packed_config, obs, mask, seat)

    def batch_step(self, state: np.ndarray, actions: np.ndarray, *outputs: np.ndarray, threads: bool = True) -> None:
        """One legal action per game of ``state``; ``outputs`` are ``obs, mask, seat, rewards,
        done, hand_over, hand_points`` (see :func:`domino_env.games.core.batch_step`). With
        ``threads=False`` the games are stepped on the calling thread alone
        (:func:`domino_env.games.core.batch_step_serial`)."""
        loop = core.batch_step if threads else core.batch_step_serial
        loop(state, self.packed_config, actions, *outputs)

    def machine_code(self, state: np.ndarray) -> tuple[Callable, Callable, Callable]:
        """``core.advance`` (step, then the next legal actions), ``legal_mask`` and ``observe``
        compiled for arrays like ``state``, callable without numba's dispatch, which reads the
        type of every argument on every call (about 0.7 microseconds per call for record arrays:
        most of the AEC environment's own cost per step). They take :attr:`packed_config` as
        ``cfg`` and trust their arguments: give them only ``state``, ``int`` seats and actions,
        and arrays sized as the spaces are."""
        mask = np.zeros(self.num_actions, np.int8)
        observation = np.zeros(self.observation_size, np.float32)
        return (
            machine_code(core.advance, state, self.packed_config, 0, 0, mask),
            machine_code(self.rules.legal_mask, state, self.packed_config, 0, mask),
            machine_code(self.rules.observe, state, self.packed_config, 0, 0, observation),
        )

    @property
    def compiled(self) -> CompiledRules:
        """The compiled ``step``, ``legal_mask`` and ``determinize`` themselves, for compiled
        code (which cannot call methods); they take :attr:`packed_config` as ``cfg``."""
        return CompiledRules(self.rules.step, self.rules.legal_mask, self.rules.determinize)

    @property
    def partnerships(self) -> bool:
        """Whether seats play as two teams (0 and 2 against 1 and 3); only Draw and Block have
        the option, so every other variant answers False."""
        return bool(getattr(self.config, "partnerships", 0))

    @property
    def num_sides(self) -> int:
        """How many sides play: two in partnerships, else one a seat. Seat ``s`` plays for side
        ``s % num_sides``, as the rules' ``team_of`` scores it."""
        return 2 if self.partnerships else self.num_players

    def current_seat(self, state: np.ndarray, game: int) -> int:
        return int(state[game]["current"])

    def seats_in_play(self, state: np.ndarray, game: int) -> list[int]:
        """Seats still playing; variants that eliminate players override this."""
        return list(range(self.num_players))

    def is_over(self, state: np.ndarray, game: int) -> bool:
        return bool(state[game]["game_over"])

    def rewards(self, state: np.ndarray, game: int) -> np.ndarray:
        """Each seat's reward from the last step (zero unless a hand ended)."""
        return state[game]["rewards"][: self.num_players].astype(np.float64)

    def hand_points(self, state: np.ndarray, game: int) -> list[int]:
        """What the last hand added to each seat's ``match_points``: the points it won in Draw and
        Block, the penalty pips left in its hand in Hungarian and Mexican Train."""
        return [int(x) for x in state[game]["hand_points"][: self.num_players]]

    def pips_left(self, state: np.ndarray, game: int) -> list[int]:
        """The pips left in each seat's hand when the last hand ended, in every variant (as
        RULES.md counts them: Mexican Train's double blank may count more than 0)."""
        return [int(x) for x in state[game]["pips_left"][: self.num_players]]

    def match_points(self, state: np.ndarray, game: int) -> list[int]:
        return [int(x) for x in state[game]["match_points"][: self.num_players]]

    # ------------------------------------------------------------------ records from outside
    def check_records(self, state: np.ndarray) -> None:
        """Refuse game records this game's rules could not have produced, with a one-line
        ValueError naming the first bad game, the field and its value.

        The compiled rules trust their records and check no bounds: a tile index, a seat or a
        pointer out of range in a record read from outside (the saved games of a run folder,
        which people share) would make them read or write out of bounds. So every field they use
        as an index is checked against what it indexes, every flag against its values, every
        float for being finite, and the tiles are accounted for (each tile of the set in exactly
        one place, the counters agreeing with where the tiles are), all in plain numpy over the
        whole batch, before any compiled code sees the records. The base checks what every
        variant's record shares; :meth:`_check_variant_records` the rest.
        """
        if not isinstance(state, np.ndarray) or state.dtype != self.rules.STATE_DTYPE or state.ndim != 1:
            found = f"{state.dtype} {state.shape}" if isinstance(state, np.ndarray) else type(state).__name__
            raise ValueError(f"{self.name} game records must be a 1-d array of its rules' record type, got {found}")
        check = RecordCheck(state)
        players, tiles = self.num_players, self.num_tiles
        numbers = int(TILE_HIGH[tiles - 1]) + 1
        check.within("game_over", 0, 1)
        check.within("current", 0, players - 1, f"is not a seat of the {players}")
        rewards = state["rewards"].astype(np.float64)
        check.refuse(~np.isfinite(rewards), "rewards", rewards, "is not finite")
        check.refuse(np.abs(rewards) > 1 + 1e-6, "rewards", rewards, "is outside -1..1, where the rules keep rewards")
        hand_max, match_max = self.score_bounds()
        for name, high in (
            ("rewards", 0),
            ("hand_points", hand_max),
            ("pips_left", hand_max),
            ("match_points", match_max),
        ):
            values = rewards if name == "rewards" else check.get(name)
            seat = np.arange(values.shape[1])
            check.refuse(
                (seat >= players) & (values != 0), name, values, f"belongs to no seat of the {players}: it must be 0"
            )
            if name != "rewards":
                check.refuse(
                    (values < 0) | (values > high), name, values, f"is outside 0..{high}, where the rules keep it"
                )
        location = check.get("location")
        in_set = np.arange(location.shape[1]) < tiles
        check.refuse(
            in_set & ((location < core.ON_TABLE) | (location >= players)),
            "location",
            location,
            f"is no place for a tile (-2: on the table, -1: not dealt, 0..{players - 1}: a seat's hand)",
        )
        check.refuse(
            ~in_set & (location != core.UNDEALT),
            "location",
            location,
            f"is a tile outside the set of {tiles}: it must be -1",
        )
        location = location[:, :tiles]
        hand_count = check.get("hand_count")
        held = np.zeros_like(hand_count)
        held[:, :players] = (location[:, :, None] == np.arange(players)).sum(1)
        check.refuse(hand_count != held, "hand_count", hand_count, "but the seat holds {} tiles", held)
        on_table = (location == core.ON_TABLE).sum(1)
        check.refuse(
            check.get("tiles_on_table") != on_table,
            "tiles_on_table",
            check.get("tiles_on_table"),
            "but {} tiles are on the table",
            on_table,
        )
        voids = check.get("voids")
        check.refuse(voids > 1, "voids", voids, "is not 0 or 1")
        outside = (np.arange(voids.shape[1])[:, None] >= players) | (np.arange(voids.shape[2]) >= numbers)
        check.refuse(outside & (voids != 0), "voids", voids, "names no seat or number in play: it must be 0")
        self._check_variant_records(check)

    def score_bounds(self) -> tuple[int, int]:
        """The most a seat's ``hand_points`` (and ``pips_left``) and its ``match_points`` can be."""
        raise NotImplementedError

    def _check_variant_records(self, check: RecordCheck) -> None:
        """The variant's part of :meth:`check_records`: its own fields, the line or the trains,
        the boneyard, and what a game still being played must have (a seat able to go on)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ actions
    def action_name(self, action: int) -> str:
        """Human-readable name of an action index, e.g. ``"play 3-5 on left"``."""
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is outside 0..{self.num_actions - 1}")
        return self._action_names[action]

    def action_from_name(self, name: str) -> int:
        """Inverse of :meth:`action_name`."""
        try:
            return self._action_by_name[name]
        except KeyError:
            raise ValueError(
                f"{name!r} names no action of {self.name}; names look like {self._action_names[0]!r}, 'draw' or 'pass'"
            ) from None

    # ------------------------------------------------------------------ per variant
    def _make_config(self, values: dict[str, Any]) -> NamedTuple:
        """The rules' integer config from the checked option values; refuses bad values."""
        raise NotImplementedError

    def prepare_deal(self, deal: dict[str, Any]) -> tuple:
        """Check a user's deal and return the extra arguments of ``start_game_from_deal``."""
        raise NotImplementedError

    def check_deal_keys(self, deal: Any, keys: tuple[str, ...], note: str = "") -> None:
        """Refuse a deal that is not a dict, or that names a key this variant's deals do not have
        (``keys``: the two it needs first, then the optional ones; ``note`` says why one is
        missing from them)."""
        if not isinstance(deal, dict):
            raise TypeError(f"a deal must be a dict with {keys[0]!r} and {keys[1]!r}, got {type(deal).__name__}")
        extra = set(deal) - set(keys)
        if extra:
            unknown = ", ".join(sorted(map(repr, extra)))
            raise ValueError(f"{self.name} deals have no {unknown}{note}; keys: {sorted(keys)}")

    def deal_hands(self, deal: dict[str, Any]) -> list[Any]:
        """The deal's ``hands`` (a list, tuple or numpy array), refused unless one per seat."""
        if "hands" not in deal:
            raise ValueError("the deal has no 'hands'")
        hands = as_list(deal["hands"])
        if not isinstance(hands, list) or len(hands) != self.num_players:
            got = f"{len(hands)}" if isinstance(hands, list) else f"{type(hands).__name__} {hands!r:.60}"
            raise ValueError(f"the deal must have {self.num_players} hands, one per seat, got {got}")
        return hands

    def _name_action(self, action: int) -> str:
        raise NotImplementedError

    def _action_tile(self, action: int) -> int:
        """The tile an action plays, or -1 for draw, pass and other non-plays."""
        raise NotImplementedError

    def _hand(self, state: np.ndarray, game: int, seat: int) -> list[int]:
        """The tiles ``seat`` holds, in index order."""
        return [int(t) for t in np.flatnonzero(state[game]["location"][: self.num_tiles] == seat)]

    def render(self, state: np.ndarray, game: int, agent_names: list[str]) -> str:
        raise NotImplementedError

    def scene(self, state: np.ndarray, game: int) -> list[list[tuple[int, int]]]:
        """Rows of tile faces to draw as an image: the table first, then each seat's hand."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the table picture
    # What :func:`domino_env.picture.read_table` asks each variant, so that the picture needs
    # to know no variant by its class.
    def put_on_table(self, table: Table, state: np.ndarray, game: int, names: Sequence[str]) -> None:
        """Lay the tiles in play on the picture's ``table``: a line and its open ends, or an
        engine and its trains (``names``: the seats' labels)."""
        raise NotImplementedError

    def progress(self, state: np.ndarray, game: int) -> str:
        """How far the episode has come, for the picture's header (``"hand 2"``, ``"one hand"``)."""
        raise NotImplementedError

    def turn_note(self, state: np.ndarray, game: int) -> str:
        """What to add to ``"<seat> to act"`` in the picture's header; variants whose turns are
        more than one move say so."""
        return ""

    def say_place(self, action: int, seat: int, names: Sequence[str]) -> str:
        """Where the play ``action`` by ``seat`` goes, in words for someone looking at the table:
        the end its action name gives, unless a variant can say it better."""
        return self.action_name(action).partition(" on ")[2]


class LineGame(Game):
    """A variant played on one line with two ends (Draw, Block, Hungarian): its state has the
    line fields of :data:`domino_env.games.core.LINE_FIELDS`."""

    def _line(self, state: np.ndarray, game: int) -> list[tuple[int, int]]:
        """The line of play, left to right, each tile with its faces in line order."""
        s = state[game]
        first = int(s["line_first"])
        return [(int(a), int(b)) for a, b in s["line_faces"][first : first + int(s["tiles_on_table"])]]

    def scene(self, state: np.ndarray, game: int) -> list[list[tuple[int, int]]]:
        hands = [[tile_faces(t) for t in self._hand(state, game, seat)] for seat in range(self.num_players)]
        return [self._line(state, game), *hands]

    def put_on_table(self, table: Table, state: np.ndarray, game: int, names: Sequence[str]) -> None:
        table.line = self._line(state, game)
        if table.line:
            table.open_ends = (int(state[game]["ends"][0]), int(state[game]["ends"][1]))

    def progress(self, state: np.ndarray, game: int) -> str:
        return f"hand {int(state[game]['hand_number']) + 1}" if self.config.match else "one hand"

    def _check_line(self, check: RecordCheck, closed_end: bool) -> None:
        """The line's part of :meth:`check_records` (``tiles_on_table`` checked already to count
        the tiles located on the table). ``ends``: -1 before the first tile, else numbers of the
        set (-1 also for an end closed for the hand where ``closed_end``), as the rules index by
        them. ``line_first``: where ``place`` can have put the leftmost tile, so that the next
        tile on either side stays inside ``line_faces``. The faces on the line: numbers of the
        set, each tile meeting the next, the open ends the outer faces, and the tiles they make
        exactly those located on the table. ``line_faces`` outside the line is left over from
        earlier hands and never read, so it is not checked."""
        tiles = self.num_tiles
        numbers = int(TILE_HIGH[tiles - 1]) + 1
        count = check.get("tiles_on_table")
        empty = count == 0
        ends = check.get("ends")
        check.refuse(empty[:, None] & (ends != core.NO_END), "ends", ends, "but no tile is on the line: it must be -1")
        lowest = core.NO_END if closed_end else 0
        check.refuse(
            ~empty[:, None] & ((ends < lowest) | (ends >= numbers)),
            "ends",
            ends,
            f"is not {'-1 (closed) or ' if closed_end else ''}a number of the set (0..{numbers - 1})",
        )
        first = check.get("line_first")
        leftmost = np.where(empty, MAX_TILES, MAX_TILES + 1 - count)
        check.refuse(
            (first < leftmost) | (first > MAX_TILES),
            "line_first",
            first,
            f"is outside {{}}..{MAX_TILES}, where a line of tiles_on_table tiles can start",
            leftmost,
        )
        faces = check.get("line_faces")
        position = np.arange(faces.shape[1])
        on_line = (position >= first[:, None]) & (position < (first + count)[:, None])
        check.refuse(
            on_line[:, :, None] & ((faces < 0) | (faces >= numbers)),
            "line_faces",
            faces,
            f"is not a number of the set (0..{numbers - 1})",
        )
        joined = on_line[:, :-1] & on_line[:, 1:]
        check.refuse(
            joined & (faces[:, :-1, 1] != faces[:, 1:, 0]),
            "line_faces",
            faces[:, :-1, 1],
            "does not meet the next tile's left face {}",
            faces[:, 1:, 0],
            suffix="[1]",
        )
        last = np.maximum(first + count - 1, 0)
        outer = np.stack(
            [
                np.take_along_axis(faces[:, :, 0], np.minimum(first, position[-1])[:, None], 1)[:, 0],
                np.take_along_axis(faces[:, :, 1], np.minimum(last, position[-1])[:, None], 1)[:, 0],
            ],
            axis=1,
        )
        check.refuse(
            ~empty[:, None] & (ends != core.NO_END) & (ends != outer),
            "ends",
            ends,
            "but the line's outer face there is {}",
            outer,
        )
        low, high = np.minimum(faces[:, :, 0], faces[:, :, 1]), np.maximum(faces[:, :, 0], faces[:, :, 1])
        tile = np.where(on_line, high * (high + 1) // 2 + low, 0)
        game = np.broadcast_to(np.arange(check.games)[:, None], tile.shape)
        laid = np.bincount((game * tiles + tile)[on_line], minlength=check.games * tiles).reshape(check.games, tiles)
        location = check.get("location")[:, :tiles]
        check.refuse(
            laid != (location == core.ON_TABLE),
            "location",
            location,
            "but the line holds that tile {} times",
            laid,
        )


class RecordCheck:
    """A batch of game records under :meth:`Game.check_records`, and how a check refuses them:
    with the first game, field, index and value where it fails, in one line.

    The checks run in order and stop at the first failure, so a check may use as an index any
    field an earlier check has passed: numpy then never fails on a bad value in a way that would
    hide which field held it."""

    def __init__(self, state: np.ndarray) -> None:
        self.state = state
        self.games = state.shape[0]

    def get(self, name: str) -> np.ndarray:
        """Field ``name`` of every record as int64, so that sums and products cannot wrap."""
        return self.state[name].astype(np.int64)

    def fail(self, bad: np.ndarray, message: Callable[[tuple[int, ...]], str]) -> None:
        """Raise unless ``bad`` (games first, then the field's own axes) is all false; ``message``
        says what is wrong at the first bad position (game, then the field's indices)."""
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ValueError(f"game {where[0]}: {message(where)}")

    def refuse(
        self,
        bad: np.ndarray,
        field: str,
        values: np.ndarray,
        why: str,
        other: np.ndarray | None = None,
        suffix: str = "",
    ) -> None:
        """Refuse where ``bad`` holds: ``field[index]suffix=value why``, ``why`` formatted with
        ``other`` at the same position when given."""
        values = np.broadcast_to(values, bad.shape)

        def message(where: tuple[int, ...]) -> str:
            index = "".join(f"[{i}]" for i in where[1:])
            reason = why.format(_scalar(other[where])) if other is not None else why
            return f"{field}{index}{suffix}={_scalar(values[where])} {reason}"

        self.fail(np.asarray(bad, bool), message)

    def within(self, field: str, low: int, high: int, why: str | None = None) -> np.ndarray:
        """Refuse values of ``field`` outside ``low..high``; returns the field as int64."""
        values = self.get(field)
        self.refuse((values < low) | (values > high), field, values, why or f"is outside {low}..{high}")
        return values

    def boneyard(self, tiles: int) -> None:
        """The boneyard (``boneyard``, ``boneyard_top``, ``boneyard_size``, the last two checked
        already to be ``0 <= top <= size``): the part not drawn yet, which a draw reads at the
        top, listing exactly the tiles located undealt, each once; every other entry a tile of
        the set or -1 (``determinize`` erases the drawn part), and no tile listed twice."""
        entries = self.get("boneyard")
        size, top = self.get("boneyard_size"), self.get("boneyard_top")
        position = np.arange(entries.shape[1])
        dealt = position < size[:, None]
        undrawn = dealt & (position >= top[:, None])
        outside = (entries < -1) | (entries >= tiles)
        self.refuse(outside, "boneyard", entries, f"is neither a tile of the set (0..{tiles - 1}) nor -1")
        self.refuse(undrawn & (entries < 0), "boneyard", entries, "is still to be drawn, but is not a tile")
        listed = dealt & (entries >= 0)
        game = np.broadcast_to(np.arange(self.games)[:, None], entries.shape)
        times = np.bincount((game * tiles + entries)[listed], minlength=self.games * tiles).reshape(self.games, tiles)
        self.fail(times > 1, lambda w: f"the boneyard lists tile {w[1]} {times[w]} times")
        entries = np.maximum(entries, 0)
        location = self.get("location")[:, :tiles]
        where = np.take_along_axis(location, entries, axis=1)
        self.refuse(
            undrawn & (where != core.UNDEALT), "boneyard", entries, "is not drawn yet, but its location is {}", where
        )
        undealt = (location == core.UNDEALT).sum(1)
        self.fail(
            undealt != size - top,
            lambda w: f"{undealt[w]} tiles are located undealt, but the boneyard has {(size - top)[w]} not drawn",
        )


def _scalar(value: Any) -> Any:
    """A numpy scalar as the Python number it holds, for messages."""
    return value.item() if isinstance(value, np.generic) else value


class CompiledRules(NamedTuple):
    step: Callable
    legal_mask: Callable
    determinize: Callable


def machine_code(function: Callable, *args: Any) -> Callable:
    """The compiled code of the numba function ``function`` for the types of ``args`` (compiled,
    or loaded from the cache, without running it); ``function`` itself under NUMBA_DISABLE_JIT."""
    if not isinstance(function, Dispatcher):
        return function
    return function.compile(tuple(numba.typeof(arg) for arg in args))


def as_list(value: Any) -> Any:
    """A list the user gave as a list, tuple or numpy array, as a list; anything else as it is,
    for the caller to refuse."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    return list(value) if isinstance(value, tuple) else value


class DealTiles:
    """The tiles of a user's deal, read place by place (hands, boneyard, ...), each tile given as
    ``[a, b]``, ``(a, b)`` or ``"a-b"`` with integer faces; a bad tile is refused naming its place,
    and a tile dealt twice naming both places."""

    def __init__(self, set_size: int) -> None:
        self.set_size = set_size
        self.seen: dict[int, str] = {}

    def take(self, tiles: Any, where: str, size: int | None = None) -> list[int]:
        """The tile indices of the list ``tiles`` dealt to ``where`` (``size`` tiles when given)."""
        tiles = as_list(tiles)
        if not isinstance(tiles, list):
            raise ValueError(f"{where} must be a list of tiles, got {tiles!r}")
        if size is not None and len(tiles) != size:
            raise ValueError(f"{where} must hold {size} tiles, got {len(tiles)}")
        indices = []
        for tile in tiles:
            try:
                index = parse_tile(tile, self.set_size)
            except ValueError as error:  # say where the bad tile is: a deal lists dozens
                raise ValueError(f"{where}: {error}") from None
            if index in self.seen:
                raise ValueError(f"tile {tile_name(index)} is dealt twice ({self.seen[index]} and {where})")
            self.seen[index] = where
            indices.append(index)
        return indices

    def missing(self, num_tiles: int) -> list[int]:
        """Tiles of the set not dealt so far."""
        return [t for t in range(num_tiles) if t not in self.seen]


def action_targets(action_tiles: np.ndarray) -> np.ndarray:
    """For each action that plays a tile, which of that tile's actions it is, counted in action
    order (Draw's left end 0 and right end 1; Mexican Train's trains from the actor's own); -1
    for draw and pass. The action heads score a play by its tile and this target."""
    tiles = np.asarray(action_tiles)
    return np.array([np.count_nonzero(tiles[:a] == t) if t >= 0 else -1 for a, t in enumerate(tiles)], np.int64)


def pack_config(config: NamedTuple, layout: dict[str, slice] | None = None) -> np.ndarray:
    """``config`` as a one-record numpy array with the same field names (read as
    ``cfg[0].num_players`` in compiled code), and ``at_<block>`` fields: where each block of the
    observation ``layout`` starts (read as ``cfg[0].at_hand`` by the rules' ``observe``).

    numba recognises an array argument's type several times faster than a NamedTuple's, and the
    AEC environment pays that on every compiled call. The block starts are computed once, here,
    from the rules' ``layout_sizes``: ``observe`` runs for every game at every step.
    """
    values = dict(zip(config._fields, config, strict=True))
    values |= {f"at_{name}": part.start for name, part in (layout or {}).items()}
    dtype = np.dtype((np.record, [(name, np.int64) for name in values]))
    return np.array([tuple(values.values())], dtype=dtype)


def layout_from_sizes(blocks: tuple[tuple[str, str], ...], sizes: tuple[int, ...]) -> dict[str, slice]:
    """Named slices of the observation vector from the rules module's block sizes."""
    layout: dict[str, slice] = {}
    start = 0
    for (name, _), size in zip(blocks, sizes, strict=True):
        layout[name] = slice(start, start + int(size))
        start += int(size)
    return layout
