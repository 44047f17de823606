"""A call costs its own work: the short routes of prediction give the general routes' results
and errors, and every table prepared for prediction follows the model."""
import pickle
import warnings
from functools import partial

import numpy as np
import pytest

from perceptron_c import (
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    Perceptron,
)
from perceptron_c._validation import plain_rows

pytestmark = pytest.mark.filterwarnings("ignore::perceptron_c.exceptions.ConvergenceWarning")

# ------------------------------------------------------------------------- linear models


def _linear_models(rng):
    X = rng.normal(size=(120, 5))
    y3 = np.argmax(X[:, :3], axis=1)
    y2 = (X[:, 0] + X[:, 1] > 0).astype(int)
    return X, [
        Perceptron(random_state=0, max_iter=5).fit(X, y2),
        Perceptron(random_state=0, max_iter=5).fit(X, y3),
        Perceptron(random_state=0, max_iter=5, average=True, multiclass="ovr").fit(X, y3),
        Perceptron(random_state=0, tol=1e-3, max_iter=5).fit(X, y3),
        PassiveAggressiveClassifier(random_state=0, max_iter=5).fit(X, y2),
        PassiveAggressiveRegressor(random_state=0, max_iter=5).fit(X, X @ np.arange(5.0)),
    ]


def _general(model, X):
    """What prediction computes on the general route (every conversion of the gate)."""
    scores = model._scores(model._gate_predict(X))
    return scores[:, 0] if scores.shape[1] == 1 else scores


def _inputs(X):
    one = X[:1]
    return [one, X[:7], one.astype(np.float32), np.asfortranarray(X[:7]), X[:7, ::1][::2],
            np.round(X[:3] * 4).astype(np.int64), one.tolist(), X[:3].tolist(),
            np.round(X[:2]).astype(int).tolist(), X[:1].astype(">f8")]


def test_short_route_equals_the_general_route(model_backend, rng):
    X, models = _linear_models(rng)
    for model in models:
        for rows in _inputs(X):
            want = _general(model, rows)
            got = model.decision_function(rows) if hasattr(model, "classes_") else \
                model.predict(rows)
            assert got.dtype == want.dtype and np.array_equal(got, want)
            if hasattr(model, "classes_"):
                idx = (want > 0).astype(int) if want.ndim == 1 else want.argmax(axis=1)
                assert np.array_equal(model.predict(rows), model.classes_[idx])


def test_plain_rows_takes_only_what_the_gate_returns_unchanged(rng):
    X = rng.normal(size=(4, 3))
    assert plain_rows(X, 3) is X
    assert plain_rows(X.astype(np.float32), 3) is not None
    assert np.array_equal(plain_rows(X.tolist(), 3), X)
    assert plain_rows(X, 2) is None and plain_rows(X[0], 3) is None
    for other in (np.asfortranarray(X), X[::2], X.astype(">f8"), X.astype(int), X[:0],
                  X.astype(np.float16), X.view(type("Sub", (np.ndarray,), {})), X.astype(object)):
        assert plain_rows(other, 3) is None


def _outcome(call, X):
    try:
        return "returned", call(X)
    except (ValueError, TypeError) as exc:
        return type(exc), str(exc)


@pytest.mark.parametrize("bad", [
    np.array([[np.nan, 0.0, 0.0, 0.0, 0.0]]), np.array([[0.0, np.inf, 0.0, 0.0, 0.0]]),
    np.array([[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, -np.inf, 0.0, 0.0, 0.0]], dtype=np.float32),
    np.full((1, 5), 1e308), np.full((2, 5), -1e308), np.zeros((1, 4)), np.zeros((0, 5)),
    np.zeros(5), [[0.0] * 5, [1.0]], [["a"] * 5], [[1.0] * 4],
])
def test_short_route_raises_what_the_general_route_raises(model_backend, rng, bad):
    X, models = _linear_models(rng)
    for model in models:
        want = _outcome(partial(_general, model), bad)
        assert want[0] != "returned" or np.all(np.isfinite(want[1]))
        for call in (model.predict, getattr(model, "decision_function", model.predict)):
            got = _outcome(call, bad)
            assert got[0] == want[0]
            if got[0] != "returned":
                assert got[1] == want[1]


def test_short_route_keeps_the_feature_name_checks(rng):
    pd = pytest.importorskip("pandas")
    X, models = _linear_models(rng)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(5)])
    named = Perceptron(random_state=0, max_iter=5).fit(frame, (X[:, 0] > 0).astype(int))
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        named.predict(X[:1])
    with pytest.warns(UserWarning, match="has feature names"):
        models[0].predict(frame.iloc[:1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        models[0].predict(X[:1])
        assert np.array_equal(named.predict(frame.iloc[:3]), named.predict(frame.iloc[:3]))


def test_weights_set_by_hand_are_read_at_each_call(rng):
    X, models = _linear_models(rng)
    model = models[1]
    before = model.decision_function(X[:3])
    model.coef_[0, 0] += 1.0  # in place: the next call sees it
    assert not np.array_equal(model.decision_function(X[:3])[:, 0], before[:, 0])
    model.coef_ = model.coef_.astype(np.float32)  # replaced, another dtype: converted
    want = X[:3] @ model.coef_.astype(np.float64).T + model.intercept_
    assert np.allclose(model.decision_function(X[:3]), want)
    model.sparsify()
    assert np.allclose(model.decision_function(X[:3]), want)
    model.densify()
    model.intercept_ = list(model.intercept_)
    assert np.allclose(model.decision_function(X[:3]), want)
    again = pickle.loads(pickle.dumps(model))
    assert np.array_equal(again.decision_function(X[:3]), model.decision_function(X[:3]))


def test_bad_n_jobs_still_raises_on_one_row(rng):
    X, models = _linear_models(rng)
    model = models[1].set_params(n_jobs=0)
    with pytest.raises(ValueError, match="n_jobs"):
        model.predict(X[:1])
