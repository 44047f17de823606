"""The passive-aggressive estimators: the paper's steps, both twins, weights, files, errors.

The steps are checked against Crammer et al. (JMLR 2006), Fig. 1, written out here in numpy
independently of the package; scikit-learn parity is in test_sklearn_parity.py.
"""
import warnings

import numpy as np
import pytest

from perceptron_c import (
    ConvergenceWarning,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    load,
)

try:
    import scipy.sparse as sp
except ImportError:  # the numpy-only job
    sp = None

needs_scipy = pytest.mark.skipif(sp is None, reason="scipy not installed")


def _data(rng, n=80, d=5):
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def _paper_epoch(X, y, C, variant, regression=False, eps=0.1):
    """One pass of Fig. 1 in index order, no intercept: w += tau * s * x with s = y
    (classification) or sign(y - w.x) (regression)."""
    w = np.zeros(X.shape[1])
    for x, target in zip(X, y):
        p = w @ x
        loss = max(0.0, abs(target - p) - eps) if regression else max(0.0, 1.0 - target * p)
        sq = x @ x
        if loss == 0.0 or sq == 0.0:
            continue
        tau = {"pa": loss / sq, "pa1": min(C, loss / sq), "pa2": loss / (sq + 0.5 / C)}[variant]
        w = w + tau * (np.sign(target - p) if regression else target) * x
    return w


@pytest.mark.parametrize("loss,C,variant", [("hinge", 0.05, "pa1"), ("squared_hinge", 0.05, "pa2"),
                                            ("hinge", np.inf, "pa"),
                                            ("squared_hinge", np.inf, "pa")])
