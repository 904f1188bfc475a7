"""Reading a safetensors weights file someone else wrote, checking it before using it.

Policies (``training.checkpoint``) and belief models (:mod:`agents.belief`) are shared as files,
so a file may be damaged or hostile. Both are read the same way: the header's tensors must be
exactly those the caller expects (names, shapes, dtypes: checked before any tensor is loaded,
so a header cannot make us allocate more than the network needs), and the weights must be
finite. safetensors itself never runs code from a file.
"""

from __future__ import annotations

from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import load_file

TensorSpec = tuple[tuple[int, ...], str]  # a shape and a safetensors dtype ("F32", "F16", ...)
SAFETENSORS_DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.float16: "F16", torch.bfloat16: "BF16"}


def expected_tensors(module: torch.nn.Module, dtype: str | None = None) -> dict[str, TensorSpec]:
    """What a file holding ``module``'s weights must list: build ``module`` on the ``meta``
    device (no storage) to ask it. ``dtype`` overrides the module's own (files stored in F16)."""
    return {
        name: (tuple(tensor.shape), dtype or SAFETENSORS_DTYPES[tensor.dtype])
        for name, tensor in module.state_dict().items()
    }


def hidden_sizes_problem(hidden: object, max_layers: int, max_size: int) -> str | None:
    """Why ``hidden`` (read from a file's metadata) is not a list of 1 to ``max_layers`` integer
    sizes from 1 to ``max_size``, or None when it is: bounded before any network is built."""
    if (
        isinstance(hidden, list)
        and 1 <= len(hidden) <= max_layers
        and all(type(size) is int and 1 <= size <= max_size for size in hidden)
    ):
        return None
    return f"expected a list of 1 to {max_layers} sizes from 1 to {max_size}"


def one_line(error: BaseException) -> str:
    return " ".join(str(error).split())


def read_checked_weights(
    file: str | Path, expected: dict[str, TensorSpec], error: type[Exception], label: str
) -> dict[str, torch.Tensor]:
    """The tensors of ``file`` if its header lists exactly ``expected`` and every weight is
    finite; otherwise ``error`` with one line starting with ``label`` (what the file is)."""
    try:
        with safe_open(str(file), framework="pt") as handle:
            names = set(handle.keys())
            if names != set(expected):
                missing, extra = sorted(set(expected) - names), sorted(names - set(expected))
                raise error(
                    f"{label} does not hold the tensors of its recorded network "
                    f"(missing {missing[:3]}, unexpected {extra[:3]})"
                )
            for name, (shape, dtype) in expected.items():
                stored = handle.get_slice(name)
                if tuple(stored.get_shape()) != shape or stored.get_dtype() != dtype:
                    raise error(
                        f"{label}: tensor {name} is {stored.get_dtype()} {list(stored.get_shape())}, "
                        f"its recorded network needs {dtype} {list(shape)}"
                    )
        weights = load_file(str(file))
    except error:
        raise
    except Exception as problem:  # safetensors raises its own error types for damaged files
        raise error(f"{label} is not a readable safetensors file: {one_line(problem)[:120]}") from None
    for name, tensor in weights.items():
        if not torch.isfinite(tensor).all():
            raise error(f"{label}: tensor {name} holds weights that are not finite (NaN or inf)")
    return weights
