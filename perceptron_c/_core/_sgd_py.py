"""Pure-Python twin of ``_sgd_c``: scikit-learn's stochastic-gradient epoch, the specification.

One call of `sgd_epoch_dense` / `sgd_epoch_csr` is one epoch of the inner loop of
scikit-learn 1.8's and 1.9's ``_plain_sgd64`` (``sklearn/linear_model/_sgd_fast.pyx.tp``,
identical in the two for these losses) on its ``WeightVector64``
(``sklearn/utils/_weight_vector.pyx.tp``), restricted to what the perceptron family needs:
the hinge loss with a threshold (0: the perceptron, 1: the SVM / passive-aggressive
margin), squared hinge, epsilon-insensitive and squared epsilon-insensitive losses; a constant
learning rate or the passive-aggressive steps of Crammer et al., "Online Passive-Aggressive
Algorithms", JMLR 7 (2006), Fig. 1 (PA, PA-I, PA-II); no, L2, L1 or elastic-net penalty, the
L1 part by the cumulative truncation of Tsuruoka, Tsujii & Ananiadou, ACL 2009, Fig. 2; and
averaging by Bottou's trick ("Stochastic Gradient Descent Tricks", 2012, sec. 5.3). The caller
owns the epoch loop and the stopping rule. What scikit-learn keeps across the epochs of one
``_plain_sgd`` call lives in the arrays passed in: `sgd_start` sets it up as that call's
prologue does, each epoch call continues it, and `sgd_finish` does what the call does when it
ends (the last reset of the weight scale, which folds the averaging state into ``aw``).

Arrays: X C-contiguous float32/float64 (CSR: data, indices int32, indptr int64); y float64
(+1/-1 for classification, the class weight goes by the sign of y; real targets for
regression); sample_weight float64 per row; order int64 row indices; w float64 weights stored
unscaled (the true weights are ``state[WSCALE] * w``); aw float64 averaging sums, length 0
when not averaging (the averaged weights are ``aw`` after `sgd_finish`); q float64 Tsuruoka's
applied-penalty record, one per feature with an L1 part (l1, elasticnet), length 0 otherwise;
``state`` float64 of length N_STATE (slots WSCALE ... OBJECTIVE below); ``params`` float64 of
length N_PARAMS (ALPHA ... AVERAGE_START). Per example, in scikit-learn's order:

 1. p = (sum over the row's entries, in index order, of w[j] * x[j]) * wscale + intercept;
 2. with ``compute_objective``: loss(y, p) is added to SUMLOSS and OBJECTIVE, and with a
    penalty and the constant rate also alpha * ((1 - l1_ratio) * 0.5 * nrm * nrm + l1_ratio *
    L1_NORM) where nrm = sqrt(SQ_NORM) (l1_ratio is 0 for l2 and 1 for l1);
 3. update: constant rate -eta0 * dloss (dloss clipped to [-1e12, 1e12]); PA and PA-I: skip
    the example entirely (no t, no averaging, no penalty) when ||x||^2 (a sequential sum) is
    0, else loss / ||x||^2, for PA-I min(eta0, that); PA-II loss / (||x||^2 + 0.5 / eta0);
    a PA step is then multiplied by y (hinge loss) or negated when y - p < 0 (other losses);
 4. update *= class_weight * sample_weight, class_weight = WEIGHT_POS if y > 0 else WEIGHT_NEG;
 5. l2 / elasticnet: scale the weights by max(0, 1 - ((1 - l1_ratio) * eta0) * alpha):
    wscale, SQ_NORM (by c * c) and L1_NORM (by |c|); below 1e-9 the scale is reset (below);
 6. if update != 0: w[j] += x[j] * (update / wscale) over the row's entries, then SQ_NORM and
    L1_NORM become the sums of w[j]^2 and |w[j]| over *those entries only* (times wscale^2 and
    wscale; scikit-learn's quirk: for sparse rows they forget the other features), and the
    intercept (with fit_intercept) gains update * INTERCEPT_DECAY;
 7. averaging (aw given and 0 < AVERAGE_START <= t), with k = t - AVERAGE_START + 1:
    aw[j] += (AVERAGE_A * x[j]) * (-update / wscale) over the row's entries, then AVERAGE_B /=
    1 - 1/k (when k > 1), AVERAGE_A += (1/k * AVERAGE_B) * wscale, and AVERAGE_INTERCEPT +=
    (intercept - AVERAGE_INTERCEPT) / k;
 8. l1 / elasticnet: U += (l1_ratio * eta0) * alpha, then Tsuruoka's truncation of each of the
    row's weights towards 0 by U - q[j] (in true-weight units), q[j] recording what was
    applied; the norms are not updated (scikit-learn's quirk);
 9. t += 1.

The reset of the weight scale (step 5 and `sgd_finish`): aw[j] = fma(AVERAGE_A, w[j], aw[j])
rounded once (scikit-learn calls BLAS daxpy there; measured with scipy-openblas 0.3.30,
OpenBLAS's SkylakeX kernel fuses every element, its Haswell/Zen kernel whole blocks of 16
only), then aw[j] *= 1 / AVERAGE_B, AVERAGE_A = 0, AVERAGE_B = 1; w[j] *= wscale,
wscale = 1. Every other operation is one IEEE double operation in the order written, never
fused (the C twin builds with -ffp-contract=off).

Where this is bit for bit scikit-learn: dense float64 rows (every feature is visited, as
scikit-learn's dense dataset does) and CSR float64 rows, any order; checked against
Perceptron, SGDClassifier, SGDRegressor and the PassiveAggressive estimators in
``tests/test_sgd_routines.py`` on x86-64. scikit-learn 1.6.0 to 1.7.2 update w, aw, q, the
intercept and the averaging state exactly alike (their PA step bound is a separate ``C``, which
``params[ETA0]`` stands for); they track no L1 norm, update ``sq_norm`` incrementally (read
only by their verbose output) and stop on ``sumloss > best_loss - tol * n``, their sumloss
being SUMLOSS, where 1.8 stops on OBJECTIVE / n > best - tol (``tests/sklearn_versions.py``).
Where it is not:
- float32 input: scikit-learn then computes with float32 weights, targets, sample weights and
  steps (and resets the scale below 1e-6); these routines upcast the data and compute in
  float64, so the results agree to float32 precision only;
- the initial SQ_NORM and L1_NORM of nonzero starting weights: scikit-learn takes them from
  BLAS ddot/dasum (blocked sums), `sgd_start` from sequential sums; they only enter OBJECTIVE,
  until the first nonzero update recomputes them (step 6);
- non-finite weights: scikit-learn finishes the epoch and raises ValueError; here the epoch
  stops after the first example that leaves the intercept or a weight it wrote non-finite, the
  state is written back as it is (that example counted in t), and FloatingPointError names
  the position in the visiting order;
- early_stopping: scikit-learn draws the validation split from its own generator. Given that
  split (its training rows as ``order``, compute_objective off, the validation score taken,
  as scikit-learn does, on the *unscaled* w and the intercept) the fit is exact again;
- on CPUs whose scikit-learn build contracts a * b + c into FMA (aarch64, where GCC contracts
  by default) or whose OpenBLAS axpy does not fuse every element (AVX2-only x86-64: the
  elements past the last whole block of 16), the last bits of averaged fits may differ.

Both twins check shapes, the option numbers and the visiting order, that ``state`` comes from
`sgd_start` (WSCALE > 0, AVERAGE_B > 0, SQ_NORM not negative) and that PA-II's C is positive
and finite: then no division by zero can happen, and the twins agree on every input they
accept (the gate checks the data once per fit: finite values, CSR indices in range).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

from ._contract import need

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeAlias

    from ._contract import _D, _F, _I32, _I64

    # row i as (values, feature indices)
    _Rows: TypeAlias = Callable[[int], tuple[list[float], Sequence[int]]]

__all__ = ["sgd_start", "sgd_epoch_dense", "sgd_epoch_csr", "sgd_finish", "sklearn_shuffle"]

# slots of ``state``
WSCALE = 0             # the true weights are WSCALE * w
SQ_NORM = 1            # scikit-learn's tracked ||wscale * w||^2
L1_NORM = 2            # scikit-learn's tracked ||wscale * w||_1
U = 3                  # cumulative L1 penalty per weight (Tsuruoka's u)
INTERCEPT = 4
AVERAGE_A = 5          # averaging: the averaged weights are (aw + AVERAGE_A * w) / AVERAGE_B
AVERAGE_B = 6
AVERAGE_INTERCEPT = 7
T = 8                  # scikit-learn's t: 1 + the examples seen (over all calls)
SUMLOSS = 9            # this epoch's sum of losses (with compute_objective)
OBJECTIVE = 10         # this epoch's sum of losses plus penalty terms (with compute_objective)
N_STATE = 11
# slots of ``params``
ALPHA = 0
L1_RATIO = 1           # used with the elasticnet penalty only
ETA0 = 2               # the constant learning rate, or the PA-I / PA-II aggressiveness C
INTERCEPT_DECAY = 3    # scikit-learn: 1.0 on dense data, 0.01 on sparse data
WEIGHT_POS = 4         # class weight of the examples with y > 0
WEIGHT_NEG = 5         # class weight of the others
EPSILON_OR_THRESHOLD = 6  # the hinge losses' threshold, or the insensitive losses' epsilon
AVERAGE_START = 7      # scikit-learn's ``average``: average from t >= it (1 for True)
N_PARAMS = 8
# loss
LOSS_HINGE = 0
LOSS_SQUARED_HINGE = 1
LOSS_EPSILON_INSENSITIVE = 2
LOSS_SQUARED_EPSILON_INSENSITIVE = 3
# learning_rate
RATE_CONSTANT = 0      # eta = ETA0
RATE_PA = 1            # tau = loss / ||x||^2 ([Crammer2006], PA)
RATE_PA1 = 2           # tau = min(C, loss / ||x||^2) (PA-I), C = ETA0
RATE_PA2 = 3           # tau = loss / (||x||^2 + 1 / (2 C)) (PA-II)
# penalty, numbered as scikit-learn numbers them
PENALTY_NONE = 0
PENALTY_L1 = 1
PENALTY_L2 = 2
PENALTY_ELASTICNET = 3

_MAX_DLOSS = 1e12      # scikit-learn clips the loss derivative to this
_RESET_WSCALE = 1e-9   # below it the weight scale is folded into w


def _fma(a: float, b: float, c: float) -> float:
    """a * b + c rounded once (IEEE 754 fusedMultiplyAdd), like C99 fma() for every input:
    nan for an invalid operation and +-inf for an overflow, where Python 3.13's math.fma
    raises ValueError and OverflowError."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return a * b + c  # the product is exactly inf or nan already
    if not math.isfinite(c):
        return c
    if _math_fma is not None:
        try:
            return _math_fma(a, b, c)
        except OverflowError:  # C's fma gives inf of the exact result's sign: below
            pass
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:  # a zero product keeps IEEE's signed-zero sum; a cancellation is +0
        return a * b + c if a == 0.0 or b == 0.0 else 0.0
    try:
        r = float(exact)  # int / int: correctly rounded
    except OverflowError:
        return math.inf if exact > 0 else -math.inf
    return r if r != 0.0 else (0.0 if exact > 0 else -0.0)  # underflow keeps the sign


