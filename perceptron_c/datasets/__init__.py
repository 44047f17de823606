"""Data sets: data files (svmlight, CSV, npz) and the synthetic sets of the demo and tests.

Data files
----------
``load_data(path)`` returns ``(X, y)`` and picks the reader by extension:

- ``.svm``, ``.svmlight``, ``.libsvm``, ``.txt``: svmlight / libsvm text, one sample a line,
  ``label idx:val idx:val ...`` with 1-based indices; ``#`` starts a comment, ``qid:`` pairs
  are ignored, blank lines are skipped. X is a scipy CSR matrix when scipy is installed, else
  a dense float64 array.
- ``.csv``: comma-separated, the last column is the label. The first row is a header, and
  is skipped, when none of its feature cells is a number (``width,height,label``), or when
  its feature cells number the columns (``0,1,2`` as pandas names unnamed columns, or
  ``1,2,3``) and its label cell is text while every other label is a number (``0,1,2,y``);
  a first row mixing numbers and text among its feature cells is an error, and so is one
  of other numbers whose label is text above numeric labels (a mistyped label, or a header
  to skip with ``header=True``).
  When the labels are text too, a first row of numbers and a text label (``0,1,cat``) is
  read as data, since it may be one: pass ``header=True`` to skip it (``header=False``
  reads any first row as data). A feature cell that is not a finite number is an error
  naming its line and column; so is an empty label cell, and, where the labels are numbers,
  a label that is not a finite number (``nan``, ``inf``, or a missing-value word such as
  ``NA``, ``N/A``, ``null`` or ``None``). Text labels are kept as they are. A cell may be
  quoted whole (``"a,b"``, ``""`` for a quote); a quoted cell ends on its line, and any
  other ``"`` is an error naming its line and column.
- ``.npz``: arrays ``X`` and ``y``, or ``data``, ``indices``, ``indptr``, ``shape`` and ``y``
  for a CSR matrix (the layout ``scipy.sparse.save_npz`` writes, plus ``y``). Labels NaN,
  inf, NaT or empty text are missing, and complex or record labels are refused; the others
  keep their dtype.

Text files are UTF-8 (a BOM is dropped); lines end at ``\\n``, ``\\r\\n`` or ``\\r``. Numbers are
plain ASCII decimals: Python's ``1_0`` and non-ASCII digits are errors, as in C readers.

Labels come back as int64 when all are integers that fit (Python ints in an object array
when one does not: labels are never rounded), float64 when all are numbers, else as
strings. ``dump_svmlight(X, y, path)`` writes the svmlight text format, for round trips.

Tagged text
-----------
``load_tagged(path)`` reads sentences of ``(word, tag)`` pairs from ``word/TAG`` lines (one
sentence a line; the last ``/`` splits) or CoNLL-style columns (one token a line, a blank
line between sentences, ``#`` comments), and ``dump_tagged(sentences, path)`` writes them;
both functions document their rules. Bad files raise `FileFormatError` naming the line.

Synthetic sets
--------------
Generated from a numpy ``Generator`` (no downloads), shared by the demo, the experiments,
the examples and the tests: ``make_separable`` (a known separator and margin), ``make_text``
(sparse bag of words), ``make_blobs`` (K Gaussian classes), ``make_xor`` (not linearly
separable), ``make_dnf`` (0/1 rows labelled by a hidden monotone DNF), and
``load_digits_split`` (scikit-learn's bundled 8x8 digits, when scikit-learn is installed).
For sequence labeling, ``make_sequences`` draws sentences from a hidden Markov model with a
known tagging (per-token feature rows, tags and ``lengths``), and ``make_tagged_sentences``
the same sentences as ``(word, tag)`` strings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _backend
from .._utils._docs import fill
from ._files import DATA_EXTENSIONS, dump_svmlight, load_data
from ._sequences import make_sequences, make_tagged_sentences
from ._tagged import dump_tagged, load_tagged

__all__ = [
    "DATA_EXTENSIONS", "load_data", "dump_svmlight", "make_separable", "make_text",
    "make_blobs", "make_xor", "make_dnf", "load_digits_split",
    "load_tagged", "dump_tagged", "make_sequences", "make_tagged_sentences",
]


# --------------------------------------------------------------------------- synthetic sets

# the parameters every generator shares: the seeded source first; a set of points' size
_MAKER = {
    "rng": """
        Parameters
        ----------
        rng : numpy.random.Generator
            The source of randomness (``np.random.default_rng(seed)``).
        """,
    "points": """
        n : int
            Number of points.
        d : int
            Number of features.
        """,
}

@fill(_MAKER)
def make_separable(rng: np.random.Generator, n: int, d: int, gap: float = 0.2,
                   bias: float = 0.3) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Dense points separated by a known hyperplane with a known margin.

    The labels are sign(u.x + b0), and only points with ``|u.x + b0| >= gap`` are kept
    (||u|| = 1), so (u, b0) separates them with geometric margin at least ``gap``.

    {rng}
    {points}
    gap : float, default=0.2
        The smallest distance of a point to the hyperplane.
    bias : float, default=0.3
        The hyperplane's offset b0.

    Returns
    -------
    X : ndarray of float64 of shape (n, d)
        Standard normal points, those closer than ``gap`` to the hyperplane left out.
    y : ndarray of int of shape (n,)
        +1 where u.x + b0 > 0, else -1.
    u : ndarray of float64 of shape (d,)
        The hyperplane's unit normal.
    b0 : float
        ``bias``.
    """
    u = rng.standard_normal(d)
    u /= math.sqrt(_backend.gram.row_sqnorms(u[None, :])[0])
    kept: list[np.ndarray] = []
    while sum(len(block) for block in kept) < n:
        block = rng.standard_normal((2 * n, d))
        kept.append(block[np.abs(_activations(block, u, bias)) >= gap])
    X = np.concatenate(kept)[:n]
    y = np.where(_activations(X, u, bias) > 0, 1, -1)
    return X, y, u, bias


