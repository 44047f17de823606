"""CRFsuite's perceptron-family trainers on the crf1d model, in its arithmetic: the feature
set (``crf1d_feature.c``), the visiting order (``dataset.c``), Viterbi and path scores
(``crf1d_context.c``), and the trainers' state, CRFsuite 0.12 (chokkan/crfsuite). One epoch
of averaged perceptron, passive-aggressive or AROW is a routine with twins,
``_core/_crfsuite_c`` and its specification ``_core/_crfsuite_py`` (whose docstring states the
epoch's arithmetic), reached through the dispatcher on the instances flattened (`flatten`).

Arithmetic contract (what makes the weights equal CRFsuite's bit for bit on the same order):
- a feature exists only where CRFsuite generates one: state (a, y) where attribute a was seen
  with label y in the training set (every label for a seen attribute with
  ``possible_states``), transition (i, j) where label j followed label i (every pair with
  ``possible_transitions``), and its frequency (the sum of the values it was seen with) is at
  least ``minfreq``. Weights of other (a, y) and (i, j) stay 0 and are never updated;
- the state score of label y at item t is the sum, from 0.0, of w[a, y] * value over the
  item's attributes in their order; Viterbi adds (alpha[i] + trans[i, j]) + state[j], the
  first (lowest) i of the largest sum wins, and so does the lowest last label; there are no
  start or end scores;
- the features on a path are collected item by item: the transition into the item, then the
  item's attributes in order; the gold path's first, then the Viterbi path's;
- PA and AROW collapse the collected features to their first occurrences, and sum norms over
  them in that order (the rest of the epoch's contract: ``_core/_crfsuite_py``);
- the order is ``dataset_shuffle`` under glibc's ``rand()`` seeded with 1, the state a fresh
  process starts with (``glibc_rand``); CRFsuite never seeds it, so its own order is this
  one only in a process where nothing called ``rand()`` before, on glibc.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from .. import _backend

__all__ = ["Instance", "Features", "Flat", "glibc_rand", "shuffle", "generate_features",
           "state_scores", "viterbi", "flatten", "Online"]


@dataclass
class Instance:
    """One appended sequence: its attributes' ids and values item after item, the item of
    each (``item``), where each item's attributes end (``ends``), its label ids and group."""

    aids: np.ndarray
    values: np.ndarray
    item: np.ndarray
    ends: np.ndarray
    labels: np.ndarray
    group: int


@dataclass
class Features:
    """Which state features and transitions exist (masks of shape (A, L) and (L, L))."""

    state: np.ndarray
    trans: np.ndarray

    @property
    def count(self) -> int:
        return int(self.state.sum()) + int(self.trans.sum())


def _glibc_warm(seed: int) -> deque:
    """glibc's ``srandom_r`` (TYPE_3) from ``seed``, after 310 discarded draws: the last 34
    words, x_{i-34} .. x_{i-1}."""
    r = [seed]
    for i in range(1, 31):
        hi, lo = divmod(r[i - 1], 127773)
        word = 16807 * lo - 2836 * hi
        r.append(word + 2147483647 if word < 0 else word)
    r += r[:3]
    state = deque(r, maxlen=34)
    for _ in range(34, 344):
        state.append((state[-31] + state[-3]) & 0xFFFFFFFF)
    return state


def glibc_rand(seed: int = 1):
    """glibc's ``rand()`` (``random_r``, TYPE_3: x_i = x_{i-3} + x_{i-31} mod 2^32, the
    output x_i >> 1, after 310 discarded draws), as an endless iterator of ints."""
    state = _glibc_warm(seed)
    while True:
        x = (state[-31] + state[-3]) & 0xFFFFFFFF
        state.append(x)
        yield x >> 1


