"""Property tests: the C and Python twins agree on arbitrary inputs, extreme scales included
(where they must fail, they fail alike and leave the same state); estimators train the same
models on both twins; the gate and the file readers answer any input with a result or a
ValueError/TypeError, never another exception. Example counts scale with the profile
(conftest.examples): over 10,000 examples in all with PERCEPTRON_C_HYPOTHESIS_PROFILE=ci."""
from functools import partial

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from conftest import HAVE_C, _module, examples, twin  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import arrays  # noqa: E402

import perceptron_c  # noqa: E402
from perceptron_c import (  # noqa: E402
    FileFormatError,
    KernelPerceptron,
    Perceptron,
    VotedPerceptron,
    _backend,
)
from perceptron_c import datasets as D  # noqa: E402
from perceptron_c._utils._validation import check_X  # noqa: E402

pytestmark = pytest.mark.skipif(not HAVE_C, reason="compares the C twins with the Python ones")
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])

# floats over every scale float64 has, so the overflow paths are drawn too
SCALES = st.sampled_from([1e-300, 1e-160, 1e-20, 1.0, 1e20, 1e160, 1e300])


def _run(fn):
    """(result, None) or (None, (exception type, message)): what a call did."""
    try:
        return fn(), None
    except (ValueError, TypeError, FloatingPointError, OverflowError) as exc:
        return None, (type(exc), str(exc))


def _same(a, b):
    """Two twins' outcomes: same result or same error, and the same arrays left behind."""
    (ra, ea), arrays_a = a
    (rb, eb), arrays_b = b
    assert ea == eb and ra == rb
    for x, y in zip(arrays_a, arrays_b):
        assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=True)


@st.composite
def float_problems(draw, max_n=10, max_d=6):
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    X = draw(arrays(np.float64, (n, d), elements=st.floats(-4, 4, allow_nan=False)))
    X = X * draw(SCALES)
    order = np.array(draw(st.lists(st.integers(0, n - 1), max_size=3 * n)), dtype=np.int64)
    return X, order


@given(float_problems(), st.booleans(), st.booleans(), st.integers(1, 4), st.booleans(),
       st.booleans())
@settings(max_examples=examples(300), **SETTINGS)
def test_linear_twins_agree_at_every_scale(problem, fit_intercept, normalize, k, averaged,
                                           weighted):
    X, order = problem
    n, d = X.shape
    y_idx = np.arange(n, dtype=np.int64) % (k + 1)
    sw = np.linspace(0.0, 3.3, n) if weighted else None
    outcomes = []
    for name in ("c", "python"):
        lin = _module(name, "_linear")
        if k == 1:
            w, b = np.zeros(d), np.zeros(1)
            ys = np.where(y_idx == 1, 1.0, -1.0)
            state = [w, b] + ([np.zeros(d), np.zeros(1), np.ones(1, np.int64)]
                              if averaged else [])
            fn = lin.averaged_epoch_dense if averaged else lin.perceptron_epoch_dense
            call = partial(fn, X, ys, order, *state, fit_intercept, normalize,
                           sample_weight=sw)
        else:
            state = [np.zeros((k + 1, d)), np.zeros(k + 1)] + (
                [np.zeros((k + 1, d)), np.zeros(k + 1), np.ones(1, np.int64)] if averaged
                else [])
            fn = lin.multiclass_averaged_epoch_dense if averaged else \
                lin.multiclass_epoch_dense
            call = partial(fn, X, y_idx, order, *state, fit_intercept, normalize,
                           sample_weight=sw)
        outcomes.append((_run(call), state))
    _same(*outcomes)


@given(float_problems(max_n=12), st.booleans(), st.booleans(), st.booleans())
@settings(max_examples=examples(250), **SETTINGS)
def test_dual_twins_agree(problem, fit_intercept, averaged, cached):
    X, order = problem
    n = X.shape[0]
    with np.errstate(over="ignore", invalid="ignore"):
        G = X @ X.T
    if not np.isfinite(G).all():
        G = np.nan_to_num(G, nan=0.0, posinf=1e308, neginf=-1e308)
    y = np.where(np.arange(n) % 3 == 0, -1.0, 1.0)
    outcomes = []
    for name in ("c", "python"):
        dual = twin(name, "_dual")
        state = [np.zeros(n), np.zeros(1)]
        extra = [np.zeros(n), np.zeros(1), np.ones(1, np.int64)] if averaged else []
        if cached:
            scores = np.zeros(n)
            call = partial(dual.dual_epoch_cached, G, y, order, *state, scores,
                           fit_intercept, *extra)
            kept = state + [scores] + extra
        else:
            call = partial(dual.dual_epoch_rows, np.ascontiguousarray(G[order]), order, y,
                           *state, fit_intercept, *extra)
            kept = state + extra
        outcomes.append((_run(call), kept))
    _same(*outcomes)


@given(st.integers(1, 8), st.integers(1, 8), st.integers(0, 3000), st.booleans(),
       st.booleans(), st.data())
@settings(max_examples=examples(250), **SETTINGS)
def test_conjunction_twins_agree_at_thousands_of_bits(n, m, top, fit_intercept, averaged,
                                                      data):
    E = np.array(data.draw(st.lists(st.integers(0, top), min_size=n * n, max_size=n * n)),
                 dtype=np.int32).reshape(n, n)
    rows = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)),
                    dtype=np.int64)
    y = np.array(data.draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    alpha0 = np.array(data.draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n)),
                      dtype=np.int64)
    outcomes = []
    for name in ("c", "python"):
        conj = _module(name, "_conjunction")
        state = [alpha0.copy(), np.zeros(1, np.int64)]
        extra = [np.zeros(n, np.int64), np.zeros(1, np.int64), np.ones(1, np.int64)] \
            if averaged else []
        call = partial(conj.conjunction_epoch_rows, np.ascontiguousarray(E[rows]), rows, y,
                       *state, fit_intercept, *extra)
        outcomes.append((_run(call), state + extra))
    _same(*outcomes)
    out_c, out_p = np.empty((n, 1)), np.empty((n, 1))
    _module("c", "_conjunction").conjunction_decision(E, alpha0[None, :], np.zeros(1, np.int64),
                                                      out_c)
    _module("python", "_conjunction").conjunction_decision(E, alpha0[None, :],
                                                           np.zeros(1, np.int64), out_p)
    assert np.array_equal(out_c, out_p) and np.isfinite(out_c).all()


