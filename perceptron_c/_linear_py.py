"""Pure-Python twin of ``_linear_c``: the specification of every linear routine.

Each function mirrors the textbook pseudo-code step by step and works in place on the numpy
arrays it is given, exactly like its C twin of the same name and signature. Inputs are assumed
canonical (see ``_validation``): X C-contiguous float32/float64, CSR as (data, indices int32,
indptr int64), binary labels as float64 +1/-1, class labels as int64 indices, ``order`` an
int64 permutation, weights and biases float64, ``count`` an int64 array of shape (1,).

Arithmetic contract shared with the C twin (so the two agree bit for bit on any data):
- every sum over features is a "4-lane" sum: element k of the row goes to partial sum k % 4,
  and the result is (s0 + s1) + (s2 + s3); each product is formed in double precision;
- an update adds ``step * x[j]`` to each weight, with ``step`` computed once per mistake;
- the normalized step is ``y / sqrt(||x||^2)`` (``||(x, 1)||`` with an intercept), the
  squared norm being a 4-lane sum too; a row of norm 0 gets no update.
"""
import math

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


def _dot(values, columns, w):
    """4-lane sum of values[k] * w[columns[k]] (columns=None: dense, column k)."""
    s = [0.0, 0.0, 0.0, 0.0]
    if columns is None:
        for k, v in enumerate(values):
            s[k & 3] += v * w[k]
    else:
        for k, v in enumerate(values):
            s[k & 3] += v * w[columns[k]]
    return (s[0] + s[1]) + (s[2] + s[3])


def _sqnorm(values):
    s = [0.0, 0.0, 0.0, 0.0]
    for k, v in enumerate(values):
        s[k & 3] += v * v
    return (s[0] + s[1]) + (s[2] + s[3])


def _add(w, step, values, columns):
    """w[columns[k]] += step * values[k] (in order)."""
    if columns is None:
        for k, v in enumerate(values):
            w[k] += step * v
    else:
        for k, v in enumerate(values):
            w[columns[k]] += step * v


def _step_scale(values, fit_intercept, normalize):
    """Length of the update: 1, or 1/||x|| (1/||(x, 1)|| with an intercept) when normalizing."""
    if not normalize:
        return 1.0
    nrm2 = _sqnorm(values)
    if fit_intercept:
        nrm2 += 1.0
    if nrm2 == 0.0:
        return 0.0
    return 1.0 / math.sqrt(nrm2)


def _need(ok, what):
    if not ok:
        raise ValueError(what)


def _check_steps(steps, m):
    _need(steps is None or steps.shape[0] >= m,
          "steps must have room for one entry per visited example")


def _check_order(order, n_rows):
    _need(all(0 <= i < n_rows for i in order.tolist()),
          f"order must hold row indices in [0, {n_rows})")


def _check_csr(indptr, nnz, n_idx):
    p = indptr.tolist()
    ok = len(p) >= 1 and n_idx == nnz and p[0] == 0 and p[-1] == nnz
    _need(ok and all(p[t] <= p[t + 1] for t in range(len(p) - 1)),
          "indptr must be monotone from 0 to len(data), len(indices) == len(data)")


def _check_binary(n_rows, d, y, w, b, u=None, beta=None, count=None):
    _need(y.shape[0] == n_rows, "y must have one label per row")
    for ww, bb in ((w, b), (u, beta)) if u is not None else ((w, b),):
        _need(ww.shape[0] == d, "w must have one weight per feature")
        _need(bb.shape[0] == 1, "b must have shape (1,)")
    if count is not None:
        _need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")


def _check_multi(n_rows, d, y, W, b, U=None, beta=None, count=None):
    _need(y.shape[0] == n_rows, "y must have one label per row")
    for WW, bb in ((W, b), (U, beta)) if U is not None else ((W, b),):
        _need(WW.shape[1] == d, "W must have one column per feature")
        _need(bb.shape[0] == WW.shape[0] and WW.shape[0] >= 1,
              "b must have one entry per row of W")
    if U is not None:
        _need(U.shape[0] == W.shape[0], "U must have the shape of W")
        _need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    _need(all(0 <= v < W.shape[0] for v in y.tolist()),
          f"y must hold class indices in [0, {W.shape[0]})")


def _dense_rows(X):
    rows = X.tolist()
    return lambda i: (rows[i], None)


def _csr_rows(data, indices, indptr):
    d, ix, p = data.tolist(), indices.tolist(), indptr.tolist()
    return lambda i: (d[p[i]:p[i + 1]], ix[p[i]:p[i + 1]])


