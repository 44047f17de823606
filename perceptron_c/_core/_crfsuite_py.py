"""Pure-Python twin of ``_crfsuite_c``: the specification of one epoch of CRFsuite's
perceptron-family trainers on the crf1d model (CRFsuite 0.12, chokkan/crfsuite):
``train_averaged_perceptron.c`` (``ap_epoch``), ``train_passive_aggressive.c`` (``pa_epoch``;
Crammer et al., "Online Passive-Aggressive Algorithms", JMLR 2006) and ``train_arow.c``
(``arow_epoch``; Crammer, Kulesza & Dredze, "Adaptive Regularization of Weight Vectors",
NIPS 2009), with ``crf1d_context.c``'s Viterbi and path score.

The instances of the epoch are flat arrays: the attributes of every item of every instance in
order (``aids``, int32, and their ``values``), where each item's attributes end (``ends``, into
``aids``), each item's label (``labels``, int32), and where each instance's items start
(``offsets``, n_instances + 1 entries). ``order`` lists the instances to visit. The features
that exist are the masks ``state`` (A, L) and ``trans`` (L, L), and the state features again
by attribute (``attr_ptr``, A + 1 entries, and ``attr_labels``: the labels l of attribute
a's features (a, l) are attr_labels[attr_ptr[a]:attr_ptr[a + 1]], the mask's rows as CSR);
the weights ``w`` are flat: state (a, l) at a * L + l, transition (i, j) at A * L + i * L
+ j. ``count`` (one entry) is
AP's c and PA's u: 1 before the first instance of the first epoch, + 1 per instance.

Arithmetic contract (``perceptron_c.crfsuite._online``'s, which makes the weights equal
CRFsuite's), the same float operations in the same order in both twins:

- the state score of label l at item t is the sum, from 0.0, of w[a, l] * value over the
  item's attributes a in order that have the feature (a, l) (``by_attr``: CRFsuite's loop; a
  feature that does not exist has weight +0.0, which would add nothing to the sum but a NaN
  from an infinite value); Viterbi's alpha_t[j] is (alpha_{t-1}[i] + trans[i, j]) +
  state[t, j] for the first i (lowest) of the largest alpha_{t-1}[i] + trans[i, j] under ``>``,
  the last label is the first largest alpha; the path score is state[0, y0], then +
  trans[y_{t-1}, y_t] + state[t, y_t];
- the features on a path are collected item by item: the transition into the item (t > 0),
  then the item's attributes in order; only features of the masks; the gold path's first,
  then the Viterbi path's (its values negated);
- AP: w += v, ws += c * v for each collected feature (the Viterbi path's negated), in
  collection order, c = count; the loss is (items wrong) / (items);
- PA and AROW collapse the collected features to their first occurrences, each delta a sum
  from 0.0 in collection order; PA: cost = (Viterbi score - gold score) + (sqrt(d) with
  ``error_sensitive``, else 1), norm2 = 0.0 + delta_0^2 + ..., tau = cost / norm2 (type 0),
  min(c, tau) (type 1), cost / (norm2 + 0.5 / c) (type 2); w += tau * delta, ws += (tau * u)
  * delta. AROW: cost = (Viterbi score - gold score) + d, alpha = cost / (gamma + delta_0^2
  * cov_0 + ...), w += (alpha * cov) * delta, cov = 1 / (1 / cov + delta^2 / gamma);
- an instance whose Viterbi path is its gold path changes nothing but count, and so does an
  instance without items; the epoch's loss is the sum, from 0.0, of the instances' losses
  (PA's and AROW's: their costs) in visiting order;
- a step that is not finite (PA's tau when features changed, AROW's alpha) raises
  FloatingPointError before its instance changes anything (count included).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ._contract import need

if TYPE_CHECKING:
    from ._contract import _D, _I32, _I64

__all__ = ["ap_epoch", "pa_epoch", "arow_epoch", "shuffle"]


def shuffle(perm: _I64, ring: Any, pos: _I64) -> None:
    """CRFsuite's ``dataset_shuffle``: swap perm[i] with perm[rand() % n], i = 0..n-1, with
    glibc's ``rand()`` on its state: ``ring`` (31 uint32) holds x_{i-31} at pos[0] and x_{i-3}
    28 places on (``crfsuite._online.glibc_ring``); x_i = x_{i-3} + x_{i-31} mod 2^32 takes
    x_{i-31}'s place, rand() is x_i >> 1."""
    need(ring.shape[0] == 31 and pos.shape[0] == 1 and 0 <= pos[0] < 31,
         "ring must have 31 entries and pos one, in [0, 31)")
    n, p = perm.shape[0], int(pos[0])
    for i in range(n):
        x = (int(ring[p]) + int(ring[(p + 28) % 31])) & 0xFFFFFFFF
        ring[p], p = x, (p + 1) % 31
        j = (x >> 1) % n
        perm[i], perm[j] = perm[j], perm[i]
    pos[0] = p


