"""The experiments behind ``docs/experiments.md``: each one a function returning plain numbers.

Every function is seeded and returns a dict of numpy arrays, lists and numbers (no plotting,
numpy only at import), so scripts, the command line (``perceptron-c demo --plots DIR``) and
the tests share one implementation. `perceptron_c.plots` draws the figures from these dicts;
``format_*`` turn them into text tables.

1. `learning_curves`: last hypothesis vs averaged vs voted perceptron, polynomial kernels of
   degree 1-5, test error after 1-10 epochs on scikit-learn's bundled digits
   ([FreundSchapire1999], Fig. 2-3 style; [Daume2017] eq. 4.17-4.19).
2. `ordering`: examples sorted by label, visited in that fixed order, in one random order
   kept for every epoch, or re-permuted every epoch ([Daume2017] Fig. 4.3/4.4).
3. `mistakes_vs_margin`: total mistakes until convergence against the Block/Novikoff bound
   (R/gamma)^2 ([Block1962], [Novikoff1962]) as the margin of separable data shrinks
   ([Vaughan-CS269], Theorem 1).
4. `boundaries_2d`: decision boundaries in the plane: a linear perceptron with its weight
   vector ([Daume2017] Fig. 4.6-4.9), and XOR under linear, degree-2 polynomial and RBF kernels.
"""
from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ._estimator._training import fixed_epochs
from ._utils._docs import fill
from .datasets import load_digits_split, make_separable, make_xor
from .kernel_perceptron import KernelPerceptron
from .perceptron import Perceptron
from .theory import margin, mistake_bound
from .voted_perceptron import VotedPerceptron

__all__ = ["learning_curves", "ordering",
           "mistakes_vs_margin", "boundaries_2d", "format_learning_curves", "format_ordering",
           "format_mistakes_vs_margin", "format_boundaries_2d", "QUICK", "FULL"]

VARIANTS = ("last", "averaged", "voted")

# Keyword arguments of each experiment: the published run, and a seconds-long one (tests, CLI).
FULL: dict[str, dict[str, Any]] = {
    "learning_curves": dict(degrees=(1, 2, 3, 4, 5), epochs=tuple(range(1, 11)), n_train=1200),
    "ordering": dict(n_train=1000, n_test=2000, d=20, gap=0.1, epochs=50, repeats=20),
    "mistakes_vs_margin": dict(gaps=(0.4, 0.2, 0.1, 0.05, 0.025, 0.0125), n=1000, d=10,
                               seeds=5),
    "boundaries_2d": dict(n=80, grid=200),
}
QUICK: dict[str, dict[str, Any]] = {
    "learning_curves": dict(degrees=(1, 2), epochs=(1, 2, 3), n_train=300, n_test=300),
    "ordering": dict(n_train=300, n_test=300, d=10, gap=0.1, epochs=10, repeats=2),
    "mistakes_vs_margin": dict(gaps=(0.4, 0.1, 0.025), n=200, d=5, seeds=2),
    "boundaries_2d": dict(n=40, grid=60),
}


# --------------------------------------------------------------------------- 1. learning curves

def _learning_model(variant: str, degree: int, epochs: int,
                    seed: int) -> KernelPerceptron | VotedPerceptron:
    common: dict[str, Any] = dict(kernel="poly", degree=degree, max_iter=epochs,
                                  shuffle=True, random_state=seed)
    if variant == "voted":
        return VotedPerceptron(**common)
    return KernelPerceptron(average=(variant == "averaged"), **common)


