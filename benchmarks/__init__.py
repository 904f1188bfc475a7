"""Speed of domino_env against peer implementations, run side by side (``python -m benchmarks.speed``)."""
