"""Pure-Python twin of ``_voted_c``: the voted perceptron's prediction, the specification.

The voted perceptron ([Daume2017] section 4.6, eq. 4.17; [FreundSchapire1999]) keeps every
weight vector w_0 = 0, w_1, ..., w_K it passed through, each with its survival count c_k,
and predicts sign(sum_k c_k sign(w_k . x + b_k)). The vectors are not stored: w_k differs
from w_{k-1} by y x of the k-th mistake, so with the kernel values between the test point and
the mistaken examples, the activations are prefix sums:

    s_0 = 0,   s_k = s_{k-1} + y_k (K(x_{i_k}, x) + [fit_intercept]),

one kernel evaluation per stored mistake (K(a, b) = a . b for the primal perceptron).
``vote`` returns the vote sum_k c_k sign(s_k) (sign(0) = 0), not yet divided by sum_k c_k.

Arithmetic contract (shared with the C twin): s accumulates in mistake order, each step
adding ``sign[k] * (Kx[t, index[k]] + bias_step)``; the vote accumulates ``c_k * sign(s_k)``
in the same order. With the conjunction kernel the activations are exact integers. A float
activation that is not finite gives no sign: ``vote`` raises ``FloatingPointError`` naming
the row, after writing the rows before it.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ._contract import need

if TYPE_CHECKING:
    from ._contract import _D, _I64, _IE

__all__ = ["vote", "vote_conjunction"]


def _check(n_rows: int, n_cols: int, index: _I64, sign: _D, survival: _D, out: _D) -> None:
    n_mist = index.shape[0]
    need(sign.shape == (n_mist,), "sign must have one entry per mistake")
    need(survival.shape == (n_mist + 1,), "survival must have one count per weight vector "
         "(number of mistakes + 1)")
    need(out.shape == (n_rows,), "out must have one entry per row")
    need(all(0 <= j < n_cols for j in index.tolist()),
         f"index must lie in [0, {n_cols}) (the kernel columns)")
    need(all(v in (1.0, -1.0) for v in sign.tolist()), "sign must hold +1.0 or -1.0")
    need(all(v >= 0.0 and math.isfinite(v) for v in survival.tolist()),
         "survival must hold finite counts >= 0")


def _sign(v: float) -> int:
    return (v > 0) - (v < 0)


def vote(Kx: _D, index: _I64, sign: _D, survival: _D, bias_step: float, out: _D) -> None:
    """out[t] = sum_k survival[k] sign(s_k(x_t)) from the kernel values Kx[t, j] between test
    row t and stored example j; mistake k (1-based) is on example index[k-1] with label
    sign[k-1]; ``bias_step`` is 1.0 with an intercept (b moves by y per mistake), else 0.0."""
    _check(Kx.shape[0], Kx.shape[1], index, sign, survival, out)
    need(math.isfinite(bias_step), "bias_step must be finite")
    idx, sg, c = index.tolist(), sign.tolist(), survival.tolist()
    for t, row in enumerate(Kx.tolist()):
        s = 0.0
        v = c[0] * _sign(s)
        finite = True
        for k in range(len(idx)):
            s += sg[k] * (row[idx[k]] + bias_step)
            finite = finite and math.isfinite(s)
            v += c[k + 1] * _sign(s)
        if not finite:
            raise FloatingPointError(f"non-finite activation in the vote for row {t}: the "
                                     "kernel values overflow float64")
        out[t] = v


def vote_conjunction(E: _IE, index: _I64, sign: _D, survival: _D, fit_intercept: bool,
                     out: _D) -> None:
    """`vote` for the conjunction kernel: E[t, j] = popcount(x_t AND x_j) (int16 or int32), and
    s_k = s_{k-1} + y_k (2^E[t, index[k-1]] + [fit_intercept]) formed exactly."""
    _check(E.shape[0], E.shape[1], index, sign, survival, out)
    need(E.size == 0 or E.min() >= 0, "E must hold exponents >= 0")
    idx, c = index.tolist(), survival.tolist()
    sg = [int(v) for v in sign.tolist()]
    bias = 1 if fit_intercept else 0
    res = []
    for row in E.tolist():
        s = 0
        v = c[0] * _sign(s)
        for k in range(len(idx)):
            s += sg[k] * ((1 << row[idx[k]]) + bias)
            v += c[k + 1] * _sign(s)
        res.append(v)
    if res:
        out[:] = res
