"""How well the belief model knows where the hidden tiles are, against uniform sampling.

    python -m benchmarks.belief                      # the shipped models, on fresh held-out deals
    python -m benchmarks.belief --retrain --save     # train each anew and ship it (agents/beliefs/)
    python -m benchmarks.belief --variants draw_2p --positions 100000 --retrain

For each shipped config's game, a Markdown row: the positions the model was trained on, the
hidden tiles scored (positions of deals no training saw: seed ``--eval-seed``), and the log-loss
(nats per hidden tile) and per-tile accuracy (the most likely place is the true one) of

- ``model``: the belief network (:mod:`agents.belief`, trained by :mod:`training.belief`);
- ``uniform``: what the search agents sample now, uniform over the worlds consistent with the
  seat's knowledge: marginals of ``--samples`` ``Game.determinize`` draws per position, smoothed
  toward the slot-weighted guess with the weight of one draw;
- ``slots``: each tile uniform over its possible places weighted by the hidden tiles each holds
  (the network's starting point).
"""

from __future__ import annotations

import argparse
import time

import torch

from agents.belief import SHIPPED, BeliefError, BeliefModel, load_belief, save_belief
from benchmarks import nonnegative_int, positive_int
from domino_env.variants import make_game
from training.belief import evaluate, fit, record_positions, scores, slot_weighted

CONFIGS = {
    "draw_2p": ("draw", {"num_players": 2}),
    "block_2p": ("block", {"num_players": 2}),
    "hungarian_3p": ("hungarian", {"num_players": 3}),
    "mexican_train_4p": ("mexican_train", {"num_players": 4}),
    "draw_4p_partners": ("draw", {"num_players": 4, "partnerships": True}),
}
HIDDEN_SIZES = [256, 128]
TRAIN_SEED = 1
EPOCHS = 3


def train(name: str, positions: int, seed: int = TRAIN_SEED, log=print) -> tuple[BeliefModel, dict]:
    """A belief model for config ``name``, trained on ``positions`` recorded positions."""
    variant, options = CONFIGS[name]
    game = make_game(variant, **options)
    started = time.perf_counter()
    data = record_positions(game, positions, seed=seed)
    recorded = time.perf_counter() - started
    network = fit(game, data, HIDDEN_SIZES, epochs=EPOCHS, seed=seed, batch_size=1024)
    summary = {
        "positions": len(data),
        "epochs": EPOCHS,
        "seed": seed,
        "record_seconds": round(recorded, 1),
        "fit_seconds": round(time.perf_counter() - started - recorded, 1),
    }
    log(f"{name}: {len(data):,} positions recorded in {recorded:.0f} s, fitted in {summary['fit_seconds']:.0f} s")
    return BeliefModel(game, network, {"summary": summary}), summary


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", nargs="+", default=list(CONFIGS), choices=list(CONFIGS), metavar="CONFIG")
    parser.add_argument("--positions", type=positive_int, default=300_000, help="training positions per variant")
    parser.add_argument("--eval-positions", type=positive_int, default=2000)
    parser.add_argument("--eval-seed", type=nonnegative_int, default=10_007)
    parser.add_argument("--samples", type=positive_int, default=256, help="determinize draws per position for uniform")
    parser.add_argument("--retrain", action="store_true", help="train even where a shipped model exists")
    parser.add_argument("--save", action="store_true", help="ship what is trained under agents/beliefs/")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    rows = []
    for name in args.variants:
        variant, options = CONFIGS[name]
        game = make_game(variant, **options)
        model = None
        if not args.retrain:
            try:
                model = load_belief(name, game)
            except BeliefError as error:
                print(f"{name}: training ({error})")
        if model is None:
            model, summary = train(name, args.positions)
            if args.save:
                save_belief(SHIPPED / name, model.network, game, summary)
        held_out = record_positions(game, args.eval_positions, seed=args.eval_seed)
        result = evaluate(model, held_out, args.samples, seed=args.eval_seed)
        result["slots_log_loss"] = scores(slot_weighted(game, held_out.obs), held_out)["log_loss"]
        result["positions"] = model.meta.get("summary", {}).get("positions", 0)
        rows.append((name, result))
        print(f"{name}: done", flush=True)
    print()
    print(table(rows, args.samples))


def table(rows: list[tuple[str, dict]], samples: int) -> str:
    lines = [
        "| config | trained on | held-out tiles | log-loss: model | uniform | slots | accuracy: model | uniform |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in rows:
        lines.append(
            f"| {name} | {r['positions']:,} | {int(r['model_tiles']):,} | **{r['model_log_loss']:.4f}** | "
            f"{r['uniform_log_loss']:.4f} | {r['slots_log_loss']:.4f} | **{r['model_accuracy']:.3f}** | "
            f"{r['uniform_accuracy']:.3f} |"
        )
    lines.append(f"\nuniform: {samples} determinize draws per position; log-loss in nats per hidden tile.")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
