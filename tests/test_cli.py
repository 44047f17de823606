"""The perceptron-c command line, run in-process through main(argv)."""
import os
import pathlib
import re
import sys
import warnings

import numpy as np
import pytest
from conftest import run_python

import perceptron_c
from perceptron_c import cli, datasets, io
from perceptron_c.datasets import _files as _datafiles


@pytest.fixture
def csv_files(tmp_path):
    """A labeled training CSV with a header and string labels, a labeled and an unlabeled
    test CSV."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 3))
    y = np.where(X @ np.array([2.0, -1.0, 0.5]) + 0.2 > 0, "yes", "no")

    def write(path, rows, labels, header):
        lines = [header] if header else []
        for row, label in zip(rows, labels if labels is not None else [None] * len(rows)):
            cells = [repr(float(v)) for v in row] + ([str(label)] if label is not None else [])
            lines.append(",".join(cells))
        path.write_text("\n".join(lines) + "\n")
        return path

    return (write(tmp_path / "train.csv", X[:80], y[:80], "a,b,c,label"),
            write(tmp_path / "test.csv", X[80:], y[80:], None),
            write(tmp_path / "unlabeled.csv", X[80:], None, None),
            y[80:])


def test_train_then_predict_csv(tmp_path, csv_files, capsys):
    train, test, _, y_test = csv_files
    model_path = tmp_path / "model.npz"
    assert cli.main(["train", str(train), "-o", str(model_path), "--epochs", "50"]) == 0
    out, err = capsys.readouterr()
    assert out.count("\n") == 1
    assert "epochs=" in out and "converged=" in out and "train_accuracy=" in out
    assert str(model_path) in out
    assert err == ""

    assert cli.main(["predict", str(model_path), str(test)]) == 0
    out, err = capsys.readouterr()
    predicted = out.splitlines()
    assert len(predicted) == len(y_test) and set(predicted) <= {"yes", "no"}
    assert err.startswith("accuracy ")
    accuracy = float(err.split()[1])
    assert accuracy == np.mean(np.array(predicted) == y_test)
    assert accuracy > 0.8

    model = io.load_model(model_path)
    X_test, _ = datasets.load_data(test)
    assert predicted == model.predict(X_test).tolist()


def test_predict_unlabeled_data_to_a_file(tmp_path, csv_files, capsys):
    train, _, unlabeled, y_test = csv_files
    model_path = tmp_path / "m"  # .npz is appended
    assert cli.main(["train", str(train), "-o", str(model_path)]) == 0
    capsys.readouterr()
    out_path = tmp_path / "labels.txt"
    assert cli.main(["predict", str(tmp_path / "m.npz"), str(unlabeled),
                     "-o", str(out_path)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and err == ""  # no labels in the file, so no accuracy line
    assert len(out_path.read_text().splitlines()) == len(y_test)


def test_train_options_reach_the_model(tmp_path, capsys):
    rng = np.random.default_rng(1)
    centres = np.array([[0.0, 5.0], [5.0, 0.0], [-5.0, -5.0]])
    y = rng.integers(1, 4, size=60)
    X = centres[y - 1] + rng.standard_normal((60, 2))
    data = tmp_path / "d.svm"
    datasets.dump_svmlight(X, y, data)
    model_path = tmp_path / "m.npz"
    argv = ["train", str(data), "-o", str(model_path), "--average", "--normalize",
            "--no-intercept", "--multiclass", "ovr", "--epochs", "3", "--seed", "9", "-v"]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert "3 classes" in out
    model = io.load_model(model_path)
    params = model.get_params()
    assert params["average"] and params["normalize"] and not params["fit_intercept"]
    assert params["multiclass"] == "ovr" and params["max_iter"] == 3
    assert params["random_state"] == 9 and params["verbose"] == 1
    assert model.n_iter_ <= 3 and model.coef_.shape == (3, 2)
    assert len([line for line in err.splitlines() if "epoch" in line]) == model.n_iter_

    # predict reads svmlight test data narrower than the model (trailing zero columns)
    narrow = tmp_path / "narrow.svm"
    narrow.write_text("1 1:0.5\n2 1:5\n")
    assert cli.main(["predict", str(model_path), str(narrow)]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 2 and err.startswith("accuracy ")


def _assert_one_line_error(capsys, *fragments):
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("perceptron-c: error: ")
    assert err.count("\n") == 1 and "Traceback" not in err
    for fragment in fragments:
        assert fragment in err


def test_errors_exit_2_with_one_line(tmp_path, csv_files, capsys):
    train = csv_files[0]
    model_path = tmp_path / "model.npz"

    assert cli.main(["train", str(tmp_path / "absent.csv"), "-o", str(model_path)]) == 2
    _assert_one_line_error(capsys, "absent.csv")

    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:1\n-1 2:x\n")
    assert cli.main(["train", str(bad), "-o", str(model_path)]) == 2
    _assert_one_line_error(capsys, "bad.svm:2")

    assert cli.main(["train", str(tmp_path / "data.xlsx"), "-o", str(model_path)]) == 2
    _assert_one_line_error(capsys, "unknown data format")

    assert cli.main(["predict", str(tmp_path / "absent.npz"), str(train)]) == 2
    _assert_one_line_error(capsys, "absent.npz")

    not_a_model = tmp_path / "not_a_model.npz"
    not_a_model.write_bytes(b"plain text")
    assert cli.main(["predict", str(not_a_model), str(train)]) == 2
    _assert_one_line_error(capsys, "not_a_model.npz")

    assert cli.main(["train", str(train), "-o", str(model_path), "--epochs", "0"]) == 2
    _assert_one_line_error(capsys, "--epochs")
    assert not model_path.exists()

    # a model trained on 3 features cannot predict 4-feature data
    assert cli.main(["train", str(train), "-o", str(model_path)]) == 0
    capsys.readouterr()
    wide = tmp_path / "wide.csv"
    wide.write_text("1,2,3,4,yes\n")
    assert cli.main(["predict", str(model_path), str(wide)]) == 2
    _assert_one_line_error(capsys, "wide.csv")


def test_usage_errors_and_help(capsys):
    assert cli.main([]) == 2
    assert cli.main(["train"]) == 2
    assert cli.main(["frobnicate"]) == 2
    capsys.readouterr()
    assert cli.main(["--help"]) == 0
    assert "demo" in capsys.readouterr().out
    assert cli.main(["--version"]) == 0
    assert f"backend={perceptron_c.BACKEND}" in capsys.readouterr().out


def _table_rows(out):
    """(all lines, table body lines); a body row ends with 7 cells: epochs ... seconds."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("algorithm"))
    rows = []
    for line in lines[start + 2:]:
        cells = line.split()
        if len(cells) < 11 or not cells[-7].isdigit():
            break
        rows.append(line)
    return lines, rows


