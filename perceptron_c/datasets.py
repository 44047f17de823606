"""Data sets: data files (svmlight, CSV, npz) and the synthetic sets of the demo and tests.

Data files
----------
``load_data(path)`` returns ``(X, y)`` and picks the reader by extension:

- ``.svm``, ``.svmlight``, ``.libsvm``, ``.txt``: svmlight / libsvm text, one sample a line,
  ``label idx:val idx:val ...`` with 1-based indices; ``#`` starts a comment, ``qid:`` pairs
  are ignored, blank lines are skipped. X is a scipy CSR matrix when scipy is installed, else
  a dense float64 array.
- ``.csv``: comma-separated, the last column is the label. The first row is a header, and
  is skipped, when none of its feature cells is a number (``width,height,label``), or when
  its feature cells number the columns (``0,1,2`` as pandas names unnamed columns, or
  ``1,2,3``) and its label cell is text while every other label is a number (``0,1,2,y``);
  a first row mixing numbers and text among its feature cells is an error, and so is one
  of other numbers whose label is text above numeric labels (a mistyped label, or a header
  to skip with ``header=True``).
  When the labels are text too, a first row of numbers and a text label (``0,1,cat``) is
  read as data, since it may be one: pass ``header=True`` to skip it (``header=False``
  reads any first row as data). A feature cell that is not a finite number is an error
  naming its line and column; so is an empty label cell, and, where the labels are numbers,
  a label that is not a finite number (``nan``, ``inf``, or a missing-value word such as
  ``NA``, ``N/A``, ``null`` or ``None``). Text labels are kept as they are. A cell may be
  quoted whole (``"a,b"``, ``""`` for a quote); a quoted cell ends on its line, and any
  other ``"`` is an error naming its line and column.
- ``.npz``: arrays ``X`` and ``y``, or ``data``, ``indices``, ``indptr``, ``shape`` and ``y``
  for a CSR matrix (the layout ``scipy.sparse.save_npz`` writes, plus ``y``). Labels NaN,
  inf, NaT or empty text are missing, and complex or record labels are refused; the others
  keep their dtype.

Text files are UTF-8 (a BOM is dropped); lines end at ``\\n``, ``\\r\\n`` or ``\\r``. Numbers are
plain ASCII decimals: Python's ``1_0`` and non-ASCII digits are errors, as in C readers.

Labels come back as int64 when all are integers that fit (Python ints in an object array
when one does not: labels are never rounded), float64 when all are numbers, else as
strings. ``dump_svmlight(X, y, path)`` writes the svmlight text format, for round trips.

Synthetic sets
--------------
Generated from a numpy ``Generator`` (no downloads), shared by the demo, the experiments,
the examples and the tests: ``make_separable`` (a known separator and margin), ``make_text``
(sparse bag of words), ``make_blobs`` (K Gaussian classes), ``make_xor`` (not linearly
separable), ``make_dnf`` (0/1 rows labelled by a hidden monotone DNF), and
``load_digits_split`` (scikit-learn's bundled 8x8 digits, when scikit-learn is installed).
"""
from __future__ import annotations

import codecs
import math
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from . import _backend
from .io import FileFormatError, read_npz

__all__ = [
    "DATA_EXTENSIONS", "load_data", "dump_svmlight", "make_separable", "make_text",
    "make_blobs", "make_xor", "make_dnf", "load_digits_split",
]

SVMLIGHT_EXTENSIONS = (".svm", ".svmlight", ".libsvm", ".txt")
DATA_EXTENSIONS = SVMLIGHT_EXTENSIONS + (".csv", ".npz")


# --------------------------------------------------------------------------- data files

def _scipy_sparse() -> Any:
    """scipy.sparse, or None when scipy is not installed (a seam the tests patch)."""
    try:
        import scipy.sparse
    except ImportError:
        return None
    return scipy.sparse


def _is_sparse(X: Any) -> bool:
    sparse = _scipy_sparse()
    return sparse is not None and sparse.issparse(X)


# numbers as svmlight, C's strtod and scikit-learn write them, in ASCII; spaces or tabs around
_PLAIN_INTEGER = re.compile(r"[ \t]*[+-]?[0-9]+[ \t]*")
_PLAIN_NUMBER = re.compile(r"[ \t]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t]*")


def _plain_text(text: str) -> bool:
    """Whether text is printable ASCII or tabs, without "_": there int() and float() read the
    plain syntax only (or nan and inf), with no second look at each number."""
    return text.isascii() and "_" not in text and (
        text.isprintable() or text.replace("\t", "").isprintable())


