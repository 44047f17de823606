"""CRFsuite 0.12's ``crf1d`` model file (``.crfsuite``), read and written.

The layout, as CRFsuite writes it (``lib/crf/src/crf1d_model.c``: ``crf1dmw_*`` and
``crf1dm_new``; ``lib/crf/src/crf1d_encode.c``: ``crf1de_save_model``), every number a
little-endian uint32 unless said otherwise:

- a 48-byte header: magic ``lCRF``, file size, type ``FOMC``, version (100), the numbers of
  features, labels and attributes, and the offsets of the feature chunk, the label and
  attribute dictionaries and the label and attribute reference chunks;
- the feature chunk ``FEAT``: chunk size, count, then 20 bytes per feature: type (0 a state
  feature, 1 a transition), source (the attribute id, or the previous label), destination
  (the label), weight (a little-endian float64);
- two CQDB databases (``lib/cqdb/src/cqdb.c``, ``include/cqdb.h``): a 24-byte header
  (``CQDB``, chunk size, flag, byte-order mark 0x62445371, the number and the offset of the
  backward links), 256 hash-table references (offset, slots), the records (id, key size,
  the key with its NUL), the 256 open-addressed hash tables (hash, record offset; twice as
  many slots as records, the first slot at (hash >> 8) mod slots), and the backward links
  (id -> record offset). Keys hash with Bob Jenkins' lookup3 ``hashlittle`` (seed 0) over
  the key and its NUL; the table is hash mod 256;
- the label references ``LFRF`` and attribute references ``AFRF``, each aligned to 4 bytes:
  chunk size, count, one absolute file offset per label (attribute), then at each offset a
  count and that many feature ids. CRFsuite 0.12 writes L + 2 label offsets, the last two 0:
  places once meant for BOS and EOS transitions, which crf1d no longer has (its tagger,
  ``crf1d_tag.c``, reads only the first L). So the model is state features plus an L x L
  transition matrix, nothing at the ends.

CRFsuite's reader trusts the file. This one checks every count and offset against the
file's size before it reads (so nothing it allocates is larger than the file), and every
feature against the dictionaries; anything wrong is a `FileFormatError` that names the
file and the problem.
"""
from __future__ import annotations

import struct

import numpy as np

from ..exceptions import FileFormatError
from ._model import CRFModel

__all__ = ["read_model", "write_model", "hashlittle"]

HEADER_SIZE, CHUNK_SIZE, FEATURE_SIZE = 48, 12, 20
CQDB_HEADER, CQDB_TABLES, CQDB_BOM = 24, 256, 0x62445371
CQDB_DATA = CQDB_HEADER + 8 * CQDB_TABLES
_FEATURE = np.dtype([("type", "<u4"), ("src", "<u4"), ("dst", "<u4"), ("weight", "<f8")])
_HEADER_FIELDS = ("num_features", "num_labels", "num_attrs", "off_features", "off_labels",
                  "off_attrs", "off_labelrefs", "off_attrrefs")
_M32 = 0xFFFFFFFF


