"""What the play history would add to the belief model: the same network fitted on the same
positions with and without :class:`training.belief.PlayHistory` (who played each tile of the
hand, counted from the observer, and at which move; in Draw and Block also the tiles each seat
passed over when it laid another), scored on positions of other deals.

    python -m benchmarks.belief_history                       # every config, 300,000 positions each
    python -m benchmarks.belief_history --variants draw_2p --positions 50000

The observation shows where each tile lies, not who put it there or when. A seat that played
away its fives early, or that played a tile it could have kept, has told the table something the
observation forgets. Prints one Markdown row per config: held-out log-loss (nats per hidden tile)
and per-tile accuracy of each network, and each history's change in log-loss against the
observation alone: ``who``, who played each tile and when; ``passed``, that and the tiles passed
over (the line games only; the same as ``who`` elsewhere).
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from agents.belief import BeliefNetwork, prior_logits
from benchmarks import nonnegative_int, positive_int
from benchmarks.belief import CONFIGS, EPOCHS, HIDDEN_SIZES, TRAIN_SEED
from domino_env.variants import make_game
from training.belief import PlayHistory, Positions, fit, record_positions, scores


@torch.no_grad()
def probabilities(network: BeliefNetwork, game, data: Positions, extra: np.ndarray | None) -> np.ndarray:
    """``[N, T, P]``: ``network``'s distribution of each hidden tile of ``data``, reading ``extra``
    after the observation when it was fitted so."""
    inputs = data.obs if extra is None else np.concatenate([data.obs, extra], 1)
    prior = prior_logits(game, data.obs)
    return torch.exp(network(torch.from_numpy(inputs.astype(np.float32)), torch.from_numpy(prior))).double().numpy()


def measure(name: str, positions: int, eval_positions: int, eval_seed: int) -> dict[str, float]:
    """Each network's held-out scores for config ``name``."""
    variant, options = CONFIGS[name]
    game = make_game(variant, **options)
    data = record_positions(game, positions, seed=TRAIN_SEED, history=True)
    held_out = record_positions(game, eval_positions, seed=eval_seed, history=True)
    who = PlayHistory(game, 1).who_size
    result: dict[str, float] = {"positions": len(data)}
    arms = (("observation", None, None), ("who", data.history[:, :who], held_out.history[:, :who]))
    arms += (("passed", data.history, held_out.history),)
    for label, extra, held_out_extra in arms:
        network = fit(game, data, HIDDEN_SIZES, epochs=EPOCHS, seed=TRAIN_SEED, batch_size=1024, extra=extra)
        score = scores(probabilities(network, game, held_out, held_out_extra), held_out)
        result |= {f"{label}_{key}": value for key, value in score.items()}
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="+", default=list(CONFIGS), choices=list(CONFIGS), metavar="CONFIG")
    parser.add_argument("--positions", type=positive_int, default=300_000, help="training positions per config")
    parser.add_argument("--eval-positions", type=positive_int, default=2000)
    parser.add_argument("--eval-seed", type=nonnegative_int, default=10_007)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print("| config | trained on | held-out tiles | log-loss: observation | with who | change | with passed | change | "
          "accuracy: observation | with who | with passed |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.variants:
        r = measure(name, args.positions, args.eval_positions, args.eval_seed)
        base = r["observation_log_loss"]
        print(
            f"| {name} | {int(r['positions']):,} | {int(r['observation_tiles']):,} | {base:.4f} | "
            f"{r['who_log_loss']:.4f} | {r['who_log_loss'] / base - 1:+.1%} | "
            f"{r['passed_log_loss']:.4f} | {r['passed_log_loss'] / base - 1:+.1%} | "
            f"{r['observation_accuracy']:.3f} | {r['who_accuracy']:.3f} | {r['passed_accuracy']:.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