def test_demo(capsys):
    assert cli.main(["demo", "--python-epochs", "2"]) == 0
    out, err = capsys.readouterr()
    lines, rows = _table_rows(out)
    assert lines[0] == f"perceptron_c {perceptron_c.__version__} backend={perceptron_c.BACKEND}"
    assert len(rows) == 17
    for name in ("separable", "text", "blobs-10", "averaged", "normalized", "voted",
                 "K-class argmax", "K-class ovr", "kernel poly-2", "kernel rbf",
                 "kernel conjunction", "dnf-40"):
        assert name in out
    by_name = {(r.split()[0] + " " + r.split()[1], r.split()[2]): r.split() for r in rows}
    # XOR: the linear kernel cannot fit it, degree-2 and RBF kernels do
    assert float(by_name[("kernel linear", "xor")][-4]) < 0.75
    assert float(by_name[("kernel poly-2", "xor")][-4]) == 1.0
    assert float(by_name[("kernel rbf", "xor")][-4]) == 1.0
    # the hidden DNF: consistent with the conjunction kernel, beyond the linear perceptron
    conj = by_name[("kernel conjunction", "dnf-40")]
    assert float(conj[-4]) == 1.0
    for row in rows:
        if "separable" in row:
            cells = row.split()
            mistakes, bound = int(cells[-6]), float(cells[-5])
            assert mistakes <= bound  # the Block/Novikoff theorem, on the demo's own data
            assert float(cells[-4]) == 1.0  # separable: fits the training set exactly
        else:
            assert row.split()[-5] == "-"
    if perceptron_c.BACKEND == "c":
        assert "same mistakes in every epoch as the C core: yes" in out
        assert "first 2 epoch(s)" in out


