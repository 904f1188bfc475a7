"""One game at the table (a :class:`Session`): the engine record, who sits where (an agent,
or a person with a secret key), every move, and what each seat may see of it.

A seat's view is built here, and only here, so that what a person is sent is decided in one
place: their own hand face up, the others face down and absent, until the game is over; each
finished hand with every hand it held (the engine has dealt the next hand by then, so nothing
hidden is revealed); the moves and results in words.
"""

from __future__ import annotations

import hmac
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

import numpy as np

from agents.base import Agent
from arena.web.fields import RequestError
from domino_env.game import Game
from domino_env.games.core import PLAYING
from domino_env.picture import say_move, table_svg
from domino_env.picture.read import PENALTY_VARIANTS, score_label
from domino_env.tiles import tile_faces, tile_index


@dataclass
class HandResult:
    """A hand that is over, as every seat may now see it: what each hand held, its pips, what the
    hand scored and the totals, and the result in words."""

    number: int
    winners: list[int]
    domino: bool  # a seat went out; else the hand was blocked
    hands: list[list[tuple[int, int]]]
    pips: list[int]
    points: list[int]  # hand_points: points won (Draw, Block) or penalty pips (Hungarian, Mexican Train)
    totals: list[int]  # match_points after the hand


@dataclass
class Session:
    """One game in progress: the engine record, who sits where, and what happened. Its
    ``lock`` is held while a request plays it, so that games never wait on each other.

    People's seats have an agent of ``None`` and a secret ``key`` each: a request for a game
    that seats more than one person must carry its seat's key, and sees that seat's hand only."""

    id: str
    game: Game
    state: np.ndarray
    agents: list[Agent | None]  # None: a person's seat
    names: list[str]  # as a replay names the seats: "player_0 (person)", "player_1 (greedy)"
    practice: int | None = None  # the client's seed of a practice deal; None: a secret deal
    deal: int = 0  # the seed the deal came from
    keys: dict[int, str] = field(default_factory=dict)  # a person's seat: its secret
    step: int = 0
    last_move: tuple[int, int] | None = None
    moves: list[tuple[int, int]] = field(default_factory=list)  # (seat, action), every move in order
    results: list[HandResult] = field(default_factory=list)  # the hands that are over
    ends: list[int] = field(default_factory=list)  # the move count at which each hand ended
    positions: list[Any] = field(default_factory=list)  # arena.replay Positions, for the saved replay
    rewards: list[float] = field(default_factory=list)  # each seat's rewards summed over the game
    saved: str = ""  # the replay file, once saved
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.rewards = self.rewards or [0.0] * self.game.num_players

    @property
    def people(self) -> list[int]:
        return [seat for seat, agent in enumerate(self.agents) if agent is None]

    @property
    def person(self) -> int | None:
        people = self.people
        return people[0] if people else None

    @property
    def over(self) -> bool:
        return self.game.is_over(self.state, 0)

    @property
    def penalty(self) -> bool:
        """Whether a score counts against its seat (lower is better)."""
        return self.game.name in PENALTY_VARIANTS

    def to_act(self) -> int:
        return self.game.current_seat(self.state, 0)

    def legal(self) -> list[int]:
        mask = np.zeros(self.game.num_actions, np.int8)
        self.game.legal_mask(self.state, 0, mask)
        return [int(a) for a in np.flatnonzero(mask)]

    def seat_of(self, key: str | None) -> int | None:
        """The person's seat a request speaks for: the seat whose ``key`` it carries; with one
        person, that person's seat without a key too (the run's token is theirs alone); with
        nobody seated, ``None`` (watching). A missing or wrong key in a game of several people
        is refused."""
        if key is not None:
            for seat, secret in self.keys.items():
                if hmac.compare_digest(key.encode("utf-8", "replace"), secret.encode()):
                    return seat
            raise RequestError(HTTPStatus.FORBIDDEN, "this key is not one of this game's seats: use your seat's link")
        if len(self.people) > 1:
            raise RequestError(HTTPStatus.FORBIDDEN, "this game seats several people: send your seat's key")
        return self.person

    def names_for(self, viewer: int | None) -> list[str]:
        """The seats' names as ``viewer`` reads them: their own seat is "you"."""
        return [f"player_{seat} (you)" if seat == viewer else name for seat, name in enumerate(self.names)]

    def apply(self, action: int) -> None:
        """Play a legal ``action`` of the seat to act and note it (and, when it ends a hand,
        what every hand held)."""
        seat = self.to_act()
        players = self.game.num_players
        held = [list(hand) for hand in self.game.scene(self.state, 0)[-players:]]
        # A draw can end a hand (the last tile drawn, and then nobody can play), and the next
        # hand of a match is dealt in the same step: note the tile it takes while it is known.
        drawn = -1
        if self.game.action_name(action) == "draw":
            drawn = int(self.state[0]["boneyard"][self.state[0]["boneyard_top"]])
        status = self.game.step(self.state, 0, action)
        self.step += 1
        self.last_move = (seat, action)
        self.moves.append((seat, action))
        rewards = [float(r) for r in self.game.rewards(self.state, 0)]
        self.rewards = [a + b for a, b in zip(self.rewards, rewards, strict=True)]
        hand_points = self.game.hand_points(self.state, 0) if status != PLAYING else []
        if status != PLAYING:
            tile = int(self.game.action_tiles[action])
            if tile >= 0 and tile_faces(tile) in held[seat]:
                held[seat].remove(tile_faces(tile))
            elif drawn >= 0:  # in index order, as the hand was shown
                held[seat].append(tile_faces(drawn))
                held[seat].sort(key=lambda faces: tile_index(*faces))
            self.results.append(self.hand_result(held, seat, hand_points))
            self.ends.append(self.step)
        if self.positions:  # recording a replay
            from arena.replay import Position

            name = self.game.action_name(action)
            self.positions.append(Position(self.state.copy(), seat, action, name, rewards, hand_points))

    def hand_result(self, held: list[list[tuple[int, int]]], mover: int, points: list[int]) -> HandResult:
        pips = self.game.pips_left(self.state, 0)
        domino = not held[mover]
        if domino:
            winners = [mover]
            if self.game.partnerships:
                winners = [s for s in range(self.game.num_players) if s % 2 == mover % 2]
        elif self.penalty:
            in_play = [s for s in range(self.game.num_players) if held[s] or pips[s]] or list(range(len(pips)))
            low = min(pips[s] for s in in_play)
            winners = [s for s in in_play if pips[s] == low]
        else:
            winners = [s for s, p in enumerate(points) if p > 0]
        totals = self.game.match_points(self.state, 0)
        return HandResult(len(self.results) + 1, winners, domino, held, pips, points, totals)

    def agent_move(self) -> None:
        seat = self.to_act()
        agent = self.agents[seat]
        assert agent is not None, "a person's seat is not played by an agent"
        action = int(agent.act_states(self.game, self.state, np.zeros(1, np.int64))[0])
        if action not in self.legal():
            raise RuntimeError(f"{agent.name} chose illegal action {action}")
        self.apply(action)

    def agents_until_person(self) -> None:
        """Agents play until a person is to act or the game is over (watching: no moves)."""
        while self.people and not self.over and self.agents[self.to_act()] is not None:
            self.agent_move()

    def view(self, viewer: int | None, numerals: bool = False, width: int | None = None) -> dict[str, Any]:
        """What the page shows ``viewer`` (a person's seat; None: a spectator, who sees every
        hand): the table with that seat's hand alone face up until the game is over, then every
        hand; its legal actions by tile and target; the whole move log; each finished hand's
        result with every hand it held; and the scores, named by what they mean."""
        names = self.names_for(viewer)
        over = self.over
        face_up: Any = "all" if viewer is None or over else {viewer}
        svg = table_svg(self.game, self.state, 0, face_up=face_up, names=names, last_move=self.last_move,
                        viewer=viewer, numerals=numerals, width=width)  # fmt: skip
        to_act = None if over else self.to_act()
        yours = viewer is not None and to_act == viewer
        legal = [describe(self.game.action_name(a)) for a in self.legal()] if yours else []
        kinds = {a["name"] for a in legal}
        pile = int((self.state[0]["location"][: self.game.num_tiles] == -1).sum())
        return {
            "game": self.id,
            "step": self.step,
            "svg": svg,
            "variant": self.game.name,
            "title": self.game.title,
            "seat": viewer,
            "people": self.people,
            "names": names,
            "to_act": to_act,
            "your_turn": yours,
            "legal": legal,
            "can_draw": "draw" in kinds,
            "can_pass": "pass" in kinds,
            "over": over,
            "result": self.result(viewer) if over else "",
            "hands": [self.say_hand(result, names, viewer) for result in self.results],
            "log": self.log(names),
            "score_label": score_label(self.game),
            "lower_is_better": self.penalty,
            "scores": self.game.match_points(self.state, 0),
            "pile": {"label": "boneyard" if self.game.allow_draw else "set aside", "count": pile},
            "practice": self.practice,
            "saved": self.saved,
        }

    def log(self, names: list[str]) -> list[dict[str, Any]]:
        """Every move, numbered from 1 as played, and a line where each hand ended."""
        lines: list[dict[str, Any]] = []
        ends = dict(zip(self.ends, self.results, strict=True))
        for number, (seat, action) in enumerate(self.moves, 1):
            lines.append({"n": number, "text": say_move(self.game, names, seat, action)})
            if number in ends:
                result = ends[number]
                lines.append({"n": None, "text": f"hand {result.number} over: {self.sentence(result, names, None)}"})
        return lines

    def who(self, seats: list[int], names: list[str], viewer: int | None) -> tuple[str, bool]:
        """The seats in words, and whether that is "you" (a plural verb)."""
        words = ["you" if s == viewer else names[s] for s in seats]
        text = " and ".join(words)
        return ("Y" + text[1:] if text.startswith("you") else text), len(seats) > 1 or viewer in seats

    def sentence(self, result: HandResult, names: list[str], viewer: int | None) -> str:
        """A hand's result in words: "You win: domino, 45 points", "Blocked: player_1 wins
        with 12 pips to 20"."""
        others = [s for s in range(len(names)) if s not in result.winners]
        if not result.winners:
            return f"Blocked: a tie at {min(result.pips)} pips, nobody scores"
        who, plural = self.who(result.winners, names, viewer)
        win = "win" if plural else "wins"
        if self.penalty:
            lows = sorted(result.pips[s] for s in result.winners)
            if not result.domino and len(result.winners) > 1:
                return f"Blocked: {who} tie at {lows[0]} pips"
            rest = " and ".join(str(result.pips[s]) for s in others)
            if result.domino:
                return f"{who} {win}: domino" + (f" · the others keep {rest} penalty pips" if rest else "")
            return f"Blocked: {who} {win} with {lows[0]} pips to {rest}"
        scored = max(result.points)
        points = f"{scored} point{'s' if scored != 1 else ''}"
        if result.domino:
            return f"{who} {win}: domino, {points}"
        if self.game.partnerships:  # the teams' pips, added up
            mine, rest = sum(result.pips[s] for s in result.winners), str(sum(result.pips[s] for s in others))
        else:
            mine, rest = min(result.pips[s] for s in result.winners), " and ".join(str(result.pips[s]) for s in others)
        return f"Blocked: {who} {win} with {mine} pips to {rest}, {points}"

    def how(self, result: HandResult) -> str:
        """How the hand's points were counted."""
        if self.penalty:
            return "each player adds the pips left in their own hand to their penalty total: lower is better"
        if not result.winners:
            return "a blocked hand tied for the fewest pips: nobody scores"
        scored = max(result.points)
        losers = [result.pips[s] for s in range(len(result.pips)) if s not in result.winners]
        counted = " + ".join(map(str, losers))
        if self.game.partnerships and sum(losers) == scored:
            return f"the winning team scores the pips left in the losing team's hands: {counted} = {scored}"
        if sum(losers) == scored and len(losers) == 1:
            return f"the winner scores the pips left in the other hand: {scored}"
        if sum(losers) == scored:
            return f"the winner scores the pips left in the other hands: {counted} = {scored}"
        if len(losers) == 1 and len(result.winners) == 1:
            mine = result.pips[result.winners[0]]
            return f"the winner scores the difference of the hands: {losers[0]} − {mine} = {scored}"
        return f"the winner scores {scored} by this game's block_scoring option (RULES.md)"

    def say_hand(self, result: HandResult, names: list[str], viewer: int | None) -> dict[str, Any]:
        seats = [
            {
                "name": names[s],
                "tiles": [f"{a}-{b}" for a, b in result.hands[s]],
                "pips": result.pips[s],
                "points": result.points[s],
                "total": result.totals[s],
                "won": s in result.winners,
            }
            for s in range(len(names))
        ]
        return {"number": result.number, "sentence": self.sentence(result, names, viewer), "how": self.how(result),
                "seats": seats}  # fmt: skip

    def result(self, viewer: int | None) -> str:
        """The game's result in words: the last hand's, and the match's when there were hands
        before it."""
        names = self.names_for(viewer)
        last = self.sentence(self.results[-1], names, viewer) if self.results else "game over"
        if not self.game.options.get("match"):
            return last
        totals = self.game.match_points(self.state, 0)
        in_play = self.game.seats_in_play(self.state, 0)
        if self.penalty:
            best = min(totals[s] for s in in_play)
            winners = [s for s in in_play if totals[s] == best]
        else:
            best = max(totals)
            winners = [s for s, t in enumerate(totals) if t == best]
        who, plural = self.who(winners, names, viewer)
        unit = "penalty pips" if self.penalty else "points"
        rest = " and ".join(str(totals[s]) for s in range(len(totals)) if s not in winners)
        return f"{last}. Match over: {who} {'win' if plural else 'wins'} the match with {best} {unit}" + (
            f" to {rest}" if rest else ""
        )

    def replay(self) -> Any:
        """The finished game as an :class:`arena.replay.Replay`."""
        from arena.replay import Replay

        players = [agent.name if agent is not None else "person" for agent in self.agents]
        return Replay(self.game, players, self.deal, self.positions)


def describe(name: str) -> dict[str, str | None]:
    """An action name as the page's clicks see it: ``play 3-5 on left`` is tile ``3-5`` on
    target ``left`` (the words the picture's ``data-tile`` and ``data-target`` carry)."""
    if name.startswith("play "):
        tile, _, target = name[len("play ") :].partition(" on ")
        return {"name": name, "tile": tile, "target": target}
    return {"name": name, "tile": None, "target": None}
