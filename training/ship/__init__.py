"""``python -m training.ship``: the old name of ``python -m arena.ship`` (see ``__main__``)."""
