"""The linear routines on both twins: textbook cases, naive references, and C == Python.

The twins share one arithmetic contract (4-lane sums, one step per mistake), so they are
compared with np.array_equal on float data too, not only on integer data.
"""
import itertools

import numpy as np
import pytest
from conftest import to_csr

FLOATS = [np.float32, np.float64]
FLAGS = list(itertools.product([False, True], [False, True]))  # (fit_intercept, normalize)


def int_data(rng, n, d, density=1.0, dtype=np.float64):
    X = rng.integers(-3, 4, size=(n, d)).astype(dtype)
    X[rng.random((n, d)) > density] = 0
    return X


def signs(rng, n):
    return np.where(rng.random(n) < 0.5, -1.0, 1.0)


def binary_state(d, averaged):
    st = {"w": np.zeros(d), "b": np.zeros(1)}
    if averaged:
        st.update(u=np.zeros(d), beta=np.zeros(1), count=np.ones(1, dtype=np.int64))
    return st


def multi_state(k, d, averaged):
    st = {"W": np.zeros((k, d)), "b": np.zeros(k)}
    if averaged:
        st.update(U=np.zeros((k, d)), beta=np.zeros(k), count=np.ones(1, dtype=np.int64))
    return st


def run_binary(mod, X, y, order, st, fi, nz, sparse=False):
    head = to_csr(X) if sparse else (X,)
    kind = "csr" if sparse else "dense"
    if "u" in st:
        return getattr(mod, f"averaged_epoch_{kind}")(*head, y, order, st["w"], st["b"], st["u"],
                                                      st["beta"], st["count"], fi, nz)
    return getattr(mod, f"perceptron_epoch_{kind}")(*head, y, order, st["w"], st["b"], fi, nz)


def run_multi(mod, X, y, order, st, fi, nz, sparse=False):
    head = to_csr(X) if sparse else (X,)
    kind = "csr" if sparse else "dense"
    if "U" in st:
        return getattr(mod, f"multiclass_averaged_epoch_{kind}")(
            *head, y, order, st["W"], st["b"], st["U"], st["beta"], st["count"], fi, nz)
    return getattr(mod, f"multiclass_epoch_{kind}")(*head, y, order, st["W"], st["b"], fi, nz)


# ----------------------------------------------------------------------------- textbook cases
@pytest.mark.parametrize("sparse", [False, True])
def test_hand_traced_epoch(backend, sparse):
    # CIML Alg. 5 traced by hand: three mistakes (a = 0 counts), then a clean epoch.
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    y = np.array([1.0, -1.0, -1.0])
    order = np.arange(3, dtype=np.int64)
    st = binary_state(2, False)
    assert run_binary(backend, X, y, order, st, True, False, sparse) == 3
    assert st["w"].tolist() == [2.0, 0.0] and st["b"].tolist() == [-1.0]
    assert run_binary(backend, X, y, order, st, True, False, sparse) == 0
    assert st["w"].tolist() == [2.0, 0.0] and st["b"].tolist() == [-1.0]


def test_no_intercept_leaves_bias_alone(backend):
    X = np.array([[1.0, 2.0], [2.0, -1.0]])
    st = binary_state(2, True)
    run_binary(backend, X, np.array([1.0, -1.0]), np.arange(2, dtype=np.int64), st, False, False)
    assert st["b"][0] == 0.0 and st["beta"][0] == 0.0
    # row 1 (a = 0): w = (1, 2); row 2 (a = 1*2 + 2*(-1) = 0, a mistake): w = (1,2) - (2,-1)
    assert st["w"].tolist() == [-1.0, 3.0]


def test_visiting_order_is_followed(backend):
    X = np.array([[1.0, 1.0], [1.0, 0.0]])
    y = np.array([1.0, 1.0])
    st1, st2 = binary_state(2, False), binary_state(2, False)
    # order 0,1: w = (1, 1), then row 1 is right; order 1,0: w = (1, 0), then row 0 is right
    assert run_binary(backend, X, y, np.array([0, 1], dtype=np.int64), st1, False, False) == 1
    assert run_binary(backend, X, y, np.array([1, 0], dtype=np.int64), st2, False, False) == 1
    assert st1["w"].tolist() == [1.0, 1.0] and st2["w"].tolist() == [1.0, 0.0]


