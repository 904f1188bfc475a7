"""What a run records: the same scalars to TensorBoard and to a CSV, a learning-curve PNG, and a
log of the run's starts and resumes."""

from __future__ import annotations

import csv
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: runs happen on machines without a display
import matplotlib.pyplot as plt
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
from tensorboard.summary.writer.record_writer import RecordWriter
from torch.utils.tensorboard import SummaryWriter

CURVE_FILE = "learning_curve.png"
METRICS_FILE = "metrics.csv"
TENSORBOARD_DIR = "tensorboard"
RUN_LOG = "run.log"
END_PHASE = "improve/"  # the scalars of the phase after PPO, logged at its last step


class MetricsLogger:
    """Appends one row per logged update, keyed by environment steps.

    A resumed run continues the same files from its checkpoint: what was logged after the
    checkpoint's step (``keep_until``) by the process that died is dropped first, from the CSV and
    from the TensorBoard event files alike, so every update appears once. A new run
    (``keep_until=-1``) drops whatever an earlier attempt left in its folder. The phase after
    PPO (:data:`END_PHASE` scalars, at the last update's step) is dropped on a resume whatever
    its step: the resumed run trains on from before it and runs it again at its own end.
    """

    def __init__(self, run_dir: Path, keep_until: int = -1) -> None:
        self.run_dir = run_dir
        self.csv_path = run_dir / METRICS_FILE
        self.fields: list[str] | None = None
        if self.csv_path.is_file():
            with self.csv_path.open() as handle:
                self.fields = next(csv.reader(handle), None)
            self._keep_rows_until(keep_until)
        drop_events_after(run_dir / TENSORBOARD_DIR, keep_until)
        self.writer = SummaryWriter(str(run_dir / TENSORBOARD_DIR))

    def _keep_rows_until(self, step: int) -> None:
        with self.csv_path.open() as handle:
            rows = list(csv.DictReader(handle))
        kept = [
            row
            for row in rows
            if None not in row.values()  # None: cut short
            and float(row["env_steps"]) <= step
            and not any(value for key, value in row.items() if key.startswith(END_PHASE))
        ]
        if not kept:
            self.csv_path.unlink()
            self.fields = None
        elif len(kept) < len(rows):
            self._write(self.fields or [], kept)

    def note(self, text: str) -> None:
        """Print a line and append it, timestamped, to the run's ``run.log``."""
        print(text)
        with (self.run_dir / RUN_LOG).open("a") as handle:
            handle.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {text}\n")

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
        self._write(fields, rows)

    def _write(self, fields: list[str], rows: list[dict[str, str]]) -> None:
        """Replace the CSV at once (a new file renamed over the old one), so that a process
        killed meanwhile leaves the old file or the new one, never half of it."""
        part = self.csv_path.with_name(self.csv_path.name + ".part")
        with part.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fields)
            writer.writeheader()
            writer.writerows(rows)
        part.replace(self.csv_path)
        self.fields = fields

    def plot(self) -> Path:
        """Win rates against the baselines and the losses over training, as a PNG."""
        with self.csv_path.open() as handle:
            rows = list(csv.DictReader(handle))
        figure, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
        colors: dict[str, str] = {}  # each baseline's line, for its point after the improvement phase
        for key in [k for k in (self.fields or []) if k.startswith("eval/")]:
            points = [(float(r["env_steps"]), float(r[key])) for r in rows if r.get(key)]
            if points:
                (line,) = top.plot(*zip(*points, strict=True), marker="o", label=key.removeprefix("eval/"))
                colors[key.removeprefix("eval/")] = line.get_color()
        for key in [k for k in (self.fields or []) if k.startswith(END_PHASE + "vs_")]:
            points = [(float(r["env_steps"]), float(r[key])) for r in rows if r.get(key)]
            if points:
                name = key.removeprefix(END_PHASE)
                top.plot(
                    *zip(*points, strict=True), marker="*", markersize=14, linestyle="", color=colors.get(name),
                    label=f"{name} after the improvement phase",
                )  # fmt: skip
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


def drop_events_after(folder: Path, step: int) -> None:
    """Rewrite the TensorBoard event files in ``folder`` without the scalars of steps after
    ``step`` and those of the phase after PPO. (TensorBoard's own purge marker hides them only
    from readers that honour it.)"""
    for path in sorted(folder.glob("events.out.tfevents.*")):
        events = list(EventFileLoader(str(path)).Load())  # a record cut short by a kill is left out
        kept = [
            event
            for event in events
            if not event.HasField("summary")
            or (event.step <= step and not any(value.tag.startswith(END_PHASE) for value in event.summary.value))
        ]
        if len(kept) == len(events):
            continue
        part = folder / "rewriting.part"  # no "tfevents" in the name: TensorBoard ignores it meanwhile
        writer = RecordWriter(part.open("wb"))
        for event in kept:
            writer.write(event.SerializeToString())
        writer.close()
        part.replace(path)
