"""What puts agents to use: the command line, evaluation and shipping, replays, web play, and
the bridges that bring external RL frameworks' policies in as agents.

The top of the stack (``domino_env`` -> ``agents`` -> ``training`` -> ``arena``): nothing below
imports it. ``python -m arena`` (or the ``domino`` command) is the command line.
"""