_math_fma: Callable[[float, float, float], float] | None = getattr(math, "fma", None)


class _Weights:
    """scikit-learn's WeightVector: w stored unscaled, its tracked norms, the averaging sums."""

    def __init__(self, w: list[float], aw: list[float] | None, st: list[float]) -> None:
        self.w, self.aw = w, aw
        self.wscale, self.sq_norm, self.l1_norm = st[WSCALE], st[SQ_NORM], st[L1_NORM]
        self.average_a, self.average_b = st[AVERAGE_A], st[AVERAGE_B]

    def dot(self, x: list[float], cols: Sequence[int]) -> float:
        s = 0.0
        for v, j in zip(x, cols):
            s += self.w[j] * v
        return s * self.wscale

    def add(self, x: list[float], cols: Sequence[int], c: float) -> None:
        """w += x * c (true weights); the norms are recomputed over the row's entries."""
        w, ws = self.w, self.wscale
        l2 = l1 = 0.0
        for v, j in zip(x, cols):
            w[j] += v * (c / ws)
            l2 += w[j] * w[j]
            l1 += abs(w[j])
        self.sq_norm = l2 * (ws * ws)
        self.l1_norm = l1 * ws

    def add_average(self, x: list[float], cols: Sequence[int], c: float, k: float) -> None:
        """Bottou's averaging step for the k-th averaged example."""
        assert self.aw is not None
        aw, ws = self.aw, self.wscale
        mu = 1.0 / k
        for v, j in zip(x, cols):
            aw[j] += self.average_a * v * (-c / ws)
        if k > 1:
            self.average_b /= (1.0 - mu)
        self.average_a += mu * self.average_b * ws

    def scale(self, c: float) -> None:
        self.wscale *= c
        self.sq_norm *= (c * c)
        self.l1_norm *= abs(c)
        if self.wscale < _RESET_WSCALE:
            self.reset_wscale()

    def reset_wscale(self) -> None:
        """Fold the scale into w and the averaging coefficients into aw."""
        w = self.w
        if self.aw is not None:
            aw, a = self.aw, self.average_a
            for j in range(len(aw)):
                aw[j] = _fma(a, w[j], aw[j])  # BLAS daxpy (as OpenBLAS SkylakeX)
            r = 1.0 / self.average_b
            for j in range(len(aw)):
                aw[j] *= r
            self.average_a, self.average_b = 0.0, 1.0
        ws = self.wscale
        for j in range(len(w)):
            w[j] *= ws
        self.wscale = 1.0

    def save(self, st: list[float]) -> None:
        st[WSCALE], st[SQ_NORM], st[L1_NORM] = self.wscale, self.sq_norm, self.l1_norm
        st[AVERAGE_A], st[AVERAGE_B] = self.average_a, self.average_b


