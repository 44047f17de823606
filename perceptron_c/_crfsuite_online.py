"""CRFsuite's perceptron-family trainers on the crf1d model, in its arithmetic: the feature
set (``crf1d_feature.c``), the visiting order (``dataset.c``), Viterbi and path scores
(``crf1d_context.c``), and one epoch of averaged perceptron (``train_averaged_perceptron.c``),
passive-aggressive (``train_passive_aggressive.c``; Crammer et al. 2006) and AROW
(``train_arow.c``; Crammer, Kulesza & Dredze 2009), CRFsuite 0.12 (chokkan/crfsuite).

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
- the features on a path are collected item by item: the item's attributes in order, then
  the transition into the item; the gold path's first, then the Viterbi path's;
- PA and AROW collapse the collected features to their first occurrences, and sum norms over
  them in that order;
- the order is ``dataset_shuffle`` under glibc's ``rand()`` seeded with 1, the state a fresh
  process starts with (``glibc_rand``); CRFsuite never seeds it, so its own order is this
  one only in a process where nothing called ``rand()`` before, on glibc.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

__all__ = ["Instance", "Features", "glibc_rand", "shuffle", "generate_features",
           "state_scores", "viterbi", "path_score", "path_features", "Online"]


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


def glibc_rand(seed: int = 1):
    """glibc's ``rand()`` (``random_r``, TYPE_3: x_i = x_{i-3} + x_{i-31} mod 2^32, the
    output x_i >> 1, after 310 discarded draws), as an endless iterator of ints."""
    r = [seed]
    for i in range(1, 31):
        hi, lo = divmod(r[i - 1], 127773)
        word = 16807 * lo - 2836 * hi
        r.append(word + 2147483647 if word < 0 else word)
    r += r[:3]
    state = deque(r, maxlen=34)
    for _ in range(34, 344):
        state.append((state[-31] + state[-3]) & 0xFFFFFFFF)
    while True:
        x = (state[-31] + state[-3]) & 0xFFFFFFFF
        state.append(x)
        yield x >> 1


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


def path_score(S: np.ndarray, trans: np.ndarray, y: np.ndarray) -> float:
    """``crf1dc_score``: state[0, y0], then + trans[y_{t-1}, y_t] + state[t, y_t]."""
    terms = np.empty(2 * y.shape[0] - 1)
    terms[0::2] = S[np.arange(y.shape[0]), y]
    terms[1::2] = trans[y[:-1], y[1:]]
    return float(np.cumsum(terms)[-1])


def path_features(inst: Instance, y: np.ndarray, feats: Features, n_attrs: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``crf1de_features_on_path``: the (keys, values) of the existing features on path y in
    CRFsuite's order; state (a, l) is key a * L + l, transition (i, j) is A * L + i * L + j."""
    L = feats.trans.shape[0]
    skeys = inst.aids.astype(np.int64) * L + y[inst.item]
    sok = feats.state.reshape(-1)[skeys]
    tkeys = n_attrs * L + y[:-1] * L + y[1:]
    tok = feats.trans[y[:-1], y[1:]]
    at = inst.ends[:-1]  # the transition into item t follows item t's attributes
    keys = np.insert(skeys, at, tkeys)
    vals = np.insert(inst.values, at, 1.0)
    ok = np.insert(sok, at, tok)
    return keys[ok], vals[ok]


def _collapse(keys: np.ndarray, coefs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``delta_collect`` then ``delta_finalize``: the distinct keys in first-occurrence order
    and their sums (each from 0.0, in collection order)."""
    uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    delta = np.zeros(uniq.shape[0])
    np.add.at(delta, inverse, coefs)
    order = np.argsort(first, kind="stable")
    return uniq[order], delta[order]


def _seq_sum(start: float, terms: np.ndarray) -> float:
    """start + terms[0] + terms[1] + ... in that order (numpy's sum is pairwise)."""
    return float(np.cumsum(np.concatenate([[start], terms]))[-1])


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

    def step(self, inst: Instance) -> float:
        """One instance: Viterbi under the current weights and the algorithm's update;
        returns its contribution to the iteration's loss."""
        W, trans = self.weights()
        S = state_scores(inst, W)
        path, sv = viterbi(S, trans)
        y = inst.labels
        d = int((path != y).sum())
        loss = 0.0
        if d > 0:
            gk, gv = path_features(inst, y, self.feats, self.A)
            pk, pv = path_features(inst, path, self.feats, self.A)
            keys = np.concatenate([gk, pk])
            if self.algorithm == "ap":
                loss = d / float(y.shape[0])
                self._perceptron(keys, gv, pv)
            else:
                loss = self._margin(keys, gv, pv, sv - path_score(S, trans, y), d)
        self.count += 1
        return loss

    def _perceptron(self, keys: np.ndarray, gv: np.ndarray, pv: np.ndarray) -> None:
        """AP: w += value, ws += c * value on the gold path; minus on the Viterbi path."""
        c = float(self.count)
        np.add.at(self.w, keys, np.concatenate([1.0 * gv, -1.0 * pv]))
        np.add.at(self.ws, keys, np.concatenate([c * gv, -c * pv]))

    def _margin(self, keys: np.ndarray, gv: np.ndarray, pv: np.ndarray, err: float,
                d: int) -> float:
        """PA's and AROW's update on the difference of the two paths' features."""
        act, delta = _collapse(keys, np.concatenate([1.0 * gv, -1.0 * pv]))
        o = self.opts
        if self.algorithm == "pa":
            cost = err + (math.sqrt(d) if o["error_sensitive"] else 1.0)
            norm2 = _seq_sum(0.0, delta * delta)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.float64(cost) / np.float64(norm2)
                tau = (min(o["c"], ratio) if o["type"] == 1 else
                       np.float64(cost) / (norm2 + 0.5 / o["c"]) if o["type"] == 2
                       else ratio)
            if act.shape[0]:
                _finite(tau, "passive-aggressive step")
                self.w[act] += tau * delta
                self.ws[act] += (tau * self.count) * delta
            return cost
        cost = err + float(d)
        prod = delta * delta
        cov = self.cov[act]
        alpha = cost / _seq_sum(o["gamma"], prod * cov)
        _finite(alpha, "AROW step")
        self.w[act] += alpha * cov * delta
        self.cov[act] = 1.0 / ((1.0 / cov) + prod / o["gamma"])
        return cost


def _finite(x: float, what: str) -> None:
    if not math.isfinite(x):
        raise FloatingPointError(f"{what} is not finite ({x}): the weights would be")