def learning_curves(degrees: Sequence[int] = (1, 2, 3, 4, 5),
                    epochs: Iterable[int] = tuple(range(1, 11)), n_train: int = 1200,
                    n_test: int | None = None, seed: int = 0,
                    variants: Sequence[str] = VARIANTS) -> dict[str, Any]:
    """Test error of the last, averaged and voted kernel perceptron on the digits.

    For each polynomial degree d (kernel (x.y + 1)^d on pixels in [0, 1]) and each epoch
    count T, a fresh model is trained with ``max_iter=T``, ``shuffle=True`` and the same
    ``random_state``; as the per-epoch permutations depend only on (seed, epoch), the model
    for T is the model for T - 1 trained one epoch more. A model that finishes an epoch with
    no mistake stops early, and then is the model for every larger T (reused, not retrained).
    Multiclass: "last" and "averaged" are `KernelPerceptron`'s joint K-class argmax
    perceptron; "voted" is `VotedPerceptron`'s one-vs-rest vote.

    Parameters
    ----------
    degrees : sequence of int, default=(1, 2, 3, 4, 5)
        The polynomial kernel's degrees.
    epochs : iterable of int, default=1, ..., 10
        The epoch counts T, increasing integers >= 1.
    n_train : int, default=1200
        Training images (`perceptron_c.datasets.load_digits_split`).
    n_test : int, optional
        Test images; None means all the rest.
    seed : int, default=0
        The models' ``random_state``.
    variants : sequence of str, default=("last", "averaged", "voted")
        The models compared.

    Returns
    -------
    dict
        ``error[variant]`` and ``n_iter[variant]`` are (len(degrees), len(epochs)) arrays
        (test error rate, epochs actually run), ``train_mistakes[variant]`` the total
        training mistakes of the longest run per degree, ``seconds[variant]`` the training
        plus prediction time, and the data description (``dataset``, ``n_train``,
        ``n_test``, ``n_features``, ``n_classes``) and the arguments.

    Raises
    ------
    ValueError
        If ``epochs`` are not increasing integers >= 1, or ``n_train`` is out of range.
    ImportError
        If scikit-learn (which bundles the digits) is not installed.
    """
    epochs = tuple(int(t) for t in epochs)
    if any(t < 1 for t in epochs) or list(epochs) != sorted(set(epochs)):
        raise ValueError(f"epochs must be increasing integers >= 1, got {epochs}")
    Xtr, ytr, Xte, yte = load_digits_split(n_train, n_test)
    shape = (len(degrees), len(epochs))
    out: dict[str, Any]  # numbers, lists and arrays by name
    out = {"dataset": "digits", "n_train": int(Xtr.shape[0]), "n_test": int(Xte.shape[0]),
           "n_features": int(Xtr.shape[1]), "n_classes": int(np.unique(ytr).size),
           "degrees": list(degrees), "epochs": list(epochs), "variants": list(variants),
           "seed": seed, "error": {}, "n_iter": {}, "train_mistakes": {}, "seconds": {}}
    for variant in variants:
        error = np.full(shape, np.nan)
        n_iter = np.zeros(shape, dtype=np.int64)
        mistakes = np.zeros(len(degrees), dtype=np.int64)
        tic = time.perf_counter()
        for i, degree in enumerate(degrees):
            done = None  # (error, n_iter, mistakes) of a run that converged
            for j, T in enumerate(epochs):
                if done is None:
                    with fixed_epochs():  # the error after T epochs, converged or not
                        model = _learning_model(variant, degree, T, seed).fit(Xtr, ytr)
                    result = (float(np.mean(model.predict(Xte) != yte)), model.n_iter_,
                              int(np.sum(model.mistakes_)))
                    if model.converged_:
                        done = result
                else:
                    result = done
                error[i, j], n_iter[i, j], mistakes[i] = result
        out["seconds"][variant] = time.perf_counter() - tic
        out["error"][variant] = error
        out["n_iter"][variant] = n_iter
        out["train_mistakes"][variant] = mistakes
    return out


# --------------------------------------------------------------------------- 2. ordering

ORDERINGS = ("fixed", "permuted once", "shuffled")


