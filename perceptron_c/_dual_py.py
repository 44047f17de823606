"""Pure-Python twin of ``_dual_c``: the dual (kernel) perceptron routines, the specification.

The dual perceptron keeps one coefficient per training example instead of a weight vector:
alpha_i is the signed count of mistakes made on example i, and the activation of x is
f(x) = sum_j alpha_j K(x_j, x) + b (Ohio slides, "Kernel Perceptron: Two Classes"; Columbia
notes, section 2.3). With K(a, b) = a . b this is the primal perceptron exactly.

Everything here works on a "pool" of n examples (the training rows, possibly preceded by the
support vectors of an earlier call) and updates the coefficient arrays in place. Two ways to
get the kernel values, with the same mistakes:

- cached scores (``*_cached``): the whole Gram G of the pool is known; scores[i] = f(x_i) - b
  is kept for every pool example and a mistake on i adds y_i * G[i, :] to it (O(n) per
  mistake, Herbrich's cached-output trick);
- rows (``*_rows``): for a block of visited examples the caller passes their kernel rows
  Krows[t] = K(x_rows[t], pool) and each activation is computed afresh from alpha (O(n) per
  example, memory O(block * n)): the streaming mode when the Gram does not fit.

The conjunction kernel K(a, b) = 2^popcount(a AND b) exceeds float64 from 1024 common bits on,
and sums of such terms can cancel deeply. Its routines take the exponents E = popcount(a AND b)
(int32) and integer coefficients (int64), and decide every sign exactly: this twin with Python
integers, the C twin with coefficients bucketed by exponent and carried in base 2.

The binary routines can record where their mistakes happened: ``steps`` (int64, room for one
entry per visited example) receives the positions t of the mistakes in ``order``/``rows``,
from which the voted perceptron rebuilds its sequence of weight vectors.

Arithmetic contract for the float routines (shared with the C twin, so that they agree bit for
bit): f(x) in the rows mode is a 4-lane sum over the pool (element j into partial sum j % 4,
then (s0 + s1) + (s2 + s3)), plus b; a cached score changes by ``scores[j] += y * G[i, j]`` in
index order. Averaging is CIML ch. 4, Alg. 7 on the coefficients: u_i += y_i c, beta += y_i c
on a mistake, c += 1 after every example; the averaged coefficients are alpha - u / c.
"""

__all__ = [
    "dual_epoch_cached", "dual_epoch_rows", "multiclass_dual_epoch_cached",
    "multiclass_dual_epoch_rows", "conjunction_epoch_rows",
    "multiclass_conjunction_epoch_rows", "conjunction_decision", "conjunction_argmax",
]

_MAX = 1.7976931348623157e308  # the largest finite float64


def _need(ok, what):
    if not ok:
        raise ValueError(what)


def _check_rows(rows, n_pool, n_krows, n_kcols):
    _need(n_krows == len(rows), "Krows must have one row per entry of rows")
    _need(n_kcols == n_pool, "Krows must have one column per pool example")
    _need(all(0 <= i < n_pool for i in rows.tolist()), f"rows must lie in [0, {n_pool})")


def _check_avg(u, beta, count, shape_alpha, n_b):
    if u is None:
        _need(beta is None and count is None, "u, beta and count go together")
        return False
    _need(u.shape == shape_alpha, "u must have the shape of alpha")
    _need(beta.shape == (n_b,), "beta must have the shape of b")
    _need(count.shape == (1,) and count[0] >= 1, "count must have shape (1,) and be >= 1")
    return True


def _check_steps(steps, m):
    _need(steps is None or steps.shape[0] >= m,
          "steps must have room for one entry per visited example")


def _store_steps(steps, recorded):
    """Positions t (in order/rows) of this call's mistakes, for the voted perceptron."""
    if steps is not None and recorded:
        steps[:len(recorded)] = recorded


def _dot4(a, k):
    s = [0.0, 0.0, 0.0, 0.0]
    for j, v in enumerate(a):
        s[j & 3] += v * k[j]
    return (s[0] + s[1]) + (s[2] + s[3])


