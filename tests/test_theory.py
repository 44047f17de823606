"""perceptron_c.theory: margins and mistake bounds, and the perceptron keeping within them.

The hand-checked cases pin the formulas; the randomized cases train the estimator (on both
twins, through the ``model_backend`` fixture) on linearly separable data with a known
separator and check the convergence theorems (CS269 lecture, Theorems 1 and 2; bias absorbed
as in the Cornell notes).
"""
import math

import numpy as np
import pytest

from perceptron_c.theory import margin, mistake_bound


@pytest.fixture(scope="module")
def Perceptron():
    from perceptron_c import Perceptron

    return Perceptron


# ---------------------------------------------------------------------------------------------
# Hand-checked values
# ---------------------------------------------------------------------------------------------

# Points on a line, separated at x = 2: distance 1 to the closest points on either side.
LINE_X = [[0.0], [1.0], [3.0], [4.0]]
LINE_Y = [-1, -1, 1, 1]

# Origin-centred 2-D set: w = (1, 1) gives activations 2, 1, 2 and ||w|| = sqrt(2); R = 2.
PLANE_X = [[2.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]
PLANE_Y = [1, 1, -1]


def test_margin_points_on_a_line():
    assert margin(LINE_X, LINE_Y, [1.0], -2.0) == 1.0
    # the same hyperplane written with a longer (w, b) has the same geometric margin
    assert margin(LINE_X, LINE_Y, [4.0], -8.0) == 1.0
    # a shifted boundary at x = 1.5 is 0.5 from x = 1
    assert margin(LINE_X, LINE_Y, [1.0], -1.5) == 0.5


def test_mistake_bound_points_on_a_line():
    # R^2 = ||(4, 1)||^2 = 17, gamma = 1 / ||(1, -2)|| = 1/sqrt(5): (R/gamma)^2 = 85
    assert mistake_bound(LINE_X, LINE_Y, [1.0], -2.0) == pytest.approx(85.0, rel=1e-14)
    assert mistake_bound(LINE_X, LINE_Y, [3.0], -6.0) == pytest.approx(85.0, rel=1e-14)


def test_origin_centred_plane():
    assert margin(PLANE_X, PLANE_Y, [1.0, 1.0]) == pytest.approx(1 / math.sqrt(2), rel=1e-15)
    # (R / gamma)^2 = 4 / (1/2)
    assert mistake_bound(PLANE_X, PLANE_Y, [1.0, 1.0]) == pytest.approx(8.0, rel=1e-14)


def test_textbook_unit_case():
    # CS269 Theorem 1 with ||u|| = 1, ||x|| = 5, gamma = 5: at most one mistake
    assert mistake_bound([[3.0, 4.0], [-3.0, -4.0]], [1, -1], [0.6, 0.8]) == pytest.approx(1.0)


def test_intercept_none_and_zero_differ_only_in_radius():
    # same hyperplane through the origin: same margin; the bound gains the constant feature
    assert margin(PLANE_X, PLANE_Y, [1.0, 1.0], 0.0) == margin(PLANE_X, PLANE_Y, [1.0, 1.0])
    no_bias = mistake_bound(PLANE_X, PLANE_Y, [1.0, 1.0])
    with_bias = mistake_bound(PLANE_X, PLANE_Y, [1.0, 1.0], 0.0)
    r2 = 4.0  # max ||x||^2
    assert with_bias == pytest.approx(no_bias * (r2 + 1.0) / r2, rel=1e-14)
    assert with_bias == pytest.approx(10.0, rel=1e-14)


def test_non_separating_gives_minus_inf_and_inf():
    w_wrong = [-1.0, -1.0]
    assert margin(PLANE_X, PLANE_Y, w_wrong) == -math.inf
    assert mistake_bound(PLANE_X, PLANE_Y, w_wrong) == math.inf
    # one point misclassified is enough
    assert margin(LINE_X, LINE_Y, [1.0], -3.5) == -math.inf
    assert mistake_bound(LINE_X, LINE_Y, [1.0], -3.5) == math.inf


def test_point_on_the_hyperplane_does_not_count_as_separated():
    # x = 1 has activation exactly 0: the perceptron would count it as a mistake (y*a <= 0)
    assert margin(LINE_X, LINE_Y, [1.0], -1.0) == -math.inf
    assert mistake_bound(LINE_X, LINE_Y, [1.0], -1.0) == math.inf


@pytest.mark.parametrize("intercept", [None, 0.0, 1.0, -1.0])
def test_zero_coef_separates_nothing(intercept):
    assert margin(LINE_X, LINE_Y, [0.0], intercept) == -math.inf
    assert mistake_bound(LINE_X, LINE_Y, [0.0], intercept) == math.inf


def test_results_are_python_floats():
    for value in (margin(LINE_X, LINE_Y, [1.0], -2.0), mistake_bound(LINE_X, LINE_Y, [1.0], -2.0),
                  margin(LINE_X, LINE_Y, [0.0]), mistake_bound(LINE_X, LINE_Y, [0.0])):
        assert type(value) is float


def test_estimator_shaped_coef_and_intercept():
    # Perceptron.coef_ has shape (1, d) and intercept_ shape (1,)
    coef = np.array([[1.0]])
    intercept = np.array([-2.0])
    assert margin(LINE_X, LINE_Y, coef, intercept) == 1.0
    assert mistake_bound(LINE_X, LINE_Y, coef, intercept) == pytest.approx(85.0, rel=1e-14)
    assert margin(LINE_X, LINE_Y, coef, np.float32(-2.0)) == 1.0
    assert margin(LINE_X, LINE_Y, coef, np.array(-2.0)) == 1.0


def test_string_labels_map_the_second_sorted_class_to_plus_one():
    # np.unique order: ["ham", "spam"], so "spam" -> +1
    y = ["ham", "ham", "spam", "spam"]
    assert margin(LINE_X, y, [1.0], -2.0) == 1.0
    assert margin(LINE_X, y, [-1.0], 2.0) == -math.inf
    flipped = ["spam", "spam", "ham", "ham"]
    assert margin(LINE_X, flipped, [-1.0], 2.0) == 1.0
    assert mistake_bound(LINE_X, np.array(y, dtype=object), [1.0], -2.0) == pytest.approx(85.0)


@pytest.mark.parametrize("y", [
    [-1, -1, 1, 1],
    [-1.0, -1.0, 1.0, 1.0],
    np.array([-1, -1, 1, 1], dtype=np.int8),
    [0, 0, 1, 1],
    [3, 3, 7, 7],
    [False, False, True, True],
])
def test_numeric_and_boolean_labels(y):
    assert margin(LINE_X, y, [1.0], -2.0) == 1.0
    assert mistake_bound(LINE_X, y, [1.0], -2.0) == pytest.approx(85.0, rel=1e-14)


def test_extreme_scales_do_not_underflow_or_overflow():
    # ||w||^2 of w = 1e-200 underflows in float64 if computed naively
    assert margin(LINE_X, LINE_Y, [1e-200], -2e-200) == 1.0
    assert mistake_bound(LINE_X, LINE_Y, [1e-200], -2e-200) == pytest.approx(85.0, rel=1e-14)
    # ||x||^2 of x = 1e200 overflows if computed naively; the bound itself stays finite
    big = [[1e200, 0.0], [-1e200, 0.0]]
    assert mistake_bound(big, [1, -1], [1.0, 0.0]) == pytest.approx(1.0, rel=1e-14)
    assert mistake_bound(big, [1, -1], [1.0, 0.0], 0.0) == pytest.approx(1.0, rel=1e-14)
    # a separator that is nearly parallel to the data: the bound is huge but not an error
    assert mistake_bound([[1e154, 1.0], [1e154, -1.0]], [1, -1], [0.0, 1.0]) > 1e300


def test_float32_input_is_computed_in_float64():
    rng = np.random.default_rng(3)
    X32 = rng.normal(size=(50, 7)).astype(np.float32)
    w32 = rng.normal(size=7).astype(np.float32)
    y = np.where(X32.astype(np.float64) @ w32.astype(np.float64) > 0, 1, -1)
    X64, w64 = X32.astype(np.float64), w32.astype(np.float64)
    assert margin(X32, y, w32) == margin(X64, y, w64)
    assert mistake_bound(X32, y, w32, np.float32(0.0)) == mistake_bound(X64, y, w64, 0.0)


def test_inputs_are_not_modified():
    X = np.array(PLANE_X)
    y = np.array(PLANE_Y)
    coef = np.array([[1.0, 1.0]])
    intercept = np.array([0.0])
    copies = [a.copy() for a in (X, y, coef, intercept)]
    mistake_bound(X, y, coef, intercept)
    margin(X, y, coef, intercept)
    for before, after in zip(copies, (X, y, coef, intercept)):
        assert np.array_equal(before, after)


def test_sparse_matches_dense():
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(7)
    dense = rng.normal(size=(40, 9)) * (rng.random((40, 9)) < 0.4)
    u = rng.normal(size=9)
    b0 = 0.1
    y = np.where(dense @ u + b0 > 0, 1, -1)
    for fmt in ("csr", "csc", "coo"):
        X = sp.csr_matrix(dense).asformat(fmt)
        for intercept in (None, b0):
            assert margin(X, y, u, intercept) == pytest.approx(
                margin(dense, y, u, intercept), rel=1e-13)
            assert mistake_bound(X, y, u, intercept) == pytest.approx(
                mistake_bound(dense, y, u, intercept), rel=1e-13)
    # non-separating stays -inf / inf
    assert margin(sp.csr_matrix(dense), -y, u, b0) == -math.inf
    assert mistake_bound(sp.csr_matrix(dense), -y, u, b0) == math.inf


def test_sparse_duplicate_entries_are_summed_before_squaring():
    sp = pytest.importorskip("scipy.sparse")
    # row 0 stores 1.5 + 1.5 in column 0 (non-canonical CSR): its norm is 3, not sqrt(4.5)
    data = np.array([1.5, 1.5, 2.0])
    indices = np.array([0, 0, 1], dtype=np.int32)
    indptr = np.array([0, 2, 3])
    X = sp.csr_matrix((data, indices, indptr), shape=(2, 2))
    assert not X.has_canonical_format
    y = [1, -1]
    w = [1.0, -1.0]
    dense = X.toarray()
    assert dense.tolist() == [[3.0, 0.0], [0.0, 2.0]]
    assert mistake_bound(X, y, w) == pytest.approx(mistake_bound(dense, y, w), rel=1e-15)
    assert mistake_bound(X, y, w) == pytest.approx(9.0 / 2.0, rel=1e-15)  # (3 / (2/sqrt2))^2
    # the caller's matrix is left as it was
    assert X.nnz == 3 and not X.has_canonical_format


# ---------------------------------------------------------------------------------------------
# Errors name the argument
# ---------------------------------------------------------------------------------------------

X_NAMED, Y_NAMED = r"^X\b", r"\by\b"


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(X=[[0.0], [np.nan], [3.0], [4.0]]), ValueError, X_NAMED),
    (dict(X=[[0.0], [np.inf], [3.0], [4.0]]), ValueError, X_NAMED),
    (dict(X=[0.0, 1.0, 3.0, 4.0]), ValueError, X_NAMED),
    (dict(X=[[[0.0]], [[1.0]], [[3.0]], [[4.0]]]), ValueError, X_NAMED),
    (dict(X=np.zeros((0, 1)), y=[]), ValueError, X_NAMED),
    (dict(X=np.zeros((4, 0)), coef=[]), ValueError, X_NAMED),
    (dict(X=[["a"], ["b"], ["c"], ["d"]]), TypeError, X_NAMED),
    (dict(X=[[1j], [1j], [1j], [1j]]), (TypeError, ValueError), X_NAMED),
    (dict(X=None), (TypeError, ValueError), X_NAMED),
    (dict(y=[-1, 1, 1]), ValueError, Y_NAMED),
    (dict(y=[[-1, -1, 1, 1]]), ValueError, Y_NAMED),
    (dict(y=[-1.0, np.nan, 1.0, 1.0]), ValueError, Y_NAMED),
    (dict(y=np.array([1, "a", 1, "a"], dtype=object)), (TypeError, ValueError), Y_NAMED),
    (dict(y=None), (TypeError, ValueError), Y_NAMED),
    (dict(y=[0, 1, 2, 2]), ValueError, r"^y must have exactly two classes, got 3"),
    (dict(y=[1, 1, 1, 1]), ValueError, r"^y must have exactly two classes, got 1"),
    (dict(coef=[1.0, 2.0]), ValueError, r"^coef has 2 entries but X has 1 features"),
    (dict(coef=[[1.0], [2.0]]), ValueError, r"^coef\b"),
    (dict(coef=np.ones((1, 1, 1))), ValueError, r"^coef\b"),
    (dict(coef=[np.nan]), ValueError, r"^coef\b"),
    (dict(coef=[np.inf]), ValueError, r"^coef\b"),
    (dict(coef=["a"]), TypeError, r"^coef\b"),
    (dict(coef=None), TypeError, r"^coef\b"),
    (dict(intercept=[1.0, 2.0]), ValueError, r"^intercept\b"),
    (dict(intercept=np.nan), ValueError, r"^intercept\b"),
    (dict(intercept=np.array([np.inf])), ValueError, r"^intercept\b"),
    (dict(intercept="1.0"), TypeError, r"^intercept\b"),
])
@pytest.mark.parametrize("func", [margin, mistake_bound])
def test_bad_input_names_the_argument(func, kwargs, error, match):
    args = dict(X=LINE_X, y=LINE_Y, coef=[1.0], intercept=-2.0)
    args.update(kwargs)
    with pytest.raises(error, match=match):
        func(**args)


