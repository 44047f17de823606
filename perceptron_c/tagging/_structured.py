"""The `PerceptronTagger`'s structured mode (``structured=True``): NLTK's 10 static features of
every token (`TokenFeatures`, ``templates="nltk"``, interned) and a `StructuredPerceptron`
(averaged, Viterbi decoding; first order, or second with ``order=2``) in place of the greedy
perceptron and its 4 features of the previous tags.

A composite, as the tagger is: it joins two models the way a Pipeline would.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend
from .._estimator._training import fixed_epochs
from .._utils._validation import CSR
from ..sequence import StructuredPerceptron
from ..token_features import TokenFeatures

_PREFIX = "sp_"  # the estimator's state entries in the tagger's model file


def _flat(sentences: list[list[str]]) -> tuple[list[list[str]], list[int]]:
    """The non-empty sentences (a Viterbi path needs a token) and their positions."""
    kept = [k for k, s in enumerate(sentences) if s]
    return [sentences[k] for k in kept], kept


def _rows(X: Any, n_columns: int) -> Any:
    """`TokenFeatures`' matrix as the estimator takes it (without scipy, its arrays: scipy is
    not a dependency)."""
    if isinstance(X, tuple):
        data, indices, indptr = X
        return CSR(data, indices.astype(np.int32), indptr, (len(indptr) - 1, n_columns))
    return X


class StructuredCore:
    """The features and the sequence model of a structured tagger."""

    def __init__(self, features: TokenFeatures, model: StructuredPerceptron,
                 classes: list[str]) -> None:
        self.features, self.model, self.classes = features, model, classes

    @classmethod
    def train(cls, data: list[tuple[list[str], list[str]]], classes: list[str], nr_iter: int,
              seed: int, order: int = 1) -> StructuredCore:
        """Fit the features and ``nr_iter`` epochs (at most) of the averaged structured
        perceptron on ``data`` ((words, tags) of each sentence), shuffled from ``seed``. The
        model's labels are the indices of the tags in ``classes`` (any str survives the file)."""
        words, kept = _flat([w for w, _ in data])
        code = {c: k for k, c in enumerate(classes)}
        tags = np.array([code[t] for k in kept for t in data[k][1]], dtype=np.int64)
        features = TokenFeatures(templates="nltk")
        X, lengths = features.fit_transform(words, return_lengths=True)
        X = _rows(X, features.n_features_out_)
        model = StructuredPerceptron(average=True, order=order, max_iter=nr_iter,
                                     random_state=seed)
        with fixed_epochs():  # NLTK's nr_iter: a number of epochs, no stopping rule to meet
            model.fit(X, tags, lengths)
        return cls(features, model, classes)

    def tables(self) -> Any:
        """The `_backend.tokens.ViterbiTables` of the averaged model (for the twin in use):
        NLTK's static features of Python tokens, then Viterbi, in one call."""
        model = self.model
        W = np.ascontiguousarray(model.coef_.T, dtype=np.float64)
        b = np.ascontiguousarray(model.intercept_, dtype=np.float64)
        trans = np.ascontiguousarray(np.vstack([model.coef_trans_, model.coef_init_,
                                                model.coef_final_]), dtype=np.float64)
        trans2 = np.ascontiguousarray(model.coef_trans2_, dtype=np.float64) \
            if model.order == 2 else None
        return _backend.tokens.ViterbiTables(self.feature_keys(), list(self.classes), W, b,
                                             trans, trans2)

    def state_arrays(self) -> dict[str, np.ndarray]:
        """The vocabulary's keys (as the caller packs text) and the estimator's state."""
        arrays = {_PREFIX + k: v for k, v in self.model._state_arrays().items()}
        arrays[_PREFIX + "params"] = np.array([self.model.max_iter,
                                               self.model.random_state], dtype=np.int64)
        return arrays

    def feature_keys(self) -> list[str]:
        return list(self.features.get_feature_names_out())

    @classmethod
    def from_state(cls, arrays: dict[str, np.ndarray], keys: list[str], classes: list[str],
                   order: int = 1) -> StructuredCore:
        """The core `state_arrays` saved; ValueError if the entries are not such a state."""
        params = arrays.get(_PREFIX + "params")
        if params is None or params.dtype != np.int64 or params.shape != (2,) or \
                params[0] < 1 or params[1] < 0:
            raise ValueError(f"{_PREFIX}params must be two int64: max_iter >= 1, a seed >= 0")
        state = {k[len(_PREFIX):]: v for k, v in arrays.items()
                 if k.startswith(_PREFIX) and k != _PREFIX + "params"}
        model = StructuredPerceptron._from_state(
            {"average": True, "order": order, "max_iter": int(params[0]),
             "random_state": int(params[1])}, state)
        if model.n_features_in_ != len(keys):
            raise ValueError(f"the model has {model.n_features_in_} features, the vocabulary "
                             f"{len(keys)} keys")
        if model.classes_.tolist() != list(range(len(classes))):
            raise ValueError(f"the model's labels must be 0..{len(classes) - 1}, one per class")
        features = TokenFeatures(templates="nltk").fit([])
        features.__setstate__({"_vocab": keys, "n_features_out_": len(keys)})
        return cls(features, model, classes)
