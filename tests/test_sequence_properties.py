"""Property tests of the structured perceptron's routines: the C and Python twins agree on
arbitrary sentences at every float scale, failing alike where they fail (same error, same
state left behind). Example counts scale with the profile (conftest.examples)."""
import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from conftest import HAVE_C, _module, examples  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import arrays  # noqa: E402

pytestmark = pytest.mark.skipif(not HAVE_C, reason="compares the C twins with the Python ones")
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
SCALES = st.sampled_from([1e-300, 1e-160, 1e-20, 1.0, 1e20, 1e160, 1e300])


def _to_csr(X):
    rows, cols = np.nonzero(X)
    indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=X.shape[0]), out=indptr[1:])
    return np.ascontiguousarray(X[rows, cols]), cols.astype(np.int32), indptr


@st.composite
def problems(draw):
    lengths = draw(st.lists(st.integers(0, 5), min_size=1, max_size=6))
    n, d, K = sum(lengths), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    X = draw(arrays(np.float64, (n, d), elements=st.floats(-4, 4, allow_nan=False)))
    X = X * draw(SCALES)
    if draw(st.booleans()):
        with np.errstate(over="ignore"):  # inf where float32 overflows: refused alike
            X = X.astype(np.float32)
    y = np.array(draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)), dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    order = np.array(draw(st.lists(st.integers(0, len(lengths) - 1), max_size=12)),
                     dtype=np.int64)
    trans = draw(arrays(np.float64, (K + 2, K), elements=st.floats(-4, 4)))
    trans = trans * draw(SCALES)
    if draw(st.integers(0, 9)) == 0:  # now and then a non-finite score: refused alike
        trans[draw(st.integers(0, K + 1)), draw(st.integers(0, K - 1))] = draw(
            st.sampled_from([np.nan, np.inf, -np.inf]))
    return X, y, offsets, order, K, trans


def _run(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs), None
    except (ValueError, FloatingPointError) as exc:
        return None, (type(exc), str(exc))


@given(problems(), st.booleans(), st.booleans(), st.booleans(), st.integers(1, 3))
@settings(max_examples=examples(300), **SETTINGS)
def test_epochs_and_decoding_agree(problem, sparse, averaged, fit_intercept, epochs):
    head = _to_csr(problem[0]) if sparse else (problem[0],)
    (oa, aa), (ob, ab) = (_train_and_decode(_module(name, "_sequence"), head, problem, averaged,
                                            fit_intercept, epochs) for name in ("c", "python"))
    assert oa == ob
    for u, v in zip(aa, ab):
        assert u.dtype == v.dtype and np.array_equal(u, v, equal_nan=True)


def _train_and_decode(mod, head, problem, averaged, fit_intercept, epochs):
    """(what each call did, the arrays left behind): a few epochs, then decoding."""
    X, y, offsets, order, K, trans0 = problem
    W, b, trans = np.zeros((X.shape[1], K)), np.zeros(K), trans0.copy()
    avg = (np.zeros_like(W), np.zeros_like(b), np.zeros_like(trans),
           np.ones(1, dtype=np.int64)) if averaged else (None,) * 4
    mistakes = np.zeros(2, dtype=np.int64)
    sparse = len(head) == 3
    epoch = mod.structured_epoch_csr if sparse else mod.structured_epoch_dense
    outcomes = [_run(epoch, *head, y, offsets, order, W, b, trans, fit_intercept, *avg,
                     mistakes) for _ in range(epochs)]
    out = np.zeros(X.shape[0], dtype=np.int64)
    decode = mod.decode_csr if sparse else mod.decode_dense
    outcomes.append(_run(decode, *head, W, b, trans, offsets, out, n_jobs=2))
    return outcomes, [W, b, trans, mistakes, out] + [a for a in avg if a is not None]
