"""The main job: ``perceptron-c demo`` trains every variant on generated data and prints a table.

Five generated sets (`perceptron_c.datasets`, no downloads): separable dense rows with a
known margin, a sparse bag of words, 10 Gaussian classes, XOR, and 0/1 rows labelled by a
hidden DNF. Every model is trained on the C core, then again for its first
``python_epochs`` epochs on the Python twin, to time the two side by side and check that
they make the same mistakes.
"""
from __future__ import annotations

import sys
import time
from typing import Any, TextIO

import numpy as np

from . import _backend
from ._backend import BACKEND
from ._estimator._training import fixed_epochs
from ._utils._rows import csr_rows, take_rows
from ._utils._validation import CSR, is_sparse
from .datasets import make_blobs, make_dnf, make_separable, make_text, make_xor
from .kernel_perceptron import KernelPerceptron
from .perceptron import Perceptron
from .theory import mistake_bound
from .voted_perceptron import VotedPerceptron

__all__ = ["run_demo", "write_plots", "HEADER"]

HEADER = ["algorithm", "data", "n", "d", "epochs", "mistakes", "(R/g)^2", "train", "test",
          "C s", "Python s"]
# the table's column titles, short so that every line fits 80 columns (a legend explains them)
TITLES = {"epochs": "ep", "mistakes": "mist", "(R/g)^2": "bound", "Python s": "Py s"}

_KP, _VP = KernelPerceptron, VotedPerceptron
# (row name, data set, estimator, parameters)
PLANS: list[tuple[str, str, type, dict]] = [
    ("perceptron", "separable", Perceptron, {}),
    ("averaged", "separable", Perceptron, {"average": True}),
    ("normalized", "separable", Perceptron, {"normalize": True}),
    ("perceptron", "text", Perceptron, {}),
    ("averaged", "text", Perceptron, {"average": True}),
    ("normalized", "text", Perceptron, {"normalize": True}),
    ("voted", "text", _VP, {}),
    ("K-class argmax", "blobs-10", Perceptron, {}),
    ("K-class argmax avg", "blobs-10", Perceptron, {"average": True}),
    ("K-class ovr", "blobs-10", Perceptron, {"multiclass": "ovr"}),
    ("K-class ovr avg", "blobs-10", Perceptron, {"multiclass": "ovr", "average": True}),
    ("kernel linear", "xor", _KP, {"kernel": "linear"}),
    ("kernel poly-2", "xor", _KP, {"kernel": "poly", "degree": 2}),
    ("kernel rbf", "xor", _KP, {"kernel": "rbf", "gamma": 1.0}),
    ("perceptron", "dnf-40", Perceptron, {}),
    ("kernel conjunction", "dnf-40", _KP, {"kernel": "conjunction"}),
    ("kernel conj. avg", "dnf-40", _KP, {"kernel": "conjunction", "average": True}),
]


def _split(X: Any, y: np.ndarray, n_train: int) -> tuple:
    if isinstance(X, CSR):
        n = X.shape[0]
        return (take_rows(X, np.arange(n_train)), y[:n_train],
                take_rows(X, np.arange(n_train, n)), y[n_train:])
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def _normalized_bound(X: np.ndarray, y: np.ndarray, u: np.ndarray, b0: float) -> float:
    """(R/gamma)^2 of the normalized perceptron: it makes the plain perceptron's mistakes on
    the rows (x, 1) / ||(x, 1)||, with no further bias."""
    Z = np.hstack([X, np.ones((X.shape[0], 1))])
    Z /= np.linalg.norm(Z, axis=1, keepdims=True)
    return mistake_bound(Z, y, np.append(u, b0), None)


def make_demo_data(seed: int) -> tuple[dict, dict]:
    """The five data sets (train/test splits) and the mistake bounds of the separable one."""
    rng = np.random.default_rng(seed)
    X: Any  # dense rows; the text set is scipy sparse, or a CSR without scipy
    X, y, u, b0 = make_separable(rng, 3000, 20)
    data = {"separable": _split(X, y, 2000)}
    X, y = make_text(rng, 3000)
    if not is_sparse(X):  # without scipy: keep the text sparse in the package's own rows
        X = csr_rows(X)
    data["text"] = _split(X, y, 2000)
    X, y = make_blobs(rng, 4500, 20)
    data["blobs-10"] = _split(X, y, 3000)
    X, y = make_xor(rng, 900, noise=0.25)
    data["xor"] = _split(X, y, 600)
    X, y = make_dnf(rng, 2000)
    data["dnf-40"] = _split(X, y, 1000)
    Xtr, ytr = data["separable"][:2]
    bounds = {"": mistake_bound(Xtr, ytr, u, b0),
              "normalized": _normalized_bound(Xtr, ytr, u, b0)}
    return data, bounds