def _binary_epoch(row, y, order, w, b, u, beta, count, fit_intercept, normalize, steps=None):
    """Daume, A Course in ML, Alg. 5 (u is None) and Alg. 7 (lazy averaging), one epoch."""
    wl, bl = w.tolist(), float(b[0])
    averaged = u is not None
    if averaged:
        ul, betal, c = u.tolist(), float(beta[0]), int(count[0])
    yl = y.tolist()
    mistakes = 0
    recorded = []
    for t, i in enumerate(order.tolist()):
        x, cols = row(i)
        yi = yl[i]
        a = _dot(x, cols, wl) + bl  # activation w.x + b
        if yi * a <= 0.0:  # mistake (a = 0 counts, as in the book)
            recorded.append(t)
            mistakes += 1
            step = yi * _step_scale(x, fit_intercept, normalize)
            if step != 0.0:
                _add(wl, step, x, cols)  # w <- w + y x
                if fit_intercept:
                    bl += step  # b <- b + y
                if averaged:
                    cstep = step * c
                    _add(ul, cstep, x, cols)  # u <- u + y c x
                    if fit_intercept:
                        betal += cstep  # beta <- beta + y c
        if averaged:
            c += 1  # counts every example, mistake or not
    w[:] = wl
    b[0] = bl
    if averaged:
        u[:] = ul
        beta[0] = betal
        count[0] = c
    if steps is not None and recorded:
        steps[:len(recorded)] = recorded
    return mistakes


def _multiclass_epoch(row, y, order, W, b, U, beta, count, fit_intercept, normalize):
    """K-class (argmax) perceptron, one epoch (Ohio slides, "K-class perceptron").

    Scores s_k = W_k . x + b_k; prediction = the first k of maximal score. On a mistake the
    true class row gains the (scaled) example and the predicted row loses it. With U the
    lazy-averaging sums are kept as in the binary Alg. 7, one row per class.
    """
    Wl, bl = W.tolist(), b.tolist()
    averaged = U is not None
    if averaged:
        Ul, betal, c = U.tolist(), beta.tolist(), int(count[0])
    yl = y.tolist()
    n_classes = len(bl)
    mistakes = 0
    for i in order.tolist():
        x, cols = row(i)
        yi = yl[i]
        pred, best = 0, _dot(x, cols, Wl[0]) + bl[0]
        for k in range(1, n_classes):
            s = _dot(x, cols, Wl[k]) + bl[k]
            if s > best:  # strict: ties go to the lowest class index
                pred, best = k, s
        if pred != yi:
            mistakes += 1
            step = _step_scale(x, fit_intercept, normalize)
            if step != 0.0:
                _add(Wl[yi], step, x, cols)
                _add(Wl[pred], -step, x, cols)
                if fit_intercept:
                    bl[yi] += step
                    bl[pred] -= step
                if averaged:
                    cstep = step * c
                    _add(Ul[yi], cstep, x, cols)
                    _add(Ul[pred], -cstep, x, cols)
                    if fit_intercept:
                        betal[yi] += cstep
                        betal[pred] -= cstep
        if averaged:
            c += 1
    W[:] = Wl
    b[:] = bl
    if averaged:
        U[:] = Ul
        beta[:] = betal
        count[0] = c
    return mistakes


def perceptron_epoch_dense(X, y, order, w, b, fit_intercept, normalize, steps=None):
    """One epoch of the binary perceptron on dense rows; returns the number of mistakes.

    CIML ch. 4, Alg. 5 (PerceptronTrain), inner loop: a = w.x + b; if y*a <= 0 then
    w += y*x, b += y. With ``normalize`` the update is y*x/||x|| (CS269 lecture, section 2).
    ``steps`` (int64, room for len(order)) receives the position in ``order`` of each mistake,
    for the voted perceptron.
    """
    _check_binary(X.shape[0], X.shape[1], y, w, b)
    _check_order(order, X.shape[0])
    _check_steps(steps, order.shape[0])
    return _binary_epoch(_dense_rows(X), y, order, w, b, None, None, None,
                         fit_intercept, normalize, steps)


def perceptron_epoch_csr(data, indices, indptr, y, order, w, b, fit_intercept, normalize,
                         steps=None):
    """`perceptron_epoch_dense` on CSR rows (data, indices, indptr)."""
    _check_csr(indptr, data.shape[0], indices.shape[0])
    _check_binary(indptr.shape[0] - 1, w.shape[0], y, w, b)
    _check_order(order, indptr.shape[0] - 1)
    _check_steps(steps, order.shape[0])
    return _binary_epoch(_csr_rows(data, indices, indptr), y, order, w, b, None, None, None,
                         fit_intercept, normalize, steps)


