"""A first-order linear-chain CRF model as CRFsuite's ``crf1d`` holds it, in plain arrays: what
the `.crfsuite` file reader and writer (`perceptron_c.crfsuite._file`), the trainers
(`perceptron_c.crfsuite._train`) and the tagger (`perceptron_c.crfsuite.Tagger`) exchange.

Labels and attributes are strings with ids in the order of the model's dictionaries. The
score of a label sequence y for an item sequence x is the sum, over positions t, of the
weights of the state features (attribute a of item t, label y_t) times the attribute's value
in item t, plus the weights of the transitions (y_{t-1}, y_t) for t >= 1.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["CRFModel"]


@dataclass
class CRFModel:
    """The model's dictionaries and weights.

    labels : the label strings, by label id.
    attributes : the attribute strings, by attribute id.
    state_attr, state_label, state_weight : the state features, one entry each (int32,
        int32, float64 arrays of one length): attribute id, label id, weight; sorted by
        attribute id, then label id.
    transitions : float64 array of shape (L, L), the weight of the transition from label i
        (previous) to label j (current).
    header : what the file's header says besides the sizes (for ``Tagger.info()``).
    """

    labels: list[str]
    attributes: list[str]
    state_attr: np.ndarray
    state_label: np.ndarray
    state_weight: np.ndarray
    transitions: np.ndarray
    header: dict = field(default_factory=dict)

    def check(self) -> None:
        """Raise ValueError unless the arrays agree with the dictionaries (ids in range,
        one length for the three state arrays, an L x L transition matrix)."""
        L, A = len(self.labels), len(self.attributes)
        n = self.state_attr.shape[0]
        if self.state_label.shape != (n,) or self.state_weight.shape != (n,):
            raise ValueError("CRF model: the state feature arrays differ in length")
        if n and (self.state_attr.min() < 0 or self.state_attr.max() >= A
                  or self.state_label.min() < 0 or self.state_label.max() >= L):
            raise ValueError("CRF model: a state feature's attribute or label id is out of "
                             "range")
        if self.transitions.shape != (L, L):
            raise ValueError(f"CRF model: transitions must be {L} x {L}, got "
                             f"{self.transitions.shape}")
