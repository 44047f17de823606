"""Pure-Python twin of ``_dual_c``: the dual (kernel) perceptron routines, the specification.

The dual perceptron keeps one coefficient per training example instead of a weight vector:
alpha_i is the signed count of mistakes made on example i, and the activation of x is
f(x) = sum_j alpha_j K(x_j, x) + b ([Bunescu-CS4900], "Kernel Perceptron: Two Classes";
[Columbia-COMS4252], section 2.3). With K(a, b) = a . b this is the primal perceptron exactly.

Everything here works on a "pool" of n examples (the training rows, possibly preceded by the
support vectors of an earlier call) and updates the coefficient arrays in place. Two ways to
get the kernel values, with the same mistakes:

- cached scores (``*_cached``): the whole Gram G of the pool is known; scores[i] = f(x_i) - b
  is kept for every pool example and a mistake on i adds y_i * G[i, :] to it (O(n) per
  mistake, [Herbrich2002]'s cached outputs);
- rows (``*_rows``): for a block of visited examples the caller passes their kernel rows
  Krows[t] = K(x_rows[t], pool) and each activation is computed afresh from alpha (O(n) per
  example, memory O(block * n)): the streaming mode when the Gram does not fit.

  With ``cols`` (int64, strictly increasing pool indices) the rows hold only those columns,
  Krows[t, c] = K(x_rows[t], x_cols[c]): the support set plus the visited rows, which is all
  an activation needs, since every other coefficient is 0 (and stays 0: only visited rows
  change). The activation is the same sum with the zero terms left out, so the result is
  the same, bit for bit, as with every column (for finite kernel values). ``cols`` must hold
  every visited row and every example with a nonzero coefficient (checked).

``sample_weight`` (one weight per pool example, float64; the caller's product of sample and
class weights) scales each update: a mistake on i adds y_i w_i where it added y_i (binary),
w_i where it added 1 (K-class), and y_i w_i c (w_i c) to the averaging sums. A weight of 1
changes nothing, bit for bit; a row of weight 0 is best left out of the visiting order.

The binary routines can record where their mistakes happened: ``steps`` (int64, room for one
entry per visited example) receives the positions t of the mistakes in ``order``/``rows``,
from which the voted perceptron rebuilds its sequence of weight vectors.

Arithmetic contract: ``_contract``'s (4-lane sums, updates in index order, lazy averaging, a
non-finite activation stops the epoch and names its position), so that the C twin agrees bit
for bit. Here f(x) in the rows mode is ``dot4_cols(alpha, Krows[t], cols)`` (`dot4` without
``cols``) plus b; a cached score changes by ``scores[j] += step * G[i, j]`` in index order,
step = y_i (binary; y_i w_i with weights) or +-1 (+-w_i) for the two classes of a K-class
mistake; averaging runs on the coefficients, which average to alpha - u / c.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ._contract import (
    State,
    check_avg,
    check_rows_epoch,
    check_steps,
    dot4_cols,
    first_max_finite,
    need,
    non_finite,
    result,
    store_steps,
)

if TYPE_CHECKING:
    from ._contract import _D, _I64

__all__ = [
    "dual_epoch_cached", "dual_epoch_rows", "multiclass_dual_epoch_cached",
    "multiclass_dual_epoch_rows",
]


def _check_weights(sample_weight: _D | None, n: int) -> list[float] | None:
    if sample_weight is None:
        return None
    need(sample_weight.shape == (n,) and all(math.isfinite(v) for v in sample_weight.tolist()),
         "sample_weight must hold one finite weight per pool example")
    return sample_weight.tolist()


def dual_epoch_cached(G: _D, y: _D, order: _I64, alpha: _D, b: _D, scores: _D,
                      fit_intercept: bool, u: _D | None = None, beta: _D | None = None,
                      count: _I64 | None = None, steps: _I64 | None = None, *,
                      sample_weight: _D | None = None) -> int:
    """One epoch of the binary kernel perceptron on a precomputed Gram; returns the mistakes.

    [Bunescu-CS4900], kernel perceptron: if y_i (sum_j alpha_j K(x_j, x_i) + b) <= 0 then
    alpha_i += y_i (and b += y_i). ``scores`` holds sum_j alpha_j G[j, i] for every i.
    """
    check_steps(steps, len(order))
    n = alpha.shape[0]
    need(G.shape == (n, n) and scores.shape == (n,) and y.shape == (n,) and b.shape == (1,),
         "G must be (n, n) and y, scores (n,) for alpha of length n; b (1,)")
    need(all(0 <= i < n for i in order.tolist()), f"order must lie in [0, {n})")
    check_avg(u, beta, count, alpha.shape, 1)
    sw = _check_weights(sample_weight, n)
    st, sc, yl = State(alpha, b, u, beta, count), scores.tolist(), y.tolist()
    recorded = []
    error = None
    for t, i in enumerate(order.tolist()):
        yi = yl[i]
        a = sc[i] + st.b[0]
        if not math.isfinite(a):
            error = non_finite(t, i)
            break
        if yi * a <= 0.0:
            recorded.append(t)
            step = yi if sw is None else yi * sw[i]
            st.add(i, step, fit_intercept)
            gi = G[i].tolist()
            for j in range(n):
                sc[j] += step * gi[j]
        st.c += 1
    scores[:] = sc
    st.store()
    store_steps(steps, recorded)
    return result(len(recorded), error)


def multiclass_dual_epoch_cached(G: _D, y: _I64, order: _I64, alpha: _D, b: _D, scores: _D,
                                 fit_intercept: bool, U: _D | None = None,
                                 beta: _D | None = None, count: _I64 | None = None, *,
                                 sample_weight: _D | None = None) -> int:
    """K-class kernel perceptron ([Bunescu-CS4900], kernel K-class): argmax_k scores[k, i] + b_k,
    ties to the lowest k; on a mistake the true row gains example i, the predicted row loses."""
    k_classes, n = alpha.shape
    need(G.shape == (n, n) and scores.shape == alpha.shape and y.shape == (n,)
         and b.shape == (k_classes,), "G (n, n), scores like alpha (K, n), y (n,), b (K,)")
    need(all(0 <= i < n for i in order.tolist()), f"order must lie in [0, {n})")
    need(all(0 <= v < k_classes for v in y.tolist()), f"y must lie in [0, {k_classes})")
    check_avg(U, beta, count, alpha.shape, k_classes)
    sw = _check_weights(sample_weight, n)
    st, sc, yl = State(alpha, b, U, beta, count), scores.tolist(), y.tolist()
    mistakes = 0
    error = None
    for t, i in enumerate(order.tolist()):
        yi = yl[i]
        pred = first_max_finite([sc[k][i] + st.b[k] for k in range(k_classes)])
        if pred is None:
            error = non_finite(t, i)
            break
        if pred != yi:
            mistakes += 1
            step = 1.0 if sw is None else sw[i]
            st.move(i, yi, pred, step, fit_intercept)
            gi = G[i].tolist()
            sy, sp = sc[yi], sc[pred]
            for j in range(n):
                sy[j] += step * gi[j]
                sp[j] -= step * gi[j]
        st.c += 1
    scores[:] = sc
    st.store()
    return result(mistakes, error)


def dual_epoch_rows(Krows: _D, rows: _I64, y: _D, alpha: _D, b: _D, fit_intercept: bool,
                    u: _D | None = None, beta: _D | None = None,
                    count: _I64 | None = None, steps: _I64 | None = None, *,
                    cols: _I64 | None = None, sample_weight: _D | None = None) -> int:
    """The binary kernel perceptron over the visited examples ``rows`` (in that order), each
    scored afresh against the current coefficients: f = sum_j alpha_j Krows[t, j] + b (the
    columns ``cols`` of the pool only, when given)."""
    check_steps(steps, len(rows))
    n = alpha.shape[0]
    check_rows_epoch(Krows, rows, y, alpha, b, cols, u, beta, count)
    sw = _check_weights(sample_weight, n)
    cl = None if cols is None else cols.tolist()
    st, yl = State(alpha, b, u, beta, count), y.tolist()
    recorded = []
    error = None
    for t, i in enumerate(rows.tolist()):
        yi = yl[i]
        a = dot4_cols(st.a, Krows[t].tolist(), cl) + st.b[0]
        if not math.isfinite(a):
            error = non_finite(t, i)
            break
        if yi * a <= 0.0:
            recorded.append(t)
            st.add(i, yi if sw is None else yi * sw[i], fit_intercept)
        st.c += 1
    st.store()
    store_steps(steps, recorded)
    return result(len(recorded), error)


def multiclass_dual_epoch_rows(Krows: _D, rows: _I64, y: _I64, alpha: _D, b: _D,
                               fit_intercept: bool, U: _D | None = None,
                               beta: _D | None = None, count: _I64 | None = None, *,
                               cols: _I64 | None = None,
                               sample_weight: _D | None = None) -> int:
    """K-class form of `dual_epoch_rows`."""
    k_classes, n = alpha.shape
    check_rows_epoch(Krows, rows, y, alpha, b, cols, U, beta, count)
    sw = _check_weights(sample_weight, n)
    cl = None if cols is None else cols.tolist()
    st, yl = State(alpha, b, U, beta, count), y.tolist()
    mistakes = 0
    error = None
    for t, i in enumerate(rows.tolist()):
        yi = yl[i]
        kr = Krows[t].tolist()
        pred = first_max_finite([dot4_cols(st.a[k], kr, cl) + st.b[k] for k in range(k_classes)])
        if pred is None:
            error = non_finite(t, i)
            break
        if pred != yi:
            mistakes += 1
            st.move(i, yi, pred, 1.0 if sw is None else sw[i], fit_intercept)
        st.c += 1
    st.store()
    return result(mistakes, error)
