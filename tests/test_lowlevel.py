"""The checked low-level API: same results as the routines, clear errors, never a crash."""
import numpy as np
import pytest
from test_linear_routines import to_csr

from perceptron_c import _backend, lowlevel
from perceptron_c import lowlevel as ll
from perceptron_c.lowlevel import _check_csr_args, _csr_matrix_parts


def test_same_result_as_the_routine(rng):
    X = rng.normal(size=(50, 7))
    y = np.where(rng.random(50) < 0.5, -1.0, 1.0)
    order = rng.permutation(50)
    w1, b1, w2, b2 = np.zeros(7), np.zeros(1), np.zeros(7), np.zeros(1)
    m1 = lowlevel.perceptron_epoch_csr(*to_csr(X), y, order, w1, b1)
    m2 = _backend.linear.perceptron_epoch_csr(*to_csr(X), y, order.astype(np.int64), w2, b2,
                                              True, False)
    assert m1 == m2 and np.array_equal(w1, w2) and np.array_equal(b1, b2)
    W, bb = np.zeros((3, 7)), np.zeros(3)
    U, beta, count = np.zeros((3, 7)), np.zeros(3), np.ones(1, np.int64)
    yk = rng.integers(0, 3, 50)
    lowlevel.multiclass_averaged_epoch_dense(X, yk, order, W, bb, U, beta, count)
    assert count[0] == 51
    out = lowlevel.decision_dense(X, W, bb)
    assert np.allclose(out, X @ W.T + bb)
    assert np.array_equal(lowlevel.decision_csr(*to_csr(X), W, bb), out)
    # into a caller's array, which is written in place and returned
    for fn, head in ((lowlevel.decision_dense, (X,)), (lowlevel.decision_csr, to_csr(X))):
        given = np.full((50, 3), np.nan)
        assert fn(*head, W, bb, given) is given and np.array_equal(given, out)
        with pytest.raises(ValueError, match="out must have shape"):
            fn(*head, W, bb, np.zeros((49, 3)))


def _call(name, **over):
    X = np.eye(4)
    args = dict(X=X, y=np.array([1.0, -1.0, 1.0, -1.0]), order=np.arange(4), w=np.zeros(4),
                b=np.zeros(1))
    args.update(over)
    return getattr(lowlevel, name)(**args)


@pytest.mark.parametrize("over,exc", [
    (dict(order=np.array([0, 4])), ValueError),
    (dict(order=np.array([-1])), ValueError),
    # floats were truncated to rows and a boolean mask read as rows 1, 0, 1, 0: both silent
    (dict(order=np.array([0.5, 1.7])), TypeError),
    (dict(order=np.array([True, False, True, False])), TypeError),
    (dict(w=np.zeros(3)), ValueError),
    (dict(w=np.zeros(4, dtype=np.float32)), TypeError),
    (dict(w=np.zeros(8)[::2]), ValueError),
    (dict(b=np.zeros(2)), ValueError),
    (dict(y=np.array([1.0, 0.0, 1.0, 1.0])), ValueError),
    (dict(y=np.ones(3)), ValueError),
    (dict(X=np.full((4, 4), np.nan)), ValueError),
    (dict(X=np.ones(4)), ValueError),
])
def test_bad_arguments_raise(over, exc):
    with pytest.raises(exc):
        _call("perceptron_epoch_dense", **over)


@pytest.mark.parametrize("order", [[], [3, 0, 2], np.array([1, 1], dtype=np.uint8)])
def test_integer_orders_accepted(order):
    """Any integer dtype, a list of ints, and an empty list (an epoch over no rows)."""
    assert _call("perceptron_epoch_dense", order=order) >= 0


def test_read_only_weights_rejected():
    w = np.zeros(4)
    w.setflags(write=False)
    with pytest.raises(ValueError, match="writeable"):
        _call("perceptron_epoch_dense", w=w)


@pytest.mark.parametrize("indices,indptr", [
    ([0, 9], [0, 1, 2]),
    ([0, -1], [0, 1, 2]),
    ([0, 1], [0, 2, 1]),
    ([0, 1], [1, 1, 2]),
    ([0, 1], [0, 1, 3]),
])
def test_malformed_csr_raises(indices, indptr):
    with pytest.raises(ValueError):
        lowlevel.perceptron_epoch_csr(np.ones(2), np.array(indices), np.array(indptr),
                                      np.ones(2), np.arange(2), np.zeros(4), np.zeros(1))
    with pytest.raises(ValueError):
        lowlevel.decision_csr(np.ones(2), np.array(indices), np.array(indptr), np.zeros((2, 4)),
                              np.zeros(2))


@pytest.mark.parametrize("name,k", [("perceptron_epoch_csr", 0), ("averaged_epoch_csr", 0),
                                    ("multiclass_epoch_csr", 2),
                                    ("multiclass_averaged_epoch_csr", 2)])
