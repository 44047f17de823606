"""VotedPerceptron: the prefix-sum vote equals a brute-force vote over explicit weight
vectors, the twins agree, training is the plain perceptron, and the early-stop credit."""
import pickle

import numpy as np
import pytest

import perceptron_c
from perceptron_c import KernelPerceptron, Perceptron, VotedPerceptron
from perceptron_c.kernels import RBF, Polynomial, unpack_bits

try:
    import scipy.sparse as sp
except ImportError:
    sp = None


def int_problem(rng, n=80, d=5, k=2, noise=0.5):
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    W = rng.normal(size=(d, k))
    if k == 2:
        return X, (X @ W[:, 0] + noise * rng.normal(size=n) > 0).astype(int)
    return X, np.argmax(X @ W + noise * rng.normal(size=(n, k)), axis=1)


def sv_dense(model):
    sv = model.support_vectors_
    if isinstance(sv, perceptron_c.kernels.PackedBits):
        return unpack_bits(*sv).astype(np.float64)
    if hasattr(sv, "indptr"):
        out = np.zeros(sv.shape)
        rows = np.repeat(np.arange(sv.shape[0]), np.diff(sv.indptr))
        out[rows, sv.indices] = sv.data
        return out
    return sv


def brute_force_votes(model, X, kernel=lambda A, B: A @ B.T):
    """Rebuild every weight vector of every machine explicitly and count the votes."""
    sv = sv_dense(model)
    K = kernel(X, sv)
    out = []
    for m in range(len(model._b)):
        idx, sg, surv = model._machine(m)
        surv = surv.copy()
        surv[-1] += model._credit[m]
        # activation of vector k on x: sum_{j<=k} sg_j (K(x, sv_idx_j) + 1[intercept])
        steps = sg[None, :] * (K[:, idx] + (1.0 if model.fit_intercept else 0.0))
        acts = np.concatenate([np.zeros((len(X), 1)), np.cumsum(steps, axis=1)], axis=1)
        out.append(np.sign(acts) @ surv / surv.sum())
    out = np.column_stack(out)
    return out[:, 0] if out.shape[1] == 1 else out


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_prefix_sum_vote_equals_brute_force(model_backend, rng, k, fit_intercept):
    X, y = int_problem(rng, 90, 5, k)
    m = VotedPerceptron(random_state=0, max_iter=4, fit_intercept=fit_intercept).fit(X, y)
    Xt = rng.integers(-3, 4, size=(40, 5)).astype(float)
    assert np.array_equal(m.decision_function(Xt), brute_force_votes(m, Xt))


def test_vectors_rebuilt_from_mistakes_are_the_perceptrons(rng):
    # the last vector w_K = sum of y x over the stored mistakes is the Perceptron's w
    X, y = int_problem(rng, 70, 4)
    v = VotedPerceptron(random_state=2, max_iter=6).fit(X, y)
    p = Perceptron(random_state=2, max_iter=6).fit(X, y)
    assert v.mistakes_.tolist() == p.mistakes_.tolist()
    idx, sg, surv = v._machine(0)
    assert np.array_equal(sg @ v.support_vectors_[idx], p.coef_[0])
    assert sg.sum() == p.intercept_[0]
    assert surv.sum() == len(X) * v.n_iter_  # every example credits exactly one vector
    assert len(surv) == v.n_mistakes_[0] + 1 == p.mistakes_.sum() + 1


def freund_schapire(X, y, orders, fit_intercept):
    """Freund & Schapire's training loop, verbatim: v_1 = 0, c_1 = 0; if right c_k += 1,
    else v_{k+1} = v_k + y x, c_{k+1} = 1. Returns the vectors, biases and counts."""
    v, bias, c = [np.zeros(X.shape[1])], [0.0], [0.0]
    for order in orders:
        for i in order:
            if y[i] * (v[-1] @ X[i] + bias[-1]) <= 0:
                v.append(v[-1] + y[i] * X[i])
                bias.append(bias[-1] + (y[i] if fit_intercept else 0.0))
                c.append(1.0)
            else:
                c[-1] += 1.0
    return np.array(v), np.array(bias), np.array(c)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_survival_counts_follow_freund_schapire(rng, fit_intercept):
    from perceptron_c._estimator._base import epoch_order

    X, y = int_problem(rng, 50, 4, noise=2.0)
    m = VotedPerceptron(random_state=4, max_iter=6, fit_intercept=fit_intercept).fit(X, y)
    assert not m.converged_
    orders = [epoch_order(m._seed, e, len(X), True) for e in range(6)]
    v, bias, c = freund_schapire(X, np.where(y == 1, 1.0, -1.0), orders, fit_intercept)
    idx, sg, surv = m._machine(0)
    assert np.array_equal(surv, c)
    assert np.array_equal(np.cumsum(sg[:, None] * m.support_vectors_[idx], axis=0), v[1:])
    Xt = rng.integers(-3, 4, size=(30, 4)).astype(float)
    votes = np.sign(Xt @ v.T + bias) @ c / c.sum()
    assert np.array_equal(m.decision_function(Xt), votes)


def test_early_stop_credit_goes_to_the_last_vector():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    y = [1, 1, 0, 0]
    m = VotedPerceptron(shuffle=False, max_iter=10).fit(X, y)
    assert m.converged_
    assert m._credit[0] == (10 - m.n_iter_) * 4
    assert m._machine(0)[2].sum() == 4 * m.n_iter_


