"""Pure-Python routines of the greedy averaged-perceptron tagger (`perceptron_c.tagging`):
score one token, update on a mistake, average; the specification a compiled epoch will follow.

The model is the multiclass averaged perceptron (Collins 2002, sec. 2.5; Daume, A Course in
Machine Learning, Alg. 7) as NLTK's ``nltk/tag/perceptron.py`` (3.10.4) runs it: weights
``W[f, c]`` for feature row ``f`` and class ``c``, plus, for lazy averaging, ``totals[f, c]``
(the sum of ``W[f, c]`` over the steps before ``stamps[f, c]``) and ``stamps[f, c]`` (the step
``W[f, c]`` last changed). The step counter counts every token the perceptron predicted during
training (NLTK's ``AveragedPerceptron.i``, lines 224-239), mistakes or not. ``live[f, c]``
says that NLTK's dict-of-dicts holds the pair: set on an update, and after averaging where the
average is not zero (NLTK drops zero averages, line 250), so that a second ``train`` averages
exactly the pairs NLTK averages.

Arithmetic contract (bit-exact with NLTK, which the tests check against NLTK itself):

- Scores (NLTK's ``predict``, lines 207-222): NLTK adds ``value * weight`` feature by feature
  in the order of its features dict (the template order of ``_get_features``), each into the
  class's running sum, starting from 0.0. Every feature of a token is distinct (each template
  name followed by a space is a prefix of no other key), so every value is 1 and
  ``1 * weight`` is ``weight``. The sum of one class therefore runs over the token's known
  features in template order; the order of the classes inside a feature's dict does not
  matter. `score_rows` adds the rows of ``W`` in the order given with ``np.add.accumulate``,
  which is sequential by definition (``np.add.reduce`` is not: on one column it sums
  pairwise). Adding a zero (a pair NLTK does not hold) leaves a sum unchanged, and no weight is
  ever -0.0 (``w + v`` of integers, and NLTK drops a rounded -0.0 average as falsy).
- Choice (line 218): ``max(classes, key=(score, label))``: the highest score, ties to the
  greatest label. The classes are interned in sorted order, so `best_class` takes the last
  index of the maximum.
- Update (lines 224-239): the counter is incremented first, then for each feature
  ``totals += (now - stamps) * W; stamps = now; W += v``, v = +1 for the truth, -1 for the
  guess; an int times a float is the float product, as numpy computes it.
- Average (lines 241-252): ``round((totals + (now - stamps) * W) / now, 3)`` with Python's
  ``round`` (correctly rounded from the exact binary value; ``np.round`` scales by 1000 first
  and differs, e.g. on 2.675 to 2 places), on the live pairs only; zeros are dropped.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import TypeAlias

    import numpy.typing as npt

    _D: TypeAlias = npt.NDArray[np.float64]
    _I: TypeAlias = npt.NDArray[np.int64]
    _B: TypeAlias = npt.NDArray[np.bool_]

__all__ = ["score_rows", "best_class", "update_rows", "average"]


def score_rows(weights: _D, rows: _I) -> _D:
    """The score of every class: the rows ``weights[rows]`` summed one after the other in the
    order of ``rows``, from 0.0 (NLTK's ``predict``, ``nltk/tag/perceptron.py`` lines 209-215).
    """
    if rows.shape[0] == 0:
        return np.zeros(weights.shape[1])
    # accumulate is a running sum by definition: row by row, whatever the shape
    return np.add.accumulate(weights[rows], axis=0)[-1]


def best_class(scores: _D) -> int:
    """The index of the highest score, ties to the highest index (the greatest label of the
    sorted classes: NLTK's ``max(classes, key=lambda label: (scores[label], label))``)."""
    n = scores.shape[0]
    return n - 1 - int(np.argmax(scores[::-1]))


def update_rows(weights: _D, totals: _D, stamps: _I, live: _B, rows: _I, truth: int,
                guess: int, now: int) -> None:
    """One mistake at step ``now`` (already counted): +1 to the truth's weights of ``rows``, -1
    to the guess's, each pair's total brought up to ``now`` first (NLTK's ``update``, lines
    224-239; Daume Alg. 7 with lazy averaging). ``rows`` are distinct, ``truth != guess``."""
    for column, step in ((truth, 1.0), (guess, -1.0)):
        w = weights[rows, column]
        totals[rows, column] += (now - stamps[rows, column]) * w
        stamps[rows, column] = now
        weights[rows, column] = w + step
        live[rows, column] = True


def average(weights: _D, totals: _D, stamps: _I, live: _B, now: int) -> None:
    """Replace ``weights`` by the averages of the live pairs over ``now`` steps, rounded to 3
    decimals as Python's ``round`` does; pairs that average to zero are no longer live (NLTK's
    ``average_weights``, lines 241-252). ``totals`` and ``stamps`` stay as they are, as NLTK's
    do. At ``now == 0`` (nothing was predicted: NLTK would divide by zero) nothing changes."""
    if now == 0:
        return
    where = np.nonzero(live)
    total = totals[where] + (now - stamps[where]) * weights[where]
    rounded = np.array([round(v, 3) for v in (total / now).tolist()], dtype=np.float64)
    weights[...] = 0.0
    # a rounded -0.0 is dropped (falsy in NLTK): storing it would make a later sum -0.0
    kept = rounded != 0.0
    weights[where[0][kept], where[1][kept]] = rounded[kept]
    live[...] = False
    live[where[0][kept], where[1][kept]] = True
