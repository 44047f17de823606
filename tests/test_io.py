"""perceptron_c.io: data readers, the svmlight writer, and the versioned model files."""
import json
import os
import pathlib
import zipfile

import numpy as np
import pytest

from perceptron_c import Perceptron, datasets, io
from perceptron_c.datasets import _files as _datafiles


def dense(X):
    return X.toarray() if hasattr(X, "toarray") else np.asarray(X)


@pytest.fixture(params=["scipy", "no-scipy"])
def sparse_mode(request, monkeypatch):
    """Run a reader test with scipy (CSR out) and as if scipy were missing (dense out)."""
    if request.param == "scipy":
        pytest.importorskip("scipy")
    else:
        monkeypatch.setattr(_datafiles, "_scipy_sparse", lambda: None)
    return request.param


# --------------------------------------------------------------------------- svmlight

SVMLIGHT_TEXT = (
    "# a comment line, then a blank line\n"
    "\n"
    "+1 qid:3 1:0.5 3:2 # trailing comment\n"
    "-1 2:-1.25\n"
    "   \n"  # a line of spaces only
    "1 4:1e-3 1:7\n"
    "-1\n"
)


def test_svmlight_parses_comments_qid_blank_lines(tmp_path, sparse_mode):
    path = tmp_path / "train.svm"
    path.write_text(SVMLIGHT_TEXT)
    X, y = datasets.load_data(path)
    if sparse_mode == "scipy":
        assert X.format == "csr"
    else:
        assert isinstance(X, np.ndarray)
    expected = np.array([[0.5, 0, 2, 0], [0, -1.25, 0, 0], [7, 0, 0, 1e-3], [0, 0, 0, 0]])
    np.testing.assert_array_equal(dense(X), expected)
    assert dense(X).dtype == np.float64
    assert y.dtype == np.int64
    np.testing.assert_array_equal(y, [1, -1, 1, -1])


def test_svmlight_n_features_pads_and_checks(tmp_path):
    path = tmp_path / "d.libsvm"
    path.write_text("1 2:1\n0 1:3\n")
    X, _ = datasets.load_data(path, n_features=5)
    assert X.shape == (2, 5)
    np.testing.assert_array_equal(dense(X)[:, :2], [[0, 1], [3, 0]])
    with pytest.raises(ValueError, match=r"d\.libsvm:1: feature index 2 exceeds n_features=1"):
        datasets.load_data(path, n_features=1)


@pytest.mark.parametrize("bad_line, message", [
    ("1 3:abc", "malformed pair '3:abc'"),
    ("1 3", "expected idx:value, got '3'"),
    ("1 0:1", "feature index 0"),
    ("1 2:1 2:3", "feature index 2 repeated"),
    ("cat 1:1", "label 'cat' is not a finite number"),
    ("1:2 2:3", "missing label"),
])
def test_svmlight_malformed_line_names_file_and_line(tmp_path, bad_line, message):
    path = tmp_path / "bad.svmlight"
    path.write_text("# header comment\n1 1:1\n\n" + bad_line + "\n-1 2:1\n")
    with pytest.raises(ValueError, match=r"bad\.svmlight:4: ") as info:
        datasets.load_data(path)
    assert message in str(info.value)


def test_svmlight_unlabeled_rows_when_labels_optional(tmp_path):
    path = tmp_path / "u.svm"
    path.write_text("1:1 3:2\n2:5\n")
    X, y = datasets.load_data(path, require_labels=False)
    assert y is None
    np.testing.assert_array_equal(dense(X), [[1, 0, 2], [0, 5, 0]])
    path.write_text("1 1:1\n2:5\n")
    with pytest.raises(ValueError, match="some lines have a label"):
        datasets.load_data(path, require_labels=False)


# --------------------------------------------------------------------------- csv

