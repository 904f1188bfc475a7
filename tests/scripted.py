"""Playing a hand-built deal move by move in the rules tests: who acts, what is legal, and a
step that checks both first."""

from __future__ import annotations

import numpy as np


def to_act(env) -> int:
    return env.agent_seat[env.agent_selection]


def legal(env) -> set[str]:
    """Names of the acting agent's legal actions (and check nobody else has any)."""
    for agent in env.agents:
        if agent != env.agent_selection:
            assert not env.observe(agent)["action_mask"].any(), f"{agent} has a mask while not to act"
    mask = env.observe(env.agent_selection)["action_mask"]
    return {env.action_name(int(a)) for a in np.flatnonzero(mask)}


def play(env, name: str, by: int | None = None) -> None:
    """Step the action called ``name``, after checking it is legal (and whose turn it is)."""
    if by is not None:
        assert to_act(env) == by, f"expected player_{by} to act, not {env.agent_selection}"
    options = legal(env)
    assert name in options, f"{name!r} is not legal; legal: {sorted(options)}"
    env.step(env.action_from_name(name))
