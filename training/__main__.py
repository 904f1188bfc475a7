"""``python -m training``: kept as the old name of ``python -m arena`` (:mod:`arena.cli`).

A command alias, run and never imported, so it stands outside the package stack."""

from arena.cli import main

main()
