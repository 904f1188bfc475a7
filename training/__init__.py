"""The self-play trainer: config, network training by masked PPO, imitation, opponent pool,
checkpoints and logs. Evaluation, shipping and the command line are in :mod:`arena`."""
