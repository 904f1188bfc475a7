"""Mexican Train: options, deals, action names and the text table.

The rules themselves are in :mod:`domino_env.games.mexican_train_rules`; this module only
translates between users and that engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from domino_env import options as opt
from domino_env.game import DealTiles, Game, RecordCheck
from domino_env.games import core
from domino_env.games import mexican_train_rules as rules
from domino_env.picture.table import Table, Train
from domino_env.tiles import TILE_HIGH, TILE_LOW, num_tiles, tile_faces, tile_index, tile_name, total_pips

# Hand sizes by set and player count (RULES.md section 4).
HAND_SIZES = {
    12: {2: 15, 3: 15, 4: 15, 5: 12, 6: 12, 7: 10, 8: 10},
    9: {2: 9, 3: 9, 4: 9, 5: 7, 6: 7, 7: 7, 8: 6},
}


class MexicanTrainGame(Game):
    """Mexican Train (RULES.md section 4): personal trains and one Mexican Train from a central
    engine double, markers that open a train to everyone, doubles that must be satisfied.

    Options: ``num_players`` (2-8, default 4), ``set_size`` (12, default, or 9), ``hand_size``
    (default from the rules' table), ``engine`` (``"highest_double"``, default: the holder of the
    highest double of all hands places it and may begin its own train at once; ``"descending"``:
    round k's engine is N-N minus k, placed by its holder, the seats drawing for it when nobody
    holds it; ``"set_aside"``: that engine kept out of the deal, the first seat rotating),
    ``must_play_drawn`` (a playable drawn tile must be played; default False), ``first_turn``
    (``"single"``, default, or ``"chain"``: as many tiles as fit on the own train on the first
    turn), ``double_blank_value`` (what the 0-0 left in hand costs; default 0), ``match`` (all
    N + 1 rounds as one episode, each started as ``engine`` says; default one round), ``reward``
    (``"win"`` or ``"points"``, the latter over ``config.points_scale``).

    Actions are ``"play a-b on own"``, ``"play a-b on mexican"``, ``"play a-b on train+k"`` (the
    train of the k-th seat after the actor), ``"draw"`` and ``"pass"``. ``pass`` also keeps a
    drawn tile (after every draw the seat decides), ends a first-turn chain and ends the
    starter's opening turn.

    Deals for ``reset(options={"deal": ...})``: ``{"hands": [...], "boneyard": [...], "leader":
    seat}``; the boneyard lists, next drawn first, every tile the hands do not (the engine aside
    where said below). With ``engine="highest_double"`` the hands are as dealt, ``hand_size``
    tiles each, the engine still in its holder's hand: the highest double in any hand is the
    engine and its holder the starter (``leader``, if given, must name that seat); a deal where
    no hand holds a double is refused, as the rules would deal again. With ``engine="descending"``
    the engine is N-N and sits in no hand: either it is in the boneyard, to be drawn for from seat
    0 on (``leader``, if given, must name the seat that draws it), or it is in neither and
    ``leader`` names the seat that held and placed it, whose hand then lists one tile fewer. With
    ``engine="set_aside"`` the engine N-N is in neither and ``leader`` (default 0) plays first.
    """

    name = "mexican_train"
    title = "Mexican Train"
    rules = rules
    allow_draw = True
    defaults: dict[str, Any] = {
        "num_players": 4,
        "set_size": 12,
        "hand_size": None,
        "engine": "highest_double",
        "must_play_drawn": False,
        "first_turn": "single",
        "double_blank_value": 0,
        "match": False,
        "reward": "win",
    }

    @property
    def engine_tile(self) -> int:
        """The engine double of the first round under ``descending`` and ``set_aside`` (N-N)."""
        return tile_index(self.config.set_size, self.config.set_size)

    def _make_config(self, v: dict[str, Any]) -> rules.MexicanTrainConfig:
        players = opt.integer("num_players", v["num_players"], 2, rules.MAX_PLAYERS)
        set_size = opt.one_of("set_size", v["set_size"], tuple(HAND_SIZES), "12 (double-twelve) or 9 (double-nine)")
        engine = opt.choice("engine", v["engine"], rules.ENGINE_NAMES)
        tiles = num_tiles(set_size)
        hand_size = v["hand_size"] if v["hand_size"] is not None else HAND_SIZES[set_size][players]
        # A holder dealt only the engine would go out by placing it.
        hand_size = opt.integer("hand_size", hand_size, 1 if engine == rules.ENGINE_SET_ASIDE else 2)
        dealable = tiles - (1 if engine == rules.ENGINE_SET_ASIDE else 0)
        if players * hand_size > dealable:
            raise ValueError(
                f"{players} hands of {hand_size} tiles need {players * hand_size} tiles; "
                f"the double-{set_size} set has {dealable} to deal"
            )
        blank = opt.points("double_blank_value", v["double_blank_value"], 0)
        return rules.MexicanTrainConfig(
            num_players=players,
            set_size=set_size,
            num_tiles=tiles,
            hand_size=hand_size,
            engine=engine,
            must_play_drawn=int(opt.boolean("must_play_drawn", v["must_play_drawn"])),
            first_turn=opt.choice("first_turn", v["first_turn"], rules.FIRST_TURN_NAMES),
            double_blank_value=blank,
            match=int(opt.boolean("match", v["match"])),
            reward=opt.choice("reward", v["reward"], core.REWARD_NAMES),
            points_scale=total_pips(set_size) + blank,
        )

    # ------------------------------------------------------------------ deals
    def prepare_deal(self, deal: dict[str, Any]) -> tuple[np.ndarray, int]:
        """Check ``deal`` (see the class docstring) and return (the whole set as dealt: hands in
        seat order, the engine in its holder's hand, then the boneyard; the seat that draws for
        the engine first or, with the engine set aside, plays first)."""
        cfg = self.config
        self.check_deal_keys(deal, ("hands", "boneyard", "leader"))
        hands = self.deal_hands(deal)
        if "boneyard" not in deal:
            raise ValueError("the deal needs 'boneyard' as a list of tiles")
        leader = deal.get("leader")
        if leader is not None:
            leader = opt.integer("deal['leader']", leader, 0, cfg.num_players - 1)
        tiles = DealTiles(cfg.set_size)
        dealt = [tiles.take(hand, f"hand {seat}") for seat, hand in enumerate(hands)]
        boneyard = tiles.take(deal["boneyard"], "the boneyard")
        highest = cfg.engine == rules.ENGINE_HIGHEST_DOUBLE
        engine = None if highest else self.engine_tile
        if engine is not None and any(engine in hand for hand in dealt):
            raise ValueError(
                f"with engine={rules.ENGINE_NAMES[cfg.engine]!r} the engine {tile_name(engine)} sits in no hand: "
                "leave it out and name its holder with 'leader', or put it in the boneyard to be drawn for"
            )
        missing = [tile_name(t) for t in tiles.missing(cfg.num_tiles) if t != engine]
        if missing:
            raise ValueError(f"the deal is missing tile(s) {', '.join(missing)}")
        holder = self._highest_double_holder(dealt, leader) if highest else self._engine_holder(boneyard, leader)
        for seat, hand in enumerate(dealt):
            expected = cfg.hand_size - int(seat == holder and not highest)
            if len(hand) != expected:
                less = " (the engine it placed left out)" if expected < cfg.hand_size else ""
                raise ValueError(f"hand {seat} must hold {expected} tiles{less}, got {len(hand)}")
        if holder is not None and not highest:
            dealt[holder].append(engine)
        order = [t for hand in dealt for t in hand] + boneyard
        if cfg.engine == rules.ENGINE_SET_ASIDE:
            order.append(engine)  # passed over by the deal: it waits on the hub
        first_seat = leader if leader is not None and cfg.engine == rules.ENGINE_SET_ASIDE else 0
        return np.asarray(order, dtype=np.int8), first_seat

    def _highest_double_holder(self, dealt: list[list[int]], leader: int | None) -> int:
        """The seat whose hand holds the highest double of the deal, which places it as the
        engine; refuses a deal where no hand holds a double, or whose ``leader`` is another seat."""
        holders = {tile: seat for seat, hand in enumerate(dealt) for tile in hand}
        for number in range(self.config.set_size, -1, -1):
            double = tile_index(number, number)
            if double not in holders:
                continue
            holder = holders[double]
            if leader is not None and leader != holder:
                raise ValueError(
                    f"deal['leader']={leader} disagrees with the deal: seat {holder} holds the highest double "
                    f"{tile_name(double)} and places it as the engine"
                )
            return holder
        raise ValueError(
            "no hand holds a double, so engine='highest_double' would deal again; give a deal where some hand does"
        )

    def _engine_holder(self, boneyard: list[int], leader: int | None) -> int | None:
        """The seat a deal has holding the engine N-N (None: set aside, or drawn for), after
        checking that the deal says where the engine is in a way the ``engine`` option allows."""
        engine = self.engine_tile
        if self.config.engine == rules.ENGINE_SET_ASIDE:
            if engine in boneyard:
                raise ValueError(f"with engine='set_aside' the engine {tile_name(engine)} is not in the boneyard")
            return None
        if engine in boneyard:
            drawer = boneyard.index(engine) % self.num_players  # seats draw in turn from seat 0
            if leader is not None and leader != drawer:
                raise ValueError(
                    f"deal['leader']={leader} disagrees with the draw for the engine: "
                    f"seat {drawer} draws {tile_name(engine)} from the boneyard"
                )
            return None
        if leader is None:
            raise ValueError(
                f"the deal does not say who holds the engine {tile_name(engine)}: name its holder with 'leader' "
                "or put it in the boneyard"
            )
        return leader

    # ------------------------------------------------------------------ records from outside
    def score_bounds(self) -> tuple[int, int]:
        """A round's penalty is at most ``points_scale``; a match has ``set_size + 1`` rounds."""
        cfg = self.config
        return cfg.points_scale, ((cfg.set_size + 1) * cfg.points_scale if cfg.match else cfg.points_scale)

    def _check_variant_records(self, check: RecordCheck) -> None:
        """Mexican Train's part of :meth:`check_records`. ``round_number`` and ``engine`` name
        the engine double (``double_tile`` indexes ``location`` with it); ``starter`` and
        ``pending_train`` index seats and trains; ``train_end`` indexes ``voids`` and the
        observation; the boneyard is drawn from at ``boneyard_top``. The trains are walked from
        the engine in ``play_order``, each tile meeting the train's open number, to the
        ``train_end`` recorded; the tiles on them, the engine and ``train_size`` agree with
        ``location``; the turn's flags are those a turn can be in; and in a game still played
        every seat holds a tile (a round ends when a hand empties)."""
        engine, starter, top = self._check_round(check)
        engine_tile, train_of = self._check_trains(check, engine)
        last = self._check_play_order(check, engine, engine_tile, train_of)
        self._check_turn(check, starter, top, last)

    def _check_round(self, check: RecordCheck) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The round and its engine double (``double_tile`` indexes ``location`` with it), the
        starter, and the boneyard drawn from at ``boneyard_top``. Returns the engine, the
        starter and the boneyard's top."""
        cfg = self.config
        players, tiles = cfg.num_players, cfg.num_tiles
        last_round = cfg.set_size if cfg.match else 0
        round_number = check.within("round_number", 0, last_round, "is not a round of the game")
        engine = check.within("engine", 0, cfg.set_size, f"is not a number of the set (0..{cfg.set_size})")
        if cfg.engine != rules.ENGINE_HIGHEST_DOUBLE:
            check.refuse(
                engine != cfg.set_size - round_number,
                "engine",
                engine,
                "but this round's engine is {}",
                cfg.set_size - round_number,
            )
        starter = check.within("starter", 0, players - 1, f"is not a seat of the {players}")
        undealt = tiles - players * cfg.hand_size - int(cfg.engine == rules.ENGINE_SET_ASIDE)
        size = check.get("boneyard_size")
        check.refuse(size != undealt, "boneyard_size", size, f"but the deal leaves {undealt} tiles undealt")
        top = check.get("boneyard_top")
        check.refuse((top < 0) | (top > size), "boneyard_top", top, "is outside 0..{} (boneyard_size)", size)
        check.boneyard(tiles)
        return engine, starter, top

    def _check_trains(self, check: RecordCheck, engine: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The engine on the table; ``train_of``, ``train_size`` and ``train_end`` in range and
        agreeing with ``location``. Returns the engine's tile and each tile's train."""
        cfg = self.config
        players, tiles, trains = cfg.num_players, cfg.num_tiles, cfg.num_players + 1
        location = check.get("location")[:, :tiles]
        engine_tile = engine * (engine + 1) // 2 + engine
        at = np.take_along_axis(location, engine_tile[:, None], 1)[:, 0]
        check.refuse(at != core.ON_TABLE, "engine", engine, "but its double's location is {}, not the table", at)
        train_of = check.get("train_of")
        tile = np.arange(train_of.shape[1])
        check.refuse(
            (tile >= tiles) & (train_of != rules.OFF_TRAIN),
            "train_of",
            train_of,
            f"is a tile outside the set of {tiles}: it must be -1",
        )
        train_of = train_of[:, :tiles]
        check.refuse(
            (train_of < rules.OFF_TRAIN) | (train_of >= trains),
            "train_of",
            train_of,
            f"is not -1 or a train (0..{players})",
        )
        on_train = (location == core.ON_TABLE) & (tile[:tiles] != engine_tile[:, None])
        check.refuse(on_train != (train_of >= 0), "train_of", train_of, "but the tile's location is {}", location)
        train_size = check.get("train_size")
        laid = np.zeros_like(train_size)
        laid[:, :trains] = (train_of[:, :, None] == np.arange(trains)).sum(1)
        check.refuse(train_size != laid, "train_size", train_size, "but {} tiles lie on that train", laid)
        train_end = check.within("train_end", 0, cfg.set_size, f"is not a number of the set (0..{cfg.set_size})")
        unused = np.arange(train_end.shape[1]) >= trains
        check.refuse(
            unused & (train_end != engine[:, None]),
            "train_end",
            train_end,
            "is no train of the game: it must be the engine {}",
            np.broadcast_to(engine[:, None], train_end.shape),
        )
        return engine_tile, train_of

    def _check_play_order(
        self, check: RecordCheck, engine: np.ndarray, engine_tile: np.ndarray, train_of: np.ndarray
    ) -> np.ndarray:
        """The tiles on the table were laid 0 (the engine), 1, 2, ...; each train walked in that
        order from the engine. Returns each train's last tile."""
        tiles = self.config.num_tiles
        location = check.get("location")[:, :tiles]
        on_table = location == core.ON_TABLE
        order = check.get("play_order")[:, :tiles]
        count = check.get("tiles_on_table")
        check.refuse(
            on_table & ((order < 0) | (order >= count[:, None])),
            "play_order",
            order,
            "is outside 0..tiles_on_table-1 ({})",
            np.broadcast_to(count[:, None] - 1, order.shape),
        )
        game = np.broadcast_to(np.arange(check.games)[:, None], order.shape)
        times = np.bincount((game * tiles + order)[on_table], minlength=check.games * tiles).reshape(check.games, tiles)
        check.fail(times > 1, lambda w: f"play_order: {times[w]} tiles on the table were laid at the same time {w[1]}")
        at = np.take_along_axis(order, engine_tile[:, None], 1)[:, 0]
        check.refuse(at != 0, "play_order", at, "of the engine must be 0")
        return self._walk_trains(check, engine, train_of, order)

    def _check_turn(self, check: RecordCheck, starter: np.ndarray, top: np.ndarray, last: np.ndarray) -> None:
        """A pending double on a train that ends in one, the seats' flags, the turn's flags as a
        turn can be, and in a game still played a tile in every hand."""
        cfg = self.config
        players = cfg.num_players
        pending = check.within("pending_train", rules.NO_DOUBLE, players, f"is not -1 or a train (0..{players})")
        double = np.take_along_axis(last, np.maximum(pending, 0)[:, None], 1)[:, 0]
        is_double = (double >= 0) & (TILE_LOW[np.maximum(double, 0)] == TILE_HIGH[np.maximum(double, 0)])
        # (A round ended by a seat going out on the satisfying tile keeps its pending_train.)
        live = check.get("game_over") == 0
        check.refuse(
            live & (pending != rules.NO_DOUBLE) & ~is_double,
            "pending_train",
            pending,
            "but that train does not end in a double",
        )
        for name in ("marker", "had_turn"):
            flags = check.within(name, 0, 1)
            check.refuse(
                (np.arange(flags.shape[1]) >= players) & (flags != 0),
                name,
                flags,
                f"belongs to no seat of the {players}: it must be 0",
            )
        played, drew, opening = (check.within(name, 0, 1) for name in ("turn_played", "turn_drew", "opening"))
        check.refuse((drew != 0) & (top == 0), "turn_drew", drew, "but nothing was drawn from the boneyard")
        current = check.get("current")
        had_turn = check.get("had_turn")
        starter_had = np.take_along_axis(had_turn, starter[:, None], 1)[:, 0]
        opening_ok = (current == starter) & (played == 0) & (drew == 0) & (starter_had == 0)
        opening_ok &= cfg.engine == rules.ENGINE_HIGHEST_DOUBLE  # the only mode with an opening turn
        check.refuse((opening != 0) & ~opening_ok, "opening", opening, "but this is not the starter's opening turn")
        passes = check.get("passes")
        check.refuse(passes < 0, "passes", passes, "is negative")
        hand_count = check.get("hand_count")[:, :players]
        check.refuse(
            live[:, None] & (hand_count < 1), "hand_count", hand_count, "but a round ends as soon as a seat holds none"
        )

    def _walk_trains(
        self, check: RecordCheck, engine: np.ndarray, train_of: np.ndarray, order: np.ndarray
    ) -> np.ndarray:
        """Follow every train of every game from the engine in ``play_order``, refusing a tile
        that does not meet the train's open number, and a ``train_end`` other than where the
        train ends; returns each train's last tile (-1 for an empty train). The k-th tile of
        every game's sorted trains is taken at once, so the loop runs over positions, not games."""
        games, trains = check.games, self.num_players + 1
        on_train = train_of >= 0
        key = np.where(on_train, train_of * 256 + order, 1 << 20)  # play_order < 91 < 256
        sorted_tiles = np.argsort(key, axis=1, kind="stable")
        sorted_key = np.take_along_axis(key, sorted_tiles, 1)
        open_number = np.broadcast_to(engine[:, None], (games, trains)).copy()
        last = np.full((games, trains), -1, np.int64)
        rows = np.arange(games)
        for k in range(int(on_train.sum(1).max(initial=0))):
            valid = sorted_key[:, k] < (1 << 20)
            tile = sorted_tiles[:, k]
            train = np.where(valid, sorted_key[:, k] // 256, 0)
            number = open_number[rows, train]
            low, high = TILE_LOW[tile].astype(np.int64), TILE_HIGH[tile].astype(np.int64)
            check.fail(
                valid & (low != number) & (high != number),
                lambda w, tile=tile, train=train, number=number: (
                    f"tile {tile_name(int(tile[w[0]]))} on train {train[w[0]]} does not meet its open number "
                    f"{number[w[0]]} (train_of, play_order)"
                ),
            )
            open_number[rows, train] = np.where(valid, np.where(low == number, high, low), number)
            last[rows, train] = np.where(valid, tile, last[rows, train])
        train_end = check.get("train_end")[:, :trains]
        check.refuse(train_end != open_number, "train_end", train_end, "but the train ends at {}", open_number)
        return last

    # ------------------------------------------------------------------ results
    def match_winners(self, state: np.ndarray, game: int) -> list[int]:
        """Seats with the lowest cumulative total (RULES.md: a tie shares the win)."""
        totals = self.match_points(state, game)
        return [seat for seat, total in enumerate(totals) if total == min(totals)]

    # ------------------------------------------------------------------ actions and text
    def _target_name(self, target: int) -> str:
        if target == rules.OWN:
            return "own"
        if target == rules.MEXICAN:
            return "mexican"
        return f"train+{target - 1}"

    def _action_tile(self, action: int) -> int:
        stride = self.num_players + 1
        return action // stride if action < self.config.num_tiles * stride else -1

    def _name_action(self, action: int) -> str:
        stride = self.num_players + 1
        draw = self.config.num_tiles * stride
        if action == draw:
            return "draw"
        if action == draw + 1:
            return "pass"
        return f"play {tile_name(action // stride)} on {self._target_name(action % stride)}"

    def train(self, state: np.ndarray, game: int, train: int) -> list[tuple[int, int]]:
        """Train ``train`` (seat order, then the Mexican Train) from the hub outwards, each tile
        with its faces in train order."""
        s = state[game]
        on_train = np.flatnonzero(s["train_of"][: self.config.num_tiles] == train)
        faces = []
        number = int(s["engine"])
        for tile in sorted(on_train, key=lambda t: s["play_order"][t]):
            low, high = tile_faces(int(tile))
            outer = high if low == number else low
            faces.append((number, outer))
            number = outer
        return faces

    def scene(self, state: np.ndarray, game: int) -> list[list[tuple[int, int]]]:
        """The engine, each personal train, the Mexican Train, then each hand."""
        engine = int(state[game]["engine"])
        trains = [self.train(state, game, train) for train in range(self.num_players + 1)]
        hands = [[tile_faces(t) for t in self._hand(state, game, seat)] for seat in range(self.num_players)]
        return [[(engine, engine)], *trains, *hands]

    # ------------------------------------------------------------------ the table picture
    def put_on_table(self, table: Table, state: np.ndarray, game: int, names: Sequence[str]) -> None:
        s = state[game]
        players = self.num_players
        pending = int(s["pending_train"])
        over = self.is_over(state, game)
        table.engine = int(s["engine"])
        table.trains = [
            Train(
                owner=train if train < players else None,
                label=names[train] if train < players else "Mexican Train",
                tiles=self.train(state, game, train),
                open_number=int(s["train_end"][train]),
                marker=bool(train < players and s["marker"][train]),
                pending=pending == train and not over,
            )
            for train in range(players + 1)
        ]

    def progress(self, state: np.ndarray, game: int) -> str:
        if not self.config.match:
            return "one round"
        return f"round {int(state[game]['round_number']) + 1} of {self.config.set_size + 1}"

    def say_place(self, action: int, seat: int, names: Sequence[str]) -> str:
        """The trains, which action names count from the actor's seat (``train+k``), named by
        their owners."""
        target = action % (self.num_players + 1)
        if target == rules.OWN:
            return "their own train"
        if target == rules.MEXICAN:
            return "the Mexican Train"
        return f"{names[(seat + target - 1) % self.num_players]}'s train"

    def render(self, state: np.ndarray, game: int, agent_names: list[str]) -> str:
        cfg = self.config
        s = state[game]
        players = self.num_players
        engine = int(s["engine"])
        if s["game_over"]:
            status = "over"
            if cfg.match:
                status += ", won by " + " and ".join(agent_names[seat] for seat in self.match_winners(state, game))
        else:
            status = f"{agent_names[int(s['current'])]} to act"
        lines = [
            f"{self.title} · round {int(s['round_number']) + 1} of {cfg.set_size + 1} · "
            f"engine {engine}-{engine} (started by {agent_names[int(s['starter'])]}) · {status}"
        ]
        for train in range(players + 1):
            label = "Mexican Train" if train == players else f"{agent_names[train]}'s train"
            if train < players and s["marker"][train]:
                label += " [marker]"
            tiles = "".join(f"[{a}|{b}]" for a, b in self.train(state, game, train))
            lines.append(f"{label}: {tiles or '(not started)'}  · open {int(s['train_end'][train])}")
        pending = int(s["pending_train"])
        if pending != rules.NO_DOUBLE and not s["game_over"]:
            number = int(s["train_end"][pending])
            where = "the Mexican Train" if pending == players else f"{agent_names[pending]}'s train"
            lines.append(f"double {number}-{number} on {where} must be satisfied")
        lines.append(f"boneyard: {int(s['boneyard_size'] - s['boneyard_top'])} tiles")
        for seat in range(players):
            hand = " ".join(tile_name(t) for t in self._hand(state, game, seat)) or "-"
            lines.append(f"{agent_names[seat]}: {hand}  · total {int(s['match_points'][seat])}")
        return "\n".join(lines)
