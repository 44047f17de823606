"""CSV, svmlight and npz data files keep every row exactly or fail naming the file."""
import os
import re
import threading

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


@pytest.mark.parametrize("text, match", [
    ("\n\n1,x,a\n2,3,b\n", r"b\.csv:3: column 2 value 'x'"),
    ("1,2,a\r\n\r\n3,4,b\r5,z,a\n", r"b\.csv:4: column 2 value 'z'"),
], ids=["blank-lines-first", "mixed-line-ends"])
def test_csv_errors_after_blank_lines_name_the_physical_line(tmp_path, text, match):
    path = tmp_path / "b.csv"
    path.write_text(text)
    with pytest.raises(FileFormatError, match=match):
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


# ---------------------------------------------------------------------------- encodings

@pytest.mark.parametrize("ext, text", [
    (".csv", "1,2,a\n3,4,b\n5,6,\u00e9t\u00e9\n"),
    (".svm", "1 1:2\n-1 2:3\n1 3:4 # \u00e9t\u00e9\n"),
])
def test_text_files_are_utf8_and_an_error_names_the_line_that_is_not(tmp_path, ext, text):
    path = tmp_path / f"d{ext}"
    path.write_bytes(text.encode("utf-8-sig").replace(b"\n", b"\r\n"))
    assert load_data(path)[0].shape[0] == 3  # a BOM and CRLF line ends are fine
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(FileFormatError, match=rf"d\{ext}:3: not UTF-8 text \(byte 0xe9\)"):
        load_data(path)
    for encoding in ("utf-16", "utf-32"):
        path.write_bytes(text.encode(encoding))
        with pytest.raises(FileFormatError, match=rf"d\{ext}: UTF-16 or UTF-32 text"):
            load_data(path)
    path.write_bytes(text.encode("utf-16-le"))  # no byte order mark: NULs
    with pytest.raises(FileFormatError, match=rf"d\{ext}:1: a NUL byte"):
        load_data(path)


@pytest.mark.parametrize("ext, text", [
    (".csv", "1,2,a\n3,4,b\x00\n"), (".csv", "1,2,a\n3\x00,4,b\n"),
    (".svm", "1 1:2\n-1 2:3 # \x00\n"), (".svm", "1 1:2\n\x00\n"),
])
def test_a_nul_byte_anywhere_is_an_error_naming_its_line(tmp_path, ext, text):
    """A text label 'b\\x00' was a class of its own, a NUL in a comment ignored."""
    path = tmp_path / f"d{ext}"
    path.write_text(text)
    with pytest.raises(FileFormatError, match=rf"d\{ext}:2: a NUL byte"):
        load_data(path)


@pytest.mark.parametrize("ext, row, bad", [(".csv", "1,2,a", "1,2_0,a"),
                                             (".svm", "1 1:2", "1 1:2_0")])
def test_line_numbers_hold_past_the_first_read_block(tmp_path, ext, row, bad):
    """Files are read in blocks of whole lines (about 4 MiB): CR, CRLF and LF line ends and
    blank lines are counted the same on either side of a block's end."""
    blank = " " * 3 * 2**20
    lines = [row + "\r", row + "\r", blank + "\n", row + "\r\n", "\r\n", blank + "\r\n",
             row + "\r", blank + "\n", blank + "\r", row + "\n", blank + "\n", row + "\n"]
    path = tmp_path / f"d{ext}"
    path.write_text("".join(lines) + bad + "\n" + row, newline="")
    with pytest.raises(FileFormatError, match=rf"d\{ext}:{len(lines) + 1}: "):
        load_data(path)
    path.write_text("".join(lines), newline="")
    assert load_data(path)[0].shape[0] == 6


# ------------------------------------------------------------------ properties (fuzzing)
# A file is built from a table whose values are known, then written with hostile but legal
# choices (quotes, spaces, a BOM, CRLF or CR line ends, blank lines, another encoding) and
# at most one bad cell. The reader must return exactly the table, every row kept, or raise
# FileFormatError naming the file (and, for a bad cell, its line): nothing else.

