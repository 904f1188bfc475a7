"""``python -m training.ship``: kept as the old name of ``python -m arena.ship``.

A command alias, run and never imported, so it stands outside the package stack."""

from arena.ship import main

main()
