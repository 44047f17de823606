"""The experiments of docs/experiments.md in tiny configurations: the numbers make sense, the
tables print, and (with matplotlib) the figures are written."""
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import perceptron_c
from perceptron_c import experiments as E
from perceptron_c.datasets import load_digits_split, make_separable

HAVE_VOTED = hasattr(perceptron_c, "VotedPerceptron")
VARIANTS = E.VARIANTS if HAVE_VOTED else ("last", "averaged")
EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "experiments.py"


@pytest.fixture(scope="module")
def quick():
    """Every experiment once, in its QUICK configuration (digits only with scikit-learn)."""
    results = {
        "ordering": E.ordering(**E.QUICK["ordering"]),
        "mistakes_vs_margin": E.mistakes_vs_margin(**E.QUICK["mistakes_vs_margin"]),
        "boundaries_2d": E.boundaries_2d(**E.QUICK["boundaries_2d"]),
    }
    try:
        import sklearn.datasets  # noqa: F401
    except ImportError:
        return results
    results["learning_curves"] = E.learning_curves(variants=VARIANTS,
                                                   **E.QUICK["learning_curves"])
    return results


def test_separable_data_has_the_margin():
    rng = np.random.default_rng(3)
    X, y, u, b0 = make_separable(rng, 300, 4, 0.25, bias=0.5)
    assert X.shape == (300, 4) and set(np.unique(y)) == {-1, 1}
    assert np.isclose(np.linalg.norm(u), 1.0)
    assert perceptron_c.margin(X, y, u, b0) >= 0.25


def test_learning_curves(quick):
    pytest.importorskip("sklearn")
    res = quick["learning_curves"]
    cfg = E.QUICK["learning_curves"]
    assert res["n_train"] == cfg["n_train"] and res["n_test"] == cfg["n_test"]
    assert res["variants"] == list(VARIANTS)
    for v in VARIANTS:
        err, n_iter = res["error"][v], res["n_iter"][v]
        assert err.shape == n_iter.shape == (len(cfg["degrees"]), len(cfg["epochs"]))
        assert np.all((0 <= err) & (err < 0.5))  # 10 classes: chance is 0.9
        assert np.all((1 <= n_iter) & (n_iter <= np.array(cfg["epochs"])))
        assert np.all(np.diff(n_iter, axis=1) >= 0)
    # the averaged perceptron after a single epoch beats the last hypothesis
    assert np.all(res["error"]["averaged"][:, 0] < res["error"]["last"][:, 0])
    table = E.format_learning_curves(res)
    assert len(table.splitlines()) == 2 + len(cfg["degrees"]) * len(VARIANTS) + 1


def test_learning_curves_model_for_T_is_the_T_epoch_prefix():
    """fit(max_iter=T) equals T epochs of partial_fit: the permutations depend on (seed,
    epoch) only, which is what makes the T-sweep a learning curve."""
    rng = np.random.default_rng(0)
    X, y, _, _ = make_separable(rng, 200, 5, 0.02, 0.0)
    a = perceptron_c.KernelPerceptron(kernel="poly", degree=2, max_iter=3, random_state=4)
    a.fit(X, y)
    b = perceptron_c.KernelPerceptron(kernel="poly", degree=2, random_state=4)
    for _ in range(a.n_iter_):
        b.partial_fit(X, y, classes=[-1, 1])
    assert np.array_equal(a.mistakes_, b.mistakes_)
    # the same model; the support vectors may be summed in another order
    assert np.allclose(a.decision_function(X), b.decision_function(X), rtol=1e-12, atol=1e-9)
    assert np.array_equal(a.predict(X), b.predict(X))


