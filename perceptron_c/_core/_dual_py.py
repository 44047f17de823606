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
  mistake, Herbrich's cached-output trick);
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

An activation that is not finite (float64 overflow in the kernel values or the coefficients)
is neither a mistake nor a success: the epoch stops there, the state is written back as it is
(``steps`` is then unspecified) and ``FloatingPointError`` names the position.

Arithmetic contract for the float routines (shared with the C twin, so that they agree bit for
bit): f(x) in the rows mode is a 4-lane sum over the pool (element j into partial sum j % 4,
then (s0 + s1) + (s2 + s3); with ``cols``, element cols[c] into partial sum cols[c] % 4, in
the order of cols), plus b; a cached score changes by ``scores[j] += step * G[i, j]`` in
index order, step = y_i (binary; y_i w_i with weights) or +-1 (+-w_i) for the two classes of
a K-class mistake. Averaging is [Daume2017] Alg. 7 on the coefficients: u_i += step c,
beta += step c on a mistake, c += 1 after every example; the averaged coefficients are
alpha - u / c.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, TypeAlias

    import numpy as np
    import numpy.typing as npt

    _D: TypeAlias = npt.NDArray[np.float64]
    _I64: TypeAlias = npt.NDArray[np.int64]

__all__ = [
    "dual_epoch_cached", "dual_epoch_rows", "multiclass_dual_epoch_cached",
    "multiclass_dual_epoch_rows",
]


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise ValueError(what)


def _check_rows(rows: _I64, n_pool: int, n_krows: int, n_kcols: int,
                cols: _I64 | None = None) -> None:
    _need(n_krows == len(rows), "Krows must have one row per entry of rows")
    if cols is None:
        _need(n_kcols == n_pool, "Krows must have one column per pool example")
    else:
        _need(n_kcols == len(cols), "Krows must have one column per entry of cols")
    _need(all(0 <= i < n_pool for i in rows.tolist()), f"rows must lie in [0, {n_pool})")


def _check_cols(cols: _I64 | None, rows: _I64, alpha: npt.NDArray[Any]) -> None:
    """cols: strictly increasing pool indices holding every visited row and every column of
    alpha (1-D, or one row per class) with a nonzero coefficient."""
    if cols is None:
        return
    n = alpha.shape[-1]
    cl = cols.tolist()
    _need(all(0 <= j < n for j in cl) and all(a < b for a, b in zip(cl, cl[1:])),
          f"cols must be strictly increasing indices in [0, {n})")
    inside = set(cl)
    _need(all(i in inside for i in rows.tolist()), "cols must hold every entry of rows")
    lines = [alpha.tolist()] if alpha.ndim == 1 else alpha.tolist()
    _need(all(v == 0 or j in inside for line in lines for j, v in enumerate(line)),
          "cols must hold every example with a nonzero coefficient")


def _check_weights(sample_weight: _D | None, n: int) -> list[float] | None:
    if sample_weight is None:
        return None
    _need(sample_weight.shape == (n,) and all(math.isfinite(v) for v in sample_weight.tolist()),
          "sample_weight must hold one finite weight per pool example")
    return sample_weight.tolist()


def _check_avg(u: npt.NDArray[Any] | None, beta: npt.NDArray[Any] | None,
               count: _I64 | None, shape_alpha: tuple[int, ...], n_b: int) -> bool:
    if u is None:
        _need(beta is None and count is None, "u, beta and count go together")
        return False
    if beta is None or count is None:  # as the C twin's check_avg (not an AttributeError)
        raise ValueError("u, beta and count go together")
    _need(u.shape == shape_alpha, "u must have the shape of alpha")
    _need(beta.shape == (n_b,), "beta must have the shape of b")
    _need(count.shape == (1,) and count[0] >= 1, "count must have shape (1,) and be >= 1")
    return True


def _check_steps(steps: _I64 | None, m: int) -> None:
    _need(steps is None or steps.shape[0] >= m,
          "steps must have room for one entry per visited example")


