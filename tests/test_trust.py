"""No silent wrong answer from float64 overflow: the routines stop on an activation that is
not finite (both twins alike), models roll back the epoch and raise a clear error, the
normalized perceptron learns from rows of any finite scale, and predict never turns an
overflowed decision into a class."""
import numpy as np
import pytest
from conftest import BACKENDS, _module, twin

from perceptron_c import KernelPerceptron, Perceptron, VotedPerceptron, _backend, lowlevel

HUGE = 1e300


def _overflowing_rows():
    """Rows whose products overflow: the second row meets weights grown by the first."""
    X = np.array([[HUGE, HUGE], [HUGE, -HUGE], [1.0, 2.0]])
    y = np.array([1.0, -1.0, 1.0])
    return X, y


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("averaged", [False, True])
def test_non_finite_activation_stops_the_epoch(name, averaged):
    lin = _module(name, "_linear")
    X = np.array([[1.0, 1.0], [np.finfo(float).max, np.finfo(float).max], [1.0, 0.0]])
    y = np.array([1.0, 1.0, -1.0])
    w, b = np.ones(2), np.zeros(1)
    args = (np.zeros(2), np.zeros(1), np.ones(1, np.int64)) if averaged else ()
    fn = lin.averaged_epoch_dense if averaged else lin.perceptron_epoch_dense
    with pytest.raises(FloatingPointError, match=r"position 1 of the visiting order \(row 1\)"):
        fn(X, y, np.arange(3, dtype=np.int64), w, b, *args, True, False)
    # the first example was handled (no mistake: w.x + b = 2 > 0), the state written back
    assert np.array_equal(w, [1.0, 1.0]) and np.array_equal(b, [0.0])
    if averaged:
        assert args[2][0] == 2


def test_twins_agree_on_the_error_path(linear_twins, rng):
    """Same exception, same message, same state left behind, on random data with a row that
    overflows half way through an epoch, for every routine kind."""
    C, P = linear_twins
    X = rng.normal(size=(40, 6))
    X[23] *= 1e307
    for kind in ("binary", "averaged", "multiclass"):
        outs = []
        for lin in (C, P):
            order = rng.permutation(40).astype(np.int64) if not outs else outs[0][0]
            if kind == "multiclass":
                st = [np.full((3, 6), 1e10), np.zeros(3)]
                yk = np.arange(40, dtype=np.int64) % 3
                call = lambda lin=lin, st=st, yk=yk, o=order: lin.multiclass_epoch_dense(  # noqa
                    X, yk, o, *st, True, False)
            else:
                st = [np.full(6, 1e10), np.zeros(1)]
                if kind == "averaged":
                    st += [np.zeros(6), np.zeros(1), np.ones(1, np.int64)]
                ys = np.where(np.arange(40) % 2 == 0, 1.0, -1.0)
                fn = lin.averaged_epoch_dense if kind == "averaged" else \
                    lin.perceptron_epoch_dense
                call = lambda fn=fn, st=st, ys=ys, o=order: fn(X, ys, o, *st, True, False)  # noqa
            with pytest.raises(FloatingPointError) as info:
                call()
            outs.append((order, str(info.value), st))
        assert outs[0][1] == outs[1][1]
        for a, b in zip(outs[0][2], outs[1][2]):
            assert np.array_equal(a, b), kind


@pytest.mark.parametrize("scale", [1e-300, 1e-170, 1e-155, 1.0, 1e150, 1e160, 1e300, 1e307])
def test_normalized_learns_at_every_scale(linear_twins, rng, scale):
    """x / ||x|| does not depend on the scale of x: the normalized perceptron makes the same
    mistakes on X * scale as on X (up to the rounding of the scaled rows)."""
    C, P = linear_twins
    X = rng.normal(size=(60, 5))
    y = np.where(X @ rng.normal(size=5) > 0, 1.0, -1.0)
    order = np.arange(60, dtype=np.int64)
    ref_w, ref_b = np.zeros(5), np.zeros(1)
    ref = C.perceptron_epoch_dense(X, y, order, ref_w, ref_b, False, True)
    for lin in (C, P):
        w, b = np.zeros(5), np.zeros(1)
        m = lin.perceptron_epoch_dense(X * scale, y, order, w, b, False, True)
        assert m == ref and m > 0
        np.testing.assert_allclose(w, ref_w, rtol=1e-12, atol=1e-300)
    # and the two twins agree bit for bit, with an intercept too
    for fi in (False, True):
        ws = [(np.zeros(5), np.zeros(1)) for _ in range(2)]
        ms = [lin.perceptron_epoch_dense(X * scale, y, order, *wb, fi, True)
              for lin, wb in zip((C, P), ws)]
        assert ms[0] == ms[1]
        assert all(np.array_equal(a, b) for a, b in zip(*ws))


