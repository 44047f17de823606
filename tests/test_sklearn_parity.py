"""Drop-in parity with scikit-learn: the same code, our import, the same model.

Exact with scikit-learn 1.8 and 1.9, whose arithmetic the package follows; with 1.6 and 1.7
too but where sklearn_versions.py lists a difference (their tol rule leaves the penalty out,
so Perceptron with tol and a penalty both set is skipped there).

Compared on scikit-learn's bundled data sets (iris, wine, breast cancer, digits; standardized
where their scales differ), dense and CSR float64: ``coef_``, ``intercept_``, ``n_iter_`` and
``t_`` equal bit for bit (``np.array_equal``), for Perceptron in scikit-learn's arithmetic
(``tol`` or ``penalty`` set: every penalty, class and sample weights, eta0, tol, shuffle with
an integer random_state, binary and one-vs-rest, partial_fit, warm_start, coef_init), for
Perceptron(tol=None) in the textbook's arithmetic (dense data: the same weights; scikit-learn
only runs on after an error-free epoch, which changes nothing), and for both
passive-aggressive estimators. float32 input agrees to float32 precision only (scikit-learn
then computes in float32).
"""
import itertools
import warnings

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")
sp = pytest.importorskip("scipy.sparse")

import sklearn.linear_model as sk  # noqa: E402
from conftest import pad_to_blas_block  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_iris, load_wine  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn_versions import differs, fit_pa  # noqa: E402

import perceptron_c as pc  # noqa: E402

# The Python twins are tested equal to the C twins bit for bit elsewhere; on a pure install
# (or PERCEPTRON_C_NO_EXTENSIONS) every STRIDE-th configuration is compared here, in time.
STRIDE = 1 if pc.BACKEND == "c" else 16