def _number(text: str) -> float | None:
    """The value of a number in plain ASCII decimal syntax, NaN or an infinity where the text
    spells one (nan, inf, 1e999), else None. float() alone also reads '1_0' as 10 and
    non-ASCII digits such as '\u0661' (Arabic-Indic one) as numbers."""
    if _PLAIN_NUMBER.fullmatch(text):
        return float(text)
    try:
        value = float(text)
    except ValueError:
        return None
    return None if math.isfinite(value) else value


def _labels_array(values: Sequence[str]) -> np.ndarray:
    """int64 if every label is an integer that fits (an object array of Python ints if one
    does not: labels are never rounded), float64 if all are finite numbers, else str."""
    if all(_PLAIN_INTEGER.fullmatch(value) for value in values):
        integers = [int(value) for value in values]  # exact; finite, so < 310 digits
        if all(-2**63 <= value < 2**63 for value in integers):
            return np.array(integers, dtype=np.int64)
        exact = np.empty(len(integers), dtype=object)
        exact[:] = integers
        return exact
    parsed = []
    for value in values:
        number = _number(value)
        if number is None or not math.isfinite(number):
            return np.array([str(v).strip() for v in values])
        parsed.append(number)
    floats = np.array(parsed, dtype=np.float64)
    if np.all(floats == np.round(floats)) and np.all(np.abs(floats) < 2.0 ** 53):
        return floats.astype(np.int64)
    return floats


MAX_FEATURES = 2**31 - 1  # column indices are int32 in the routines
MAX_DENSE_BYTES = 2**31  # without scipy, sparse files become dense arrays up to this size


def _build_csr(data, indices, indptr, n_rows, n_cols):
    sparse = _scipy_sparse()
    if sparse is None and n_rows * n_cols * 8 > MAX_DENSE_BYTES:
        raise FileFormatError(f"{n_rows} x {n_cols} values would take "
                              f"{n_rows * n_cols * 8 / 2**30:.1f} GiB as a dense array; "
                              "install scipy to read this file as a sparse matrix")
    data = np.asarray(data, dtype=np.float64)
    indices = np.asarray(indices, dtype=np.int32 if n_cols < 2**31 else np.int64)
    indptr = np.asarray(indptr, dtype=np.int64)
    if sparse is not None:
        return sparse.csr_matrix((data, indices, indptr), shape=(n_rows, n_cols))
    dense = np.zeros((n_rows, n_cols), dtype=np.float64)
    rows = np.repeat(np.arange(n_rows), np.diff(indptr))
    dense[rows, indices] = data
    return dense


_SVMLIGHT_TOKENS = re.compile(r"[^ \t\v\f\r\n]+")  # ASCII whitespace separates, as in C


def _svmlight_pairs(path, line_number, pairs, n_features, plain):
    """{1-based index: value} of one line, every pair checked; ``plain``: the line is
    _plain_text."""
    row = {}
    for token in pairs:
        key, sep, value = token.partition(":")
        if not sep:
            raise FileFormatError(f"{path}:{line_number}: expected idx:value, got {token!r}")
        if key == "qid":
            continue
        try:
            if not plain:
                digits = key[1:] if key.startswith(("+", "-")) else key
                if _number(value) is None or not (digits.isascii() and digits.isdigit()):
                    raise ValueError
            index, number = int(key), float(value)  # int(): ValueError beyond 4300 digits
        except ValueError:
            raise FileFormatError(f"{path}:{line_number}: malformed pair {token!r} "
                                  "(expected integer index:number)") from None
        if not 1 <= index <= MAX_FEATURES:
            raise FileFormatError(f"{path}:{line_number}: feature index {index} outside "
                                  f"[1, {MAX_FEATURES}] (indices are 1-based)")
        if not math.isfinite(number):
            raise FileFormatError(f"{path}:{line_number}: value {value!r} of feature {index} "
                                  "is not a finite number")
        if index in row:
            raise FileFormatError(f"{path}:{line_number}: feature index {index} repeated")
        if n_features is not None and index > n_features:
            raise FileFormatError(f"{path}:{line_number}: feature index {index} exceeds "
                                  f"n_features={n_features}")
        row[index] = number
    return row


