"""Pure-Python twin of ``_budget_c``: kernel perceptrons on a budget, the specification.

The kernel perceptron of ``_dual_py`` keeps every example it ever made a mistake on. These
routines keep at most ``B`` of them, in B *slots*, and differ in what happens to a mistake on
a new example when all B slots are taken (``policy``):

- 0, stop: the Stoptron, the baseline of Orabona, Keshet & Caputo (JMLR 2009): no update;
- 1, random: the Randomized Budget Perceptron (Cavallanti, Cesa-Bianchi & Gentile, Machine
  Learning 2007): the new example replaces the support vector in slot ``rand[t]``, which the
  caller draws uniformly from [0, B) (so both twins make the same choices);
- 2, oldest: the new example replaces the support vector inserted first. With ``shrink``
  given this is the self-tuned Forgetron (Dekel, Shalev-Shwartz & Singer, SIAM J. Comput.
  2008): every coefficient is first multiplied by phi in (0, 1], the largest value that
  keeps the removals' damage Q within 15/32 of the mistakes (see `_forgetron_phi`).

`projectron_epoch` is the Projectron and the Projectron++ (Orabona, Keshet & Caputo, JMLR
2009): a mistake on an example whose image is within ``eta`` of the span of the support set
changes the coefficients by its projection instead of adding it; K^-1, the inverse Gram of
the support set, is kept up to date by a rank-one formula in O(B^2) per addition. Once the
B slots are full every update is projected, whatever its distance to the span.

A mistake on an example that is already a support vector (in an earlier epoch of the same
call) adds to its coefficient, as in ``_dual_py``; the budget is then untouched.

B is read from the arrays, and a call needs only as many slots as it can fill: with B at
least counts[0] plus its distinct rows not in a slot (B >= counts[0] + len(rows) will do), it
never finds them full and runs exactly as with any larger B. So a caller with a large budget
gives the slots its support set may reach, not the budget (``rand`` is then never used: any
entries in [0, B) do).

Layout shared by all routines (one call runs over the examples ``rows``, in that order):

- ``alpha`` (R, B) coefficients of the slots (R = 1: binary, f = alpha[0] . k + b[0], class
  1 where f > 0; R = K >= 3 classes: argmax_k alpha[k] . k + b[k], ties to the lowest k);
  slots [0, n) hold the support vectors, n = counts[0]. ``y`` holds class indices.
- ``K`` (rows, n0 + m) kernel values, m = len(rows): row t (< m) for the example rows[t]
  against the *universe*: columns [0, n0) the slots' vectors when the call starts, column
  n0 + t the example rows[t] itself. Rows from m on are extra rows for the slots' vectors
  (the Forgetron needs f(x_r) for the slot r it removes). `budget_epoch_exact` takes int32
  exponents E (the conjunction kernel 2^E, exact, as in ``_conjunction_py``).
- ``slots`` (4, B) int64: col (column of K for each slot's vector), krow (its row of K, or
  -1), stamp (insertion time: smaller is older), example (its index in y, or -1).
- ``where`` (len(y),) int64: the slot of each example, or -1. counts (5,) int64: n, the next
  stamp, evictions (for the Stoptron: mistakes not stored), projections, all mistakes (M).
- ``fit_intercept``: b is the coefficient of the constant feature, the kernel K + 1 (in the
  kernel perceptron b += y on every mistake is exactly that): b = sum_s alpha[:, s] at all
  times, so a removed vector takes its share of b with it, the Forgetron shrinks b with the
  rest, and a projection moves b by y sum_j d_j. Without it every rule runs on K.
- ``u``, ``beta``, ``count``: averaging as in ``_dual_py`` ([Daume2017] Alg. 7): a change v of
  a coefficient adds v c to u (and of b to beta); the averaged coefficients are alpha - u / c.
  A removed slot takes its u (and its share of beta) with it: memory stays O(B).

An activation (or, in the Forgetron and the Projectron, a quantity derived from the kernel
values) that is not finite stops the call: the state is written back as it is and
FloatingPointError names the position. Arithmetic contract (shared with the C twin, which
matches bit for bit): activations are 4-lane sums over the slots in slot order (slot s into
lane s % 4, ``_contract.dot4``) plus b; every other sum runs in index order; each
expression is evaluated in the order written here.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ._contract import check_avg, check_headroom, dot4, exact, need, non_finite

if TYPE_CHECKING:
    from typing import Any

    from ._contract import _D, _I32, _I64

__all__ = ["budget_epoch", "budget_epoch_exact", "projectron_epoch"]

FIFTEEN_32 = 15.0 / 32.0  # the Forgetron's share of the mistakes its removals may cost


def _check(shape_k: tuple[int, ...], rows: _I64, y: _I64, alpha: Any, b: Any, slots: _I64,
           where: _I64, counts: _I64) -> int:
    """The checks every routine makes (same messages as the C twin); returns n0."""
    n_rows, B = alpha.shape
    m, n_y = len(rows), y.shape[0]
    need(B >= 1 and b.shape == (n_rows,), "alpha must be (R, B) with B >= 1 and b (R,)")
    need(slots.shape == (4, B) and counts.shape == (5,) and where.shape == (n_y,),
         "slots must be (4, B), counts (5,) and where (len(y),)")
    need(shape_k[0] >= m and shape_k[1] >= m, "K must have a row and a column per row")
    need(all(0 <= i < n_y for i in rows.tolist()), f"rows must lie in [0, {n_y})")
    need(all(0 <= v < max(n_rows, 2) for v in y.tolist()),
         f"y must lie in [0, {max(n_rows, 2)})")
    n = int(counts[0])
    need(0 <= n <= B and all(v >= 0 for v in counts.tolist()),
         "counts must be >= 0 with counts[0] <= B")
    col, krow, _, example = slots.tolist()
    need(all(0 <= col[s] < shape_k[1] and -1 <= krow[s] < shape_k[0]
             and -1 <= example[s] < n_y for s in range(n)), "slots out of range")
    wl = where.tolist()
    need(all(v == -1 or (0 <= v < n and example[v] == i) for i, v in enumerate(wl)),
         "where and slots[3] must agree")
    return shape_k[1] - m


def _check_policy(policy: int, rand: _I64 | None, m: int, B: int) -> None:
    need(policy in (0, 1, 2), "policy must be 0 (stop), 1 (random) or 2 (oldest)")
    need((rand is not None) == (policy == 1), "rand goes with policy 1, and only with it")
    need(rand is None or (rand.shape[0] >= m and all(0 <= v < B for v in rand[:m].tolist())),
         f"rand must have an entry in [0, {B}) per row")


class _Support:
    """A call's support set as Python lists; `store` writes it back into the arrays."""

    def __init__(self, alpha: Any, b: Any, slots: _I64, where: _I64, counts: _I64,
                 u: Any, beta: Any, count: _I64 | None, fit_intercept: bool) -> None:
        self.al, self.bl, self.where = alpha.tolist(), b.tolist(), where.tolist()
        self.col, self.krow, self.stamp, self.example = slots.tolist()
        self.counts, self.R, self.fi = counts.tolist(), alpha.shape[0], fit_intercept
        self.zero: Any = 0.0 if alpha.dtype.kind == "f" else 0
        self.avg = check_avg(u, beta, count, alpha.shape, alpha.shape[0])
        self.ul = u.tolist() if u is not None else []
        self.betal = beta.tolist() if beta is not None else []
        self.c = int(count[0]) if count is not None else 0

    def store(self, alpha: Any, b: Any, slots: _I64, where: _I64, counts: _I64, u: Any,
              beta: Any, count: _I64 | None) -> None:
        alpha[:] = self.al
        b[:] = self.bl
        slots[:] = [self.col, self.krow, self.stamp, self.example]
        where[:] = self.where
        counts[:] = self.counts
        if u is not None and beta is not None and count is not None:
            u[:] = self.ul
            beta[:] = self.betal
            count[0] = self.c

    def coef(self, s: int, y: int, p: int, v: Any) -> None:
        """Slot s moves by v along the update of a mistake: +v y (binary, y = 0 means -1);
        +v for class y and -v for class p (K classes). u follows with v c."""
        if self.R == 1:
            yv = (1 if y == 1 else -1) * v
            self.al[0][s] += yv
            if self.avg:
                self.ul[0][s] += yv * self.c
        else:
            self.al[y][s] += v
            self.al[p][s] -= v
            if self.avg:
                cv = v * self.c
                self.ul[y][s] += cv
                self.ul[p][s] -= cv

    def bias(self, y: int, p: int, v: Any) -> None:
        """b (and beta) move like a slot in `coef`, when fit_intercept."""
        if not self.fi:
            return
        if self.R == 1:
            yv = (1 if y == 1 else -1) * v
            self.bl[0] += yv
            if self.avg:
                self.betal[0] += yv * self.c
        else:
            self.bl[y] += v
            self.bl[p] -= v
            if self.avg:
                cv = v * self.c
                self.betal[y] += cv
                self.betal[p] -= cv

    def evict(self, s: int) -> None:
        """Slot s forgets its support vector, its share of b and its average."""
        if self.example[s] >= 0:
            self.where[self.example[s]] = -1
        for k in range(self.R):
            if self.fi:
                self.bl[k] -= self.al[k][s]
                if self.avg:
                    self.betal[k] -= self.ul[k][s]
            self.al[k][s] = self.zero
            if self.avg:
                self.ul[k][s] = self.zero
        self.counts[2] += 1

    def place(self, s: int, i: int, t: int, n0: int) -> None:
        """Slot s now holds the example i visited at position t (column n0 + t, row t)."""
        self.col[s], self.krow[s], self.example[s] = n0 + t, t, i
        self.stamp[s] = self.counts[1]
        self.counts[1] += 1
        self.where[i] = s

    def oldest(self) -> int:
        n = self.counts[0]
        return min(range(n), key=lambda s: self.stamp[s])

    def gather(self, krow: list[Any]) -> list[Any]:
        """The kernel values of one row of K against the slots [0, n), in slot order."""
        return [krow[self.col[s]] for s in range(self.counts[0])]