def averaged_epoch_dense(X, y, order, w, b, u, beta, count, fit_intercept, normalize):
    """One epoch of the averaged perceptron, CIML ch. 4, Alg. 7 (lazy averaging).

    ``count`` holds the example counter c (1 before the first example). The averaged model
    after any number of epochs is (w - u/c, b - beta/c): the mean of the c weight vectors
    w_0 = 0, w_1, ..., w_{c-1} that the perceptron held after each example.
    """
    _check_binary(X.shape[0], X.shape[1], y, w, b, u, beta, count)
    _check_order(order, X.shape[0])
    return _binary_epoch(_dense_rows(X), y, order, w, b, u, beta, count,
                         fit_intercept, normalize)


def averaged_epoch_csr(data, indices, indptr, y, order, w, b, u, beta, count,
                       fit_intercept, normalize):
    """`averaged_epoch_dense` on CSR rows."""
    _check_csr(indptr, data.shape[0], indices.shape[0])
    _check_binary(indptr.shape[0] - 1, w.shape[0], y, w, b, u, beta, count)
    _check_order(order, indptr.shape[0] - 1)
    return _binary_epoch(_csr_rows(data, indices, indptr), y, order, w, b, u, beta, count,
                         fit_intercept, normalize)


def multiclass_epoch_dense(X, y, order, W, b, fit_intercept, normalize):
    """One epoch of the K-class argmax perceptron; W is (K, d), b is (K,), y class indices."""
    _check_multi(X.shape[0], X.shape[1], y, W, b)
    _check_order(order, X.shape[0])
    return _multiclass_epoch(_dense_rows(X), y, order, W, b, None, None, None,
                             fit_intercept, normalize)


def multiclass_epoch_csr(data, indices, indptr, y, order, W, b, fit_intercept, normalize):
    """`multiclass_epoch_dense` on CSR rows."""
    _check_csr(indptr, data.shape[0], indices.shape[0])
    _check_multi(indptr.shape[0] - 1, W.shape[1], y, W, b)
    _check_order(order, indptr.shape[0] - 1)
    return _multiclass_epoch(_csr_rows(data, indices, indptr), y, order, W, b, None, None, None,
                             fit_intercept, normalize)


def multiclass_averaged_epoch_dense(X, y, order, W, b, U, beta, count, fit_intercept, normalize):
    """K-class perceptron with lazy averaging (Alg. 7 applied to every class row)."""
    _check_multi(X.shape[0], X.shape[1], y, W, b, U, beta, count)
    _check_order(order, X.shape[0])
    return _multiclass_epoch(_dense_rows(X), y, order, W, b, U, beta, count,
                             fit_intercept, normalize)


def multiclass_averaged_epoch_csr(data, indices, indptr, y, order, W, b, U, beta, count,
                                  fit_intercept, normalize):
    """`multiclass_averaged_epoch_dense` on CSR rows."""
    _check_csr(indptr, data.shape[0], indices.shape[0])
    _check_multi(indptr.shape[0] - 1, W.shape[1], y, W, b, U, beta, count)
    _check_order(order, indptr.shape[0] - 1)
    return _multiclass_epoch(_csr_rows(data, indices, indptr), y, order, W, b, U, beta, count,
                             fit_intercept, normalize)


def _decision(row, n, W, b, out):
    Wl, bl = W.tolist(), b.tolist()
    res = []
    for i in range(n):
        x, cols = row(i)
        res.append([_dot(x, cols, Wl[k]) + bl[k] for k in range(len(bl))])
    if n:
        out[:] = res


def decision_dense(X, W, b, out):
    """out[i, k] = W_k . x_i + b_k (CIML ch. 4, Alg. 6 before the sign), in place."""
    _need(W.shape[1] == X.shape[1], "W must have one column per feature")
    _need(b.shape[0] == W.shape[0], "b must have one entry per row of W")
    _need(out.shape == (X.shape[0], W.shape[0]), "out must have shape (n_rows, n_classes)")
    _decision(_dense_rows(X), X.shape[0], W, b, out)


def decision_csr(data, indices, indptr, W, b, out):
    """`decision_dense` on CSR rows."""
    _check_csr(indptr, data.shape[0], indices.shape[0])
    _need(b.shape[0] == W.shape[0], "b must have one entry per row of W")
    _need(out.shape == (indptr.shape[0] - 1, W.shape[0]),
          "out must have shape (n_rows, n_classes)")
    _decision(_csr_rows(data, indices, indptr), indptr.shape[0] - 1, W, b, out)
