"""A recipe's last phase: improvement steps over the policy PPO trained, chunk after chunk.

After self-play, the policy reaches ``improve.positions`` unforced positions, ``improve.chunk``
at a time. Every legal move of each is played out from the real state (training/action_values.py)
and the policy is fitted to ``log prior + values / temperature``. Each chunk is labelled by the
policy as the chunks before left it: approximate policy iteration, one KL-regularized step a
chunk. With ``improve.opponent`` (the heuristic), the positions are the policy's turns in games
against a table of it, and the rollouts play on against it. The step then moves towards a best
response to that table, from the positions its games reach.
With ``improve.driver`` (ISMCTS), the positions are those that agent's own games reach, at
every seat or against the opponent's table: the positions of a stronger player's plans.

PPO improves the policy against its pool from sampled episodes; a step here values every move
of a position from the same hidden tiles and draws, so it sees differences between moves that
episodes average away. In the Draw partnership four chunks against the heuristic's table gain
about a point there (docs/self_play.md, "Every move played out from the real position").
``improve.positions = 0`` (the default) skips the phase. ``improve.student_trunk`` fits a new
network instead (``student_network``), of another shape than PPO's: an attention trunk, too slow
to act in self-play's rollouts, learns one step over the policy PPO trained.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext

import torch
from tqdm import tqdm

from agents.network import PolicyNetwork, network_for
from agents.registry import check_labeller, make_agent
from domino_env.game import Game
from training.action_values import Advance, fit_improvement, label_positions
from training.config import ImprovementConfig

CHUNK_SEED = 4_000_037  # chunk k's deals come from seed + k * CHUNK_SEED
MAX_ROLLOUT_ENVS = 1024  # games recorded together for a chunk's positions


def chunk_seed(seed: int, chunk: int) -> int:
    """The seed of chunk ``chunk``'s deals (and its fit's minibatch order)."""
    return seed + chunk * CHUNK_SEED


def chunk_count(settings: ImprovementConfig) -> int:
    """How many chunks the phase labels: ``positions`` in chunks of ``chunk``, the last one
    smaller. Each chunk records about its size (whole episodes: a few more or fewer)."""
    return math.ceil(settings.positions / settings.chunk)


def improvement_seed(run_seed: int) -> int:
    """The seed the phase of a run seeded ``run_seed`` starts from: apart from self-play's,
    imitation's and distillation's deals."""
    return run_seed + 7_000_001


def student_network(game: Game, settings: ImprovementConfig, seed: int) -> PolicyNetwork | None:
    """The new network ``improve.student_trunk`` asks the phase to fit, its weights drawn from
    ``seed`` alone (a resumed run builds the same one), or None when the phase fits the PPO
    policy itself."""
    if not settings.student_trunk:
        return None
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return network_for(
            game, settings.student_hidden_sizes, action_head=settings.student_head, trunk=settings.student_trunk
        )


def reached_bar(settings: ImprovementConfig) -> AbstractContextManager[tqdm | None]:
    """A progress bar of the decisions ``improve.driver`` plays (None without a driver: the
    policy reaches its positions in seconds), below the bar of the positions valued."""
    if not settings.driver:
        return nullcontext()
    return tqdm(desc=f"improvement: decisions recorded in {settings.driver}'s games", unit="decision", position=1)


def improvement_chunks(
    game: Game,
    network: PolicyNetwork,
    settings: ImprovementConfig,
    seed: int,
    device: torch.device,
    iterate: bool = True,
    max_grad_norm: float = 0.5,
    player: PolicyNetwork | None = None,
    advance: Advance | None = None,
    log: Callable[[str], object] | None = None,
    reached: Advance | None = None,
) -> Iterator[dict[str, float]]:
    """Fit ``network`` in place, chunk by chunk, as ``settings`` says; after each chunk, yields
    its figures (``positions`` so far, the fit's ``loss``). The labelling policy is ``network``
    as fitted so far, or with ``iterate`` False the policy as it was at the start (one step
    over it, its values averaged over every chunk). A ``player`` given is the labelling policy
    instead, frozen: it reaches the positions and its log-probabilities anchor the targets, so
    a network of another shape (``network.trunk: attention``) can be fitted from scratch to one
    step over a trained policy. ``advance`` is told of each chunk's positions as they are
    valued (a progress bar's ``update``), ``reached`` of the decisions recorded as their
    episodes end (a search agent as ``improve.driver`` plays for minutes), and ``log`` when a
    chunk's fit begins: the fit of a large student can take as long as the labelling. A
    labeller's searches are shared by ``settings.workers`` processes
    (:func:`training.action_values.search_values`)."""
    opponent = make_agent(settings.opponent, game, seed=seed) if settings.opponent else None
    labeller = None
    if settings.labeller:
        labeller = check_labeller(make_agent(settings.labeller, game, seed=seed + 1), settings.labeller)
    driver = make_agent(settings.driver, game, seed=seed + 2) if settings.driver else None
    optimizer = torch.optim.Adam(network.parameters(), lr=settings.learning_rate, eps=1e-5)
    frozen = player if player is not None else None if iterate else network
    start = None if frozen is None else copy.deepcopy(frozen).eval()
    labelled = 0
    chunks = chunk_count(settings)
    for chunk in range(chunks):
        size = min(settings.chunk, settings.positions - chunk * settings.chunk)
        seed_k = chunk_seed(seed, chunk)
        num_envs = max(1, min(MAX_ROLLOUT_ENVS, size // 16))
        player = network if start is None else start
        data = label_positions(
            game, player, size, num_envs, seed_k,
            opponent=opponent, labeller=labeller, advance=advance, workers=settings.workers, driver=driver,
            reached=reached,
        )  # fmt: skip
        if log is not None:
            log(f"improvement chunk {chunk + 1}/{chunks}: {len(data):,} positions valued, "
                f"fitting them for {settings.epochs} epochs")  # fmt: skip
        if not settings.anchored:  # the targets are then the values alone (ActionValues.targets)
            data.prior[:] = 0.0
        stats = fit_improvement(
            network, optimizer, data, settings.temperature, settings.epochs, settings.minibatch_size,
            torch.Generator().manual_seed(seed_k), device, max_grad_norm, settings.anneal,
        )  # fmt: skip
        network.eval()
        labelled += len(data)
        yield {"positions": float(labelled), "loss": stats["loss"], "chunk": float(chunk + 1)}
