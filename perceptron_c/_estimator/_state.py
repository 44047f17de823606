"""An estimator's training state, declared once.

The models whose state is a dict of arrays (``est._state``: the perceptron, the
passive-aggressive estimators, the structured perceptron) declare each array once, as a
`StateArray`: its name, dtype, shape rule and how dask's parameter mixing combines it. From
the declaration follow the fresh state of a first fit (`new_state`), the model file's entries
(``state_<name>``, `state_entries`) and their checks on reading (`restore_state`), and the
mixing roles (`mixing_roles`); an epoch's checkpoint and rollback copy the same arrays
(``_base.Run.arrays``).

The kernel models declare their saved state the same way (`kernels._model`), with shapes
over the support set's size ``"n_sv"``, which grows: the model file's entries (named without
the prefix) and their checks follow from it; their arrays stay attributes (``_alpha``...).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._utils._validation import check_state_array

__all__ = ["StateArray", "new_state", "state_entries", "entry_names", "restore_state",
           "mixing_roles"]

# How parameter mixing combines the shards' copies of an array (perceptron_c.dask):
# "mean": the weighted mean (weights, intercepts, scikit-learn's counters and averages);
# "sum": an averaging sum of [Daume2017] Alg. 7, each shard's scaled to the mixed clock;
# "clock": the averaging clock itself, mixed from the others (_mixing._clock);
# "none": not mixed (the support set of a kernel model, which dask does not train).
MIXING = ("mean", "sum", "clock", "none")


@dataclass(frozen=True)
class StateArray:
    """One array of the state: ``shape`` names the model's sizes (given when the state is
    made or read: ``"rows"``, ``"d"``, ...) or holds numbers; ``initial`` fills a new one."""

    name: str
    shape: tuple[str | int, ...]
    dtype: Any = np.float64
    mixing: str = "mean"
    initial: float = 0.0

    def __post_init__(self) -> None:
        if self.mixing not in MIXING:
            raise ValueError(f"mixing must be one of {MIXING}, got {self.mixing!r}")
        if (self.mixing == "clock") != (self.name == "count"):
            raise ValueError("the averaging clock, and only it, is named 'count'")

    def shape_of(self, sizes: Mapping[str, int]) -> tuple[int, ...]:
        return tuple(sizes[s] if isinstance(s, str) else s for s in self.shape)


def new_state(declared: Iterable[StateArray], sizes: Mapping[str, int]) -> dict[str, np.ndarray]:
    """The state of a first training call: every declared array at its initial value."""
    return {a.name: np.full(a.shape_of(sizes), a.initial, dtype=a.dtype) for a in declared}


def state_entries(state: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The model file's entries of the state (``state_<name>``)."""
    return {f"state_{name}": value for name, value in state.items()}


def entry_names(declared: Iterable[StateArray], prefix: str = "state_") -> set[str]:
    """The model file's entries the declared arrays need (the kernel models' entries are
    named without a prefix: they predate the declaration)."""
    return {f"{prefix}{a.name}" for a in declared}


def restore_state(arrays: dict, declared: Iterable[StateArray], sizes: Mapping[str, int],
                  prefix: str = "state_") -> dict[str, np.ndarray]:
    """The declared arrays read back from a model file, in the declared order, each checked
    for its dtype and shape (range rules between values stay with the estimator)."""
    return {a.name: check_state_array(arrays, f"{prefix}{a.name}", a.shape_of(sizes), a.dtype)
            for a in declared}


def mixing_roles(declared: Iterable[StateArray]) -> dict[str, str]:
    """Each array's mixing (see `MIXING`)."""
    return {a.name: a.mixing for a in declared}