def ordering(n_train: int = 1000, n_test: int = 2000, d: int = 20, gap: float = 0.1,
             bias: float = 0.0, epochs: int = 50, repeats: int = 20,
             seed: int = 0) -> dict[str, Any]:
    """The perceptron on training data sorted by label (every -1 before every +1).

    Three ways to visit it: "fixed" (the sorted order, ``shuffle=False``), "permuted once"
    (rows permuted once, then that order every epoch, ``shuffle=False``) and "shuffled" (a
    fresh permutation every epoch, ``shuffle=True``). The model after each epoch comes from
    ``partial_fit``, one epoch per call (it draws the same per-epoch permutations as ``fit``).
    Data: `perceptron_c.datasets.make_separable` with margin >= ``gap``; every repeat draws
    new data and orders.

    Parameters
    ----------
    n_train : int, default=1000
        Training points.
    n_test : int, default=2000
        Test points, from the same distribution.
    d : int, default=20
        Number of features.
    gap : float, default=0.1
        The data's margin around the generating hyperplane.
    bias : float, default=0.0
        The generating hyperplane's offset.
    epochs : int, default=50
        Epochs of each run.
    repeats : int, default=20
        Data sets drawn.
    seed : int, default=0
        Seed of every draw (data, orders, the models' ``random_state``).

    Returns
    -------
    dict
        ``train_error[o]``, ``test_error[o]``, ``mistakes[o]``: (repeats, epochs) arrays for
        each ordering o; ``converged_at[o]``: (repeats,) first epoch with no mistake (0: not
        within ``epochs``); ``bound``: the (R/gamma)^2 of each repeat's generating separator;
        ``orderings`` and the arguments.
    """
    rng = np.random.default_rng(seed)
    out: dict[str, Any]  # numbers, lists and arrays by name
    out = {"n_train": n_train, "n_test": n_test, "d": d, "gap": gap, "epochs": epochs,
           "repeats": repeats, "seed": seed, "orderings": list(ORDERINGS),
           "train_error": {}, "test_error": {}, "mistakes": {}, "converged_at": {},
           "bound": np.zeros(repeats)}
    for o in ORDERINGS:
        out["train_error"][o] = np.zeros((repeats, epochs))
        out["test_error"][o] = np.zeros((repeats, epochs))
        out["mistakes"][o] = np.zeros((repeats, epochs), dtype=np.int64)
        out["converged_at"][o] = np.zeros(repeats, dtype=np.int64)
    for r in range(repeats):
        X, y, u, b0 = make_separable(rng, n_train + n_test, d, gap, bias)
        Xtr, ytr, Xte, yte = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
        by_label = np.argsort(ytr, kind="stable")
        Xtr, ytr = Xtr[by_label], ytr[by_label]
        out["bound"][r] = mistake_bound(Xtr, ytr, u, b0)
        once = rng.permutation(n_train)
        shuffle_seed = int(rng.integers(2**31))
        setups = {"fixed": (Xtr, ytr, False), "permuted once": (Xtr[once], ytr[once], False),
                  "shuffled": (Xtr, ytr, True)}
        for o, (Xo, yo, shuffle) in setups.items():
            model = Perceptron(shuffle=shuffle, random_state=shuffle_seed)
            for t in range(epochs):
                model.partial_fit(Xo, yo, classes=[-1, 1])
                out["mistakes"][o][r, t] = model.mistakes_[-1]
                out["train_error"][o][r, t] = np.mean(model.predict(Xtr) != ytr)
                out["test_error"][o][r, t] = np.mean(model.predict(Xte) != yte)
                if model.mistakes_[-1] == 0 and out["converged_at"][o][r] == 0:
                    out["converged_at"][o][r] = t + 1
    return out


# --------------------------------------------------------------------------- 3. mistake bound