def test_early_stop_credit_equals_running_all_epochs(rng):
    X = rng.normal(size=(60, 3))
    y = (X @ np.array([1.0, -2.0, 0.5]) > 0).astype(int)
    early = VotedPerceptron(random_state=0, max_iter=50).fit(X, y)
    assert early.converged_ and early.n_iter_ < 50
    # partial_fit runs every epoch (no early stop): the same votes after 50 epochs
    full = VotedPerceptron(random_state=0)
    for _ in range(50):
        full.partial_fit(X, y, classes=[0, 1])
    np.testing.assert_allclose(early.decision_function(X), full.decision_function(X),
                               rtol=1e-12)


def test_twins_agree(rng):
    from conftest import _module

    from perceptron_c import _backend

    _module("c", "_voted")
    X, y = int_problem(rng, 60, 4, 3)
    B = (rng.random((50, 70)) < 0.4).astype(np.uint8)
    for args, data in [({}, (X, y)), (dict(kernel="rbf", gamma=0.3), (X, y)),
                       (dict(kernel="poly", degree=2, max_gram_bytes=1), (X, y)),
                       (dict(kernel="conjunction"), (B, y[:50] % 2))]:
        out = []
        for name in ("c", "python"):
            with _backend.using(name):
                m = VotedPerceptron(random_state=0, max_iter=4, **args).fit(*data)
                out.append((m.mistakes_, m._m_index, m._m_sign, m._survival,
                            m.decision_function(data[0])))
        for a, b in zip(*out):
            assert np.array_equal(a, b)


@pytest.mark.parametrize("kernel", [RBF(gamma=0.4), Polynomial(degree=2)])
def test_kernel_vote_equals_brute_force(rng, kernel):
    X, y = int_problem(rng, 60, 3)
    X = X / 3
    for mgb in (10**9, 1):  # cached Gram and streamed rows give the same votes
        m = VotedPerceptron(kernel=kernel, random_state=0, max_iter=5,
                            max_gram_bytes=mgb).fit(X, y)
        np.testing.assert_allclose(m.decision_function(X), brute_force_votes(m, X, kernel),
                                   rtol=1e-12, atol=1e-12)
        kp = KernelPerceptron(kernel=kernel, random_state=0, max_iter=5).fit(X, y)
        assert m.mistakes_.tolist() == kp.mistakes_.tolist()


def test_conjunction_votes_exact_at_2048_bits(model_backend, rng):
    B = (rng.random((30, 2048)) < 0.5).astype(np.uint8)
    y = rng.integers(0, 2, 30)
    m = VotedPerceptron(kernel="conjunction", random_state=0, max_iter=3).fit(B, y)
    sv = unpack_bits(*m.support_vectors_).astype(bool)
    idx, sg, surv = m._machine(0)
    surv = surv + np.r_[np.zeros(len(surv) - 1), m._credit[0]]
    for x, d in zip(B.astype(bool), m.decision_function(B)):
        s, vote = 0, 0.0
        for k in range(len(idx)):
            s += int(sg[k]) * ((1 << int(np.count_nonzero(x & sv[idx[k]]))) + 1)
            vote += surv[k + 1] * ((s > 0) - (s < 0))
        assert d == pytest.approx(vote / surv.sum(), abs=1e-12)


def test_voted_beats_last_on_noisy_data(rng):
    X, y = int_problem(rng, 400, 10, noise=3.0)
    Xt, yt = X[300:], y[300:]
    v = VotedPerceptron(random_state=0, max_iter=10).fit(X[:300], y[:300])
    last = Perceptron(random_state=0, max_iter=10).fit(X[:300], y[:300])
    assert v.score(Xt, yt) >= last.score(Xt, yt) - 0.02
    assert np.all(np.abs(v.decision_function(Xt)) <= 1.0)


@pytest.mark.skipif(sp is None, reason="scipy not installed")
def test_sparse_equals_dense(rng):
    X, y = int_problem(rng, 80, 12)
    X[rng.random(X.shape) < 0.6] = 0
    a = VotedPerceptron(random_state=0, max_iter=5).fit(X, y)
    b = VotedPerceptron(random_state=0, max_iter=5).fit(sp.csr_matrix(X), y)
    assert np.array_equal(a.decision_function(X), b.decision_function(sp.csr_matrix(X)))
    assert np.array_equal(a.decision_function(X), b.decision_function(X))
    b.partial_fit(X, y)  # dense rows joining sparse support vectors
    a.partial_fit(X, y)
    assert np.array_equal(a.decision_function(X), b.decision_function(X))


@pytest.mark.parametrize("kernel", [None, "rbf", "conjunction"])
def test_save_load_pickle_partial_fit(tmp_path, rng, kernel):
    X = (rng.random((60, 20)) < 0.5).astype(float)
    y = np.array(["a", "b", "c"])[rng.integers(0, 3, 60)]
    m = VotedPerceptron(kernel=kernel, random_state=0, max_iter=3).fit(X, y)
    for m2 in (perceptron_c.load(m.save(tmp_path / "v.npz")), pickle.loads(pickle.dumps(m))):
        assert np.array_equal(m.decision_function(X), m2.decision_function(X))
        m2.partial_fit(X, y)
    m.partial_fit(X, y)
    assert np.array_equal(m.decision_function(X), m2.decision_function(X))
    assert np.array_equal(m.predict(X), m.classes_[np.argmax(m.decision_function(X), axis=1)])


@pytest.mark.parametrize("params,match", [
    (dict(kernel="precomputed"), "precomputed"),
    (dict(gamma=1.0), "need a kernel"),
    (dict(max_iter=0), "max_iter"),
    (dict(kernel="rbf", gamma=-1.0), "gamma"),
])
def test_bad_params(params, match):
    with pytest.raises(ValueError, match=match):
        VotedPerceptron(**params).fit(np.eye(3), [0, 1, 1])
