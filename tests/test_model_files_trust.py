"""Files trusted both ways: what save writes load reads back the same (or save refuses first),
any legal file name, no blocking on what is not a regular file, predictions as CSV written whole."""
import builtins
import csv
import errno
import io as stdio
import os
import tempfile
import threading

import numpy as np
import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import perceptron_c
from perceptron_c import FileFormatError, Perceptron, cli, io
from perceptron_c._estimator._base import EpochModel

# every classifier the package exports (one list: the public namespace)
CLASSIFIERS = [getattr(perceptron_c, name) for name in perceptron_c.__all__
               if isinstance(getattr(perceptron_c, name), type)
               and issubclass(getattr(perceptron_c, name), EpochModel)
               and getattr(perceptron_c, name)._classifier]


def small(cls):
    """A quick model of ``cls``: two epochs, a fixed seed, no tol rule (so no warning)."""
    params = {"max_iter": 2, "random_state": 0}
    if "tol" in cls().get_params():
        params["tol"] = None
    return cls(**params)


def rows(cls, X):
    """What a call on rows X needs beyond them: a sentence model's lengths (here all of X one
    sentence: these tests are about labels)."""
    return {"lengths": [len(X)]} if getattr(cls, "_sentences", False) else {}


def test_the_classifier_list_is_the_public_one():
    names = {cls.__name__ for cls in CLASSIFIERS}
    assert {"Perceptron", "PassiveAggressiveClassifier", "VotedPerceptron", "KernelPerceptron",
            "KernelPassiveAggressiveClassifier", "BudgetKernelPerceptron"} <= names


def _with_nat(dtype):
    values = np.arange(3, dtype=np.int64).astype(dtype)
    return np.concatenate([values, np.array(["NaT"], dtype=dtype)])


# ------------------------------------------------------------------- 1. NaT, NaN, None labels

@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("dtype", ["M8[ns]", "M8[D]", "m8[s]"])
def test_nat_labels_are_refused_by_fit_as_nan_labels_are(tmp_path, cls, dtype):
    """np.unique keeps NaT as a class, but NaT != NaT: no label could be matched to it
    (scikit-learn's LabelEncoder fails on it too). Refused up front, as NaN is."""
    y = np.tile(_with_nat(dtype), 3)
    X = np.random.default_rng(0).normal(size=(len(y), 2))
    with pytest.raises(ValueError, match="NaT"):
        small(cls).fit(X, y, **rows(cls, X))
    with pytest.raises(ValueError, match="NaT"):
        small(cls).partial_fit(X[:3], y[:3], classes=_with_nat(dtype), **rows(cls, X[:3]))
    with pytest.raises(ValueError, match="NaN"):
        small(cls).fit(X, np.tile([0.0, 1.0, np.nan, 2.0], 3), **rows(cls, X))
    with pytest.raises(ValueError, match="NaN"):
        small(cls).partial_fit(X[:2], [0.0, 1.0], classes=[0.0, 1.0, np.nan],
                               **rows(cls, X[:2]))
    with pytest.raises(ValueError, match="label types"):
        small(cls).fit(X, np.array(["a", "b", None, "a"] * 3, dtype=object), **rows(cls, X))
    with pytest.raises(ValueError, match="label types"):
        small(cls).partial_fit(X[:2], np.array(["a", "b"], dtype=object),
                               classes=np.array(["a", "b", None], dtype=object),
                               **rows(cls, X[:2]))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda c: c.__name__)
def test_datetime_labels_without_nat_round_trip(tmp_path, cls):
    y = np.tile(np.array(["2020-01-01", "1850-06-30T12:00", "2200-12-31"], dtype="M8[ns]"),
                4)
    X = np.random.default_rng(1).normal(size=(len(y), 2))
    model = small(cls).fit(X, y, **rows(cls, X))
    back = perceptron_c.load(model.save(tmp_path / "m"))
    assert back.classes_.dtype == y.dtype and np.array_equal(back.classes_, model.classes_)
    assert np.array_equal(back.predict(X, **rows(cls, X)), model.predict(X, **rows(cls, X)))


