"""Mexican Train: options, deals, action names and the text table.

The rules themselves are in :mod:`domino_env.games.mexican_train_rules`; this module only
translates between users and that engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from domino_env import options as opt
from domino_env.game import DealTiles, Game
from domino_env.games import core
from domino_env.games import mexican_train_rules as rules
from domino_env.picture.table import Table, Train
from domino_env.tiles import num_tiles, tile_faces, tile_index, tile_name, total_pips

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
