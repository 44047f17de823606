"""Pure-Python twin of ``_conjunction_c``: the exact conjunction-kernel routines, the spec.

The dual perceptron of ``_dual_py`` with the kernel K(a, b) = 2^popcount(a AND b)
([Columbia-COMS4252], Claim 2.1). The kernel exceeds float64 from 1024 common bits on, and sums
of such terms can cancel deeply, so these routines take the exponents E = popcount(a AND b)
(int32) and integer coefficients (int64), and decide every sign exactly: this twin with Python
integers, the C twin with coefficients bucketed by exponent and carried in base 2.

The routines take the rows mode of ``_dual_py`` (``Erows[t] = popcount(x_rows[t] AND pool)``
for a block of visited examples; int16 exponents, enough up to 32767 bits, or int32), its
``cols`` (the support set and the visited rows only) and its ``steps`` convention for the
binary routine. ``sample_weight`` here is int64 (whole numbers keep the sums exact): a mistake
on i adds y_i w_i (w_i, -w_i for the two classes of a K-class mistake) where it added y_i.
Every call first checks that its sums cannot leave the exact range, even if each visited row
were a mistake: sum |coefficients| + |bias| + 2 sum_t |w(rows[t])| < 2^61 per class, and for
the averaging sums |beta| + 2 sum_t |w(rows[t])| (count + m) more.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ._contract import (
    check_avg,
    check_cols,
    check_headroom,
    check_rows,
    check_steps,
    exact,
    need,
    store_steps,
)

if TYPE_CHECKING:
    from typing import TypeAlias

    import numpy as np
    import numpy.typing as npt

    _D: TypeAlias = npt.NDArray[np.float64]
    _I64: TypeAlias = npt.NDArray[np.int64]
    _IE: TypeAlias = npt.NDArray[np.int16] | npt.NDArray[np.int32]

__all__ = [
    "conjunction_epoch_rows", "multiclass_conjunction_epoch_rows", "conjunction_decision",
    "conjunction_argmax",
]

_MAX = 1.7976931348623157e308  # the largest finite float64


def _check_exponents(E: Any) -> None:
    need(getattr(E, "dtype", None) in ("int16", "int32"), "exponents must be int16 or int32")


def _check_y_finite(y: Any) -> None:
    need(all(math.isfinite(v) and -9.2e18 < v < 9.2e18 for v in y.tolist()),
         "y must be finite")


def _check_int_weights(sample_weight: _I64 | None, n: int, rows: _I64) -> tuple[
        list[int] | None, int]:
    """(the weights as Python ints or None, sum over the visited rows of |weight|)."""
    if sample_weight is None:
        return None, len(rows)
    need(sample_weight.shape == (n,) and sample_weight.dtype.kind == "i"
         and sample_weight.dtype.itemsize == 8,
         "sample_weight must hold one int64 weight per pool example")
    sw = sample_weight.tolist()
    return sw, sum(abs(sw[i]) for i in rows.tolist())


def conjunction_epoch_rows(Erows: _IE, rows: _I64, y: _D, alpha: _I64, b: _I64,
                           fit_intercept: bool, u: _I64 | None = None,
                           beta: _I64 | None = None, count: _I64 | None = None,
                           steps: _I64 | None = None, *, cols: _I64 | None = None,
                           sample_weight: _I64 | None = None) -> int:
    """`dual_epoch_rows` for the conjunction kernel with exact activations.

    Erows[t, c] = popcount(x_rows[t] AND x_cols[c]) (c = j, every pool column, without cols);
    alpha, b, u, beta are int64; y is +1/-1 (float64, as everywhere). f = sum_j alpha_j
    2^Erows[t, j] + b is formed exactly, so the mistake test y f <= 0 is exact at any bit count
    ([Columbia-COMS4252], Claim 2.1 and 2.3).
    """
    _check_exponents(Erows)
    check_steps(steps, len(rows))
    n = alpha.shape[0]
    check_rows(rows, n, Erows.shape[0], Erows.shape[1], cols)
    need(y.shape == (n,) and b.shape == (1,), "y must have shape (n,) and b (1,)")
    check_cols(cols, rows, alpha)
    averaged = check_avg(u, beta, count, alpha.shape, 1)
    _check_y_finite(y)
    sw, w_total = _check_int_weights(sample_weight, n, rows)
    m = len(rows)
    check_headroom(alpha, abs(int(b[0])) + 2 * w_total, "alpha")
    if averaged:
        assert u is not None and beta is not None and count is not None
        check_headroom(u, abs(int(beta[0])) + 2 * w_total * (int(count[0]) + m), "u")
    cl = None if cols is None else cols.tolist()
    al, yl, bias = alpha.tolist(), [int(v) for v in y.tolist()], int(b[0])
    if averaged:
        assert u is not None and beta is not None and count is not None
        ul, betal, c = u.tolist(), int(beta[0]), int(count[0])
    mistakes = 0
    recorded = []
    for t, i in enumerate(rows.tolist()):
        yi = yl[i]
        if yi * exact(al, Erows[t].tolist(), bias, cl) <= 0:
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
    return mistakes


def multiclass_conjunction_epoch_rows(Erows: _IE, rows: _I64, y: _I64, alpha: _I64, b: _I64,
                                      fit_intercept: bool, U: _I64 | None = None,
                                      beta: _I64 | None = None,
                                      count: _I64 | None = None, *, cols: _I64 | None = None,
                                      sample_weight: _I64 | None = None) -> int:
    """K-class form of `conjunction_epoch_rows`: exact argmax, ties to the lowest class."""
    _check_exponents(Erows)
    k_classes, n = alpha.shape
    check_rows(rows, n, Erows.shape[0], Erows.shape[1], cols)
    need(y.shape == (n,) and b.shape == (k_classes,), "y must have shape (n,) and b (K,)")
    need(all(0 <= v < k_classes for v in y.tolist()), f"y must lie in [0, {k_classes})")
    check_cols(cols, rows, alpha)
    averaged = check_avg(U, beta, count, alpha.shape, k_classes)
    sw, w_total = _check_int_weights(sample_weight, n, rows)
    m = len(rows)
    for k in range(k_classes):
        check_headroom(alpha[k], abs(int(b[k])) + 2 * w_total, "alpha")
        if averaged:
            assert U is not None and beta is not None and count is not None
            check_headroom(U[k], abs(int(beta[k])) + 2 * w_total * (int(count[0]) + m), "U")
    cl = None if cols is None else cols.tolist()
    al, bl, yl = alpha.tolist(), b.tolist(), y.tolist()
    if averaged:
        assert U is not None and beta is not None and count is not None
        ul, betal, c = U.tolist(), beta.tolist(), int(count[0])
    mistakes = 0
    for t, i in enumerate(rows.tolist()):
        yi = yl[i]
        er = Erows[t].tolist()
        pred, best = 0, exact(al[0], er, bl[0], cl)
        for k in range(1, k_classes):
            s = exact(al[k], er, bl[k], cl)
            if s > best:
                pred, best = k, s
        if pred != yi:
            mistakes += 1
            step = 1 if sw is None else sw[i]
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
    return mistakes


def _to_float(v: int) -> float:
    """Nearest float64 to the integer v; beyond float64's range, the largest finite float64
    of v's sign (never inf)."""
    try:
        return float(v)
    except OverflowError:
        return _MAX if v > 0 else -_MAX