def _loss(loss: int, margin: float, y: float, p: float) -> float:
    if loss == LOSS_HINGE:
        z = p * y
        return margin - z if z <= margin else 0.0
    if loss == LOSS_SQUARED_HINGE:
        z = margin - p * y
        return z * z if z > 0 else 0.0
    r = abs(y - p) - margin
    if loss == LOSS_EPSILON_INSENSITIVE:
        return r if r > 0 else 0.0
    return r * r if r > 0 else 0.0


def _dloss(loss: int, margin: float, y: float, p: float) -> float:
    """d loss / d p, clipped to [-1e12, 1e12]."""
    if loss == LOSS_HINGE:
        g = -y if p * y <= margin else 0.0
    elif loss == LOSS_SQUARED_HINGE:
        z = margin - p * y
        g = -2.0 * y * z if z > 0 else 0.0
    elif loss == LOSS_EPSILON_INSENSITIVE:
        g = -1.0 if y - p > margin else 1.0 if p - y > margin else 0.0
    else:
        z = y - p
        g = -2.0 * (z - margin) if z > margin else 2.0 * (-z - margin) if z < -margin else 0.0
    if g < -_MAX_DLOSS:
        return -_MAX_DLOSS
    return _MAX_DLOSS if g > _MAX_DLOSS else g


