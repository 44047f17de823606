"""Figures of the experiments in `perceptron_c.experiments`, written as PNG files.

matplotlib is optional (``pip install "perceptron-c[plot]"``) and imported only when a
figure is drawn. Figures are drawn with matplotlib's object-oriented API on the Agg canvas,
so nothing here touches pyplot's global state or the user's interactive backend.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from ._utils._docs import fill

__all__ = ["plot_learning_curves", "plot_ordering", "plot_mistakes_vs_margin",
           "plot_boundaries_2d", "save_figures", "require_matplotlib", "FILENAMES"]

DPI = 100
FILENAMES = {
    "learning_curves": "learning_curves_digits.png",
    "ordering": "ordering.png",
    "mistakes_vs_margin": "mistakes_vs_margin.png",
    "boundaries_2d": "boundaries_2d.png",
}
_COLORS = {"last": "#d62728", "averaged": "#1f77b4", "voted": "#2ca02c",
           "fixed": "#d62728", "permuted once": "#ff7f0e", "shuffled": "#1f77b4"}


def require_matplotlib() -> tuple[Any, Any]:
    """Import matplotlib's Figure and Agg canvas; a clear ImportError without matplotlib.

    Returns
    -------
    Figure : type
        ``matplotlib.figure.Figure``.
    FigureCanvasAgg : type
        ``matplotlib.backends.backend_agg.FigureCanvasAgg``.

    Raises
    ------
    ImportError
        If matplotlib is not installed, saying how to install it.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError('plotting needs matplotlib: pip install "perceptron-c[plot]" '
                          '(or pip install matplotlib)') from exc
    return Figure, FigureCanvasAgg


# a plotter's Parameters, Returns and Raises; {res} names the experiment it draws
_FIGURE = {"figure": """
    Parameters
    ----------
    {res}
    path : str or path-like
        The PNG file written; its folder is created if missing.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    OSError
        If the file cannot be written.
    """}


def _figure(width: float, height: float) -> Any:
    """A matplotlib Figure on an Agg canvas."""
    Figure, FigureCanvasAgg = require_matplotlib()
    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Any, path: str | os.PathLike[str]) -> str:
    path = os.fspath(path)
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    fig.savefig(path, dpi=DPI)
    return path


def _finish(fig: Any, first: Any, ylabel: str, path: str | os.PathLike[str],
            title: str) -> str:
    """A panel figure's last steps: the first panel's label and legend, the title, the file."""
    first.set_ylabel(ylabel)
    first.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return _save(fig, path)