def _scores(sup: _Support, kr: list[float]) -> list[float]:
    """f_k = alpha[k] . kr + b[k] for every row k (kr gathered for slots [0, n))."""
    n = sup.counts[0]
    return [dot4(sup.al[k][:n], kr) + sup.bl[k] for k in range(sup.R)]


def _decide(f: list[Any], yi: int) -> tuple[bool, int]:
    """(mistake, predicted class; -1 for binary): y f <= 0, or argmax_k f_k != y (ties to the
    lowest class). Works on floats and on exact integers alike."""
    if len(f) == 1:
        return (f[0] if yi == 1 else -f[0]) <= 0, -1
    pred = 0
    for k in range(1, len(f)):
        if f[k] > f[pred]:
            pred = k
    return pred != yi, pred


def _finite(f: list[float]) -> bool:
    return all(math.isfinite(v) for v in f)


def _slot_for(sup: _Support, i: int, t: int, n0: int, policy: int, r: int) -> int:
    """The slot a mistake on example i updates, after any eviction; -1: no update (Stoptron).
    ``r``: the slot a full budget evicts (policies 1 and 2)."""
    s = sup.where[i]
    if s >= 0:
        return s
    n = sup.counts[0]
    if n < len(sup.col):
        sup.counts[0] = n + 1
        sup.place(n, i, t, n0)
        return n
    if policy == 0:
        sup.counts[2] += 1
        return -1
    sup.evict(r)
    sup.place(r, i, t, n0)
    return r


