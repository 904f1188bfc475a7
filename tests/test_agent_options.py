"""Agent options are checked where the agent is built: a bad value (NaN, infinite, negative,
zero where a budget must be positive, too large, a bool or a string) is a one-line ValueError
that names the agent, the option, the value and its range, by name string and by constructor,
before any work; the valid extremes build and play. An unchecked ``milliseconds=nan`` would make
a search never reach its deadline."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

import domino_env
from agents import make_agent
from agents.registry import accepted_options, parse_agent, parse_options
from agents.search import (
    FULL_EFFORT,
    MAX_EXPLORE,
    MAX_MILLISECONDS,
    MAX_SIMULATIONS,
    ISMCTSAgent,
    OracleAgent,
    PIMCAgent,
)

pytestmark = pytest.mark.core

SEARCH = {"pimc": PIMCAgent, "ismcts": ISMCTSAgent, "oracle": OracleAgent}
TREE = ("ismcts", "oracle")

HUGE = "9" * 5000  # too many digits for int(): read as the float inf

# option -> texts a spec may carry that must be refused (parse_options reads them as int, float or str)
BAD_TEXT = {
    "simulations": ["nan", "inf", "-inf", "-1", "0", str(MAX_SIMULATIONS + 1), "1.5", "1e9", "True", "many", HUGE],
    "milliseconds": ["nan", "inf", "-inf", "-1", "0", "0.5", str(MAX_MILLISECONDS + 1), "1e400", "True", "fast"],
    "epsilon": ["nan", "inf", "-inf", "-0.1", "1.5", "2", "True", "some"],
    "effort": ["nan", "inf", "-1", str(FULL_EFFORT + 1), "2.0", "True", "full"],
    "explore": ["nan", "inf", "-inf", "-1", "-0.5", str(int(MAX_EXPLORE) + 1), "True", "wide"],
}
# option -> Python values a constructor keyword may carry that must be refused
BAD_VALUE = {
    "simulations": [
        math.nan,
        math.inf,
        -math.inf,
        -1,
        0,
        MAX_SIMULATIONS + 1,
        10**400,
        1.5,
        1e2,
        True,
        False,
        "1",
        None,
    ],
    "milliseconds": [math.nan, math.inf, -math.inf, -1, 0, 0.5, MAX_MILLISECONDS + 1, 10**400, True, "50"],
    "epsilon": [math.nan, math.inf, -math.inf, -0.1, 1.5, True, "0.1"],
    "effort": [math.nan, math.inf, -1, FULL_EFFORT + 1, 2.0, True, "16", None],
    "explore": [math.nan, math.inf, -math.inf, -1, MAX_EXPLORE + 1, True, "1", None],
}
# option -> the smallest and largest values allowed
EXTREMES = {
    "simulations": (1, MAX_SIMULATIONS),
    "milliseconds": (1, MAX_MILLISECONDS),
    "epsilon": (0, 1),
    "effort": (0, FULL_EFFORT),
    "explore": (0, MAX_EXPLORE),
}


def options_of(name: str) -> list[str]:
    return [option for option in BAD_TEXT if option != "explore" or name in TREE]


def cases(table: dict) -> list[tuple[str, str, object]]:
    return [(name, option, bad) for name in SEARCH for option in options_of(name) for bad in table[option]]


@pytest.fixture(scope="module")
def game():
    return domino_env.make_game("draw", num_players=2)


def a_position(game) -> np.ndarray:
    """A game a few moves in whose acting seat has a choice."""
    state = game.new_state(1)
    mask = np.zeros(game.num_actions, np.int8)
    rng = np.random.default_rng(0)
    for stream in range(100):
        game.seed(state, 0, 7, stream=stream)
        game.start(state, 0)
        for _ in range(3):
            if game.is_over(state, 0) or game.legal_mask(state, 0, mask) > 1:
                break
            game.step(state, 0, int(rng.choice(np.flatnonzero(mask))))
        if not game.is_over(state, 0) and game.legal_mask(state, 0, mask) > 1:
            return state
    raise AssertionError("no position with a choice")


def assert_refusal(error: pytest.ExceptionInfo, name: str, option: str) -> None:
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"{name}: {option} must be "), message
    assert " from " in message and " to " in message and ", got " in message, message


@pytest.mark.parametrize(("name", "option", "text"), cases(BAD_TEXT))
def test_a_bad_option_in_a_name_string_is_refused(game, name: str, option: str, text: str) -> None:
    spec = f"{name}:{option}={text}"
    with pytest.raises(ValueError) as error:
        make_agent(spec, game, seed=0)
    assert_refusal(error, name, option)
    assert str(parse_options(spec, f"{option}={text}")[option]) in str(error.value) or len(text) > 100
    with pytest.raises(ValueError) as error:  # no game needed: a spec is checked as it is read
        parse_agent(spec)
    assert_refusal(error, name, option)


@pytest.mark.parametrize(("name", "option", "value"), cases(BAD_VALUE))
def test_a_bad_option_is_refused_by_the_constructor_and_the_registry(game, name: str, option: str, value) -> None:
    with pytest.raises(ValueError) as error:
        SEARCH[name](game, seed=0, **{option: value})
    assert_refusal(error, name, option)
    with pytest.raises(ValueError) as error:
        make_agent(name, game, seed=0, **{option: value})
    assert_refusal(error, name, option)


def test_nan_and_inf_are_read_as_numbers_and_then_refused() -> None:
    options = parse_options("pimc:milliseconds=nan,simulations=inf", "milliseconds=nan,simulations=inf")
    assert math.isnan(options["milliseconds"]) and options["simulations"] == math.inf
    with pytest.raises(ValueError, match=r"^pimc: milliseconds must be a finite number from 1 to 60000, got nan$"):
        parse_agent("pimc:milliseconds=nan")


@pytest.mark.parametrize("name", list(SEARCH))
def test_a_refusal_comes_before_any_work(name: str) -> None:
    """Refused with no game at all (``None`` would fail on first use) and at once."""
    start = time.perf_counter()
    for option in options_of(name):
        with pytest.raises(ValueError, match=option):
            SEARCH[name](None, **{option: math.nan})
        with pytest.raises(ValueError, match=option):
            parse_agent(f"{name}:{option}=nan")
    with pytest.raises(AttributeError):  # valid options do reach the game
        SEARCH[name](None)
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize("name", list(SEARCH))
def test_the_valid_extremes_build_and_play_a_move_quickly(game, name: str) -> None:
    state = a_position(game)
    mask = np.zeros(game.num_actions, np.int8)
    game.legal_mask(state, 0, mask)
    small = {"simulations": 8}
    make_agent(name, game, seed=0, **small).act_state(state, 0)  # compiles the search: not timed
    for option in options_of(name):
        for value in EXTREMES[option]:
            options = small | {option: value}
            if option == "simulations" and value == MAX_SIMULATIONS:
                agent = make_agent(f"{name}:simulations={value}", game, seed=0)  # builds; a move would take seconds
                assert agent.simulations == MAX_SIMULATIONS
                continue
            if option == "milliseconds" and value == MAX_MILLISECONDS:
                agent = make_agent(name, game, seed=0, milliseconds=value)  # builds; a move would take a minute
                assert agent.milliseconds == MAX_MILLISECONDS
                continue
            for agent in (make_agent(name, game, seed=0, **options), SEARCH[name](game, seed=0, **options)):
                assert getattr(agent, option) == value
                start = time.perf_counter()
                action = agent.act_state(state, 0)
                assert mask[action] and time.perf_counter() - start < 5.0
    spec = f"{name}:milliseconds=1,simulations=1,epsilon=0.5,effort=1" + (",explore=0.5" if name in TREE else "")
    assert mask[make_agent(spec, game, seed=0).act_state(state, 0)]


def test_an_unknown_option_is_refused_with_the_options_the_agent_takes(game) -> None:
    with pytest.raises(ValueError) as error:
        make_agent("pimc:simulatons=8", game)
    message = str(error.value)
    assert "\n" not in message
    assert message == (
        "agent 'pimc' does not take the options ['simulatons']; "
        "it takes belief, effort, epsilon, milliseconds, rollout, simulations"
    )
    pimc_takes = "belief, effort, epsilon, milliseconds, rollout, simulations"
    with pytest.raises(ValueError, match=rf"'explore'\]; it takes {pimc_takes}$"):
        parse_agent("pimc:explore=1")
    ismcts_takes = "belief, effort, epsilon, explore, milliseconds, rollout, simulations"
    with pytest.raises(ValueError, match=rf"it takes {ismcts_takes}$"):
        make_agent("ismcts", game, simulatons=8)
    for taken in ("seed", "game"):
        with pytest.raises(ValueError, match=rf"\['{taken}'\]; it takes"):
            make_agent(f"oracle:{taken}=3", game)
    with pytest.raises(ValueError, match=r"^agent 'random' does not take the options \['x'\]; it takes no options$"):
        make_agent("random:x=1", game)
    assert accepted_options(OracleAgent) == ["effort", "epsilon", "explore", "milliseconds", "rollout", "simulations"]


def test_every_search_is_bounded() -> None:
    """Neither budget can be switched off: simulations is at least 1 even with a time budget,
    and a time budget is at least a millisecond."""
    for name in SEARCH:
        for spec in (f"{name}:simulations=0,milliseconds=5", f"{name}:milliseconds=0", f"{name}:milliseconds=-0.0"):
            with pytest.raises(ValueError, match=r"(simulations|milliseconds) must be"):
                parse_agent(spec)
