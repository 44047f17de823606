"""Tagged text files, the reader and writer behind `perceptron_c.datasets.load_tagged` and
``dump_tagged``: ``word/TAG`` lines and CoNLL-style columns (the functions document the
rules)."""
from __future__ import annotations

import codecs
import itertools
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any

from ..exceptions import FileFormatError
from ..io import check_regular_file, replace_file
from ._text import _text_lines

__all__ = ["TAGGED_FORMATS", "load_tagged", "dump_tagged"]

TAGGED_FORMATS = ("auto", "slash", "conll")
CONLL_EXTENSIONS = (".conll", ".conllu", ".conllx", ".conll03", ".tsv")
Sentence = list[tuple[str, ...]]  # (word, tag), or the tuple of ``columns``
DOCSTART = "-DOCSTART-"

# ASCII whitespace separates tokens and columns, as in the svmlight reader: a word may hold
# any other character (a no-break space, an ideographic space) and comes back as it was
_FIELDS = re.compile(r"[^ \t\v\f]+")
_SEPARATORS = frozenset(" \t\v\f\r\n\x00")


def _looks_slash(line: str) -> bool:
    """Whether every token of a line is word/TAG with both parts non-empty."""
    tokens = _FIELDS.findall(line)
    return bool(tokens) and all(0 < token.rfind("/") < len(token) - 1 for token in tokens)


def _slash_sentences(path: str, lines: Iterable[tuple[int, str]]) -> Iterator[Sentence]:
    for line_number, line in lines:
        tokens = _FIELDS.findall(line)
        if not tokens:
            continue
        sentence: Sentence = []
        for position, token in enumerate(tokens, start=1):
            word, slash, tag = token.rpartition("/")
            where = f"{path}:{line_number}: token {position} {token!r}"
            if not slash:
                raise FileFormatError(f"{where} has no tag (expected word/TAG)")
            if not word:
                raise FileFormatError(f"{where} has an empty word (expected word/TAG)")
            if not tag:
                raise FileFormatError(f"{where} has an empty tag (expected word/TAG; the "
                                      "last '/' splits word and tag)")
            sentence.append((word, tag))
        yield sentence


def _conll_columns(path: str, line_number: int, line: str, separator: str | None,
                   n_columns: int | None) -> list[str]:
    fields = line.split("\t") if separator == "\t" else _FIELDS.findall(line)
    if n_columns is not None and len(fields) != n_columns:
        raise FileFormatError(f"{path}:{line_number}: {len(fields)} columns, expected "
                              f"{n_columns} as on the first token line (a token without "
                              "a tag?)")
    if len(fields) < 2:
        raise FileFormatError(f"{path}:{line_number}: one column {line.strip()!r}: a token "
                              "needs a word and a tag column")
    for column, field in enumerate(fields, start=1):
        if not field.strip(" \t\v\f"):  # (a no-break space is text, as in a word)
            raise FileFormatError(f"{path}:{line_number}: column {column} is empty")
    return fields


def _conll_sentences(path: str, lines: Iterable[tuple[int, str]], columns: Sequence[int],
                     names: Sequence[str], separator: str | None, comment: str | None,
                     docstart: str | None) -> Iterator[Sentence]:
    sentence: Sentence = []
    n_columns: int | None = None
    at: list[int] = []
    for line_number, line in lines:
        if not line.strip(" \t\v\f") or (docstart is not None and _first_field(
                line, separator) == docstart):
            if sentence:
                yield sentence
                sentence = []
            continue
        if comment is not None and line.startswith(comment):
            continue
        fields = _conll_columns(path, line_number, line, separator, n_columns)
        if n_columns is None:
            n_columns = len(fields)
            at = [_column_index(path, line_number, name, column, n_columns)
                  for name, column in zip(names, columns)]
            _distinct(path, line_number, at, names, columns, n_columns)
        sentence.append(tuple(fields[a] for a in at))
    if sentence:
        yield sentence