def _forgetron_phi(sup: _Support, K: _D, r: int, t: int, i: int, n0: int, yi: int, p: int,
                   q: list[float]) -> float:
    """The self-tuned Forgetron's shrinking coefficient ([Dekel2008]), for the
    removal of slot r after the Perceptron step f' = f + y k(x_t, .); updates Q = q[0].
    (With fit_intercept, k is K + 1: f' includes b + y.)

    Psi(lam, mu) = lam^2 + 2 lam - 2 lam mu is the damage of removing lam y_r k(x_r, .) from
    a function of margin mu on x_r. phi = max{phi in (0, 1] : Psi(sigma_r phi, phi mu_r) +
    Q <= 15/32 M}, mu_r = y_r f'(x_r) (f' shrinks by phi with everything else), M the
    mistakes so far. With g = sigma_r mu_r = alpha_r f'(x_r), Psi = A phi^2 + Bq phi with
    A = sigma^2 - 2 g, Bq = 2 sigma, so phi is 1 or the root -2 C / (Bq + sqrt(Bq^2 -
    4 A C)), C = Q - 15/32 M < 0. K classes (our extension): slot r's column a_r, sigma =
    sum_k |a_kr| / 2 and g = sum_k a_kr f'_k(x_r) (for a_r = sigma (e_y - e_p), mu =
    f'_y - f'_p).
    """
    if sup.krow[r] < 0:
        raise ValueError(f"K has no row for slot {r}, which the Forgetron removes")
    row = K[sup.krow[r]].tolist()
    kr, knew, n = sup.gather(row), row[n0 + t], sup.counts[0]
    g, sig = 0.0, 0.0
    for k in range(sup.R):
        step = (1.0 if yi == 1 else -1.0) if sup.R == 1 else \
            (1.0 if k == yi else -1.0 if k == p else 0.0)
        fk = dot4(sup.al[k][:n], kr) + step * knew
        if sup.fi:  # the constant feature of K + 1: b + the step's share
            fk += sup.bl[k] + step
        g += sup.al[k][r] * fk
        sig += abs(sup.al[k][r])
    if sup.R > 1:
        sig = sig * 0.5
    A, Bq, C = sig * sig - 2.0 * g, 2.0 * sig, q[0] - FIFTEEN_32 * sup.counts[4]
    phi = 1.0
    if not A + Bq + C <= 0.0:
        phi = -2.0 * C / (Bq + math.sqrt(max(Bq * Bq - 4.0 * A * C, 0.0)))
        if phi > 1.0:
            phi = 1.0
    newq = q[0] + ((A * phi) * phi + Bq * phi)
    if not (math.isfinite(newq) and phi > 0.0):
        raise non_finite(t, i)
    q[0] = newq
    return phi


