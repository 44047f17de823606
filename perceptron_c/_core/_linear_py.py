"""Pure-Python twin of ``_linear_c``: the specification of every linear routine.

Each function mirrors the textbook pseudo-code step by step and works in place on the numpy
arrays it is given, exactly like its C twin of the same name and signature. Inputs are assumed
canonical (see ``_validation``): X C-contiguous float32/float64, CSR as (data, indices int32,
indptr int64), binary labels as float64 +1/-1, class labels as int64 indices, ``order`` an
int64 permutation, weights and biases float64, ``count`` an int64 array of shape (1,).

Arithmetic contract: ``_contract``'s (4-lane sums, updates in index order, lazy averaging, a
non-finite activation stops the epoch and names its position), so that the C twin agrees bit
for bit on any data. Here:
- the activation is ``dot4_indexed(x, columns, w) + b`` (lane k % 4 by position in the row);
- a mistake adds ``step * x[j]`` to each weight; with ``sample_weight`` (one float per row,
  the caller's product of eta0, sample and class weights) the step is
  ``(y * s) * sample_weight[i]`` (binary) or ``s * sample_weight[i]`` (K-class), s being 1
  or the normalized length below;
- the normalized step is ``y / sqrt(||x||^2)`` (``||(x, 1)||`` with an intercept), the
  squared norm being ``sqnorm4``; a row of norm 0 gets no update. When that squared
  norm overflows, or is below 2^-960 (digits may have been lost to underflow), the row is
  first scaled by the power of two p that brings its largest entry into [0.5, 1) (clamped
  to [2^-1022, 2^1022]): the step is ``y / sqrt(||x p||^2)`` (plus p^2 with an intercept)
  and the update adds ``step * (x[j] * p)`` (``step * p`` to the bias). Multiplying by a
  power of two is exact, so both twins compute the same numbers; p = 1 for every other row.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ._contract import (
    State,
    check_csr,
    check_steps,
    csr_rows,
    dense_rows,
    dot4_indexed,
    first_max_finite,
    need,
    non_finite,
    result,
    sqnorm4,
    store_steps,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._contract import _D, _F, _I32, _I64
    from ._contract import Rows as _Rows

__all__ = [
    "perceptron_epoch_dense",
    "perceptron_epoch_csr",
    "averaged_epoch_dense",
    "averaged_epoch_csr",
    "multiclass_epoch_dense",
    "multiclass_epoch_csr",
    "multiclass_averaged_epoch_dense",
    "multiclass_averaged_epoch_csr",
    "decision_dense",
    "decision_csr",
]


_TINY = 2.0 ** -960  # a squared norm below it may have lost digits to underflow


def _add(w: list[float], step: float, values: Sequence[float],
         columns: Sequence[int] | None) -> None:
    """w[columns[k]] += step * values[k] (in order)."""
    if columns is None:
        for k, v in enumerate(values):
            w[k] += step * v
    else:
        for k, v in enumerate(values):
            w[columns[k]] += step * v


def _move(rows: list[list[float]], biases: list[float], gain: int, lose: int, step: float,
          values: Sequence[float], columns: Sequence[int] | None, p: float,
          fit_intercept: bool) -> None:
    """A K-class mistake: row gain gains step * values, row lose loses it (`_add`); with an
    intercept, so do their biases by step * p."""
    _add(rows[gain], step, values, columns)
    _add(rows[lose], -step, values, columns)
    if fit_intercept:
        biases[gain] += step * p
        biases[lose] -= step * p


def _step_scale(values: Sequence[float], fit_intercept: bool,
                normalize: bool) -> tuple[float, float]:
    """(length of the update, power-of-two row scale p): (1, 1) without normalizing, else
    1/||x|| (1/||(x, 1)|| with an intercept), computed on x p for rows of extreme scale."""
    if not normalize:
        return 1.0, 1.0
    nrm2 = sqnorm4(values)
    if fit_intercept:
        nrm2 += 1.0
    if _TINY <= nrm2 < math.inf:
        return 1.0 / math.sqrt(nrm2), 1.0
    top = max((abs(v) for v in values), default=0.0)
    if top == 0.0:  # a zero row (without intercept): no update
        return 0.0, 1.0
    e = min(1022, max(-1022, -math.frexp(top)[1]))
    p = math.ldexp(1.0, e)
    nrm2 = sqnorm4([v * p for v in values])
    if fit_intercept:
        nrm2 += p * p
    return 1.0 / math.sqrt(nrm2), p


def _scaled(values: list[float], p: float) -> list[float]:
    return values if p == 1.0 else [v * p for v in values]


def _check_order(order: _I64, n_rows: int) -> None:
    need(all(0 <= i < n_rows for i in order.tolist()),
         f"order must hold row indices in [0, {n_rows})")


def _check_binary(n_rows: int, d: int, y: _D, w: _D, b: _D, u: _D | None = None,
                  beta: _D | None = None, count: _I64 | None = None) -> None:
    need(y.shape[0] == n_rows, "y must have one label per row")
    # beta comes with u: the averaged routines pass u, beta and count together
    for ww, bb in ((w, b), (u, beta)) if u is not None else ((w, b),):
        need(ww.shape[0] == d, "w must have one weight per feature")
        need(bb.shape[0] == 1, "b must have shape (1,)")  # type: ignore[union-attr]
    if count is not None:
        need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")


def _check_multi(n_rows: int, d: int, y: _I64, W: _D, b: _D, U: _D | None = None,
                 beta: _D | None = None, count: _I64 | None = None) -> None:
    need(y.shape[0] == n_rows, "y must have one label per row")
    # beta comes with U: the averaged routines pass U, beta and count together
    for WW, bb in ((W, b), (U, beta)) if U is not None else ((W, b),):
        need(WW.shape[1] == d, "W must have one column per feature")
        need(bb.shape[0] == WW.shape[0] and WW.shape[0] >= 1,  # type: ignore[union-attr]
             "b must have one entry per row of W")
    if U is not None:
        assert count is not None
        need(U.shape[0] == W.shape[0], "U must have the shape of W")
        need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    need(all(0 <= v < W.shape[0] for v in y.tolist()),
         f"y must hold class indices in [0, {W.shape[0]})")


def _check_weights(sample_weight: _D | None, n_rows: int) -> None:
    need(sample_weight is None or (sample_weight.shape == (n_rows,) and all(
        math.isfinite(v) for v in sample_weight.tolist())),
        "sample_weight must hold one finite weight per row")


def _binary_epoch(row: _Rows, y: _D, order: _I64, w: _D, b: _D, u: _D | None, beta: _D | None,
                  count: _I64 | None, fit_intercept: bool, normalize: bool,
                  steps: _I64 | None = None, sample_weight: _D | None = None) -> int:
    """[Daume2017] Alg. 5 (u is None) and Alg. 7 (lazy averaging), one epoch."""
    st = State(w, b, u, beta, count)
    yl = y.tolist()
    sw = None if sample_weight is None else sample_weight.tolist()
    recorded = []
    error = None
    for t, i in enumerate(order.tolist()):
        x, cols = row(i)
        yi = yl[i]
        a = dot4_indexed(x, cols, st.a) + st.b[0]  # activation w.x + b
        if not math.isfinite(a):
            error = non_finite(t, i)
            break
        if yi * a <= 0.0:  # mistake (a = 0 counts, as in the book)
            recorded.append(t)
            scale, p = _step_scale(x, fit_intercept, normalize)
            step = yi * scale
            if sw is not None:
                step = step * sw[i]
            if step != 0.0:
                xs = _scaled(x, p)
                _add(st.a, step, xs, cols)  # w <- w + y x
                if fit_intercept:
                    st.b[0] += step * p  # b <- b + y
                if st.on:
                    cstep = step * st.c
                    _add(st.u, cstep, xs, cols)  # u <- u + y c x
                    if fit_intercept:
                        st.beta[0] += cstep * p  # beta <- beta + y c
        st.c += 1  # counts every example, mistake or not
    st.store()
    store_steps(steps, recorded)
    return result(len(recorded), error)


def _multiclass_epoch(row: _Rows, y: _I64, order: _I64, W: _D, b: _D, U: _D | None,
                      beta: _D | None, count: _I64 | None, fit_intercept: bool,
                      normalize: bool, sample_weight: _D | None = None) -> int:
    """K-class (argmax) perceptron, one epoch ([Bunescu-CS4900], "K-class perceptron").

    Scores s_k = W_k . x + b_k; prediction = the first k of maximal score. On a mistake the
    true class row gains the (scaled) example and the predicted row loses it. With U the
    lazy-averaging sums are kept as in the binary Alg. 7, one row per class.
    """
    st = State(W, b, U, beta, count)
    yl = y.tolist()
    sw = None if sample_weight is None else sample_weight.tolist()
    mistakes = 0
    error = None
    for t, i in enumerate(order.tolist()):
        x, cols = row(i)
        yi = yl[i]
        pred = first_max_finite([dot4_indexed(x, cols, wk) + bk for wk, bk in zip(st.a, st.b)])
        if pred is None:
            error = non_finite(t, i)
            break
        if pred != yi:
            mistakes += 1
            step, p = _step_scale(x, fit_intercept, normalize)
            if sw is not None:
                step = step * sw[i]
            if step != 0.0:
                xs = _scaled(x, p)
                _move(st.a, st.b, yi, pred, step, xs, cols, p, fit_intercept)
                if st.on:
                    _move(st.u, st.beta, yi, pred, step * st.c, xs, cols, p, fit_intercept)
        st.c += 1
    st.store()
    return result(mistakes, error)


def perceptron_epoch_dense(X: _F, y: _D, order: _I64, w: _D, b: _D, fit_intercept: bool,
                           normalize: bool, steps: _I64 | None = None,
                           sample_weight: _D | None = None) -> int:
    """One epoch of the binary perceptron on dense rows; returns the number of mistakes.

    [Daume2017] Alg. 5 (PerceptronTrain), inner loop: a = w.x + b; if y*a <= 0 then
    w += y*x, b += y. With ``normalize`` the update is y*x/||x|| ([Vaughan-CS269], section 2).
    ``steps`` (int64, room for len(order)) receives the position in ``order`` of each mistake,
    for the voted perceptron.
    """
    _check_binary(X.shape[0], X.shape[1], y, w, b)
    _check_order(order, X.shape[0])
    _check_weights(sample_weight, X.shape[0])
    check_steps(steps, order.shape[0])
    return _binary_epoch(dense_rows(X), y, order, w, b, None, None, None,
                         fit_intercept, normalize, steps, sample_weight)


def perceptron_epoch_csr(data: _F, indices: _I32, indptr: _I64, y: _D, order: _I64, w: _D,
                         b: _D, fit_intercept: bool, normalize: bool,
                         steps: _I64 | None = None, sample_weight: _D | None = None) -> int:
    """`perceptron_epoch_dense` on CSR rows (data, indices, indptr)."""
    check_csr(indptr, data.shape[0], indices.shape[0])
    _check_binary(indptr.shape[0] - 1, w.shape[0], y, w, b)
    _check_order(order, indptr.shape[0] - 1)
    _check_weights(sample_weight, indptr.shape[0] - 1)
    check_steps(steps, order.shape[0])
    return _binary_epoch(csr_rows(data, indices, indptr), y, order, w, b, None, None, None,
                         fit_intercept, normalize, steps, sample_weight)


def averaged_epoch_dense(X: _F, y: _D, order: _I64, w: _D, b: _D, u: _D, beta: _D,
                         count: _I64, fit_intercept: bool, normalize: bool,
                         sample_weight: _D | None = None) -> int:
    """One epoch of the averaged perceptron, [Daume2017] Alg. 7 (lazy averaging).

    ``count`` holds the example counter c (1 before the first example). The averaged model
    after any number of epochs is (w - u/c, b - beta/c): the mean of the c weight vectors
    w_0 = 0, w_1, ..., w_{c-1} that the perceptron held after each example.
    """
    _check_binary(X.shape[0], X.shape[1], y, w, b, u, beta, count)
    _check_order(order, X.shape[0])
    _check_weights(sample_weight, X.shape[0])
    return _binary_epoch(dense_rows(X), y, order, w, b, u, beta, count,
                         fit_intercept, normalize, None, sample_weight)


def averaged_epoch_csr(data: _F, indices: _I32, indptr: _I64, y: _D, order: _I64, w: _D,
                       b: _D, u: _D, beta: _D, count: _I64, fit_intercept: bool,
                       normalize: bool, sample_weight: _D | None = None) -> int:
    """`averaged_epoch_dense` on CSR rows."""
    check_csr(indptr, data.shape[0], indices.shape[0])
    _check_binary(indptr.shape[0] - 1, w.shape[0], y, w, b, u, beta, count)
    _check_order(order, indptr.shape[0] - 1)
    _check_weights(sample_weight, indptr.shape[0] - 1)
    return _binary_epoch(csr_rows(data, indices, indptr), y, order, w, b, u, beta, count,
                         fit_intercept, normalize, None, sample_weight)


def multiclass_epoch_dense(X: _F, y: _I64, order: _I64, W: _D, b: _D, fit_intercept: bool,
                           normalize: bool, sample_weight: _D | None = None) -> int:
    """One epoch of the K-class argmax perceptron; W is (K, d), b is (K,), y class indices."""
    _check_multi(X.shape[0], X.shape[1], y, W, b)
    _check_order(order, X.shape[0])
    _check_weights(sample_weight, X.shape[0])
    return _multiclass_epoch(dense_rows(X), y, order, W, b, None, None, None,
                             fit_intercept, normalize, sample_weight)


def multiclass_epoch_csr(data: _F, indices: _I32, indptr: _I64, y: _I64, order: _I64, W: _D,
                         b: _D, fit_intercept: bool, normalize: bool,
                         sample_weight: _D | None = None) -> int:
    """`multiclass_epoch_dense` on CSR rows."""
    check_csr(indptr, data.shape[0], indices.shape[0])
    _check_multi(indptr.shape[0] - 1, W.shape[1], y, W, b)
    _check_order(order, indptr.shape[0] - 1)
    _check_weights(sample_weight, indptr.shape[0] - 1)
    return _multiclass_epoch(csr_rows(data, indices, indptr), y, order, W, b, None, None, None,
                             fit_intercept, normalize, sample_weight)


def multiclass_averaged_epoch_dense(X: _F, y: _I64, order: _I64, W: _D, b: _D, U: _D,
                                    beta: _D, count: _I64, fit_intercept: bool,
                                    normalize: bool, sample_weight: _D | None = None) -> int:
    """K-class perceptron with lazy averaging (Alg. 7 applied to every class row)."""
    _check_multi(X.shape[0], X.shape[1], y, W, b, U, beta, count)
    _check_order(order, X.shape[0])
    _check_weights(sample_weight, X.shape[0])
    return _multiclass_epoch(dense_rows(X), y, order, W, b, U, beta, count,
                             fit_intercept, normalize, sample_weight)


def multiclass_averaged_epoch_csr(data: _F, indices: _I32, indptr: _I64, y: _I64,
                                  order: _I64, W: _D, b: _D, U: _D, beta: _D, count: _I64,
                                  fit_intercept: bool, normalize: bool,
                                  sample_weight: _D | None = None) -> int:
    """`multiclass_averaged_epoch_dense` on CSR rows."""
    check_csr(indptr, data.shape[0], indices.shape[0])
    _check_multi(indptr.shape[0] - 1, W.shape[1], y, W, b, U, beta, count)
    _check_order(order, indptr.shape[0] - 1)
    _check_weights(sample_weight, indptr.shape[0] - 1)
    return _multiclass_epoch(csr_rows(data, indices, indptr), y, order, W, b, U, beta, count,
                             fit_intercept, normalize, sample_weight)


def _decision(row: _Rows, n: int, W: _D, b: _D, out: _D) -> None:
    Wl, bl = W.tolist(), b.tolist()
    res = []
    for i in range(n):
        x, cols = row(i)
        res.append([dot4_indexed(x, cols, Wl[k]) + bl[k] for k in range(len(bl))])
    if n:
        out[:] = res


def decision_dense(X: _F, W: _D, b: _D, out: _D) -> None:
    """out[i, k] = W_k . x_i + b_k ([Daume2017] Alg. 6 before the sign), in place."""
    need(W.shape[1] == X.shape[1], "W must have one column per feature")
    need(b.shape[0] == W.shape[0], "b must have one entry per row of W")
    need(out.shape == (X.shape[0], W.shape[0]), "out must have shape (n_rows, n_classes)")
    _decision(dense_rows(X), X.shape[0], W, b, out)


def decision_csr(data: _F, indices: _I32, indptr: _I64, W: _D, b: _D, out: _D) -> None:
    """`decision_dense` on CSR rows."""
    check_csr(indptr, data.shape[0], indices.shape[0])
    need(b.shape[0] == W.shape[0], "b must have one entry per row of W")
    need(out.shape == (indptr.shape[0] - 1, W.shape[0]),
         "out must have shape (n_rows, n_classes)")
    _decision(csr_rows(data, indices, indptr), indptr.shape[0] - 1, W, b, out)
