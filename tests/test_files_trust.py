"""Files lose nothing and fail one way: labels come back exactly, a CSV never drops a row in
silence, and every bad model or data file raises FileFormatError naming what is wrong."""
import io as stdio
import json
import zipfile

import numpy as np
import pytest

import perceptron_c
from perceptron_c import FileFormatError, KernelPerceptron, Perceptron, VotedPerceptron
from perceptron_c.datasets import load_data
from perceptron_c.io import read_npz


def _fit(model, rng, labels):
    X = rng.normal(size=(len(labels), 3))
    return model.fit(X, labels), X


# ------------------------------------------------------------------------------ data files

def test_csv_first_row_with_one_bad_cell_is_an_error_not_a_header(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1,x,a\n2,3,b\n4,5,a\n")
    with pytest.raises(FileFormatError, match=r"d\.csv:1: column 2 value 'x' is not a number"):
        load_data(path)
    X, y = load_data(path, header=True)  # named by the option: skipped
    assert X.shape == (2, 2) and y.tolist() == ["b", "a"]


def test_csv_header_only_when_the_whole_first_row_is_text(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("width,height,label\n1,2,a\n3,4,b\n")
    X, y = load_data(path)
    assert X.tolist() == [[1.0, 2.0], [3.0, 4.0]] and y.tolist() == ["a", "b"]
    path.write_text("1,2,a\n3,4,b\n")
    assert load_data(path, header=False)[0].shape == (2, 2)
    path.write_text("1,2,a\n3,nan,b\n")
    with pytest.raises(FileFormatError, match=r":2: column 2 value 'nan' is not a finite"):
        load_data(path)
    with pytest.raises(ValueError, match="header must be"):
        load_data(path, header="yes")


def test_csv_numeric_column_names_above_numeric_labels_are_a_header(tmp_path):
    """pandas writes unnamed columns as 0,1,2,...: with a text label name above numeric
    labels the first row is a header, not a sample of a class 'y'."""
    path = tmp_path / "p.csv"
    path.write_text("0,1,2,y\n0.5,1,2,0\n3,4,5,1\n6,7,8.25,1\n")
    X, y = load_data(path)
    assert X.tolist() == [[0.5, 1, 2], [3, 4, 5], [6, 7, 8.25]]
    assert y.dtype == np.int64 and y.tolist() == [0, 1, 1]
    assert load_data(path, header=False)[1].tolist() == ["y", "0", "1", "1"]  # as told
    path.write_text("1,2,3,y\n0.5,1,2,0\n3,4,5,1\n")  # numbered from 1
    assert load_data(path)[1].tolist() == [0, 1]


def test_csv_other_numbers_above_a_text_label_among_numeric_ones_is_an_error(tmp_path):
    """A data row whose label is mistyped (O for 0) is neither skipped as a header nor made a
    class of its own: an error that says how to skip a real header."""
    path = tmp_path / "t.csv"
    path.write_text("0.5,1.25,O\n3,4,1\n6,7,0\n")
    with pytest.raises(FileFormatError, match=r"t.csv:1: label 'O' is text while every other"):
        load_data(path)
    assert load_data(path, header=True)[1].tolist() == [1, 0]


def test_csv_pandas_round_trip_keeps_every_row_and_class(tmp_path):
    pd = pytest.importorskip("pandas")
    X = np.random.default_rng(0).normal(size=(50, 4))
    frame = pd.DataFrame(X)
    frame["y"] = np.arange(50) % 2
    frame.to_csv(tmp_path / "p.csv", index=False)
    X2, y2 = load_data(tmp_path / "p.csv")
    assert np.array_equal(X2, X) and y2.tolist() == frame["y"].tolist()


def test_csv_first_row_above_text_labels_is_read_as_data(tmp_path):
    """Above text labels, numbers with a text label may be a sample as well as a header:
    read as data (header=True skips it); named feature columns stay a header."""
    path = tmp_path / "d.csv"
    path.write_text("0,1,label\n1,2,cat\n3,4,dog\n")
    X, y = load_data(path)
    assert X.shape == (3, 2) and y.tolist() == ["label", "cat", "dog"]
    assert load_data(path, header=True)[1].tolist() == ["cat", "dog"]
    path.write_text("a,b,label\n1,2,cat\n3,4,dog\n")
    assert load_data(path)[1].tolist() == ["cat", "dog"]
    path.write_text("0,1,y\n1,2,0\n3,4,cat\n")  # one other label is text: not a header
    assert load_data(path)[1].tolist() == ["y", "0", "cat"]


@pytest.mark.parametrize("cell,message", [
    ("", "missing label"),
    ("  ", "missing label"),
    ("nan", "label 'nan' is not a finite number (a missing label)"),
    ("NaN", "label 'NaN' is not a finite number (a missing label)"),
    ("NA", "label 'NA' is not a finite number (a missing label)"),
    ("null", "label 'null' is not a finite number (a missing label)"),
    ("None", "label 'None' is not a finite number (a missing label)"),
    ("inf", "label 'inf' is not a finite number"),
    ("-Infinity", "label '-Infinity' is not a finite number"),
])
@pytest.mark.parametrize("head", ["", "a,b,y\n", "0,1,y\n"])
def test_csv_missing_or_infinite_numeric_label_is_an_error(tmp_path, cell, message, head):
    path = tmp_path / "m.csv"
    path.write_text(f"{head}1,2,0\n3,4,1\n5,6,{cell}\n7,8,1\n")
    line = 3 + head.count("\n")
    with pytest.raises(FileFormatError, match=rf"m\.csv:{line}: ") as info:
        load_data(path)
    assert message in str(info.value)


def test_csv_missing_label_in_the_first_row_or_among_text_labels(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("1,2,\n3,4,0\n5,6,1\n")  # not a header: an unlabeled first sample
    with pytest.raises(FileFormatError, match=r"m\.csv:1: missing label"):
        load_data(path)
    path.write_text("1,2,NaN\n3,4,0\n5,6,1\n")
    with pytest.raises(FileFormatError, match=r"m\.csv:1: label 'NaN' is not a finite"):
        load_data(path)
    path.write_text("1,2,cat\n3,4,\n5,6,dog\n")
    with pytest.raises(FileFormatError, match=r"m\.csv:2: missing label"):
        load_data(path)
    path.write_text("1,2,cat\n3,4,None\n5,6,nan\n")  # text labels are classes, any text
    assert load_data(path)[1].tolist() == ["cat", "None", "nan"]


def test_integer_labels_beyond_int64_stay_exact(tmp_path, rng):
    big = 2**70
    path = tmp_path / "big.svm"
    path.write_text(f"{big} 1:1\n{big + 1} 2:1\n{big} 1:2\n")
    _, y = load_data(path)
    assert y.dtype == object and y.tolist() == [big, big + 1, big]
    model = Perceptron(random_state=0).fit(np.eye(3), y)
    assert model.classes_.tolist() == [big, big + 1]
    assert model.predict(np.eye(3)).tolist() == [big, big + 1, big]


@pytest.mark.parametrize("labels", [
    np.array([3, -7, 3, 5]),
    np.array([3, 7, 3, 7], dtype=np.uint8),
    np.array([1.0, -2.0, 1.0, 3.0]),
    np.array([True, False, True, False]),
    np.array(["spam", "ham", "spam", "eggs"]),
    np.array([b"yes", b"no", b"no", b"yes"]),
    np.array([2**70, 1, 2**70, -(2**80)], dtype=object),
    np.array([True, False, True, False], dtype=object),
    np.array(["a", "b", "b", "a"], dtype=object),
    np.array([1, 2, 1, 2], dtype=object),
])
@pytest.mark.parametrize("cls", [Perceptron, VotedPerceptron, KernelPerceptron])
def test_labels_round_trip_through_save_and_load(tmp_path, rng, labels, cls):
    model, X = _fit(cls(random_state=0, max_iter=3), rng, labels)
    back = perceptron_c.load(model.save(tmp_path / "m"))
    assert back.classes_.dtype == model.classes_.dtype
    assert back.classes_.tolist() == model.classes_.tolist()
    assert [type(v) for v in back.classes_.tolist()] == \
        [type(v) for v in model.classes_.tolist()]
    assert back.predict(X).tolist() == model.predict(X).tolist()


def test_labels_that_cannot_round_trip_are_refused_before_writing(tmp_path, rng):
    from fractions import Fraction

    model, _ = _fit(Perceptron(), rng, np.array([Fraction(1, 2), Fraction(1, 3)] * 2))
    with pytest.raises(TypeError, match=r"labels of type\(s\) \['Fraction'\] cannot be saved"):
        model.save(tmp_path / "m")
    assert not list(tmp_path.iterdir())


def test_voted_perceptron_fitted_on_sparse_input_saves(tmp_path, rng):
    sparse = pytest.importorskip("scipy.sparse")
    X = sparse.random(60, 40, density=0.1, format="csr", random_state=1)
    y = np.arange(60) % 2
    model = VotedPerceptron(random_state=0, max_iter=3).fit(X, y)
    back = perceptron_c.load(model.save(tmp_path / "voted"))
    assert np.array_equal(back.decision_function(X), model.decision_function(X))


def test_support_vectors_of_a_sparse_fit_re_enter_the_gate(rng):
    """The CSR triple handed out as support_vectors_ is checked again when it comes back:
    an out-of-range column index is an error, not a read out of bounds."""
    sparse = pytest.importorskip("scipy.sparse")
    X = sparse.random(50, 30, density=0.2, format="csr", random_state=2)
    y = rng.integers(0, 2, 50)
    sv = VotedPerceptron(random_state=0, max_iter=2).fit(X, y).support_vectors_
    bad = type(sv)(sv.data, sv.indices.copy(), sv.indptr, sv.shape)
    bad.indices[0] = 10**6
    with pytest.raises(ValueError, match="column indices must lie in"):
        Perceptron().fit(bad, np.arange(sv.shape[0]) % 2)


def test_absurd_sizes_are_refused_before_allocating(tmp_path, monkeypatch):
    path = tmp_path / "huge.svm"
    path.write_text("1 1000000000000000000000000000000:1\n")  # an index of 10^30
    with pytest.raises(FileFormatError, match="outside"):
        load_data(path)
    path.write_text("1 2000000000:1\n")  # a legal index, but no scipy to keep it sparse
    from perceptron_c.datasets import _files as _datafiles

    monkeypatch.setattr(_datafiles, "_scipy_sparse", lambda: None)
    with pytest.raises(FileFormatError, match="install scipy"):
        load_data(path)


# ----------------------------------------------------------------------- crafted model files

def _saved(tmp_path, rng, model=None):
    model = model or Perceptron(average=True, random_state=0)
    model.fit(rng.normal(size=(30, 4)), rng.integers(0, 3, 30))
    return model.save(tmp_path / "ok")


def _rewrite(src, dst, change):
    """Copy the archive src to dst with change(name, bytes) -> [(name, bytes, compress)]."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            for name, data, compress in change(info.filename, zin.read(info)):
                zout.writestr(zipfile.ZipInfo(name), data, compress_type=compress)
    return dst


def _npy(array):
    buffer = stdio.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


STORED, DEFLATED = zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED


@pytest.mark.parametrize("case,change,match", [
    ("member without .npy", lambda n, d: [(n[:-4], d, STORED)], "not a .npy array"),
    ("unsupported compression", lambda n, d: [(n, d, zipfile.ZIP_BZIP2)], "unsupported"),
    ("0-d state", lambda n, d: [(n, _npy(np.float64(1.0)) if "state_w" in n else d, STORED)],
     "state_w must be finite"),
    ("unknown member", lambda n, d: [(n, d, STORED)] + (
        [("state/extra.npy", _npy(np.zeros(3)), STORED)] if "__class__" in n else []),
     "unexpected entries"),
    ("huge declared size", lambda n, d: [(n, d if "state_w" not in n else
                                          d.replace(b"(3, 4)", b"(1099511627776, 4)"),
                                          STORED)], "declares"),
    ("duplicate classes", lambda n, d: [(n, _npy(np.array([0, 0, 2])) if "classes_" in n
                                         else d, STORED)], "distinct"),
    ("negative count", lambda n, d: [(n, _npy(np.array([-5])) if "state_count" in n else d,
                                      STORED)], "state_count must lie"),
    ("float scalars", lambda n, d: [(n, _npy(np.zeros(4)) if "scalars" in n else d, STORED)],
     "scalars must be 4 uint64"),
    ("object array", lambda n, d: [(n, d.replace(b"'<f8'", b"'|O'") if "state_w" in n
                                    else d, STORED)], "corrupt"),
    ("inf parameter", lambda n, d: [(n, _npy(np.array(json.dumps({"max_iter": float("inf")})))
                                     if "__params__" in n else d, STORED)], "not JSON"),
    ("inf weights", lambda n, d: [(n, _npy(np.full((3, 4), np.inf)) if "state_w" in n
                                   else d, STORED)], "must be finite"),
])
def test_crafted_model_files_raise_file_format_error(tmp_path, rng, case, change, match):
    bad = _rewrite(_saved(tmp_path, rng), tmp_path / "bad.npz", change)
    with pytest.raises(FileFormatError, match=match):
        perceptron_c.load(bad)


def test_encrypted_members_are_refused(tmp_path, rng):
    src = _saved(tmp_path, rng)
    raw = bytearray((tmp_path / "ok.npz").read_bytes())
    assert src.endswith("ok.npz")
    # set the "encrypted" flag bit in every local and central header
    for sig in (b"PK\x03\x04", b"PK\x01\x02"):
        start = 0
        while (i := raw.find(sig, start)) >= 0:
            flag_at = i + (6 if sig == b"PK\x03\x04" else 8)
            raw[flag_at] |= 1
            start = i + 4
    (tmp_path / "enc.npz").write_bytes(bytes(raw))
    with pytest.raises(FileFormatError, match="encrypted"):
        perceptron_c.load(tmp_path / "enc.npz")


def test_a_zip_version_this_python_cannot_read_is_a_format_error(tmp_path, rng):
    # "version needed to extract" of a central header pushed past what zipfile supports:
    # the ZipFile constructor raises NotImplementedError (found by the model-file fuzzer)
    src = _saved(tmp_path, rng)
    raw = bytearray((tmp_path / "ok.npz").read_bytes())
    assert src.endswith("ok.npz")
    i = raw.find(b"PK\x01\x02")
    raw[i + 6:i + 8] = (109).to_bytes(2, "little")  # version 10.9
    (tmp_path / "v.npz").write_bytes(bytes(raw))
    with pytest.raises(FileFormatError, match="zip file version"):
        perceptron_c.load(tmp_path / "v.npz")


def test_a_decompression_bomb_under_an_unknown_name_is_refused(tmp_path, rng):
    src = _saved(tmp_path, rng)
    bomb = _npy(np.zeros(2**24))  # 128 MiB of zeros deflate to about 130 KB
    bad = _rewrite(src, tmp_path / "bomb.npz", lambda n, d: [(n, d, STORED)] + (
        [("state/zzz.npy", bomb, DEFLATED)] if "__class__" in n else []))
    with pytest.raises(FileFormatError, match="decompression bomb"):
        perceptron_c.load(bad)


def test_a_plain_npy_file_is_named_as_such(tmp_path):
    np.save(tmp_path / "a.npy", np.ones(3))
    with pytest.raises(FileFormatError, match="a single .npy array"):
        perceptron_c.load(tmp_path / "a.npy")


def test_deeply_nested_kernels_are_refused_at_load(tmp_path, rng):
    from perceptron_c.kernels import RBF, Linear

    kernel = Linear()
    for _ in range(5):
        kernel = kernel + RBF(0.5)
    model = KernelPerceptron(kernel=kernel, max_iter=2).fit(rng.normal(size=(20, 2)),
                                                             rng.integers(0, 2, 20))
    path = model.save(tmp_path / "k")
    assert perceptron_c.load(path).predict(np.zeros((1, 2))).shape == (1,)

    def nest(name, data):
        if "__params__" not in name:
            return [(name, data, STORED)]
        params = json.loads(str(np.load(stdio.BytesIO(data))))
        spec = ["Linear"]
        for _ in range(200):  # loads fine in JSON, would recurse at every prediction
            spec = ["Sum", spec, ["Linear"]]
        params["kernel"] = {"__kernel__": spec}
        return [(name, _npy(np.array(json.dumps(params))), STORED)]

    with pytest.raises(FileFormatError, match="nested deeper than 32"):
        perceptron_c.load(_rewrite(path, tmp_path / "deep.npz", nest))

    def deep_json(name, data):  # nested beyond what the JSON parser itself can take
        text = '{"kernel": ' + "[" * 100000 + "]" * 100000 + "}"
        return [(name, _npy(np.array(text)) if "__params__" in name else data, STORED)]

    with pytest.raises(FileFormatError, match="not JSON"):
        perceptron_c.load(_rewrite(path, tmp_path / "deeper.npz", deep_json))


def test_conjunction_sums_beyond_their_headroom_are_refused(tmp_path, rng):
    bits = rng.integers(0, 2, size=(40, 70))
    model = KernelPerceptron(kernel="conjunction", max_iter=3).fit(bits, rng.integers(0, 2, 40))
    path = model.save(tmp_path / "conj")
    for value in (2**62, -(2**63)):
        def patch(name, data, value=value):
            if "state/alpha" not in name:
                return [(name, data, STORED)]
            alpha = np.load(stdio.BytesIO(data)).copy()
            alpha[0, 0] = value
            return [(name, _npy(alpha), STORED)]

        with pytest.raises(FileFormatError, match="exact integer sums"):
            perceptron_c.load(_rewrite(path, tmp_path / "big.npz", patch))


def test_save_writes_what_load_reads_back(tmp_path, rng):
    for model in (Perceptron(average=True), KernelPerceptron(average=True),
                  VotedPerceptron(kernel="rbf")):
        model.set_params(random_state=0, max_iter=4)
        X = rng.normal(size=(40, 3))
        model.fit(X, rng.integers(0, 3, 40))
        first = model.save(tmp_path / type(model).__name__)
        back = perceptron_c.load(first)
        again = perceptron_c.load(back.save(tmp_path / "again"))
        a, b = read_npz(first, "model"), read_npz(tmp_path / "again.npz", "model")
        assert a.keys() == b.keys()
        assert all(a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]) for k in a)
        assert np.array_equal(again.predict(X), model.predict(X))