def test_normalized_perceptron_fits_huge_rows(model_backend, rng):
    """Through the origin, x / ||x|| does not depend on the scale of x (an intercept would:
    ||(x, 1)|| weighs the constant 1 against x)."""
    X = rng.normal(size=(200, 4))
    y = (X @ np.array([1.0, -2.0, 0.5, 1.0]) > 0).astype(int)
    kw = dict(normalize=True, fit_intercept=False, random_state=0, max_iter=50)
    small = Perceptron(**kw).fit(X, y)
    for scale in (1e-305, 1e305):
        big = Perceptron(**kw).fit(X * scale, y)
        assert big.mistakes_.tolist() == small.mistakes_.tolist()
        assert big.mistakes_[-1] < big.mistakes_[0]  # it learns
        assert big.score(X * scale, y) == small.score(X, y)


@pytest.mark.parametrize("average", [False, True])
def test_overflow_in_fit_is_an_error_that_keeps_the_earlier_epochs(model_backend, average):
    X, _ = _overflowing_rows()
    y = np.array([1, 0, 1])
    model = Perceptron(average=average, shuffle=False, random_state=0)
    model.partial_fit(np.array([[1.0, 0.0], [0.0, 1.0]]), [1, 0], classes=[0, 1])
    before = {k: v.copy() for k, v in model._state.items()}
    coef = model.coef_.copy()
    with pytest.raises(ValueError, match=r"overflow in epoch 2 .*Scaling the input"):
        model.partial_fit(X, y)
    for key, value in before.items():
        assert np.array_equal(model._state[key], value), key
    assert np.array_equal(model.coef_, coef) and model.n_iter_ == 1
    assert np.isfinite(model.coef_).all()


def test_averaged_sum_overflow_is_caught_at_fit(model_backend):
    """u accumulates step * c * x: with rows near the top of float64 it overflows while w
    stays finite. That must be an error at fit, never a NaN coef_."""
    X = np.array([[1e308, 0.0], [-1e308, 0.0]] * 3)
    y = np.array([1, 0] * 3)
    with pytest.raises(ValueError, match="overflow"):
        Perceptron(average=True, shuffle=False, max_iter=5).fit(X, y)


def test_predict_never_invents_a_class(model_backend, rng):
    X = rng.normal(size=(50, 3))
    y = (X[:, 0] > 0).astype(int)
    model = Perceptron(random_state=0).fit(X, y)
    model.coef_[:] = [1e300, -1e300, 0.0]  # a model whose scores overflow on large input
    bad = np.array([[1e10, -1e10, 0.0], [0.1, 0.1, 0.1]])
    with pytest.raises(ValueError, match=r"row\(s\) \[0\] overflow float64"):
        model.predict(bad)
    with pytest.raises(ValueError, match="overflow float64"):
        model.decision_function(bad)


@pytest.mark.parametrize("name", BACKENDS)
def test_dual_routines_stop_on_non_finite_activations(name):
    dual = twin(name, "_dual", "_conjunction")
    G = np.full((2, 2), 1e308)
    y = np.array([1.0, 1.0])
    alpha, b, scores = np.zeros(2), np.zeros(1), np.array([1.7e308, 0.0])
    # the mistake on row 1 adds G[1] to every score: row 0's becomes inf
    with pytest.raises(FloatingPointError, match=r"position 1 of the visiting order \(row 0\)"):
        dual.dual_epoch_cached(G, y, np.array([1, 0], np.int64), alpha, b, scores, True)
    assert np.array_equal(alpha, [0.0, 1.0]) and b[0] == 1.0
    alpha = np.array([1.5, 1.5])
    with pytest.raises(FloatingPointError, match="position 0"):
        dual.dual_epoch_rows(G[:1].copy(), np.array([0], np.int64), y, alpha, np.zeros(1),
                             True)
    U, B = np.zeros((2, 2)), np.zeros(2)
    with pytest.raises(FloatingPointError, match="position 0"):
        dual.multiclass_dual_epoch_rows(G[:1].copy(), np.array([0], np.int64),
                                        np.array([0, 1], np.int64), np.full((2, 2), 1.5), B,
                                        True)
    with pytest.raises(FloatingPointError, match="position 0"):
        dual.multiclass_dual_epoch_cached(G, np.array([0, 1], np.int64),
                                          np.array([0], np.int64), np.zeros((2, 2)), B,
                                          np.full((2, 2), np.inf), True)
    assert not U.any()