def _load_svmlight(path, n_features, require_labels, header):
    data, indices, indptr, labels = [], [], [0], []
    unlabeled_rows = 0
    max_index = 0
    for line_number, line in _text_lines(path):
        text = line.split("#", 1)[0]
        plain = _plain_text(text)
        content = text.split() if plain else _SVMLIGHT_TOKENS.findall(text)
        if not content:
            continue
        first = content[0]
        if ":" in first:
            if require_labels:
                raise FileFormatError(f"{path}:{line_number}: missing label "
                                      f"(line starts with {first!r})")
            unlabeled_rows += 1
            pairs = content
        else:
            label = _number(first)
            if label is None or not math.isfinite(label):
                raise FileFormatError(f"{path}:{line_number}: label {first!r} is not a "
                                      "finite number")
            labels.append(first)
            pairs = content[1:]
        row = _svmlight_pairs(path, line_number, pairs, n_features, plain)
        for index in sorted(row):
            indices.append(index - 1)
            data.append(row[index])
        if row:
            max_index = max(max_index, max(row))
        indptr.append(len(data))

    n_rows = len(indptr) - 1
    if n_rows == 0:
        raise FileFormatError(f"{path}: no samples")
    if unlabeled_rows and labels:
        raise FileFormatError(f"{path}: some lines have a label and some do not")
    n_cols = max_index if n_features is None else n_features
    try:
        X = _build_csr(data, indices, indptr, n_rows, n_cols)
    except FileFormatError as exc:
        raise FileFormatError(f"{path}: {exc}") from None
    y = _labels_array(labels) if labels else None
    return X, y


def _is_number(text):
    """Whether float() reads text: a first row of '1_0' cells is a row with bad numbers in
    it, not a header to skip."""
    try:
        float(text)
    except ValueError:
        return False
    return True


_LINE_ENDS = re.compile(r"\r\n|\r|\n")
_BYTE_LINE_ENDS = re.compile(rb"\r\n|\r|\n")


def _text_lines(path):
    """(line number, text) of each line of a UTF-8 text file, its line end removed; "\\n",
    "\\r\\n" and a lone "\\r" each end a line, as Python's text files count them. A UTF-8
    BOM is dropped (Excel writes one). A UTF-16 or UTF-32 file, a byte that is not UTF-8 and
    a NUL (no text has one: a NUL in a label made a class of its own) are errors."""
    line_number = 0
    with open(path, "rb") as handle:
        while True:
            chunk = b"".join(handle.readlines(1 << 22))  # whole lines, about 4 MiB
            if not chunk:
                return
            if line_number == 0 and chunk.startswith((b"\xff\xfe", b"\xfe\xff")):
                raise FileFormatError(f"{path}: UTF-16 or UTF-32 text (it starts with a byte "
                                      "order mark); data files are read as UTF-8")
            if line_number == 0 and chunk.startswith(codecs.BOM_UTF8):
                chunk = chunk[len(codecs.BOM_UTF8):]
            nul = chunk.find(b"\x00")  # the first of the two faults in the file is named
            try:
                text = chunk.decode("utf-8")
            except UnicodeDecodeError as exc:
                if nul < 0 or exc.start < nul:
                    where = line_number + 1 + len(_BYTE_LINE_ENDS.findall(chunk, 0, exc.start))
                    raise FileFormatError(f"{path}:{where}: not UTF-8 text (byte "
                                          f"0x{chunk[exc.start]:02x}); data files are read "
                                          "as UTF-8") from None
            if nul >= 0:
                where = line_number + 1 + len(_BYTE_LINE_ENDS.findall(chunk, 0, nul))
                raise FileFormatError(f"{path}:{where}: a NUL byte: not UTF-8 text (UTF-16 "
                                      "without a byte order mark?)")
            # a chunk ends at a b"\n" (or the end of the file), so no "\r\n" is cut in two
            lines = _LINE_ENDS.split(text) if "\r" in text else text.split("\n")
            if text.endswith(("\n", "\r")):
                lines.pop()
            yield from enumerate(lines, start=line_number + 1)
            line_number += len(lines)


# a cell quoted whole: "...", with "" for a quote, spaces or tabs around it, then , or the end
_QUOTED_CELL = re.compile(r'[ \t]*"((?:[^"]|"")*)"[ \t]*(?=,|\Z)')
_UNCLOSED_CELL = re.compile(r'[ \t]*"(?:[^"]|"")*\Z')