def _store_steps(steps: _I64 | None, recorded: list[int]) -> None:
    """Positions t (in order/rows) of this call's mistakes, for the voted perceptron."""
    if steps is not None and recorded:
        steps[:len(recorded)] = recorded


def _non_finite(t: int, i: int) -> FloatingPointError:
    """An activation outside float64's range stops the epoch (see the module docstring)."""
    return FloatingPointError(f"non-finite activation at position {t} of the visiting order "
                              f"(row {i}): the weights or the data overflow float64")


def _dot4(a: Sequence[float], k: Sequence[float], cols: Sequence[int] | None = None) -> float:
    """4-lane sum of a[j] * k[j]; with cols, of a[cols[c]] * k[c] in lane cols[c] % 4."""
    s = [0.0, 0.0, 0.0, 0.0]
    if cols is None:
        for j, v in enumerate(a):
            s[j & 3] += v * k[j]
    else:
        for c, j in enumerate(cols):
            s[j & 3] += a[j] * k[c]
    return (s[0] + s[1]) + (s[2] + s[3])


def dual_epoch_cached(G: _D, y: _D, order: _I64, alpha: _D, b: _D, scores: _D,
                      fit_intercept: bool, u: _D | None = None, beta: _D | None = None,
                      count: _I64 | None = None, steps: _I64 | None = None, *,
                      sample_weight: _D | None = None) -> int:
    """One epoch of the binary kernel perceptron on a precomputed Gram; returns the mistakes.

    [Bunescu-CS4900], kernel perceptron: if y_i (sum_j alpha_j K(x_j, x_i) + b) <= 0 then
    alpha_i += y_i (and b += y_i). ``scores`` holds sum_j alpha_j G[j, i] for every i.
    """
    _check_steps(steps, len(order))
    n = alpha.shape[0]
    _need(G.shape == (n, n) and scores.shape == (n,) and y.shape == (n,) and b.shape == (1,),
          "G must be (n, n) and y, scores (n,) for alpha of length n; b (1,)")
    _need(all(0 <= i < n for i in order.tolist()), f"order must lie in [0, {n})")
    averaged = _check_avg(u, beta, count, alpha.shape, 1)
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
            error = _non_finite(t, i)
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
    _store_steps(steps, recorded)
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
    _need(G.shape == (n, n) and scores.shape == alpha.shape and y.shape == (n,)
          and b.shape == (k_classes,), "G (n, n), scores like alpha (K, n), y (n,), b (K,)")
    _need(all(0 <= i < n for i in order.tolist()), f"order must lie in [0, {n})")
    _need(all(0 <= v < k_classes for v in y.tolist()), f"y must lie in [0, {k_classes})")
    averaged = _check_avg(U, beta, count, alpha.shape, k_classes)
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
            error = _non_finite(t, i)
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
    _check_steps(steps, len(rows))
    n = alpha.shape[0]
    _check_rows(rows, n, Krows.shape[0], Krows.shape[1], cols)
    _need(y.shape == (n,) and b.shape == (1,), "y must have shape (n,) and b (1,)")
    _check_cols(cols, rows, alpha)
    averaged = _check_avg(u, beta, count, alpha.shape, 1)
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
        a = _dot4(al, Krows[t].tolist(), cl) + bias
        if not math.isfinite(a):
            error = _non_finite(t, i)
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
    _store_steps(steps, recorded)
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
    _check_rows(rows, n, Krows.shape[0], Krows.shape[1], cols)
    _need(y.shape == (n,) and b.shape == (k_classes,), "y must have shape (n,) and b (K,)")
    _need(all(0 <= v < k_classes for v in y.tolist()), f"y must lie in [0, {k_classes})")
    _check_cols(cols, rows, alpha)
    averaged = _check_avg(U, beta, count, alpha.shape, k_classes)
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
        pred, best = 0, _dot4(al[0], kr, cl) + bl[0]
        finite = math.isfinite(best)
        for k in range(1, k_classes):
            s = _dot4(al[k], kr, cl) + bl[k]
            finite = finite and math.isfinite(s)
            if s > best:
                pred, best = k, s
        if not finite:
            error = _non_finite(t, i)
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