hypothesis = pytest.importorskip("hypothesis")
from conftest import examples  # noqa: E402
from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
LINE_ENDS = st.sampled_from(["\n", "\r\n", "\r"])
BLANK_LINES = ["", " ", "\t ", ",,"]  # ",," is blank to the CSV reader only
BLANKS = st.sampled_from(BLANK_LINES)
ENCODINGS = st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "utf-16", "utf-16-le",
                             "utf-16-be", "latin-1"])
# numbers as people and programs write them; the value is what float() makes of the text
NUMBER_TEXT = st.one_of(
    st.integers(-10**6, 10**6).map(str),
    st.floats(-1e12, 1e12, allow_nan=False).map(repr),
    st.floats(-1e12, 1e12, allow_nan=False).map(lambda v: f"{v:.6e}"),
    st.sampled_from([".5", "5.", "+3", "-0", "007", "1E3", "2.5e-3", "-.25"]),
)
TEXT_LABELS = st.text(st.sampled_from("abcXYZ é,\"ü中"), min_size=1, max_size=6).filter(
    lambda s: s.strip(" ") and s.strip(" ")[0] not in "0123456789.+-")


def _read_back(path, case):
    """Write the file a generated case describes to ``path`` and read it: the (X, y) read, or
    None where the read failed as it must (the file unreadable or holding a bad cell), with
    an error naming the file and, where one is expected, the line."""
    lines, ends, final_end, encoding, _, _, bad = case
    text, raw = _write(path, lines, ends, final_end, encoding)
    bad_line = None if bad is None else _line_of(text, bad)
    try:
        read = load_data(path)
    except FileFormatError as exc:
        assert bad_line is not None or not _readable(text, raw, encoding), str(exc)
        _errors_name(path, exc, bad_line if encoding.startswith("utf-8") else None)
        return None
    assert bad_line is None and _readable(text, raw, encoding)
    return read


def _errors_name(path, exc, line=None):
    """The error names the file first, and the line where one is expected."""
    text = str(exc)
    assert text.startswith(str(path)), text
    if line is not None:
        assert text.startswith(f"{path}:{line}:"), (line, text)


def _write(path, lines, ends, final_end, encoding):
    text = "".join(line + end for line, end in zip(lines, ends))
    text = text if final_end else text[:-len(ends[len(lines) - 1])]
    try:
        raw = text.encode(encoding)
    except UnicodeEncodeError:
        assume(False)
    path.write_bytes(raw)
    return text, raw


def _layout(draw, body):
    """The body lines with blank lines among them."""
    lines = []
    for line in body:
        lines += draw(st.lists(BLANKS, max_size=2)) + [line]
    return lines + draw(st.lists(BLANKS, max_size=2))


def _line_of(text, k):
    """The line number of the k-th line that is not blank, counted in the written text: a
    CR line end before a blank line's LF is one CRLF, so the blank line is gone."""
    lines = re.split(r"\r\n|\r|\n", text)
    return [i + 1 for i, line in enumerate(lines) if line not in BLANK_LINES][k]


def _readable(text, raw, encoding):
    """Whether the bytes are UTF-8 (a BOM allowed) with no NUL: else the read must fail."""
    return encoding in ("utf-8", "utf-8-sig") or (encoding == "latin-1" and text.isascii())


def _csv_cell(draw, text, quote_ok=True):
    """A good spelling of a cell: as is, quoted whole, or with spaces around."""
    if '"' in text or "," in text:
        return '"' + text.replace('"', '""') + '"'
    return draw(st.sampled_from([text, f'"{text}"', f" {text}\t", f' "{text}" ']
                                if quote_ok else [text]))


