"""What the play history would add to the belief model: the same network fitted on the same
positions with and without :class:`training.belief.PlayHistory` (who played each tile of the
hand, counted from the observer, and at which move), scored on positions of other deals.

    python -m benchmarks.belief_history                       # every config, 300,000 positions each
    python -m benchmarks.belief_history --variants draw_2p --positions 50000

The observation shows where each tile lies, not who put it there or when. A seat that played
away its fives early, or that played a tile it could have kept, has told the table something the
observation forgets. Prints one Markdown row per config: held-out log-loss (nats per hidden tile)
and per-tile accuracy of both networks, and the history's change in log-loss.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from agents.belief import BeliefNetwork, prior_logits
from benchmarks.belief import CONFIGS, EPOCHS, HIDDEN_SIZES, TRAIN_SEED
from domino_env.variants import make_game
from training.belief import Positions, fit, record_positions, scores


@torch.no_grad()
def probabilities(network: BeliefNetwork, game, data: Positions, history: bool) -> np.ndarray:
    """``[N, T, P]``: ``network``'s distribution of each hidden tile of ``data``."""
    inputs = np.concatenate([data.obs, data.history], 1) if history else data.obs
    prior = prior_logits(game, data.obs)
    return torch.exp(network(torch.from_numpy(inputs.astype(np.float32)), torch.from_numpy(prior))).double().numpy()


def measure(name: str, positions: int, eval_positions: int, eval_seed: int) -> dict[str, float]:
    """Both networks' held-out scores for config ``name``."""
    variant, options = CONFIGS[name]
    game = make_game(variant, **options)
    data = record_positions(game, positions, seed=TRAIN_SEED, history=True)
    held_out = record_positions(game, eval_positions, seed=eval_seed, history=True)
    result: dict[str, float] = {"positions": len(data)}
    for label, extra in (("observation", None), ("history", data.history)):
        network = fit(game, data, HIDDEN_SIZES, epochs=EPOCHS, seed=TRAIN_SEED, batch_size=1024, extra=extra)
        score = scores(probabilities(network, game, held_out, extra is not None), held_out)
        result |= {f"{label}_{key}": value for key, value in score.items()}
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="+", default=list(CONFIGS), choices=list(CONFIGS), metavar="CONFIG")
    parser.add_argument("--positions", type=int, default=300_000, help="training positions per config")
    parser.add_argument("--eval-positions", type=int, default=2000)
    parser.add_argument("--eval-seed", type=int, default=10_007)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print("| config | trained on | held-out tiles | log-loss: observation | with history | change | "
          "accuracy: observation | with history |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.variants:
        r = measure(name, args.positions, args.eval_positions, args.eval_seed)
        change = r["history_log_loss"] / r["observation_log_loss"] - 1.0
        print(
            f"| {name} | {int(r['positions']):,} | {int(r['observation_tiles']):,} | {r['observation_log_loss']:.4f} | "
            f"{r['history_log_loss']:.4f} | {change:+.1%} | {r['observation_accuracy']:.3f} | "
            f"{r['history_accuracy']:.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
