"""Data files keep every row or fail naming the file: quotes, odd labels, number syntax and
encodings of CSV, svmlight and npz files, by example and by property."""
import numpy as np
import pytest

from perceptron_c import FileFormatError, cli
from perceptron_c.datasets import load_data


def _csv_lines(n, label_of=lambda i: "ab"[i % 2]):
    return [f"{i},{2 * i},{label_of(i)}" for i in range(n)]


# ----------------------------------------------------------------------------- CSV quotes

def test_csv_stray_quote_in_a_label_is_an_error_naming_its_line(tmp_path, capsys):
    """A '"' opening label 10 of 100 made the rest of the file one label: 10 rows read,
    a third class, and exit 0."""
    path = tmp_path / "d.csv"
    lines = _csv_lines(100)
    lines[9] = '9,18,"b'
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(FileFormatError, match=r"d\.csv:10: column 3: a quoted field opens "
                                              r"here and is not closed on this line"):
        load_data(path)
    assert cli.main(["train", str(path), "-o", str(tmp_path / "m.npz")]) == 2
    assert "d.csv:10: column 3" in capsys.readouterr().err
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("cell, column", [
    ('1"', 1), ('"1"2', 1), ('1"2"', 1), ('"1', 1), ('a"b', 3), ('"a"b', 3), ('"a""', 3),
])
def test_csv_stray_quote_anywhere_in_a_cell_is_an_error(tmp_path, cell, column):
    path = tmp_path / "q.csv"
    row = ["5", "6", "b"]
    row[column - 1] = cell
    path.write_text("1,2,a\n3,4,b\n" + ",".join(row) + "\n7,8,a\n")
    with pytest.raises(FileFormatError, match=rf"q\.csv:3: column {column}: "):
        load_data(path)


def test_csv_unterminated_quote_at_the_end_of_the_file(tmp_path):
    path = tmp_path / "e.csv"
    path.write_bytes(b'1,2,a\n3,4,b\n5,6,"a')
    with pytest.raises(FileFormatError, match=r"e\.csv:3: column 3: a quoted field opens"):
        load_data(path)


def test_csv_quoted_field_across_a_line_break_is_refused_at_the_line_it_opens(tmp_path):
    """Legal CSV, but a label with a line break is far likelier a pair of stray quotes that
    would hide the rows between them: refused, naming the line the field opens on."""
    path = tmp_path / "m.csv"
    path.write_text('1,2,a\n3,4,"two\nlines"\n5,6,b\n7,8,a\n')
    with pytest.raises(FileFormatError, match=r"m\.csv:2: column 3: a quoted field opens"):
        load_data(path)


def test_csv_quoted_cells_on_one_line_are_read(tmp_path):
    path = tmp_path / "ok.csv"
    path.write_text('"x","y","label"\n"1",2.5,"cat, big"\n 3 , "4" ,"say ""hi"""\n'
                    '5,6,plain\n')
    X, y = load_data(path)
    assert X.tolist() == [[1.0, 2.5], [3.0, 4.0], [5.0, 6.0]]
    assert y.tolist() == ["cat, big", 'say "hi"', "plain"]


def test_csv_errors_after_blank_lines_name_the_physical_line(tmp_path):
    path = tmp_path / "b.csv"
    path.write_text("\n\n1,x,a\n2,3,b\n")
    with pytest.raises(FileFormatError, match=r"b\.csv:3: column 2 value 'x'"):
        load_data(path)
    path.write_text("1,2,a\r\n\r\n3,4,b\r5,z,a\n")
    with pytest.raises(FileFormatError, match=r"b\.csv:4: column 2 value 'z'"):
        load_data(path)


# ---------------------------------------------------------------------------- npz labels

def _npz(path, y, X=None):
    X = np.arange(2.0 * len(y)).reshape(len(y), 2) if X is None else X
    np.savez(path, X=X, y=y)
    return path


@pytest.mark.parametrize("y, match", [
    (np.array([0.0, 1.0, np.nan, 1.0]), r"label y\[2\] = nan is not a finite number \(a missing"),
    (np.array([0.0, 1.0, 0.0, -np.inf]), r"label y\[3\] = -inf is not a finite number"),
    (np.array([0, np.inf, 0, 1], dtype=np.float16),
     r"label y\[1\] = inf is not a finite number"),
    (np.array([0, 1, 0, 1], dtype=complex), r"'y' holds complex numbers"),
    (np.array(["2020-01-01", "NaT", "2020-01-01", "2020-01-02"], dtype="datetime64[D]"),
     r"label y\[1\] is NaT \(a missing label\)"),
    (np.array(["a", "b", " ", "a"]), r"label y\[2\] is empty \(a missing label\)"),
    (np.array([b"a", b"", b"b", b"a"]), r"label y\[1\] is empty \(a missing label\)"),
    (np.zeros(4, dtype=[("a", "i4"), ("b", "f8")]), r"'y' has dtype .* labels are numbers or"),
    (np.zeros(4, dtype="V8"), r"'y' has dtype .* labels are numbers or"),
])
def test_npz_refuses_the_labels_a_text_file_refuses(tmp_path, y, match):
    path = _npz(tmp_path / "d.npz", y)
    with pytest.raises(FileFormatError, match=r"d\.npz: " + match):
        load_data(path)
    with pytest.raises(FileFormatError, match=r"d\.npz: " + match):
        load_data(path, require_labels=False)