BAD_FEATURES = ["1_0", "\u0661", "nan", "-inf", '1"', '"1', "1\x00", '"1"x', "\uff11"]
BAD_INT_LABELS = ["", "nan", "NA", "1_0", '"1', '1"', "1\x00", "\u0661"]
BAD_TEXT_LABELS = ["", ' "a', 'a"b', "a\x00", '"a""']


@st.composite
def csv_files(draw):
    n, d = draw(st.integers(1, 5)), draw(st.integers(1, 3))
    numbers = [[draw(NUMBER_TEXT) for _ in range(d)] for _ in range(n)]
    text_labels = draw(st.booleans())
    labels = [draw(TEXT_LABELS) if text_labels else str(draw(st.integers(-3, 3)))
              for _ in range(n)]
    rows = [[_csv_cell(draw, cell) for cell in row] + [_csv_cell(draw, label)]
            for row, label in zip(numbers, labels)]
    bad = None
    if draw(st.booleans()):
        i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, d))
        menu = BAD_FEATURES if j < d else BAD_TEXT_LABELS if text_labels else BAD_INT_LABELS
        rows[i][j] = draw(st.sampled_from(menu))
        bad = i
    header = ["f0", "f1", "f2"][:d] + ["label"] if draw(st.booleans()) else None
    body = ([",".join(header)] if header else []) + [",".join(row) for row in rows]
    lines = _layout(draw, body)
    ends = [draw(LINE_ENDS) for _ in lines]
    X = np.array([[float(cell) for cell in row] for row in numbers])
    y = [label.strip() for label in labels] if text_labels else [int(v) for v in labels]
    return (lines, ends, draw(st.booleans()), draw(ENCODINGS), X, y,
            None if bad is None else bad + bool(header))


@given(csv_files())
@settings(max_examples=examples(300), **SETTINGS)
def test_csv_files_keep_every_row_exactly_or_fail_naming_the_file(tmp_path_factory, case):
    _, _, _, _, X, y, _ = case
    read = _read_back(tmp_path_factory.mktemp("csv") / "d.csv", case)
    if read is None:
        return
    X_read, y_read = read
    assert X_read.shape == X.shape and np.array_equal(X_read, X)
    assert y_read.tolist() == y


@st.composite
def svmlight_files(draw):
    n = draw(st.integers(1, 5))
    sep = st.sampled_from([" ", "\t", "  ", " \t "])
    rows, labels, body, bad = [], [], [], None
    bad_at = draw(st.integers(0, n - 1)) if draw(st.booleans()) else None
    for i in range(n):
        label = draw(st.integers(-3, 3))
        label_text = draw(st.sampled_from([str(label), f"{label:+d}", f"{label}.0"]))
        indices = draw(st.lists(st.integers(1, 6), unique=True, max_size=4))
        values = [draw(NUMBER_TEXT) for _ in indices]
        tokens = [label_text] + [f"{k}:{v}" for k, v in zip(indices, values)]
        if draw(st.booleans()):
            tokens.insert(1, draw(st.sampled_from(["qid:3", "qid:x", "qid:\u0661"])))
        if i == bad_at:
            where = draw(st.integers(0, len(tokens) - 1))
            token = draw(st.sampled_from(
                ["1_0", "\u0661", "nan", '"1"', "1\x00"] if where == 0 else
                ["1_0:1", "\u0661:1", "0:1", "-1:1", "3:1_0", "3:\u0661", "3:nan",
                 "3:infinity", '3:1"', "3:1\x00", "3:1\u00a04:1", "3:1,4:1"]))
            tokens[where] = token
            bad = i
        comment = draw(st.sampled_from(["", " # note", '#"quoted", \u00e9 1_0:1', "#"]))
        body.append(draw(sep).join(tokens) + comment)
        rows.append(dict(zip(indices, (float(v) for v in values))))
        labels.append(label)
    if draw(st.booleans()):
        body.insert(draw(st.integers(0, len(body))), "# a comment line, with 1:2")
    lines = [line.replace(",,", "") for line in _layout(draw, body)]  # blank to svmlight
    data_lines = [k for k, line in enumerate(body) if not line.startswith("#")]
    width = max([max(row, default=0) for row in rows])
    X = np.zeros((n, width))
    for i, row in enumerate(rows):
        for k, v in row.items():
            X[i, k - 1] = v
    ends = [draw(LINE_ENDS) for _ in lines]
    return (lines, ends, draw(st.booleans()), draw(ENCODINGS), X, labels,
            None if bad is None else data_lines[bad])


