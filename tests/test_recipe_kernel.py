"""CONTRIBUTING.md's recipe for a new built-in kernel, followed step by step: a toy kernel
written as the recipe says trains a kernel model to the same coefficients as its own Gram
given as "precomputed", counts as the package's own arithmetic and goes through a model
file; and the recipe names every piece the toy needed. When the recipe and the code drift
apart, this test fails first.

The toy is the cosine similarity scaled by ``scale``: k(x, y) = scale x.y / (|x| |y|), from
the routines the package has (the 4-lane dots of the linear Gram and the squared norms).
"""
import ast
import pathlib
import re

import numpy as np
import pytest

import perceptron_c
from perceptron_c import _backend, kernels
from perceptron_c.kernels import (
    BUILTIN_KERNELS,
    _finite_gram,
    _FloatKernel,
    _positive,
    is_builtin,
    kernel_from_spec,
    kernel_to_spec,
)

CONTRIBUTING = pathlib.Path(__file__).resolve().parents[1] / "CONTRIBUTING.md"
TOY = "Cosine"
PUBLIC = {"is_builtin", "kernel_from_spec", "kernel_to_spec", "kernels"}


class Cosine(_FloatKernel):
    """k(x, y) = scale x.y / (|x| |y|), written by the recipe (rows of norm 0 have none)."""

    def __init__(self, scale=1.0):
        self.scale = _positive("scale", scale)

    def _key(self):
        return (self.scale,)

    def __call__(self, X, Y=None, n_jobs=None):
        Xf, Yf, out = self._prepare(X, Y)
        self._rows_into(Xf, Yf, out, n_jobs)
        return _finite_gram(out, "cosine")

    def _rows_into(self, A, B, out, n_jobs=None, norms=None):
        _backend.gram.gram_linear(A, B, out, n_jobs=n_jobs)
        lengths = np.sqrt(np.outer(_backend.gram.row_sqnorms(A), _backend.gram.row_sqnorms(B)))
        np.multiply(out, self.scale / lengths, out=out)

    def __repr__(self):
        return f"Cosine(scale={self.scale})"


@pytest.fixture
def registered(monkeypatch):
    """Step 3: the class in BUILTIN_KERNELS (and the module's namespace, where it would be)."""
    monkeypatch.setattr(kernels, "BUILTIN_KERNELS", BUILTIN_KERNELS + (Cosine,))
    monkeypatch.setattr(kernels, "Cosine", Cosine, raising=False)


@pytest.fixture
def data(rng):
    X = rng.normal(size=(120, 5)) + 0.5  # no row of norm 0
    y = np.where(X @ rng.normal(size=5) > 0.4, "a", "b")
    return X, y


def test_the_recipe_names_what_the_toy_needed():
    text = CONTRIBUTING.read_text(encoding="utf-8")
    recipe = text[text.index("## Adding a kernel"):]
    recipe = recipe[:recipe.index("\n## ", 5)]
    tree = ast.parse(pathlib.Path(__file__).read_text(encoding="utf-8"))
    used = {alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
            and (node.module or "").startswith("perceptron_c") for alias in node.names}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == TOY:
            for item in ast.walk(node):
                if isinstance(item, ast.FunctionDef):
                    used.add(item.name)
                elif isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name):
                    if item.value.id == "self" and callable(getattr(Cosine, item.attr, None)):
                        used.add(item.attr)
                    elif item.value.id == "_backend":
                        used.add("_backend")
    assert {"_prepare", "_rows_into", "_key", "BUILTIN_KERNELS", "_backend"} <= used
    missing = [name for name in sorted(used - PUBLIC)
               if not re.search(rf"(?<![\w.]){re.escape(name)}\b", recipe)]
    assert not missing, f"CONTRIBUTING.md's kernel recipe does not name {missing}"


def test_its_gram_is_the_naive_cosine(data):
    X, _ = data
    K = Cosine(2.0)(X[:7], X[:9])
    unit = X / np.linalg.norm(X, axis=1)[:, None]
    np.testing.assert_allclose(K, 2.0 * unit[:7] @ unit[:9].T, rtol=1e-13)
    assert Cosine(2.0) == Cosine(2.0) != Cosine(3.0)
    with pytest.raises(ValueError, match="scale"):
        Cosine(0.0)


def test_registered_it_is_the_packages_own_and_goes_through_a_model_file(
        registered, data, tmp_path):
    X, y = data
    k = Cosine(2.0)
    assert is_builtin(k) and is_builtin(k + kernels.Linear())
    assert kernel_to_spec(k) == ["Cosine", 2.0]
    assert kernel_from_spec(kernel_to_spec(k)) == k
    with pytest.warns(perceptron_c.ConvergenceWarning):
        model = perceptron_c.KernelPerceptron(kernel=k, max_iter=3, n_jobs=2).fit(X, y)
    again = perceptron_c.load(model.save(tmp_path / "cosine"))
    assert again.kernel == k
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))


def test_a_kernel_model_on_it_is_the_model_on_its_gram(data):
    X, y = data
    same = {"max_iter": 4, "random_state": 0}
    with pytest.warns(perceptron_c.ConvergenceWarning):
        on_rows = perceptron_c.KernelPerceptron(kernel=Cosine(2.0), **same).fit(X, y)
    with pytest.warns(perceptron_c.ConvergenceWarning):
        on_gram = perceptron_c.KernelPerceptron(kernel="precomputed", **same).fit(
            Cosine(2.0)(X), y)
    np.testing.assert_array_equal(on_rows.dual_coef_, on_gram.dual_coef_)
    np.testing.assert_array_equal(on_rows.intercept_, on_gram.intercept_)


def test_unregistered_it_is_user_code_and_stays_out_of_model_files(data):
    X, y = data
    assert not is_builtin(Cosine())
    with pytest.raises(TypeError, match="cannot be written to a model file"):
        kernel_to_spec(Cosine())