def _update(x: list[float], loss: int, rate: int, margin: float, eta0: float, y: float,
            p: float) -> float | None:
    """The signed step of one example before weighting; None: skip the example (PA on a
    zero row)."""
    if rate == RATE_CONSTANT:
        return -eta0 * _dloss(loss, margin, y, p)
    sq = 0.0
    for v in x:
        sq += v * v
    if rate == RATE_PA2:
        update = _loss(loss, margin, y, p) / (sq + 0.5 / eta0)
    elif sq == 0:
        return None
    else:
        update = _loss(loss, margin, y, p) / sq
        if rate == RATE_PA1 and not update < eta0:
            update = eta0
    if loss == LOSS_HINGE:
        return update * y
    return update * -1.0 if y - p < 0 else update


def _l1_truncate(wv: _Weights, q: list[float], cols: Sequence[int], u: float) -> None:
    """Tsuruoka et al. 2009, Fig. 2, ApplyPenalty, on the row's weights."""
    w, ws = wv.w, wv.wscale
    for j in cols:
        z = w[j]
        if ws * z > 0.0:
            v = w[j] - ((u + q[j]) / ws)
            w[j] = v if v > 0.0 else 0.0
        elif ws * z < 0.0:
            v = w[j] + ((u - q[j]) / ws)
            w[j] = v if v < 0.0 else 0.0
        q[j] += ws * (w[j] - z)