def test_predict_never_scores_against_nan_labels(tmp_path, capsys):
    """predict read NaN labels from an npz and printed an accuracy over them, exit 0."""
    train = _npz(tmp_path / "train.npz", np.array([0, 1] * 5))
    assert cli.main(["train", str(train), "-o", str(tmp_path / "m.npz")]) == 0
    test = _npz(tmp_path / "test.npz", np.array([0.0, 1.0] * 4 + [np.nan, 1.0]))
    capsys.readouterr()
    assert cli.main(["predict", str(tmp_path / "m.npz"), str(test)]) == 2
    out, err = capsys.readouterr()
    assert "test.npz: label y[8] = nan is not a finite number" in err and "accuracy" not in err


@pytest.mark.parametrize("y", [
    np.array([0, 1, 1, 0]), np.array([0, 1, 1, 0], dtype=np.uint8), np.array([0.5, 1.0, 1, 0]),
    np.array([True, False, True, True]), np.array(["a", "b", "NA", "a"]),
    np.array([b"a", b"b", b"b", b"a"]), np.array([1, 2, 3, 4], dtype="datetime64[s]"),
])
def test_npz_keeps_labels_of_every_other_kind_as_they_are(tmp_path, y):
    """Typed labels are not parsed: text is text (even 'NA'), bool, bytes and dates keep
    their dtype, as model files store them."""
    _, got = load_data(_npz(tmp_path / "d.npz", y))
    assert got.dtype == y.dtype and np.array_equal(got, y)


def test_npz_dense_x_with_nan_is_refused_as_a_csv_cell_is(tmp_path):
    X = np.array([[0.0, 1.0], [np.inf, 2.0]])
    with pytest.raises(FileFormatError, match=r"d\.npz: 'X' holds NaN or inf"):
        load_data(_npz(tmp_path / "d.npz", np.array([0, 1]), X))


# ------------------------------------------------------------------------ number syntax

@pytest.mark.parametrize("line, match", [
    ("1 1_0:1", r"malformed pair '1_0:1'"),  # was column 10
    ("1 \u0661:2", r"malformed pair '\u0661:2'"),  # Arabic-Indic one: was column 1
    ("1 \uff13:2", r"malformed pair '\uff13:2'"),  # fullwidth three
    ("1 3:1_0", r"malformed pair '3:1_0'"),  # was 10.0
    ("1 3:\u0661", r"malformed pair '3:\u0661'"),
    ("1 3:infinity", r"value 'infinity' of feature 3 is not a finite number"),
    ("1 3:nan", r"value 'nan' of feature 3 is not a finite number"),
    ("1_0 3:1", r"label '1_0' is not a finite number"),  # was label 10
    ("\u0661 3:1", r"label '\u0661' is not a finite number"),  # was label 1
    ("Infinity 3:1", r"label 'Infinity' is not a finite number"),
    ("1\u00a03:1", r"missing label"),  # no-break space: not a separator
])
def test_svmlight_reads_plain_ascii_numbers_only(tmp_path, line, match):
    path = tmp_path / "d.svm"
    path.write_text(f"-1 2:0.5\n{line}\n", encoding="utf-8")
    with pytest.raises(FileFormatError, match=r"d\.svm:2: " + match):
        load_data(path)


def test_svmlight_plain_syntax_is_read_as_scikit_learn_reads_it(tmp_path):
    """Signs, leading zeros, exponents, '.5' and '5.', tabs, comments and qid (any text,
    ignored) are read as scikit-learn reads them; labels stay integers where they are."""
    datasets = pytest.importorskip("sklearn.datasets")
    path = tmp_path / "ok.svm"
    path.write_text("+1 qid:7 +3:2 007:.5 # comment\n-1\t2:5. 4:-1e-3\n"
                    "1.0 qid:x 1:+2.5E+2\n# only a comment\n\n01 3:0\n")
    X, y = load_data(path)
    X_ref, y_ref = datasets.load_svmlight_file(str(path), zero_based=False)
    assert np.array_equal(X.toarray(), X_ref.toarray()) and y.dtype == np.int64
    assert y.tolist() == y_ref.tolist() == [1, -1, 1, 1]


@pytest.mark.parametrize("cell, match", [
    ("1_0", r"column 2 value '1_0' is not a finite number"),
    ("\u0661", r"column 2 value '\u0661' is not a finite number"),
    ("\u00a02", r"column 2 value '\\xa02' is not a finite number"),
])
def test_csv_features_are_plain_ascii_numbers_too(tmp_path, cell, match):
    path = tmp_path / "d.csv"
    path.write_text(f"1,2,0\n3,{cell},1\n", encoding="utf-8")
    with pytest.raises(FileFormatError, match=r"d\.csv:2: " + match):
        load_data(path)


@pytest.mark.parametrize("cell", ["1_0", "\u0661", "\uff11"])
def test_csv_label_that_only_python_reads_as_a_number_is_an_error(tmp_path, cell):
    """Among numeric labels, '1_0' was class 10 and '١' class 1; among text labels it is
    text like any other."""
    path = tmp_path / "d.csv"
    path.write_text(f"1,2,0\n3,4,1\n5,6,{cell}\n", encoding="utf-8")
    with pytest.raises(FileFormatError, match=rf"d\.csv:3: label '{cell}' is not a plain "):
        load_data(path)
    path.write_text(f"1,2,cat\n3,4,dog\n5,6,{cell}\n", encoding="utf-8")
    assert load_data(path)[1].tolist() == ["cat", "dog", cell]


def test_csv_plain_numbers_with_spaces_around_are_read_exactly(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1, 2.5 ,\t-3\n+.5,1e-2,7.\n", encoding="utf-8")
    X, y = load_data(path)
    assert X.tolist() == [[1.0, 2.5], [0.5, 0.01]] and y.tolist() == [-3, 7]