def test_classifier_steps_are_the_papers(model_backend, rng, loss, C, variant):
    X, y = _data(rng)
    m = PassiveAggressiveClassifier(C=C, loss=loss, fit_intercept=False, shuffle=False,
                                    max_iter=1, tol=None).fit(X, y)
    assert np.allclose(m.coef_[0], _paper_epoch(X, y, C, variant), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("loss,C,variant", [("epsilon_insensitive", 0.2, "pa1"),
                                            ("squared_epsilon_insensitive", 0.2, "pa2"),
                                            ("epsilon_insensitive", np.inf, "pa")])
def test_regressor_steps_are_the_papers(model_backend, rng, loss, C, variant):
    X = rng.normal(size=(60, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.normal(size=60)
    m = PassiveAggressiveRegressor(C=C, loss=loss, epsilon=0.1, fit_intercept=False,
                                   shuffle=False, max_iter=1, tol=None).fit(X, y)
    assert m.coef_.shape == (4,) and m.intercept_.shape == (1,)
    assert np.allclose(m.coef_, _paper_epoch(X, y, C, variant, regression=True),
                       rtol=1e-12, atol=1e-12)


CONFIGS = [dict(), dict(loss="squared_hinge", C=0.3), dict(average=True),
           dict(average=7, class_weight="balanced"), dict(C=np.inf, early_stopping=True)]


@pytest.mark.parametrize("params", CONFIGS)
def test_twins_train_identical_classifiers(rng, params):
    from conftest import HAVE_C

    from perceptron_c import _backend

    if not HAVE_C:
        pytest.skip("the C core is not in use")
    centers = rng.normal(scale=2, size=(3, 6))
    y = rng.integers(0, 3, 150)
    X = centers[y] + rng.normal(size=(150, 6))
    sw = rng.uniform(0.5, 2, 150)
    for Xi in [X] + ([sp.csr_matrix(X)] if sp is not None else []):
        models = []
        for backend in ("c", "python"):
            with _backend.using(backend):
                models.append(PassiveAggressiveClassifier(random_state=4, max_iter=6, tol=None,
                                                          **params).fit(Xi, y, sample_weight=sw))
        a, b = models
        assert np.array_equal(a.coef_, b.coef_) and np.array_equal(a.intercept_, b.intercept_)
        assert np.array_equal(a.mistakes_, b.mistakes_) and a.n_iter_ == b.n_iter_


def test_twins_train_identical_regressors(rng):
    from conftest import HAVE_C

    from perceptron_c import _backend

    if not HAVE_C:
        pytest.skip("the C core is not in use")
    X = rng.normal(size=(120, 5))
    y = X @ rng.normal(size=5) + rng.normal(size=120)
    for params in (dict(), dict(loss="squared_epsilon_insensitive", average=3)):
        out = []
        for backend in ("c", "python"):
            with _backend.using(backend):
                out.append(PassiveAggressiveRegressor(random_state=1, max_iter=5, tol=None,
                                                      **params).fit(X, y).coef_)
        assert np.array_equal(*out)


def test_labels_of_any_type_and_partial_fit(rng):
    X, y = _data(rng, 120)
    names = np.where(y > 0, "spam", "ham")
    m = PassiveAggressiveClassifier(random_state=0).fit(X, names)
    assert list(m.classes_) == ["ham", "spam"] and set(m.predict(X)) <= {"ham", "spam"}
    p = PassiveAggressiveClassifier(random_state=0)
    for start in range(0, 120, 40):
        p.partial_fit(X[start:start + 40], names[start:start + 40], classes=["ham", "spam"])
    assert p.score(X, names) > 0.7
    with pytest.raises(ValueError, match="balanced"):
        PassiveAggressiveClassifier(class_weight="balanced").partial_fit(X, names,
                                                                         classes=["ham", "spam"])


def test_save_load_round_trip(rng, tmp_path):
    X, y = _data(rng)
    for m in (PassiveAggressiveClassifier(C=np.inf, average=True, random_state=2,
                                          class_weight={1: 2.0}).fit(X, y),
              PassiveAggressiveRegressor(loss="squared_epsilon_insensitive", random_state=2)
              .fit(X, X[:, 0])):
        back = load(m.save(tmp_path / f"{type(m).__name__}.npz"))
        assert type(back) is type(m) and back.get_params() == m.get_params()
        assert np.array_equal(back.coef_, m.coef_) and back.t_ == m.t_
        assert np.array_equal(back.predict(X), m.predict(X))
        m.partial_fit(X, y if back._estimator_type == "classifier" else X[:, 0])
        back.partial_fit(X, y if back._estimator_type == "classifier" else X[:, 0])
        assert np.array_equal(back.coef_, m.coef_)


def test_n_jobs_does_not_change_the_model(rng):
    centers = rng.normal(scale=2, size=(4, 6))
    y = rng.integers(0, 4, 400)
    X = centers[y] + rng.normal(size=(400, 6))
    one = PassiveAggressiveClassifier(random_state=0, n_jobs=1).fit(X, y)
    two = PassiveAggressiveClassifier(random_state=0, n_jobs=2).fit(X, y)
    assert np.array_equal(one.coef_, two.coef_) and one.n_iter_ == two.n_iter_
    assert np.array_equal(one.decision_function(X), two.decision_function(X))


def test_tol_none_runs_max_iter_and_tol_warns(rng):
    X, y = _data(rng)
    m = PassiveAggressiveClassifier(tol=None, max_iter=7, random_state=0).fit(X, y)
    assert m.n_iter_ == 7 and m.t_ == 1 + 7 * X.shape[0]
    with warnings.catch_warnings():  # 3 epochs cannot stall for n_iter_no_change=5
        warnings.simplefilter("error")
        with pytest.raises(ConvergenceWarning, match="max_iter=3"):
            PassiveAggressiveClassifier(max_iter=3, n_iter_no_change=5,
                                        random_state=0).fit(X, y)


@needs_scipy
def test_sparsify_keeps_predictions(rng):
    X, y = _data(rng)
    m = PassiveAggressiveClassifier(random_state=0).fit(X, y)
    before = m.decision_function(X)
    m.sparsify()
    assert sp.issparse(m.coef_) and np.array_equal(m.decision_function(X), before)
    assert isinstance(m.densify().coef_, np.ndarray)


@pytest.mark.parametrize("est,params,message", [
    (PassiveAggressiveClassifier, dict(C=0.0), "C must be"),
    (PassiveAggressiveClassifier, dict(C=-1.0), "C must be"),
    (PassiveAggressiveClassifier, dict(C=float("nan")), "C must be"),
    (PassiveAggressiveClassifier, dict(loss="epsilon_insensitive"), "loss must be"),
    (PassiveAggressiveClassifier, dict(average=0), "average must be"),
    (PassiveAggressiveClassifier, dict(average=-2), "average must be"),
    (PassiveAggressiveClassifier, dict(n_jobs=0), "n_jobs"),
    (PassiveAggressiveClassifier, dict(class_weight="even"), "class_weight"),
    (PassiveAggressiveClassifier, dict(class_weight={1: -1.0}), "class_weight"),
    (PassiveAggressiveClassifier, dict(tol=-1.0), "tol must be"),
    (PassiveAggressiveRegressor, dict(epsilon=-0.1), "epsilon must be"),
    (PassiveAggressiveRegressor, dict(loss="hinge"), "loss must be"),
])
def test_bad_parameters_are_clear_errors(rng, est, params, message):
    X, y = _data(rng, 30)
    with pytest.raises(ValueError, match=message):
        est(**params).fit(X, y)


def test_warm_start_needs_the_same_averaging(rng):
    X, y = _data(rng)
    m = PassiveAggressiveClassifier(random_state=0, max_iter=3, tol=None).fit(X, y)
    with pytest.raises(ValueError, match="average"):
        m.set_params(average=True).partial_fit(X, y)


def test_the_regressor_has_no_decision_function_and_the_classifier_has_one():
    # both stand on the linear models' base; a regressor's decision values are its predict,
    # as in scikit-learn, where duck-typing callers tell the two apart by this attribute
    for where in (PassiveAggressiveRegressor, PassiveAggressiveRegressor()):
        assert not hasattr(where, "decision_function")
    for where in (PassiveAggressiveClassifier, PassiveAggressiveClassifier()):
        assert hasattr(where, "decision_function")