def _activations(X: np.ndarray, u: np.ndarray, bias: float) -> np.ndarray:
    """u . x + bias for every row, the dot the package's 4-lane sum (BLAS's would change the
    set generated with the machine and its thread count)."""
    out = np.empty((X.shape[0], 1))
    _backend.linear.decision_dense(np.ascontiguousarray(X), u[None, :], np.array([bias]), out)
    return out[:, 0]


def _csr_counts(rows, cols, n_rows, n_cols):
    """Word-count matrix from (doc, word) token pairs: scipy CSR, or dense without scipy."""
    keys, counts = np.unique(rows.astype(np.int64) * n_cols + cols, return_counts=True)
    doc, word = np.divmod(keys, n_cols)
    try:
        import scipy.sparse
    except ImportError:
        dense = np.zeros((n_rows, n_cols))
        dense[doc, word] = counts
        return dense
    indptr = np.concatenate([[0], np.cumsum(np.bincount(doc, minlength=n_rows))])
    return scipy.sparse.csr_matrix((counts.astype(np.float64), word, indptr),
                                   shape=(n_rows, n_cols))


@fill(_MAKER)
def make_text(rng: np.random.Generator, n: int, vocabulary: int = 5000, mean_length: int = 36,
              topic_words: int = 250, topic_share: float = 0.15) -> tuple[Any, np.ndarray]:
    """Bag-of-words counts of two overlapping classes of documents ("ham" and "spam").

    Most tokens come from a shared Zipf-like law over the vocabulary, a share from a per-class
    topic list, so the classes overlap as real documents do.

    {rng}
    n : int
        Number of documents.
    vocabulary : int, default=5000
        Number of distinct words (columns).
    mean_length : int, default=36
        Mean number of tokens of a document (Poisson, at least 1).
    topic_words : int, default=250
        Length of each class's topic list (2 * topic_words must not exceed ``vocabulary``).
    topic_share : float, default=0.15
        Probability that a token is drawn from its class's topic list.

    Returns
    -------
    X : scipy.sparse CSR matrix or ndarray, of float64 of shape (n, vocabulary)
        Word counts; a dense array when scipy is not installed.
    y : ndarray of str of shape (n,)
        ``"ham"`` or ``"spam"``.
    """
    labels = np.array(["ham", "spam"])
    y_index = rng.integers(0, 2, size=n)
    lengths = np.maximum(rng.poisson(mean_length, size=n), 1)
    rows = np.repeat(np.arange(n), lengths)
    frequency = 1.0 / (np.arange(vocabulary) + 10.0)
    words = rng.choice(vocabulary, size=rows.shape[0], p=frequency / frequency.sum())
    topics = rng.choice(vocabulary, size=(2, topic_words), replace=False)
    from_topic = rng.random(rows.shape[0]) < topic_share
    picks = rng.integers(0, topic_words, size=rows.shape[0])
    words = np.where(from_topic, topics[y_index[rows], picks], words)
    return _csr_counts(rows, words, n, vocabulary), labels[y_index]


