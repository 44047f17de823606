"""The data-file readers and writer behind `perceptron_c.datasets.load_data` and
``dump_svmlight`` (svmlight, CSV, npz; the module documents the rules)."""
from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from ..exceptions import FileFormatError
from ..io import check_regular_file, read_npz
from ._text import _labels_array, _load_csv, _number, _plain_text, _text_lines

__all__ = ["DATA_EXTENSIONS", "SVMLIGHT_EXTENSIONS", "load_data", "dump_svmlight"]

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


def _check_width(n_features: Any, header: Any) -> int | None:
    """``n_features`` as an int in [0, MAX_FEATURES] (or None); then ``header`` is checked."""
    if n_features is not None:
        n_features = int(n_features)
        if not 0 <= n_features <= MAX_FEATURES:
            raise ValueError(f"n_features must lie in [0, {MAX_FEATURES}], got {n_features}")
    if header is not None and not isinstance(header, bool):
        raise ValueError(f"header must be None, True or False, got {header!r}")
    return n_features


def _reader(path: str) -> Any:
    """The reader of a data file, by its extension."""
    extension = os.path.splitext(path)[1].lower()
    if extension in SVMLIGHT_EXTENSIONS:
        return _load_svmlight
    if extension == ".csv":
        return _load_csv
    if extension == ".npz":
        return _load_data_npz
    raise FileFormatError(f"{path}: unknown data format {extension or '(no extension)'!r} "
                          f"(expected one of {', '.join(DATA_EXTENSIONS)})")


def load_data(path: str | os.PathLike[str], n_features: int | None = None, *,
              require_labels: bool = True,
              header: bool | None = None) -> tuple[Any, np.ndarray | None]:
    """Read a data set; return ``(X, y)``. `perceptron_c.datasets` describes the formats.

    The reader is picked by the extension: svmlight (``.svm``, ``.svmlight``, ``.libsvm``,
    ``.txt``), ``.csv`` or ``.npz``. Anything wrong with the file raises
    `perceptron_c.io.FileFormatError` (a ``ValueError``) naming the file, and for text files
    the line and column.

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

    Parameters
    ----------
    path : str or path-like
        The data file.
    n_features : int, optional
        None infers the width of sparse data from the largest index; an int pads sparse
        data (svmlight, sparse npz) with empty columns up to that width and must equal the
        width of dense data (csv, dense npz). A wider file is an error.
    require_labels : bool, default=True
        False lets the file lack labels (then ``y`` is None): svmlight lines may start
        directly with ``idx:val``, an npz may lack ``y``, and a CSV with exactly
        ``n_features`` columns is read as all features.
    header : bool, optional
        CSV only: True skips the first row, False reads it as data, None (default) skips it
        when none of its feature cells is a number, or when they number the columns and its
        label cell is text while every other label is a number (``0,1,2,y`` above numeric
        labels; other numbers there are an error). When the labels are text too, a first
        row of numbers with a text label is read as data: pass True to skip it.

    Returns
    -------
    X : ndarray of float64 or scipy.sparse CSR matrix, of shape (n_samples, n_features)
        A scipy CSR matrix for svmlight and sparse npz files when scipy is installed, else
        a dense array.
    y : ndarray of shape (n_samples,), or None
        int64 when every label is an integer that fits (Python ints in an object array when
        one does not), float64 when all are numbers, else text; npz labels keep their dtype.
        None when the file has no labels and ``require_labels=False``.

    Raises
    ------
    FileFormatError
        Anything wrong with the file (an unknown extension, a file that is not a regular
        file, a malformed line, cell or array), naming it.
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If ``n_features`` is not in [0, 2**31 - 1], or ``header`` is not None, True or False.
    """
    path = os.fspath(path)
    n_features = _check_width(n_features, header)
    reader = _reader(path)
    check_regular_file(path, "data")  # (a named pipe would block the read forever)
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

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        The samples.
    y : array-like of shape (n_samples,)
        Numeric labels (bool, int or float).
    path : str or path-like
        The file written (replaced if it exists).

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, ``y`` has another length, or its labels are not numbers.
    OSError
        If the file cannot be written.
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