def test_csv_without_header_numeric_labels(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1,2,0\n3.5,-4,1\n\n0,0,1\n")
    X, y = datasets.load_data(path)
    np.testing.assert_array_equal(X, [[1, 2], [3.5, -4], [0, 0]])
    assert X.dtype == np.float64
    assert y.dtype == np.int64
    np.testing.assert_array_equal(y, [0, 1, 1])


def test_csv_with_header_and_string_labels(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("width,height,animal\n1,2,cat\n3,4, dog\n")
    X, y = datasets.load_data(path)
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]])
    assert y.dtype.kind == "U"
    assert y.tolist() == ["cat", "dog"]


def test_csv_with_a_byte_order_mark_keeps_its_first_row(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_bytes("1,2,a\r\n3,4,b\r\n".encode("utf-8-sig"))
    X, y = datasets.load_data(path)
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]])
    assert y.tolist() == ["a", "b"]


@pytest.mark.parametrize("name, text, labels", [
    ("r.txt", "0.5 1:1\n2 1:2\n", [0.5, 2.0]),
    ("d.csv", "a,b\n1,0.25\n2,1\n", [0.25, 1.0]),
], ids=["svmlight", "csv"])
def test_float_labels_stay_float(tmp_path, name, text, labels):
    path = tmp_path / name
    path.write_text(text)
    _, y = datasets.load_data(path)
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y, labels)


def test_csv_width_and_optional_labels(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1,2,3\n4,5,6\n")
    X, y = datasets.load_data(path, n_features=3, require_labels=False)
    assert y is None and X.shape == (2, 3)
    X, y = datasets.load_data(path, n_features=2, require_labels=False)
    assert X.shape == (2, 2) and y.tolist() == [3, 6]
    with pytest.raises(ValueError, match="2 feature columns, expected 3"):
        datasets.load_data(path, n_features=3)


# --------------------------------------------------------------------------- npz data

def test_npz_dense(tmp_path):
    path = tmp_path / "d.npz"
    X = np.arange(6.0).reshape(3, 2)
    y = np.array(["a", "b", "a"])
    np.savez(path, X=X, y=y)
    X2, y2 = datasets.load_data(path)
    np.testing.assert_array_equal(X2, X)
    np.testing.assert_array_equal(y2, y)
    with pytest.raises(ValueError, match="X has 2 features, expected 4"):
        datasets.load_data(path, n_features=4)


def test_npz_sparse(tmp_path, sparse_mode):
    path = tmp_path / "s.npz"
    np.savez(path, data=np.array([1.0, 2.0, 3.0]), indices=np.array([0, 2, 1]),
             indptr=np.array([0, 2, 2, 3]), shape=np.array([3, 4]), format=np.array(b"csr"),
             y=np.array([1, 0, 1]))
    X, y = datasets.load_data(path)
    np.testing.assert_array_equal(dense(X), [[1, 0, 2, 0], [0, 0, 0, 0], [0, 3, 0, 0]])
    np.testing.assert_array_equal(y, [1, 0, 1])
    assert (X.format == "csr") if sparse_mode == "scipy" else isinstance(X, np.ndarray)


def test_npz_sparse_written_by_scipy(tmp_path):
    sp = pytest.importorskip("scipy.sparse")
    path = tmp_path / "s.npz"
    M = sp.random(5, 7, density=0.4, format="csr", random_state=0)
    arrays = dict(np.load(_scipy_save(sp, M, tmp_path)))
    np.savez(path, y=np.arange(5), **arrays)
    X, _ = datasets.load_data(path)
    np.testing.assert_array_equal(X.toarray(), M.toarray())


def _scipy_save(sp, M, tmp_path):
    target = tmp_path / "m.npz"
    sp.save_npz(target, M)
    return target


@pytest.mark.parametrize("arrays, message", [
    ({"X": np.ones((2, 2))}, "no 'y' array"),
    ({"Z": np.ones((2, 2)), "y": np.ones(2)}, "needs an 'X' array"),
    ({"X": np.ones(3), "y": np.ones(3)}, "2-D numeric"),
    ({"X": np.ones((2, 2)), "y": np.ones(3)}, "'y' must be 1-D with 2 labels"),
    ({"data": np.ones(2), "indices": np.array([0, 5]), "indptr": np.array([0, 1, 2]),
      "shape": np.array([2, 3]), "y": np.ones(2)}, "inconsistent CSR"),
    ({"data": np.ones(2), "indices": np.array([0, 1]), "indptr": np.array([0, 2, 1]),
      "shape": np.array([2, 3]), "y": np.ones(2)}, "inconsistent CSR"),
    ({"X": np.array([[None, 1]], dtype=object), "y": np.ones(1)}, "object"),
])
def test_npz_data_errors(tmp_path, arrays, message):
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match=message):
        datasets.load_data(path)