def _div(a: float, b: float) -> float:
    """a / b in IEEE arithmetic (inf or nan where b is 0), as C divides."""
    if b != 0.0:
        return a / b
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def _not_finite(x: float, what: str) -> FloatingPointError:
    return FloatingPointError(f"{what} is not finite ({x}): the weights would be")


def _check(aids: _I32, values: _D, ends: _I64, labels: _I32, offsets: _I64, order: _I64,
           state: Any, trans: Any, attr_ptr: _I64, attr_labels: _I32, w: _D, other: _D,
           count: _I64) -> None:
    """The epoch routines' preconditions, in the words of the C twin's checks."""
    A, L = state.shape[0], trans.shape[0]
    n_attr, n_items = aids.shape[0], labels.shape[0]
    need(state.shape[1] == L and trans.shape[1] == L,
         "state must have shape (A, L) and trans (L, L)")
    need(w.shape[0] == A * L + L * L and other.shape[0] == w.shape[0],
         "w and its state must have A * L + L * L entries")
    need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    need(values.shape[0] == n_attr, "values must have one entry per attribute")
    need(ends.shape[0] == n_items, "ends must have one entry per item")
    need(n_items == 0 or (ends[-1] == n_attr and ends[0] >= 0
                          and bool(np.all(ends[1:] >= ends[:-1]))),
         "ends must rise to the number of attributes")
    need(offsets.shape[0] >= 1 and offsets[0] == 0 and offsets[-1] == n_items
         and bool(np.all(offsets[1:] >= offsets[:-1])),
         "offsets must rise from 0 to the number of items")
    need(attr_ptr.shape[0] == A + 1 and attr_ptr[0] == 0
         and attr_ptr[-1] == attr_labels.shape[0] and bool(np.all(attr_ptr[1:] >= attr_ptr[:-1])),
         "attr_ptr must rise from 0 to the number of attr_labels, one entry per attribute + 1")
    need(bool(np.all((attr_labels >= 0) & (attr_labels < L))),
         f"attr_labels must lie in [0, {L})")
    need(bool(np.all((aids >= 0) & (aids < A))), f"aids must lie in [0, {A})")
    need(bool(np.all((labels >= 0) & (labels < L))), f"labels must lie in [0, {L})")
    n = offsets.shape[0] - 1
    need(bool(np.all((order >= 0) & (order < n))), f"order must lie in [0, {n})")


class _Data:
    """The epoch's arrays as Python lists (Python floats are C doubles)."""

    def __init__(self, aids: _I32, values: _D, ends: _I64, labels: _I32, offsets: _I64,
                 state: Any, trans: Any, attr_ptr: _I64, attr_labels: _I32) -> None:
        self.aids, self.values, self.ends = aids.tolist(), values.tolist(), ends.tolist()
        self.labels, self.offsets = labels.tolist(), offsets.tolist()
        self.state = np.asarray(state).reshape(-1).astype(bool).tolist()
        self.trans = np.asarray(trans).reshape(-1).astype(bool).tolist()
        self.A, self.L = state.shape[0], trans.shape[0]
        self.attr_ptr, self.attr_labels = attr_ptr.tolist(), attr_labels.tolist()

    def start(self, t: int) -> int:
        """Where the attributes of item t start."""
        return self.ends[t - 1] if t > 0 else 0


def _scores(D: _Data, t0: int, t1: int, w: list[float]) -> list[list[float]]:
    """``crf1de_state_score``: per item, per label, the sum from 0.0 in attribute order over
    the attributes that have the feature."""
    L = D.L
    S = []
    for t in range(t0, t1):
        row = [0.0] * L
        for k in range(D.start(t), D.ends[t]):
            a, v = D.aids[k], D.values[k]
            for r in range(D.attr_ptr[a], D.attr_ptr[a + 1]):
                j = D.attr_labels[r]
                row[j] += w[a * L + j] * v
        S.append(row)
    return S