def test_order_may_repeat_and_skip_rows(backend):
    X = np.array([[1.0], [-1.0], [5.0]])
    y = np.array([1.0, -1.0, -1.0])
    st = binary_state(1, False)
    assert run_binary(backend, X, y, np.array([0, 0, 1], dtype=np.int64), st, False, False) == 1
    assert st["w"].tolist() == [1.0]


# ----------------------------------------------------------------------------- naive references
def naive_binary(X, y, order, epochs, fi, nz):
    """Perceptron written out with numpy, keeping every weight vector w_0, w_1, ..."""
    w, b = np.zeros(X.shape[1]), 0.0
    history = [(w.copy(), b)]
    for _ in range(epochs):
        for i in order:
            if y[i] * (X[i] @ w + b) <= 0:
                s = 1.0
                if nz:
                    n2 = X[i] @ X[i] + (1.0 if fi else 0.0)
                    s = 0.0 if n2 == 0 else 1.0 / np.sqrt(n2)
                w = w + y[i] * s * X[i]
                if fi:
                    b = b + y[i] * s
            history.append((w.copy(), b))
    return history


@pytest.mark.parametrize("fi", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_averaged_equals_naive_average(backend, rng, fi, sparse):
    # Alg. 7's lazy sums give the mean of w_0 .. w_{c-1}; c*w - u is that sum exactly.
    X = int_data(rng, 40, 6, density=0.6)
    y = signs(rng, 40)
    order = rng.permutation(40).astype(np.int64)
    st = binary_state(6, True)
    for _ in range(3):
        run_binary(backend, X, y, order, st, fi, False, sparse)
    history = naive_binary(X, y, order, 3, fi, False)
    c = st["count"][0]
    assert c == len(history) == 3 * 40 + 1
    w_sum = np.sum([h[0] for h in history], axis=0)
    b_sum = sum(h[1] for h in history)
    assert np.array_equal(c * st["w"] - st["u"], w_sum)  # integers: exact
    assert c * st["b"][0] - st["beta"][0] == b_sum
    assert np.allclose(st["w"] - st["u"] / c, w_sum / c, rtol=1e-13, atol=1e-13)
    assert np.array_equal(st["w"], history[-1][0])


@pytest.mark.parametrize("fi,nz", FLAGS)
def test_binary_matches_numpy_loop(backend, rng, fi, nz):
    X = int_data(rng, 60, 5)
    y = signs(rng, 60)
    order = rng.permutation(60).astype(np.int64)
    st = binary_state(5, False)
    for _ in range(2):
        run_binary(backend, X, y, order, st, fi, nz)
    w, b = naive_binary(X, y, order, 2, fi, nz)[-1]
    if nz:  # square roots: agree to rounding, not bit for bit with numpy's dot order
        assert np.allclose(st["w"], w, rtol=1e-12, atol=1e-12)
    else:
        assert np.array_equal(st["w"], w) and st["b"][0] == b


def naive_multiclass(X, y, order, k, epochs, fi):
    W, b = np.zeros((k, X.shape[1])), np.zeros(k)
    Wsum, bsum = W.copy(), b.copy()
    for _ in range(epochs):
        for i in order:
            p = int(np.argmax(W @ X[i] + b))
            if p != y[i]:
                W[y[i]] += X[i]
                W[p] -= X[i]
                if fi:
                    b[y[i]] += 1
                    b[p] -= 1
            Wsum += W
            bsum += b
    return W, b, Wsum, bsum


@pytest.mark.parametrize("fi", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_multiclass_matches_numpy_loop(backend, rng, fi, sparse):
    X = int_data(rng, 50, 7, density=0.7)
    y = rng.integers(0, 4, 50)
    order = rng.permutation(50).astype(np.int64)
    st = multi_state(4, 7, True)
    for _ in range(3):
        run_multi(backend, X, y, order, st, fi, False, sparse)
    W, b, Wsum, bsum = naive_multiclass(X, y, order, 4, 3, fi)
    assert np.array_equal(st["W"], W) and np.array_equal(st["b"], b)
    c = st["count"][0]
    # the lazy sums cover w_0 (zero) .. w_{c-1}: the numpy loop's running sums exactly
    assert np.array_equal(c * st["W"] - st["U"], Wsum)
    assert np.array_equal(c * st["b"] - st["beta"], bsum)


def test_multiclass_ties_go_to_lowest_class(backend):
    X = np.array([[1.0, 0.0]])
    st = multi_state(3, 2, False)
    assert run_multi(backend, X, np.array([0]), np.zeros(1, dtype=np.int64), st, True,
                     False) == 0  # all scores 0: prediction 0, correct
    assert run_multi(backend, X, np.array([2]), np.zeros(1, dtype=np.int64), st, True,
                     False) == 1
    assert st["W"].tolist() == [[-1.0, 0.0], [0.0, 0.0], [1.0, 0.0]]
    assert st["b"].tolist() == [-1.0, 0.0, 1.0]


def test_normalized_equals_plain_on_normalized_rows(backend, rng):
    # CS269 lecture, Theorem 2 proof sketch: same mistakes as the plain perceptron on x/||x||.
    X = rng.normal(size=(80, 6)) * rng.uniform(0.1, 50, size=(80, 1))
    y = np.sign(X @ rng.normal(size=6) + 0.3 * rng.normal(size=80))
    order = rng.permutation(80).astype(np.int64)
    a, bst = binary_state(6, False), binary_state(6, False)
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    ma = [run_binary(backend, X, y, order, a, False, True) for _ in range(5)]
    mb = [run_binary(backend, Xn, y, order, bst, False, False) for _ in range(5)]
    assert ma == mb
    assert np.allclose(a["w"], bst["w"], rtol=1e-9, atol=1e-12)


def test_normalized_skips_zero_rows(backend):
    X = np.array([[0.0, 0.0], [3.0, 4.0]])
    y = np.array([1.0, 1.0])
    st = binary_state(2, True)
    assert run_binary(backend, X, y, np.arange(2, dtype=np.int64), st, False, True) == 2
    assert st["w"].tolist() == [3 * (1 / 5), 4 * (1 / 5)]  # step 1/||x|| = 1/5, then step*x
    assert st["u"].tolist() == [3 * (2 / 5), 4 * (2 / 5)]  # c = 2 at the second example


def test_normalized_with_intercept_uses_augmented_norm(backend):
    X = np.array([[0.0, 0.0], [2.0, 2.0]])
    y = np.array([1.0, -1.0])
    st = binary_state(2, False)
    run_binary(backend, X, y, np.arange(2, dtype=np.int64), st, True, True)
    # row 0: ||(0,0,1)|| = 1 -> b = 1; row 1: a = 1 > 0 but y = -1 -> step = -1/3
    assert np.allclose(st["w"], [-2 / 3, -2 / 3]) and np.allclose(st["b"], [1 - 1 / 3])


# ----------------------------------------------------------------------------- decision values
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("sparse", [False, True])
def test_decision_values(backend, rng, dtype, sparse):
    X = int_data(rng, 30, 9, density=0.5, dtype=dtype)
    W = rng.integers(-5, 6, size=(3, 9)).astype(np.float64)
    b = rng.integers(-5, 6, size=3).astype(np.float64)
    out = np.empty((30, 3))
    if sparse:
        backend.decision_csr(*to_csr(X), W, b, out)
    else:
        backend.decision_dense(X, W, b, out)
    assert np.array_equal(out, X.astype(np.float64) @ W.T + b)


def test_decision_on_empty_input(backend):
    out = np.empty((0, 2))
    backend.decision_dense(np.zeros((0, 3)), np.zeros((2, 3)), np.zeros(2), out)
    backend.decision_csr(np.zeros(0), np.zeros(0, np.int32), np.zeros(1, np.int64),
                         np.zeros((2, 3)), np.zeros(2), out)


# ----------------------------------------------------------------------------- shape checks
def test_bad_shapes_raise(backend):
    X = np.zeros((3, 2))
    y = np.ones(3)
    order = np.arange(3, dtype=np.int64)
    with pytest.raises(ValueError, match="order"):
        backend.perceptron_epoch_dense(X, y, np.array([0, 3], dtype=np.int64), np.zeros(2),
                                       np.zeros(1), True, False)
    with pytest.raises(ValueError, match="order"):
        backend.perceptron_epoch_dense(X, y, np.array([-1], dtype=np.int64), np.zeros(2),
                                       np.zeros(1), True, False)
    with pytest.raises(ValueError, match="w must"):
        backend.perceptron_epoch_dense(X, y, order, np.zeros(3), np.zeros(1), True, False)
    with pytest.raises(ValueError, match="y must"):
        backend.perceptron_epoch_dense(X, np.ones(2), order, np.zeros(2), np.zeros(1), True,
                                       False)
    with pytest.raises(ValueError, match="class indices"):
        backend.multiclass_epoch_dense(X, np.array([0, 1, 2]), order, np.zeros((2, 2)),
                                       np.zeros(2), True, False)
    with pytest.raises(ValueError, match="indptr"):
        backend.perceptron_epoch_csr(np.ones(2), np.zeros(2, np.int32),
                                     np.array([0, 2, 1, 2], np.int64), y, order, np.zeros(2),
                                     np.zeros(1), True, False)
    with pytest.raises(ValueError, match="count"):
        backend.averaged_epoch_dense(X, y, order, np.zeros(2), np.zeros(1), np.zeros(2),
                                     np.zeros(1), np.zeros(1, np.int64), True, False)


# ----------------------------------------------------------------------------- C == Python
def _random_problem(rng, n, d, dtype, kind, density):
    if kind == "int":
        X = int_data(rng, n, d, density, dtype)
    else:
        X = (rng.normal(size=(n, d)) * (rng.random((n, d)) < density)).astype(dtype)
    w_true = rng.normal(size=d)
    y = np.sign(X.astype(np.float64) @ w_true + 0.5 * rng.normal(size=n))
    y[y == 0] = 1.0
    return X, y


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("kind", ["int", "float"])
@pytest.mark.parametrize("sparse", [False, True])
def test_twins_agree_binary(linear_twins, seed, dtype, kind, sparse):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(20, 200)), int(rng.integers(1, 40))
    X, y = _random_problem(rng, n, d, dtype, kind, density=0.3 if sparse else 1.0)
    for fi, nz in FLAGS:
        for averaged in (False, True):
            states, mistakes = [], []
            for mod in linear_twins:
                st = binary_state(d, averaged)
                r = np.random.default_rng(seed)
                m = [run_binary(mod, X, y, r.permutation(n).astype(np.int64), st, fi, nz,
                                sparse) for _ in range(3)]
                states.append(st)
                mistakes.append(m)
            assert mistakes[0] == mistakes[1]
            for key in states[0]:
                assert np.array_equal(states[0][key], states[1][key]), (key, fi, nz, averaged)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("sparse", [False, True])
def test_twins_agree_multiclass(linear_twins, seed, dtype, sparse):
    rng = np.random.default_rng(100 + seed)
    n, d, k = int(rng.integers(20, 150)), int(rng.integers(1, 30)), int(rng.integers(3, 7))
    X = (rng.normal(size=(n, d)) * (rng.random((n, d)) < (0.4 if sparse else 1.0))).astype(dtype)
    y = np.argmax(X.astype(np.float64) @ rng.normal(size=(d, k)) + rng.normal(size=(n, k)),
                  axis=1).astype(np.int64)
    for fi, nz in FLAGS:
        for averaged in (False, True):
            states, mistakes = [], []
            for mod in linear_twins:
                st = multi_state(k, d, averaged)
                order = np.random.default_rng(seed).permutation(n).astype(np.int64)
                mistakes.append([run_multi(mod, X, y, order, st, fi, nz, sparse)
                                 for _ in range(3)])
                states.append(st)
            assert mistakes[0] == mistakes[1]
            for key in states[0]:
                assert np.array_equal(states[0][key], states[1][key]), (key, fi, nz, averaged)
            outs = []
            for mod in linear_twins:
                out = np.empty((n, k))
                if sparse:
                    mod.decision_csr(*to_csr(X), states[0]["W"], states[0]["b"], out)
                else:
                    mod.decision_dense(X, states[0]["W"], states[0]["b"], out)
                outs.append(out)
            assert np.array_equal(outs[0], outs[1])


@pytest.mark.parametrize("sparse", [False, True])
def test_dense_and_csr_agree_on_integer_data(backend, rng, sparse):
    X = int_data(rng, 70, 12, density=0.4)
    y = signs(rng, 70)
    order = rng.permutation(70).astype(np.int64)
    a, b = binary_state(12, True), binary_state(12, True)
    ma = [run_binary(backend, X, y, order, a, True, False, False) for _ in range(3)]
    mb = [run_binary(backend, X, y, order, b, True, False, True) for _ in range(3)]
    assert ma == mb
    for key in a:
        assert np.array_equal(a[key], b[key])


def test_float32_and_float64_agree_on_integer_data(backend, rng):
    X = int_data(rng, 50, 8)
    y = signs(rng, 50)
    order = rng.permutation(50).astype(np.int64)
    a, b = binary_state(8, True), binary_state(8, True)
    run_binary(backend, X, y, order, a, True, False)
    run_binary(backend, X.astype(np.float32), y, order, b, True, False)
    for key in a:
        assert np.array_equal(a[key], b[key])


# ----------------------------------------------------------------------------- property test
hypothesis = pytest.importorskip("hypothesis")
from conftest import examples  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import arrays  # noqa: E402


@st.composite
def problems(draw):
    n = draw(st.integers(1, 12))
    d = draw(st.integers(1, 9))
    dtype = draw(st.sampled_from(FLOATS))
    elems = st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False, width=32)
    X = draw(arrays(dtype, (n, d), elements=elems))
    y = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    order = np.array(draw(st.lists(st.integers(0, n - 1), min_size=0, max_size=3 * n)),
                     dtype=np.int64)
    flags = draw(st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans()))
    return X, y, order, flags