def _csv_fields(path, line_number, line):
    """The cells of one CSV line. A cell may be quoted whole; a quoted cell never spans a
    line end, and any other '"' is an error: a stray quote would otherwise swallow the rows
    up to the next one, or the end of the file, into one cell."""
    if '"' not in line:
        return line.split(",")
    fields, start = [], 0
    while True:
        quoted = _QUOTED_CELL.match(line, start)
        if quoted:
            fields.append(quoted.group(1).replace('""', '"'))
            end = quoted.end()
        else:
            end = line.find(",", start)
            end = len(line) if end < 0 else end
            cell = line[start:end]
            if '"' in cell:
                where = f"{path}:{line_number}: column {len(fields) + 1}"
                if _UNCLOSED_CELL.match(line, start):
                    raise FileFormatError(f"{where}: a quoted field opens here and is not "
                                          "closed on this line (a stray '\"'? a field "
                                          "cannot span lines)")
                raise FileFormatError(f"{where}: stray '\"' in {cell!r} (quote a cell "
                                      'whole: "...", with "" for a quote inside it)')
            fields.append(cell)
        if end == len(line):
            return fields
        start = end + 1


def _csv_rows(path):
    rows, line_numbers = [], []
    for line_number, line in _text_lines(path):
        fields = _csv_fields(path, line_number, line)
        if all(not field.strip() for field in fields):
            continue
        rows.append(fields)
        line_numbers.append(line_number)
    if not rows:
        raise FileFormatError(f"{path}: no data rows")
    return rows, line_numbers


# spellings of a missing value (pandas' defaults, any case); a missing label where the others
# are numbers must be an error, never a class of its own
_MISSING_LABELS = frozenset({"na", "n/a", "#n/a", "#n/a n/a", "#na", "<na>", "null", "none",
                             "-1.#ind", "-1.#qnan", "1.#ind", "1.#qnan"})


def _label_kind(cell):
    """What a (stripped) label cell holds: "number" (finite), "missing" (empty, NaN or a
    missing-value word), "infinite", "malformed" (a number to float() only, as '1_0'), or
    "text"."""
    value = _number(cell)
    if value is None:
        if not cell or cell.lower() in _MISSING_LABELS:
            return "missing"
        return "malformed" if _is_number(cell) else "text"
    if math.isnan(value):
        return "missing"
    return "number" if math.isfinite(value) else "infinite"


def _numeric_labels(kinds):
    """Whether a label column is numeric: no text cell and at least one finite number."""
    return "text" not in kinds and "number" in kinds


def _csv_header(path, rows, first_line, n_feature_columns, labeled, header):
    """Whether the first row is a header: as told, else when none of its feature cells is a
    number, or when they number the columns (0, 1, ... or 1, 2, ...), its label is text and
    every other label is a number. A row mixing numbers and text among its features, or
    other numbers above a text label among numeric ones, is an error, never a silently lost
    row nor a class of its own."""
    if header is not None:
        return bool(header)
    first = rows[0]
    numbers = [_is_number(field) for field in first[:n_feature_columns]]
    if not any(numbers):
        return True
    if not all(numbers):
        j = numbers.index(False)
        raise FileFormatError(f"{path}:{first_line}: column {j + 1} value {first[j]!r} is "
                              "not a number (the first row is read as a header only when "
                              "none of its feature cells is a number, or when they number "
                              "the columns above a text label; pass header=True to skip it)")
    if not labeled or _label_kind(first[-1].strip()) != "text":
        return False  # the usual case: no pass over the other labels
    if not _numeric_labels([_label_kind(row[-1].strip()) for row in rows[1:]]):
        return False
    # a text label above numeric ones: a header when the feature cells number the columns
    # (0, 1, ... as pandas names unnamed columns, or 1, 2, ...); otherwise it may be a data
    # row with a mistyped label, which is neither skipped nor made a class of its own
    names = [field.strip() for field in first[:n_feature_columns]]
    if names in ([str(j) for j in range(n_feature_columns)],
                 [str(j + 1) for j in range(n_feature_columns)]):
        return True
    raise FileFormatError(f"{path}:{first_line}: label {first[-1].strip()!r} is text while "
                          "every other label is a number; pass header=True if the first row "
                          "is a header")


def _csv_labels(path, cells, line_numbers):
    """The label column: an empty cell is an error, and so, when the labels are numbers,
    is one that is not a finite number (NaN, inf, NA...); text labels are kept."""
    kinds = [_label_kind(cell) for cell in cells]
    numeric = "text" not in kinds  # all NaN, NA or inf counts too: not one usable label
    for cell, kind, line_number in zip(cells, kinds, line_numbers):
        if not cell:
            raise FileFormatError(f"{path}:{line_number}: missing label (the last column "
                                  "is empty)")
        if numeric and kind == "malformed":
            raise FileFormatError(f"{path}:{line_number}: label {cell!r} is not a plain "
                                  "number (ASCII digits, sign, point and exponent only)")
        if numeric and kind != "number":
            missing = " (a missing label)" if kind == "missing" else ""
            raise FileFormatError(f"{path}:{line_number}: label {cell!r} is not a finite "
                                  f"number{missing}")
    return _labels_array(cells)


