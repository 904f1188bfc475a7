"""``python -m arena``: see :mod:`arena.cli`."""

from arena.cli import main

main()
