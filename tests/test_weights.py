"""Sample and class weights, n_jobs and the choice of arithmetic of `Perceptron`.

In the textbook's arithmetic a row's update is scaled by eta0 * (class weight * sample
weight), scikit-learn's product; a weight of 0 is exactly a removed row (never visited, so
no mistake, no update, no share of the average). Checked on both twins, bit for bit.
"""
import warnings

import numpy as np
import pytest

from perceptron_c import Perceptron

try:
    import scipy.sparse as sp
except ImportError:  # the numpy-only job
    sp = None


def blobs(rng, n=240, d=5, k=3):
    centers = rng.normal(scale=1.5, size=(k, d))
    y = rng.integers(0, k, n)
    return centers[y] + rng.normal(size=(n, d)), y


def same(a, b):
    assert np.array_equal(a.coef_, b.coef_) and np.array_equal(a.intercept_, b.intercept_)
    assert np.array_equal(a.mistakes_, b.mistakes_)


CONFIGS = [dict(), dict(average=True), dict(normalize=True), dict(multiclass="ovr"),
           dict(multiclass="ovr", average=True), dict(average=True, normalize=True)]


@pytest.mark.parametrize("params", CONFIGS)
@pytest.mark.parametrize("k", [2, 3])
def test_zero_weight_is_a_removed_row(model_backend, rng, params, k):
    X, y = blobs(rng, k=k)
    sw = rng.uniform(0.5, 2.0, y.shape[0])
    sw[rng.random(y.shape[0]) < 0.3] = 0.0
    keep = sw > 0
    kw = dict(shuffle=False, max_iter=7, **params)
    same(Perceptron(**kw).fit(X, y, sample_weight=sw),
         Perceptron(**kw).fit(X[keep], y[keep], sample_weight=sw[keep]))


@pytest.mark.parametrize("params", CONFIGS)
def test_a_uniform_weight_is_eta0(model_backend, rng, params):
    X, y = blobs(rng)
    kw = dict(random_state=3, max_iter=6, **params)
    same(Perceptron(**kw).fit(X, y, sample_weight=np.full(y.shape[0], 0.375)),
         Perceptron(eta0=0.375, **kw).fit(X, y))


@pytest.mark.parametrize("params", [dict(), dict(average=True), dict(normalize=True)])
@pytest.mark.parametrize("k", [2, 3])
def test_class_weight_is_a_per_class_sample_weight(model_backend, rng, params, k):
    """Binary and the joint argmax: class c's rows weigh class_weight[c]."""
    X, y = blobs(rng, k=k)
    cw = {0: 2.5, 1: 0.5}
    sw = np.array([cw.get(c, 1.0) for c in y])
    kw = dict(random_state=1, max_iter=5, **params)
    same(Perceptron(class_weight=cw, **kw).fit(X, y),
         Perceptron(**kw).fit(X, y, sample_weight=sw))


def test_one_vs_rest_weighs_each_classs_positives(model_backend, rng):
    """Perceptron k of one-vs-rest weighs class k's rows by class_weight[k], the others by 1
    (scikit-learn's rule): its weights are those of a binary fit with those sample weights."""
    X, y = blobs(rng, k=3)
    cw = {0: 3.0, 1: 0.25, 2: 1.5}
    ovr = Perceptron(multiclass="ovr", class_weight=cw, shuffle=False, max_iter=4).fit(X, y)
    for k in range(3):
        sw = np.where(y == k, cw[k], 1.0)
        binary = Perceptron(shuffle=False, max_iter=4).fit(X, (y == k).astype(int),
                                                          sample_weight=sw)
        # (a binary fit that stopped after an error-free epoch would change nothing more)
        assert np.array_equal(ovr.coef_[k], binary.coef_[0])
        assert ovr.intercept_[k] == binary.intercept_[0]


def test_balanced_is_n_over_k_counts(model_backend, rng):
    X, y = blobs(rng, n=300, k=3)
    y[:150] = 0  # imbalanced
    counts = np.bincount(y)
    cw = {c: 300 / (3 * counts[c]) for c in range(3)}
    kw = dict(random_state=0, max_iter=5)
    same(Perceptron(class_weight="balanced", **kw).fit(X, y),
         Perceptron(class_weight=cw, **kw).fit(X, y))


def test_labels_as_class_weight_keys(rng):
    X, y = blobs(rng, k=2)
    names = np.array(["no", "yes"])[y]
    a = Perceptron(class_weight={"yes": 4.0}, random_state=0, max_iter=3).fit(X, names)
    b = Perceptron(random_state=0, max_iter=3).fit(X, names,
                                                   sample_weight=np.where(y == 1, 4.0, 1.0))
    same(a, b)


