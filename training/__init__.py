"""Self-play training, evaluation and the command line for the domino environments."""
