"""Every constructor parameter of every estimator has a declared rule
(``_parameter_constraints``), and each rule refuses its bad values with an error that names
the parameter, at the first training call, as scikit-learn's estimators do."""
import inspect

import numpy as np
import pytest
from estimators import every

import perceptron_c
from perceptron_c._utils._params import Free
from perceptron_c.tagging import TokenFeatures

# the estimators with scikit-learn's parameters (NLTK's tagger has NLTK's), and the
# transformer of token lists
ESTIMATORS = [cls for name, cls in perceptron_c.all_estimators() if name in
              every("classifier") + every("regressor")] + [TokenFeatures]


def _fit(est):
    if isinstance(est, TokenFeatures):
        return est.fit([["a", "b"], ["c"]])
    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]] * 3)
    y = np.array([0, 1, 1, 0] * 3)
    if isinstance(est, perceptron_c.StructuredPerceptron):
        return est.fit(X, y, [4, 4, 4])
    return est.fit(X, y)


def _cases():
    for cls in ESTIMATORS:
        for name, rule in cls._parameter_constraints.items():
            for value in rule.refused():
                yield pytest.param(cls, name, value, id=f"{cls.__name__}-{name}-{value!r}")


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_parameter_has_a_rule(cls):
    assert sorted(cls._parameter_constraints) == cls._get_param_names()


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_the_constructor_stores_each_parameter_as_given(cls):
    given = {name: object() for name in cls._get_param_names()}  # unchecked until training
    est = cls(**given)
    assert all(getattr(est, name) is value for name, value in given.items())
    assert set(vars(est)) == set(given)  # nothing else: hasattr sees only the parameters


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_a_subclass_adds_a_parameter_of_its_own(cls):
    # scikit-learn's pattern: the subclass lists every parameter and passes ours on
    names = cls._get_param_names()
    params = inspect.signature(cls.__init__).parameters

    def __init__(self, extra=1, **given):
        cls.__init__(self, **given)
        self.extra = extra
    __init__.__signature__ = inspect.Signature(
        [params["self"], inspect.Parameter("extra", inspect.Parameter.KEYWORD_ONLY, default=1)]
        + [params[n].replace(kind=inspect.Parameter.KEYWORD_ONLY) for n in names])
    sub = type("Sub", (cls,), {"__init__": __init__})
    given = {name: object() for name in names}
    est = sub(extra=2, **given)
    assert est.get_params() == {"extra": 2, **given}
    assert all(getattr(est, name) is value for name, value in given.items())


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_the_defaults_obey_the_rules(cls):
    est = cls()
    est._validate_params()
    _fit(est)


@pytest.mark.parametrize(("cls", "name", "value"), list(_cases()))
def test_a_bad_value_is_refused_naming_the_parameter(cls, name, value):
    est = cls(**{name: value})
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        _fit(est)


def test_free_rules_say_where_they_are_checked():
    for cls in ESTIMATORS:
        for name, rule in cls._parameter_constraints.items():
            if isinstance(rule, Free):
                assert rule.where, f"{cls.__name__}.{name}"