def glibc_ring(seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """glibc_rand's state as the routines' ``shuffle`` takes it: (ring, pos), the last 31
    words x_{i-31} .. x_{i-1} in order (uint32) and where the oldest is (0)."""
    return (np.array(list(_glibc_warm(seed))[-31:], dtype=np.uint32),
            np.zeros(1, dtype=np.int64))


def shuffle(perm: list[int], rand) -> None:
    """CRFsuite's ``dataset_shuffle``: swap perm[i] with perm[rand() % n], i = 0..n-1."""
    n = len(perm)
    for i in range(n):
        j = next(rand) % n
        perm[i], perm[j] = perm[j], perm[i]


def generate_features(data: list[Instance], n_attrs: int, n_labels: int, *, minfreq: float,
                      possible_states: bool, possible_transitions: bool) -> Features:
    """``crf1df_generate``: the features of the training instances ``data``."""
    A, L = n_attrs, n_labels
    freq = np.zeros(A * L)
    seen = np.zeros(A * L, dtype=bool)
    tfreq = np.zeros(L * L)
    tseen = np.zeros(L * L, dtype=bool)
    attr_seen = np.zeros(A, dtype=bool)
    for inst in data:
        keys = inst.aids.astype(np.int64) * L + inst.labels[inst.item]
        np.add.at(freq, keys, inst.values)  # in order, as CRFsuite's AVL tree sums them
        seen[keys] = True
        attr_seen[inst.aids] = True
        if inst.labels.shape[0] > 1:
            tk = inst.labels[:-1].astype(np.int64) * L + inst.labels[1:]
            np.add.at(tfreq, tk, 1.0)
            tseen[tk] = True
    if possible_states:
        seen |= np.repeat(attr_seen, L)
    if possible_transitions:
        tseen[:] = True
    state = (seen & (freq >= minfreq)).reshape(A, L)
    trans = (tseen & (tfreq >= minfreq)).reshape(L, L)
    return Features(state, trans)


def state_scores(inst: Instance, W: np.ndarray) -> np.ndarray:
    """``crf1de_state_score``: (T, L) scores, each a sum from 0.0 in attribute order."""
    S = np.zeros((inst.labels.shape[0], W.shape[1]))
    np.add.at(S, inst.item, W[inst.aids] * inst.values[:, None])
    return S


def viterbi(S: np.ndarray, trans: np.ndarray) -> tuple[np.ndarray, float]:
    """``crf1dc_viterbi``: the best path and its score; ties go to the lowest label."""
    T, L = S.shape
    alpha = S[0].copy()
    back = np.zeros((T, L), dtype=np.int64)
    cols = np.arange(L)
    for t in range(1, T):
        cand = alpha[:, None] + trans
        best = cand.argmax(axis=0)
        back[t] = best
        alpha = cand[best, cols] + S[t]
    path = np.empty(T, dtype=np.int64)
    path[T - 1] = int(alpha.argmax())
    for t in range(T - 2, -1, -1):
        path[t] = back[t + 1, path[t + 1]]
    return path, float(alpha[path[T - 1]])


@dataclass
class Flat:
    """Instances concatenated, the form of the epoch routines (``_core/_crfsuite_py``): the
    attributes (int32 ids, float64 values), each item's attribute end and label (int32), and
    where each instance's items start."""

    aids: np.ndarray
    values: np.ndarray
    ends: np.ndarray
    labels: np.ndarray
    offsets: np.ndarray


def flatten(data: list[Instance]) -> Flat:
    """The instances ``data``, in that order, as one `Flat`."""
    sizes = np.array([inst.aids.shape[0] for inst in data], dtype=np.int64)
    base = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    lens = np.array([inst.labels.shape[0] for inst in data], dtype=np.int64)
    return Flat(
        aids=np.concatenate([inst.aids for inst in data]).astype(np.int32),
        values=np.concatenate([inst.values for inst in data]).astype(np.float64),
        ends=np.concatenate([inst.ends + b for inst, b in zip(data, base)]).astype(np.int64),
        labels=np.concatenate([inst.labels for inst in data]).astype(np.int32),
        offsets=np.concatenate([[0], np.cumsum(lens)]).astype(np.int64))


class Online:
    """One trainer's state over a training set: the flat weights (state part A * L, then
    transitions L * L), and what its algorithm keeps besides."""

    def __init__(self, algorithm: str, opts: dict, feats: Features, n_attrs: int) -> None:
        self.algorithm, self.opts, self.feats, self.A = algorithm, opts, feats, n_attrs
        L = feats.trans.shape[0]
        self.L = L
        K = n_attrs * L + L * L
        self.w = np.zeros(K)
        self.ws = np.zeros(K)
        self.count = 1  # AP's c, PA's u: 1 before the first instance
        # the state features by attribute (the mask's rows as CSR), as the routines take them
        a, lab = np.nonzero(feats.state)
        self.by_attr = (np.concatenate([[0], np.cumsum(np.bincount(a, minlength=n_attrs))]
                                       ).astype(np.int64), lab.astype(np.int32))
        if algorithm == "arow":
            self.cov = np.full(K, float(opts["variance"]))

    def weights(self) -> tuple[np.ndarray, np.ndarray]:
        """The state (A, L) and transition (L, L) views of the current weights."""
        return self.w[:self.A * self.L].reshape(self.A, self.L), \
            self.w[self.A * self.L:].reshape(self.L, self.L)

    def final(self) -> np.ndarray:
        """The model's weights now: the average for AP (and PA with averaging), else w."""
        if self.algorithm == "ap" or (self.algorithm == "pa" and self.opts["averaging"]):
            wa = self.w.copy()
            wa -= (1.0 / self.count) * self.ws  # vecasub
            return wa
        return self.w.copy()

    def epoch(self, flat: Flat, order: np.ndarray) -> float:
        """One epoch over the instances of ``flat`` in ``order`` (positions in ``flat``),
        on the dispatcher's twin of ``_core/_crfsuite_py``; returns the epoch's loss."""
        o, count = self.opts, np.array([self.count], dtype=np.int64)
        args = (flat.aids, flat.values, flat.ends, flat.labels, flat.offsets,
                np.ascontiguousarray(order, dtype=np.int64), self.feats.state.view(np.uint8),
                self.feats.trans.view(np.uint8), *self.by_attr)
        try:
            if self.algorithm == "ap":
                return _backend.crfsuite.ap_epoch(*args, self.w, self.ws, count)
            if self.algorithm == "pa":
                return _backend.crfsuite.pa_epoch(*args, self.w, self.ws, count,
                                                  int(o["type"]), float(o["c"]),
                                                  bool(o["error_sensitive"]))
            return _backend.crfsuite.arow_epoch(*args, self.w, self.cov, count,
                                                float(o["gamma"]))
        finally:
            self.count = int(count[0])