# ---------------------------------------------------------------------------------------------
# The perceptron keeps within the bounds
# ---------------------------------------------------------------------------------------------

def separable_set(seed, with_bias):
    """(X, y, u, b0, gamma0): random data separated by (u, b0) with margin at least gamma0.

    With a bias the cloud is centred away from the origin and the boundary passes near its
    centre, so the bias really is needed. Points closer than gamma0 to the boundary are
    dropped, so gamma0 is a floor on the geometric margin of (u, b0).
    """
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 301))
    d = int(rng.integers(2, 31))
    u = rng.normal(size=d)
    u_norm = np.linalg.norm(u)
    if with_bias:
        center = rng.normal(scale=2.0, size=d)
        b0 = float(-u @ center + rng.normal(scale=0.3) * u_norm)
    else:
        center = np.zeros(d)
        b0 = 0.0
    gamma0 = float(rng.uniform(0.02, 0.3))
    kept = []
    while sum(len(block) for block in kept) < n:
        candidates = center + rng.normal(size=(2 * n, d))
        distance = (candidates @ u + b0) / u_norm
        kept.append(candidates[np.abs(distance) >= gamma0])
    X = np.concatenate(kept)[:n]
    y = np.where(X @ u + b0 > 0, 1, -1)
    assert set(y.tolist()) == {-1, 1}
    return X, y, u, b0, gamma0