def test_dates_beyond_python_dates_round_trip(tmp_path):
    """datetime64[D] beyond year 9999 turns into int in tolist() while the others are
    dates: the order check of a loaded file must not compare the two."""
    y = np.tile(np.array([0, 10**7]).astype("M8[D]"), 4)
    X = np.random.default_rng(2).normal(size=(len(y), 2))
    model = Perceptron(max_iter=2).fit(X, y)
    back = perceptron_c.load(model.save(tmp_path / "m"))
    assert np.array_equal(back.classes_, model.classes_)


def test_save_refuses_a_nat_class_before_writing(tmp_path):
    """Whatever way a NaT got into classes_, save refuses it rather than write a file load
    would refuse."""
    y = np.tile(np.arange(3).astype("M8[D]"), 3)
    X = np.random.default_rng(3).normal(size=(len(y), 2))
    model = Perceptron(max_iter=2).fit(X, y)
    model.classes_ = _with_nat("M8[D]")[1:]
    with pytest.raises(ValueError, match="NaT"):
        model.save(tmp_path / "m")
    assert list(tmp_path.iterdir()) == []


def test_str_labels_with_a_trailing_nul_are_refused_by_save(tmp_path):
    """An object array keeps 'a\\x00'; the file's text array would give back 'a'."""
    y = np.array(["a\x00", "b"] * 4, dtype=object)
    X = np.random.default_rng(4).normal(size=(len(y), 2))
    model = Perceptron(max_iter=2).fit(X, y)
    with pytest.raises(TypeError, match="NUL"):
        model.save(tmp_path / "m")
    assert list(tmp_path.iterdir()) == []


def test_cli_train_refuses_nat_labels_and_writes_no_model(tmp_path, capsys):
    data = tmp_path / "d.npz"
    y = np.tile(_with_nat("M8[s]"), 5)
    np.savez(data, X=np.random.default_rng(5).normal(size=(len(y), 2)), y=y)
    model = tmp_path / "m.npz"
    assert cli.main(["train", str(data), "-o", str(model)]) == cli.EXIT_ERROR
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("perceptron-c: error: ") and "NaT" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.npz"]
    np.savez(data, X=np.random.default_rng(5).normal(size=(len(y), 2)), y=y.astype("i8"))
    assert cli.main(["train", str(data), "-o", str(model)]) == cli.EXIT_OK
    assert cli.main(["predict", str(model), str(data)]) == cli.EXIT_OK


# -------------------------------------------------------------- 2. long file names, a failed save

@pytest.mark.parametrize("length", [239, 240, 250, 255])
def test_save_takes_a_file_name_of_any_legal_length(tmp_path, length):
    if length > os.pathconf(tmp_path, "PC_NAME_MAX"):
        pytest.skip("file names this long are not legal here")
    X = np.random.default_rng(6).normal(size=(12, 2))
    model = Perceptron(max_iter=2).fit(X, np.arange(12) % 2)
    name = "m" * (length - 4) + ".npz"
    assert model.save(tmp_path / name) == str(tmp_path / name)
    assert [p.name for p in tmp_path.iterdir()] == [name]
    assert np.array_equal(perceptron_c.load(tmp_path / name).coef_, model.coef_)
    # without the suffix, the name with .npz appended is the one that must fit
    assert model.save(tmp_path / name[:-4]) == str(tmp_path / name)
    assert [p.name for p in tmp_path.iterdir()] == [name]


