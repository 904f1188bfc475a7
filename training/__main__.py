"""``python -m training``: see :mod:`training.cli`."""

from training.cli import main

main()