def test_digits_needs_sklearn(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    with pytest.raises(ImportError, match="scikit-learn"):
        load_digits_split()


def test_ordering(quick):
    res = quick["ordering"]
    cfg = E.QUICK["ordering"]
    shape = (cfg["repeats"], cfg["epochs"])
    for o in E.ORDERINGS:
        for key in ("train_error", "test_error", "mistakes"):
            assert res[key][o].shape == shape
        assert np.all((0 <= res["train_error"][o]) & (res["train_error"][o] <= 1))
        conv = res["converged_at"][o]
        assert np.all((0 <= conv) & (conv <= cfg["epochs"]))
        for r, t in enumerate(conv):
            if t:  # an error-free epoch: the model then fits the training set
                assert res["mistakes"][o][r, t - 1] == 0
                assert res["train_error"][o][r, t - 1] == 0
    # sorted by label and never permuted: the first epoch ends far worse (CIML Fig. 4.4)
    first = {o: res["train_error"][o][:, 0].mean() for o in E.ORDERINGS}
    assert first["fixed"] > 2 * max(first["permuted once"], first["shuffled"])
    # the mistakes never exceed the Block/Novikoff bound
    for o in E.ORDERINGS:
        assert np.all(res["mistakes"][o].sum(axis=1) <= res["bound"])
    assert "epochs to converge" in E.format_ordering(res)


def test_ordering_partial_fit_epochs_match_fit():
    rng = np.random.default_rng(1)
    X, y, _, _ = make_separable(rng, 150, 4, 0.05, 0.0)
    fitted = perceptron_c.Perceptron(max_iter=4, random_state=2).fit(X, y)
    stepped = perceptron_c.Perceptron(random_state=2)
    for _ in range(fitted.n_iter_):
        stepped.partial_fit(X, y, classes=[-1, 1])
    assert np.array_equal(fitted.mistakes_, stepped.mistakes_)
    assert np.array_equal(fitted.coef_, stepped.coef_)


def test_mistakes_vs_margin(quick):
    res = quick["mistakes_vs_margin"]
    cfg = E.QUICK["mistakes_vs_margin"]
    assert res["mistakes"].shape == (len(cfg["gaps"]), cfg["seeds"])
    assert res["converged"].all()
    assert np.all(res["mistakes"] >= 1)
    assert np.all(res["mistakes"] <= res["bound"])  # Block/Novikoff
    # the margin the bound uses is at least the generating gap, measured on (x, 1)
    gaps = np.array(cfg["gaps"])[:, None]
    assert np.all(res["gamma"] >= gaps / np.hypot(1.0, res["bias"]) - 1e-12)
    assert np.allclose(res["bound"], (res["R"] / res["gamma"]) ** 2)
    # smaller margin: larger bound and (on average) more mistakes
    assert np.all(np.diff(res["bound"].mean(axis=1)) > 0)
    assert np.all(np.diff(res["mistakes"].mean(axis=1)) > 0)
    assert len(E.format_mistakes_vs_margin(res).splitlines()) == 2 + len(cfg["gaps"]) + 1


def test_boundaries_2d(quick):
    res = quick["boundaries_2d"]
    grid = E.QUICK["boundaries_2d"]["grid"]
    panels = {p["title"]: p for p in res["panels"]}
    assert len(panels) == 4
    for p in res["panels"]:
        assert p["zz"].shape == p["xx"].shape == p["yy"].shape == (grid, grid)
        assert np.isfinite(p["zz"]).all()
    linear = panels["linear perceptron"]
    assert linear["train_accuracy"] == 1.0 and linear["converged"] and linear["margin"] > 0
    # the grid's sign agrees with the line w.x + b = 0 drawn on the figure
    w, b = linear["coef"], linear["intercept"]
    expected = w[0] * linear["xx"] + w[1] * linear["yy"] + b
    assert np.allclose(linear["zz"], expected)
    assert panels["XOR: linear kernel"]["train_accuracy"] < 0.8
    for title in ("XOR: poly kernel, degree 2", "XOR: RBF kernel"):
        p = panels[title]
        assert p["train_accuracy"] == 1.0 and p["converged"]
        assert 1 <= len(p["support_vectors"]) <= p["mistakes"]
    assert "support vectors" in E.format_boundaries_2d(res)


def test_plots_need_matplotlib_with_a_clear_message(monkeypatch, tmp_path, quick):
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)
    from perceptron_c import plots

    with pytest.raises(ImportError, match=r"perceptron-c\[plot\]"):
        plots.plot_mistakes_vs_margin(quick["mistakes_vs_margin"], tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_plots_write_pngs(quick, tmp_path):
    pytest.importorskip("matplotlib")
    from perceptron_c import plots

    paths = plots.save_figures(quick, tmp_path / "figs")
    assert len(paths) == len(quick)
    for name, path in zip(quick, paths):
        path = pathlib.Path(path)
        assert path.name == plots.FILENAMES[name]
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000


def _example_main():
    spec = importlib.util.spec_from_file_location("experiments_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


@pytest.mark.skipif(not EXAMPLE.exists(), reason="examples/ is not next to the tests")
def test_example_script_quick(tmp_path, capsys):
    main = _example_main()
    try:
        import matplotlib  # noqa: F401
        argv = ["--quick", "--out", str(tmp_path)]
    except ImportError:
        argv = ["--quick", "--no-plots"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    for title in ("Visiting order", "(R/gamma)^2", "Decision boundaries"):
        assert title in out
    if "--no-plots" not in argv:
        assert len(list(tmp_path.glob("*.png"))) >= 3