@given(svmlight_files())
@settings(max_examples=examples(300), **SETTINGS)
def test_svmlight_files_keep_every_row_exactly_or_fail_naming_the_file(tmp_path_factory,
                                                                        case):
    _, _, _, _, X, y, _ = case
    read = _read_back(tmp_path_factory.mktemp("svm") / "d.svm", case)
    if read is None:
        return
    X_read, y_read = read
    X_read = X_read.toarray() if hasattr(X_read, "toarray") else X_read
    assert X_read.shape == X.shape and np.array_equal(X_read, X)
    assert y_read.dtype == np.int64 and y_read.tolist() == y


# hostile characters dropped anywhere into a good file
HOSTILE = st.sampled_from(['"', "\x00", ",", "\r", "\n", "\ufeff", " ", "\t", "#", ":",
                           "\u00a0", "\u0661", "_", "\u2028", "\x1c", "\x85", "\xe9"])


def _data_lines(text, csv):
    """How many rows a reader that drops nothing must return: lines with a cell (CSV) or a
    token before any '#' (svmlight)."""
    lines = re.split(r"\r\n|\r|\n", text.removeprefix("\ufeff"))
    if csv:
        return sum(1 for line in lines if line.replace(",", "").replace('"', "").strip())
    return sum(1 for line in lines if re.search(r"[^ \t\v\f]", line.split("#", 1)[0]))


@given(st.sampled_from([".csv", ".svm"]), st.lists(st.tuples(st.integers(0, 10**6), HOSTILE),
                                                    min_size=1, max_size=4),
       st.sampled_from(["utf-8", "latin-1"]))
@settings(max_examples=examples(300), **SETTINGS)
def test_hostile_characters_anywhere_never_drop_a_row_silently(tmp_path_factory, ext,
                                                                edits, encoding):
    text = ("1,2.5,a\n-3,4,b\r\n\n5,6e-1,\"c, d\"\n" if ext == ".csv" else
            "1 1:2.5 3:1 # x\n-1 qid:2 2:4\r\n\n# c\n1 4:-1e-2\n")
    for position, char in edits:
        position %= len(text) + 1
        text = text[:position] + char + text[position:]
    path = tmp_path_factory.mktemp("hostile") / f"d{ext}"
    try:
        raw = text.encode(encoding)
    except UnicodeEncodeError:
        raw = text.encode("utf-8")
    path.write_bytes(raw)
    try:
        X, y = load_data(path, header=False) if ext == ".csv" else load_data(path)
    except FileFormatError as exc:
        _errors_name(path, exc)
        return
    read_as = raw.decode("utf-8")  # what was read must have been UTF-8 text without NUL
    assert "\x00" not in read_as
    assert X.shape[0] == len(y) == _data_lines(read_as, ext == ".csv")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
@pytest.mark.parametrize("name", ["d.csv", "d.svm", "d.npz"])
def test_load_data_refuses_a_named_pipe_without_blocking(tmp_path, name):
    path = tmp_path / name
    os.mkfifo(path)
    outcome = []

    def read():
        try:
            load_data(path)
        except Exception as exc:  # (reported below)
            outcome.append(exc)
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(5)
    if reader.is_alive():  # before: opened it, and waited for a writer forever
        with open(path, "w"):
            pass  # (a writer that closes at once: the reader sees an empty file and ends)
        reader.join()
        pytest.fail("load_data blocked on a named pipe")
    assert isinstance(outcome[0], FileFormatError) and "not a regular file" in str(outcome[0])
