"""A fitted kernel model predicts with the parameters it was trained with.

scikit-learn's rule: ``fit`` reads the parameters; ``set_params`` on a fitted model changes
the next ``fit`` only. Here for every kernel estimator (and the voted perceptron's
``fit_intercept``, whose vote rebuilds the biases): after ``set_params`` the predictions stay
bit for bit what they were, through model files, pickle and ``clone`` too; a new ``fit``
uses the new value; a continuing ``partial_fit`` / warm-started ``fit`` refuses a parameter
the state was trained with, as the linear models refuse a changed ``average``.
"""
import json
import pickle

import numpy as np
import pytest

import perceptron_c
from perceptron_c import BudgetKernelPerceptron, KernelPerceptron, VotedPerceptron
from perceptron_c.io import FileFormatError, read_npz
from perceptron_c.kernel_passive_aggressive import KernelPassiveAggressiveClassifier as KPA
from perceptron_c.kernels import RBF

CHANGED = "changed since the first fit"


def float_problem(k=2, n=150, d=3, seed=0):
    """XOR-like classes (a kernel's problem) on a few real-valued features."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] * X[:, 1] > 0).astype(int) if k == 2 else \
        np.digitize(X[:, 0] * X[:, 1], [-0.3, 0.3])
    return X, y


def bits_problem(n=120, n_bits=40, seed=1):
    rng = np.random.default_rng(seed)
    B = (rng.random((n, n_bits)) < 0.5).astype(np.uint8)
    y = (B[:, 0] & B[:, 3] | B[:, 5] & B[:, 7] & B[:, 9]).astype(int)
    return B, y


def iris():
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.load_iris(return_X_y=True)
    return (X - X.mean(axis=0)) / X.std(axis=0), y


# (estimator with the parameters it is fitted with, the parameters set after the fit, data)
CASES = {
    "kernel-rbf-gamma": (lambda: KernelPerceptron(kernel="rbf", gamma=0.5, max_iter=8),
                         {"gamma": 5.0}, float_problem),
    "kernel-poly": (lambda: KernelPerceptron(kernel="poly", degree=2, max_iter=8),
                    {"degree": 4, "coef0": 3.0}, float_problem),
    "kernel-rbf-to-linear": (lambda: KernelPerceptron(kernel="rbf", gamma=0.5, max_iter=8),
                             {"kernel": "linear", "gamma": None}, float_problem),
    "kernel-object-multiclass": (lambda: KernelPerceptron(kernel=RBF(0.5), max_iter=8),
                                 {"kernel": RBF(4.0)}, iris),
    "kernel-conjunction-average": (
        lambda: KernelPerceptron(kernel="conjunction", average=True, max_iter=8),
        {"average": False}, bits_problem),
    "voted-rbf-gamma": (lambda: VotedPerceptron(kernel="rbf", gamma=0.5, max_iter=5),
                        {"gamma": 5.0}, float_problem),
    "voted-rbf-fit-intercept": (lambda: VotedPerceptron(kernel="rbf", gamma=0.5, max_iter=5),
                                {"fit_intercept": False}, float_problem),
    "voted-conjunction-fit-intercept": (
        lambda: VotedPerceptron(kernel="conjunction", max_iter=5),
        {"fit_intercept": False}, bits_problem),
    "voted-primal-fit-intercept": (lambda: VotedPerceptron(max_iter=5),
                                   {"fit_intercept": False}, lambda: float_problem(k=3)),
    "voted-ovr-poly": (lambda: VotedPerceptron(kernel="poly", degree=2, max_iter=5),
                       {"degree": 3}, iris),
    "kpa-rbf-gamma": (lambda: KPA(kernel="rbf", gamma=0.5, tol=None, max_iter=5),
                      {"gamma": 5.0}, float_problem),
    "kpa-poly-multiclass": (lambda: KPA(kernel="poly", degree=2, tol=None, max_iter=5),
                            {"coef0": 4.0}, iris),
    "kpa-conjunction-fit-intercept": (
        lambda: KPA(kernel="conjunction", tol=None, max_iter=5),
        {"fit_intercept": False}, bits_problem),
    "kpa-rbf-average": (lambda: KPA(kernel="rbf", gamma=0.5, tol=None, max_iter=5),
                        {"average": True}, float_problem),
    "budget-rbf-gamma": (lambda: BudgetKernelPerceptron(kernel="rbf", gamma=0.5, budget=30,
                                                        max_iter=5),
                         {"gamma": 5.0}, float_problem),
    "budget-poly-multiclass": (
        lambda: BudgetKernelPerceptron(kernel="poly", degree=2, budget=20, max_iter=5),
        {"degree": 3}, iris),
    "budget-strategy-average": (
        lambda: BudgetKernelPerceptron(kernel="rbf", budget=20, strategy="forgetron",
                                       max_iter=5),
        {"strategy": "projectron", "average": True, "budget": 5}, float_problem),
    "budget-conjunction-average": (
        lambda: BudgetKernelPerceptron(kernel="conjunction", budget=25, average=True,
                                       max_iter=5),
        {"average": False}, bits_problem),
}


def fitted(case):
    make, change, data = CASES[case]
    X, y = data()
    return make().set_params(random_state=0).fit(X, y), change, X, y


def outputs(model, X, y):
    return model.decision_function(X), model.predict(X), model.score(X, y)


def assert_same_outputs(a, b):
    assert np.array_equal(a[0], b[0]) and a[0].dtype == b[0].dtype
    assert np.array_equal(a[1], b[1])
    assert a[2] == b[2]


@pytest.mark.parametrize("case", sorted(CASES))
def test_set_params_leaves_a_fitted_model_alone(model_backend, case):
    model, change, X, y = fitted(case)
    before = outputs(model, X, y)
    coef = model.__dict__.get("dual_coef_")
    model.set_params(**change)
    assert_same_outputs(outputs(model, X, y), before)
    if coef is not None:
        assert np.array_equal(model.dual_coef_, coef)
    # the new values are the model's parameters: the next fit uses them
    assert all(model.get_params()[k] == v for k, v in change.items())
    fresh = type(model)(**model.get_params()).fit(X, y)
    model.fit(X, y)
    assert_same_outputs(outputs(model, X, y), outputs(fresh, X, y))
    assert not np.array_equal(model.decision_function(X), before[0])


@pytest.mark.parametrize("case", sorted(CASES))
def test_model_files_pickle_and_clone_after_set_params(model_backend, tmp_path, case):
    model, change, X, y = fitted(case)
    before = outputs(model, X, y)
    plain = read_npz(model.save(tmp_path / "plain"), "model")
    assert "state/fit_params" not in plain  # unchanged parameters: the file is as before
    model.set_params(**change)
    path = model.save(tmp_path / "changed")
    stored = read_npz(path, "model")
    assert "state/fit_params" in stored  # the parameters it was trained with
    loaded = perceptron_c.load(path)
    assert loaded.get_params() == model.get_params()
    assert_same_outputs(outputs(loaded, X, y), before)
    again = read_npz(loaded.save(tmp_path / "again"), "model")  # the same file again
    assert stored.keys() == again.keys()
    assert all(stored[k].dtype == again[k].dtype and np.array_equal(stored[k], again[k])
               for k in stored)
    for key in plain:  # the state itself is what the unchanged model saved
        if key.startswith("state/"):
            assert np.array_equal(plain[key], stored[key]), key
    assert_same_outputs(outputs(pickle.loads(pickle.dumps(model)), X, y), before)
    # the loaded model continues to the same place as the original
    fresh = type(model)(**model.get_params()).fit(X, y)
    loaded.fit(X, y)
    assert_same_outputs(outputs(loaded, X, y), outputs(fresh, X, y))

    base = pytest.importorskip("sklearn.base")
    copy = base.clone(model)
    assert not hasattr(copy, "classes_")
    assert copy.get_params() == model.get_params()
    assert_same_outputs(outputs(copy.fit(X, y), X, y), outputs(fresh, X, y))


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_continuing_fit_refuses_a_changed_parameter(model_backend, case):
    model, change, X, y = fitted(case)
    before = outputs(model, X, y)
    model.set_params(**change)
    fixed = [k for k in change if k != "budget"]  # a budget may grow (see below)
    with pytest.raises(ValueError, match=CHANGED) as info:
        model.partial_fit(X, y)
    assert any(f"{k} {CHANGED}" in str(info.value) for k in fixed)
    with pytest.raises(ValueError, match=CHANGED):
        model.set_params(warm_start=True).fit(X, y)
    assert_same_outputs(outputs(model, X, y), before)  # nothing trained
    make = CASES[case][0]
    model.set_params(**{k: v for k, v in make().get_params().items() if k in change})
    model.partial_fit(X, y)  # set back: the state continues


def test_fit_intercept_may_change_on_a_continuing_kernel_perceptron(model_backend):
    # as on the linear Perceptron: b is stored, the next epochs leave it where it is
    X, y = float_problem()
    model = KernelPerceptron(kernel="rbf", gamma=0.5, max_iter=3, random_state=0).fit(X, y)
    b = model.intercept_.copy()
    model.set_params(fit_intercept=False).partial_fit(X, y)
    assert np.array_equal(model.intercept_, b) and model.n_iter_ == 4


def test_a_larger_budget_continues_and_is_saved(model_backend, tmp_path):
    X, y = float_problem()
    model = BudgetKernelPerceptron(budget=10, max_iter=3, random_state=0).fit(X, y)
    assert model.n_support_ == 10
    model.set_params(budget=15).partial_fit(X, y)
    assert model.n_support_ == 15
    before = outputs(model, X, y)
    model.set_params(budget=12)  # below the support set: the next fit starts afresh
    with pytest.raises(ValueError, match="budget=12 is below the 15"):
        model.partial_fit(X, y)
    loaded = perceptron_c.load(model.save(tmp_path / "b"))
    assert_same_outputs(outputs(loaded, X, y), before)
    assert loaded.budget == 12 and loaded.n_support_ == 15


def test_a_kernel_object_changed_in_place_changes_no_fitted_model(model_backend, tmp_path):
    X, y = float_problem()
    kernel = RBF(0.5)
    model = KernelPerceptron(kernel=kernel, max_iter=5, random_state=0).fit(X, y)
    before = outputs(model, X, y)
    kernel.gamma = 5.0
    assert_same_outputs(outputs(model, X, y), before)
    assert_same_outputs(outputs(perceptron_c.load(model.save(tmp_path / "k")), X, y), before)


def test_a_model_trained_with_a_python_callable_says_why_it_cannot_be_saved(tmp_path):
    X, y = float_problem()
    model = KernelPerceptron(kernel=lambda A, B: (A @ B.T + 1.0) ** 2, max_iter=3,
                             random_state=0).fit(X, y)
    before = outputs(model, X, y)
    model.set_params(kernel="rbf")
    assert_same_outputs(outputs(model, X, y), before)
    with pytest.raises(TypeError, match="trained with parameters that cannot be stored"):
        model.save(tmp_path / "m")
    assert not list(tmp_path.iterdir())


def _rewrite_record(path, out, edit):
    arrays = read_npz(path, "model")
    record = json.loads(str(arrays["state/fit_params"]))
    arrays["state/fit_params"] = np.array(edit(record))
    np.savez(out, **arrays)
    return out


def _nested_spec(depth):
    spec = ["Linear"]
    for _ in range(depth):
        spec = ["Sum", spec, ["Linear"]]
    return spec


@pytest.mark.parametrize("edit, message", [
    (lambda r: "{not json", "fit_params is not JSON"),
    (lambda r: json.dumps({k: v for k, v in r.items() if k != "gamma"}), "exactly"),
    (lambda r: json.dumps(dict(r, gamma=-1.0)), "gamma must be > 0"),
    (lambda r: json.dumps(dict(r, gamma=[1.0])), "not a parameter value"),
    (lambda r: json.dumps(dict(r, gamma=5.0)), "unexpected entries"),  # = the parameters
    (lambda r: json.dumps(dict(r, kernel={"__kernel__": _nested_spec(40)}, gamma=None)),
     "deeper than 32"),
])
def test_a_damaged_record_is_refused(tmp_path, edit, message):
    X, y = float_problem()
    model = KernelPerceptron(kernel="rbf", gamma=0.5, max_iter=3, random_state=0).fit(X, y)
    path = model.set_params(gamma=5.0).save(tmp_path / "m")
    with pytest.raises(FileFormatError, match=message):
        perceptron_c.load(_rewrite_record(path, tmp_path / "bad.npz", edit))


def test_a_file_without_a_record_predicts_with_its_parameters(tmp_path):
    # files written before the record existed, like files of unchanged models, have none
    X, y = float_problem()
    model = VotedPerceptron(kernel="rbf", gamma=0.5, max_iter=3, random_state=0).fit(X, y)
    arrays = read_npz(model.save(tmp_path / "m"), "model")
    assert not any("fit_params" in k for k in arrays)
    loaded = perceptron_c.load(tmp_path / "m.npz")
    assert_same_outputs(outputs(loaded, X, y), outputs(model, X, y))
    loaded.partial_fit(X, y)
    model.partial_fit(X, y)
    assert_same_outputs(outputs(loaded, X, y), outputs(model, X, y))