def _feature_value(path, line_number, j, cell):
    value = _number(cell)
    if value is None or not math.isfinite(value):
        raise FileFormatError(f"{path}:{line_number}: column {j + 1} value {cell!r} is not a "
                              "finite number")
    return value


def _load_csv(path, n_features, require_labels, header):
    rows, line_numbers = _csv_rows(path)
    n_columns = len(rows[0])
    # Without labels the file has exactly n_features columns (all features).
    labeled = require_labels or n_features is None or n_columns != n_features
    n_feature_columns = n_columns - 1 if labeled else n_columns
    if labeled and n_columns < 2:
        raise FileFormatError(f"{path}: needs at least two columns (features..., label)")
    if _csv_header(path, rows, line_numbers[0], n_feature_columns, labeled, header):
        rows, line_numbers = rows[1:], line_numbers[1:]
        if not rows:
            raise FileFormatError(f"{path}: a header row but no data rows")
    if n_features is not None and n_feature_columns != n_features:
        raise FileFormatError(f"{path}: {n_feature_columns} feature columns, expected "
                              f"{n_features}")
    X = np.empty((len(rows), n_feature_columns), dtype=np.float64)
    labels = []
    for i, (fields, line_number) in enumerate(zip(rows, line_numbers)):
        if len(fields) != n_columns:
            raise FileFormatError(f"{path}:{line_number}: {len(fields)} columns, expected "
                                  f"{n_columns}")
        cells = fields[:n_feature_columns]
        try:
            if not _plain_text(",".join(cells)):
                raise ValueError
            values = [float(cell) for cell in cells]
        except ValueError:
            values = [math.nan]
        if not math.isfinite(sum(values)):  # a bad cell, or a sum that overflows: look closer
            values = [_feature_value(path, line_number, j, cell) for j, cell in enumerate(cells)]
        X[i] = values
        if labeled:
            labels.append(fields[-1].strip())
    return X, (_csv_labels(path, labels, line_numbers) if labeled else None)


def _load_data_npz(path, n_features, require_labels, header):
    arrays = read_npz(path, "data")
    y = arrays.get("y")
    if y is None and require_labels:
        raise FileFormatError(f"{path}: no 'y' array (labels)")
    if "X" in arrays:
        X = arrays["X"]
        if X.ndim != 2 or X.dtype.kind not in "biuf":
            raise FileFormatError(f"{path}: 'X' must be a 2-D numeric array, got shape {X.shape} "
                                  f"dtype {X.dtype}")
        if n_features is not None and X.shape[1] != n_features:
            raise FileFormatError(f"{path}: X has {X.shape[1]} features, expected {n_features}")
        if X.dtype.kind == "f" and not np.isfinite(X).all():
            raise FileFormatError(f"{path}: 'X' holds NaN or inf")
    elif all(key in arrays for key in ("data", "indices", "indptr", "shape")):
        X = _csr_from_arrays(arrays, path, n_features)
    else:
        raise FileFormatError(f"{path}: needs an 'X' array, or 'data', 'indices', 'indptr' and "
                              f"'shape' arrays; found {sorted(arrays)}")
    if y is not None:
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise FileFormatError(f"{path}: 'y' must be 1-D with {X.shape[0]} labels, "
                                  f"got shape {y.shape}")
        _check_npz_labels(path, y)
    return X, y


def _check_npz_labels(path, y):
    """Refuse what a text file's labels may not hold: NaN, infinity, NaT or empty text (a
    missing label), complex numbers and records. Other labels are typed, so kept as they are:
    numbers, bool, text (never parsed: "NA" is text, as it is among a CSV's text labels),
    bytes and dates, all of which model files store."""
    kind = y.dtype.kind
    if kind == "c":
        raise FileFormatError(f"{path}: 'y' holds complex numbers (dtype {y.dtype}); labels "
                              "are real numbers or text")
    if kind not in "biufUSMm":
        raise FileFormatError(f"{path}: 'y' has dtype {y.dtype}; labels are numbers or text")
    if kind == "f":
        bad = ~np.isfinite(y)
        if bad.any():
            i = int(np.argmax(bad))
            missing = " (a missing label)" if np.isnan(y[i]) else ""
            raise FileFormatError(f"{path}: label y[{i}] = {float(y[i])!r} is not a finite "
                                  f"number{missing}")
    elif kind in "Mm":
        bad = np.isnat(y)
        if bad.any():
            raise FileFormatError(f"{path}: label y[{int(np.argmax(bad))}] is NaT (a missing "
                                  "label)")
    elif kind in "US":
        bad = np.char.str_len(np.char.strip(y)) == 0
        if bad.any():
            raise FileFormatError(f"{path}: label y[{int(np.argmax(bad))}] is empty (a missing "
                                  "label)")