def _penalty_term(wv: _Weights, alpha: float, l1_ratio: float) -> float:
    nrm = math.sqrt(wv.sq_norm)
    return alpha * ((1 - l1_ratio) * 0.5 * (nrm * nrm) + l1_ratio * wv.l1_norm)


def _non_finite(t: int, i: int) -> FloatingPointError:
    return FloatingPointError(f"non-finite weights or intercept after position {t} of the "
                              f"visiting order (row {i}): the weights overflow float64")


def _epoch(row: _Rows, y: _D, sample_weight: _D, order: _I64, w: _D, aw: _D, q: _D, state: _D,
           params: _D, loss: int, learning_rate: int, penalty: int, fit_intercept: bool,
           compute_objective: bool) -> int:
    """_plain_sgd's loop over the examples of one epoch (steps 1-9 of the module docstring)."""
    st, prm, ql = state.tolist(), params.tolist(), q.tolist()
    wv = _Weights(w.tolist(), aw.tolist() if aw.shape[0] else None, st)
    alpha, eta, margin = prm[ALPHA], prm[ETA0], prm[EPSILON_OR_THRESHOLD]
    l1_ratio = {PENALTY_L2: 0.0, PENALTY_L1: 1.0}.get(penalty, prm[L1_RATIO])
    intercept, avg_intercept, t, u = st[INTERCEPT], st[AVERAGE_INTERCEPT], st[T], st[U]
    sumloss = objective = 0.0
    yl, swl = y.tolist(), sample_weight.tolist()
    truncating = penalty in (PENALTY_L1, PENALTY_ELASTICNET)
    nonzero, error = 0, None
    for pos, i in enumerate(order.tolist()):
        x, cols = row(i)
        yi = yl[i]
        p = wv.dot(x, cols) + intercept
        if compute_objective:
            cur = _loss(loss, margin, yi, p)
            sumloss += cur
            objective += cur
            if learning_rate == RATE_CONSTANT and penalty != PENALTY_NONE:
                objective += _penalty_term(wv, alpha, l1_ratio)
        class_weight = prm[WEIGHT_POS] if yi > 0.0 else prm[WEIGHT_NEG]
        update = _update(x, loss, learning_rate, margin, eta, yi, p)
        if update is None:
            continue
        update *= class_weight * swl[i]
        if penalty >= PENALTY_L2:
            c = 1.0 - ((1.0 - l1_ratio) * eta * alpha)
            wv.scale(c if c > 0 else 0.0)
        if update != 0.0:
            nonzero += 1
            wv.add(x, cols, update)
            if fit_intercept:
                intercept += update * prm[INTERCEPT_DECAY]
        if wv.aw is not None and 0 < prm[AVERAGE_START] <= t:
            k = t - prm[AVERAGE_START] + 1
            wv.add_average(x, cols, update, k)
            avg_intercept += ((intercept - avg_intercept) / k)
        if truncating:
            u += (l1_ratio * eta * alpha)
            _l1_truncate(wv, ql, cols, u)
        t += 1
        touched = update != 0.0 or truncating
        if not math.isfinite(intercept) or (
                touched and not all(math.isfinite(wv.w[j]) for j in cols)):
            error = _non_finite(pos, i)
            break
    wv.save(st)
    st[INTERCEPT], st[AVERAGE_INTERCEPT], st[T], st[U] = intercept, avg_intercept, t, u
    st[SUMLOSS], st[OBJECTIVE] = sumloss, objective
    w[:], state[:] = wv.w, st
    if wv.aw is not None:
        aw[:] = wv.aw
    if ql:
        q[:] = ql
    if error is not None:
        raise error
    return nonzero