@pytest.mark.parametrize("name, text, match", [
    ("empty.svm", "# nothing here\n\n", "no samples"),
    ("d.csv", "x,y,label\n1,2,a\n3,b\n", r"d\.csv:3: 2 columns, expected 3"),
    ("d.csv", "1,2,a\n3,oops,b\n", r"d\.csv:2: column 2 value 'oops' is not a finite number"),
    ("d.csv", "x,label\n", "no data rows"),
    ("d.parquet", "", "unknown data format '.parquet'"),
], ids=["svmlight-empty", "csv-short-row", "csv-bad-number", "csv-header-only",
        "unknown-extension"])
def test_unreadable_text_files_are_errors_saying_why(tmp_path, name, text, match):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        datasets.load_data(path)


def test_missing_data_file_is_an_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        datasets.load_data(tmp_path / "absent.csv")


# --------------------------------------------------------------------------- dump round trip

def test_dump_load_round_trip_dense(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 6)) * (rng.random((30, 6)) < 0.5)
    X[3] = 0.0  # an all-zero row is written as a bare label
    X[4, 0] = 1e300
    y = rng.integers(-1, 2, size=30)
    path = tmp_path / "d.svm"
    datasets.dump_svmlight(X, y, path)
    X2, y2 = datasets.load_data(path, n_features=6)
    np.testing.assert_array_equal(dense(X2), X)  # exact: shortest repr round-trips float64
    np.testing.assert_array_equal(y2, y)


def test_dump_load_round_trip_sparse(tmp_path):
    sp = pytest.importorskip("scipy.sparse")
    X = sp.random(40, 300, density=0.05, format="csr", random_state=1)
    y = np.linspace(-1, 1, 40)
    path = tmp_path / "d.svmlight"
    datasets.dump_svmlight(X, y, path)
    X2, y2 = datasets.load_data(path, n_features=300)
    assert X2.format == "csr"
    np.testing.assert_array_equal(X2.toarray(), X.toarray())
    np.testing.assert_array_equal(y2, y)


def test_dump_writes_integer_labels_exactly(tmp_path):
    path = tmp_path / "big.svm"
    datasets.dump_svmlight(np.eye(3), np.array([2**62 + 1, -5, 0]), path)
    assert path.read_text().splitlines()[0] == f"{2**62 + 1} 1:1"
    _, y = datasets.load_data(path)
    assert y.dtype == np.int64 and y.tolist() == [2**62 + 1, -5, 0]


def test_dump_rejects_string_labels(tmp_path):
    with pytest.raises(ValueError, match="must be numbers"):
        datasets.dump_svmlight(np.ones((2, 2)), np.array(["a", "b"]), tmp_path / "x.svm")


# --------------------------------------------------------------------------- model files

def _data(kind, rng):
    if kind == "multiclass":
        centres = np.array([[0.0, 4.0], [4.0, 0.0], [-4.0, -4.0]])
        y = rng.integers(0, 3, size=90)
        return centres[y] + rng.standard_normal((90, 2)), y
    X = rng.standard_normal((80, 3))
    y = (X @ np.array([1.0, -2.0, 0.5]) > 0.1).astype(int)
    if kind == "strings":
        y = np.array(["ham", "spam"])[y]
    return X, y