def _csr_from_arrays(arrays, path, n_features):
    fmt = arrays.get("format")
    if fmt is not None:
        fmt = fmt.item()
        fmt = fmt.decode("ascii", "replace") if isinstance(fmt, bytes) else str(fmt)
        if fmt != "csr":
            raise FileFormatError(f"{path}: sparse format {fmt!r}; only 'csr' is read")
    data, indices, indptr, shape = (arrays[k] for k in ("data", "indices", "indptr", "shape"))
    if shape.shape != (2,) or shape.dtype.kind not in "iu":
        raise FileFormatError(f"{path}: 'shape' must hold two integers")
    n_rows, n_cols = (int(v) for v in shape)
    if not (0 <= n_rows and 0 <= n_cols <= MAX_FEATURES):
        raise FileFormatError(f"{path}: shape {(n_rows, n_cols)} out of range")
    if n_features is not None:
        if n_cols > n_features:
            raise FileFormatError(f"{path}: {n_cols} features, more than "
                                  f"n_features={n_features}")
        n_cols = n_features
    if data.ndim != 1 or indices.ndim != 1 or indptr.ndim != 1 or data.dtype.kind not in "biuf" \
            or indices.dtype.kind not in "iu" or indptr.dtype.kind not in "iu":
        raise FileFormatError(f"{path}: 'data', 'indices' and 'indptr' must be 1-D numeric "
                              "arrays")
    ok = (
        n_rows >= 0 and n_cols >= 0 and indptr.shape[0] == n_rows + 1
        and indptr[0] == 0 and indptr[-1] == data.shape[0] == indices.shape[0]
        and bool(np.all(np.diff(indptr) >= 0))
        and (indices.size == 0 or (indices.min() >= 0 and indices.max() < n_cols))
    )
    if not ok:
        raise FileFormatError(f"{path}: inconsistent CSR arrays (indptr/indices/shape)")
    if data.size and not np.isfinite(data).all():
        raise FileFormatError(f"{path}: 'data' holds NaN or inf")
    try:
        return _build_csr(data, indices, indptr, n_rows, n_cols)
    except FileFormatError as exc:
        raise FileFormatError(f"{path}: {exc}") from None