def _viterbi(S: list[list[float]], w: list[float], A: int, L: int) -> tuple[list[int], float]:
    """``crf1dc_viterbi``: the best path and its score; ties go to the lowest label."""
    T, tr = len(S), A * L
    alpha = list(S[0])
    back = [[0] * L for _ in range(T)]
    for t in range(1, T):
        nxt = [0.0] * L
        for j in range(L):
            best, score = 0, alpha[0] + w[tr + j]
            for i in range(1, L):
                c = alpha[i] + w[tr + i * L + j]
                if c > score:
                    best, score = i, c
            back[t][j] = best
            nxt[j] = score + S[t][j]
        alpha = nxt
    last = 0
    for j in range(1, L):
        if alpha[j] > alpha[last]:
            last = j
    path = [0] * T
    path[T - 1] = last
    for t in range(T - 1, 0, -1):
        path[t - 1] = back[t][path[t]]
    return path, alpha[last]


def _path_score(S: list[list[float]], w: list[float], A: int, L: int, y: list[int]) -> float:
    """``crf1dc_score``: state[0, y0], then + trans[y_{t-1}, y_t] + state[t, y_t]."""
    s = S[0][y[0]]
    for t in range(1, len(y)):
        s = s + w[A * L + y[t - 1] * L + y[t]]
        s = s + S[t][y[t]]
    return s


def _collect(D: _Data, t0: int, y: list[int], keys: list[int], coefs: list[float],
             sign: float) -> None:
    """``crf1de_features_on_path``: the existing features on path y (of the instance whose
    items start at t0), appended as (key, sign * value) in CRFsuite's order."""
    L = D.L
    for t in range(len(y)):
        if t > 0 and D.trans[y[t - 1] * L + y[t]]:
            keys.append(D.A * L + y[t - 1] * L + y[t])
            coefs.append(sign * 1.0)
        for k in range(D.start(t0 + t), D.ends[t0 + t]):
            key = D.aids[k] * L + y[t]
            if D.state[key]:
                keys.append(key)
                coefs.append(sign * D.values[k])


def _collapse(keys: list[int], coefs: list[float]) -> tuple[list[int], list[float]]:
    """``delta_collect`` then ``delta_finalize``: the distinct keys in first-occurrence order
    and their sums, each from 0.0 in collection order."""
    slot: dict[int, int] = {}
    act: list[int] = []
    delta: list[float] = []
    for key, c in zip(keys, coefs):
        if key not in slot:
            slot[key] = len(act)
            act.append(key)
            delta.append(0.0)
        delta[slot[key]] += c
    return act, delta


def _decode(D: _Data, i: int, w: list[float]) -> tuple[int, Any]:
    """Instance i under w: (items wrong, (t0, gold, path, S, Viterbi score)); 0 wrong: no
    update to make."""
    t0, t1 = D.offsets[i], D.offsets[i + 1]
    if t1 == t0:
        return 0, None
    S = _scores(D, t0, t1, w)
    path, sv = _viterbi(S, w, D.A, D.L)
    y = D.labels[t0:t1]
    d = sum(1 for a, b in zip(path, y) if a != b)
    return d, (t0, y, path, S, sv)


def ap_epoch(aids: _I32, values: _D, ends: _I64, labels: _I32, offsets: _I64, order: _I64,
             state: Any, trans: Any, attr_ptr: _I64, attr_labels: _I32, w: _D, ws: _D,
             count: _I64) -> float:
    """One epoch of averaged perceptron (``train_averaged_perceptron.c``) over ``order``:
    ``w`` and ``ws`` (the sums that make the average w - ws / count) and ``count`` updated in
    place; returns the epoch's loss."""
    _check(aids, values, ends, labels, offsets, order, state, trans, attr_ptr, attr_labels,
           w, ws, count)
    D = _Data(aids, values, ends, labels, offsets, state, trans, attr_ptr, attr_labels)
    wl, wsl, u = w.tolist(), ws.tolist(), int(count[0])
    loss = 0.0
    for i in order.tolist():
        d, found = _decode(D, i, wl)
        if d > 0:
            t0, y, path, _, _ = found
            c = float(u)
            keys: list[int] = []
            coefs: list[float] = []
            _collect(D, t0, y, keys, coefs, 1.0)
            _collect(D, t0, path, keys, coefs, -1.0)
            for key, v in zip(keys, coefs):
                wl[key] += v
                wsl[key] += c * v
            loss += d / float(len(y))
        u += 1
    w[:], ws[:], count[0] = wl, wsl, u
    return loss


