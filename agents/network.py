"""The policy-and-value network and the masked action distribution.

Illegal actions get a large negative *finite* logit rather than -inf: their probability is
exactly zero after the softmax, their gradient is zero, and no NaN can appear (as -inf would
give in ``0 * -inf`` inside the entropy).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from agents.afterstate import AfterstateHead, AfterstateScores
from agents.run_afterstate import RunAfterstateScores
from agents.tile_attention import PlayScores, TileAttention, attention_sizes_problem, tile_identity
from agents.train_afterstate import TrainAfterstateScores
from agents.weights_file import hidden_sizes_problem
from domino_env.game import Game, action_targets
from domino_env.games import hungarian_rules, mexican_train_rules

ILLEGAL_LOGIT = -1e9
# The largest network a config may ask for and a checkpoint may hold: checked before anything
# is allocated, so a hostile checkpoint's metadata cannot ask for gigabytes.
MAX_HIDDEN_LAYERS = 8
MAX_HIDDEN_SIZE = 65536
# one logit per action; per-tile scores added (TileScores); or scores of what each play leaves
# on the line, the run or the trains added (agents.afterstate and the heads built on it)
ACTION_HEADS = ("flat", "tiles", "afterstate")
# what reads the observation: a stack of dense layers, or a token per tile and attention across
# them (agents.tile_attention), whose hidden sizes are one equal width per layer
TRUNKS = ("mlp", "attention")


def network_shape_problem(hidden: object, trunk: str) -> str | None:
    """Why a ``trunk`` network with ``hidden`` sizes cannot be built, or None when it can: the one
    check a config, a checkpoint's metadata and a benchmark's arguments pass before anything is
    allocated. ``trunk`` is one of ``TRUNKS``; each caller names an unknown one in its own terms."""
    problem = hidden_sizes_problem(hidden, MAX_HIDDEN_LAYERS, MAX_HIDDEN_SIZE)
    if problem is None and trunk == "attention":
        problem = attention_sizes_problem(hidden)  # a list of ints by now
    return problem


def _layer(inputs: int, outputs: int, gain: float = float(np.sqrt(2))) -> nn.Linear:
    """Orthogonal weights and zero bias, the initialisation PPO implementations rely on."""
    layer = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


def _mlp(inputs: int, hidden_sizes: list[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for size in hidden_sizes:
        layers += [_layer(inputs, size), nn.ReLU()]
        inputs = size
    return nn.Sequential(*layers)


def afterstate_scores(width: int, game: Game) -> AfterstateHead:
    """The afterstate head for ``game``: the line's (Draw, Block), the line's and the run's
    (Hungarian) or the trains' (Mexican Train)."""
    if game.rules is mexican_train_rules:
        return TrainAfterstateScores(width, game)
    if game.rules is hungarian_rules:
        return RunAfterstateScores(width, game)
    return AfterstateScores(width, game)


class TileScores(nn.Module):
    """Adds to each (tile, target) action a score computed from what the tile is, shared by all
    tiles: ``score[a] = sum_k W[target(a), k](hidden) * features[tile(a), k]``, where a tile's
    features are how many of its faces show each number, its pips and whether it is a double.

    A plain policy head learns each action's logit on its own weights, so what it learns about
    playing a 5 on one's own train says nothing about other tiles with a 5. Here a target's
    weights over numbers are learned once for every tile (for example "leave open a number I
    hold many of"), while the plain head still adds what is particular to each action.
    Targets are numbered per tile in action order (Draw's left and right end; Mexican Train's
    trains from the actor's own)."""

    def __init__(self, width: int, action_tiles: np.ndarray) -> None:
        super().__init__()
        tiles = np.asarray(action_tiles)
        plays = np.flatnonzero(tiles >= 0)
        targets = action_targets(tiles)[plays]
        features = tile_identity(int(tiles.max()) + 1)
        self.num_actions = len(tiles)
        self.num_targets = int(targets.max()) + 1
        # derived from the game, so kept out of checkpoints
        self.register_buffer("features", torch.as_tensor(features), persistent=False)
        self.register_buffer("plays", torch.as_tensor(plays), persistent=False)
        self.register_buffer("play_tile", torch.as_tensor(tiles[plays]), persistent=False)
        self.register_buffer("play_target", torch.as_tensor(targets), persistent=False)
        self.weights = _layer(width, self.num_targets * features.shape[1], gain=0.01)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        weights = self.weights(hidden).view(len(hidden), self.num_targets, -1)
        scores = torch.einsum("bjk,tk->btj", weights, self.features)
        out = hidden.new_zeros(len(hidden), self.num_actions)
        out[:, self.plays] = scores[:, self.play_tile, self.play_target]
        return out


