"""Where are the tiles I cannot see? A learned belief over hidden tiles' locations.

From a seat's observation alone, the belief model gives each tile the seat cannot see (not in its
hand, not on the table) a probability for each place it may be: the hand of each other seat
(relative seats 1 .. P-1) or the pile (the boneyard, or the tiles set aside). Locations the
observation rules out get probability zero: a seat holding no tiles, a seat known to be void in
one of the tile's numbers, an empty pile. Everything it reads is in the observation, so it can
know nothing its seat may not (``tests/test_belief.py`` checks that states differing only in
hidden tiles get the same probabilities).

The search agents can draw their worlds from it instead of uniformly
(:meth:`domino_env.game.Game.determinize_weighted`, with :func:`place_weights`): the hard
constraints stay the engine's, the probabilities only tilt which consistent world is drawn.

Files: ``belief.safetensors`` (the weights, float16, nothing else) beside ``belief.json`` (the
variant, its options, the sizes; the training summary). Loading reads no pickle and checks the
JSON's fields and the tensors' names, shapes and dtypes against the network they describe before
anything is built, as :func:`training.checkpoint.load_network` does for policies. Trained models
ship under ``agents/beliefs/<config>/`` (``python -m benchmarks.belief`` trains them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import save_file
from torch import nn

from agents.weights_file import expected_tensors, hidden_sizes_problem, read_checked_weights
from domino_env.game import Game
from domino_env.tiles import TILE_HIGH, TILE_LOW

WEIGHTS_FILE = "belief.safetensors"
META_FILE = "belief.json"
SHIPPED = Path(__file__).parent / "beliefs"
MAX_HIDDEN_LAYERS = 4
MAX_HIDDEN_SIZE = 4096
MAX_META_BYTES = 100_000
STORED_DTYPE = torch.float16


class BeliefError(ValueError):
    """A belief file that is missing, damaged, or made for another game."""


# ---------------------------------------------------------------------------------------------- masks


def num_places(game: Game) -> int:
    """Places a hidden tile may be in, from a seat's point of view: seats 1 .. P-1 after it, then
    the pile."""
    return game.num_players


def hand_scale(game: Game) -> int:
    """What the observation's ``hand_sizes`` block divides each hand size by."""
    return int(getattr(game.rules, "LARGEST_HAND", game.num_tiles))


def possible_places(game: Game, observations: np.ndarray) -> np.ndarray:
    """``[B, T, P]`` bool: where each tile may be as the observations tell (relative seats
    1 .. P-1, then the pile); all False for a tile the seat holds or sees on the table."""
    return slots(game, observations) > 0


def slots(game: Game, observations: np.ndarray) -> np.ndarray:
    """``[B, T, P]`` int64: for each tile and each place it may be in, how many hidden tiles that
    place holds; 0 where the observation rules the place out (a seat void in one of the tile's
    numbers or holding nothing, an empty pile) and everywhere for a tile the seat sees."""
    layout = game.observation_layout
    obs = np.asarray(observations, np.float32)
    batch, tiles, players = obs.shape[0], game.num_tiles, game.num_players
    hidden = (obs[:, layout["hand"]] < 0.5) & (obs[:, layout["table"]] < 0.5)
    sizes = np.rint(obs[:, layout["hand_sizes"]] * hand_scale(game)).astype(np.int64)
    voids = obs[:, layout["voids"]].reshape(batch, players - 1, -1) > 0.5
    low, high = tile_numbers(tiles)
    void_tile = voids[:, :, low] | voids[:, :, high]  # [B, P-1, T]
    out = np.empty((batch, tiles, players), np.int64)
    out[:, :, : players - 1] = (sizes[:, 1:, None] * ~void_tile).transpose(0, 2, 1)
    out[:, :, players - 1] = np.maximum(hidden.sum(1) - sizes[:, 1:].sum(1), 0)[:, None]
    return out * hidden[:, :, None]


def prior_logits(game: Game, observations: np.ndarray) -> np.ndarray:
    """``[B, T, P]`` float32: the log of :func:`slots` (-inf where it is 0)."""
    with np.errstate(divide="ignore"):
        return np.log(slots(game, observations).astype(np.float32))


def tile_numbers(tiles: int) -> tuple[np.ndarray, np.ndarray]:
    """The low and high number of each tile index below ``tiles``."""
    return np.asarray(TILE_LOW[:tiles], np.int64), np.asarray(TILE_HIGH[:tiles], np.int64)


# ---------------------------------------------------------------------------------------------- network


class BeliefNetwork(nn.Module):
    """An MLP from the observation to one logit per (tile, place); a softmax over each tile's
    possible places gives its location's distribution."""

    def __init__(self, observation_size: int, tiles: int, places: int, hidden_sizes: list[int]) -> None:
        super().__init__()
        self.tiles, self.places, self.hidden_sizes = tiles, places, list(hidden_sizes)
        layers: list[nn.Module] = []
        width = observation_size
        for size in hidden_sizes:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers.append(nn.Linear(width, tiles * places))
        self.body = nn.Sequential(*layers)

    def forward(self, observations: torch.Tensor, prior: torch.Tensor) -> torch.Tensor:
        """Log-probabilities ``[B, T, P]``. ``prior`` (:func:`prior_logits`) is added to the
        network's logits, so that an untrained network starts at the slot-weighted uniform guess
        and learns only how play moves it; -inf there (an impossible place) stays -inf, and a
        tile with no possible place (one the seat sees) gets -inf everywhere."""
        possible = torch.isfinite(prior)
        logits = self.body(observations).view(-1, self.tiles, self.places) + prior.masked_fill(~possible, 0.0)
        logits = logits.masked_fill(~possible, -1e9)
        return torch.log_softmax(logits, dim=-1).masked_fill(~possible, -torch.inf)


