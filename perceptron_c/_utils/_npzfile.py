"""The files under `perceptron_c.io`: ``.npz`` archives and files written whole or not at all.

`replace_file` writes a file beside its target and renames it into place; `read_npz` reads
an archive member by member without pickle (every member a ``.npy`` array whose header
declares the bytes it holds, at most `MAX_EXPANSION`-fold deflated); `check_regular_file`
refuses what is not a regular file before it is opened. Model files (`perceptron_c.io`) and
data files (`perceptron_c.datasets`) are read and written through them; ``perceptron_c.io``
re-exports them, where they have always been public.
"""
from __future__ import annotations

import contextlib
import errno
import math
import os
import stat
import struct
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ..exceptions import FileFormatError

if TYPE_CHECKING:
    import zipfile

__all__ = ["MAX_EXPANSION", "replace_file", "replace_files", "check_regular_file", "read_npz"]

# deflate reaches about 1000:1 on zeros; real arrays stay far below 64:1 (np.savez stores
# them uncompressed anyway): a larger ratio is a decompression bomb
MAX_EXPANSION = 64


def _write_npz(handle: IO[bytes], arrays: dict[str, np.ndarray]) -> None:
    """The archive ``np.savez`` writes (uncompressed ``.npy`` members, ZIP64), closed even
    when a write fails: numpy before 1.24 left its archive open then, and when it was
    collected later its close wrote to the closed file ("Exception ignored ... seek of
    closed file"). No member can need pickle (`_checked_state`)."""
    import zipfile

    with zipfile.ZipFile(handle, mode="w", compression=zipfile.ZIP_STORED,
                         allowZip64=True) as archive:
        for key, value in arrays.items():
            with archive.open(key + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(value), allow_pickle=False)


def _naming(exc: OSError, path: str, temporary: str | None = None) -> OSError:
    """``exc`` naming ``path``, where it named the temporary file or no file at all."""
    if exc.errno is None or exc.filename not in (None, temporary):
        return exc
    return OSError(exc.errno, exc.strerror, path)  # OSError picks the subclass of the errno


def replace_file(path: str | os.PathLike[str], write: Callable[[IO[bytes]], Any]) -> None:
    """Write the file ``path`` whole or not at all: ``write(handle)`` fills a new file beside
    it (so the rename is atomic), which is flushed to disk and renamed onto ``path``; on any
    failure the new file is deleted and ``path`` is left as it was. An ``OSError`` names
    ``path``, never the temporary file.

    A ``path`` that exists and is not a regular file (``/dev/null``, a named pipe) is written
    in place, since a rename would replace the device itself; a directory is refused.
    """
    import secrets

    path = os.fspath(path)
    try:
        mode: int | None = os.stat(path).st_mode
    except OSError:  # missing, or its directory is: the open below says which, naming path
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if mode is not None and not stat.S_ISREG(mode):
        try:
            with open(path, "wb") as handle:
                write(handle)
        except OSError as exc:
            raise _naming(exc, path) from None
        return
    # a short name of its own: the target's name may already be NAME_MAX long
    temporary = os.path.join(os.path.dirname(path), f".{secrets.token_hex(6)}.tmp")
    created = False
    try:
        # open(..., "x") rather than mkstemp: the file gets the usual umask permissions, not 0600
        with open(temporary, "xb") as handle:
            created = True
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException as exc:
        if created:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        if isinstance(exc, OSError):
            raise _naming(exc, path, temporary) from None
        raise


def replace_files(files: list[tuple[str, Callable[[IO[bytes]], Any]]]) -> None:
    """Write several files as one: each ``(path, write)`` filled beside its path and flushed
    to disk first (where a full disk or any other failure stops, every path as it was), then
    all renamed into place, the old files kept aside until the last rename is done and put
    back if one fails. Ctrl-C waits for the renames (microseconds), so what the files hold
    afterwards is the old set or the new, never a mix. The paths are regular files or
    missing."""
    import secrets
    import signal
    import threading

    staged: list[tuple[str, str, str]] = []  # (path, new, aside)
    moved: list[tuple[str, str, bool]] = []  # (path, aside, had an old file)
    try:
        for path, write in files:
            tag = secrets.token_hex(6)
            folder = os.path.dirname(path)
            new, aside = os.path.join(folder, f".{tag}.tmp"), os.path.join(folder, f".{tag}.old")
            staged.append((path, new, aside))
            _stage(path, new, write)
        main = threading.current_thread() is threading.main_thread()
        caught: list[Any] = []
        before = signal.signal(signal.SIGINT, lambda *a: caught.append(a)) if main else None
        try:
            for path, new, aside in staged:
                had = os.path.lexists(path)
                if had:
                    os.replace(path, aside)
                moved.append((path, aside, had))
                os.replace(new, path)
            moved = []
        finally:
            if main:
                signal.signal(signal.SIGINT, before)
        if caught:
            raise KeyboardInterrupt
    finally:
        for path, aside, had in reversed(moved):  # a rename failed: the old set back
            with contextlib.suppress(OSError):
                if had:
                    os.replace(aside, path)
                else:
                    os.unlink(path)
        for _, new, aside in staged:
            for leftover in (new, aside):
                with contextlib.suppress(OSError):
                    os.unlink(leftover)