class PolicyNetwork(nn.Module):
    """A policy head (one logit per action) on a trunk that reads the observation, and a value
    head. The value head shares that trunk, unless ``critic_inputs`` > 0: then it sits on a
    critic of its own that reads the observation and that many privileged inputs (the hidden
    tiles, :mod:`training.critic_inputs`), which the policy never sees.

    The trunk is an MLP, or with ``attention`` (the game) a token per tile read by attention
    (:class:`agents.tile_attention.TileAttention`, its layers of the one width
    ``hidden_sizes`` lists): then every play is also scored from its tile's token
    (:class:`agents.tile_attention.PlayScores`), and the critic, when separate, is an MLP."""

    def __init__(
        self,
        observation_size: int,
        num_actions: int,
        hidden_sizes: list[int],
        critic_inputs: int = 0,
        action_tiles: np.ndarray | None = None,
        afterstate: Game | None = None,
        attention: Game | None = None,
    ) -> None:
        super().__init__()
        if attention is None:
            self.trunk: nn.Module = _mlp(observation_size, hidden_sizes)
            self.play_scores = None
        else:
            self.trunk = TileAttention(attention, hidden_sizes[0], len(hidden_sizes))
            self.play_scores = PlayScores(hidden_sizes[0], attention.action_tiles)
        self.policy_head = _layer(hidden_sizes[-1], num_actions, gain=0.01)
        self.tile_scores = None if action_tiles is None else TileScores(hidden_sizes[-1], action_tiles)
        self.afterstate = None if afterstate is None else afterstate_scores(hidden_sizes[-1], afterstate)
        self.critic = _mlp(observation_size + critic_inputs, hidden_sizes) if critic_inputs else None
        self.value_head = _layer(hidden_sizes[-1], 1, gain=1.0)
        self.observation_size = observation_size
        self.num_actions = num_actions
        self.hidden_sizes = list(hidden_sizes)
        self.critic_inputs = critic_inputs

    @property
    def action_head(self) -> str:
        if self.afterstate is not None:
            return "afterstate"
        return "flat" if self.tile_scores is None else "tiles"

    @property
    def trunk_kind(self) -> str:
        return "mlp" if self.play_scores is None else "attention"

    def _encode(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The trunk's hidden vector and, from an attention trunk, its plays' scores."""
        if self.play_scores is None:
            return self.trunk(observations), None
        hidden, tokens = self.trunk.encode(observations)
        return hidden, self.play_scores(hidden, tokens)

    def _logits(self, hidden: torch.Tensor, observations: torch.Tensor, plays: torch.Tensor | None) -> torch.Tensor:
        logits = self.policy_head(hidden)
        if plays is not None:
            logits = logits + plays
        if self.tile_scores is not None:
            logits = logits + self.tile_scores(hidden)
        if self.afterstate is not None:
            logits = logits + self.afterstate(observations, hidden)
        return logits

    def logits(self, observations: torch.Tensor) -> torch.Tensor:
        """The policy's logits: what plays, from the observation alone."""
        hidden, plays = self._encode(observations)
        return self._logits(hidden, observations, plays)

    def forward(
        self, observations: torch.Tensor, privileged: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits and values; ``privileged`` (``[N, critic_inputs]``) is required by a
        privileged critic and ignored otherwise."""
        hidden, plays = self._encode(observations)
        if self.critic is None:
            return self._logits(hidden, observations, plays), self.value_head(hidden).squeeze(-1)
        if privileged is None or privileged.shape[-1] != self.critic_inputs:
            raise ValueError(
                f"this network's critic reads {self.critic_inputs} privileged inputs besides the observation"
            )
        value = self.value_head(self.critic(torch.cat([observations, privileged], -1)))
        return self._logits(hidden, observations, plays), value.squeeze(-1)


def network_for(
    game: Game, hidden_sizes: list[int], critic_inputs: int = 0, action_head: str = "flat", trunk: str = "mlp"
) -> PolicyNetwork:
    """A network shaped for ``game``: its observation and actions, and with
    ``action_head="tiles"`` its tiles' scores (:class:`TileScores`), with ``"afterstate"`` the
    scores of what each play leaves (:func:`afterstate_scores`); with ``trunk="attention"`` a
    token per tile read by attention (:mod:`agents.tile_attention`)."""
    tiles = game.action_tiles if action_head == "tiles" else None
    afterstate = game if action_head == "afterstate" else None
    attention = game if trunk == "attention" else None
    return PolicyNetwork(
        game.observation_size, game.num_actions, hidden_sizes, critic_inputs, tiles, afterstate, attention
    )


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every action ``mask`` forbids set to ``ILLEGAL_LOGIT``."""
    return torch.where(mask.bool(), logits, torch.full_like(logits, ILLEGAL_LOGIT))


@torch.no_grad()
def legal_log_probs(network: PolicyNetwork, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``[N, A]`` float32: ``network``'s log-probability of each legal action, exactly 0 at the
    illegal ones (a prior that fitted targets can be anchored to)."""
    logits = masked_logits(network.logits(torch.as_tensor(observations)), torch.as_tensor(masks))
    log_probs = torch.log_softmax(logits, -1).numpy()
    return np.where(masks > 0, log_probs, 0.0).astype(np.float32)


def masked_distribution(logits: torch.Tensor, mask: torch.Tensor) -> Categorical:
    """The policy restricted to legal actions."""
    return Categorical(logits=masked_logits(logits, mask))


def legal_entropy(distribution: Categorical, mask: torch.Tensor) -> torch.Tensor:
    """Entropy over the legal actions only (illegal ones contribute exactly nothing)."""
    terms = distribution.probs * distribution.logits
    return -torch.where(mask.bool(), terms, torch.zeros_like(terms)).sum(-1)