MODEL_CASES = {
    "binary": ("binary", {}),
    "binary-averaged": ("binary", {"average": True}),
    "binary-normalized-no-intercept": ("binary", {"normalize": True, "fit_intercept": False}),
    "argmax": ("multiclass", {}),
    "argmax-averaged": ("multiclass", {"average": True}),
    "ovr": ("multiclass", {"multiclass": "ovr"}),
    "ovr-averaged": ("multiclass", {"multiclass": "ovr", "average": True}),
    "string-labels": ("strings", {"average": True}),
}


@pytest.mark.parametrize("case", sorted(MODEL_CASES))
def test_model_round_trip(tmp_path, case):
    kind, options = MODEL_CASES[case]
    rng = np.random.default_rng(7)
    X, y = _data(kind, rng)
    model = Perceptron(max_iter=5, random_state=3, **options).fit(X, y)
    written = model.save(tmp_path / "model.npz")
    assert pathlib.Path(written) == tmp_path / "model.npz"
    loaded = io.load_model(written)

    assert type(loaded) is Perceptron
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(loaded.coef_, model.coef_)
    np.testing.assert_array_equal(loaded.intercept_, model.intercept_)
    np.testing.assert_array_equal(loaded.classes_, model.classes_)
    np.testing.assert_array_equal(loaded.mistakes_, model.mistakes_)
    assert loaded.n_iter_ == model.n_iter_ and loaded.converged_ == model.converged_
    before, after = model._state_arrays(), loaded._state_arrays()
    assert before.keys() == after.keys()
    for key in before:
        np.testing.assert_array_equal(after[key], before[key], err_msg=key)
        assert after[key].dtype == before[key].dtype, key

    # the saved state is complete: one more epoch continues identically
    model.partial_fit(X, y)
    loaded.partial_fit(X, y)
    np.testing.assert_array_equal(loaded.coef_, model.coef_)


def test_model_round_trip_sparse_training(tmp_path):
    sp = pytest.importorskip("scipy.sparse")
    X = sp.random(60, 40, density=0.2, format="csr", random_state=2)
    y = np.arange(60) % 2
    model = Perceptron(max_iter=4, random_state=0).fit(X, y)
    loaded = io.load_model(model.save(tmp_path / "m.npz"))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


def test_npz_suffix_is_appended_and_optional_on_load(tmp_path):
    X, y = _data("binary", np.random.default_rng(0))
    model = Perceptron(max_iter=2, random_state=0).fit(X, y)
    written = io.save_model(model, tmp_path / "model")
    assert written == str(tmp_path / "model.npz")
    assert (tmp_path / "model.npz").exists() and not (tmp_path / "model").exists()
    for name in ("model", "model.npz"):
        np.testing.assert_array_equal(io.load_model(tmp_path / name).coef_, model.coef_)
    import perceptron_c
    np.testing.assert_array_equal(perceptron_c.load(written).coef_, model.coef_)


def test_a_failed_save_names_the_path_asked_for_and_leaves_no_temporary_file(tmp_path):
    X, y = _data("binary", np.random.default_rng(0))
    model = Perceptron(max_iter=2, random_state=0).fit(X, y)
    missing = tmp_path / "absent" / "m.npz"
    with pytest.raises(FileNotFoundError) as info:
        io.save_model(model, missing)
    assert info.value.filename == str(missing) and ".tmp" not in str(info.value)
    (tmp_path / "taken.npz").mkdir()  # open succeeds, the rename onto a directory fails
    with pytest.raises(OSError) as info:
        io.save_model(model, tmp_path / "taken")
    assert info.value.filename == str(tmp_path / "taken.npz")
    assert ".tmp" not in str(info.value)
    assert [p.name for p in tmp_path.iterdir()] == ["taken.npz"]
    assert not list((tmp_path / "taken.npz").iterdir())


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_saved_model_has_ordinary_permissions(tmp_path):
    X, y = _data("binary", np.random.default_rng(0))
    path = Perceptron(max_iter=2, random_state=0).fit(X, y).save(tmp_path / "m.npz")
    reference = tmp_path / "plain.bin"
    reference.write_bytes(b"")
    assert os.stat(path).st_mode == os.stat(reference).st_mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npz", "plain.bin"]


