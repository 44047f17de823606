"""CONTRIBUTING.md's recipe for a new estimator, followed step by step: a toy estimator
written exactly as the recipe says trains, predicts, saves, loads and guards itself as the
package's own do, and the recipe names every piece the toy needed. When the recipe and the
code drift apart, this test fails first.

The toy is the textbook's binary perceptron on dense rows ([Daume2017] Alg. 5): with the
same seed it must give `Perceptron`'s weights to the bit, since both run the same routine
through the dispatcher.
"""
import ast
import pathlib
import re
import threading

import numpy as np
import pytest

import perceptron_c
from perceptron_c import _backend, io
from perceptron_c._estimator._base import EpochModel, Run
from perceptron_c._estimator._training import (
    StateArray,
    entry_names,
    fit_labels,
    gate,
    hold_out,
    model_kept,
    new_state,
    restore_state,
    start_or_continue,
    train,
    warn_if_not_converged,
)
from perceptron_c._utils._threads import reads, trains
from perceptron_c._utils._validation import check_X
from perceptron_c.exceptions import ConcurrentUseError

CONTRIBUTING = pathlib.Path(__file__).resolve().parents[1] / "CONTRIBUTING.md"
# where the toy meets the package beyond its public API: the recipe must name each
TOY = ("ToyPerceptron", "_ToyRun")
PUBLIC = {"io", "ConcurrentUseError", "check_X"}


class _ToyRun(Run):
    """One training call: an epoch is one call of the routine on the state arrays."""

    def __init__(self, est, X, y_idx):
        self.est, self.X, self.n_rows, self.n_shown = est, X, X.shape[0], X.shape[0]
        self.signs = np.where(y_idx == 1, 1.0, -1.0)

    def arrays(self):
        return [self.est._state["w"], self.est._state["b"]]

    def epoch(self, order):
        st = self.est._state
        w, b = st["w"][0], st["b"]
        return _backend.linear.perceptron_epoch_dense(self.X, self.signs, order, w, b,
                                                      self.est.fit_intercept, False)


class ToyPerceptron(EpochModel):
    """The binary textbook perceptron, written by the recipe.

    Parameters
    ----------
    fit_intercept, max_iter, shuffle, random_state, warm_start, verbose : as in `Perceptron`.
    """

    def __init__(self, *, fit_intercept=True, max_iter=20, shuffle=True, random_state=0,
                 warm_start=False, verbose=0):
        self._keep_params(locals())

    @trains
    def fit(self, X, y):
        with model_kept(self):
            spec = self._spec()
            X, names = gate(self, X, check_X, first=True)
            fresh = not (self.warm_start and self._is_fitted())
            y_idx = fit_labels(self, y, X.shape[0], fresh)
            if len(self.classes_) != 2:
                raise ValueError("ToyPerceptron is binary")
            start_or_continue(self, X, spec, fresh, names)
            X, y_idx, w, val = hold_out(self, X, y_idx, None)
            train(self, self._start(X, y_idx, w, spec), X.shape[0], self.max_iter, val,
                  fitting=True)
        warn_if_not_converged(self)
        return self

    def _checked_spec(self):
        return None  # no rule between parameters, nothing for the routine beyond the state

    # the steps dask's mixed fit calls
    def _gate_X(self, X, spec, fitting):
        return check_X(X)

    def _declared_state(self, spec):
        return (StateArray("w", ("rows", "d"), mixing="mean"),
                StateArray("b", ("rows",), mixing="mean"))

    def _init_state(self, Xc, spec):
        self._state = new_state(self._declared_state(spec), {"rows": 1, "d": Xc.shape[1]})
        self._publish()

    def _start(self, Xc, y_idx, sample_weight, spec):
        return _ToyRun(self, Xc, y_idx)

    def _publish(self):
        self.coef_, self.intercept_ = self._state["w"].copy(), self._state["b"].copy()

    @reads
    def decision_function(self, X):
        self._check_fitted()
        return check_X(X) @ self.coef_[0] + self.intercept_[0]

    def _predict_labels(self, X):
        return (self.decision_function(X) > 0).astype(np.intp)  # indices into classes_

    # its model file
    @classmethod
    def _from_state(cls, params, arrays):
        est = cls(**params)
        declared = est._declared_state(None)
        _, d = est._restore_common_state(arrays, entry_names(declared))
        est._state = restore_state(arrays, declared, {"rows": 1, "d": d})
        est._publish()
        return est


@pytest.fixture
def data(rng):
    X = rng.normal(size=(300, 6))
    y = np.where(X @ rng.normal(size=6) + 0.3 * rng.normal(size=300) > 0, "yes", "no")
    return X, y