def test_kernel_perceptron_overflow_is_a_clear_error(model_backend):
    """A (non-PSD) precomputed Gram whose scores overflow in the second epoch: the error
    names it, and both modes (cached scores, streamed rows) fail alike."""
    G = np.array([[0.0, 1e308], [1e308, 0.0]])
    for max_gram_bytes in (10**6, 8):
        with pytest.raises(ValueError, match="overflow in epoch 2"):
            KernelPerceptron(kernel="precomputed", shuffle=False,
                             max_gram_bytes=max_gram_bytes).fit(G, [1, 0])


def test_voted_prediction_refuses_overflowed_votes(model_backend, rng):
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    model = VotedPerceptron(random_state=0, max_iter=3).fit(X, y)
    with pytest.raises(ValueError, match="overflow float64"):
        model.predict(np.array([[1e308, 1e308, 1e308], [-1e308, 1e308, 0.0]]))


@pytest.mark.parametrize("name", BACKENDS)
def test_vote_checks_survival_counts(name):
    voted = _module(name, "_voted")
    Kx, out = np.zeros((2, 2)), np.zeros(2)
    index, sign = np.array([0], np.int64), np.array([1.0])
    for bad in ([np.nan, 1.0], [1.0, -1.0], [np.inf, 0.0]):
        with pytest.raises(ValueError, match="survival must hold finite counts"):
            voted.vote(Kx, index, sign, np.array(bad), 1.0, out)


def test_lowlevel_rejects_non_finite_input_and_reports_overflow():
    X, y = _overflowing_rows()
    with pytest.raises(ValueError, match="NaN or inf"):
        lowlevel.perceptron_epoch_dense(np.array([[np.inf, 0.0]]), [1.0], [0], np.zeros(2),
                                        np.zeros(1))
    with pytest.raises(FloatingPointError, match="non-finite activation"):
        for _ in range(3):
            lowlevel.perceptron_epoch_dense(X, y, np.arange(3), np.zeros(2), np.zeros(1))


def test_switching_twins_mid_fit_is_per_thread(rng):
    """Two threads fit the same data, one on each twin, at the same time: both models equal
    the ones fitted alone."""
    import threading

    if _backend.BACKEND != "c":
        pytest.skip("needs both twins")
    X = rng.normal(size=(300, 8))
    y = (X @ rng.normal(size=8) > 0).astype(int)
    alone = Perceptron(random_state=1, max_iter=5).fit(X, y).coef_
    results = {}

    def work(twin_name):
        with _backend.using(twin_name):
            results[twin_name] = Perceptron(random_state=1, max_iter=5).fit(X, y).coef_

    threads = [threading.Thread(target=work, args=(n,)) for n in ("python", "c")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert np.array_equal(results["c"], alone) and np.array_equal(results["python"], alone)


def test_rbf_gram_is_finite_and_right_for_huge_rows(model_backend):
    """||x||^2 overflows from |x| ~ 1e154: the norm expansion gave inf - inf = NaN."""
    from perceptron_c.kernels import RBF

    X = np.array([[1e200, 0.0], [1e200, 1.0], [-1e200, 0.0], [0.0, 0.0], [1e-300, 0.0]])
    K = RBF(gamma=0.5)(X)
    assert np.isfinite(K).all() and np.array_equal(K, K.T)
    assert np.isclose(K[0, 1], np.exp(-0.5), rtol=1e-14, atol=0)
    assert K[0, 2] == 0.0 and K[0, 3] == 0.0
    assert K[3, 4] == 1.0 and np.all(np.diag(K) == 1.0)
    near = np.array([[1e150, 1e150], [1e150, 1e150 + 2**450]])  # cancels in the expansion
    assert RBF(gamma=1.0)(near)[0, 1] == 0.0  # (2^450)^2 = 2^900: the value is exactly 0
    assert np.isclose(RBF(gamma=2.0**-900)(near)[0, 1], np.exp(-1.0), rtol=1e-14, atol=0)


def test_rbf_cached_and_streaming_modes_agree_on_huge_rows(model_backend, rng):
    X = rng.normal(size=(80, 3)) * np.array([1e200, 1.0, 1e-200])
    X[::7] *= -1
    y = (X[:, 1] > 0).astype(int)
    models = [KernelPerceptron(kernel="rbf", gamma=1.0, random_state=0, max_iter=10,
                               max_gram_bytes=mgb).fit(X, y) for mgb in (10**7, 2000)]
    assert models[0].mistakes_.tolist() == models[1].mistakes_.tolist()
    assert np.isfinite(models[0].decision_function(X)).all()
