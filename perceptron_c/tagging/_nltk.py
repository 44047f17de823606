"""Where the tagger meets NLTK: a model's ``loc`` and ``lang`` resolved as NLTK resolves them,
its JSON files read from a folder or a zip, and `use_for_nltk`, which makes ``nltk.pos_tag``
and ``nltk.pos_tag_sents`` tag with a `perceptron_c.tagging.PerceptronTagger`.

NLTK 3.10.4 (``nltk/tag/perceptron.py`` lines 507-552, ``load_from_json``) reads ``loc``
so: None is the resource ``taggers/averaged_perceptron_tagger_<lang>/`` found by
``nltk.data.find`` on ``nltk.data.path``; a relative str is a resource name for
``nltk.data.find`` (which reads zips: ``taggers/x.zip/x/``, and tries ``x.zip`` for a missing
folder ``x``); an absolute str or a ``pathlib.Path`` is a folder; a ``PathPointer`` is read as
it is. We do the same, with nltk imported only for a resource name (and for ``loc=None``
when it is installed); an explicit ``.zip`` file is read too (NLTK refuses it), and a folder
without the files names what it holds. NLTK's sandbox (``nltk.pathsec``) is not applied to an
explicit path: reading a model file here runs no code.
"""
from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Callable
from typing import Any

from .._utils._npzfile import check_regular_file
from ._text import nltk_data_dirs, param_files

__all__ = ["ModelFiles", "locate", "model_langs", "read_files", "use_for_nltk", "NLTKServing"]

MAX_MEMBER_BYTES = 512 * 1024 * 1024  # NLTK's pathsec.MAX_TOOL_MODEL_BYTES
NLTK_DEFAULT_SAVE_LANG = "xxx"  # save_to_json(lang="xxx"), line 452


class ModelFiles:
    """The files of one folder of NLTK JSON model files: on disk, in a zip, or behind an
    NLTK ``PathPointer``. ``read(name)`` gives a file's bytes or None if it is missing;
    ``names()`` what the folder holds; ``where`` says where it is, for messages."""

    def __init__(self, where: str, read: Callable[[str], bytes | None],
                 names: Callable[[], list[str]]) -> None:
        self.where, self.read, self.names = where, read, names


def _folder(path: str) -> ModelFiles:
    def read(name: str) -> bytes | None:
        full = os.path.join(path, name)
        if not os.path.lexists(full):
            return None
        check_regular_file(full, "NLTK tagger JSON")
        with open(full, "rb") as handle:
            return handle.read()
    return ModelFiles(path, read, lambda: sorted(os.listdir(path)))


def _zip(path: str, tagger_name: str) -> ModelFiles:
    """The folder of a zip that holds the model files (NLTK's layout, ``x.zip`` holding
    ``x/``, or the files at the top)."""
    check_regular_file(path, "zip")
    with zipfile.ZipFile(path) as archive:
        members = [m for m in archive.namelist() if not m.endswith("/")]
    folders = sorted({m.rpartition("/")[0] for m in members
                      if m.rpartition("/")[2].startswith(tagger_name + "_")})
    inner = folders[0] if len(folders) == 1 else ""
    prefix = inner + "/" if inner else ""
    where = f"{path}/{prefix}" if prefix else path

    def read(name: str) -> bytes | None:
        with zipfile.ZipFile(path) as archive:
            try:
                info = archive.getinfo(prefix + name)
            except KeyError:
                return None
            if info.file_size > MAX_MEMBER_BYTES:
                raise ValueError(f"{where}{name}: {info.file_size} bytes, more than the "
                                 f"{MAX_MEMBER_BYTES} a model file may hold")
            with archive.open(info) as handle:
                data = handle.read(MAX_MEMBER_BYTES + 1)
        if len(data) > MAX_MEMBER_BYTES:
            raise ValueError(f"{where}{name}: more than {MAX_MEMBER_BYTES} bytes")
        return data

    def names() -> list[str]:
        return sorted(m[len(prefix):] for m in members if m.startswith(prefix))
    return ModelFiles(where, read, names)


def _pointer(pointer: Any) -> ModelFiles:
    """An NLTK ``PathPointer`` (a ``ZipFilePathPointer``; a ``FileSystemPathPointer`` is a
    str, read as a path), read through its own ``join`` and ``open``."""
    def read(name: str) -> bytes | None:
        try:
            with pointer.join(name).open(encoding=None) as handle:
                return handle.read()
        except (OSError, KeyError):
            return None

    def names() -> list[str]:
        archive, entry = getattr(pointer, "zipfile", None), getattr(pointer, "entry", "")
        if archive is None:
            return []
        return sorted(m[len(entry):] for m in archive.namelist()
                      if m.startswith(entry) and m != entry)
    return ModelFiles(str(pointer), read, names)


