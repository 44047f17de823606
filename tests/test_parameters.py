"""Every constructor parameter of every estimator has a declared rule
(``_parameter_constraints``), and each rule refuses its bad values with an error that names
the parameter, at the first training call, as scikit-learn's estimators do."""
import ast
import inspect
import re

import numpy as np
import pytest
from estimators import every

import perceptron_c
from perceptron_c._utils._params import (
    ClassWeight,
    Flag,
    Fraction,
    Free,
    Integer,
    NJobs,
    NoneOr,
    Options,
    Real,
)
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


# ------------------------------------------- the docstring says what the rule and default say

SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}[ \t]*$", re.M)
REFERENCE = re.compile(r"\b[Aa]s (?:in|for) `(\w+)`")
SIZE = re.compile(r"(\d+) (KiB|MiB|GiB)")
# what a rule's values are called in a numpydoc type line
TYPE_WORDS = {Flag: ("bool",), Integer: ("int",), Real: ("float",), Fraction: ("float",),
              NJobs: ("int", "None"), ClassWeight: ("dict", '"balanced"', "None")}


def _documented(cls):
    """{parameter: (type line, first line of its description)} of a class docstring's
    Parameters section; ``a, b : spec`` documents two."""
    doc = inspect.cleandoc(cls.__doc__)
    heads = list(SECTION.finditer(doc))
    start = next(h.end() for h in heads if h.group(1) == "Parameters")
    end = next((h.start() for h in heads if h.start() > start), len(doc))
    lines = doc[start:end].strip("\n").splitlines()
    found = {}
    for i, line in enumerate(lines):
        if line and not line[0].isspace():
            names, _, spec = line.partition(" : ")
            first = lines[i + 1].strip() if i + 1 < len(lines) else ""
            for name in names.split(","):
                found[name.strip()] = (spec.strip(), first)
    return found


def _default(text):
    """A docstring's default (``default=512 MiB`` included) as a Python value."""
    size = SIZE.fullmatch(text)
    if size:
        return int(size.group(1)) << {"KiB": 10, "MiB": 20, "GiB": 30}[size.group(2)]
    return ast.literal_eval(text)


def _entries():
    for cls in ESTIMATORS:
        for name in cls._get_param_names():
            yield pytest.param(cls, name, id=f"{cls.__name__}-{name}")


@pytest.mark.parametrize(("cls", "name"), list(_entries()))
def test_the_docstring_states_the_rule_and_the_default(cls, name):
    """Each parameter is documented with the type its rule accepts and the constructor's
    default, or as "as in `Other`" where Other has the same parameter with the same rule
    and default (which is then checked instead)."""
    documented = _documented(cls)
    assert name in documented, f"{cls.__name__}'s docstring does not document {name}"
    spec, first = documented[name]
    default = inspect.signature(cls).parameters[name].default
    rule = cls._parameter_constraints[name]
    if "default=" not in spec:
        reference = REFERENCE.search(spec) or REFERENCE.search(first)
        assert reference, f"{cls.__name__}.{name}: no type and default, and no 'as in `X`'"
        other = getattr(perceptron_c, reference.group(1))
        assert inspect.signature(other).parameters[name].default == default
        theirs = other._parameter_constraints[name]
        assert theirs == rule or type(theirs) is type(rule) is Free, (theirs, rule)
        return
    types, _, text = spec.rpartition("default=")
    value = _default(text.strip())
    assert value == default and type(value) is type(default), \
        f"{cls.__name__}.{name}: the docstring says default={text.strip()}, the code {default!r}"
    inner = rule.rule if isinstance(rule, NoneOr) else rule
    if isinstance(rule, NoneOr):
        assert "None" in types, f"{cls.__name__}.{name}: None is allowed: {types!r}"
    if isinstance(inner, Options):
        missing = [c for c in inner.choices if f'"{c}"' not in types]
        assert not missing, f"{cls.__name__}.{name}: {types!r} does not name {missing}"
    for word in TYPE_WORDS.get(type(inner), ()):
        assert word in types, f"{cls.__name__}.{name}: {types!r} does not say {word}"