def _disk_fills_under(monkeypatch, directory):
    """Files opened for writing under ``directory`` take half of their first write, then
    fail with ENOSPC, as on a full disk."""
    real_open = builtins.open

    class Full:
        def __init__(self, handle):
            self._handle = handle

        def write(self, data):
            self._handle.write(data[:len(data) // 2])
            self._handle.flush()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name):
            return getattr(self._handle, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc_info):
            self._handle.close()

    def full_open(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        writing = any(c in mode for c in "wxa+")
        if writing and isinstance(file, (str, os.PathLike)) and \
                os.path.dirname(os.path.abspath(file)) == str(directory):
            return Full(handle)
        return handle

    monkeypatch.setattr(builtins, "open", full_open)


def test_save_on_a_full_disk_keeps_the_old_file_and_names_it(tmp_path, monkeypatch):
    X = np.random.default_rng(9).normal(size=(12, 2))
    model = Perceptron(max_iter=2).fit(X, np.arange(12) % 2)
    target = tmp_path / "m.npz"
    target.write_bytes(b"old")
    _disk_fills_under(monkeypatch, tmp_path)
    with pytest.raises(OSError) as info:
        model.save(target)
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(target)
    assert str(target) in str(info.value)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["m.npz"]


# ------------------------------------------------------------- 3. what is not a regular file

def _fifo(path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    os.mkfifo(path)
    return path


def _promptly(call, fifo):
    """call()'s result or exception; fails the test if call is still blocked (opening the
    FIFO) after 5 seconds, then lets it go by opening the FIFO's other end."""
    result = {}

    def run():
        try:
            result["value"] = call()
        except BaseException as exc:  # handed to the test
            result["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(5)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # a reader waits: this opens
        thread.join(5)
        pytest.fail(f"blocked on the named pipe {fifo}")
    return result


def _saved_model(tmp_path):
    X = np.random.default_rng(7).normal(size=(12, 2))
    return Perceptron(max_iter=2).fit(X, np.arange(12) % 2).save(tmp_path / "m.npz")


@pytest.mark.parametrize("name", ["pipe.npz", "pipe"])
def test_loading_a_named_pipe_is_refused_without_blocking(tmp_path, name):
    fifo = _fifo(tmp_path / name)
    for call in (lambda: perceptron_c.load(fifo), lambda: io.read_npz(fifo, "data")):
        result = _promptly(call, fifo)
        assert isinstance(result.get("error"), FileFormatError)
        assert str(fifo) in str(result["error"]) and "not a regular file" in str(result["error"])


def test_loading_a_directory_names_it(tmp_path):
    with pytest.raises(FileFormatError, match=f"{tmp_path}: not a regular file"):
        perceptron_c.load(tmp_path)


@pytest.mark.parametrize("pipe,argv", [
    ("pipe.npz", ["predict", "{pipe}", "{model}"]),
    ("pipe.csv", ["predict", "{model}", "{pipe}"]),
    ("pipe.svm", ["predict", "{model}", "{pipe}"]),
    ("pipe.npz", ["predict", "{model}", "{pipe}"]),
    ("pipe.csv", ["train", "{pipe}", "-o", "{out}"]),
])
def test_the_cli_refuses_named_pipes_without_blocking(tmp_path, capsys, pipe, argv):
    model = _saved_model(tmp_path)
    fifo = _fifo(tmp_path / pipe)
    argv = [a.format(pipe=fifo, model=model, out=tmp_path / "out") for a in argv]
    result = _promptly(lambda: cli.main(argv), fifo)
    assert result == {"value": cli.EXIT_ERROR}
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("perceptron-c: error: ") and err.count("\n") == 1
    assert str(fifo) in err and "not a regular file" in err
    assert not (tmp_path / "out.npz").exists()


# ------------------------------------------------------------------- 4. predictions as CSV

NASTY = ["plain", "with,comma", 'with "quotes"', "two\nlines", "cr\r\nlf", " padded ", "",
         "ünïcødé", "tab\there", "'single'"]


@pytest.fixture
def nasty_model(tmp_path):
    """A model that predicts every label of NASTY (one-hot rows are separable) and an
    unlabeled CSV of its rows."""
    k = len(NASTY)
    X = np.tile(np.eye(k), (2, 1))
    y = np.array(NASTY * 2, dtype=object)
    model = Perceptron(max_iter=50, random_state=0).fit(X, y)
    assert sorted(model.predict(X).tolist()) == sorted(NASTY * 2)
    data = tmp_path / "rows.csv"
    data.write_text("".join(",".join(f"{v:g}" for v in row) + "\n" for row in X))
    return model.save(tmp_path / "nasty.npz"), data, model.predict(X).tolist()


def _csv_column(text):
    rows = list(csv.reader(stdio.StringIO(text, newline="")))
    assert all(len(row) == 1 for row in rows)
    return [row[0] for row in rows]


def test_predict_prints_one_csv_row_per_sample(nasty_model, capsys):
    model, data, expected = nasty_model
    assert cli.main(["predict", model, str(data)]) == cli.EXIT_OK
    out, err = capsys.readouterr()
    assert err == "" and _csv_column(out) == expected


def test_predict_writes_one_csv_row_per_sample_to_a_file(nasty_model, tmp_path, capsys):
    model, data, expected = nasty_model
    target = tmp_path / "pred.csv"
    assert cli.main(["predict", model, str(data), "-o", str(target)]) == cli.EXIT_OK
    assert capsys.readouterr() == ("", "")
    with open(target, newline="", encoding="utf-8") as handle:
        assert _csv_column(handle.read()) == expected


def test_plain_labels_print_as_before(tmp_path, capsys):
    X = np.random.default_rng(8).normal(size=(12, 2))
    model = Perceptron(max_iter=2).fit(X, np.arange(12) % 3 - 1)
    data = tmp_path / "d.csv"
    data.write_text("".join(f"{float(a)!r},{float(b)!r}\n" for a, b in X))
    assert cli.main(["predict", model.save(tmp_path / "m"), str(data)]) == cli.EXIT_OK
    out, _ = capsys.readouterr()
    assert out == "".join(f"{label}\n" for label in model.predict(X).tolist())


# ------------------------------------------------------ 5. output written whole or not at all

def test_predict_output_on_a_full_disk_keeps_the_old_file(nasty_model, tmp_path, capsys,
                                                          monkeypatch):
    model, data, _ = nasty_model
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "pred.csv"
    target.write_text("old\n")
    _disk_fills_under(monkeypatch, folder)
    assert cli.main(["predict", model, str(data), "-o", str(target)]) == cli.EXIT_ERROR
    assert target.read_text() == "old\n"
    assert [p.name for p in folder.iterdir()] == ["pred.csv"]
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert str(target) in err and "No space left" in err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_predict_to_dev_full_names_it(nasty_model, capsys):
    model, data, _ = nasty_model
    assert cli.main(["predict", model, str(data), "-o", "/dev/full"]) == cli.EXIT_ERROR
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "/dev/full" in err
    assert os.path.exists("/dev/full") and not os.path.isfile("/dev/full")


def _no_leftovers(folder, *expected):
    assert sorted(p.name for p in folder.iterdir()) == sorted(expected)


def test_unwritable_targets_are_named_and_leave_nothing(nasty_model, tmp_path, capsys):
    model_path, data, _ = nasty_model
    model = perceptron_c.load(model_path)
    folder = tmp_path / "w"
    folder.mkdir()
    (folder / "dir.npz").mkdir()
    (folder / "dir.csv").mkdir()
    for target in (folder / "absent" / "m.npz", folder / "dir.npz"):
        with pytest.raises(OSError) as info:
            model.save(target)
        assert info.value.filename == str(target) and ".tmp" not in str(info.value)
    for target in (folder / "absent" / "p.csv", folder / "dir.csv"):
        assert cli.main(["predict", model_path, str(data), "-o", str(target)]) == \
            cli.EXIT_ERROR
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and str(target) in err
        assert ".tmp" not in err
    _no_leftovers(folder, "dir.npz", "dir.csv")
    assert not list((folder / "dir.npz").iterdir()) and not list((folder / "dir.csv").iterdir())


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="POSIX permissions, which root overrides")
def test_a_read_only_directory_is_named_and_left_alone(nasty_model, tmp_path, capsys):
    model_path, data, _ = nasty_model
    model = perceptron_c.load(model_path)
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(PermissionError) as info:
            model.save(folder / "m.npz")
        assert info.value.filename == str(folder / "m.npz")
        target = folder / "p.csv"
        assert cli.main(["predict", model_path, str(data), "-o", str(target)]) == \
            cli.EXIT_ERROR
        err = capsys.readouterr().err
        assert str(target) in err and err.count("\n") == 1
        _no_leftovers(folder)
    finally:
        folder.chmod(0o755)


# ------------------------------------------- 6. every estimator, every label type, round trip

def _labels(elements, dtype):
    return st.lists(elements, min_size=2, max_size=3, unique=True).map(
        lambda values: np.array(values, dtype=dtype))


def _times(kind):
    """datetime64 or timedelta64 labels of any unit, NaT (int64's minimum) among them."""
    ticks = st.one_of(st.just(-(2**63)), st.integers(-(10**6), 10**6),
                      st.integers(-(2**63) + 1, 2**63 - 1))
    return st.tuples(_labels(ticks, np.int64), st.sampled_from(["ns", "s", "D", "M", "Y"])).map(
        lambda pair: pair[0].view(f"{kind}8[{pair[1]}]"))


NEAR_INT64_LIMITS = st.one_of(st.integers(-(2**63), -(2**63) + 3), st.integers(-5, 5),
                              st.integers(2**63 - 4, 2**63 - 1))
TEXT = st.text(max_size=5)  # empty, non-ASCII, NUL, of mixed widths
LABELS = st.one_of(
    _labels(NEAR_INT64_LIMITS, np.int64),
    _labels(st.integers(-128, 127), np.int8),
    _labels(st.one_of(st.integers(0, 3), st.integers(2**64 - 4, 2**64 - 1)), np.uint64),
    _labels(st.one_of(st.integers(-(2**53), 2**53).map(float),
                      st.sampled_from([-0.0, 1e300, -1e300, np.nan, np.inf, -np.inf])),
            np.float64),
    _labels(st.integers(-(2**24), 2**24).map(float), np.float32),
    _labels(st.booleans(), np.bool_),
    _labels(TEXT, np.str_),
    _labels(st.binary(max_size=4), np.bytes_),
    _labels(TEXT, object),
    _labels(st.integers(), object),  # Python ints of any size
    _labels(st.booleans(), object),
    _labels(st.binary(max_size=4), object),
    _times("M"),
    _times("m"),
)


def _fit_refuses(y):
    """Labels fit must refuse: a missing value (NaN, NaT), infinity, or under two classes."""
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        return True
    if y.dtype.kind in "Mm" and np.isnat(y).any():
        return True
    return np.unique(y).shape[0] < 2


def _save_refuses(classes):
    """Labels save must refuse: in an object array, bytes, or str ending in NUL."""
    return classes.dtype == object and any(
        type(v) is bytes or (type(v) is str and v.endswith("\x00")) for v in classes.tolist())


def _assert_identical(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype == object:
        assert [(type(v), v) for v in a.tolist()] == [(type(v), v) for v in b.tolist()]
    else:
        assert a.tobytes() == b.tobytes()


@settings(max_examples=examples(250), deadline=None)
@given(cls=st.sampled_from(CLASSIFIERS), labels=LABELS)
def test_every_estimator_round_trips_every_label_type_or_refuses_first(cls, labels):
    """Either the loaded model holds the same labels (same dtype, same bits, same Python
    types) and predicts exactly alike, or fit or save refuses before a file exists."""
    y = np.tile(labels, 3)
    X = np.random.default_rng(len(y)).normal(size=(len(y), 2))
    if _fit_refuses(y):
        with pytest.raises(ValueError):
            small(cls).fit(X, y, **rows(cls, X))
        return
    model = small(cls).fit(X, y, **rows(cls, X))
    with tempfile.TemporaryDirectory() as folder:
        if _save_refuses(model.classes_):
            with pytest.raises(TypeError, match="cannot be saved"):
                model.save(os.path.join(folder, "m"))
            assert os.listdir(folder) == []
            return
        back = perceptron_c.load(model.save(os.path.join(folder, "m")))
        assert os.listdir(folder) == ["m.npz"]
    _assert_identical(back.classes_, model.classes_)
    _assert_identical(back.predict(X, **rows(cls, X)), model.predict(X, **rows(cls, X)))