def _shrink(sup: _Support, phi: float) -> None:
    """Every coefficient (and b) times phi; u (and beta) follow the change."""
    if phi == 1.0:
        return
    for s in range(sup.counts[0]):
        for k in range(sup.R):
            old = sup.al[k][s]
            new = old * phi
            if sup.avg:
                sup.ul[k][s] += (new - old) * sup.c
            sup.al[k][s] = new
    for k in range(sup.R if sup.fi else 0):
        old = sup.bl[k]
        new = old * phi
        if sup.avg:
            sup.betal[k] += (new - old) * sup.c
        sup.bl[k] = new


def budget_epoch(K: _D, rows: _I64, y: _I64, alpha: _D, b: _D, slots: _I64, where: _I64,
                 counts: _I64, fit_intercept: bool, policy: int, rand: _I64 | None = None,
                 shrink: _D | None = None, u: _D | None = None, beta: _D | None = None,
                 count: _I64 | None = None) -> int:
    """The kernel perceptron on a budget over the examples ``rows``; returns the mistakes.

    Each example: f from the slots (module docstring); on a mistake (y f <= 0, or the argmax
    is not y) alpha moves by one Perceptron step ([Bunescu-CS4900], kernel perceptron) in the slot
    `_slot_for` picks, b by y. Forgetron (policy 2 with ``shrink`` = [Q]): when the step
    needs a removal, the oldest slot is emptied, then every coefficient (and b) is scaled by
    phi, and the new example enters with phi y (the Forgetron's Perceptron, shrinking and
    removal steps: f_{t+1} = phi f' without the removed term).
    """
    n0 = _check(K.shape, rows, y, alpha, b, slots, where, counts)
    _check_policy(policy, rand, len(rows), alpha.shape[1])
    need(shrink is None or (policy == 2 and shrink.shape == (1,)
                            and math.isfinite(float(shrink[0]))),
         "shrink (the Forgetron's Q) must be finite, shape (1,), with policy 2")
    sup = _Support(alpha, b, slots, where, counts, u, beta, count, fit_intercept)
    q = [float(shrink[0])] if shrink is not None else []
    yl, rl = y.tolist(), rand.tolist() if rand is not None else []
    mistakes, error = 0, None
    try:
        for t, i in enumerate(rows.tolist()):
            yi = yl[i]
            f = _scores(sup, sup.gather(K[t].tolist()))
            if not _finite(f):
                error = non_finite(t, i)
                break
            mistake, p = _decide(f, yi)
            if mistake:
                mistakes += 1
                sup.counts[4] += 1
                full = sup.where[i] < 0 and sup.counts[0] == alpha.shape[1]
                r = rl[t] if policy == 1 else sup.oldest() if full and policy == 2 else -1
                v = _forgetron_phi(sup, K, r, t, i, n0, yi, p, q) if full and q else 1.0
                s = _slot_for(sup, i, t, n0, policy, r)
                if v != 1.0:
                    _shrink(sup, v)
                if s >= 0:
                    sup.coef(s, yi, p, v)
                    sup.bias(yi, p, v)
            if sup.avg:
                sup.c += 1
    finally:
        sup.store(alpha, b, slots, where, counts, u, beta, count)
        if shrink is not None:
            shrink[0] = q[0]
    if error is not None:
        raise error
    return mistakes


