"""Plain-text data files, the parts both readers share: UTF-8 lines, ASCII number syntax,
labels from text cells, and the CSV reader (`perceptron_c.datasets` documents the rules)."""
from __future__ import annotations

import codecs
import math
import os
import re
from collections.abc import Iterator, Sequence

import numpy as np

from ..exceptions import FileFormatError

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


def _text_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, str]]:
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