def test_separable_set_has_the_promised_margin():
    for seed in range(5):
        for with_bias in (False, True):
            X, y, u, b0, gamma0 = separable_set(seed, with_bias)
            assert margin(X, y, u, b0 if with_bias else None) >= gamma0
            assert margin(X, y, 2.5 * u, 2.5 * b0 if with_bias else None) == pytest.approx(
                margin(X, y, u, b0 if with_bias else None), rel=1e-12)


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("seed", range(100))
def test_total_mistakes_within_novikoff_bound(Perceptron, model_backend, seed, fit_intercept):
    """CS269 lecture, Theorem 1 (with the bias as a constant feature 1 when fitted)."""
    X, y, u, b0, _ = separable_set(seed, fit_intercept)
    bound = mistake_bound(X, y, u, b0 if fit_intercept else None)
    assert math.isfinite(bound)
    model = Perceptron(fit_intercept=fit_intercept, max_iter=10000, shuffle=True,
                       random_state=seed).fit(X, y)
    assert model.converged_
    mistakes = np.asarray(model.mistakes_)
    assert mistakes.ndim == 1 and mistakes[-1] == 0
    assert mistakes.sum() <= bound, (
        f"{mistakes.sum()} mistakes > bound {bound:.1f} (n={X.shape[0]}, d={X.shape[1]})")
    # the model it converged to separates the training data
    assert margin(X, y, model.coef_, model.intercept_ if fit_intercept else None) > 0


