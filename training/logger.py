"""What a run records: the same scalars to TensorBoard and to a CSV, and a learning-curve PNG."""

from __future__ import annotations

import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: runs happen on machines without a display
import matplotlib.pyplot as plt
from torch.utils.tensorboard import SummaryWriter

CURVE_FILE = "learning_curve.png"
METRICS_FILE = "metrics.csv"


class MetricsLogger:
    """Appends one row per logged update; a resumed run keeps appending to the same files."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.csv_path = run_dir / METRICS_FILE
        self.writer = SummaryWriter(str(run_dir / "tensorboard"))
        self.fields: list[str] | None = None
        if self.csv_path.is_file():
            with self.csv_path.open() as handle:
                self.fields = next(csv.reader(handle), None)

    def log(self, step: int, values: dict[str, float]) -> None:
        for key, value in values.items():
            self.writer.add_scalar(key, value, step)
        row = {"env_steps": step, **values}
        if self.fields is None or not set(row) <= set(self.fields):
            self._widen([*(self.fields or []), *(key for key in row if key not in (self.fields or []))])
        with self.csv_path.open("a", newline="") as handle:
            csv.writer(handle).writerow([row.get(key, "") for key in self.fields])

    def _widen(self, fields: list[str]) -> None:
        """Rewrite the CSV with more columns (a scalar logged for the first time)."""
        rows = []
        if self.csv_path.is_file():
            with self.csv_path.open() as handle:
                rows = list(csv.DictReader(handle))
        with self.csv_path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fields)
            writer.writeheader()
            writer.writerows(rows)
        self.fields = fields

    def plot(self) -> Path:
        """Win rates against the baselines and the losses over training, as a PNG."""
        with self.csv_path.open() as handle:
            rows = list(csv.DictReader(handle))
        figure, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
        for key in [k for k in (self.fields or []) if k.startswith("eval/")]:
            points = [(float(r["env_steps"]), float(r[key])) for r in rows if r.get(key)]
            if points:
                top.plot(*zip(*points, strict=True), marker="o", label=key.removeprefix("eval/"))
        top.set_ylabel("win rate of the policy")
        top.legend(loc="lower right")
        top.grid(alpha=0.3)
        for key in ("loss/policy", "loss/value", "loss/entropy"):
            points = [(float(r["env_steps"]), float(r[key])) for r in rows if r.get(key)]
            if points:
                bottom.plot(*zip(*points, strict=True), label=key.removeprefix("loss/"))
        bottom.set_xlabel("environment steps")
        bottom.legend(loc="upper right")
        bottom.grid(alpha=0.3)
        figure.suptitle(self.run_dir.name)
        figure.tight_layout()
        path = self.run_dir / CURVE_FILE
        figure.savefig(path, dpi=100)
        plt.close(figure)
        return path

    def close(self) -> None:
        self.writer.close()