def test_demo_fits_80_columns(monkeypatch, capsys):
    # even on a slow machine: a loaded one took over 10 s for a Python row once, whose time
    # then took a column more (12.3457*) and the table 81; every time now takes 6 characters
    from perceptron_c import demo

    real = demo._timed_fit
    monkeypatch.setattr(demo, "_timed_fit", lambda *a: (real(*a)[0], 12.345678))
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "algorithm" in out and "bound" in out
    assert [line for line in out.splitlines() if len(line) > 80] == []
    assert "12.346" in out
    assert [demo._seconds(t) for t in (0.00012, 9.99996, 99.9996, 4567.8, 12345.6)] == \
        ["0.0001", "10.000", "100.00", "4567.8", "12346"]


def test_demo_without_the_c_core_shows_na(monkeypatch):
    import io as stdio

    from perceptron_c import _backend, demo

    monkeypatch.setattr(demo, "BACKEND", "python")
    # the voted row predicts on 5000 sparse columns: about 20 s on the Python twin alone
    monkeypatch.setattr(demo, "PLANS", [p for p in demo.PLANS if p[0] != "voted"])
    buffer = stdio.StringIO()
    with _backend.using("python"):
        results = demo.run_demo(seed=1, epochs=2, out=buffer)
    assert len(results) == 16
    assert all(row["C s"] == "n/a" for row in results)
    assert all(row["Python s"] != "-" for row in results)
    assert "backend=python" in buffer.getvalue().splitlines()[0]