def network_for(game: Game, hidden_sizes: list[int]) -> BeliefNetwork:
    return BeliefNetwork(game.observation_size, game.num_tiles, num_places(game), hidden_sizes)


class BeliefModel:
    """A trained belief network for one game: probabilities from observations."""

    def __init__(self, game: Game, network: BeliefNetwork, meta: dict[str, Any] | None = None) -> None:
        self.game, self.network, self.meta = game, network.eval(), dict(meta or {})

    @torch.no_grad()
    def probabilities(self, observations: np.ndarray) -> np.ndarray:
        """``[B, T, P]`` float64: each hidden tile's distribution over its possible places
        (relative seats 1 .. P-1, then the pile); zeros for tiles the seat sees."""
        observations = np.asarray(observations, np.float32).reshape(-1, self.game.observation_size)
        prior = prior_logits(self.game, observations)
        logp = self.network(torch.from_numpy(observations), torch.from_numpy(prior))
        return torch.exp(logp).double().numpy()

    def place_weights(self, observation: np.ndarray, observer: int) -> np.ndarray:
        """The weights :meth:`Game.determinize_weighted` takes for ``observer``'s observation."""
        return place_weights(self.game, self.probabilities(observation)[0], observer)


def place_weights(game: Game, probabilities: np.ndarray, observer: int) -> np.ndarray:
    """``[P + 1, T]`` float64 in the engine's places (absolute seats 0 .. P-1, then the pile)
    from one position's ``[T, P]`` probabilities in relative places."""
    players = game.num_players
    weights = np.zeros((players + 1, game.num_tiles), np.float64)
    for k in range(1, players):
        weights[(observer + k) % players] = probabilities[:, k - 1]
    weights[players] = probabilities[:, players - 1]
    return weights


# ---------------------------------------------------------------------------------------------- files


def describe(game: Game, hidden_sizes: list[int]) -> dict[str, Any]:
    """What a belief file must say to be loaded for ``game``."""
    return {
        "variant": game.name,
        "options": game.options,
        "observation_size": game.observation_size,
        "num_tiles": game.num_tiles,
        "num_places": num_places(game),
        "hidden_sizes": list(hidden_sizes),
    }


def save_belief(folder: str | Path, network: BeliefNetwork, game: Game, summary: dict[str, Any] | None = None) -> None:
    """Write ``belief.safetensors`` (float16 weights) and ``belief.json`` into ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tensors = {name: t.detach().to(STORED_DTYPE).contiguous() for name, t in network.state_dict().items()}
    save_file(tensors, str(folder / WEIGHTS_FILE))
    meta = describe(game, network.hidden_sizes) | {"summary": summary or {}}
    (folder / META_FILE).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")


def resolve_belief(name_or_path: str | Path) -> Path:
    """The folder of a shipped belief (``draw_2p``) or of a path; refuses one that is neither."""
    text = str(name_or_path)
    if text and "/" not in text and "\\" not in text and (SHIPPED / text / META_FILE).is_file():
        return SHIPPED / text
    path = Path(text)
    if (path / META_FILE).is_file():
        return path
    shipped = ", ".join(shipped_beliefs()) or "none"
    raise BeliefError(f"no belief model {text!r}: give a folder with {META_FILE} or a shipped one ({shipped})")


def shipped_beliefs() -> list[str]:
    return sorted(p.name for p in SHIPPED.iterdir() if (p / META_FILE).is_file()) if SHIPPED.is_dir() else []


def read_meta(folder: Path) -> dict[str, Any]:
    file = folder / META_FILE
    try:
        if file.stat().st_size > MAX_META_BYTES:
            raise BeliefError(f"{file} is larger than {MAX_META_BYTES} bytes")
        meta = json.loads(file.read_text(encoding="utf-8"))
    except BeliefError:
        raise
    except (OSError, ValueError, RecursionError) as error:
        raise BeliefError(f"{file} is not a readable JSON file: {' '.join(str(error).split())[:120]}") from None
    if not isinstance(meta, dict):
        raise BeliefError(f"{file} must hold a JSON object")
    return meta


def check_meta(folder: Path, meta: dict[str, Any], game: Game) -> list[int]:
    """The hidden sizes of a belief file whose JSON fits ``game``; a BeliefError otherwise."""
    hidden = meta.get("hidden_sizes")
    problem = hidden_sizes_problem(hidden, MAX_HIDDEN_LAYERS, MAX_HIDDEN_SIZE)
    if problem:
        raise BeliefError(f"belief {folder} records hidden_sizes={str(hidden)[:60]!r}: {problem}")
    expected = describe(game, hidden)
    for key, value in expected.items():
        if meta.get(key) != value:
            raise BeliefError(
                f"belief {folder} was trained for {key}={str(meta.get(key))[:60]!r}, but this game has {key}={value!r}"
            )
    return hidden


def load_belief(name_or_path: str | Path, game: Game) -> BeliefModel:
    """The belief model at ``name_or_path`` (a shipped name or a folder), refusing a file made for
    another game, with other tensors than its recorded network's, or with weights not finite."""
    folder = resolve_belief(name_or_path)
    meta = read_meta(folder)
    hidden = check_meta(folder, meta, game)
    with torch.device("meta"):  # shapes only, no storage
        expected = expected_tensors(network_for(game, hidden), dtype="F16")
    weights = read_checked_weights(folder / WEIGHTS_FILE, expected, BeliefError, f"belief {folder / WEIGHTS_FILE}")
    network = network_for(game, hidden)
    network.load_state_dict({name: t.float() for name, t in weights.items()})
    return BeliefModel(game, network, meta)