@pytest.mark.parametrize("class_weight,message", [
    ({0: 1.0, 7: 2.0}, r"keys \[7\] are not among the classes"),
    ({0: -1.0}, "must be finite and >= 0"),
    ({0: float("inf")}, "must be finite and >= 0"),
    ({0: "2"}, "must be a number"),
    ([1.0, 2.0], "None, 'balanced' or a dict"),
    ("auto", "None, 'balanced' or a dict"),
])
def test_bad_class_weights(rng, class_weight, message):
    X, y = blobs(rng, k=3)
    with pytest.raises(ValueError, match=message):
        Perceptron(class_weight=class_weight).fit(X, y)


def test_extra_keys_are_ignored_when_every_class_is_named(rng):
    """scikit-learn's rule: unknown keys are an error only when some class is left out."""
    X, y = blobs(rng, k=2)
    a = Perceptron(class_weight={0: 2.0, 1: 1.0, 5: 9.0}, random_state=0).fit(X, y)
    b = Perceptron(class_weight={0: 2.0}, random_state=0).fit(X, y)
    same(a, b)


def test_bad_sample_weights(rng):
    X, y = blobs(rng)
    for sw, message in [(np.zeros(y.shape[0]), "every weight is zero"),
                        (np.ones(3), "shape"), (np.full(y.shape[0], np.nan), "finite")]:
        with pytest.raises(ValueError, match=message):
            Perceptron().fit(X, y, sample_weight=sw)
    with pytest.raises(ValueError, match="balanced"):
        Perceptron(class_weight="balanced").partial_fit(X, y, classes=[0, 1, 2])


def test_the_two_arithmetics(rng):
    X, y = blobs(rng)
    assert Perceptron()._spec() is None  # the textbook's
    assert Perceptron(tol=1e-3)._spec() is not None and Perceptron(penalty="l1")._spec()
    with pytest.raises(ValueError, match="normalize=True"):
        Perceptron(tol=1e-3, normalize=True).fit(X, y)
    with pytest.raises(ValueError, match="argmax"):
        Perceptron(penalty="l2", multiclass="argmax").fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = Perceptron(tol=1e-3, max_iter=3).fit(X, y)  # one-vs-rest
    assert m.coef_.shape == (3, 5)
    with pytest.raises(ValueError, match="cannot continue"):
        m.set_params(tol=None, average=True, warm_start=True).fit(X, y)
    for bad in (dict(eta0=0.0), dict(alpha=-1.0), dict(l1_ratio=1.5), dict(tol=-0.1),
                dict(penalty="l3"), dict(n_jobs=0), dict(n_jobs=1.5)):
        with pytest.raises(ValueError):
            Perceptron(**bad).fit(X, y)


@pytest.mark.parametrize("params", [dict(multiclass="ovr"), dict(multiclass="ovr",
                                                                  average=True),
                                    dict(tol=1e-3, penalty="l2")])
def test_n_jobs_gives_the_same_model(model_backend, rng, params):
    X, y = blobs(rng, n=300, k=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = Perceptron(n_jobs=None, random_state=2, max_iter=8, **params).fit(X, y)
        two = Perceptron(n_jobs=-1, random_state=2, max_iter=8, **params).fit(X, y)
    same(one, two)


def test_prediction_by_row_blocks_is_exact(rng):
    X, y = blobs(rng, n=20000, k=3)
    m = Perceptron(random_state=0, max_iter=3).fit(X, y)
    ref = m.decision_function(X)
    m.set_params(n_jobs=2)
    assert np.array_equal(m.decision_function(X), ref)
    if sp is not None:  # no zero entries: CSR rows sum in the dense rows' order
        assert np.array_equal(m.decision_function(sp.csr_matrix(X)), ref)


def test_coef_init_and_intercept_init(rng):
    X, y = blobs(rng, k=3)
    init = rng.normal(size=(3, 5))
    m = Perceptron(max_iter=1, shuffle=False).fit(X, y, coef_init=init, intercept_init=[1, 2, 3])
    ref = Perceptron(max_iter=1, shuffle=False)
    ref.fit(X, y)
    assert not np.array_equal(m.coef_, ref.coef_)
    with pytest.raises(ValueError, match=r"coef_init: expected shape \(3, 5\)"):
        Perceptron().fit(X, y, coef_init=np.zeros((2, 5)))
    with pytest.raises(ValueError, match="intercept_init must be finite"):
        Perceptron().fit(X, y, intercept_init=[0.0, np.inf, 0.0])
    Xb, yb = blobs(rng, k=2)
    a = Perceptron(max_iter=2, shuffle=False).fit(Xb, yb, coef_init=np.ones(5),
                                                  intercept_init=0.5)
    b = Perceptron(max_iter=2, shuffle=False).fit(Xb, yb, coef_init=np.ones((1, 5)),
                                                  intercept_init=[0.5])
    same(a, b)