def _timed_fit(cls: type, params: dict, X: Any, y: np.ndarray) -> tuple[Any, float]:
    model = cls(**params)
    tic = time.perf_counter()
    with fixed_epochs():  # the demo times a fixed number of epochs
        model.fit(X, y)
    return model, time.perf_counter() - tic


def _same_model(a: Any, b: Any, X: Any) -> bool:
    for name in ("dual_coef_", "coef_"):
        if hasattr(a, name):
            return bool(np.array_equal(getattr(a, name), getattr(b, name)))
    return bool(np.array_equal(a.predict(X), b.predict(X)))  # voted: no single weight vector


def _seconds(t: float) -> str:
    """t in 6 characters (4 decimals under 10 s, fewer above): the table keeps its width,
    80 columns, on a slow or loaded machine too."""
    for digits in (4, 3, 2, 1):
        text = f"{t:.{digits}f}"
        if len(text) <= 6:
            return text
    return f"{t:.0f}"


def _train_row(plan: tuple, data: dict, bounds: dict, epochs: int, python_epochs: int,
               seed: int, have_c: bool) -> dict:
    name, dataset, cls, extra = plan
    Xtr, ytr, Xte, yte = data[dataset]
    params = dict(max_iter=epochs, random_state=seed, **extra)
    model, seconds = _timed_fit(cls, params, Xtr, ytr)
    row = {"algorithm": name, "data": dataset, "n": Xtr.shape[0], "d": Xtr.shape[1],
           "epochs": model.n_iter_, "mistakes": int(model.mistakes_.sum()), "(R/g)^2": "-",
           "train": f"{model.score(Xtr, ytr):.3f}", "test": f"{model.score(Xte, yte):.3f}",
           "C s": _seconds(seconds) if have_c else "n/a", "Python s": "-",
           "agree": True, "c_time": 0.0, "py_time": 0.0, "partial": False}
    if dataset == "separable":
        row["(R/g)^2"] = f"{bounds['normalized' if extra.get('normalize') else '']:.0f}"
    if not have_c:
        row["Python s"] = _seconds(seconds)
        return row
    py_epochs = min(python_epochs, model.n_iter_)
    if py_epochs <= 0:
        return row
    with _backend.using("python"):
        twin, py_seconds = _timed_fit(cls, {**params, "max_iter": py_epochs}, Xtr, ytr)
    row["agree"] = bool(np.array_equal(twin.mistakes_, model.mistakes_[:py_epochs]))
    if py_epochs == model.n_iter_:
        row["agree"] = row["agree"] and _same_model(model, twin, Xtr)
    row["partial"] = py_epochs < model.n_iter_
    row["Python s"] = _seconds(py_seconds) + ("*" if row["partial"] else "")
    # per-epoch rates, so a Python run cut short still compares fairly
    row["c_time"], row["py_time"] = seconds * py_epochs / model.n_iter_, py_seconds
    return row


def format_table(rows: list[dict]) -> list[str]:
    """The rows as aligned text (left-aligned names, right-aligned numbers)."""
    titles = [TITLES.get(h, h) for h in HEADER]
    cells = [titles] + [[str(r[h]) for h in HEADER] for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEADER))]

    def line(row: list[str]) -> str:
        return " ".join(c.ljust(w) if i < 2 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(row, widths))).rstrip()

    return [line(titles), " ".join("-" * w for w in widths)] + [line(c) for c in cells[1:]]