def dual_epoch_cached(G, y, order, alpha, b, scores, fit_intercept, u=None, beta=None,
                      count=None, steps=None):
    """One epoch of the binary kernel perceptron on a precomputed Gram; returns the mistakes.

    Ohio slides, kernel perceptron: if y_i (sum_j alpha_j K(x_j, x_i) + b) <= 0 then
    alpha_i += y_i (and b += y_i). ``scores`` holds sum_j alpha_j G[j, i] for every i.
    """
    _check_steps(steps, len(order))
    n = alpha.shape[0]
    _need(G.shape == (n, n) and scores.shape == (n,) and y.shape == (n,) and b.shape == (1,),
          "G must be (n, n) and y, scores (n,) for alpha of length n; b (1,)")
    _need(all(0 <= i < n for i in order.tolist()), f"order must lie in [0, {n})")
    averaged = _check_avg(u, beta, count, alpha.shape, 1)
    al, sc, yl, bias = alpha.tolist(), scores.tolist(), y.tolist(), float(b[0])
    if averaged:
        ul, betal, c = u.tolist(), float(beta[0]), int(count[0])
    mistakes = 0
    recorded = []
    for t, i in enumerate(order.tolist()):
        yi = yl[i]
        if yi * (sc[i] + bias) <= 0.0:
            recorded.append(t)
            mistakes += 1
            al[i] += yi
            gi = G[i].tolist()
            for j in range(n):
                sc[j] += yi * gi[j]
            if fit_intercept:
                bias += yi
            if averaged:
                ul[i] += yi * c
                if fit_intercept:
                    betal += yi * c
        if averaged:
            c += 1
    alpha[:] = al
    scores[:] = sc
    b[0] = bias
    if averaged:
        u[:] = ul
        beta[0] = betal
        count[0] = c
    _store_steps(steps, recorded)
    return mistakes


def multiclass_dual_epoch_cached(G, y, order, alpha, b, scores, fit_intercept, U=None,
                                 beta=None, count=None):
    """K-class kernel perceptron (Ohio slides, kernel K-class): argmax_k scores[k, i] + b_k,
    ties to the lowest k; on a mistake the true row gains example i, the predicted row loses."""
    k_classes, n = alpha.shape
    _need(G.shape == (n, n) and scores.shape == alpha.shape and y.shape == (n,)
          and b.shape == (k_classes,), "G (n, n), scores like alpha (K, n), y (n,), b (K,)")
    _need(all(0 <= i < n for i in order.tolist()), f"order must lie in [0, {n})")
    _need(all(0 <= v < k_classes for v in y.tolist()), f"y must lie in [0, {k_classes})")
    averaged = _check_avg(U, beta, count, alpha.shape, k_classes)
    al, sc, bl, yl = alpha.tolist(), scores.tolist(), b.tolist(), y.tolist()
    if averaged:
        ul, betal, c = U.tolist(), beta.tolist(), int(count[0])
    mistakes = 0
    for i in order.tolist():
        yi = yl[i]
        pred, best = 0, sc[0][i] + bl[0]
        for k in range(1, k_classes):
            s = sc[k][i] + bl[k]
            if s > best:
                pred, best = k, s
        if pred != yi:
            mistakes += 1
            al[yi][i] += 1.0
            al[pred][i] -= 1.0
            gi = G[i].tolist()
            st, sp = sc[yi], sc[pred]
            for j in range(n):
                st[j] += gi[j]
                sp[j] -= gi[j]
            if fit_intercept:
                bl[yi] += 1.0
                bl[pred] -= 1.0
            if averaged:
                ul[yi][i] += c
                ul[pred][i] -= c
                if fit_intercept:
                    betal[yi] += c
                    betal[pred] -= c
        if averaged:
            c += 1
    alpha[:] = al
    scores[:] = sc
    b[:] = bl
    if averaged:
        U[:] = ul
        beta[:] = betal
        count[0] = c
    return mistakes