pytestmark = [pytest.mark.filterwarnings("ignore::FutureWarning"),  # sklearn's PA: deprecated
              pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")]


def _sets():
    X, y = load_iris(return_X_y=True)
    yield "iris", X, y
    X, y = load_wine(return_X_y=True)
    yield "wine", StandardScaler().fit_transform(X), y
    X, y = load_breast_cancer(return_X_y=True)
    yield "cancer", StandardScaler().fit_transform(X), y
    X, y = load_digits(return_X_y=True)
    yield "digits", X[:400] / 16.0, y[:400]


SETS = list(_sets())


def same(a, b, n_iter=True):
    assert np.array_equal(a.coef_, b.coef_), np.abs(a.coef_ - b.coef_).max()
    assert np.array_equal(a.intercept_, b.intercept_)
    assert a.coef_.shape == b.coef_.shape and a.intercept_.shape == b.intercept_.shape
    if n_iter:
        assert a.n_iter_ == b.n_iter_ and a.t_ == b.t_


def _weights(y):
    return np.random.default_rng(0).uniform(0.2, 3.0, y.shape[0])


# every penalty x tol x shuffle x class weight x sample weight x eta0 x dense/CSR
GRID = list(itertools.product([None, "l2", "l1", "elasticnet"], [None, 1e-3], [False, True],
                              [None, "balanced", {0: 2.0}], [False, True], [1.0, 0.3],
                              [False, True]))


@pytest.mark.parametrize("both", [False, True], ids=["tol-or-penalty", "tol-and-penalty"])
@pytest.mark.parametrize("name,X,y", SETS, ids=[s[0] for s in SETS])
def test_perceptron_sklearn_arithmetic(name, X, y, both):
    """Split by whether tol and a penalty are both set: only then does the tol rule of
    scikit-learn before 1.8 (the loss without the penalty) stop after other epochs."""
    if both and (reason := differs("tol_rule_without_penalty")):
        pytest.skip(reason)
    checked = 0
    for penalty, tol, shuffle, cw, weighted, eta0, sparse in GRID[::STRIDE]:
        if penalty is None and tol is None:
            continue  # the textbook's arithmetic: test_perceptron_textbook_arithmetic
        if both != (penalty is not None and tol is not None):
            continue
        kw = dict(penalty=penalty, tol=tol, shuffle=shuffle, class_weight=cw, eta0=eta0,
                  random_state=7, max_iter=15, alpha=1e-3)
        Xi = sp.csr_matrix(X) if sparse else X
        sw = _weights(y) if weighted else None
        same(sk.Perceptron(**kw).fit(Xi, y, sample_weight=sw),
             pc.Perceptron(**kw).fit(Xi, y, sample_weight=sw))
        checked += 1
    assert checked == {(False, 1): 192, (True, 1): 144, (False, 16): 12, (True, 16): 9}[
        both, STRIDE]


@pytest.mark.parametrize("name,X,y", SETS, ids=[s[0] for s in SETS])
def test_perceptron_textbook_arithmetic(name, X, y):
    """tol=None, penalty=None: our textbook perceptron. On dense data, shuffle=False, its
    weights are scikit-learn's (its epochs after an error-free one change nothing); n_iter_
    differs (we stop there). On CSR data scikit-learn damps intercept updates by 0.01."""
    for cw, weighted, eta0 in itertools.product([None, "balanced", {1: 3.0}], [False, True],
                                                [1.0, 0.25]):
        kw = dict(tol=None, shuffle=False, class_weight=cw, eta0=eta0, max_iter=25)
        sw = _weights(y) if weighted else None
        ours = pc.Perceptron(multiclass="ovr", **kw).fit(X, y, sample_weight=sw)
        same(sk.Perceptron(**kw).fit(X, y, sample_weight=sw), ours, n_iter=False)


def test_shuffle_matches_with_an_integer_seed_and_a_randomstate():
    _, X, y = SETS[1]
    for rs in (0, 12345, 2**31 - 2):
        same(sk.Perceptron(random_state=rs, max_iter=8).fit(X, y),
             pc.Perceptron(tol=1e-3, random_state=rs, max_iter=8).fit(X, y))
    a, b = np.random.RandomState(3), np.random.RandomState(3)
    ska, pcb = sk.Perceptron(random_state=a, max_iter=5), pc.Perceptron(
        tol=1e-3, random_state=b, max_iter=5)
    for _ in range(3):  # a RandomState advances from call to call, the same way
        same(ska.fit(X, y), pcb.fit(X, y))


def test_partial_fit_warm_start_and_coef_init():
    _, X, y = SETS[0]
    classes = np.unique(y)
    kw = dict(penalty="l2", alpha=1e-3, random_state=1, tol=1e-3)
    a, b = sk.Perceptron(**kw), pc.Perceptron(**kw)
    for start in range(0, 150, 50):
        a.partial_fit(X[start:start + 50], y[start:start + 50], classes=classes)
        b.partial_fit(X[start:start + 50], y[start:start + 50], classes=classes)
        same(a, b, n_iter=False)
        assert a.t_ == b.t_
    kw = dict(kw, warm_start=True, max_iter=3)
    a, b = sk.Perceptron(**kw).fit(X, y), pc.Perceptron(**kw).fit(X, y)
    same(a.fit(X[::-1], y[::-1]), b.fit(X[::-1], y[::-1]))
    init = np.random.default_rng(2).normal(size=(3, 4))
    # (scikit-learn trains into the coef_init array it is given: each gets its own copy)
    same(sk.Perceptron(max_iter=4, random_state=0).fit(X, y, coef_init=init.copy(),
                                                       intercept_init=[1.0, 0.0, -1.0]),
         pc.Perceptron(tol=1e-3, max_iter=4).fit(X, y, coef_init=init.copy(),
                                                 intercept_init=[1.0, 0.0, -1.0]))


def test_averaged_perceptron_is_sgdclassifiers_asgd(blas_fuses):
    """average=True in scikit-learn's arithmetic: SGDClassifier(loss="perceptron", constant
    rate, average=True), the estimator scikit-learn offers for it."""
    if not blas_fuses:
        pytest.skip("scikit-learn's averaging depends on this machine's BLAS daxpy (conftest)")
    _, X, y = SETS[2]
    X = pad_to_blas_block(X)  # see conftest: scikit-learn's averaging calls BLAS daxpy
    for penalty, sparse in itertools.product([None, "l2", "l1"], [False, True]):
        Xi = sp.csr_matrix(X) if sparse else X
        theirs = sk.SGDClassifier(loss="perceptron", learning_rate="constant", eta0=1.0,
                                  penalty=penalty, alpha=1e-3, average=True, random_state=4,
                                  max_iter=10).fit(Xi, y)
        ours = pc.Perceptron(penalty=penalty, alpha=1e-3, average=True, tol=1e-3,
                             random_state=4, max_iter=10).fit(Xi, y)
        same(theirs, ours)


PA_GRID = [dict(), dict(loss="squared_hinge"), dict(C=0.1, average=True),
           dict(average=10, class_weight="balanced"), dict(tol=None, max_iter=20),
           dict(shuffle=False), dict(C=0.01, class_weight={0: 0.5})]


@pytest.mark.parametrize("name,X,y", SETS[:3], ids=[s[0] for s in SETS[:3]])
def test_passive_aggressive_classifier(name, X, y, blas_fuses):
    X = pad_to_blas_block(X)
    grid = list(itertools.product(PA_GRID, [False, True], [False, True]))
    for kw, sparse, weighted in grid[::max(1, STRIDE // 4)]:
        if kw.get("average") and not blas_fuses:
            continue
        Xi = sp.csr_matrix(X) if sparse else X
        ours = pc.PassiveAggressiveClassifier(random_state=3, **kw)
        if weighted:  # scikit-learn's PA through the SGD estimator it is (sklearn_versions)
            sw = _weights(y)
            same(fit_pa(sk.PassiveAggressiveClassifier(random_state=3, **kw), Xi, y, sw),
                 ours.fit(Xi, y, sample_weight=sw))
        else:
            same(sk.PassiveAggressiveClassifier(random_state=3, **kw).fit(Xi, y), ours.fit(Xi, y))


def test_passive_aggressive_regressor(blas_fuses):
    X, y = load_diabetes(return_X_y=True)
    X, y = pad_to_blas_block(StandardScaler().fit_transform(X)), y / 100.0
    grid = [dict(), dict(loss="squared_epsilon_insensitive"), dict(C=0.1, average=True),
            dict(epsilon=0.5, average=7), dict(tol=None, max_iter=10), dict(shuffle=False)]
    grid = list(itertools.product(grid, [False, True], [False, True]))
    for kw, sparse, weighted in grid[::max(1, STRIDE // 4)]:
        if kw.get("average") and not blas_fuses:
            continue
        Xi = sp.csr_matrix(X) if sparse else X
        if weighted:
            sw = _weights(y)
            a = fit_pa(sk.PassiveAggressiveRegressor(random_state=5, **kw), Xi, y, sw)
        else:
            sw = None
            a = sk.PassiveAggressiveRegressor(random_state=5, **kw).fit(Xi, y)
        b = pc.PassiveAggressiveRegressor(random_state=5, **kw).fit(Xi, y, sample_weight=sw)
        same(a, b)
        # the same weights; w.x is summed in another order than scikit-learn's BLAS
        assert np.allclose(a.predict(Xi), b.predict(Xi), rtol=1e-12, atol=1e-12)
    a, b = sk.PassiveAggressiveRegressor(random_state=0), pc.PassiveAggressiveRegressor(
        random_state=0)
    for start in range(0, 440, 110):
        rows = slice(start, start + 110)
        same(a.partial_fit(X[rows], y[rows]), b.partial_fit(X[rows], y[rows]), n_iter=False)


def test_float32_agrees_to_float32_precision():
    _, X, y = SETS[2]
    X32 = X.astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = sk.Perceptron(max_iter=5, random_state=0, penalty="l2").fit(X32, y)
    b = pc.Perceptron(max_iter=5, random_state=0, penalty="l2", tol=1e-3).fit(X32, y)
    scale = np.abs(a.coef_).max()
    assert np.abs(a.coef_ - b.coef_).max() <= 1e-4 * scale
    assert (a.predict(X32) == b.predict(X32)).mean() > 0.99


def test_same_code_runs_with_either_import():
    """The user's code of the issue, unchanged but for the import (two classes: with K
    classes and tol=None ours trains the textbook's joint argmax perceptron, one-vs-rest
    with multiclass="ovr")."""
    _, X, y = SETS[2]
    results = []
    for lib in (sk, pc):
        clf = lib.Perceptron(max_iter=100, tol=None, shuffle=False, penalty=None, alpha=1e-4,
                             l1_ratio=0.15, eta0=1.0, n_jobs=None, class_weight="balanced",
                             warm_start=False, early_stopping=False)
        clf.fit(X, y, sample_weight=np.ones(len(y)))
        results.append((clf.coef_, clf.predict(X), clf.score(X, y)))
        clf.sparsify()
        assert sp.issparse(clf.coef_) and np.array_equal(clf.predict(X), results[-1][1])
        clf.densify()
        assert isinstance(clf.coef_, np.ndarray)
    assert np.array_equal(results[0][0], results[1][0])
    assert np.array_equal(results[0][1], results[1][1]) and results[0][2] == results[1][2]