def _notes(rows: list[dict], have_c: bool, python_epochs: int) -> list[str]:
    notes = ["n, d: training rows, features; ep: epochs run; train, test: accuracy.",
             "mist: mistakes, total over all epochs (ovr: summed over the K perceptrons).",
             "bound: (R/g)^2, the Block/Novikoff bound of the generating separator on the",
             "training set ('-': not separable). C s, Py s: training seconds, C core and",
             "Python twin."]
    if not have_c:
        notes.append("C s: n/a, the C core is not in use; the models ran on the Python twins.")
        return notes
    if python_epochs <= 0:
        notes.append("Python s: not measured (--python-epochs 0).")
        return notes
    c_total = sum(r["c_time"] for r in rows)
    py_total = sum(r["py_time"] for r in rows)
    agree = all(r["agree"] for r in rows)
    if any(r["partial"] for r in rows):
        notes.append(f"* the Python twin ran the first {python_epochs} epoch(s) only (same data "
                     "and seed;")
        notes.append("  --python-epochs N: more).")
    notes.append(f"Python twin / C core time per epoch: {py_total / max(c_total, 1e-9):.0f}x.")
    notes.append("The Python twin made the same mistakes in every epoch as the C core: "
                 f"{'yes' if agree else 'NO'}.")
    return notes


def run_demo(seed: int = 0, epochs: int = 30, python_epochs: int = 1,
             out: TextIO | None = None) -> list[dict]:
    """Train every variant on the demo sets, print the table to ``out``; return the rows.

    Parameters
    ----------
    seed : int, default=0
        Seed of the data sets and the models.
    epochs : int, default=30
        The most epochs of each run (``max_iter``).
    python_epochs : int, default=1
        Epochs of the pure-Python twin's run of each variant (at most the C core's), timed
        beside the C core's and checked to make the same mistakes; 0 skips it. Without
        the C core, the one run is the Python twin's.
    out : file-like, optional
        Where the table and its notes are printed; None means ``sys.stdout``.

    Returns
    -------
    list of dict
        One row per variant: the table's columns (``algorithm``, ``data``, ``epochs``,
        ``mistakes``, ``train``, ``test``, ...), ``agree`` (the twins made the same
        mistakes), and the per-epoch times ``c_time`` and ``py_time``.
    """
    from . import __version__

    out = sys.stdout if out is None else out
    have_c = BACKEND == "c"
    data, bounds = make_demo_data(seed)
    print(f"perceptron_c {__version__} backend={BACKEND}", file=out)
    print(f"data (seed {seed}): separable (margin >= 0.2 around a known separator),\n"
          "text (sparse bag of words), blobs-10 (10 Gaussian classes),\n"
          "xor (4 noisy clusters), dnf-40 (40 bits, label x0x3 | x5x7 | x2x11).", file=out)
    rows = [_train_row(plan, data, bounds, epochs, python_epochs, seed, have_c)
            for plan in PLANS]
    for text_line in format_table(rows) + _notes(rows, have_c, python_epochs):
        print(text_line, file=out)
    return rows


def write_plots(directory: str, seed: int = 0, out: TextIO | None = None) -> list[str]:
    """Run the figure-producing experiments and write their PNGs to ``directory``.

    The experiments of `perceptron_c.experiments` run in their quick configuration. The digits
    learning curves need scikit-learn and are skipped with a note without it.

    Parameters
    ----------
    directory : str
        The folder of the figures, created if missing.
    seed : int, default=0
        Seed of every experiment.
    out : file-like, optional
        Where the list of files (and a skipped experiment's note) is printed; None means
        ``sys.stdout``.

    Returns
    -------
    list of str
        The paths written.

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    OSError
        If a file cannot be written.
    """
    from . import experiments, plots

    out = sys.stdout if out is None else out
    quick = experiments.QUICK
    results = {}
    try:
        results["learning_curves"] = experiments.learning_curves(
            seed=seed, variants=experiments.VARIANTS, **quick["learning_curves"])
    except ImportError as exc:
        print(f"figures: skipped the digits learning curves ({exc})", file=out)
    results["ordering"] = experiments.ordering(seed=seed, **quick["ordering"])
    results["mistakes_vs_margin"] = experiments.mistakes_vs_margin(
        seed=seed, **quick["mistakes_vs_margin"])
    results["boundaries_2d"] = experiments.boundaries_2d(seed=seed, **quick["boundaries_2d"])
    paths = plots.save_figures(results, directory)
    print(f"figures (quick configuration, seed {seed}; full runs: examples/experiments.py):",
          file=out)
    for path in paths:
        print(f"  {path}", file=out)
    return paths
