"""Draw Dominoes and Block Dominoes: options, deals, action names and the text table.

The rules themselves are in :mod:`domino_env.games.draw_rules`; this module only translates
between users and that engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from domino_env import options as opt
from domino_env.game import DealTiles, LineGame, RecordCheck, as_list
from domino_env.games import core
from domino_env.games import draw_rules as rules
from domino_env.tiles import SET_SIZES, SMALL_SET_SIZES, num_tiles, tile_name, total_pips

# Most players each set can seat, and the default hand size (RULES.md section 1). The tiny sets
# are not in the rules' table: they seat a few players, each dealt about as many tiles as are left
# over, so that a Draw game still has a boneyard to draw from.
MAX_PLAYERS_FOR_SET = {2: 3, 3: 4, 6: 5, 9: 9, 12: 10}
DOUBLE_SIX_HANDS = {2: 7, 3: 7, 4: 6, 5: 5}


def default_set_size(num_players: int) -> int:
    return 6 if num_players <= 5 else 9 if num_players <= 9 else 12


def default_hand_size(num_players: int, set_size: int) -> int:
    if set_size in SMALL_SET_SIZES:  # double-two: 2 each for 2 players; double-three: 3, 2, 2
        return num_tiles(set_size) // (num_players + 1)
    if set_size == 6:
        return DOUBLE_SIX_HANDS.get(num_players, 5)
    if set_size == 9:
        return 7 if num_players <= 6 else 5
    return 7


class DrawGame(LineGame):
    """Draw Dominoes (RULES.md section 1).

    Options: ``num_players`` (2-10, default 2), ``set_size`` (6, 9 or 12; default by player
    count; also 2 and 3, tiny sets for exact solvers, seating up to 3 and 4 players),
    ``hand_size`` (default from the rules' table; for the tiny sets the tiles over players + 1),
    ``partnerships`` (4 players only),
    ``voluntary_draw``, ``reserve``, ``lead`` (``"highest_double"``, ``"heaviest_tile"`` or
    ``"any"``), ``leader`` (seat that leads the first hand under ``lead="any"``; later hands of a
    match rotate), ``block_scoring`` (``"opponents"`` or ``"difference"``), ``match``,
    ``target``, ``reward`` (``"win"`` or ``"points"``).
    """

    name = "draw"
    title = "Draw Dominoes"
    rules = rules
    allow_draw = True
    defaults: dict[str, Any] = {
        "num_players": 2,
        "set_size": None,
        "hand_size": None,
        "partnerships": False,
        "voluntary_draw": False,
        "reserve": 0,
        "lead": "highest_double",
        "leader": 0,
        "block_scoring": "opponents",
        "match": False,
        "target": 100,
        "reward": "win",
    }

    def _make_config(self, v: dict[str, Any]) -> rules.DrawConfig:
        players = opt.integer("num_players", v["num_players"], 2, rules.MAX_PLAYERS)
        set_size = v["set_size"] if v["set_size"] is not None else default_set_size(players)
        set_size = opt.one_of("set_size", set_size, SET_SIZES)
        if players > MAX_PLAYERS_FOR_SET[set_size]:
            raise ValueError(
                f"a double-{set_size} set seats at most {MAX_PLAYERS_FOR_SET[set_size]} players, "
                f"got num_players={players}"
            )
        tiles = num_tiles(set_size)
        hand_size = v["hand_size"] if v["hand_size"] is not None else default_hand_size(players, set_size)
        hand_size = opt.integer("hand_size", hand_size, 1)
        if players * hand_size > tiles:
            raise ValueError(
                f"{players} hands of {hand_size} tiles need {players * hand_size} tiles; "
                f"the double-{set_size} set has {tiles}: choose a smaller hand_size"
            )
        partnerships = opt.boolean("partnerships", v["partnerships"])
        if partnerships and players != 4:
            raise ValueError(f"partnerships need exactly 4 players, got num_players={players}")
        voluntary = opt.boolean("voluntary_draw", v["voluntary_draw"])
        reserve = opt.integer("reserve", v["reserve"], 0)
        boneyard = tiles - players * hand_size
        if reserve > boneyard:
            raise ValueError(f"reserve={reserve} is larger than the boneyard ({boneyard} tiles)")
        lead = opt.choice("lead", v["lead"], rules.LEAD_NAMES)
        leader = opt.integer("leader", v["leader"], 0, players - 1)
        return rules.DrawConfig(
            num_players=players,
            set_size=set_size,
            num_tiles=tiles,
            hand_size=hand_size,
            partnerships=int(partnerships),
            allow_draw=int(self.allow_draw),
            voluntary_draw=int(voluntary),
            reserve=reserve,
            lead=lead,
            first_leader=leader,
            block_scoring=opt.choice("block_scoring", v["block_scoring"], rules.BLOCK_SCORING_NAMES),
            match=int(opt.boolean("match", v["match"])),
            target=opt.points("target", v["target"], 1),
            reward=opt.choice("reward", v["reward"], core.REWARD_NAMES),
            points_scale=total_pips(set_size),
        )

    # ------------------------------------------------------------------ deals
    def prepare_deal(self, deal: dict[str, Any]) -> tuple[np.ndarray, int]:
        """Check ``deal`` and return (tile order: hands in seat order then boneyard, leader)."""
        cfg = self.config
        self.check_deal_keys(deal, ("hands", "boneyard", "leader"))
        tiles = DealTiles(cfg.set_size)
        order = [
            t
            for seat, hand in enumerate(self.deal_hands(deal))
            for t in tiles.take(hand, f"hand {seat}", cfg.hand_size)
        ]
        boneyard = as_list(deal.get("boneyard"))
        if boneyard is None and self.allow_draw:
            raise ValueError("the deal has no 'boneyard' (the undealt tiles, next drawn first)")
        if boneyard is not None:
            order += tiles.take(boneyard, "the boneyard")
        missing = tiles.missing(cfg.num_tiles)
        if missing and (boneyard is not None or self.allow_draw):
            raise ValueError(f"the deal is missing tile(s) {', '.join(map(tile_name, missing))}")
        order += missing  # Block: set aside
        dealt = order[: cfg.num_players * cfg.hand_size]
        leader = self._check_lead(dealt, deal.get("leader"))
        return np.asarray(order, dtype=np.int8), leader

    def _check_lead(self, dealt: list[int], leader: Any) -> int:
        cfg = self.config
        if leader is not None:
            leader = opt.integer("deal['leader']", leader, 0, cfg.num_players - 1)
        if cfg.lead == rules.LEAD_ANY:
            return cfg.first_leader if leader is None else leader
        state = self.new_state(1)
        rules.lay_out(state, self.packed_config, 0, np.asarray(dealt + [0] * (cfg.num_tiles - len(dealt)), np.int8))
        if not rules.choose_lead(state, self.packed_config, 0):
            raise ValueError(
                "nobody holds a double: under lead='highest_double' these hands are thrown in and "
                "redealt, so they cannot start a game"
            )
        implied = int(state[0]["leader"])
        if leader is not None and leader != implied:
            raise ValueError(
                f"deal['leader']={leader} disagrees with the lead rule "
                f"{rules.LEAD_NAMES[cfg.lead]!r}, which makes seat {implied} lead"
            )
        return cfg.first_leader

    # ------------------------------------------------------------------ actions and text
    def _action_tile(self, action: int) -> int:
        return action // 2 if action < 2 * self.config.num_tiles else -1

    def _name_action(self, action: int) -> str:
        cfg = self.config
        if action == 2 * cfg.num_tiles:
            return "draw"
        if action == 2 * cfg.num_tiles + 1:
            return "pass"
        return f"play {tile_name(action // 2)} on {('left', 'right')[action % 2]}"

    def render(self, state: np.ndarray, game: int, agent_names: list[str]) -> str:
        cfg = self.config
        s = state[game]
        line = "".join(f"[{a}|{b}]" for a, b in self._line(state, game))
        status = "over" if s["game_over"] else f"{agent_names[int(s['current'])]} to act"
        lines = [
            f"{self.title} · hand {int(s['hand_number']) + 1} · {status}",
            f"line: {line or '(empty)'}",
        ]
        if self.allow_draw:
            left = int(s["boneyard_size"] - s["boneyard_top"])
            lines.append(f"boneyard: {left} tiles ({int(rules.drawable(state, self.packed_config, game))} drawable)")
        for seat in range(cfg.num_players):
            hand = [tile_name(t) for t in self._hand(state, game, seat)]
            team = f" (team {seat % 2})" if cfg.partnerships else ""
            lines.append(f"{agent_names[seat]}{team}: {' '.join(hand) or '-'}  · points {int(s['match_points'][seat])}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ records from outside
    def score_bounds(self) -> tuple[int, int]:
        """A hand scores at most the set's pips (a blocked hand's winner holds the strictly
        lowest count, so "difference" never goes below 0); a match ends once a total reaches
        the target, so a total is below it before the last hand."""
        scale = self.config.points_scale
        return scale, (self.config.target - 1 + scale if self.config.match else scale)

    def _check_variant_records(self, check: RecordCheck) -> None:
        """Draw's and Block's part of :meth:`check_records`: the line, the boneyard (drawn from
        at ``boneyard_top``, so that must stay inside the deal's part and above the reserve),
        the lead (``lead_tile`` indexes the mask; the leader indexes ``determinize``'s
        capacities) and what a game still played has: every seat holding a tile (a hand that
        empties ends). Not checked, as ``determinize`` (for search agents) writes records without
        them and the rules play on from those safely: that the lead tile is the one the lead rule
        picks among the hands, and that the hand is not blocked."""
        cfg = self.config
        players, tiles = cfg.num_players, cfg.num_tiles
        self._check_line(check, closed_end=False)
        undealt = tiles - players * cfg.hand_size
        size = check.get("boneyard_size")
        check.refuse(size != undealt, "boneyard_size", size, f"but the deal leaves {undealt} tiles undealt")
        highest_top = max(undealt - cfg.reserve, 0) if cfg.allow_draw else 0
        why = "past the tiles that may be drawn" if cfg.allow_draw else "but Block never draws"
        check.within("boneyard_top", 0, highest_top, f"is outside 0..{highest_top}: {why}")
        check.boneyard(tiles)
        leader = check.within("leader", 0, players - 1, f"is not a seat of the {players}")
        first_leader = check.within("first_leader", 0, players - 1, f"is not a seat of the {players}")
        hand_number = check.get("hand_number")
        if not cfg.match:
            check.refuse(hand_number != 0, "hand_number", hand_number, "but a game of one hand has only hand 0")
        if cfg.lead != rules.LEAD_HIGHEST_DOUBLE:
            redeals = check.get("redeals")
            check.refuse(redeals != 0, "redeals", redeals, "but only lead='highest_double' throws hands in")
        location = check.get("location")[:, :tiles]
        leading = check.get("tiles_on_table") == 0
        lead_tile = check.get("lead_tile")
        if cfg.lead == rules.LEAD_ANY:
            check.refuse(
                lead_tile != -1, "lead_tile", lead_tile, "but under lead='any' any tile may lead: it must be -1"
            )
            rotated = (first_leader + hand_number) % players
            check.refuse(leader != rotated, "leader", leader, "but lead='any' passes the lead to seat {}", rotated)
        else:
            check.within("lead_tile", 0, tiles - 1, f"is not a tile of the set (0..{tiles - 1})")
            at = np.take_along_axis(location, lead_tile[:, None], 1)[:, 0]
            check.refuse(leading & (at != leader), "lead_tile", lead_tile, "is to lead, but its location is {}", at)
            check.refuse(~leading & (at != core.ON_TABLE), "lead_tile", lead_tile, "led, but its location is {}", at)
        live = check.get("game_over") == 0
        check.refuse(
            live & leading & (check.get("current") != leader),
            "leader",
            leader,
            "must lead, but seat {} is to act",
            check.get("current"),
        )
        hand_count = check.get("hand_count")[:, :players]
        check.refuse(
            live[:, None] & (hand_count < 1), "hand_count", hand_count, "but a hand ends as soon as a seat holds none"
        )
        if cfg.match:
            points = check.get("match_points")[:, :players]
            check.refuse(
                live[:, None] & (points >= cfg.target),
                "match_points",
                points,
                f"reaches the target {cfg.target}, but the match goes on",
            )


class BlockGame(DrawGame):
    """Block Dominoes (RULES.md section 2): the draw engine with drawing switched off.

    Options: ``num_players`` (2-4), ``hand_size`` (default 7; the undealt tiles are never used),
    ``partnerships`` (default on with 4 players), ``lead`` (default ``"any"``), ``leader``,
    ``block_scoring``, ``match``, ``target``, ``reward``; ``set_size`` as for draw (the tiny sets
    2 and 3 need a ``hand_size`` that fits them, since the default 7 does not).
    """

    name = "block"
    title = "Block Dominoes"
    allow_draw = False
    defaults: dict[str, Any] = {
        key: value for key, value in DrawGame.defaults.items() if key not in ("voluntary_draw", "reserve")
    } | {"lead": "any", "hand_size": 7, "partnerships": None}

    def _make_config(self, v: dict[str, Any]) -> rules.DrawConfig:
        players = opt.integer("num_players", v["num_players"], 2, 4)
        partnerships = players == 4 if v["partnerships"] is None else v["partnerships"]
        return super()._make_config(
            {**v, "num_players": players, "partnerships": partnerships, "voluntary_draw": False, "reserve": 0}
        )
