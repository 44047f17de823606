"""Every error and warning class of the package lives in ``perceptron_c.exceptions``, and the
names users import from elsewhere are the same classes."""
import importlib
import inspect
import pkgutil

import pytest
from conftest import skip_without_optional

import perceptron_c
from perceptron_c import exceptions

MODULES = sorted(m.name for m in pkgutil.iter_modules(perceptron_c.__path__)
                 if not m.name.endswith("_c"))


@pytest.mark.parametrize("name", MODULES)
def test_no_module_defines_its_own_exception(name):
    skip_without_optional(name)
    module = importlib.import_module(f"perceptron_c.{name}")
    own = [obj for _, obj in inspect.getmembers(module, inspect.isclass)
           if issubclass(obj, BaseException) and obj.__module__ == module.__name__
           and not obj.__name__.startswith("_")]
    if name != "exceptions":
        assert not own, f"perceptron_c.{name} defines {own}: move them to perceptron_c.exceptions"


def test_the_public_names_are_the_same_classes():
    from perceptron_c import io

    for name in exceptions.__all__:
        assert getattr(exceptions, name).__module__ == "perceptron_c.exceptions"
    for name in ("NotFittedError", "FileFormatError", "ConcurrentUseError",
                 "ConvergenceWarning"):
        assert getattr(perceptron_c, name) is getattr(exceptions, name)
    assert io.FileFormatError is exceptions.FileFormatError


def test_sklearn_flavoured_classes_match_both_except_clauses():
    sk = pytest.importorskip("sklearn.exceptions")
    for name in ("NotFittedError", "ConvergenceWarning", "DataConversionWarning"):
        ours = getattr(exceptions, name)
        flavoured = exceptions.sklearn_flavoured(ours)
        assert issubclass(flavoured, ours) and issubclass(flavoured, getattr(sk, name))
        assert exceptions.sklearn_flavoured(ours) is flavoured
    assert exceptions.sklearn_flavoured(exceptions.FileFormatError) is exceptions.FileFormatError


PREDICTING = ("predict", "decision_function", "predict_proba", "score", "save")


@pytest.mark.parametrize("cls", [getattr(perceptron_c, n) for n in perceptron_c.__all__
                                 if hasattr(getattr(perceptron_c, n), "fit")],
                         ids=lambda c: c.__name__)
def test_every_prediction_before_fit_is_not_fitted_error(cls, tmp_path):
    """StructuredPerceptron.predict and score raised a plain AttributeError (classes_)."""
    X, y = [[0.0, 1.0], [1.0, 0.0]], [0, 1]
    est = cls()
    methods = [m for m in PREDICTING if hasattr(est, m)]
    assert {"predict", "score", "save"} <= set(methods)
    for name in methods:
        args = {"save": (tmp_path / "m.npz",), "score": (X, y)}.get(name, (X,))
        extra = {"lengths": [2]} if cls is perceptron_c.StructuredPerceptron and \
            name != "save" else {}
        with pytest.raises(perceptron_c.NotFittedError, match="not fitted"):
            getattr(est, name)(*args, **extra)
        if extra:  # without lengths too: not fitted comes first
            with pytest.raises(perceptron_c.NotFittedError, match="not fitted"):
                getattr(est, name)(*args)