def load_data(path: str | os.PathLike[str], n_features: int | None = None, *,
              require_labels: bool = True,
              header: bool | None = None) -> tuple[Any, np.ndarray | None]:
    """Read a data set; return ``(X, y)``. See the module docstring for the formats.

    Anything wrong with the file raises `perceptron_c.io.FileFormatError` (a ``ValueError``)
    naming the file, and for text files the line and column.

    ``n_features``: None infers the width of sparse data from the largest index; an int pads
    sparse data (svmlight, sparse npz) with empty columns up to that width and must equal the
    width of dense data (csv, dense npz). A wider file is an error.

    ``require_labels=False`` lets the file lack labels (then ``y`` is None): svmlight lines
    may start directly with ``idx:val``, an npz may lack ``y``, and a CSV with exactly
    ``n_features`` columns is read as all features.

    ``header`` (CSV only): True skips the first row, False reads it as data, None (default)
    skips it when none of its feature cells is a number, or when they number the columns and
    its label cell is text while every other label is a number (``0,1,2,y`` above numeric
    labels; other numbers there are an error). When the labels are
    text too, a first row of numbers with a text label is read as data: pass True to skip it.

    CSV labels: an empty label cell is an error; where the labels are numbers, so is a label
    that is not a finite number (``nan``, ``inf``, ``NA``, ``null``...), naming its line.

    Every row is kept or the file is refused:

    - Text files are UTF-8 (a UTF-8 BOM is dropped); UTF-16, UTF-32, a byte that is not
      UTF-8 and a NUL are errors naming the line. ``\\n``, ``\\r\\n`` and ``\\r`` end lines.
    - Numbers (svmlight indices, values, labels; CSV cells, numeric labels) are plain ASCII
      decimals (sign, digits, point, exponent; spaces or tabs around a CSV cell). ``1_0``
      or non-ASCII digits, which Python reads, are errors; among CSV text labels they are
      text. svmlight splits at ASCII whitespace only; ``qid:`` pairs are ignored as before.
    - CSV: a cell may be quoted whole (``"a,b"``, ``""`` for a quote) but never across a
      line end, legal CSV though that is: a stray quote would hide the rows up to the next
      one. Any other ``"`` is an error naming its line and column.
    - npz: NaN, inf, NaT and blank text labels are missing labels, complex or record labels
      are refused, as in text files; other labels keep their dtype (text is not parsed).
      A dense ``X`` must be finite.

    Raises
    ------
    FileFormatError
        Anything wrong with the file, naming it.
    """
    path = os.fspath(path)
    if n_features is not None:
        n_features = int(n_features)
        if not 0 <= n_features <= MAX_FEATURES:
            raise ValueError(f"n_features must lie in [0, {MAX_FEATURES}], got {n_features}")
    if header is not None and not isinstance(header, bool):
        raise ValueError(f"header must be None, True or False, got {header!r}")
    extension = os.path.splitext(path)[1].lower()
    if extension in SVMLIGHT_EXTENSIONS:
        reader = _load_svmlight
    elif extension == ".csv":
        reader = _load_csv
    elif extension == ".npz":
        reader = _load_data_npz
    else:
        raise FileFormatError(f"{path}: unknown data format {extension or '(no extension)'!r} "
                              f"(expected one of {', '.join(DATA_EXTENSIONS)})")
    try:
        return reader(path, n_features, require_labels, header)
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"{path}: not a text file ({exc})") from None
    except (OverflowError, MemoryError, RecursionError) as exc:
        raise FileFormatError(f"{path}: cannot be read ({type(exc).__name__}: {exc})") from None


def _format_number(value: Any) -> str:
    if isinstance(value, (bool, int)):
        return str(int(value))
    value = float(value)
    if value.is_integer() and abs(value) < 2.0 ** 53:
        return str(int(value))
    return repr(value)


def dump_svmlight(X: Any, y: Any, path: str | os.PathLike[str]) -> None:
    """Write ``X`` (dense or scipy sparse) and numeric labels ``y`` as svmlight text.

    Indices are written 1-based, zeros are skipped, and values are written with the shortest
    repr that reads back to the same float64, so ``load_data`` returns exactly ``X``.
    """
    row_items: Iterator[Iterable[tuple[int, Any]]]
    if _is_sparse(X):
        X = X.tocsr()
        X.sort_indices()
        n_rows = X.shape[0]
        row_items = (
            zip(X.indices[X.indptr[i]:X.indptr[i + 1]].tolist(),
                X.data[X.indptr[i]:X.indptr[i + 1]].tolist())
            for i in range(n_rows)
        )
    else:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}")
        n_rows = X.shape[0]
        row_items = (enumerate(row) for row in X.tolist())
    y = np.asarray(y)
    if y.shape != (n_rows,):
        raise ValueError(f"y must have shape ({n_rows},), got {y.shape}")
    if y.dtype.kind not in "biuf":
        raise ValueError(f"svmlight labels must be numbers, got dtype {y.dtype}")
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        for label, items in zip(y.tolist(), row_items):
            pairs = " ".join(f"{j + 1}:{_format_number(v)}" for j, v in items if v != 0)
            head = _format_number(label)
            handle.write(f"{head} {pairs}\n" if pairs else f"{head}\n")


# --------------------------------------------------------------------------- synthetic sets