def _check_started(state: _D) -> None:
    # the divisions by WSCALE and AVERAGE_B, and sqrt(SQ_NORM), stay those of the C twin
    need(state[WSCALE] > 0 and state[AVERAGE_B] > 0 and not state[SQ_NORM] < 0,
         "state must come from sgd_start (WSCALE > 0, AVERAGE_B > 0, SQ_NORM >= 0)")


def _check_common(n_rows: int, d: int, y: _D, sample_weight: _D, order: _I64, w: _D, aw: _D,
                  q: _D, state: _D, params: _D, loss: int, learning_rate: int,
                  penalty: int) -> None:
    need(y.shape[0] == n_rows, "y must have one target per row")
    need(sample_weight.shape[0] == n_rows, "sample_weight must have one weight per row")
    need(w.shape[0] == d, "w must have one weight per feature")
    need(aw.shape[0] in (0, d), "aw must have one entry per feature, or length 0")
    need(q.shape[0] == (d if penalty in (PENALTY_L1, PENALTY_ELASTICNET) else 0),
         "q must have one entry per feature with an L1 penalty, length 0 otherwise")
    need(state.shape[0] == N_STATE, f"state must have length {N_STATE}")
    _check_started(state)
    need(params.shape[0] == N_PARAMS, f"params must have length {N_PARAMS}")
    need(learning_rate != RATE_PA2 or 0 < params[ETA0] < math.inf,
         "params[ETA0] (C) must be positive and finite with RATE_PA2")
    need(0 <= loss <= 3, "loss must be one of the LOSS_* constants")
    need(0 <= learning_rate <= 3, "learning_rate must be one of the RATE_* constants")
    need(0 <= penalty <= 3, "penalty must be one of the PENALTY_* constants")
    need(all(0 <= i < n_rows for i in order.tolist()),
         f"order must hold row indices in [0, {n_rows})")


def sgd_start(w: _D, q: _D, state: _D, intercept: float, average_intercept: float,
              t: float) -> None:
    """Set up ``state`` and ``q`` as a ``_plain_sgd`` call does before its first epoch.

    The weight scale is 1, the tracked norms are those of w (sequential sums), the averaging
    coefficients are (0, 1), the L1 record is cleared; ``t`` is scikit-learn's ``t_``
    (1.0 for a fresh fit).
    """
    need(state.shape[0] == N_STATE, f"state must have length {N_STATE}")
    need(q.shape[0] in (0, w.shape[0]), "q must have one entry per feature, or length 0")
    sq = l1 = 0.0
    for v in w.tolist():
        sq += v * v
        l1 += abs(v)
    st = [0.0] * N_STATE
    st[WSCALE], st[SQ_NORM], st[L1_NORM], st[AVERAGE_B] = 1.0, sq, l1, 1.0
    st[INTERCEPT], st[AVERAGE_INTERCEPT], st[T] = intercept, average_intercept, t
    state[:] = st
    q[:] = 0.0