def test_file_layout(tmp_path):
    X, y = _data("binary", np.random.default_rng(0))
    model = Perceptron(max_iter=2, random_state=0).fit(X, y)
    with np.load(model.save(tmp_path / "m.npz"), allow_pickle=False) as archive:
        assert archive["__format__"].item() == "perceptron_c-model"
        assert archive["__version__"].item() == 1
        assert archive["__class__"].item() == "Perceptron"
        assert json.loads(archive["__params__"].item())["max_iter"] == 2
        state_keys = {k[len("state/"):] for k in archive.files if k.startswith("state/")}
        assert state_keys == set(model._state_arrays())
        assert all(archive[k].dtype != object for k in archive.files)


def test_generator_random_state_is_stored_as_none_with_a_warning(tmp_path):
    X, y = _data("binary", np.random.default_rng(0))
    model = Perceptron(max_iter=3, random_state=np.random.default_rng(5)).fit(X, y)
    with pytest.warns(UserWarning, match="random_state is a Generator"):
        path = model.save(tmp_path / "m.npz")
    loaded = io.load_model(path)
    assert loaded.random_state is None
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


# --------------------------------------------------------------------------- bad model files

@pytest.fixture
def model_arrays(tmp_path):
    """The arrays of a valid model file, to be damaged one way or another."""
    X, y = _data("binary", np.random.default_rng(0))
    path = Perceptron(max_iter=2, random_state=0).fit(X, y).save(tmp_path / "good.npz")
    with np.load(path, allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}


def _write(tmp_path, arrays, name="bad.npz"):
    path = tmp_path / name
    np.savez(path, **arrays)
    return path


@pytest.mark.parametrize("damage, message", [
    (lambda a: a.pop("__format__"), "no __format__ entry"),
    (lambda a: a.update(__format__=np.array("something-else")), "format 'something-else'"),
    (lambda a: a.update(__format__=np.array([1, 2])), "corrupt model file"),
    (lambda a: a.update(__version__=np.array(2)), "version 2 was written by a newer"),
    (lambda a: a.update(__version__=np.array(0)), "unsupported model format version 0"),
    (lambda a: a.update(__version__=np.array("1")), "corrupt model file"),
    (lambda a: a.pop("__version__"), "no __version__ entry"),
    (lambda a: a.update(__class__=np.array("KernelSVM")), "unknown model class 'KernelSVM'"),
    (lambda a: a.update(__params__=np.array("{not json")), "__params__ is not JSON"),
    (lambda a: a.update(__params__=np.array("[1, 2]")), "not a JSON object"),
    (lambda a: a.update(__params__=np.array('{"no_such_param": 1}')), "invalid Perceptron"),
    (lambda a: a.update({"extra": np.ones(1)}), "unexpected entry 'extra'"),
    (lambda a: a.update({"state/state_w": np.ones((1, 99))}), "invalid Perceptron model"),
    (lambda a: a.pop("state/state_w"), "invalid Perceptron model"),
])
def test_invalid_model_files_raise_valueerror(tmp_path, model_arrays, damage, message):
    damage(model_arrays)
    with pytest.raises(ValueError, match=message) as info:
        io.load_model(_write(tmp_path, model_arrays))
    assert "bad.npz" in str(info.value)