def _what_the_toy_used():
    """The names this module imports from the package's private modules, the methods the toy
    defines, and the ones of its bases it calls on ``self``."""
    tree = ast.parse(pathlib.Path(__file__).read_text(encoding="utf-8"))
    used = {alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
            and (node.module or "").startswith("perceptron_c") for alias in node.names}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in TOY:
            for item in ast.walk(node):
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("__"):
                    used.add(item.name)
                elif isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) \
                        and item.value.id in ("self", "est", "cls") and \
                        item.attr.startswith("_") and callable(getattr(ToyPerceptron,
                                                                       item.attr, None)):
                    used.add(item.attr)
    return sorted(used - PUBLIC)


def test_the_recipe_names_what_the_toy_needed():
    text = CONTRIBUTING.read_text(encoding="utf-8")
    recipe = text[text.index("A new estimator subclasses"):]
    recipe = recipe[:recipe.index("\n## ")]
    used = _what_the_toy_used()
    assert {"gate", "train", "_start", "model_kept", "trains"} <= set(used)  # (the walk works)
    missing = [name for name in used if not re.search(rf"\b{re.escape(name)}\b", recipe)]
    assert not missing, f"CONTRIBUTING.md's estimator recipe does not name {missing}"


def test_the_toy_is_the_textbook_perceptron_to_the_bit(data):
    X, y = data
    with pytest.warns(perceptron_c.ConvergenceWarning):
        toy = ToyPerceptron(max_iter=3).fit(X, y)
    with pytest.warns(perceptron_c.ConvergenceWarning):
        ours = perceptron_c.Perceptron(max_iter=3).fit(X, y)
    np.testing.assert_array_equal(toy.coef_, ours.coef_)
    np.testing.assert_array_equal(toy.intercept_, ours.intercept_)
    np.testing.assert_array_equal(toy.mistakes_, ours.mistakes_)
    np.testing.assert_array_equal(toy.predict(X), ours.predict(X))
    assert toy.n_iter_ == 3 and not toy.converged_ and toy.score(X, y) == ours.score(X, y)


def test_the_toy_continues_with_warm_start(data):
    X, y = data
    with pytest.warns(perceptron_c.ConvergenceWarning):
        once = ToyPerceptron(max_iter=4).fit(X, y)
    with pytest.warns(perceptron_c.ConvergenceWarning):
        twice = ToyPerceptron(max_iter=2, warm_start=True).fit(X, y)
    with pytest.warns(perceptron_c.ConvergenceWarning):
        twice.fit(X, y)
    np.testing.assert_array_equal(once.coef_, twice.coef_)


def test_a_registered_toy_is_saved_and_loaded(data, tmp_path, monkeypatch):
    X, y = data
    monkeypatch.setitem(io.MODEL_CLASSES, "ToyPerceptron", ToyPerceptron)
    with pytest.warns(perceptron_c.ConvergenceWarning):
        toy = ToyPerceptron(max_iter=3).fit(X, y)
    again = perceptron_c.load(toy.save(tmp_path / "toy"))
    assert type(again) is ToyPerceptron and again.get_params() == toy.get_params()
    np.testing.assert_array_equal(again.coef_, toy.coef_)
    np.testing.assert_array_equal(again.predict(X), toy.predict(X))
    # another package's class: registered, but not one of the package's own estimators
    assert "ToyPerceptron" not in dict(perceptron_c.all_estimators())


def test_a_failed_epoch_leaves_the_toy_as_it_was(data, monkeypatch):
    X, y = data
    with pytest.warns(perceptron_c.ConvergenceWarning):
        toy = ToyPerceptron(max_iter=2).fit(X, y)
    before = toy.coef_.copy()
    calls = []

    def fails_in_the_first_epoch(self, order):
        calls.append(order)
        self.est._state["w"][...] = np.nan  # a half-done epoch, then an error
        raise KeyboardInterrupt

    monkeypatch.setattr(_ToyRun, "epoch", fails_in_the_first_epoch)
    with pytest.raises(KeyboardInterrupt):
        toy.set_params(warm_start=True).fit(X, y)
    assert calls
    np.testing.assert_array_equal(toy.coef_, before)
    np.testing.assert_array_equal(toy._state["w"], before)


def test_the_toy_is_guarded_against_a_second_thread(data, monkeypatch):
    X, y = data
    with pytest.warns(perceptron_c.ConvergenceWarning):
        toy = ToyPerceptron(max_iter=2).fit(X, y)
    inside, release = threading.Event(), threading.Event()
    real = _ToyRun.epoch

    def slow(self, order):
        inside.set()
        release.wait(10)
        return real(self, order)

    monkeypatch.setattr(_ToyRun, "epoch", slow)
    errors = []

    def background():
        try:
            with pytest.warns(perceptron_c.ConvergenceWarning):
                ToyPerceptron.fit(toy, X, y)
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    thread = threading.Thread(target=background)
    thread.start()
    try:
        assert inside.wait(10)
        with pytest.raises(ConcurrentUseError):
            toy.predict(X)
        with pytest.raises(ConcurrentUseError):
            toy.fit(X, y)
    finally:
        release.set()
        thread.join()
    assert not errors, errors