def _path(path: str, tagger_name: str) -> ModelFiles:
    if os.path.isdir(path):
        return _folder(path)
    if os.path.isfile(path) and zipfile.is_zipfile(path):
        return _zip(path, tagger_name)
    if os.path.exists(path):
        raise FileNotFoundError(f"{path}: not a folder or a zip of NLTK's JSON model files")
    raise FileNotFoundError(f"{path}: no such folder (of NLTK's JSON model files)")


def _nltk_find(resource: str, tagger_name: str) -> ModelFiles:
    """``nltk.data.find(resource)`` (NLTK's own resolution: ``nltk.data.path``, zips)."""
    try:
        import nltk.data
    except ImportError:
        raise LookupError(
            f"loc={resource!r} is relative, so NLTK reads it as a resource name on "
            "nltk.data.path (such as 'taggers/averaged_perceptron_tagger_eng/'), which needs "
            "nltk installed (pip install nltk). For a folder, pass a pathlib.Path or an "
            "absolute path.") from None
    found = nltk.data.find(resource)
    if isinstance(found, str):  # a FileSystemPathPointer: a folder (or a zip) on disk
        return _path(str(found), tagger_name)
    return _pointer(found)


def _default(tagger_name: str, lang: str) -> ModelFiles:
    """The model ``nltk.download`` installs: ``nltk.data.find`` where nltk is installed,
    else NLTK's default data folders searched as ``find`` searches them (folder, then zip)."""
    resource = f"taggers/{tagger_name}_{lang}/"
    try:
        import nltk.data  # where it is installed, its nltk.data.path rules
    except ImportError:
        searched = nltk_data_dirs()
        for root in searched:
            folder = os.path.join(root, "taggers", f"{tagger_name}_{lang}")
            if os.path.isdir(folder):
                return _folder(folder)
            if os.path.isfile(folder + ".zip"):
                return _zip(folder + ".zip", tagger_name)
    else:
        try:
            return _nltk_find(resource, tagger_name)
        except LookupError:
            searched = list(nltk.data.path)
    raise LookupError(
        f"PerceptronTagger(load=True): no NLTK model {resource!r} (a folder or a zip) in "
        f"{', '.join(searched)}; perceptron_c downloads nothing. Pass load=False and train, "
        "or read a model: PerceptronTagger.from_nltk_json(folder, lang) or "
        "PerceptronTagger.load(path.npz)")


def locate(loc: Any, lang: str, tagger_name: str) -> ModelFiles:
    """The model folder ``loc`` names, as NLTK's ``load_from_json`` resolves it (see the
    module); ValueError for a blank ``loc``, LookupError for a resource not found."""
    if isinstance(loc, bytes):
        loc = os.fsdecode(loc)
    if isinstance(loc, (str, os.PathLike)) and not os.fspath(loc).strip():
        raise ValueError(f"loc={loc!r}: a blank path names no model")
    if loc is None:
        return _default(tagger_name, lang)
    if not isinstance(loc, (str, os.PathLike)):
        if callable(getattr(loc, "join", None)) and callable(getattr(loc, "open", None)):
            return _pointer(loc)
        raise TypeError(f"loc must be a str, a path or an NLTK PathPointer, got "
                        f"{type(loc).__name__}")
    if isinstance(loc, str) and not os.path.isabs(loc):
        return _nltk_find(loc, tagger_name)
    return _path(os.fspath(loc), tagger_name)


def model_langs(names: list[str], tagger_name: str) -> list[str]:
    """The languages whose three files are all in ``names``."""
    found: dict[str, set[str]] = {}
    pattern = re.compile(re.escape(tagger_name) + r"_(.+)\.(weights|tagdict|classes)\.json")
    for name in names:
        match = pattern.fullmatch(name)
        if match:
            found.setdefault(match.group(1), set()).add(match.group(2))
    return sorted(lang for lang, parts in found.items() if len(parts) == 3)


def _holds(files: ModelFiles, tagger_name: str) -> str:
    names = files.names()
    langs = model_langs(names, tagger_name)
    if langs:
        default = (f" (NLTK's save_to_json writes lang={NLTK_DEFAULT_SAVE_LANG!r} unless "
                   "told otherwise)" if NLTK_DEFAULT_SAVE_LANG in langs else "")
        return (f"it holds the model of lang {', '.join(map(repr, langs))}{default}: pass "
                f"lang={langs[0]!r}")
    if not names:
        return "it is empty"
    shown = ", ".join(names[:10]) + (f", ... ({len(names)} entries)" if len(names) > 10 else "")
    return f"it holds {shown}"