def test_python_m_help_in_a_subprocess():
    package_parent = str(pathlib.Path(perceptron_c.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=package_parent)
    result = run_python(["-m", "perceptron_c", "--help"], env=env, capture_output=True,
                        text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "usage: perceptron-c" in result.stdout
    for command in ("demo", "train", "predict"):
        assert command in result.stdout


def test_demo_plots_writes_the_figures(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out_dir = tmp_path / "figs"
    assert cli.main(["demo", "--epochs", "2", "--python-epochs", "0",
                     "--plots", str(out_dir)]) == 0
    out, err = capsys.readouterr()
    assert "figures (quick configuration" in out
    names = {"ordering.png", "mistakes_vs_margin.png", "boundaries_2d.png"}
    written = {p.name for p in out_dir.glob("*.png")}
    assert names <= written
    for name in written:
        data = (out_dir / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000
        assert str(out_dir / name) in out


def test_demo_plots_without_matplotlib_exits_2(tmp_path, capsys, monkeypatch):
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)
    assert cli.main(["demo", "--epochs", "1", "--plots", str(tmp_path / "figs")]) == 2
    _assert_one_line_error(capsys, "perceptron-c[plot]")
    assert not (tmp_path / "figs").exists()


def test_overflow_memory_and_huge_indices_are_one_line_errors(tmp_path, capsys, monkeypatch):
    """The failures that used to print a traceback: a legitimate polynomial model on a value
    of 1e120 (OverflowError: the input's scale, exit 2 like a Perceptron's overflow), an
    svmlight index of 10^30, a 21-byte svmlight file declaring a huge width without scipy
    (MemoryError), memory running out, and Ctrl-C."""
    train = tmp_path / "train.svm"
    train.write_text("1 1:0.5 2:1\n-1 1:-0.5 2:-1\n1 1:1 2:0.2\n-1 1:-1 2:0.1\n")
    model = tmp_path / "poly.npz"
    assert cli.main(["train", str(train), "-o", str(model), "--estimator", "kernel",
                     "--kernel", "poly", "--degree", "3"]) == 0
    capsys.readouterr()
    huge = tmp_path / "huge.svm"
    huge.write_text("1 1:1e120 2:1\n")
    assert cli.main(["predict", str(model), str(huge)]) == cli.EXIT_ERROR
    _assert_one_line_error(capsys, "overflow")
    index = tmp_path / "index.svm"
    index.write_text("1 1000000000000000000000000000000:1\n")
    assert cli.main(["predict", str(model), str(index)]) == cli.EXIT_ERROR
    _assert_one_line_error(capsys, "outside")
    monkeypatch.setattr(_datafiles, "_scipy_sparse", lambda: None)
    wide = tmp_path / "w.svm"
    wide.write_text("1 2000000000:1\n")  # 21 bytes
    assert cli.main(["train", str(wide), "-o", str(tmp_path / "w.npz")]) == cli.EXIT_ERROR
    _assert_one_line_error(capsys, "install scipy")

    def out_of_memory(args):
        raise MemoryError

    monkeypatch.setattr(cli, "_cmd_train", out_of_memory)
    assert cli.main(["train", str(train), "-o", str(model)]) == cli.EXIT_FAILED == 3
    _assert_one_line_error(capsys, "out of memory")

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_cmd_train", interrupted)
    assert cli.main(["train", str(train), "-o", str(model)]) == cli.EXIT_INTERRUPTED
    assert capsys.readouterr().err == "perceptron-c: interrupted\n"


@pytest.mark.parametrize("estimator,extra", [
    ("perceptron", ["--average", "--multiclass", "ovr"]),
    ("perceptron", ["--normalize", "--param", "early_stopping=True"]),
    ("kernel", ["--kernel", "rbf", "--gamma", "0.5", "--average"]),
    ("voted", ["--kernel", "poly", "--degree", "2"]),
    ("voted", []),
    ("perceptron", ["--param", "penalty='l2'", "--param", "tol=1e9",  # stops after 2 epochs
                    "--param", "n_iter_no_change=2", "--param", "class_weight='balanced'"]),
    ("pa", ["--average", "--param", "C=0.5", "--param", "tol=None"]),
    ("budget", ["--param", "budget=20", "--param", "strategy='forgetron'"]),
])
def test_train_fits_any_estimator(tmp_path, csv_files, capsys, estimator, extra):
    train, test = csv_files[:2]
    model = tmp_path / "m.npz"
    assert cli.main(["train", str(train), "-o", str(model), "--estimator", estimator,
                     "--epochs", "5", *extra]) == 0
    assert f"trained {cli.ESTIMATORS[estimator].__name__}" in capsys.readouterr().out
    loaded = perceptron_c.load(model)
    assert type(loaded) is cli.ESTIMATORS[estimator] and loaded.max_iter == 5
    assert cli.main(["predict", str(model), str(test)]) == 0


def test_train_refuses_flags_that_do_not_apply(tmp_path, csv_files, capsys):
    train = csv_files[0]
    assert cli.main(["train", str(train), "-o", str(tmp_path / "m"), "--estimator", "voted",
                     "--average"]) == 2
    _assert_one_line_error(capsys, "--average does not apply to --estimator voted")
    assert cli.main(["train", str(train), "-o", str(tmp_path / "m"), "--param", "nope=1"]) == 2
    _assert_one_line_error(capsys, "--param 'nope=1'")


def test_every_overflow_exits_2_on_one_line(tmp_path, capsys):
    """Training or predicting past float64 is the input's scale, whichever estimator: exit
    2 (the Perceptron raises ValueError, the float Gram of a kernel OverflowError)."""
    train = tmp_path / "train.csv"
    train.write_text("1e300,1e300,1\n-1e300,1e300,0\n1e300,-1e300,0\n-1e300,-1e300,1\n")
    for estimator, extra in (("perceptron", []), ("kernel", ["--kernel", "poly"])):
        model = tmp_path / f"{estimator}.npz"
        assert cli.main(["train", str(train), "-o", str(model), "--estimator", estimator,
                         "--epochs", "5", *extra]) == cli.EXIT_ERROR == 2
        _assert_one_line_error(capsys, "overflow")
        assert not model.exists()
    small = tmp_path / "small.csv"
    small.write_text("1,1,1\n-1,-1,0\n")  # equal positive weights on both features
    for estimator, extra in (("perceptron", []), ("kernel", ["--kernel", "poly"])):
        model = tmp_path / f"{estimator}.npz"
        assert cli.main(["train", str(small), "-o", str(model), "--estimator", estimator,
                         *extra]) == 0
        capsys.readouterr()
        huge = tmp_path / "huge.csv"
        huge.write_text("1e308,1e308\n")
        assert cli.main(["predict", str(model), str(huge)]) == cli.EXIT_ERROR
        _assert_one_line_error(capsys, "overflow")


def _exit_statuses(text):
    """{status: meaning} of a list of '- N: meaning' items (meanings may wrap)."""
    items = re.findall(r"^- (\d+): (.*?)(?=^- \d+:|^\S|^$|\Z)", text, re.M | re.S)
    return {int(code): " ".join(meaning.split()) for code, meaning in items}


def test_the_guide_and_the_cli_docstring_state_the_same_exit_statuses():
    documented = _exit_statuses(cli.__doc__)
    assert set(documented) == {cli.EXIT_OK, cli.EXIT_ERROR, cli.EXIT_FAILED,
                               cli.EXIT_INTERRUPTED}
    assert "overflow" in documented[cli.EXIT_ERROR]
    guide = pathlib.Path(__file__).resolve().parent.parent / "docs" / "guide.md"
    assert _exit_statuses(guide.read_text(encoding="utf-8")) == documented


def test_a_failed_save_names_the_output_path(tmp_path, csv_files, capsys):
    train = csv_files[0]
    target = tmp_path / "absent" / "m.npz"
    assert cli.main(["train", str(train), "-o", str(target)]) == cli.EXIT_ERROR
    _assert_one_line_error(capsys, f"'{target}'")
    (tmp_path / "taken.npz").mkdir()
    assert cli.main(["train", str(train), "-o", str(tmp_path / "taken.npz")]) == cli.EXIT_ERROR
    out, err = capsys.readouterr()
    assert f"'{tmp_path / 'taken.npz'}'" in err and ".tmp" not in err
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.filterwarnings("always::UserWarning")
def test_a_warning_is_one_line_and_leaves_the_warning_state_alone(tmp_path, csv_files,
                                                                  capsys):
    train = csv_files[0]
    showwarning, filters = warnings.showwarning, list(warnings.filters)
    assert cli.main(["train", str(train), "-o", str(tmp_path / "m"), "--estimator", "pa",
                     "--epochs", "1"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("trained PassiveAggressiveClassifier")
    assert err.startswith("perceptron-c: warning: PassiveAggressiveClassifier: max_iter=1")
    assert err.count("\n") == 1 and "cli.py" not in err and "model.fit" not in err
    assert warnings.showwarning is showwarning and warnings.filters == filters
    with pytest.warns(perceptron_c.ConvergenceWarning, match="max_iter=1"):
        perceptron_c.PassiveAggressiveClassifier(max_iter=1).fit(*datasets.load_data(train))


def test_a_pandas_style_header_is_not_a_sample(tmp_path, capsys):
    data = tmp_path / "p.csv"
    data.write_text("0,1,y\n" + "".join(f"{i % 3},{i % 5},{i % 2}\n" for i in range(20)))
    assert cli.main(["train", str(data), "-o", str(tmp_path / "m")]) == 0
    assert "on 20 samples x 2 features, 2 classes" in capsys.readouterr().out