def mistakes_vs_margin(gaps: Sequence[float] = (0.4, 0.2, 0.1, 0.05, 0.025, 0.0125),
                       n: int = 1000, d: int = 10, bias: float = 0.3, seeds: int = 5,
                       seed: int = 0, max_iter: int = 100_000) -> dict[str, Any]:
    """Total perceptron mistakes until convergence vs the bound (R/gamma)^2 as gamma shrinks.

    For each ``gap`` and each of ``seeds`` data sets (`perceptron_c.datasets.make_separable`:
    margin >= gap around a known unit u and bias b0), ``Perceptron(fit_intercept=True)`` is
    trained until an epoch without mistakes; the bound is ``mistake_bound(X, y, u, b0)`` (bias
    absorbed as a constant feature 1, so R = max ||(x, 1)|| and gamma the margin of (u, b0) in
    that space).

    Parameters
    ----------
    gaps : sequence of float, default=(0.4, 0.2, 0.1, 0.05, 0.025, 0.0125)
        The data's margins around the generating hyperplane.
    n : int, default=1000
        Points per data set.
    d : int, default=10
        Number of features.
    bias : float, default=0.3
        The generating hyperplane's offset b0.
    seeds : int, default=5
        Data sets per gap.
    seed : int, default=0
        Seed of every draw (data, the models' ``random_state``).
    max_iter : int, default=100_000
        The most epochs a run may take to converge.

    Returns
    -------
    dict
        (len(gaps), seeds) arrays ``mistakes``, ``bound``, ``gamma`` (the margin the bound
        uses), ``R``, ``epochs``, ``converged``, and the arguments.
    """
    rng = np.random.default_rng(seed)
    shape = (len(gaps), seeds)
    out: dict[str, Any]  # numbers, lists and arrays by name
    out = {"gaps": list(gaps), "n": n, "d": d, "bias": bias, "seeds": seeds, "seed": seed,
           "mistakes": np.zeros(shape, dtype=np.int64), "bound": np.zeros(shape),
           "gamma": np.zeros(shape), "R": np.zeros(shape),
           "epochs": np.zeros(shape, dtype=np.int64), "converged": np.zeros(shape, bool)}
    for i, gap in enumerate(gaps):
        for s in range(seeds):
            X, y, u, b0 = make_separable(rng, n, d, gap, bias)
            model = Perceptron(max_iter=max_iter, random_state=int(rng.integers(2**31)))
            model.fit(X, y)
            R = float(np.sqrt(np.max(np.sum(X * X, axis=1)) + 1.0))
            bound = mistake_bound(X, y, u, b0)
            out["mistakes"][i, s] = np.sum(model.mistakes_)
            out["bound"][i, s] = bound
            out["R"][i, s] = R
            out["gamma"][i, s] = R / np.sqrt(bound)
            out["epochs"][i, s] = model.n_iter_
            out["converged"][i, s] = model.converged_
    return out


# --------------------------------------------------------------------------- 4. 2-D pictures

