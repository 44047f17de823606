"""Every estimator's ``__repr__`` (the parameters set away from their default, as
scikit-learn prints them) and ``_repr_html_`` (what Jupyter shows): the same repr, escaped,
whether the model is fitted and what it learned, every parameter."""
import html

import numpy as np
import pytest

import perceptron_c
from perceptron_c import Perceptron

ESTIMATORS = [getattr(perceptron_c, name) for name in perceptron_c.__all__
              if isinstance(getattr(perceptron_c, name), type)
              and hasattr(getattr(perceptron_c, name), "get_params")]


def test_the_list_holds_every_estimator():
    assert len(ESTIMATORS) >= 8


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_html_repr_of_an_unfitted_estimator(cls):
    model = cls()
    page = model._repr_html_()
    assert html.escape(repr(model)) in page and "not fitted" in page
    for name in model.get_params():
        assert f"<td>{name}</td>" in page  # every parameter, at its default: not bold


def test_html_repr_marks_changed_parameters_and_the_fitted_state():
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, "<script>alert(1)</script>", "b&c")
    model = Perceptron(max_iter=4, class_weight={"b&c": 2.0})
    assert repr(model) == "Perceptron(class_weight={'b&c': 2.0}, max_iter=4)"
    page = model.fit(X, y)._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page and "b&amp;c" in page
    assert "<b>max_iter</b>" in page and "<b>class_weight</b>" in page
    assert "<td>eta0</td>" in page
    assert "fitted: classes_=" in page and "n_features_in_=3" in page
    assert f"n_iter_={model.n_iter_}" in page


def test_long_values_are_cut():
    X = np.random.default_rng(0).normal(size=(40, 300))
    model = Perceptron(max_iter=2).fit(X, X[:, 0] > 0)
    model.class_weight = {i: 1.0 for i in range(200)}
    for line in model._repr_html_().split("<tr>"):
        assert len(line) < 600