def test_corrupt_bytes_raise_valueerror(tmp_path, model_arrays):
    good = _write(tmp_path, model_arrays, "good2.npz").read_bytes()
    cases = {
        "garbage.npz": b"this is not a zip archive at all",
        "truncated.npz": good[: len(good) // 2],
        "empty.npz": b"",
    }
    for name, content in cases.items():
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(ValueError, match=name):
            io.load_model(path)
    npy = tmp_path / "array.npy"
    np.save(npy, np.ones(3))
    with pytest.raises(ValueError, match="not an .npz archive"):
        io.load_model(npy)


def test_flipped_bytes_inside_a_member_raise_valueerror(tmp_path, model_arrays):
    path = tmp_path / "flipped.npz"
    with zipfile.ZipFile(path, "w") as archive:  # stored, not deflated: bytes sit in place
        for key, value in model_arrays.items():
            with archive.open(key + ".npy", "w") as member:
                np.lib.format.write_array(member, value, allow_pickle=False)
    raw = bytearray(path.read_bytes())
    start = raw.index(b"state/state_w.npy") + 200
    raw[start:start + 8] = b"\xff" * 8
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="flipped.npz"):
        io.load_model(path)


def test_missing_model_file_is_an_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        io.load_model(tmp_path / "absent.npz")


class _Tripwire:
    """Unpickling this creates a file: proof that a loader ran pickle."""

    def __init__(self, target):
        self.target = target

    def __reduce__(self):
        return pathlib.Path.touch, (pathlib.Path(self.target),)


def test_object_array_is_refused_not_unpickled(tmp_path, model_arrays):
    tripwire = tmp_path / "unpickled"
    model_arrays["state/state_w"] = np.array([_Tripwire(tripwire)], dtype=object)
    path = _write(tmp_path, model_arrays)
    with pytest.raises(ValueError, match="object"):
        io.load_model(path)
    assert not tripwire.exists()


# --------------------------------------------------------------------------- the registry

class _Constant:
    """The smallest estimator the file format can hold: predicts one stored label."""

    def __init__(self, label="a"):
        self.label = label

    def get_params(self, deep=True):
        return {"label": self.label}

    def _state_arrays(self):
        return {"counts": np.array([1, 2], dtype=np.int64), "names": np.array(["x", "yy"])}

    @classmethod
    def _from_state(cls, params, arrays):
        if set(arrays) != {"counts", "names"}:
            raise ValueError(f"unexpected state {sorted(arrays)}")
        est = cls(**params)
        est.counts_ = arrays["counts"]
        return est


def test_registry_accepts_new_classes(tmp_path, monkeypatch):
    monkeypatch.setitem(io.MODEL_CLASSES, "_Constant", f"{__name__}:_Constant")
    loaded = io.load_model(io.save_model(_Constant("zz"), tmp_path / "c.npz"))
    assert isinstance(loaded, _Constant) and loaded.label == "zz"
    np.testing.assert_array_equal(loaded.counts_, [1, 2])


def test_register_model_class(monkeypatch):
    monkeypatch.setattr(io, "MODEL_CLASSES", dict(io.MODEL_CLASSES))
    io.register_model_class(_Constant)
    io.register_model_class("some.module:KernelPerceptron")
    assert io.MODEL_CLASSES["_Constant"] is _Constant
    assert io.MODEL_CLASSES["KernelPerceptron"] == "some.module:KernelPerceptron"


def test_unregistered_class_cannot_be_saved(tmp_path):
    with pytest.raises(TypeError, match="not a registered model class"):
        io.save_model(_Constant(), tmp_path / "c.npz")


def test_object_state_cannot_be_saved(tmp_path, monkeypatch):
    class Leaky(_Constant):
        def _state_arrays(self):
            return {"bad": np.array([{"a": 1}], dtype=object)}

    monkeypatch.setitem(io.MODEL_CLASSES, "Leaky", Leaky)
    with pytest.raises(TypeError, match="dtype object"):
        io.save_model(Leaky(), tmp_path / "c.npz")
    assert not any(tmp_path.iterdir())  # nothing left behind, not even the temporary file


def test_unsaveable_param(tmp_path, monkeypatch):
    monkeypatch.setitem(io.MODEL_CLASSES, "_Constant", _Constant)
    with pytest.raises(TypeError, match="cannot be stored"):
        io.save_model(_Constant(label=[1, 2]), tmp_path / "c.npz")
