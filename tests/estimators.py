"""Every estimator of ``perceptron_c.all_estimators()`` with a small configuration and data
to train it on: the one table the tests that cover "every estimator" take theirs from. A
new estimator in the registry fails `test_estimators.test_every_estimator_has_a_case` until
it has a case here.

``CASES[name]`` is a `Case`: ``make(**params)`` a new estimator (a few epochs, seeded),
``data(rng)`` the arguments of its training call (rows and labels, ``lengths`` for the
structured perceptron, tagged sentences for the tagger) and ``fit(estimator, *data)`` that
call (``fit``; NLTK's ``train`` for the tagger).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import perceptron_c
from perceptron_c.datasets import make_tagged_sentences
from perceptron_c.tagging import PerceptronTagger


@dataclass(frozen=True)
class Case:
    make: Callable[..., Any]
    data: Callable[[np.random.Generator], tuple]
    fit: Callable[..., Any] = lambda estimator, *data: estimator.fit(*data)


def _rows(rng: np.random.Generator, n: int = 90) -> tuple:
    """Three classes that no hyperplane separates (every epoch makes mistakes)."""
    X = rng.normal(size=(n, 4))
    y = np.argmax(X[:, :3] + rng.normal(scale=0.7, size=(n, 3)), axis=1)
    return X, y


def _targets(rng: np.random.Generator) -> tuple:
    X = rng.normal(size=(90, 4))
    return X, X @ np.array([1.0, -2.0, 0.5, 0.0]) + rng.normal(scale=0.5, size=90)


def _sentences(rng: np.random.Generator) -> tuple:
    X, y = _rows(rng, 96)
    return X, y, [10, 20, 30, 36]


def _tagged(rng: np.random.Generator) -> tuple:
    return (make_tagged_sentences(int(rng.integers(0, 2**31)), 40, n_tags=4, n_symbols=30),)


def _case(cls: type, data: Callable[[np.random.Generator], tuple], **defaults: Any) -> Case:
    def make(**params: Any) -> Any:
        return cls(**{**defaults, **params})
    return Case(make, data)


CASES: dict[str, Case] = {
    "Perceptron": _case(perceptron_c.Perceptron, _rows, max_iter=4, random_state=0),
    "PassiveAggressiveClassifier": _case(perceptron_c.PassiveAggressiveClassifier, _rows,
                                         max_iter=4, tol=None, random_state=0),
    "PassiveAggressiveRegressor": _case(perceptron_c.PassiveAggressiveRegressor, _targets,
                                        max_iter=4, tol=None, random_state=0),
    "KernelPerceptron": _case(perceptron_c.KernelPerceptron, _rows, kernel="rbf",
                              max_iter=4, random_state=0),
    "KernelPassiveAggressiveClassifier": _case(perceptron_c.KernelPassiveAggressiveClassifier,
                                               _rows, kernel="rbf", max_iter=4, tol=None,
                                               random_state=0),
    "BudgetKernelPerceptron": _case(perceptron_c.BudgetKernelPerceptron, _rows, budget=20,
                                    max_iter=4, random_state=0),
    "VotedPerceptron": _case(perceptron_c.VotedPerceptron, _rows, max_iter=4, random_state=0),
    "StructuredPerceptron": _case(perceptron_c.StructuredPerceptron, _sentences, max_iter=4,
                                  random_state=0),
    "PerceptronTagger": Case(lambda: PerceptronTagger(load=False), _tagged,
                             lambda tagger, sentences: tagger.train(sentences, nr_iter=4)),
}


def every(type_filter: str | None = None) -> list[str]:
    """The names of ``all_estimators(type_filter)``: what tests parametrize over."""
    return [name for name, _ in perceptron_c.all_estimators(type_filter)]