def test_bound_is_not_vacuous_on_random_sets(Perceptron):
    # On these sets the perceptron often uses several percent of its budget: a bound check
    # that could never fail would not show this.
    ratios = []
    for seed in range(10):
        X, y, u, _, _ = separable_set(seed, False)
        model = Perceptron(fit_intercept=False, max_iter=10000, shuffle=True,
                           random_state=seed).fit(X, y)
        ratios.append(np.sum(model.mistakes_) / mistake_bound(X, y, u))
    assert max(ratios) > 0.01, ratios


def test_bias_needs_the_constant_feature_in_the_bound(Perceptron, model_backend):
    """A bound that forgets the constant feature is violated; the absorbed one holds.

    Two points at x = 0.1 (-1) and x = 0.3 (+1), separated at x = 0.2 with margin 0.1. The
    naive (max|x| / margin)^2 = 9, but b moves by 1 per mistake while w moves by at most
    0.3, so the perceptron needs dozens of mistakes; with R = ||(0.3, 1)|| and
    gamma = 0.1 / ||(1, -0.2)|| the bound is about 113.
    """
    X = np.array([[0.1], [0.3]])
    y = np.array([-1, 1])
    naive = (0.3 / margin(X, y, [1.0], -0.2)) ** 2
    bound = mistake_bound(X, y, [1.0], -0.2)
    assert naive == pytest.approx(9.0)
    assert bound == pytest.approx((0.09 + 1.0) * (1.0 + 0.04) / 0.01)
    model = Perceptron(fit_intercept=True, max_iter=10000, shuffle=False).fit(X, y)
    assert model.converged_
    total = int(np.sum(model.mistakes_))
    assert total == _reference_perceptron_mistakes(X, y, fit_intercept=True)
    assert naive < total <= bound


