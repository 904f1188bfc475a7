"""Hungarian Dominoes: options, deals, action names and the text table.

The rules themselves are in :mod:`domino_env.games.hungarian_rules`; this module only translates
between users and that engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from domino_env import options as opt
from domino_env.game import DealTiles, LineGame, RecordCheck, as_list
from domino_env.games import core
from domino_env.games import hungarian_rules as rules
from domino_env.tiles import tile_name

SIDES = ("left", "right")


class HungarianGame(LineGame):
    """Hungarian Dominoes (RULES.md section 3): no boneyard, 4 tiles set aside unseen, and each
    turn a run of tiles that the player must keep extending while one fits.

    Options: ``num_players`` (2-4, default 2; 12, 8 or 6 tiles each), ``open_ends`` (1, default,
    or 2), ``end_on_domino`` (default True; False plays on until the hand is blocked), ``match``
    (a whole match as one episode), ``limit`` (default 100: the first total to reach it loses the
    match), ``elimination`` (with ``match``: players reaching the limit drop out until one is
    left), ``reward`` (``"win"`` or ``"points"``, the latter over the set's 168 pips).

    Actions are ``"play a-b on left"`` / ``"play a-b on right"`` and ``"pass"``. With one open
    end the first tile's side is the end that stays open (``on left`` keeps ``a`` open, ``on
    right`` keeps ``b``) and later tiles go on that side; with two, the first tile is played
    ``on left``. A player who cannot play at the start of their turn passes; a player who can
    must keep playing, and the turn moves on by itself when no tile fits the run's end.

    Deals for ``reset(options={"deal": ...})``: ``{"hands": [...], "set_aside": [...],
    "leader": seat}``; ``set_aside`` may be omitted (the undealt tiles), and without
    ``leader`` the first leader is drawn by lot from the seed.
    """

    name = "hungarian"
    title = "Hungarian Dominoes"
    rules = rules
    defaults: dict[str, Any] = {
        "num_players": 2,
        "open_ends": 1,
        "end_on_domino": True,
        "match": False,
        "limit": 100,
        "elimination": False,
        "reward": "win",
    }

    def _make_config(self, v: dict[str, Any]) -> rules.HungarianConfig:
        match = opt.boolean("match", v["match"])
        elimination = opt.boolean("elimination", v["elimination"])
        if elimination and not match:
            raise ValueError("option elimination is a way to play a match: set match=True as well")
        return rules.HungarianConfig(
            num_players=opt.integer("num_players", v["num_players"], 2, rules.MAX_PLAYERS),
            open_ends=opt.integer("open_ends", v["open_ends"], 1, 2),
            end_on_domino=int(opt.boolean("end_on_domino", v["end_on_domino"])),
            match=int(match),
            limit=opt.points("limit", v["limit"], 1),
            elimination=int(elimination),
            reward=opt.choice("reward", v["reward"], core.REWARD_NAMES),
        )

    # ------------------------------------------------------------------ seats
    def seats_in_play(self, state: np.ndarray, game: int) -> list[int]:
        """Seats not eliminated (in a plain match the loser also leaves this list once the match
        is over). An environment removes the agents of the other seats."""
        return [seat for seat in range(self.num_players) if not state[game]["lost"][seat]]

    def turn_note(self, state: np.ndarray, game: int) -> str:
        """A turn is a run of tiles while one fits: the seat to act may be the one that just played."""
        return "again: the run goes on" if state[game]["run_active"] else ""

    # ------------------------------------------------------------------ records from outside
    def score_bounds(self) -> tuple[int, int]:
        """A hand's penalty is at most the set's pips; a seat whose total reaches the limit plays
        no further hand (it loses, or is eliminated and then holds nothing)."""
        scale = rules.POINTS_SCALE
        return scale, (self.config.limit - 1 + scale if self.config.match else scale)

    def _check_variant_records(self, check: RecordCheck) -> None:
        """Hungarian's part of :meth:`check_records`: the line (one end closed with
        ``open_ends=1``), the run (``run_end`` indexes the observation and ``ends``), the seats
        out of play (``next_in_play`` loops until it finds a seat in play, so a game still played
        keeps two), the four tiles set aside, and what a game still played has: the seat to act
        and the leader in play, hands no larger than the deal's. Not checked, as ``determinize``
        (for search agents) writes records without them and the rules play on from those
        safely: that a seat in the middle of a run holds a tile for it, and that the hand is not
        blocked."""
        closed = self.config.open_ends == 1
        self._check_line(check, closed_end=closed)
        self._check_open_ends(check, closed)
        lost, live, in_play = self._check_seats_in_play(check)
        out = lost[:, : self.config.num_players] != 0
        self._check_hands(check, live, out, in_play)
        self._check_run(check, closed)
        self._check_match(check, live, out)

    def _check_open_ends(self, check: RecordCheck, closed: bool) -> None:
        """A line with tiles keeps one end open with ``open_ends=1``, both with 2."""
        count = check.get("tiles_on_table")
        ends = check.get("ends")
        open_ends = (ends != core.NO_END).sum(1)
        want = 1 if closed else 2
        check.fail(
            (count > 0) & (open_ends != want),
            lambda w: f"ends={ends[w[0]].tolist()}, but open_ends={self.config.open_ends} keeps {want} open",
        )

    def _check_seats_in_play(self, check: RecordCheck) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``lost`` per seat, and the seat to act and the leader in play: ``next_in_play`` loops
        until it finds a seat in play, so a game still played keeps two. Returns ``lost``,
        whether each game is still played, and how many seats play in it."""
        cfg = self.config
        players = cfg.num_players
        lost = check.within("lost", 0, 1)
        seat = np.arange(lost.shape[1])
        check.refuse(
            (seat >= players) & (lost != 0), "lost", lost, f"belongs to no seat of the {players}: it must be 0"
        )
        live = check.get("game_over") == 0
        in_play = players - lost.sum(1)
        check.fail(
            live & (in_play < 2), lambda w: f"lost={lost[w[0], :players].tolist()} leaves fewer than 2 seats to play on"
        )
        if not cfg.elimination:
            check.refuse(
                live[:, None] & (lost != 0), "lost", lost, "but only elimination or the match's end puts a seat out"
            )
        current = check.get("current")
        at = np.take_along_axis(lost, current[:, None], 1)[:, 0]
        check.refuse(live & (at != 0), "current", current, "is a seat out of play")
        leader = check.within("leader", 0, players - 1, f"is not a seat of the {players}")
        at = np.take_along_axis(lost, leader[:, None], 1)[:, 0]
        check.refuse(live & (at != 0), "leader", leader, "is a seat out of play")
        count = check.get("tiles_on_table")
        check.refuse(live & (count == 0) & (current != leader), "current", current, "but seat {} leads", leader)
        return lost, live, in_play

    def _check_hands(self, check: RecordCheck, live: np.ndarray, out: np.ndarray, in_play: np.ndarray) -> None:
        """Four tiles set aside; hands no larger than the deal's, empty for seats out of play."""
        location = check.get("location")
        aside = (location == rules.SET_ASIDE).sum(1)
        check.fail(
            aside != rules.SET_ASIDE_TILES, lambda w: f"{aside[w]} tiles are set aside, not {rules.SET_ASIDE_TILES}"
        )
        hand_count = check.get("hand_count")[:, : self.config.num_players]
        check.refuse(live[:, None] & out & (hand_count != 0), "hand_count", hand_count, "but the seat is out of play")
        dealt = (rules.NUM_TILES - rules.SET_ASIDE_TILES) // np.maximum(in_play, 1)
        check.refuse(
            live[:, None] & (hand_count > dealt[:, None]),
            "hand_count",
            hand_count,
            "is more than the deal's {}",
            np.broadcast_to(dealt[:, None], hand_count.shape),
        )
        if self.config.end_on_domino:
            check.refuse(
                live[:, None] & ~out & (hand_count < 1),
                "hand_count",
                hand_count,
                "but a hand ends as soon as a seat holds none",
            )

    def _check_run(self, check: RecordCheck, closed: bool) -> None:
        """A run in progress is bound to an open end (``run_end`` indexes ``ends``)."""
        count = check.get("tiles_on_table")
        ends = check.get("ends")
        active = check.within("run_active", 0, 1)
        run_end = check.within("run_end", core.NO_END, core.RIGHT)
        check.refuse(
            (active == 0) & (run_end != core.NO_END), "run_end", run_end, "but no run is in progress: it must be -1"
        )
        check.refuse((count == 0) & (active != 0), "run_active", active, "but no tile is on the line")
        if closed:
            check.refuse(
                (active != 0) & (run_end == core.NO_END),
                "run_end",
                run_end,
                "but with one open end a run is bound to it",
            )
        bound_end = np.take_along_axis(ends, np.maximum(run_end, 0)[:, None], 1)[:, 0]
        check.refuse((run_end != core.NO_END) & (bound_end == core.NO_END), "run_end", run_end, "is a closed end")

    def _check_match(self, check: RecordCheck, live: np.ndarray, out: np.ndarray) -> None:
        """Only a match has hands after the first, and its seats in play are below the limit."""
        cfg = self.config
        hand_number = check.get("hand_number")
        if not cfg.match:
            check.refuse(hand_number != 0, "hand_number", hand_number, "but a game of one hand has only hand 0")
            return
        points = check.get("match_points")[:, : cfg.num_players]
        check.refuse(
            live[:, None] & ~out & (points >= cfg.limit),
            "match_points",
            points,
            f"reaches the limit {cfg.limit}, but the seat plays on",
        )

    # ------------------------------------------------------------------ deals
    def prepare_deal(self, deal: dict[str, Any]) -> tuple[np.ndarray, int]:
        """Check ``deal`` and return (tile order: hands in seat order then the tiles set aside,
        leader or -1 for a leader drawn by lot)."""
        cfg = self.config
        self.check_deal_keys(deal, ("hands", "set_aside", "leader"), note=" (there is no boneyard)")
        tiles = DealTiles(6)
        size = rules.hand_size(cfg.num_players)
        order = [t for seat, hand in enumerate(self.deal_hands(deal)) for t in tiles.take(hand, f"hand {seat}", size)]
        set_aside = as_list(deal.get("set_aside"))
        if set_aside is not None:
            if not isinstance(set_aside, list) or len(set_aside) != rules.SET_ASIDE_TILES:
                raise ValueError(f"'set_aside' must hold the {rules.SET_ASIDE_TILES} undealt tiles")
            order += tiles.take(set_aside, "the tiles set aside")
        order += tiles.missing(rules.NUM_TILES)
        leader = deal.get("leader")
        leader = -1 if leader is None else opt.integer("deal['leader']", leader, 0, cfg.num_players - 1)
        return np.asarray(order, dtype=np.int8), leader

    # ------------------------------------------------------------------ actions and text
    def _action_tile(self, action: int) -> int:
        return action // 2 if action < rules.PASS else -1

    def _name_action(self, action: int) -> str:
        if action == rules.PASS:
            return "pass"
        return f"play {tile_name(action // 2)} on {SIDES[action % 2]}"

    def render(self, state: np.ndarray, game: int, agent_names: list[str]) -> str:
        s = state[game]
        line = "".join(f"[{a}|{b}]" for a, b in self._line(state, game))
        if s["game_over"]:
            status = "over"
        else:
            status = f"{agent_names[int(s['current'])]} to act"
            if s["run_active"]:
                bound = int(s["run_end"])
                status += f", run on the {SIDES[bound]}" if bound >= 0 else ", run in progress"
        open_ends = [f"{SIDES[side]} {int(s['ends'][side])}" for side in range(2) if s["ends"][side] >= 0]
        lines = [
            f"{self.title} · hand {int(s['hand_number']) + 1} · {status}",
            f"line: {line or '(empty)'}" + (f"  · open: {', '.join(open_ends)}" if open_ends else ""),
            f"set aside: {rules.SET_ASIDE_TILES} tiles, face down",
        ]
        for seat in range(self.num_players):
            hand = " ".join(tile_name(t) for t in self._hand(state, game, seat)) or "-"
            tags = (" (led)" if seat == s["leader"] else "") + (" (out)" if s["lost"][seat] else "")
            lines.append(f"{agent_names[seat]}{tags}: {hand}  · points {int(s['match_points'][seat])}")
        return "\n".join(lines)