def budget_epoch_exact(E: _I32, rows: _I64, y: _I64, alpha: _I64, b: _I64, slots: _I64,
                       where: _I64, counts: _I64, fit_intercept: bool, policy: int,
                       rand: _I64 | None = None, u: _I64 | None = None,
                       beta: _I64 | None = None, count: _I64 | None = None) -> int:
    """`budget_epoch` (policies 0, 1, 2; no Forgetron) for the conjunction kernel 2^E with
    int64 coefficients: every activation is formed exactly (``_conjunction_py``), so every
    decision is exact at any bit count. Same headroom checks as ``_conjunction_py``."""
    _check(E.shape, rows, y, alpha, b, slots, where, counts)
    _check_policy(policy, rand, len(rows), alpha.shape[1])
    need(all(v >= 0 for v in E.ravel().tolist()), "exponents E must be >= 0")
    m = len(rows)
    sup = _Support(alpha, b, slots, where, counts, u, beta, count, fit_intercept)
    for k in range(alpha.shape[0]):
        check_headroom(alpha[k], abs(int(b[k])) + 2 * m, "alpha")
        if u is not None and beta is not None and count is not None:
            check_headroom(u[k], abs(int(beta[k])) + 2 * m * (int(count[0]) + m), "u")
    yl, rl = y.tolist(), rand.tolist() if rand is not None else []
    n0, mistakes = E.shape[1] - m, 0
    try:
        for t, i in enumerate(rows.tolist()):
            yi, er, n = yl[i], sup.gather(E[t].tolist()), sup.counts[0]
            f = [exact(sup.al[k][:n], er, sup.bl[k]) for k in range(sup.R)]
            mistake, p = _decide(f, yi)
            if mistake:
                mistakes += 1
                sup.counts[4] += 1
                full = sup.where[i] < 0 and n == alpha.shape[1]
                r = rl[t] if policy == 1 else sup.oldest() if full and policy == 2 else -1
                s = _slot_for(sup, i, t, n0, policy, r)
                if s >= 0:
                    sup.coef(s, yi, p, 1)
                    sup.bias(yi, p, 1)
            if sup.avg:
                sup.c += 1
    finally:
        sup.store(alpha, b, slots, where, counts, u, beta, count)
    return mistakes


def _runner_up(f: list[float], yi: int) -> int:
    """argmax over the classes other than yi, ties to the lowest class."""
    best = -1
    for k in range(len(f)):
        if k != yi and (best < 0 or f[k] > f[best]):
            best = k
    return best


def _project(sup: _Support, kinv: list[list[float]], kr: list[float], s: int,
             kxx: float) -> tuple[list[float], float, float, float]:
    """(d, k . d, delta^2, sum_j d_j): d = K^-1 k, the coefficients of the projection of
    k(x_t, .) on the span of the support set ([Orabona2009]), and its squared
    distance delta^2 = k(x_t, x_t) - k . d; k is K + 1 with fit_intercept. A support vector
    (slot s >= 0) projects on itself."""
    n = sup.counts[0]
    if sup.fi:
        kr, kxx = [v + 1.0 for v in kr], kxx + 1.0
    if s >= 0:
        d = [0.0] * n
        d[s] = 1.0
        kd, d2 = kr[s], 0.0
    else:
        d = [dot4(kinv[a][:n], kr) for a in range(n)]
        kd = dot4(kr, d)
        d2 = kxx - kd
    dsum = 0.0
    for v in d:
        dsum += v
    return d, kd, d2, dsum


def _grow_inverse(kinv: list[list[float]], d: list[float], d2: float) -> None:
    """K^-1 of the support set plus one vector ([Orabona2009]): [[K^-1 + d d^T /
    delta^2, -d / delta^2], [-d^T / delta^2, 1 / delta^2]]."""
    n = len(d)
    for a in range(n):
        for c in range(n):
            kinv[a][c] += (d[a] * d[c]) / d2
        kinv[a][n] = -d[a] / d2
        kinv[n][a] = -d[a] / d2
    kinv[n][n] = 1.0 / d2