def _grid(X: np.ndarray, grid: int, pad: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    xx, yy = np.meshgrid(np.linspace(lo[0], hi[0], grid), np.linspace(lo[1], hi[1], grid))
    return xx, yy


def boundaries_2d(n: int = 80, grid: int = 200, seed: int = 0, noise: float = 0.3,
                  epochs: int = 50) -> dict[str, Any]:
    """Decision functions on a grid for four 2-D models.

    Panel "linear perceptron": `Perceptron` on separable 2-D data (margin >= 0.3), with its
    weight vector w and bias b (boundary w.x + b = 0). Panels "XOR: linear kernel", "XOR:
    poly kernel, degree 2", "XOR: RBF kernel": `KernelPerceptron` (plain, up to ``epochs``
    epochs) on `perceptron_c.datasets.make_xor`, with its support vectors.

    Parameters
    ----------
    n : int, default=80
        Points of each data set.
    grid : int, default=200
        Grid points along each axis.
    seed : int, default=0
        Seed of the data and the models' ``random_state``.
    noise : float, default=0.3
        The XOR clusters' standard deviation.
    epochs : int, default=50
        The most epochs of each model.

    Returns
    -------
    dict
        ``{"n": n, "seed": seed, "panels": [dict(title, X, y, xx, yy, zz, support_vectors,
        coef, intercept, margin, train_accuracy, mistakes, converged, n_iter), ...]}``; zz is
        the decision function on the grid (xx, yy); ``support_vectors`` is None for the
        linear panel, ``coef`` and ``margin`` None for the kernel panels.
    """
    rng = np.random.default_rng(seed)
    panels = []
    X, y, _, _ = make_separable(rng, n, 2, 0.3, 0.5)
    model: Perceptron | KernelPerceptron  # the linear panel's, then each kernel panel's
    with fixed_epochs():  # a boundary after at most `epochs`, converged or not
        model = Perceptron(max_iter=epochs, random_state=seed).fit(X, y)
    xx, yy = _grid(X, grid)
    zz = model.decision_function(np.c_[xx.ravel(), yy.ravel()]).reshape(xx.shape)
    panels.append(dict(title="linear perceptron", X=X, y=y, xx=xx, yy=yy, zz=zz,
                       support_vectors=None, coef=model.coef_[0].copy(),
                       intercept=float(model.intercept_[0]),
                       margin=margin(X, y, model.coef_[0], model.intercept_[0]),
                       train_accuracy=model.score(X, y), mistakes=int(model.mistakes_.sum()),
                       converged=model.converged_, n_iter=model.n_iter_))
    X, y = make_xor(rng, n, noise)
    xx, yy = _grid(X, grid)
    for title, params in (("XOR: linear kernel", dict(kernel="linear")),
                          ("XOR: poly kernel, degree 2", dict(kernel="poly", degree=2)),
                          ("XOR: RBF kernel", dict(kernel="rbf", gamma=1.0))):
        with fixed_epochs():
            model = KernelPerceptron(max_iter=epochs, random_state=seed, **params).fit(X, y)
        zz = model.decision_function(np.c_[xx.ravel(), yy.ravel()]).reshape(xx.shape)
        panels.append(dict(title=title, X=X, y=y, xx=xx, yy=yy, zz=zz,
                           support_vectors=np.asarray(model.support_vectors_), coef=None,
                           intercept=float(model.intercept_[0]), margin=None,
                           train_accuracy=model.score(X, y),
                           mistakes=int(model.mistakes_.sum()), converged=model.converged_,
                           n_iter=model.n_iter_))
    return {"n": n, "seed": seed, "panels": panels}


# --------------------------------------------------------------------------- tables

# a formatter's Parameters and Returns type; {res} names the experiment it reads
_TABLE = {"result": """
    Parameters
    ----------
    {res}

    Returns
    -------
    str
    """}


def _table(header: list[str], rows: list[list[Any]], note: str | None = None) -> str:
    """The rows in aligned columns under the header, then the note's line if any."""
    cells = [[str(c) for c in row] for row in [header] + rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in
                       enumerate(zip(row, widths))) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines if note is None else [*lines, note])


@fill(_TABLE, res="res : dict\n    What `learning_curves` returned.")
def format_learning_curves(res: dict[str, Any]) -> str:
    """Test error (%) per degree and variant (rows) after each epoch count (columns).

    {result}
        The table, then a line describing the data and the time taken; ``*`` marks a run
        that converged before T.
    """
    header = ["degree", "variant"] + [f"T={t}" for t in res["epochs"]]
    rows = []
    for i, degree in enumerate(res["degrees"]):
        for v in res["variants"]:
            cells = []
            for j in range(len(res["epochs"])):
                cell = f"{100 * res['error'][v][i, j]:.2f}"
                if res["n_iter"][v][i, j] < res["epochs"][j]:
                    cell += "*"
                cells.append(cell)
            rows.append([str(degree), v] + cells)
    seconds = ", ".join(f"{v} {res['seconds'][v]:.1f} s" for v in res["variants"])
    note = (f"digits: {res['n_train']} train / {res['n_test']} test, {res['n_classes']} "
            f"classes; test error in %; * = converged (error-free epoch) before T. "
            f"Time: {seconds}.")
    return _table(header, rows, note)