def read_files(files: ModelFiles, lang: str | None, tagger_name: str
               ) -> tuple[str, list[tuple[str, bytes]]]:
    """``lang`` (None: "eng" if there, else the one model the folder holds) and the bytes of
    its weights, tag dictionary and classes files, each with its name for messages;
    FileNotFoundError naming what the folder holds if they are not all there."""
    if lang is None:
        langs = model_langs(files.names(), tagger_name)
        lang = "eng" if "eng" in langs or len(langs) != 1 else langs[0]
    names = param_files(tagger_name, lang)
    blobs = [files.read(name) for name in names]
    missing = [name for name, blob in zip(names, blobs) if blob is None]
    if missing:
        raise FileNotFoundError(f"{files.where}: no NLTK tagger model of lang {lang!r} "
                                f"(missing {', '.join(missing)}); {_holds(files, tagger_name)}")
    where = files.where.rstrip("/")
    return lang, [(f"{where}/{name}", blob) for name, blob in zip(names, blobs)
                  if blob is not None]


# ---------------------------------------------------------------- nltk.pos_tag

class NLTKServing:
    """What `use_for_nltk` returns: ``undo()`` puts NLTK's own tagger back; as a context
    manager, the ``with`` block ends with ``undo()``.

    Parameters
    ----------
    tagger : PerceptronTagger
        The tagger ``nltk.pos_tag`` uses from now on.
    lang : {"eng", "rus"}
        The ``lang`` of ``nltk.pos_tag`` it serves.
    """

    def __init__(self, tagger: Any, lang: str) -> None:
        import nltk.tag

        self.tagger, self.lang, self._module = tagger, lang, nltk.tag
        self._original = nltk.tag._get_tagger
        served = lang

        def _get_tagger(lang: str | None = None) -> Any:
            # NLTK's _get_tagger: "rus" is the Russian model, any other lang the English one
            if ("rus" if lang == "rus" else "eng") == served:
                return tagger
            return self._original(lang)
        self._installed: Any = _get_tagger
        nltk.tag._get_tagger = _get_tagger

    def undo(self) -> None:
        """Put back the ``nltk.tag._get_tagger`` this call replaced (a second call does
        nothing); RuntimeError if a later `use_for_nltk` is still in effect."""
        current = self._module._get_tagger
        if self._installed is None:
            return
        if current is not self._installed:
            raise RuntimeError("use_for_nltk: a later use_for_nltk is still in effect; undo "
                               "it first (undo in reverse order)")
        self._module._get_tagger = self._original
        self._installed = None

    def __enter__(self) -> NLTKServing:
        return self

    def __exit__(self, *exc: object) -> None:
        self.undo()


def use_for_nltk(tagger: Any, lang: str = "eng") -> NLTKServing:
    """Make ``nltk.pos_tag`` and ``nltk.pos_tag_sents`` tag with ``tagger``.

    NLTK's ``pos_tag(tokens, tagset=None, lang="eng")`` and ``pos_tag_sents`` (NLTK 3.10.4,
    ``nltk/tag/__init__.py`` lines 105-187) get their tagger from ``nltk.tag._get_tagger(lang)``,
    a ``functools.lru_cache`` that builds NLTK's own ``PerceptronTagger`` (loading its model
    from ``nltk.data.path``) once per language. NLTK has no public way to hand it another
    tagger, so this replaces that one function, ``nltk.tag._get_tagger``, with one that
    returns ``tagger`` for ``lang`` and calls NLTK's for the other language; NLTK's cache is
    left as it was. ``pos_tag`` still does the rest: refuses a str, maps the tags with
    ``tagset`` (``map_tag("en-ptb", tagset, tag)`` for English). Undo with ``undo()`` on the
    result, or use it as a context manager. The replacement is global to the process (every
    thread's ``pos_tag``); calls nest, undone in reverse order.

    Parameters
    ----------
    tagger : PerceptronTagger
        A trained tagger (any object with NLTK's ``tag(tokens)`` will do).
    lang : {"eng", "rus"}, default="eng"
        The ``lang`` of ``pos_tag`` to serve: NLTK's ``pos_tag`` knows only these two.

    Returns
    -------
    NLTKServing
        Its ``undo()`` puts NLTK's tagger back; ``with use_for_nltk(tagger): ...`` undoes it
        when the block ends.

    Raises
    ------
    ImportError
        If nltk is not installed.
    TypeError
        If ``tagger`` has no ``tag`` method.
    ValueError
        If ``lang`` is not "eng" or "rus".
    """
    if not callable(getattr(tagger, "tag", None)):
        raise TypeError(f"tagger must have NLTK's tag(tokens) method, got "
                        f"{type(tagger).__name__}")
    if lang not in ("eng", "rus"):
        raise ValueError(f"lang must be 'eng' or 'rus' (the languages of nltk.pos_tag), got "
                         f"{lang!r}")
    return NLTKServing(tagger, lang)
