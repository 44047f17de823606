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
    State,
    check_headroom,
    check_rows_epoch,
    check_steps,
    exact,
    first_max,
    need,
    store_steps,
)

if TYPE_CHECKING:
    import numpy.typing as npt

    from ._contract import _D, _I64, _IE

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
    check_rows_epoch(Erows, rows, y, alpha, b, cols, u, beta, count)
    _check_y_finite(y)
    sw, w_total = _check_int_weights(sample_weight, n, rows)
    m = len(rows)
    check_headroom(alpha, abs(int(b[0])) + 2 * w_total, "alpha")
    st = State(alpha, b, u, beta, count)
    if u is not None:
        check_headroom(u, abs(st.beta[0]) + 2 * w_total * (st.c + m), "u")
    cl = None if cols is None else cols.tolist()
    yl = [int(v) for v in y.tolist()]
    recorded = []
    for t, i in enumerate(rows.tolist()):
        yi = yl[i]
        if yi * exact(st.a, Erows[t].tolist(), st.b[0], cl) <= 0:
            recorded.append(t)
            st.add(i, yi if sw is None else yi * sw[i], fit_intercept)
        st.c += 1
    st.store()
    store_steps(steps, recorded)
    return len(recorded)


def multiclass_conjunction_epoch_rows(Erows: _IE, rows: _I64, y: _I64, alpha: _I64, b: _I64,
                                      fit_intercept: bool, U: _I64 | None = None,
                                      beta: _I64 | None = None,
                                      count: _I64 | None = None, *, cols: _I64 | None = None,
                                      sample_weight: _I64 | None = None) -> int:
    """K-class form of `conjunction_epoch_rows`: exact argmax, ties to the lowest class."""
    _check_exponents(Erows)
    k_classes, n = alpha.shape
    check_rows_epoch(Erows, rows, y, alpha, b, cols, U, beta, count)
    sw, w_total = _check_int_weights(sample_weight, n, rows)
    m = len(rows)
    st = State(alpha, b, U, beta, count)
    for k in range(k_classes):
        check_headroom(alpha[k], abs(st.b[k]) + 2 * w_total, "alpha")
        if U is not None:
            check_headroom(U[k], abs(st.beta[k]) + 2 * w_total * (st.c + m), "U")
    cl = None if cols is None else cols.tolist()
    yl = y.tolist()
    mistakes = 0
    for t, i in enumerate(rows.tolist()):
        yi = yl[i]
        er = Erows[t].tolist()
        pred = first_max([exact(st.a[k], er, st.b[k], cl) for k in range(k_classes)])
        if pred != yi:
            mistakes += 1
            st.move(i, yi, pred, 1 if sw is None else sw[i], fit_intercept)
        st.c += 1
    st.store()
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
    res = [first_max([exact(ck, er, bk) for ck, bk in zip(cl, bl)]) for er in E.tolist()]
    if res:
        out[:] = res