def dual_epoch_rows(Krows, rows, y, alpha, b, fit_intercept, u=None, beta=None, count=None,
                    steps=None):
    """The binary kernel perceptron over the visited examples ``rows`` (in that order), each
    scored afresh against the current coefficients: f = sum_j alpha_j Krows[t, j] + b."""
    _check_steps(steps, len(rows))
    n = alpha.shape[0]
    _check_rows(rows, n, Krows.shape[0], Krows.shape[1])
    _need(y.shape == (n,) and b.shape == (1,), "y must have shape (n,) and b (1,)")
    averaged = _check_avg(u, beta, count, alpha.shape, 1)
    al, yl, bias = alpha.tolist(), y.tolist(), float(b[0])
    if averaged:
        ul, betal, c = u.tolist(), float(beta[0]), int(count[0])
    mistakes = 0
    recorded = []
    for t, i in enumerate(rows.tolist()):
        yi = yl[i]
        if yi * (_dot4(al, Krows[t].tolist()) + bias) <= 0.0:
            recorded.append(t)
            mistakes += 1
            al[i] += yi
            if fit_intercept:
                bias += yi
            if averaged:
                ul[i] += yi * c
                if fit_intercept:
                    betal += yi * c
        if averaged:
            c += 1
    alpha[:] = al
    b[0] = bias
    if averaged:
        u[:] = ul
        beta[0] = betal
        count[0] = c
    _store_steps(steps, recorded)
    return mistakes


def multiclass_dual_epoch_rows(Krows, rows, y, alpha, b, fit_intercept, U=None, beta=None,
                               count=None):
    """K-class form of `dual_epoch_rows`."""
    k_classes, n = alpha.shape
    _check_rows(rows, n, Krows.shape[0], Krows.shape[1])
    _need(y.shape == (n,) and b.shape == (k_classes,), "y must have shape (n,) and b (K,)")
    _need(all(0 <= v < k_classes for v in y.tolist()), f"y must lie in [0, {k_classes})")
    averaged = _check_avg(U, beta, count, alpha.shape, k_classes)
    al, bl, yl = alpha.tolist(), b.tolist(), y.tolist()
    if averaged:
        ul, betal, c = U.tolist(), beta.tolist(), int(count[0])
    mistakes = 0
    for t, i in enumerate(rows.tolist()):
        yi = yl[i]
        kr = Krows[t].tolist()
        pred, best = 0, _dot4(al[0], kr) + bl[0]
        for k in range(1, k_classes):
            s = _dot4(al[k], kr) + bl[k]
            if s > best:
                pred, best = k, s
        if pred != yi:
            mistakes += 1
            al[yi][i] += 1.0
            al[pred][i] -= 1.0
            if fit_intercept:
                bl[yi] += 1.0
                bl[pred] -= 1.0
            if averaged:
                ul[yi][i] += c
                ul[pred][i] -= c
                if fit_intercept:
                    betal[yi] += c
                    betal[pred] -= c
        if averaged:
            c += 1
    alpha[:] = al
    b[:] = bl
    if averaged:
        U[:] = ul
        beta[:] = betal
        count[0] = c
    return mistakes


def _exact(coefs, exps, bias):
    """sum_j coefs[j] * 2^exps[j] + bias as a Python integer (exact for any exponent)."""
    total = bias
    for a, e in zip(coefs, exps):
        if a:
            total += a << e
    return total


def conjunction_epoch_rows(Erows, rows, y, alpha, b, fit_intercept, u=None, beta=None,
                           count=None, steps=None):
    """`dual_epoch_rows` for the conjunction kernel with exact activations.

    Erows[t, j] = popcount(x_rows[t] AND x_j); alpha, b, u, beta are int64; y is +1/-1
    (float64, as everywhere). f = sum_j alpha_j 2^Erows[t, j] + b is formed exactly, so the
    mistake test y f <= 0 is exact at any bit count (Columbia notes, Claim 2.1 and 2.3).
    """
    _check_steps(steps, len(rows))
    n = alpha.shape[0]
    _check_rows(rows, n, Erows.shape[0], Erows.shape[1])
    _need(y.shape == (n,) and b.shape == (1,), "y must have shape (n,) and b (1,)")
    averaged = _check_avg(u, beta, count, alpha.shape, 1)
    al, yl, bias = alpha.tolist(), [int(v) for v in y.tolist()], int(b[0])
    if averaged:
        ul, betal, c = u.tolist(), int(beta[0]), int(count[0])
    mistakes = 0
    recorded = []
    for t, i in enumerate(rows.tolist()):
        yi = yl[i]
        if yi * _exact(al, Erows[t].tolist(), bias) <= 0:
            recorded.append(t)
            mistakes += 1
            al[i] += yi
            if fit_intercept:
                bias += yi
            if averaged:
                ul[i] += yi * c
                if fit_intercept:
                    betal += yi * c
        if averaged:
            c += 1
    alpha[:] = al
    b[0] = bias
    if averaged:
        u[:] = ul
        beta[0] = betal
        count[0] = c
    _store_steps(steps, recorded)
    return mistakes