def _margin_step(sup: _Support, ell: float, kd: float, d2: float, eta: float) -> float:
    """Projectron++'s step on a margin error ([Orabona2009]): tau = min(1,
    ell / |Pu|^2, 2 (ell - delta_u / eta) / |Pu|^2) if ell eta > delta_u, else 0 (no update).
    u = y k(x_t, .) (binary) or k(x_t, .)(e_y - e_r) (K classes: |Pu|^2 = 2 k . d)."""
    w = 1.0 if sup.R == 1 else 2.0
    du, pu = math.sqrt(w * max(d2, 0.0)), w * kd
    if not (ell * eta > du and pu > 0.0):
        return 0.0
    tau = 1.0
    x = ell / pu
    if x < tau:
        tau = x
    x = 2.0 * (ell - du / eta) / pu
    if x < tau:
        tau = x
    return tau


def _projectron_step(sup: _Support, kinv: list[list[float]], proj: tuple, eta: float,
                     mistake: bool, margin: float, at: tuple[int, int, int, int, int]) -> bool:
    """One update of `projectron_epoch` with the projection ``proj`` = (s, d, k . d, delta^2,
    sum d) of the example ``at`` = (i, t, n0, y, p); False when 1 / delta^2 overflows."""
    (s, d, kd, d2, dsum), (i, t, n0, yi, p) = proj, at
    n = sup.counts[0]
    if not mistake:
        tau = _margin_step(sup, 1.0 - margin, kd, d2, eta)
        if tau > 0.0:
            for j in range(n):
                sup.coef(j, yi, p, tau * d[j])
            sup.bias(yi, p, tau * dsum)
            sup.counts[3] += 1
        return True
    if s < 0 and (math.sqrt(max(d2, 0.0)) <= eta or n == len(sup.col)):
        for j in range(n):
            sup.coef(j, yi, p, d[j])
        sup.bias(yi, p, dsum)
        sup.counts[3] += 1
        return True
    if s < 0:
        if not math.isfinite(1.0 / d2):
            return False
        _grow_inverse(kinv, d, d2)
        sup.counts[0] = n + 1
        sup.place(n, i, t, n0)
        s = n
    sup.coef(s, yi, p, 1.0)
    sup.bias(yi, p, 1.0)
    return True


def projectron_epoch(K: _D, rows: _I64, y: _I64, alpha: _D, b: _D, slots: _I64, where: _I64,
                     counts: _I64, Kinv: _D, eta: float, aggressive: bool, fit_intercept: bool,
                     u: _D | None = None, beta: _D | None = None,
                     count: _I64 | None = None) -> int:
    """The Projectron (``aggressive`` False) or Projectron++ over ``rows``; returns the
    mistakes. On a mistake: with d, delta from `_project`, if delta = sqrt(max(delta^2, 0))
    <= eta or the slots are full, alpha += y d and b += y sum d (a projection, counted in
    counts[3]); else the example takes slot n with coefficient y, b += y and K^-1 grows
    (`_grow_inverse`). Projectron++ also updates on a margin error (0 < margin < 1; K
    classes: y is the argmax and f_y - f_r < 1 for the runner-up r) by tau y d, b by tau y
    sum d (`_margin_step`)."""
    n0 = _check(K.shape, rows, y, alpha, b, slots, where, counts)
    B = alpha.shape[1]
    need(Kinv.shape == (B, B), "Kinv must be (B, B)")
    need(math.isfinite(eta) and eta >= 0.0, "eta must be finite and >= 0")
    sup = _Support(alpha, b, slots, where, counts, u, beta, count, fit_intercept)
    kinv, yl = Kinv.tolist(), y.tolist()
    mistakes, error = 0, None
    try:
        for t, i in enumerate(rows.tolist()):
            yi, krow = yl[i], K[t].tolist()
            kr = sup.gather(krow)
            f = _scores(sup, kr)
            if not _finite(f):
                error = non_finite(t, i)
                break
            mistake, p = _decide(f, yi)
            if sup.R == 1:
                margin = f[0] if yi == 1 else -f[0]
            else:
                p = p if mistake else _runner_up(f, yi)
                margin = f[yi] - f[p]
            if mistake or (aggressive and margin < 1.0):
                s = sup.where[i]
                proj = _project(sup, kinv, kr, s, krow[n0 + t])
                if mistake:
                    mistakes += 1
                    sup.counts[4] += 1
                if not (math.isfinite(proj[2]) and _projectron_step(
                        sup, kinv, (s, *proj), eta, mistake, margin, (i, t, n0, yi, p))):
                    error = non_finite(t, i)
                    break
            if sup.avg:
                sup.c += 1
    finally:
        sup.store(alpha, b, slots, where, counts, u, beta, count)
        Kinv[:] = kinv
    if error is not None:
        raise error
    return mistakes