@fill(_TABLE, res="res : dict\n    What `ordering` returned.")
def format_ordering(res: dict[str, Any]) -> str:
    """Mean train/test error (%) after selected epochs and epochs to converge, per ordering.

    {result}
        The table, then a line describing the runs.
    """
    T = res["epochs"]
    picks = sorted({t for t in (1, 2, 3, 5, 10, 20, T) if t <= T})
    header = (["ordering"] + [f"train T={t}" for t in picks] + [f"test T={t}" for t in picks]
              + ["epochs to converge", "mistakes"])
    rows = []
    for o in res["orderings"]:
        tr, te = res["train_error"][o].mean(axis=0), res["test_error"][o].mean(axis=0)
        conv = res["converged_at"][o]
        done = conv[conv > 0]
        conv_cell = (f"{done.mean():.1f} [{done.min()}-{done.max()}]" if done.size else "-")
        if done.size < conv.size:
            conv_cell += f" ({conv.size - done.size} not in {T})"
        rows.append([o] + [f"{100 * tr[t - 1]:.2f}" for t in picks]
                    + [f"{100 * te[t - 1]:.2f}" for t in picks]
                    + [conv_cell, f"{res['mistakes'][o].sum(axis=1).mean():.0f}"])
    note = (f"{res['repeats']} repeats: {res['n_train']} training points sorted by label "
            f"(all -1 first), {res['n_test']} test, d={res['d']}, margin >= {res['gap']}; "
            f"means over repeats; epochs to converge: mean [min-max] of the first error-free "
            f"epoch; mistakes: mean total over {T} epochs; (R/gamma)^2 mean "
            f"{res['bound'].mean():.0f}.")
    return _table(header, rows, note)


@fill(_TABLE, res="res : dict\n    What `mistakes_vs_margin` returned.")
def format_mistakes_vs_margin(res: dict[str, Any]) -> str:
    """Per margin: gamma, R, the bound and the mistakes (mean, max) over the seeds.

    {result}
        The table, then a line describing the data sets.
    """
    header = ["gap", "gamma", "R", "1/gamma^2", "(R/gamma)^2", "mistakes mean", "mistakes max",
              "max mistakes/bound", "epochs mean"]
    rows = []
    for i, gap in enumerate(res["gaps"]):
        m, b = res["mistakes"][i], res["bound"][i]
        rows.append([f"{gap:g}", f"{res['gamma'][i].mean():.4f}", f"{res['R'][i].mean():.2f}",
                     f"{np.mean(1 / res['gamma'][i] ** 2):.0f}", f"{b.mean():.0f}",
                     f"{m.mean():.0f}", f"{m.max()}", f"{np.max(m / b):.4f}",
                     f"{res['epochs'][i].mean():.1f}"])
    note = (f"{res['seeds']} data sets per gap: n={res['n']}, d={res['d']}, bias "
            f"{res['bias']}; every run converged: {bool(res['converged'].all())}; means over "
            f"data sets.")
    return _table(header, rows, note)


@fill(_TABLE, res="res : dict\n    What `boundaries_2d` returned.")
def format_boundaries_2d(res: dict[str, Any]) -> str:
    """Per panel: training accuracy, mistakes, epochs, convergence and support vectors.

    {result}
        The table (``-`` for the linear panel's support vectors).
    """
    header = ["panel", "train acc", "mistakes", "epochs", "converged", "support vectors"]
    rows = [[p["title"], f"{p['train_accuracy']:.4f}", p["mistakes"], p["n_iter"],
             p["converged"], "-" if p["support_vectors"] is None else len(p["support_vectors"])]
            for p in res["panels"]]
    return _table(header, rows)