@fill(_FIGURE, res="res : dict\n    What `perceptron_c.experiments.learning_curves` returned.")
def plot_learning_curves(res: dict[str, Any], path: str | os.PathLike[str]) -> str:
    """Test error vs epochs, one panel per polynomial degree, one line per variant.

    {figure}
    """
    degrees, epochs = res["degrees"], res["epochs"]
    cols = min(len(degrees), 5)
    rows = -(-len(degrees) // cols)
    fig = _figure(2.6 * cols + 0.4, 2.6 * rows + 0.6)
    axes = fig.subplots(rows, cols, sharey=True, squeeze=False).ravel()
    top = max(np.nanmax(100 * res["error"][v]) for v in res["variants"])
    for i, degree in enumerate(degrees):
        ax = axes[i]
        for v in res["variants"]:
            ax.plot(epochs, 100 * res["error"][v][i], marker="o", ms=3,
                    color=_COLORS.get(v), label=v)
        ax.set_title(f"poly degree {degree}")
        ax.set_xlabel("epochs T")
        ax.set_ylim(0, top * 1.05)
        ax.grid(alpha=0.3)
    for ax in axes[len(degrees):]:
        ax.set_visible(False)
    return _finish(fig, axes[0], "test error (%)", path,
                   f"Kernel perceptron on digits ({res['n_train']} train / {res['n_test']} "
                   f"test): last vs averaged vs voted")


@fill(_FIGURE, res="res : dict\n    What `perceptron_c.experiments.ordering` returned.")
def plot_ordering(res: dict[str, Any], path: str | os.PathLike[str]) -> str:
    """Mean training and test error per epoch for the three visiting orders.

    The band around each line spans the quartiles over the repeats; the error axis is
    symmetric-log.

    {figure}
    """
    fig = _figure(9, 3.6)
    axes = fig.subplots(1, 2, sharey=True)
    t = np.arange(1, res["epochs"] + 1)
    for ax, key, title in ((axes[0], "train_error", "training error"),
                           (axes[1], "test_error", "test error")):
        for o in res["orderings"]:
            err = 100 * res[key][o]
            ax.plot(t, err.mean(axis=0), color=_COLORS.get(o), label=o)
            ax.fill_between(t, np.percentile(err, 25, axis=0), np.percentile(err, 75, axis=0),
                            color=_COLORS.get(o), alpha=0.15, lw=0)
        ax.set_title(title)
        ax.set_xlabel("epoch")
        ax.set_yscale("symlog", linthresh=1.0)
        ax.grid(alpha=0.3)
    return _finish(fig, axes[0], "error (%), mean over repeats", path,
                   f"Perceptron on data sorted by label ({res['repeats']} repeats, "
                   f"n={res['n_train']}, d={res['d']}); band: quartiles")


@fill(_FIGURE, res="res : dict\n    What `perceptron_c.experiments.mistakes_vs_margin` returned.")
def plot_mistakes_vs_margin(res: dict[str, Any], path: str | os.PathLike[str]) -> str:
    """Log-log: total mistakes (each data set, and the mean) and (R/gamma)^2 vs 1/gamma^2.

    {figure}
    """
    fig = _figure(5.6, 4.2)
    ax = fig.subplots()
    x = 1.0 / res["gamma"] ** 2
    ax.scatter(x.ravel(), res["mistakes"].ravel(), s=12, color=_COLORS["averaged"], alpha=0.6,
               label="mistakes (each data set)")
    ax.plot(x.mean(axis=1), res["mistakes"].mean(axis=1), color=_COLORS["averaged"],
            marker="o", label="mistakes (mean)")
    ax.plot(x.mean(axis=1), res["bound"].mean(axis=1), color=_COLORS["last"], marker="s",
            ls="--", label=r"bound $(R/\gamma)^2$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"$1/\gamma^2$")
    ax.set_ylabel("total mistakes until convergence")
    ax.set_title(f"Perceptron mistakes vs the Block/Novikoff bound (n={res['n']}, "
                 f"d={res['d']})", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _save(fig, path)


@fill(_FIGURE, res="res : dict\n    What `perceptron_c.experiments.boundaries_2d` returned.")
def plot_boundaries_2d(res: dict[str, Any], path: str | os.PathLike[str]) -> str:
    """One panel per model: the sign of the decision function and the points.

    The linear panel draws its weight vector w; the kernel panels circle their support
    vectors.

    {figure}
    """
    from matplotlib.colors import ListedColormap

    panels = res["panels"]
    fig = _figure(3.2 * len(panels), 3.5)
    axes = np.atleast_1d(fig.subplots(1, len(panels)))
    regions = ListedColormap(["#f4c7c3", "#c6dbef"])
    for ax, p in zip(axes, panels):
        xx, yy, zz, X, y = p["xx"], p["yy"], p["zz"], p["X"], p["y"]
        ax.contourf(xx, yy, np.where(zz > 0, 1.0, 0.0), levels=[-0.5, 0.5, 1.5], cmap=regions)
        if np.nanmin(zz) < 0 < np.nanmax(zz):
            ax.contour(xx, yy, zz, levels=[0.0], colors="k", linewidths=1)
        positive = y > 0
        ax.scatter(X[~positive, 0], X[~positive, 1], marker="_", s=30, color="#b2182b", lw=1.5)
        ax.scatter(X[positive, 0], X[positive, 1], marker="+", s=30, color="#2166ac", lw=1.5)
        if p["support_vectors"] is not None and len(p["support_vectors"]):
            sv = p["support_vectors"]
            ax.scatter(sv[:, 0], sv[:, 1], s=90, facecolors="none", edgecolors="k", lw=0.8,
                       label=f"support vectors ({len(sv)})")
            ax.legend(fontsize=7, loc="lower left")
        if p["coef"] is not None:
            w, b = np.asarray(p["coef"], dtype=float), p["intercept"]
            foot = -b * w / np.dot(w, w)  # the boundary's point closest to the origin
            scale = 0.4 * (xx.max() - xx.min()) / np.linalg.norm(w)
            ax.annotate("", xy=foot + scale * w, xytext=foot,
                        arrowprops=dict(arrowstyle="->", color="k", lw=1.8))
            ax.text(*(foot + 1.08 * scale * w), "w", fontsize=11, weight="bold")
            ax.plot([0], [0], marker="x", color="0.4", ms=5)
        ax.set_xlim(xx.min(), xx.max())
        ax.set_ylim(yy.min(), yy.max())
        ax.set_aspect("equal")
        ax.set_title(f"{p['title']}\ntrain acc {p['train_accuracy']:.2f}, "
                     f"{p['mistakes']} mistakes", fontsize=9)
        ax.tick_params(labelsize=7)
    fig.tight_layout()
    return _save(fig, path)


PLOTTERS = {
    "learning_curves": plot_learning_curves,
    "ordering": plot_ordering,
    "mistakes_vs_margin": plot_mistakes_vs_margin,
    "boundaries_2d": plot_boundaries_2d,
}


def save_figures(results: dict[str, dict[str, Any]],
                 out_dir: str | os.PathLike[str]) -> list[str]:
    """Draw every result of ``{experiment name: result dict}`` into ``out_dir``.

    Parameters
    ----------
    results : dict of str to dict
        Result dicts of `perceptron_c.experiments`, by experiment name (``"learning_curves"``,
        ``"ordering"``, ``"mistakes_vs_margin"``, ``"boundaries_2d"``).
    out_dir : str or path-like
        The folder, created if missing; each figure gets its name from ``FILENAMES``.

    Returns
    -------
    list of str
        The paths written, in the order of ``results``.

    Raises
    ------
    KeyError
        If a name is not one of the experiments.
    ImportError
        If matplotlib is not installed.
    OSError
        If a file cannot be written.
    """
    return [PLOTTERS[name](res, os.path.join(os.fspath(out_dir), FILENAMES[name]))
            for name, res in results.items()]