def test_twins_agree_on_arbitrary_floats(linear_twins):
    @settings(max_examples=examples(150), deadline=None)
    @given(problems())
    def check(problem):
        agree(linear_twins, *problem)

    check()


def agree(linear_twins, X, y, order, flags):
    fi, nz, averaged, sparse = flags
    results = []
    for mod in linear_twins:
        state = binary_state(X.shape[1], averaged)
        m = run_binary(mod, X, y, order, state, fi, nz, sparse)
        results.append((m, state))
    assert results[0][0] == results[1][0]
    for key in results[0][1]:
        assert np.array_equal(results[0][1][key], results[1][1][key])


@pytest.mark.parametrize("averaged", [False, True])
def test_sample_weight_scales_each_update(backend, rng, averaged):
    """A weight multiplies its row's step: all weights 4 (a power of two, exact) give the
    unweighted model times 4 (its mistakes are the same: the decisions are scale-free);
    weight 0 makes a mistake that changes nothing."""
    X = rng.integers(-3, 4, size=(40, 5)).astype(np.float64)
    y = np.where(rng.random(40) < 0.5, -1.0, 1.0)
    order = rng.permutation(40).astype(np.int64)
    base, scaled = binary_state(5, averaged), binary_state(5, averaged)
    m1 = run_binary(backend, X, y, order, base, True, False)
    fn = backend.averaged_epoch_dense if averaged else backend.perceptron_epoch_dense
    extra = [scaled["u"], scaled["beta"], scaled["count"]] if averaged else []
    m2 = fn(X, y, order, scaled["w"], scaled["b"], *extra, True, False,
            sample_weight=np.full(40, 4.0))
    assert m1 == m2
    assert np.array_equal(scaled["w"], 4 * base["w"]) and np.array_equal(scaled["b"], 4 * base["b"])
    w, b = np.zeros(5), np.zeros(1)
    m3 = backend.perceptron_epoch_dense(X, y, order, w, b, True, False,
                                        sample_weight=np.zeros(40))
    assert m3 == 40 and not w.any() and not b.any()  # every row a mistake, no update


def test_sample_weight_is_checked(backend):
    X, y, w, b = np.eye(3), np.ones(3), np.zeros(3), np.zeros(1)
    order = np.arange(3, dtype=np.int64)
    for bad in (np.ones(2), np.array([1.0, np.nan, 1.0])):
        with pytest.raises(ValueError, match="sample_weight must hold one finite weight"):
            backend.perceptron_epoch_dense(X, y, order, w, b, True, False, sample_weight=bad)