@given(float_problems(max_n=8), st.data())
@settings(max_examples=examples(200), **SETTINGS)
def test_vote_twins_agree(problem, data):
    X, _ = problem
    n, d = X.shape
    k = data.draw(st.integers(0, 6))
    index = np.array(data.draw(st.lists(st.integers(0, d - 1), min_size=k, max_size=k)),
                     dtype=np.int64)
    sign = np.array(data.draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=k,
                                       max_size=k)))
    survival = np.array(data.draw(st.lists(st.integers(0, 50), min_size=k + 1,
                                           max_size=k + 1)), dtype=np.float64)
    outcomes = []
    for name in ("c", "python"):
        out = np.zeros(n)
        voted = _module(name, "_voted")
        call = partial(voted.vote, X, index, sign, survival, 1.0, out)
        outcomes.append((_run(call), [out]))
    _same(*outcomes)


@st.composite
def labelled_sets(draw):
    n = draw(st.integers(2, 30))
    d = draw(st.integers(1, 5))
    X = draw(arrays(np.float64, (n, d), elements=st.integers(-6, 6).map(float)))
    y = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    if len(np.unique(y)) < 2:
        y[0], y[1] = 0, 1
    return X, y


@given(labelled_sets(), st.sampled_from(["perceptron", "averaged", "ovr", "kernel",
                                         "kernel-avg", "voted"]), st.integers(0, 3))
@settings(max_examples=examples(200), **SETTINGS)
def test_estimators_train_the_same_model_on_both_twins(data, kind, seed):
    X, y = data
    make = {
        "perceptron": lambda: Perceptron(max_iter=4, random_state=seed),
        "averaged": lambda: Perceptron(average=True, max_iter=4, random_state=seed),
        "ovr": lambda: Perceptron(multiclass="ovr", max_iter=4, random_state=seed),
        "kernel": lambda: KernelPerceptron(kernel="poly", degree=2, max_iter=4,
                                           random_state=seed),
        "kernel-avg": lambda: KernelPerceptron(kernel="linear", average=True, max_iter=4,
                                               random_state=seed),
        "voted": lambda: VotedPerceptron(max_iter=3, random_state=seed),
    }[kind]
    results = []
    for name in ("c", "python"):
        with _backend.using(name):
            model = make().fit(X, y)
            results.append((model.mistakes_.tolist(), model.decision_function(X)))
    assert results[0][0] == results[1][0]
    assert np.array_equal(results[0][1], results[1][1])


@given(st.one_of(
    arrays(st.sampled_from([np.float64, np.float32, np.int64, np.complex128, np.bool_,
                            np.uint8, np.float16]),
           st.tuples(st.integers(0, 4), st.integers(0, 4))),
    arrays(np.float64, st.integers(0, 4)),
    st.lists(st.text(max_size=3), max_size=4),
    st.none(),
))
@settings(max_examples=examples(300), **SETTINGS)
def test_the_gate_answers_anything_with_an_array_or_a_clear_error(X):
    try:
        out = check_X(X)
    except (ValueError, TypeError):
        return
    assert out.ndim == 2 and out.flags.c_contiguous and np.isfinite(out).all()


@given(st.integers(1, 6), st.integers(1, 5), st.data())
@settings(max_examples=examples(200), **SETTINGS)
def test_svmlight_and_csv_round_trip(tmp_path_factory, n, d, data):
    X = np.array(data.draw(st.lists(st.floats(-1e300, 1e300, allow_nan=False)
                                    | st.sampled_from([0.0, 5e-324, -0.0]),
                                    min_size=n * d, max_size=n * d))).reshape(n, d)
    y = np.array(data.draw(st.lists(st.integers(-2**70, 2**70), min_size=n, max_size=n)),
                 dtype=object)
    folder = tmp_path_factory.mktemp("files")
    path = folder / "d.svm"
    X[:, -1] = X[:, -1] + 1.0  # a non-zero last column keeps the width
    X[:, -1][X[:, -1] == 0.0] = 1.0
    D.dump_svmlight(X, np.ones(n), path)
    X2, _ = D.load_data(path)
    X2 = X2.toarray() if hasattr(X2, "toarray") else X2
    assert np.array_equal(X2, X)
    csv = folder / "d.csv"
    csv.write_text("\n".join(",".join([repr(float(v)) for v in row] + [str(label)])
                             for row, label in zip(X, y)) + "\n")
    X3, y3 = D.load_data(csv)
    assert np.array_equal(X3, X) and y3.tolist() == y.tolist()


@given(st.binary(max_size=400), st.sampled_from([".npz", ".svm", ".csv"]))
@settings(max_examples=examples(300), **SETTINGS)
def test_readers_answer_any_bytes_with_a_file_format_error(tmp_path_factory, raw, ext):
    path = tmp_path_factory.mktemp("bytes") / f"x{ext}"
    path.write_bytes(raw)
    loaders = [D.load_data] + ([perceptron_c.load] if ext == ".npz" else [])
    for load in loaders:
        try:
            load(path)
        except FileFormatError:
            pass
