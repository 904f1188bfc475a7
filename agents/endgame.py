"""Exact play of a two-player hand with nothing left to chance: minimax over one world.

Search agents judge a move by rollouts: after the move, a strategy plays the rest of the hand once
per sampled world, and the move with the best mean result wins. Where the rest of the hand holds
no chance (no tile can be drawn any more: in Block always, in Draw once the boneyard is spent), a
sampled world is a small perfect-information game, and its value under best play by both seats
can be computed exactly instead of estimated by one strategy's playout. In Draw with the boneyard
empty the acting seat even sees every tile (the unseen ones are all its opponent's), so its one
world is the real position and the solution is the best move, which no number of rollouts
guarantees (``python -m benchmarks.endgame`` counts how often a policy and its search choose a
move worth less than the best there).

:func:`solve_action` is a depth-first minimax over copies of the record moved by the variant's
own compiled rules, with a transposition table: the future of a line-game position depends only
on where each tile is, the line's two open numbers and the seat to act, so positions reached by
playing the same tiles in another order are solved once, and the worlds of one move share what
was solved. Two players only (the acting seat
maximises its reward, the other minimises it) and the Draw engine's records (Draw and Block).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from domino_env.game import Game
from domino_env.games.core import PLAYING

TABLE_BITS = 18  # transposition entries: 2**18, some 4 MB, far more than a small ending reaches
MAX_NODES = 2_000_000  # a solve that needs more gives up (NaN) rather than stall a move
REWARD_BOUND = 1.0  # |reward| <= 1 under every reward option (RULES.md): no reply can do better
SOLVABLE_VARIANTS = ("draw", "block")


class Solver(NamedTuple):
    """The arrays one solve writes into, allocated once per agent: the records of the current
    line of play (``stack[d]`` is the position at depth ``d``), each depth's legal actions, the
    next action to try there, its best value so far and its key, and the transposition table
    (an entry counts only when its ``stamps`` value is the current solve's ``generation[0]``,
    so a new solve forgets the last without clearing the table)."""

    stack: np.ndarray
    masks: np.ndarray
    cursor: np.ndarray
    best: np.ndarray
    keys: np.ndarray
    table_keys: np.ndarray
    table_values: np.ndarray
    stamps: np.ndarray
    generation: np.ndarray


def new_solver(game: Game) -> Solver:
    """Workspace for :func:`solve_action` in ``game``: deep enough for any hand (every step
    plays a tile or passes, and a pass is followed by a play or the end)."""
    depth = 2 * game.num_tiles + 4
    size = 1 << TABLE_BITS
    return Solver(
        stack=game.new_state(depth),
        masks=np.zeros((depth, game.num_actions), np.int8),
        cursor=np.zeros(depth, np.int64),
        best=np.zeros(depth, np.float64),
        keys=np.zeros(depth, np.uint64),
        table_keys=np.zeros(size, np.uint64),
        table_values=np.zeros(size, np.float64),
        stamps=np.zeros(size, np.int64),
        generation=np.zeros(1, np.int64),
    )


def check_solvable(owner: str, game: Game) -> None:
    """Refuse, in one line, a game whose endings :func:`solve_action` cannot solve."""
    if game.name not in SOLVABLE_VARIANTS or game.num_players != 2:
        raise ValueError(
            f"{owner}: solve=N solves two-player Draw and Block endings; "
            f"this game is {game.name} with {game.num_players} players"
        )


@njit(cache=True)
def mix(h, value):
    """``h`` with ``value`` folded in (splitmix64's finaliser): a 64-bit position key."""
    h = (h ^ np.uint64(value + 11)) * np.uint64(0xBF58476D1CE4E5B9)
    return h ^ (h >> np.uint64(31))


@njit(cache=True)
def position_key(state, d, num_tiles):
    """What the rest of a line-game hand depends on: every tile's place, the open numbers and
    the seat to act (not the order the line was laid in)."""
    s = state[d]
    h = mix(np.uint64(0x9E3779B97F4A7C15), s.current)
    h = mix(h, s.ends[0])
    h = mix(h, s.ends[1])
    for t in range(num_tiles):
        h = mix(h, s.location[t])
    return h


@njit
def solve_action(step, legal_mask, world, cfg, action, me, num_tiles, solver):
    """``me``'s reward in ``world[0]``'s hand after it plays ``action`` there and both seats then
    play perfectly (``me`` maximising its reward, the other seat minimising it), or NaN when the
    solve would pass :data:`MAX_NODES` positions. ``world[0]`` is left as it was."""
    solver.generation[0] += 1
    return solve_in_table(step, legal_mask, world, cfg, action, me, num_tiles, solver)


@njit
def solve_in_table(step, legal_mask, world, cfg, action, me, num_tiles, solver):
    """:func:`solve_action` reusing the positions the table already holds from this generation:
    the worlds of one move share them (a position's key says all its future depends on, and
    ``me`` and the match standing are the same for all of them), so a new move starts a new
    generation."""
    stack, masks, cursor, best, keys = solver.stack, solver.masks, solver.cursor, solver.best, solver.keys
    table_keys, table_values, stamps = solver.table_keys, solver.table_values, solver.stamps
    generation = solver.generation[0]
    slots = table_keys.shape[0] - 1
    stack[0] = world[0]
    if step(stack, cfg, 0, action) != PLAYING:
        return float(stack[0].rewards[me])
    keys[0] = position_key(stack, 0, num_tiles)
    legal_mask(stack, cfg, 0, masks[0])
    cursor[0] = 0
    best[0] = -np.inf if stack[0].current == me else np.inf
    depth, nodes = 0, 1
    while True:
        maximising = stack[depth].current == me
        settled = best[depth] >= REWARD_BOUND if maximising else best[depth] <= -REWARD_BOUND
        child = -1
        if not settled:
            for a in range(cursor[depth], masks.shape[1]):
                if masks[depth, a]:
                    child = a
                    break
        if child >= 0:  # try the next action here
            cursor[depth] = child + 1
            stack[depth + 1] = stack[depth]
            if step(stack, cfg, depth + 1, child) != PLAYING:
                value = float(stack[depth + 1].rewards[me])
            else:
                key = position_key(stack, depth + 1, num_tiles)
                slot = int(key & np.uint64(slots))
                if stamps[slot] == generation and table_keys[slot] == key:
                    value = table_values[slot]
                else:
                    nodes += 1
                    if nodes > MAX_NODES:
                        return np.nan
                    depth += 1
                    keys[depth] = key
                    legal_mask(stack, cfg, depth, masks[depth])
                    cursor[depth] = 0
                    best[depth] = -np.inf if stack[depth].current == me else np.inf
                    continue
        else:  # every action here tried (or the best possible found): the position is solved
            value = best[depth]
            slot = int(keys[depth] & np.uint64(slots))
            table_keys[slot], table_values[slot], stamps[slot] = keys[depth], value, generation
            if depth == 0:
                return value
            depth -= 1
        if stack[depth].current == me:
            best[depth] = max(best[depth], value)
        else:
            best[depth] = min(best[depth], value)


@njit
def solve_worlds(step, legal_mask, worlds, cfg, legal, me, num_tiles, solver, out):
    """:func:`solve_action` for each action of ``legal`` in each game of ``worlds``, into
    ``out[action index, world]``: one compiled call a move, one table generation for all."""
    solver.generation[0] += 1
    for w in range(out.shape[1]):
        for i in range(legal.shape[0]):
            out[i, w] = solve_in_table(step, legal_mask, worlds[w : w + 1], cfg, legal[i], me, num_tiles, solver)


def solved_values(game: Game, world: np.ndarray, solver: Solver) -> dict[int, float]:
    """Each legal action of ``world[0]``'s acting seat with its reward under best play by both
    seats (:func:`solve_action`): the exact answer to a position with nothing left to draw."""
    mask = np.zeros(game.num_actions, np.int8)
    game.legal_mask(world, 0, mask)
    legal = np.flatnonzero(mask).astype(np.int64)
    values = np.empty((len(legal), 1))
    rules = game.rules
    solve_worlds(
        rules.step, rules.legal_mask, world, game.packed_config, legal, game.current_seat(world, 0),
        game.num_tiles, solver, values,
    )  # fmt: skip
    return {int(action): float(value) for action, value in zip(legal, values[:, 0], strict=True)}