def _check_decision(E: _IE, coef: _I64, b: _I64, out: npt.NDArray[Any]) -> None:
    _check_exponents(E)
    need(E.shape[1] == coef.shape[1], "E must have one column per coefficient")
    need(b.shape == (coef.shape[0],), "b must have one entry per row of coef")
    need(out.shape[0] == E.shape[0], "out must have one row per row of E")
    for k in range(coef.shape[0]):
        check_headroom(coef[k], abs(int(b[k])), "coef")


def conjunction_decision(E: _IE, coef: _I64, b: _I64, out: _D) -> None:
    """out[i, k] = float64 of sum_j coef[k, j] 2^E[i, j] + b[k], sign exact, clipped to the
    largest finite float64 beyond float64's range."""
    _check_decision(E, coef, b, out)
    need(out.shape[1] == coef.shape[0], "out must have shape (n, K)")
    cl, bl = coef.tolist(), b.tolist()
    res = [[_to_float(exact(ck, er, bk)) for ck, bk in zip(cl, bl)] for er in E.tolist()]
    if res:
        out[:] = res


def conjunction_argmax(E: _IE, coef: _I64, b: _I64, out: _I64) -> None:
    """out[i] = the first k maximizing sum_j coef[k, j] 2^E[i, j] + b[k], compared exactly."""
    _check_decision(E, coef, b, out)
    cl, bl = coef.tolist(), b.tolist()
    res = []
    for er in E.tolist():
        best_k, best = 0, exact(cl[0], er, bl[0])
        for k in range(1, len(cl)):
            s = exact(cl[k], er, bl[k])
            if s > best:
                best_k, best = k, s
        res.append(best_k)
    if res:
        out[:] = res
