"""The batched engine: B games of one variant stepped together by one compiled call.

This is what training uses. Each game restarts itself when its episode ends, so the arrays
always describe B live games. The observations and masks are produced by the same compiled
functions the AEC environment calls, so a game here and an AEC environment seeded alike agree
step by step.
"""

from __future__ import annotations

import os

import numba
import numpy as np
from numba import njit

from domino_env.game import Game
from domino_env.rng import seed_batch

# numba's OpenMP threads spin while they wait for the next parallel step by default. Where the
# cores are shared (the trainer's own threads, other processes), a spinning thread holds a core
# its partner needs, and a step on 2 threads was measured 20 times slower than on 1; waiting
# passively costs microseconds per step on an idle machine. Read when numba starts its threads,
# at the first batched step, so a choice of the user's own stands.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

# A million games fill a few GiB (a game's record, two observations and two masks: 1-4 KiB by
# variant) and take about half a second per step on one core: more than training or a benchmark
# needs, while a larger number is far more likely a mistake that would exhaust memory.
MAX_BATCH_SIZE = 1 << 20


@njit(cache=True)
def first_illegal(mask: np.ndarray, actions: np.ndarray) -> int:
    """Index of the first game whose action ``mask`` does not allow, or -1."""
    for g in range(actions.shape[0]):
        a = actions[g]
        if a < 0 or a >= mask.shape[1] or mask[g, a] == 0:
            return g
    return -1


def thread_count(num_threads: int | None = None) -> int:
    """The threads a batched engine asked for ``num_threads`` uses: None means every core numba
    may use (``NUMBA_NUM_THREADS``), and a count numba cannot run is refused. The one place that
    knows the range, so that the engine and the trainer's ``run.engine_threads`` agree."""
    cores = numba.config.NUMBA_NUM_THREADS
    if num_threads is None:
        return cores
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) or not 1 <= num_threads <= cores:
        raise ValueError(f"num_threads must be an integer from 1 to {cores} (NUMBA_NUM_THREADS), got {num_threads!r}")
    return num_threads


