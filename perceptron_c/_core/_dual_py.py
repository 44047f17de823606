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
    check_avg,
    check_cols,
    check_rows,
    check_steps,
    dot4_cols,
    need,
    non_finite,
    store_steps,
)

if TYPE_CHECKING:
    from typing import TypeAlias

    import numpy as np
    import numpy.typing as npt

    _D: TypeAlias = npt.NDArray[np.float64]
    _I64: TypeAlias = npt.NDArray[np.int64]

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
    averaged = check_avg(u, beta, count, alpha.shape, 1)
    sw = _check_weights(sample_weight, n)
    al, sc, yl, bias = alpha.tolist(), scores.tolist(), y.tolist(), float(b[0])
    if averaged:
        assert u is not None and beta is not None and count is not None
        ul, betal, c = u.tolist(), float(beta[0]), int(count[0])
    mistakes = 0
    recorded = []
    error = None
    for t, i in enumerate(order.tolist()):
        yi = yl[i]
        a = sc[i] + bias
        if not math.isfinite(a):
            error = non_finite(t, i)
            break
        if yi * a <= 0.0:
            recorded.append(t)
            mistakes += 1
            step = yi if sw is None else yi * sw[i]
            al[i] += step
            gi = G[i].tolist()
            for j in range(n):
                sc[j] += step * gi[j]
            if fit_intercept:
                bias += step
            if averaged:
                ul[i] += step * c
                if fit_intercept:
                    betal += step * c
        if averaged:
            c += 1
    alpha[:] = al
    scores[:] = sc
    b[0] = bias
    if averaged:
        assert u is not None and beta is not None and count is not None
        u[:] = ul
        beta[0] = betal
        count[0] = c
    store_steps(steps, recorded)
    if error is not None:
        raise error
    return mistakes


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
    averaged = check_avg(U, beta, count, alpha.shape, k_classes)
    sw = _check_weights(sample_weight, n)
    al, sc, bl, yl = alpha.tolist(), scores.tolist(), b.tolist(), y.tolist()
    if averaged:
        assert U is not None and beta is not None and count is not None
        ul, betal, c = U.tolist(), beta.tolist(), int(count[0])
    mistakes = 0
    error = None
    for t, i in enumerate(order.tolist()):
        yi = yl[i]
        pred, best = 0, sc[0][i] + bl[0]
        finite = math.isfinite(best)
        for k in range(1, k_classes):
            s = sc[k][i] + bl[k]
            finite = finite and math.isfinite(s)
            if s > best:
                pred, best = k, s
        if not finite:
            error = non_finite(t, i)
            break
        if pred != yi:
            mistakes += 1
            step = 1.0 if sw is None else sw[i]
            al[yi][i] += step
            al[pred][i] -= step
            gi = G[i].tolist()
            st, sp = sc[yi], sc[pred]
            for j in range(n):
                st[j] += step * gi[j]
                sp[j] -= step * gi[j]
            if fit_intercept:
                bl[yi] += step
                bl[pred] -= step
            if averaged:
                ul[yi][i] += step * c
                ul[pred][i] -= step * c
                if fit_intercept:
                    betal[yi] += step * c
                    betal[pred] -= step * c
        if averaged:
            c += 1
    alpha[:] = al
    scores[:] = sc
    b[:] = bl
    if averaged:
        assert U is not None and beta is not None and count is not None
        U[:] = ul
        beta[:] = betal
        count[0] = c
    if error is not None:
        raise error
    return mistakes