def _rot(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & _M32


def hashlittle(key: bytes, initval: int = 0) -> int:
    """Bob Jenkins' lookup3 ``hashlittle`` (2006, public domain), the hash CQDB keys its
    tables with: 12-byte blocks mixed, the last (zero-padded) block through ``final``."""
    n = len(key)
    a = b = c = (0xDEADBEEF + n + initval) & _M32
    if n == 0:
        return c
    padded = key + b"\0" * ((-n) % 12)
    words = struct.unpack(f"<{len(padded) // 4}I", padded)
    last = len(words) - 3
    for i in range(0, last, 3):  # every block but the last: mix
        a, b, c = (a + words[i]) & _M32, (b + words[i + 1]) & _M32, (c + words[i + 2]) & _M32
        a = ((a - c) & _M32) ^ _rot(c, 4); c = (c + b) & _M32  # noqa: E702
        b = ((b - a) & _M32) ^ _rot(a, 6); a = (a + c) & _M32  # noqa: E702
        c = ((c - b) & _M32) ^ _rot(b, 8); b = (b + a) & _M32  # noqa: E702
        a = ((a - c) & _M32) ^ _rot(c, 16); c = (c + b) & _M32  # noqa: E702
        b = ((b - a) & _M32) ^ _rot(a, 19); a = (a + c) & _M32  # noqa: E702
        c = ((c - b) & _M32) ^ _rot(b, 4); b = (b + a) & _M32  # noqa: E702
    a, b, c = (a + words[last]) & _M32, (b + words[last + 1]) & _M32, (
        c + words[last + 2]) & _M32
    c = (c ^ b) - _rot(b, 14) & _M32
    a = (a ^ c) - _rot(c, 11) & _M32
    b = (b ^ a) - _rot(a, 25) & _M32
    c = (c ^ b) - _rot(b, 16) & _M32
    a = (a ^ c) - _rot(c, 4) & _M32
    b = (b ^ a) - _rot(a, 14) & _M32
    c = (c ^ b) - _rot(b, 24) & _M32
    return c


# -- reading ------------------------------------------------------------------------------

class _Reader:
    """The file's bytes with checked reads; ``name`` goes into every error."""

    def __init__(self, data: bytes, name: str) -> None:
        self.data, self.name = data, name
        self.u8 = np.frombuffer(data, dtype=np.uint8)

    def fail(self, what: str) -> FileFormatError:
        return FileFormatError(f"{self.name}: not a valid CRFsuite model file: {what}")

    def u32(self, offset: int, what: str) -> int:
        if offset < 0 or offset + 4 > len(self.data):
            raise self.fail(f"{what} lies beyond the end of the file")
        return int.from_bytes(self.data[offset:offset + 4], "little")

    def span(self, offset: int, size: int, what: str) -> None:
        if offset < 0 or size < 0 or offset + size > len(self.data):
            raise self.fail(f"{what} (offset {offset}, {size} bytes) lies beyond the end "
                            f"of the file ({len(self.data)} bytes)")

    def u32_at(self, offsets: np.ndarray) -> np.ndarray:
        """uint32 values at byte offsets already checked to lie in the file (any alignment)."""
        o = offsets.astype(np.int64)
        b = self.u8
        return (b[o].astype(np.uint32) | b[o + 1].astype(np.uint32) << 8
                | b[o + 2].astype(np.uint32) << 16 | b[o + 3].astype(np.uint32) << 24)


def _header(r: _Reader) -> dict:
    if len(r.data) < HEADER_SIZE:
        raise r.fail(f"{len(r.data)} bytes, shorter than the 48-byte header")
    if r.data[:4] != b"lCRF":
        raise r.fail("the file does not start with the magic 'lCRF'")
    size = r.u32(4, "the header")
    if r.data[8:12] != b"FOMC":
        raise r.fail(f"model type {r.data[8:12]!r}, expected b'FOMC' (crf1d)")
    if size > len(r.data) or size < HEADER_SIZE:
        raise r.fail(f"the header gives a size of {size} bytes, the file has "
                     f"{len(r.data)} (truncated?)")
    h = dict(zip(("version",) + _HEADER_FIELDS,
                 struct.unpack_from("<9I", r.data, 12)))
    h["size"] = size
    r.data, r.u8 = r.data[:size], r.u8[:size]  # nothing past the declared size is read
    return h


def _cqdb(r: _Reader, offset: int, count: int, what: str) -> list[str]:
    """The strings of ids 0 .. count - 1 of the CQDB at ``offset``, by its backward links."""
    r.span(offset, CQDB_DATA, f"the {what} dictionary header")
    if r.data[offset:offset + 4] != b"CQDB":
        raise r.fail(f"the {what} dictionary does not start with 'CQDB'")
    size, _flag, bom, bwd_size, bwd_offset = struct.unpack_from("<5I", r.data, offset + 4)
    if bom != CQDB_BOM:
        raise r.fail(f"the {what} dictionary has a wrong byte-order mark")
    r.span(offset, size, f"the {what} dictionary")
    slots = np.frombuffer(r.data, "<u4", 2 * CQDB_TABLES, offset + CQDB_HEADER)[1::2]
    records = int((slots // 2).sum())  # CRFsuite reads this many backward links
    if count > min(bwd_size, records) or (count and not bwd_offset):
        raise r.fail(f"the {what} dictionary holds fewer strings than the header's {count}")
    if bwd_offset + 4 * count > size:
        raise r.fail(f"the {what} dictionary's backward links lie outside it")
    links = np.frombuffer(r.data, "<u4", count, offset + bwd_offset).astype(np.int64)
    if count and (links.min() < CQDB_DATA or links.max() + 8 > size):
        raise r.fail(f"a {what} string lies outside its dictionary")
    fast = _cqdb_strings(r, offset, links, size)
    if fast is not None:
        return fast
    out, seen = [], set()  # (a damaged dictionary: string by string, to name the bad one)
    for i, link in enumerate(links.tolist()):
        start = offset + link + 8
        ksize = int.from_bytes(r.data[start - 4:start], "little")
        if ksize < 1 or link + 8 + ksize > size:
            raise r.fail(f"{what} {i}'s string lies outside its dictionary")
        raw = r.data[start:start + ksize].split(b"\0", 1)[0]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise r.fail(f"{what} {i} is not UTF-8") from None
        if text in seen:
            raise r.fail(f"the {what} {text!r} appears twice")
        seen.add(text)
        out.append(text)
    return out


def _cqdb_strings(r: _Reader, offset: int, links: np.ndarray, size: int) -> list[str] | None:
    """The strings of a sound dictionary in one decoding (each key ends with its NUL, none
    inside, all UTF-8, none twice); None when one is not, for `_cqdb`'s loop to name it."""
    if not links.shape[0]:
        return []
    start = offset + links + 8
    ksize = r.u32_at(start - 4).astype(np.int64)
    if ksize.min() < 1 or (links + 8 + ksize).max() > size:
        return None
    first = np.cumsum(ksize) - ksize
    at = np.repeat(start - first, ksize) + np.arange(int(ksize.sum()), dtype=np.int64)
    blob = r.u8[at]
    ends = first + ksize - 1
    if blob[ends].any() or np.count_nonzero(blob == 0) != links.shape[0]:
        return None
    try:
        out = blob.tobytes().decode("utf-8").split("\0")[:-1]
    except UnicodeDecodeError:
        return None
    return out if len(set(out)) == len(out) else None


def _features(r: _Reader, h: dict) -> np.ndarray:
    # The count is the chunk's: CRFsuite's writer leaves the header's num_features at 0.
    off = h["off_features"]
    r.span(off, CHUNK_SIZE, "the feature chunk header")
    chunk, _size, n = struct.unpack_from("<4sII", r.data, off)
    if chunk != b"FEAT":
        raise r.fail(f"the feature chunk has the tag {chunk!r}, expected b'FEAT'")
    r.span(off, CHUNK_SIZE + FEATURE_SIZE * n, "the feature chunk")
    feats = np.frombuffer(r.data, _FEATURE, n, off + CHUNK_SIZE)
    if not np.isfinite(feats["weight"]).all():
        raise r.fail("a feature's weight is not finite")
    return feats


def _refs(r: _Reader, off: int, tag: bytes, n: int, n_features: int,
          what: str) -> tuple[np.ndarray, np.ndarray]:
    """For the first n entries of a reference chunk: (entry of each reference, feature id)."""
    r.span(off, CHUNK_SIZE, f"the {what} reference chunk header")
    chunk, _size, num = struct.unpack_from("<4sII", r.data, off)
    if chunk != tag or num < n:
        raise r.fail(f"the {what} reference chunk (tag {chunk!r}, {num} entries) does not "
                     f"match the header's {n}")
    r.span(off + CHUNK_SIZE, 4 * n, f"the {what} reference offsets")
    starts = np.frombuffer(r.data, "<u4", n, off + CHUNK_SIZE).astype(np.int64)
    if n and starts.max() + 4 > len(r.data):
        raise r.fail(f"a {what} reference list lies beyond the end of the file")
    counts = r.u32_at(starts).astype(np.int64)
    if counts.sum() > n_features:  # each feature is referenced once: no blow-up by overlaps
        raise r.fail(f"the {what} references name more features than the file holds")
    if n and (starts + 4 + 4 * counts).max() > len(r.data):
        raise r.fail(f"a {what} reference list runs past the end of the file")
    owner = np.repeat(np.arange(n, dtype=np.int64), counts)
    first = np.cumsum(counts) - counts
    pos = np.arange(owner.shape[0], dtype=np.int64) - np.repeat(first, counts)
    fids = r.u32_at(np.repeat(starts + 4, counts) + 4 * pos).astype(np.int64)
    if fids.shape[0] and fids.max() >= n_features:
        raise r.fail(f"a {what} reference names feature {int(fids.max())}, of "
                     f"{n_features}")
    return owner, fids


def read_model(data: bytes, name: str = "<memory>") -> CRFModel:
    """The `CRFModel` in the bytes of a ``.crfsuite`` file; `FileFormatError` naming
    ``name`` when they are not one."""
    r = _Reader(bytes(data), name)
    h = _header(r)
    L, A = h["num_labels"], h["num_attrs"]
    feats = _features(r, h)
    labels = _cqdb(r, h["off_labels"], L, "label")
    attributes = _cqdb(r, h["off_attrs"], A, "attribute")
    kind, src = feats["type"].astype(np.int64), feats["src"].astype(np.int64)
    dst = feats["dst"].astype(np.int64)
    if dst.shape[0] and dst.max() >= L:
        raise r.fail(f"a feature's label {int(dst.max())} is out of range ({L} labels)")
    if L * L > max(1 << 24, len(r.data)):  # the transition matrix is dense
        raise r.fail(f"{L} labels: more than a dense transition matrix is allowed")
    owner, fid = _refs(r, h["off_labelrefs"], b"LFRF", L, dst.shape[0], "label")
    if np.any(kind[fid] != 1) or np.any(src[fid] != owner):
        raise r.fail("a label reference names a feature that is not its transition")
    transitions = np.zeros((L, L), dtype=np.float64)
    transitions[owner, dst[fid]] = feats["weight"][fid]  # as crf1d_tag.c: the last one wins
    owner, fid = _refs(r, h["off_attrrefs"], b"AFRF", A, dst.shape[0], "attribute")
    if np.any(kind[fid] != 0) or np.any(src[fid] != owner):
        raise r.fail("an attribute reference names a feature that is not its state feature")
    order = np.lexsort((dst[fid], owner))  # stable: duplicates keep the file's order
    header = {"magic": "lCRF", "size": str(h["size"]), "type": "FOMC",
              "version": str(h["version"])}
    header.update({k: str(h[k]) if k.startswith("num") else f"0x{h[k]:X}"
                   for k in _HEADER_FIELDS})
    model = CRFModel(labels=labels, attributes=attributes,
                     state_attr=owner[order].astype(np.int32),
                     state_label=dst[fid][order].astype(np.int32),
                     state_weight=feats["weight"][fid][order].astype(np.float64),
                     transitions=transitions, header=header)
    return model


# -- writing ------------------------------------------------------------------------------

def _cqdb_bytes(strings: list[str]) -> bytes:
    """A CQDB of ``strings`` (id = position), as ``cqdb_writer_put``/``_close`` lay it out
    (every offset in it relative to its start)."""
    records: list[bytes] = []
    tables: list[list[tuple[int, int]]] = [[] for _ in range(CQDB_TABLES)]
    cur = CQDB_DATA
    bwd = []
    for i, text in enumerate(strings):
        key = text.encode("utf-8") + b"\0"
        hv = hashlittle(key)
        records.append(struct.pack("<II", i, len(key)) + key)
        tables[hv % CQDB_TABLES].append((hv, cur))
        bwd.append(cur)
        cur += 8 + len(key)
    refs, buckets = [], []
    for table in tables:
        n = 2 * len(table)
        refs.append((cur if table else 0, n))
        slots = [(0, 0)] * n
        for hv, offset in table:
            k = (hv >> 8) % n
            while slots[k][1] != 0:
                k = (k + 1) % n
            slots[k] = (hv, offset)
        buckets.append(b"".join(struct.pack("<II", *s) for s in slots))
        cur += 8 * n
    body = b"".join(records) + b"".join(buckets)
    bwd_offset = cur if strings else 0
    tail = struct.pack(f"<{len(bwd)}I", *bwd)
    size = CQDB_DATA + len(body) + len(tail)
    head = struct.pack("<4s5I", b"CQDB", size, 0, CQDB_BOM, len(strings), bwd_offset)
    return head + b"".join(struct.pack("<II", *ref) for ref in refs) + body + tail


def _refs_bytes(tag: bytes, lists: list[np.ndarray], base: int, extra: int) -> bytes:
    """A reference chunk at ``base`` (aligned): the offsets (plus ``extra`` zeros), then the
    lists."""
    pos = base + CHUNK_SIZE + 4 * (len(lists) + extra)
    offsets, body = [], []
    for fids in lists:
        offsets.append(pos)
        body.append(struct.pack("<I", len(fids)) + np.asarray(fids, "<u4").tobytes())
        pos += 4 + 4 * len(fids)
    head = struct.pack(f"<4sII{len(offsets) + extra}I", tag, pos - base,
                       len(offsets) + extra, *offsets, *([0] * extra))
    return head + b"".join(body)


def write_model(model: CRFModel) -> bytes:
    """The ``.crfsuite`` file of ``model``, laid out as CRFsuite 0.12 writes it: the state
    features in the model's order, then the transitions of nonzero weight row by row; the
    header's num_features 0, as CRFsuite leaves it."""
    model.check()
    if any("\0" in text for text in (*model.labels, *model.attributes)):
        raise ValueError("CRF model: a label or attribute contains a NUL character, which "
                         "CRFsuite's dictionaries cannot hold")
    L, A = len(model.labels), len(model.attributes)
    ti, tj = np.nonzero(model.transitions)
    n_state = model.state_attr.shape[0]
    feats = np.zeros(n_state + ti.shape[0], dtype=_FEATURE)
    feats["type"][n_state:] = 1
    feats["src"] = np.concatenate([model.state_attr, ti])
    feats["dst"] = np.concatenate([model.state_label, tj])
    feats["weight"] = np.concatenate([model.state_weight, model.transitions[ti, tj]])
    out = bytearray(HEADER_SIZE)
    off_features = len(out)
    out += struct.pack("<4sII", b"FEAT", CHUNK_SIZE + FEATURE_SIZE * feats.shape[0],
                       feats.shape[0]) + feats.tobytes()
    off_labels = len(out)
    out += _cqdb_bytes(list(model.labels))
    off_attrs = len(out)
    out += _cqdb_bytes(list(model.attributes))
    fid = np.arange(feats.shape[0], dtype=np.int64)
    by_label = np.searchsorted(ti, np.arange(L + 1))
    by_attr = np.searchsorted(model.state_attr, np.arange(A + 1))
    out += b"\0" * (-len(out) % 4)
    off_labelrefs = len(out)
    out += _refs_bytes(b"LFRF", [fid[n_state + by_label[i]:n_state + by_label[i + 1]]
                                 for i in range(L)], off_labelrefs, 2)
    out += b"\0" * (-len(out) % 4)
    off_attrrefs = len(out)
    out += _refs_bytes(b"AFRF", [fid[by_attr[a]:by_attr[a + 1]] for a in range(A)],
                       off_attrrefs, 0)
    out[:HEADER_SIZE] = struct.pack("<4sI4s9I", b"lCRF", len(out), b"FOMC", 100,
                                    0, L, A, off_features, off_labels,
                                    off_attrs, off_labelrefs, off_attrrefs)
    return bytes(out)
