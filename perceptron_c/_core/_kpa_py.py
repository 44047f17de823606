"""Pure-Python twin of ``_kpa_c``: the kernel passive-aggressive epochs, the specification.

Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, "Online Passive-Aggressive Algorithms",
JMLR 7 (2006) 551-585: the PA, PA-I and PA-II updates of Fig. 1 run in the dual (the paper
notes that every PA update can be kernelized: w_t = sum_i tau_i y_i x_i, so only the kernel
is needed), and for K classes the multiclass update with the wrong label of the highest
score (the paper's multiclass section, one prototype per class: the update adds tau phi(x) to
the true class's row and subtracts it from that label's row, so its squared norm is
2 K(x, x)).

A model has R coefficient rows (R = 1 for two classes, R = K otherwise) over a pool of n
examples: f_k(x) = sum_j alpha[k, j] K(x_j, x) + b[k]. For one visited example i (label y_i: a
class index, for two classes 1 is positive; step weight w_i = class weight * sample weight,
1.0 when ``weight`` is None):

1. margin: two classes, z = s * f_0(x_i) with s = 1.0 (y_i = 1) or -1.0 (y_i = 0); K
   classes, r = the label other than y_i of the highest score (the lowest on ties) and
   z = f_{y_i}(x_i) - f_r(x_i);
2. z < 1: the loss l = 1 - z is added to ``loss[0]`` (when given) and the example moves the
   model; otherwise nothing happens;
3. kd = K(x_i, x_i) + 1.0 with fit_intercept (b is the coefficient of a constant feature, so
   the kernel is K + 1), K(x_i, x_i) without; kd <= 0 takes no step (for a kernel, K(x, x) = 0
   means phi(x) = 0: no step would change a score); q = kd (two classes) or 2.0 * kd;
4. tau = l / q (PA: C = inf), then ``C if not tau < C`` (PA-I), or l / (q + 0.5 / C) (PA-II,
   ``squared``): scikit-learn's order of operations for its PA;
5. step = (tau * s) * w_i (two classes: alpha[0, i] += step, b[0] += step with fit_intercept)
   or tau * w_i (row y_i gains it, row r loses it, in alpha[:, i] and b); a repeated example
   adds to its coefficient. Averaging is ``_contract``'s on the coefficients (u += step * c and
   beta += step * c where alpha and b move); the averaged coefficients are alpha - u / c,
   b - beta / c.

The float routines return the number of steps taken and follow ``_contract`` (4-lane sums, a
non-finite activation stops the epoch). Their activations, as in ``_dual_py``: cached
(``kpa_epoch_cached``): scores[k, j] = sum_i alpha[k, i] G[i, j] is kept for the whole pool
and a step on i adds step * G[i, j] to scores[k, j] in index order, f_k = scores[k, i] +
b[k]; rows (``kpa_epoch_rows``): f_k = ``dot4(alpha[k], Krows[t]) + b[k]``.

The conjunction kernel K(a, b) = 2^popcount(a AND b) (``kpa_conjunction_*``) is exact. Its
values leave float64 at 1024 common bits, and so would the coefficients (tau is about l /
2^popcount(x_i), below float64's range from 1075 bits on), so a coefficient is kept *scaled*:
alpha[k, j] = a[k, j] * 2^(-ediag[j]) with ediag[j] = popcount(x_j), a[k, j] float64. Then
f_k(x) = sum_j a[k, j] (2^(E[j] - ediag[j]) + [fit_intercept] 2^(-ediag[j])), E[j] =
popcount(x AND x_j) <= ediag[j]: every term is a float64 times a power of two, and the sum is
formed exactly (here with Python integers, in C in an exact fixed-point accumulator); b is no
separate number but sum_j alpha[k, j], the coefficient of the constant feature, exactly. The
margin test is exact, l is the float64 nearest to the exact 1 - z (an error when it
overflows), and the step, in a's units, is the float arithmetic of steps 3-5 with kd / 2^E =
1.0 + 2^-E (fit_intercept) or 1.0, 0.5 / C scaled by 2^-E and the cap C scaled by 2^E
(infinite when 2^E C exceeds float64): ``ldexp`` is exact there. A step or an averaging sum
that leaves float64 stops the epoch (FloatingPointError), as a non-finite activation does.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ._contract import check_rows, dot4, move, need, non_finite, result

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TypeAlias

    from ._contract import _D, _I32, _I64

    _Step: TypeAlias = "tuple[float, int, int] | None"

__all__ = [
    "kpa_epoch_cached", "kpa_epoch_rows", "kpa_conjunction_epoch_rows",
    "kpa_conjunction_decision", "kpa_conjunction_predict",
]

_MAX = 1.7976931348623157e308  # the largest finite float64
# exponents beyond it are refused (the C twin's accumulator is sized by the largest one)
MAX_EXPONENT = 1 << 24


def _check_model(alpha: _D, y: _I64, weight: _D | None, C: float) -> tuple[int, int]:
    """(R, n) after the checks every training routine shares."""
    need(alpha.ndim == 2 and alpha.shape[0] >= 1, "alpha must have shape (R, n), R >= 1")
    rows, n = alpha.shape
    n_classes = 2 if rows == 1 else rows
    need(y.shape == (n,), "y must have one class index per pool example")
    need(all(0 <= v < n_classes for v in y.tolist()), f"y must lie in [0, {n_classes})")
    need(weight is None or weight.shape == (n,), "weight must have one entry per example")
    need(C > 0, "C must be > 0 (inf: the plain PA)")
    return rows, n


def _check_avg(u: _D | None, beta: _D | None, count: _I64 | None, shape: tuple[int, ...],
               with_beta: bool) -> bool:
    if u is None:
        need(beta is None and count is None, "u, beta and count go together")
        return False
    if count is None or (beta is None) == with_beta:
        raise ValueError("u, beta and count go together")
    need(u.shape == shape, "u must have the shape of alpha")
    need(beta is None or beta.shape == (shape[0],), "beta must have the shape of b")
    need(count.shape == (1,) and count[0] >= 1, "count must have shape (1,) and be >= 1")
    return True


def _check_loss(loss: _D | None) -> None:
    need(loss is None or loss.shape == (1,), "loss must have shape (1,)")


def _margin(f: Sequence[float], yi: int) -> tuple[float, int]:
    """Step 1: (z, r); r = -1 for two classes."""
    if len(f) == 1:
        return (1.0 if yi == 1 else -1.0) * f[0], -1
    r, best = -1, 0.0
    for k, v in enumerate(f):
        if k != yi and (r < 0 or v > best):
            r, best = k, v
    return f[yi] - best, r


def _tau(lt: float, q: float, extra: float, cap: float, squared: bool) -> float:
    """Step 4: PA-II lt / (q + extra); PA and PA-I min(cap, lt / q) as ``cap if not t < cap``
    (lt: the loss, the paper's l_t)."""
    if squared:
        return lt / (q + extra)
    t = lt / q
    return t if t < cap else cap


def _ldexp(x: float, e: int) -> float:
    """C's ldexp: +-inf on overflow (Python's raises)."""
    try:
        return math.ldexp(x, e)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


class _Duals:
    """One call's coefficients as Python lists (steps 2-5); ``store`` writes them back."""

    def __init__(self, alpha: _D, b: _D | None, u: _D | None, beta: _D | None,
                 count: _I64 | None, weight: _D | None, fit_intercept: bool) -> None:
        self.al: list[list[float]] = alpha.tolist()
        self.bl: list[float] | None = None if b is None else b.tolist()
        self.ul: list[list[float]] | None = None if u is None else u.tolist()
        self.betal: list[float] | None = None if beta is None else beta.tolist()
        self.c = 0 if count is None else int(count[0])
        self.wl: list[float] | None = None if weight is None else weight.tolist()
        self.fi = fit_intercept
        self.total = 0.0
        self.steps = 0

    def step(self, i: int, yi: int, z: float, r: int, q: float, extra: float, cap: float,
             squared: bool) -> _Step:
        """Steps 2-5 for example i at margin z; (step, row that gains it, row that loses it
        or -1), or None when no step is taken."""
        if not z < 1.0:
            return None
        lt = 1.0 - z
        self.total += lt
        return self.move(i, yi, lt, r, q, extra, cap, squared)

    def move(self, i: int, yi: int, lt: float, r: int, q: float, extra: float, cap: float,
             squared: bool) -> _Step:
        if not q > 0.0:
            return None
        tau = _tau(lt, q, extra, cap, squared)
        w = 1.0 if self.wl is None else self.wl[i]
        if r < 0:
            step, gain = (tau * (1.0 if yi == 1 else -1.0)) * w, 0
        else:
            step, gain = tau * w, yi
        self.steps += 1
        self._add(gain, r, i, step)
        return step, gain, r

    def _add(self, gain: int, lose: int, i: int, step: float) -> None:
        move(self.al, self.bl if self.fi else None, i, gain, lose, step)
        if self.ul is not None:
            move(self.ul, self.betal if self.fi else None, i, gain, lose, step * self.c)

    def store(self, alpha: _D, b: _D | None, u: _D | None, beta: _D | None,
              count: _I64 | None, loss: _D | None) -> None:
        alpha[:] = self.al
        if b is not None:
            assert self.bl is not None
            b[:] = self.bl
        if u is not None and count is not None:
            assert self.ul is not None
            u[:] = self.ul
            count[0] = self.c
        if beta is not None:
            assert self.betal is not None
            beta[:] = self.betal
        if loss is not None:
            loss[0] += self.total


def kpa_epoch_cached(G: _D, y: _I64, order: _I64, weight: _D | None, alpha: _D, b: _D,
                     scores: _D, C: float, squared: bool, fit_intercept: bool,
                     u: _D | None = None, beta: _D | None = None, count: _I64 | None = None,
                     loss: _D | None = None) -> int:
    """One epoch of the kernel PA on the pool's Gram G (steps 1-5): f_k(x_i) = scores[k, i]
    + b[k], and a step on i adds step * G[i, :] to the rows of ``scores`` it moves."""
    C = float(C)  # a C double in the other twin: numpy scalars would warn on overflow
    rows, n = _check_model(alpha, y, weight, C)
    need(G.shape == (n, n) and scores.shape == (rows, n) and b.shape == (rows,),
         "G (n, n), scores like alpha (R, n), b (R,)")
    need(all(0 <= i < n for i in order.tolist()), f"order must lie in [0, {n})")
    averaged = _check_avg(u, beta, count, alpha.shape, True)
    _check_loss(loss)
    st = _Duals(alpha, b, u, beta, count, weight, fit_intercept)
    assert st.bl is not None
    sc, yl, fi, extra = scores.tolist(), y.tolist(), 1.0 if fit_intercept else 0.0, 0.5 / C
    error = None
    for t, i in enumerate(order.tolist()):
        yi = yl[i]
        f = [sc[k][i] + st.bl[k] for k in range(rows)]
        if not all(math.isfinite(v) for v in f):
            error = non_finite(t, i)
            break
        z, r = _margin(f, yi)
        kd = float(G[i, i]) + fi
        done = st.step(i, yi, z, r, kd if r < 0 else 2.0 * kd, extra, C, squared)
        if done is not None:
            step, gain, lose = done
            gi = G[i].tolist()
            sg = sc[gain]
            for j in range(n):
                sg[j] += step * gi[j]
            if lose >= 0:
                sl = sc[lose]
                for j in range(n):
                    sl[j] -= step * gi[j]
        if averaged:
            st.c += 1
    st.store(alpha, b, u, beta, count, loss)
    scores[:] = sc
    return result(st.steps, error)


def kpa_epoch_rows(Krows: _D, rows: _I64, y: _I64, weight: _D | None, alpha: _D, b: _D,
                   C: float, squared: bool, fit_intercept: bool, u: _D | None = None,
                   beta: _D | None = None, count: _I64 | None = None,
                   loss: _D | None = None) -> int:
    """The kernel PA over the visited examples ``rows`` (in that order), each scored afresh
    from its kernel row Krows[t] = K(x_rows[t], pool): f_k = 4-lane sum + b[k]."""
    C = float(C)  # a C double in the other twin: numpy scalars would warn on overflow
    n_rows, n = _check_model(alpha, y, weight, C)
    check_rows(rows, n, Krows.shape[0], Krows.shape[1])
    need(b.shape == (n_rows,), "b must have shape (R,)")
    averaged = _check_avg(u, beta, count, alpha.shape, True)
    _check_loss(loss)
    st = _Duals(alpha, b, u, beta, count, weight, fit_intercept)
    assert st.bl is not None
    yl, fi, extra = y.tolist(), 1.0 if fit_intercept else 0.0, 0.5 / C
    error = None
    for t, i in enumerate(rows.tolist()):
        yi = yl[i]
        kr = Krows[t].tolist()
        f = [dot4(st.al[k], kr) + st.bl[k] for k in range(n_rows)]
        if not all(math.isfinite(v) for v in f):
            error = non_finite(t, i)
            break
        z, r = _margin(f, yi)
        kd = kr[i] + fi
        st.step(i, yi, z, r, kd if r < 0 else 2.0 * kd, extra, C, squared)
        if averaged:
            st.c += 1
    st.store(alpha, b, u, beta, count, loss)
    return result(st.steps, error)


# ------------------------------------------------------------------- the conjunction kernel

def _check_exponents(E: _I32, ediag: _I32, coef: _D) -> int:
    """The largest entry of ediag, after checking 0 <= E[t, j] <= ediag[j] <= MAX_EXPONENT
    and that every coefficient is finite."""
    n = coef.shape[1]
    need(ediag.shape == (n,), "ediag must have one entry per pool example")
    need(E.ndim == 2 and E.shape[1] == n, "E must have one column per pool example")
    dl = ediag.tolist()
    need(all(0 <= d <= MAX_EXPONENT for d in dl), "ediag must lie in [0, 2^24]")
    need(all(0 <= e <= d for row in E.tolist() for e, d in zip(row, dl)),
         "exponents E must lie in [0, ediag]: popcount(x AND x_j) <= popcount(x_j)")
    need(all(math.isfinite(v) for v in coef.ravel().tolist()), "coefficients must be finite")
    return max(dl, default=0)


def _exact(al: list[list[float]], er: Sequence[int], dl: Sequence[int], fi: bool,
           shift0: int) -> list[int]:
    """2^shift0 f_k for every row k, exactly: the sum over j of a[k][j] (2^(er[j] - dl[j])
    + [fi] 2^(-dl[j])); shift0 >= 1074 + max(dl) makes every term an integer."""
    out = []
    for ak in al:
        total = 0
        for a, e, d in zip(ak, er, dl):
            if a:
                num, den = a.as_integer_ratio()
                z = shift0 - d - (den.bit_length() - 1)
                total += num << (z + e)
                if fi:
                    total += num << z
        out.append(total)
    return out


def _nearest(v: int, shift0: int) -> float:
    """The float64 nearest to v / 2^shift0 (ties to even); OverflowError beyond float64."""
    return v / (1 << shift0)


def kpa_conjunction_epoch_rows(Erows: _I32, rows: _I64, ediag: _I32, y: _I64,
                               weight: _D | None, alpha: _D, C: float, squared: bool,
                               fit_intercept: bool, u: _D | None = None,
                               count: _I64 | None = None, loss: _D | None = None) -> int:
    """`kpa_epoch_rows` for the conjunction kernel on scaled coefficients, exactly (module
    docstring): Erows[t, j] = popcount(x_rows[t] AND x_j), ediag[j] = popcount(x_j); alpha
    holds a (the coefficients times 2^ediag); b is implicit."""
    C = float(C)  # a C double in the other twin: numpy scalars would warn on overflow
    n_rows, n = _check_model(alpha, y, weight, C)
    check_rows(rows, n, Erows.shape[0], Erows.shape[1])
    averaged = _check_avg(u, None, count, alpha.shape, False)
    _check_loss(loss)
    shift0 = 1074 + _check_exponents(Erows, ediag, alpha)
    if averaged:
        assert u is not None
        need(all(math.isfinite(v) for v in u.ravel().tolist()), "u must be finite")
    dl, yl = ediag.tolist(), y.tolist()
    need(all(Erows[t, i] == dl[i] for t, i in enumerate(rows.tolist())),
         "Erows[t, rows[t]] must be ediag[rows[t]]")
    st = _Duals(alpha, None, u, None, count, weight, fit_intercept)
    one, error = 1 << shift0, None
    for t, i in enumerate(rows.tolist()):
        yi = yl[i]
        F = _exact(st.al, Erows[t].tolist(), dl, fit_intercept, shift0)
        if n_rows == 1:
            r, L = -1, one - (F[0] if yi == 1 else -F[0])
        else:
            r = max((k for k in range(n_rows) if k != yi), key=lambda k: (F[k], -k))
            L = one - F[yi] + F[r]
        if L > 0:
            try:
                lt = _nearest(L, shift0)
            except OverflowError:
                error = non_finite(t, i)
                break
            st.total += lt
            E = dl[i]
            q = (1.0 + math.ldexp(1.0, -E)) if fit_intercept else 1.0
            done = st.move(i, yi, lt, r, q if r < 0 else 2.0 * q, math.ldexp(0.5 / C, -E),
                           _ldexp(C, E), squared)
            if done is not None and not _finite_at(st, i):
                error = non_finite(t, i)
                break
        if averaged:
            st.c += 1
    st.store(alpha, None, u, None, count, loss)
    return result(st.steps, error)


def _finite_at(st: _Duals, i: int) -> bool:
    """Column i of a (and u) after a step: still finite?"""
    cols = [row[i] for row in st.al]
    if st.ul is not None:
        cols += [row[i] for row in st.ul]
    return all(math.isfinite(v) for v in cols)


def _check_decision(E: _I32, ediag: _I32, coef: _D, out_rows: int) -> int:
    need(coef.ndim == 2 and coef.shape[0] >= 1, "coef must have shape (R, n), R >= 1")
    need(out_rows == E.shape[0], "out must have one row per row of E")
    return 1074 + _check_exponents(E, ediag, coef)


def kpa_conjunction_decision(E: _I32, ediag: _I32, coef: _D, fit_intercept: bool,
                             out: _D) -> None:
    """out[t, k] = the float64 nearest to f_k(x_t) (exact sum, rounded once); beyond
    float64's range the largest finite float64 of its sign."""
    shift0 = _check_decision(E, ediag, coef, out.shape[0])
    need(out.ndim == 2 and out.shape[1] == coef.shape[0], "out must have shape (m, R)")
    cl, dl = coef.tolist(), ediag.tolist()
    res = []
    for er in E.tolist():
        row = []
        for v in _exact(cl, er, dl, fit_intercept, shift0):
            try:
                row.append(_nearest(v, shift0))
            except OverflowError:
                row.append(_MAX if v > 0 else -_MAX)
        res.append(row)
    if res:
        out[:] = res


def kpa_conjunction_predict(E: _I32, ediag: _I32, coef: _D, fit_intercept: bool,
                            out: _I64) -> None:
    """out[t] = the class index of x_t, decided exactly: two classes (one row) 1 where
    f_0 > 0, else 0; K classes the first k of the largest f_k."""
    shift0 = _check_decision(E, ediag, coef, out.shape[0])
    cl, dl = coef.tolist(), ediag.tolist()
    res = []
    for er in E.tolist():
        F = _exact(cl, er, dl, fit_intercept, shift0)
        if len(F) == 1:
            res.append(1 if F[0] > 0 else 0)
        else:
            res.append(max(range(len(F)), key=lambda k: (F[k], -k)))
    if res:
        out[:] = res