def multiclass_conjunction_epoch_rows(Erows, rows, y, alpha, b, fit_intercept, U=None,
                                      beta=None, count=None):
    """K-class form of `conjunction_epoch_rows`: exact argmax, ties to the lowest class."""
    k_classes, n = alpha.shape
    _check_rows(rows, n, Erows.shape[0], Erows.shape[1])
    _need(y.shape == (n,) and b.shape == (k_classes,), "y must have shape (n,) and b (K,)")
    _need(all(0 <= v < k_classes for v in y.tolist()), f"y must lie in [0, {k_classes})")
    averaged = _check_avg(U, beta, count, alpha.shape, k_classes)
    al, bl, yl = alpha.tolist(), b.tolist(), y.tolist()
    if averaged:
        ul, betal, c = U.tolist(), beta.tolist(), int(count[0])
    mistakes = 0
    for t, i in enumerate(rows.tolist()):
        yi = yl[i]
        er = Erows[t].tolist()
        pred, best = 0, _exact(al[0], er, bl[0])
        for k in range(1, k_classes):
            s = _exact(al[k], er, bl[k])
            if s > best:
                pred, best = k, s
        if pred != yi:
            mistakes += 1
            al[yi][i] += 1
            al[pred][i] -= 1
            if fit_intercept:
                bl[yi] += 1
                bl[pred] -= 1
            if averaged:
                ul[yi][i] += c
                ul[pred][i] -= c
                if fit_intercept:
                    betal[yi] += c
                    betal[pred] -= c
        if averaged:
            c += 1
    alpha[:] = al
    b[:] = bl
    if averaged:
        U[:] = ul
        beta[:] = betal
        count[0] = c
    return mistakes


def _to_float(v):
    """Nearest float64 to the integer v; beyond float64's range, the largest finite float64
    of v's sign (never inf)."""
    try:
        return float(v)
    except OverflowError:
        return _MAX if v > 0 else -_MAX


def _check_decision(E, coef, b, out):
    _need(E.shape[1] == coef.shape[1], "E must have one column per coefficient")
    _need(b.shape == (coef.shape[0],), "b must have one entry per row of coef")
    _need(out.shape[0] == E.shape[0], "out must have one row per row of E")


def conjunction_decision(E, coef, b, out):
    """out[i, k] = float64 of sum_j coef[k, j] 2^E[i, j] + b[k], sign exact, clipped to the
    largest finite float64 beyond float64's range."""
    _check_decision(E, coef, b, out)
    _need(out.shape[1] == coef.shape[0], "out must have shape (n, K)")
    cl, bl = coef.tolist(), b.tolist()
    res = [[_to_float(_exact(ck, er, bk)) for ck, bk in zip(cl, bl)] for er in E.tolist()]
    if res:
        out[:] = res


def conjunction_argmax(E, coef, b, out):
    """out[i] = the first k maximizing sum_j coef[k, j] 2^E[i, j] + b[k], compared exactly."""
    _check_decision(E, coef, b, out)
    cl, bl = coef.tolist(), b.tolist()
    res = []
    for er in E.tolist():
        best_k, best = 0, _exact(cl[0], er, bl[0])
        for k in range(1, len(cl)):
            s = _exact(cl[k], er, bl[k])
            if s > best:
                best_k, best = k, s
        res.append(best_k)
    if res:
        out[:] = res