@pytest.mark.parametrize("seed", range(5))
def test_sparse_training_within_bound(Perceptron, model_backend, seed):
    """Theorem 1 on CSR input (70% zeros), through the estimator's sparse path."""
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(3000 + seed)
    d = 25
    u = rng.normal(size=d)
    b0 = 0.5
    candidates = rng.normal(size=(600, d)) * (rng.random((600, d)) < 0.3)
    distance = (candidates @ u + b0) / np.linalg.norm(u)
    X = candidates[np.abs(distance) >= 0.1][:200]
    y = np.where(X @ u + b0 > 0, 1, -1)
    X_sparse = sp.csr_matrix(X)
    bound = mistake_bound(X_sparse, y, u, b0)
    assert bound == pytest.approx(mistake_bound(X, y, u, b0), rel=1e-12)
    model = Perceptron(fit_intercept=True, max_iter=10000, shuffle=True,
                       random_state=seed).fit(X_sparse, y)
    assert model.converged_
    assert np.sum(model.mistakes_) <= bound


def _reference_perceptron_mistakes(X, y, fit_intercept, max_epochs=10000):
    """CIML ch. 4, Alg. 5 in plain Python, rows in order: the total number of mistakes."""
    w = [0.0] * X.shape[1]
    b = 0.0
    total = 0
    for _ in range(max_epochs):
        mistakes = 0
        for x, label in zip(X.tolist(), y.tolist()):
            activation = sum(wj * xj for wj, xj in zip(w, x)) + b
            if label * activation <= 0:
                mistakes += 1
                w = [wj + label * xj for wj, xj in zip(w, x)]
                if fit_intercept:
                    b += label
        total += mistakes
        if mistakes == 0:
            return total
    raise AssertionError("reference perceptron did not converge")


def scaled_rows_set(seed):
    """A separable origin-centred set whose row norms span four orders of magnitude."""
    X, y, u, _, _ = separable_set(1000 + seed, False)
    rng = np.random.default_rng(seed)
    return X * 10.0 ** rng.uniform(-2, 2, size=(X.shape[0], 1)), y, u


@pytest.mark.parametrize("seed", range(30))
def test_normalized_perceptron_within_one_over_gamma_n_squared(Perceptron, model_backend, seed):
    """CS269 lecture, Theorem 2: at most 1/gamma_n^2 mistakes, gamma_n on x/||x||."""
    X, y, u = scaled_rows_set(seed)
    unit_rows = X / np.linalg.norm(X, axis=1, keepdims=True)
    gamma_n = margin(unit_rows, y, u)
    bound_n = 1.0 / gamma_n**2
    # on unit rows R = 1, so Theorem 1 gives the same number
    assert mistake_bound(unit_rows, y, u) == pytest.approx(bound_n, rel=1e-12)
    # CS269: the normalized bound is never worse than (D / gamma)^2 on the raw rows
    assert bound_n <= mistake_bound(X, y, u) * (1 + 1e-12)
    model = Perceptron(normalize=True, fit_intercept=False, max_iter=10000, shuffle=True,
                       random_state=seed).fit(X, y)
    assert model.converged_
    assert np.sum(model.mistakes_) <= bound_n


@pytest.mark.parametrize("seed", range(10))
def test_normalized_perceptron_with_intercept(Perceptron, model_backend, seed):
    """With an intercept the update is y (x, 1)/||(x, 1)||: Theorem 2 on the augmented rows."""
    X, y, u, b0, _ = separable_set(2000 + seed, True)
    augmented = np.hstack([X, np.ones((X.shape[0], 1))])
    unit_rows = augmented / np.linalg.norm(augmented, axis=1, keepdims=True)
    bound_n = mistake_bound(unit_rows, y, np.append(u, b0))
    model = Perceptron(normalize=True, fit_intercept=True, max_iter=10000, shuffle=True,
                       random_state=seed).fit(X, y)
    assert model.converged_
    assert np.sum(model.mistakes_) <= bound_n