def make_separable(rng: np.random.Generator, n: int, d: int, gap: float = 0.2,
                   bias: float = 0.3) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Dense points with labels sign(u.x + b0), keeping only ``|u.x + b0| >= gap`` (||u|| = 1),
    so (u, b0) separates them with geometric margin at least ``gap``."""
    u = rng.standard_normal(d)
    u /= math.sqrt(_backend.gram().row_sqnorms(u[None, :])[0])
    kept: list[np.ndarray] = []
    while sum(len(block) for block in kept) < n:
        block = rng.standard_normal((2 * n, d))
        kept.append(block[np.abs(_activations(block, u, bias)) >= gap])
    X = np.concatenate(kept)[:n]
    y = np.where(_activations(X, u, bias) > 0, 1, -1)
    return X, y, u, bias


def _activations(X: np.ndarray, u: np.ndarray, bias: float) -> np.ndarray:
    """u . x + bias for every row, the dot the package's 4-lane sum (BLAS's would change the
    set generated with the machine and its thread count)."""
    out = np.empty((X.shape[0], 1))
    _backend.linear().decision_dense(np.ascontiguousarray(X), u[None, :], np.array([bias]), out)
    return out[:, 0]


def _csr_counts(rows, cols, n_rows, n_cols):
    """Word-count matrix from (doc, word) token pairs: scipy CSR, or dense without scipy."""
    keys, counts = np.unique(rows.astype(np.int64) * n_cols + cols, return_counts=True)
    doc, word = np.divmod(keys, n_cols)
    try:
        import scipy.sparse
    except ImportError:
        dense = np.zeros((n_rows, n_cols))
        dense[doc, word] = counts
        return dense
    indptr = np.concatenate([[0], np.cumsum(np.bincount(doc, minlength=n_rows))])
    return scipy.sparse.csr_matrix((counts.astype(np.float64), word, indptr),
                                   shape=(n_rows, n_cols))


def make_text(rng: np.random.Generator, n: int, vocabulary: int = 5000, mean_length: int = 36,
              topic_words: int = 250, topic_share: float = 0.15) -> tuple[Any, np.ndarray]:
    """Bag-of-words counts: most tokens from a shared Zipf-like law over the vocabulary, a
    share from a per-class topic list, so the classes overlap as real documents do."""
    labels = np.array(["ham", "spam"])
    y_index = rng.integers(0, 2, size=n)
    lengths = np.maximum(rng.poisson(mean_length, size=n), 1)
    rows = np.repeat(np.arange(n), lengths)
    frequency = 1.0 / (np.arange(vocabulary) + 10.0)
    words = rng.choice(vocabulary, size=rows.shape[0], p=frequency / frequency.sum())
    topics = rng.choice(vocabulary, size=(2, topic_words), replace=False)
    from_topic = rng.random(rows.shape[0]) < topic_share
    picks = rng.integers(0, topic_words, size=rows.shape[0])
    words = np.where(from_topic, topics[y_index[rows], picks], words)
    return _csr_counts(rows, words, n, vocabulary), labels[y_index]


def make_blobs(rng: np.random.Generator, n: int, d: int, n_classes: int = 10,
               spread: float = 2.2) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian blobs around random centres; ``spread`` sets how much the classes overlap."""
    centres = rng.standard_normal((n_classes, d)) * 1.5
    y = rng.integers(0, n_classes, size=n)
    return centres[y] + spread * rng.standard_normal((n, d)) / np.sqrt(2.0), y


def make_xor(rng: np.random.Generator, n: int,
             noise: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """Four Gaussian clusters at (+-1, +-1); label +1 where x1 * x2 > 0 at the cluster
    centre (the XOR of the two signs, CIML Fig. 4.12), else -1."""
    centres = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1]], dtype=float)
    which = rng.integers(0, 4, n)
    return centres[which] + noise * rng.standard_normal((n, 2)), np.where(which < 2, 1, -1)


def make_dnf(rng: np.random.Generator, n: int, n_bits: int = 40, density: float = 0.3,
             terms: Sequence[Sequence[int]] = ((0, 3), (5, 7), (2, 11)),
             ) -> tuple[np.ndarray, np.ndarray]:
    """Random 0/1 rows labelled by a hidden monotone DNF (an OR of ANDs of bits)."""
    B = (rng.random((n, n_bits)) < density).astype(np.uint8)
    y = np.zeros(n, dtype=int)
    for term in terms:
        y |= np.all(B[:, list(term)] == 1, axis=1)
    return B, y


def load_digits_split(n_train: int = 1200, n_test: int | None = None,
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's bundled 8x8 digits (1797 images, no download), pixels scaled to [0, 1];
    the first ``n_train`` images train, the next ``n_test`` (default: all the rest) test."""
    try:
        from sklearn.datasets import load_digits
    except ImportError as exc:
        raise ImportError("the digits experiment needs scikit-learn's bundled digits data: "
                          "pip install scikit-learn (or 'perceptron-c[sklearn]')") from exc
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    if not 1 <= n_train < X.shape[0]:
        raise ValueError(f"n_train must be in [1, {X.shape[0] - 1}], got {n_train}")
    stop = X.shape[0] if n_test is None else min(X.shape[0], n_train + n_test)
    return X[:n_train], y[:n_train], X[n_train:stop], y[n_train:stop]