def _first_field(line: str, separator: str | None) -> str:
    if separator == "\t":
        return line.split("\t", 1)[0]
    first = _FIELDS.search(line)
    return first.group() if first else ""


def _distinct(path: str, line_number: int, at: Sequence[int], names: Sequence[str],
              columns: Sequence[int], n_columns: int) -> None:
    for j, a in enumerate(at):
        if a in at[:j]:
            i = at.index(a)
            raise FileFormatError(f"{path}:{line_number}: {names[i]}={columns[i]} and "
                                  f"{names[j]}={columns[j]} are the same column of "
                                  f"{n_columns}")


def _column_index(path: str, line_number: int, name: str, column: int, n_columns: int) -> int:
    if not -n_columns <= column < n_columns:
        raise FileFormatError(f"{path}:{line_number}: {name}={column}, but the line has "
                              f"{n_columns} columns")
    return column % n_columns


def _check_column(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an integer column index, got {value!r}")
    return value


def _check_columns(word_column: Any, tag_column: Any,
                   columns: Any) -> tuple[list[str], list[int]]:
    """The names and the indices of the columns a CoNLL token is read as."""
    if columns is None:
        return (["word_column", "tag_column"],
                [_check_column(word_column, "word_column"),
                 _check_column(tag_column, "tag_column")])
    if (word_column, tag_column) != (0, -1):
        raise ValueError("columns replaces word_column and tag_column: pass one or the other")
    if isinstance(columns, (str, bytes)) or not isinstance(columns, Sequence) or not columns:
        raise TypeError(f"columns must be a non-empty sequence of column indices, got "
                        f"{columns!r}")
    names = [f"columns[{i}]" for i in range(len(columns))]
    return names, [_check_column(c, name) for c, name in zip(columns, names)]


def _detect(path: str,
            lines: Iterator[tuple[int, str]]) -> tuple[str, Iterator[tuple[int, str]]]:
    """The format of a file: conll by extension; else slash when every token of the first
    line with text is word/TAG, conll otherwise. The lines read to decide are put back."""
    if os.path.splitext(path)[1].lower() in CONLL_EXTENSIONS:
        return "conll", lines
    seen = []
    for line_number, line in lines:
        seen.append((line_number, line))
        if _FIELDS.search(line):
            fmt = "slash" if _looks_slash(line) else "conll"
            return fmt, itertools.chain(seen, lines)
    return "slash", iter(seen)


def load_tagged(path: str | os.PathLike[str], format: str = "auto", *, word_column: int = 0,
                tag_column: int = -1, columns: Sequence[int] | None = None,
                separator: str | None = None, comment: str | None = "#",
                docstart: str | None = DOCSTART) -> list[Sentence]:
    """Read a tagged text file: a list of sentences, each a list of ``(word, tag)`` pairs
    (or of the tuples of ``columns``).

    Two formats:

    - ``"slash"``: one sentence per line, tokens separated by ASCII whitespace (space, tab),
      each ``word/TAG``; the last ``/`` splits, so a word may hold ``/`` (``1/2/CD``), a
      tag may not. Blank lines are skipped.
    - ``"conll"``: one token per line, in columns separated by runs of ASCII whitespace (or
      by single tabs with ``separator="\\t"``, so a column may hold spaces); a blank line
      ends a sentence. The word is column ``word_column`` and the tag column ``tag_column``
      (0-based, negative from the end; default the first and the last). Every token line
      has as many columns as the first. Lines starting with ``comment`` (``#``, as in
      CoNLL-U) are skipped; pass ``comment=None`` when a word in the first column may start
      with it. A line whose first column is ``docstart`` (CoNLL-2003's document marks,
      ``-DOCSTART- -X- -X- O``) ends the sentence before it and is skipped; pass
      ``docstart=None`` to read it as a token. ``columns`` reads any columns at once, such
      as a POS and an NER column beside the word: each token is then the tuple of those
      columns, in the order given.
    - ``"auto"`` (default): CoNLL for the extensions ``.conll``, ``.conllu``, ``.conllx``,
      ``.conll03`` and ``.tsv``; else slash when every token of the first line with text
      is ``word/TAG`` with both parts non-empty, CoNLL otherwise.

    The file is UTF-8 (a BOM is dropped); ``\\n``, ``\\r\\n`` and ``\\r`` end lines, and blank
    lines at the end are fine.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    format : {"auto", "slash", "conll"}, default "auto"
        As above.
    word_column, tag_column : int, default 0 and -1
        CoNLL only: the word and the tag columns.
    columns : sequence of int or None, default None
        CoNLL only: the columns each token is read as (at least one, no column twice, each
        0-based or negative from the end), in place of ``(word_column, tag_column)``, which
        must then keep their defaults. ``columns=(0, 1, 3)`` reads CoNLL-2003's
        ``word POS chunk NER`` lines as ``(word, POS, NER)``.
    separator : {None, "\\t"}, default None
        CoNLL only: None splits columns at runs of ASCII whitespace, ``"\\t"`` at each tab.
    comment : str or None, default "#"
        CoNLL only: the prefix of comment lines, or None for no comments.
    docstart : str or None, default "-DOCSTART-"
        CoNLL only: the first column of the lines that mark a document's start, skipped, or
        None to read every line as a token.

    Returns
    -------
    list of list of (str, str), or of tuples of str with ``columns``
        The sentences, in file order.

    Raises
    ------
    FileFormatError
        The file is not UTF-8 text, not a regular file, holds no sentence, or a token lacks
        its word or tag (an empty one included), or a CoNLL line has another number of
        columns than the first: the message names the file and the line.
    FileNotFoundError, OSError
        The file cannot be opened.
    ValueError, TypeError
        A bad argument, naming it.
    """
    path = os.fspath(path)
    if format not in TAGGED_FORMATS:
        raise ValueError(f"format must be one of {', '.join(map(repr, TAGGED_FORMATS))}, "
                         f"got {format!r}")
    names, picked = _check_columns(word_column, tag_column, columns)
    if separator not in (None, "\t"):
        raise ValueError(f"separator must be None (ASCII whitespace) or '\\t', got "
                         f"{separator!r}")
    for name, prefix in (("comment", comment), ("docstart", docstart)):
        if prefix is not None and (not isinstance(prefix, str) or not prefix):
            raise ValueError(f"{name} must be a non-empty string or None, got {prefix!r}")
    check_regular_file(path, "tagged text")  # (a named pipe would block the read forever)
    lines: Iterator[tuple[int, str]] = iter(_text_lines(path))
    if format == "auto":
        format, lines = _detect(path, lines)
    if format == "slash":
        sentences = list(_slash_sentences(path, lines))
    else:
        sentences = list(_conll_sentences(path, lines, picked, names, separator, comment,
                                          docstart))
    if not sentences:
        raise FileFormatError(f"{path}: no sentences")
    return sentences


def _checked_pairs(sentences: Any, format: str, comment: str | None,
                   docstart: str | None) -> Iterator[Sentence]:
    """Each sentence as a list of (word, tag), refusing what would not read back the same."""
    for i, sentence in enumerate(sentences):
        if isinstance(sentence, (str, bytes)) or not isinstance(sentence, Sequence):
            raise TypeError(f"sentences[{i}] must be a sequence of (word, tag) pairs, got "
                            f"{type(sentence).__name__}")
        if not sentence:
            raise ValueError(f"sentences[{i}] is empty (a file cannot hold an empty sentence)")
        pairs: Sentence = []
        for j, pair in enumerate(sentence):
            if isinstance(pair, str) or not isinstance(pair, Sequence) or len(pair) != 2 \
                    or not all(isinstance(part, str) for part in pair):
                raise TypeError(f"sentences[{i}][{j}] must be a (word, tag) pair of strings, "
                                f"got {pair!r}")
            word, tag = pair
            for name, text in (("word", word), ("tag", tag)):
                if not text or _SEPARATORS.intersection(text):
                    raise ValueError(f"sentences[{i}][{j}]: {name} {text!r} is empty or holds "
                                     "whitespace, a line break or NUL, which would not read "
                                     "back the same")
            if format == "slash" and "/" in tag:
                raise ValueError(f"sentences[{i}][{j}]: tag {tag!r} holds '/', which the "
                                 "slash format reads as part of the word")
            if format == "conll" and comment is not None and word.startswith(comment):
                raise ValueError(f"sentences[{i}][{j}]: word {word!r} would read back as a "
                                 f"comment line; pass comment=None (to both functions)")
            if format == "conll" and word == docstart:
                raise ValueError(f"sentences[{i}][{j}]: word {word!r} would read back as a "
                                 f"document mark; pass docstart=None (to both functions)")
            pairs.append((word, tag))
        yield pairs


def dump_tagged(sentences: Iterable[Sequence[tuple[str, str]]], path: str | os.PathLike[str],
                format: str = "slash", *, comment: str | None = "#",
                docstart: str | None = DOCSTART) -> None:
    """Write sentences of ``(word, tag)`` pairs as a tagged text file that `load_tagged`
    reads back equal.

    ``"slash"`` writes one sentence per line, ``word/TAG`` tokens separated by a space;
    ``"conll"`` writes ``word<TAB>tag`` lines with a blank line after each sentence. The file
    is UTF-8 with ``\\n`` line ends (with a BOM when the first word starts with U+FEFF, so
    that the reader's drop of one BOM keeps it), written to a temporary file renamed into
    place, so a failure leaves ``path`` as it was. Any character but ASCII whitespace, line
    breaks and NUL may be in a word or tag, and reads back.

    Parameters
    ----------
    sentences : iterable of sequences of (str, str)
        The sentences; none may be empty.
    path : str or os.PathLike
        The file to write (replaced whole).
    format : {"slash", "conll"}, default "slash"
        As in `load_tagged`.
    comment : str or None, default "#"
        CoNLL only: the comment prefix the file will be read with; a word starting with it is
        refused, since it would read back as a comment.
    docstart : str or None, default "-DOCSTART-"
        CoNLL only: the document mark the file will be read with; a word equal to it is
        refused, since it would read back as a document's start.

    Raises
    ------
    ValueError
        An empty sentence, word or tag; one holding whitespace, a line break or NUL; a tag
        holding ``/`` in the slash format; a CoNLL word starting with ``comment`` or equal
        to ``docstart``; a bad ``format``. The message names the sentence and token.
    TypeError
        A sentence that is not a sequence of pairs of strings.
    OSError
        The file cannot be written.
    """
    if format not in ("slash", "conll"):
        raise ValueError(f"format must be 'slash' or 'conll', got {format!r}")
    for name, prefix in (("comment", comment), ("docstart", docstart)):
        if prefix is not None and (not isinstance(prefix, str) or not prefix):
            raise ValueError(f"{name} must be a non-empty string or None, got {prefix!r}")
    pattern, end = ("{}/{}", "\n") if format == "slash" else ("{}\t{}\n", "\n")
    joiner = " " if format == "slash" else ""

    def write(handle: IO[bytes]) -> None:
        first = True
        for pairs in _checked_pairs(sentences, format, comment, docstart):
            text = joiner.join(pattern.format(word, tag) for word, tag in pairs)
            if first and text.startswith("\ufeff"):  # the reader drops one BOM: this one
                handle.write(codecs.BOM_UTF8)
            first = False
            handle.write((text + end).encode("utf-8"))

    replace_file(path, write)