def _stage(path: str, new: str, write: Callable[[IO[bytes]], Any]) -> None:
    """The new content of ``path`` in the file ``new``, on disk; an OSError names ``path``."""
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    try:
        with open(new, "xb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        raise _naming(exc, path, new) from None


_FILE_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe"),
               (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
               (stat.S_ISSOCK, "a socket"))


def check_regular_file(path: str | os.PathLike[str], what: str) -> None:
    """`FileFormatError` naming ``path`` unless it is a regular file (symbolic links
    followed), checked before it is opened: opening a named pipe waits for a writer, forever
    if none comes. A missing file raises ``FileNotFoundError`` naming it."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _FILE_KINDS if test(mode)), "not a file")
        raise FileFormatError(f"{os.fspath(path)}: not a regular file ({kind}), so not a "
                              f"{what} file")


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> np.ndarray:
    """One .npy member, its header checked against its size before anything is allocated."""
    import zipfile

    if info.flag_bits & 0x1:
        raise ValueError(f"member {info.filename!r} is encrypted")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise ValueError(f"member {info.filename!r} uses an unsupported compression")
    if info.compress_type == zipfile.ZIP_DEFLATED and \
            info.file_size > MAX_EXPANSION * max(info.compress_size, 1) + 2**16:
        raise ValueError(f"member {info.filename!r} would expand {info.file_size} bytes from "
                         f"{info.compress_size}: refused as a decompression bomb")
    with archive.open(info) as member:
        version = np.lib.format.read_magic(member)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(member)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(member)
        else:
            raise ValueError(f"member {info.filename!r}: .npy version {version}")
        header = member.tell()
    if dtype.hasobject:
        raise ValueError(f"member {info.filename!r} holds an object (pickled) array, which "
                         "perceptron_c refuses to load; its files hold plain arrays only")
    if any(d < 0 for d in shape):
        raise ValueError(f"member {info.filename!r} declares shape {shape}")
    declared = math.prod(shape) * dtype.itemsize
    if header + declared != info.file_size:
        raise ValueError(f"member {info.filename!r} declares {declared} bytes of data but "
                         f"holds {info.file_size - header}")
    with archive.open(info) as member:
        return np.lib.format.read_array(member, allow_pickle=False)


# what zipfile raises on a damaged archive (NotImplementedError: a "version needed to
# extract" beyond its own, as one flipped bit makes it), besides zipfile.BadZipFile (added
# where zipfile is imported, on first use)
_ZIP_ERRORS: tuple[type[BaseException], ...] = (
    OSError, EOFError, ValueError, NotImplementedError, RuntimeError, MemoryError,
    OverflowError, struct.error)


def read_npz(path: str | os.PathLike[str], what: str) -> dict[str, np.ndarray]:
    """Every array of an npz file, read member by member without pickle.

    The file is opened here and always closed; a named pipe or a folder is refused before it
    is opened.

    Parameters
    ----------
    path : str or path-like
        The ``.npz`` file.
    what : str
        What the file should be, for the error messages (``"perceptron_c model"``).

    Returns
    -------
    dict of str to ndarray
        Each member's array, by its name without ``.npy``.

    Raises
    ------
    FileFormatError
        If ``path`` is not a regular file, not a readable npz archive, or a member is
        damaged, encrypted, compressed more than 64-fold, or holds an object array.
    FileNotFoundError
        If ``path`` does not exist.
    """
    import zipfile
    import zlib

    zip_errors: tuple[type[BaseException], ...] = (zipfile.BadZipFile, *_ZIP_ERRORS)
    member_errors: tuple[type[BaseException], ...] = (*zip_errors, zlib.error, SyntaxError)
    check_regular_file(path, what)
    with open(path, "rb") as handle:
        try:
            archive = zipfile.ZipFile(handle)
        except zip_errors as exc:
            handle.seek(0)
            if handle.read(6) == b"\x93NUMPY":
                raise FileFormatError(f"{path}: not a {what} file (a single .npy array, not "
                                      "an .npz archive)") from None
            raise FileFormatError(f"{path}: not a readable {what} (.npz) file: {exc}") from None
        with archive:
            infos = archive.infolist()
            names = [info.filename for info in infos]
            if len(set(names)) != len(names):
                raise FileFormatError(f"{path}: corrupt {what} file (duplicate members)")
            arrays = {}
            for info in infos:
                if not info.filename.endswith(".npy"):
                    raise FileFormatError(f"{path}: corrupt {what} file (member "
                                          f"{info.filename!r} is not a .npy array)")
                try:
                    arrays[info.filename[:-4]] = _read_member(archive, info)
                except member_errors as exc:
                    raise FileFormatError(f"{path}: corrupt {what} file: {exc}") from None
            return arrays
