"""scikit-learn compatibility: its estimator checks, clone, Pipeline, GridSearchCV."""
import pytest

sklearn = pytest.importorskip("sklearn")

from sklearn.base import clone  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_digits  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402

from perceptron_c import KernelPerceptron, Perceptron, VotedPerceptron  # noqa: E402
from perceptron_c.kernels import RBF, Linear  # noqa: E402
from perceptron_c.testing import EXPECTED_FAILED_CHECKS  # noqa: E402

ESTIMATORS = [
    Perceptron(),
    Perceptron(average=True, multiclass="ovr", random_state=0),
    Perceptron(normalize=True, shuffle=False, fit_intercept=False),
    Perceptron(early_stopping=True, random_state=0),
    KernelPerceptron(),
    KernelPerceptron(kernel="linear", average=True, max_gram_bytes=1000),
    KernelPerceptron(kernel=Linear() + RBF(0.5)),
    KernelPerceptron(kernel="precomputed"),
    VotedPerceptron(),
    VotedPerceptron(kernel="poly", degree=2, max_gram_bytes=100),
]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_check_estimator(estimator):
    expected = EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})
    results = check_estimator(estimator, expected_failed_checks=expected, on_fail=None)
    failed = [(r["check_name"], repr(r["exception"])) for r in results
              if r["status"] == "failed"]
    assert not failed
    assert sum(r["status"] == "passed" for r in results) > 30


def test_expected_failures_have_reasons():
    for checks in EXPECTED_FAILED_CHECKS.values():
        for name, reason in checks.items():
            assert name.startswith("check_") and len(reason) > 20


def test_clone_pipeline_gridsearch():
    X, y = load_breast_cancer(return_X_y=True)
    est = Perceptron(average=True, random_state=0)
    c = clone(est)
    assert c.get_params() == est.get_params() and not hasattr(c, "coef_")
    pipe = make_pipeline(StandardScaler(), Perceptron(random_state=0))
    grid = GridSearchCV(pipe, {"perceptron__average": [False, True],
                               "perceptron__max_iter": [5, 20]}, cv=3)
    grid.fit(X, y)
    assert grid.best_score_ > 0.9
    assert set(grid.best_params_) == {"perceptron__average", "perceptron__max_iter"}


def test_digits_accuracy_is_sane():
    X, y = load_digits(return_X_y=True)
    m = Perceptron(average=True, random_state=0, max_iter=30).fit(X[:1200], y[:1200])
    assert m.score(X[1200:], y[1200:]) > 0.88