class BatchedEnv:
    """``batch_size`` games of ``game``.

    ``reset(seed) -> (obs[B, D], mask[B, A], seat[B])``: each game's acting seat and that seat's
    view. ``step(actions[B]) -> (obs, mask, seat, rewards[B, P], done[B])``: ``rewards`` are
    every seat's rewards from this step; where ``done`` is true the game's episode ended and
    ``obs``/``mask``/``seat`` already show its next episode. Game ``g`` seeded with ``seed``
    plays the deals of an AEC environment reset with ``seed`` when ``g == 0``, and of stream
    ``g`` otherwise.

    After each step, ``hand_over[B]`` marks the games whose hand ended on it and
    ``hand_points[B, P]`` holds those hands' points as the rules score them (what the AEC
    environment reports as ``info["hand_points"]``).

    ``num_threads`` (default: every core numba may use, ``NUMBA_NUM_THREADS``) share the games of
    each call. Every game draws only from its own generator, so the same seed and actions give
    the same games whatever the number of threads.
    """

    def __init__(self, game: Game, batch_size: int, num_threads: int | None = None) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        if batch_size > MAX_BATCH_SIZE:
            per_game = game.new_state(1).nbytes + 8 * game.observation_size + 2 * game.num_actions
            raise ValueError(
                f"batch_size must be at most {MAX_BATCH_SIZE:,}, got {batch_size:,}: its arrays would need "
                f"{batch_size * per_game / 2**30:,.0f} GiB; step several batches instead"
            )
        self.game = game
        self.batch_size = batch_size
        self.num_threads = thread_count(num_threads)
        self.num_players = game.num_players
        self.num_actions = game.num_actions
        self.observation_size = game.observation_size
        self.state = game.new_state(batch_size)
        self._mask: np.ndarray | None = None
        self.hand_over = np.zeros(batch_size, np.bool_)
        self.hand_points = np.zeros((batch_size, self.num_players), np.int32)

    def reset(self, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        seed_batch(self.state, seed)
        obs, mask, seat = self._outputs()
        self._use_threads()
        self.game.batch_reset(self.state, obs, mask, seat)
        self._mask = mask.copy()
        return obs, mask, seat

    def restore(self, state: np.ndarray, mask: np.ndarray) -> None:
        """Continue games saved earlier: ``state`` as :attr:`state` held it, ``mask`` as the reset
        or step that led there returned it. The two go together because :meth:`step` checks the
        next actions against that mask: a state restored alone would be checked against the masks
        of the games it replaced.

        Both may come from outside (a shared run folder), and the compiled rules check no bounds,
        so they are checked before anything changes, and a refused restore (a ValueError naming
        the game) leaves the engine as it was: the records must be ones the rules can produce
        (:meth:`Game.check_records`), with no game over (this engine restarts a game as it ends),
        and the mask must be the legal actions of each game's seat to act, as the rules compute
        them: a mask allowing more would let :meth:`step` feed the rules a move they never
        expect, such as a draw from an empty boneyard."""
        if state.shape != self.state.shape or mask.shape != (self.batch_size, self.num_actions):
            raise ValueError(
                f"restore needs a state of shape {self.state.shape} and a mask of shape "
                f"{(self.batch_size, self.num_actions)}, got {state.shape} and {mask.shape}"
            )
        self.game.check_records(state)
        over = np.flatnonzero(state["game_over"])
        if over.size:
            raise ValueError(f"game {over[0]}: game_over=1, but this engine restarts every game as it ends")
        records = state.copy()  # contiguous and writable, as the compiled code was compiled for
        legal = np.zeros((self.batch_size, self.num_actions), np.int8)
        for g in range(self.batch_size):
            self.game.legal_mask(records, g, legal[g])
        differs = np.argwhere(np.asarray(mask) != legal)
        if differs.size:
            g, action = (int(i) for i in differs[0])
            allowed = "allows" if legal[g, action] == 0 else "forbids"
            raise ValueError(
                f"game {g}: the mask {allowed} action {action} ({self.game.action_name(action)}), "
                f"unlike the rules for the seat to act; mask[{g}, {action}]={mask[g, action]}"
            )
        self.state[:] = records
        self._mask = legal

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        if self._mask is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.batch_size,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"actions must be an integer array of shape ({self.batch_size},), got {actions.dtype} {actions.shape}"
            )
        actions = actions.astype(np.int64, copy=False)
        bad = first_illegal(self._mask, actions)
        if bad >= 0:
            legal = [self.game.action_name(a) for a in np.flatnonzero(self._mask[bad])]
            raise ValueError(f"game {bad}: action {int(actions[bad])} is not legal; legal actions: {legal}")
        obs, mask, seat = self._outputs()
        rewards = np.empty((self.batch_size, self.num_players), np.float32)
        done = np.empty(self.batch_size, np.bool_)
        self.hand_over = np.empty(self.batch_size, np.bool_)
        self.hand_points = np.empty((self.batch_size, self.num_players), np.int32)
        self._use_threads()
        self.game.batch_step(self.state, actions, obs, mask, seat, rewards, done, self.hand_over, self.hand_points)
        self._mask = mask.copy()
        return obs, mask, seat, rewards, done

    def _use_threads(self) -> None:
        """numba's thread count belongs to the calling thread, not to a batch: set it before each
        call, and leave it (changing it back and forth each step was measured 30% slower)."""
        if numba.get_num_threads() != self.num_threads:
            numba.set_num_threads(self.num_threads)

    def _outputs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (
            np.empty((self.batch_size, self.observation_size), np.float32),
            np.empty((self.batch_size, self.num_actions), np.int8),
            np.empty(self.batch_size, np.int64),
        )