def _margin_terms(D: _Data, found: Any, wl: list[float]) -> tuple[list[int], list[float],
                                                                  float]:
    """PA's and AROW's common part: the collapsed difference of the paths' features and
    the Viterbi score minus the gold path's."""
    t0, y, path, S, sv = found
    keys: list[int] = []
    coefs: list[float] = []
    _collect(D, t0, y, keys, coefs, 1.0)
    _collect(D, t0, path, keys, coefs, -1.0)
    act, delta = _collapse(keys, coefs)
    return act, delta, sv - _path_score(S, wl, D.A, D.L, y)


def pa_epoch(aids: _I32, values: _D, ends: _I64, labels: _I32, offsets: _I64, order: _I64,
             state: Any, trans: Any, attr_ptr: _I64, attr_labels: _I32, w: _D, ws: _D,
             count: _I64, pa_type: int, c: float, error_sensitive: bool) -> float:
    """One epoch of passive-aggressive (``train_passive_aggressive.c``) of type ``pa_type``
    (0, 1 or 2) and aggressiveness ``c`` over ``order``: ``w``, ``ws`` (the averaging sums)
    and ``count`` updated in place; returns the epoch's loss (the sum of the costs). A feature
    whose difference is 0.0 is not moved (CRFsuite adds ``tau * 0.0``: the same weight, but
    for a -0.0, which training never makes)."""
    _check(aids, values, ends, labels, offsets, order, state, trans, attr_ptr, attr_labels,
           w, ws, count)
    need(pa_type in (0, 1, 2), "pa_type must be 0, 1 or 2")
    D = _Data(aids, values, ends, labels, offsets, state, trans, attr_ptr, attr_labels)
    wl, wsl, u = w.tolist(), ws.tolist(), int(count[0])
    loss = 0.0
    try:
        for i in order.tolist():
            d, found = _decode(D, i, wl)
            if d > 0:
                act, delta, err = _margin_terms(D, found, wl)
                cost = err + (math.sqrt(d) if error_sensitive else 1.0)
                norm2 = 0.0
                for x in delta:
                    norm2 += x * x
                tau = _div(cost, norm2)
                if pa_type == 1:
                    tau = tau if tau < c else c
                elif pa_type == 2:
                    tau = _div(cost, norm2 + _div(0.5, c))
                if act:
                    if not math.isfinite(tau):
                        raise _not_finite(tau, "passive-aggressive step")
                    tu = tau * u
                    for key, x in zip(act, delta):
                        if x != 0.0:  # (a step of +0.0 moves only a -0.0, never made here)
                            wl[key] += tau * x
                            wsl[key] += tu * x
                loss += cost
            u += 1
    finally:
        w[:], ws[:], count[0] = wl, wsl, u
    return loss


def arow_epoch(aids: _I32, values: _D, ends: _I64, labels: _I32, offsets: _I64, order: _I64,
               state: Any, trans: Any, attr_ptr: _I64, attr_labels: _I32, w: _D, cov: _D,
               count: _I64, gamma: float) -> float:
    """One epoch of AROW (``train_arow.c``) with regularization ``gamma`` over ``order``: ``w``,
    the variances ``cov`` and ``count`` updated in place; returns the epoch's loss (the sum
    of the costs)."""
    _check(aids, values, ends, labels, offsets, order, state, trans, attr_ptr, attr_labels,
           w, cov, count)
    D = _Data(aids, values, ends, labels, offsets, state, trans, attr_ptr, attr_labels)
    wl, cl, u = w.tolist(), cov.tolist(), int(count[0])
    loss = 0.0
    try:
        for i in order.tolist():
            d, found = _decode(D, i, wl)
            if d > 0:
                act, delta, err = _margin_terms(D, found, wl)
                cost = err + float(d)
                den = gamma
                for key, x in zip(act, delta):
                    den += (x * x) * cl[key]
                alpha = _div(cost, den)
                if not math.isfinite(alpha):
                    raise _not_finite(alpha, "AROW step")
                for key, x in zip(act, delta):
                    wl[key] += (alpha * cl[key]) * x
                    cl[key] = _div(1.0, _div(1.0, cl[key]) + _div(x * x, gamma))
                loss += cost
            u += 1
    finally:
        w[:], cov[:], count[0] = wl, cl, u
    return loss