@fill(_MAKER)
def make_blobs(rng: np.random.Generator, n: int, d: int, n_classes: int = 10,
               spread: float = 2.2) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian blobs around random centres; ``spread`` sets how much the classes overlap.

    {rng}
    {points}
    n_classes : int, default=10
        Number of classes (centres, drawn normal with standard deviation 1.5).
    spread : float, default=2.2
        The points' standard deviation around their centre is ``spread / sqrt(2)``.

    Returns
    -------
    X : ndarray of float64 of shape (n, d)
        The points.
    y : ndarray of int64 of shape (n,)
        Class indices in [0, n_classes), drawn uniformly.
    """
    centres = rng.standard_normal((n_classes, d)) * 1.5
    y = rng.integers(0, n_classes, size=n)
    return centres[y] + spread * rng.standard_normal((n, d)) / np.sqrt(2.0), y


@fill(_MAKER)
def make_xor(rng: np.random.Generator, n: int,
             noise: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """Four Gaussian clusters at (+-1, +-1) labelled by the XOR of the centre's signs.

    Label +1 where x1 * x2 > 0 at the cluster centre ([Daume2017] Fig. 4.12), else -1: not
    linearly separable.

    {rng}
    n : int
        Number of points, each in a cluster drawn uniformly.
    noise : float, default=0.3
        The standard deviation of the points around their centre.

    Returns
    -------
    X : ndarray of float64 of shape (n, 2)
        The points.
    y : ndarray of int of shape (n,)
        +1 for the clusters at (1, 1) and (-1, -1), -1 for the others.
    """
    centres = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1]], dtype=float)
    which = rng.integers(0, 4, n)
    return centres[which] + noise * rng.standard_normal((n, 2)), np.where(which < 2, 1, -1)


@fill(_MAKER)
def make_dnf(rng: np.random.Generator, n: int, n_bits: int = 40, density: float = 0.3,
             terms: Sequence[Sequence[int]] = ((0, 3), (5, 7), (2, 11)),
             ) -> tuple[np.ndarray, np.ndarray]:
    """Random 0/1 rows labelled by a hidden monotone DNF (an OR of ANDs of bits).

    {rng}
    n : int
        Number of rows.
    n_bits : int, default=40
        Number of bits per row.
    density : float, default=0.3
        Probability that a bit is 1.
    terms : sequence of sequences of int, default=((0, 3), (5, 7), (2, 11))
        The DNF: each term is the bit indices that its AND reads.

    Returns
    -------
    X : ndarray of uint8 of shape (n, n_bits)
        The 0/1 rows.
    y : ndarray of int of shape (n,)
        1 where every bit of some term is 1, else 0.
    """
    B = (rng.random((n, n_bits)) < density).astype(np.uint8)
    y = np.zeros(n, dtype=int)
    for term in terms:
        y |= np.all(B[:, list(term)] == 1, axis=1)
    return B, y


def load_digits_split(n_train: int = 1200, n_test: int | None = None,
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's bundled 8x8 digits (1797 images, no download), split in order.

    Pixels are scaled to [0, 1]; the first ``n_train`` images train, the next ``n_test`` test.

    Parameters
    ----------
    n_train : int, default=1200
        Number of training images, in [1, 1796].
    n_test : int, optional
        Number of test images (fewer if fewer are left); None means all the rest.

    Returns
    -------
    X_train : ndarray of float64 of shape (n_train, 64)
    y_train : ndarray of shape (n_train,)
        Digits 0-9.
    X_test : ndarray of float64 of shape (n_test, 64)
    y_test : ndarray of shape (n_test,)

    Raises
    ------
    ImportError
        If scikit-learn is not installed.
    ValueError
        If ``n_train`` is not in [1, 1796].
    """
    try:
        from sklearn.datasets import load_digits
    except ImportError as exc:
        raise ImportError("the digits experiment needs scikit-learn's bundled digits data: "
                          "pip install scikit-learn (or 'perceptron-c[sklearn]')") from exc
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    if not 1 <= n_train < X.shape[0]:
        raise ValueError(f"n_train must be in [1, {X.shape[0] - 1}], got {n_train}")
    stop = X.shape[0] if n_test is None else min(X.shape[0], n_train + n_test)
    return X[:n_train], y[:n_train], X[n_train:stop], y[n_train:stop]