@pytest.mark.parametrize("weights", [np.float64(0.0), np.zeros(()), 0.0, np.zeros((2, 2, 2))])
def test_csr_weights_of_the_wrong_rank_are_refused(name, k, weights):
    """The CSR routines read n_features from the weights: a scalar or a 3-D array was an
    IndexError (or passed the check) instead of the documented ValueError or TypeError."""
    data, indices, indptr = np.ones(2), np.array([0, 1]), np.array([0, 1, 2])
    y = np.array([0, 1]) if k else np.array([1.0, -1.0])
    b = np.zeros(k or 1)
    avg = (np.zeros_like(np.asarray(weights)), np.zeros_like(b), np.ones(1, np.int64)) \
        if "averaged" in name else ()
    with pytest.raises((ValueError, TypeError), match="^w must|^W must"):
        getattr(lowlevel, name)(data, indices, indptr, y, np.arange(2), weights, b, *avg)


def test_random_garbage_never_crashes(rng):
    # A fuzz pass: random shapes, indices and labels; every call returns or raises.
    for _ in range(300):
        n, d = int(rng.integers(0, 5)), int(rng.integers(0, 5))
        nnz = int(rng.integers(0, 6))
        data = rng.normal(size=nnz)
        indices = rng.integers(-2, d + 2, nnz)
        indptr = np.sort(rng.integers(-1, nnz + 2, n + 1))
        y = rng.integers(-2, 3, n)
        order = rng.integers(-1, n + 1, int(rng.integers(0, 6)))
        W = np.zeros((int(rng.integers(0, 3)), d))
        try:
            lowlevel.multiclass_epoch_csr(data, indices, indptr, y, order, W,
                                          np.zeros(W.shape[0]))
        except (ValueError, TypeError):
            pass
        try:
            lowlevel.perceptron_epoch_csr(data, indices, indptr, y.astype(float), order,
                                          np.zeros(d), np.zeros(1))
        except (ValueError, TypeError):
            pass


def test_an_overflowing_epoch_raises_the_documented_error():
    # perceptron_c.lowlevel and the guide name FloatingPointError (once only _linear_py did)
    from perceptron_c import lowlevel as low

    assert "FloatingPointError" in low.__doc__
    X = np.array([[1e300, 1e300], [-1e300, 1e300], [1e300, -1e300]])
    y = np.array([1.0, -1.0, -1.0])
    w, b = np.zeros(2), np.zeros(1)
    with pytest.raises(FloatingPointError, match="position"):
        for _ in range(5):
            low.perceptron_epoch_dense(X, y, np.array([0, 1, 2, 0, 1, 2]), w, b)


@pytest.mark.parametrize("kind", ["csr_matrix", "csr_array"])
def test_csr_routines_take_a_scipy_matrix(kind):
    """Every CSR routine takes a scipy CSR matrix (or array) in place of its three arrays,
    with the same results, and through the gate without copying what has the right dtypes."""
    sp = pytest.importorskip("scipy.sparse")
    make = getattr(sp, kind, None)
    if make is None:
        pytest.skip(f"scipy has no {kind}")
    rng = np.random.default_rng(3)
    dense = rng.integers(-2, 3, size=(30, 6)).astype(np.float64)
    dense[rng.random(dense.shape) < 0.5] = 0.0
    X = make(dense)
    y = np.where(rng.random(30) < 0.5, -1.0, 1.0)
    yk = rng.integers(0, 3, size=30)
    order = rng.permutation(30)
    triple = (X.data, X.indices, X.indptr)
    for name, labels, shape, extra in (
            ("perceptron_epoch_csr", y, (6,), 0), ("averaged_epoch_csr", y, (6,), 3),
            ("multiclass_epoch_csr", yk, (3, 6), 0),
            ("multiclass_averaged_epoch_csr", yk, (3, 6), 3)):
        fn = getattr(ll, name)
        runs = []
        for rows in ((X,), triple):
            w, b = np.zeros(shape), np.zeros(shape[:-1] or (1,))
            state = (w, b) + ((np.zeros(shape), np.zeros(b.shape), np.ones(1, np.int64))
                              if extra else ())
            runs.append((fn(*rows, labels, order, *state), state))
        assert runs[0][0] == runs[1][0], name
        assert all(np.array_equal(a, b) for a, b in zip(runs[0][1], runs[1][1])), name
    W, b = rng.normal(size=(2, 6)), rng.normal(size=2)
    assert np.array_equal(ll.decision_csr(X, W, b), ll.decision_csr(*triple, W, b))
    data, indices, _ = _csr_matrix_parts(X, 6)
    P = _check_csr_args(data, indices, X.indptr, 6, True)
    assert np.shares_memory(P.data, X.data) and np.shares_memory(P.indices, X.indices)
    with pytest.raises(ValueError, match="6 columns"):
        ll.decision_csr(make(dense[:, :5]), W, b)
    with pytest.raises(TypeError, match="tocsr"):
        ll.decision_csr(sp.csc_matrix(dense), W, b)