def dual_epoch_rows(Krows: _D, rows: _I64, y: _D, alpha: _D, b: _D, fit_intercept: bool,
                    u: _D | None = None, beta: _D | None = None,
                    count: _I64 | None = None, steps: _I64 | None = None, *,
                    cols: _I64 | None = None, sample_weight: _D | None = None) -> int:
    """The binary kernel perceptron over the visited examples ``rows`` (in that order), each
    scored afresh against the current coefficients: f = sum_j alpha_j Krows[t, j] + b (the
    columns ``cols`` of the pool only, when given)."""
    check_steps(steps, len(rows))
    n = alpha.shape[0]
    check_rows(rows, n, Krows.shape[0], Krows.shape[1], cols)
    need(y.shape == (n,) and b.shape == (1,), "y must have shape (n,) and b (1,)")
    check_cols(cols, rows, alpha)
    averaged = check_avg(u, beta, count, alpha.shape, 1)
    sw = _check_weights(sample_weight, n)
    cl = None if cols is None else cols.tolist()
    al, yl, bias = alpha.tolist(), y.tolist(), float(b[0])
    if averaged:
        assert u is not None and beta is not None and count is not None
        ul, betal, c = u.tolist(), float(beta[0]), int(count[0])
    mistakes = 0
    recorded = []
    error = None
    for t, i in enumerate(rows.tolist()):
        yi = yl[i]
        a = dot4_cols(al, Krows[t].tolist(), cl) + bias
        if not math.isfinite(a):
            error = non_finite(t, i)
            break
        if yi * a <= 0.0:
            recorded.append(t)
            mistakes += 1
            step = yi if sw is None else yi * sw[i]
            al[i] += step
            if fit_intercept:
                bias += step
            if averaged:
                ul[i] += step * c
                if fit_intercept:
                    betal += step * c
        if averaged:
            c += 1
    alpha[:] = al
    b[0] = bias
    if averaged:
        assert u is not None and beta is not None and count is not None
        u[:] = ul
        beta[0] = betal
        count[0] = c
    store_steps(steps, recorded)
    if error is not None:
        raise error
    return mistakes


def multiclass_dual_epoch_rows(Krows: _D, rows: _I64, y: _I64, alpha: _D, b: _D,
                               fit_intercept: bool, U: _D | None = None,
                               beta: _D | None = None, count: _I64 | None = None, *,
                               cols: _I64 | None = None,
                               sample_weight: _D | None = None) -> int:
    """K-class form of `dual_epoch_rows`."""
    k_classes, n = alpha.shape
    check_rows(rows, n, Krows.shape[0], Krows.shape[1], cols)
    need(y.shape == (n,) and b.shape == (k_classes,), "y must have shape (n,) and b (K,)")
    need(all(0 <= v < k_classes for v in y.tolist()), f"y must lie in [0, {k_classes})")
    check_cols(cols, rows, alpha)
    averaged = check_avg(U, beta, count, alpha.shape, k_classes)
    sw = _check_weights(sample_weight, n)
    cl = None if cols is None else cols.tolist()
    al, bl, yl = alpha.tolist(), b.tolist(), y.tolist()
    if averaged:
        assert U is not None and beta is not None and count is not None
        ul, betal, c = U.tolist(), beta.tolist(), int(count[0])
    mistakes = 0
    error = None
    for t, i in enumerate(rows.tolist()):
        yi = yl[i]
        kr = Krows[t].tolist()
        pred, best = 0, dot4_cols(al[0], kr, cl) + bl[0]
        finite = math.isfinite(best)
        for k in range(1, k_classes):
            s = dot4_cols(al[k], kr, cl) + bl[k]
            finite = finite and math.isfinite(s)
            if s > best:
                pred, best = k, s
        if not finite:
            error = non_finite(t, i)
            break
        if pred != yi:
            mistakes += 1
            step = 1.0 if sw is None else sw[i]
            al[yi][i] += step
            al[pred][i] -= step
            if fit_intercept:
                bl[yi] += step
                bl[pred] -= step
            if averaged:
                ul[yi][i] += step * c
                ul[pred][i] -= step * c
                if fit_intercept:
                    betal[yi] += step * c
                    betal[pred] -= step * c
        if averaged:
            c += 1
    alpha[:] = al
    b[:] = bl
    if averaged:
        assert U is not None and beta is not None and count is not None
        U[:] = ul
        beta[:] = betal
        count[0] = c
    if error is not None:
        raise error
    return mistakes