def sgd_epoch_dense(X: _F, y: _D, sample_weight: _D, order: _I64, w: _D, aw: _D, q: _D,
                    state: _D, params: _D, loss: int, learning_rate: int, penalty: int,
                    fit_intercept: bool, compute_objective: bool) -> int:
    """One epoch of scikit-learn's SGD over the dense rows X[order]; every feature of a row
    is visited, zeros included, as scikit-learn's dense dataset does. Returns the number of
    examples whose update was nonzero (the perceptron's mistakes). SUMLOSS and OBJECTIVE
    hold this epoch's sums afterwards (0 without ``compute_objective``)."""
    _check_common(X.shape[0], X.shape[1], y, sample_weight, order, w, aw, q, state, params,
                  loss, learning_rate, penalty)
    rows, cols = X.tolist(), range(X.shape[1])
    return _epoch(lambda i: (rows[i], cols), y, sample_weight, order, w, aw, q, state,
                  params, loss, learning_rate, penalty, fit_intercept, compute_objective)


def sgd_epoch_csr(data: _F, indices: _I32, indptr: _I64, y: _D, sample_weight: _D,
                  order: _I64, w: _D, aw: _D, q: _D, state: _D, params: _D, loss: int,
                  learning_rate: int, penalty: int, fit_intercept: bool,
                  compute_objective: bool) -> int:
    """`sgd_epoch_dense` on CSR rows: only a row's stored entries are visited."""
    p = indptr.tolist()
    ok = len(p) >= 1 and indices.shape[0] == data.shape[0] and p[0] == 0
    need(ok and p[-1] == data.shape[0] and all(p[k] <= p[k + 1] for k in range(len(p) - 1)),
         "indptr must be monotone from 0 to len(data), len(indices) == len(data)")
    _check_common(len(p) - 1, w.shape[0], y, sample_weight, order, w, aw, q, state, params,
                  loss, learning_rate, penalty)
    dl, ix = data.tolist(), indices.tolist()
    return _epoch(lambda i: (dl[p[i]:p[i + 1]], ix[p[i]:p[i + 1]]), y, sample_weight, order,
                  w, aw, q, state, params, loss, learning_rate, penalty, fit_intercept,
                  compute_objective)


def sgd_finish(w: _D, aw: _D, state: _D) -> None:
    """End a run as ``_plain_sgd`` ends: reset the weight scale (w becomes the true weights,
    WSCALE 1) and fold the averaging coefficients into aw (then the averaged weights)."""
    need(state.shape[0] == N_STATE, f"state must have length {N_STATE}")
    _check_started(state)
    need(aw.shape[0] in (0, w.shape[0]), "aw must have one entry per feature, or length 0")
    st = state.tolist()
    wv = _Weights(w.tolist(), aw.tolist() if aw.shape[0] else None, st)
    wv.reset_wscale()
    wv.save(st)
    w[:], state[:] = wv.w, st
    if wv.aw is not None:
        aw[:] = wv.aw


def sklearn_shuffle(index: _I64, seed: int) -> None:
    """Permute ``index`` in place as scikit-learn's ``SequentialDataset.shuffle(seed)`` does:
    Fisher-Yates from the front, row i swapped with row i + r % (n - i), r the next number of
    its xorshift generator (``our_rand_r``: a zero state becomes 1; x ^= x << 13, x ^= x >> 17,
    x ^= x << 5 on 32 bits; r = x mod 2^31). The seed is passed by value: scikit-learn applies
    the same permutation again to the previous order at each epoch of one ``fit``."""
    need(0 <= seed < 2**32, "seed must lie in [0, 2^32)")
    idx, s, n = index.tolist(), int(seed), index.shape[0]
    for i in range(n - 1):
        if s == 0:
            s = 1
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        j = i + (s % 2**31) % (n - i)
        idx[i], idx[j] = idx[j], idx[i]
    index[:] = idx
