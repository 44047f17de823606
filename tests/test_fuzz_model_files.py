"""A model-file fuzzer: mutations of real saved models of every kind, each either refused
with FileFormatError or loaded into a model that behaves exactly alike on both twins.

Mutations: a member dropped, reshaped, retyped, or set to an extreme value (0, -1, 2^31,
2^53, 2^62, the int64 limits, +-inf, NaN, +-1e308, the smallest subnormal), members added
or duplicated, the archive truncated, a byte flipped, a member deflated. Never another
exception type, never a crash, never an unpickle (the loader reads no object array). The
number of mutants grows with the profile (conftest.examples).

CRFsuite's ``.crfsuite`` files (written by the ap, pa and arow trainers) go through their own
mutations: bits flipped, 32-bit words set to extremes (in the header and anywhere), the file
truncated. Each mutant is refused with FileFormatError naming the file, or opens into a
consistent model that tags, scores and gives marginals alike on both twins."""
import io as stdio
import struct
import zipfile

import numpy as np
import pytest
from conftest import HAVE_C, examples

import perceptron_c
from perceptron_c import FileFormatError, KernelPerceptron, Perceptron, VotedPerceptron, _backend

EXTREMES = [0, -1, 1, 2**31, 2**53, 2**62, 2**63 - 1, -(2**63), np.inf, -np.inf, np.nan,
            1e308, -1e308, 5e-324]
DTYPES = [np.float64, np.float32, np.int64, np.int32, np.uint64, np.uint8, np.bool_, "U3",
          "S3"]


def _models():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 5))
    y3, y2 = rng.integers(0, 3, 40), rng.integers(0, 2, 40)
    bits = (rng.random((40, 70)) < 0.3).astype(int)
    out = {
        "perceptron": (Perceptron(random_state=0), X, y2),
        "averaged-argmax": (Perceptron(average=True, random_state=0), X, y3),
        "ovr-normalized": (Perceptron(multiclass="ovr", normalize=True, random_state=0), X,
                           y3),
        "kernel-rbf": (KernelPerceptron(random_state=0, max_iter=5), X, y2),
        "kernel-conj-avg": (KernelPerceptron(kernel="conjunction", average=True,
                                             max_iter=5), bits, y3),
        "kernel-precomputed": (KernelPerceptron(kernel="precomputed", max_iter=5), X @ X.T,
                               y2),
        "voted": (VotedPerceptron(max_iter=3, random_state=0), X, y3),
        "voted-conj": (VotedPerceptron(kernel="conjunction", max_iter=3), bits, y2),
        "voted-rbf": (VotedPerceptron(kernel="rbf", max_iter=3), X, y2),
    }
    return {name: (model.fit(Xm, ym), Xm) for name, (model, Xm, ym) in out.items()}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models")
    result = {}
    for name, (model, X) in _models().items():
        path = model.save(folder / name)
        with open(path, "rb") as handle:
            result[name] = (handle.read(), X)
    return result


def _members(raw):
    with zipfile.ZipFile(stdio.BytesIO(raw)) as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


def _archive(members, compress=None):
    buffer = stdio.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for i, (name, data) in enumerate(members):
            kind = compress(i) if compress else zipfile.ZIP_STORED
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=kind)
    return buffer.getvalue()


def _npy(array):
    buffer = stdio.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _array(data):
    return np.load(stdio.BytesIO(data), allow_pickle=False)


def _mutant(raw, rng):
    """(description, bytes) of one random mutation of the model file raw."""
    members = _members(raw)
    i = int(rng.integers(len(members)))
    name, data = members[i]
    kind = int(rng.integers(9))
    if kind == 0:
        return f"drop {name}", _archive(members[:i] + members[i + 1:])
    if kind == 6:
        cut = int(rng.integers(len(raw)))
        return f"truncate at {cut}", raw[:cut]
    if kind == 7:
        flipped = bytearray(raw)
        at = int(rng.integers(len(raw)))
        flipped[at] ^= 1 << int(rng.integers(8))
        return f"flip a bit of byte {at}", bytes(flipped)
    if kind == 8:
        extra = members + [(f"state/x{int(rng.integers(3))}.npy", _npy(np.zeros(3)))]
        return "add a member", _archive(extra, lambda j: zipfile.ZIP_DEFLATED)
    array = _array(data)
    if kind == 1:
        new = array.reshape(-1)[: max(0, array.size - 1)] if rng.random() < 0.5 else \
            array.reshape((1,) + array.shape)
        what = f"reshape {name} {array.shape} -> {new.shape}"
    elif kind == 2:
        dtype = DTYPES[int(rng.integers(len(DTYPES)))]
        try:
            with np.errstate(all="ignore"):
                new = array.astype(dtype)
        except (ValueError, TypeError, OverflowError):
            return f"retype {name} (impossible)", raw
        what = f"retype {name} {array.dtype} -> {new.dtype}"
    else:
        value = EXTREMES[int(rng.integers(len(EXTREMES)))]
        new = array.copy()
        if new.size == 0 or new.dtype.kind in "US":
            return f"extreme {name} (nothing to set)", raw
        with np.errstate(all="ignore"):
            try:
                if kind in (3, 4):
                    new.flat[int(rng.integers(new.size))] = value
                else:
                    new[...] = value
            except (ValueError, OverflowError, TypeError):
                return f"extreme {name} (not representable)", raw
        what = f"set {'one' if kind in (3, 4) else 'every'} entry of {name} to {value!r}"
    members[i] = (name, _npy(new))
    return what, _archive(members)


def _behaviour(model, X):
    """What the loaded model does on X: its predictions and decisions, or the error."""
    try:
        return ("ok", model.predict(X).tolist(), model.decision_function(X).tolist())
    except ValueError as exc:
        return ("error", type(exc).__name__, str(exc))


def _alike_on_both_twins(behaviour, model, inputs, where):
    """``behaviour(model, inputs)`` on the default twin and on the Python twin: equal where
    the C core is in use; any exception fails the test, naming the mutant (``where``)."""
    try:
        c_side = behaviour(model, inputs)
        with _backend.using("python"):
            py_side = behaviour(model, inputs)
    except BaseException as exc:
        pytest.fail(f"{where}: the model raised {type(exc).__name__}: {exc}")
    if HAVE_C:
        assert c_side == py_side, f"{where}: the twins differ"


def test_every_mutant_is_refused_or_behaves_alike_on_both_twins(saved, tmp_path):
    rng = np.random.default_rng(20261123)
    names = sorted(saved)
    counts = {"refused": 0, "loaded": 0}
    n = examples(450)
    for k in range(n):
        name = names[k % len(names)]
        raw, X = saved[name]
        what, data = _mutant(raw, rng)
        path = tmp_path / f"m{k}.npz"
        path.write_bytes(data)
        try:
            model = perceptron_c.load(path)
        except FileFormatError:
            counts["refused"] += 1
            continue
        except BaseException as exc:
            pytest.fail(f"{name}: {what}: load raised {type(exc).__name__}: {exc}")
        counts["loaded"] += 1
        _alike_on_both_twins(_behaviour, model, X, f"{name}: {what}: loaded")
    assert counts["refused"] > n // 4 and counts["loaded"] > n // 10, counts


@pytest.fixture(scope="module")
def crfsuite_files():
    import perceptron_c.crfsuite as crfsuite

    rng = np.random.default_rng(36)
    sentences = []
    for _ in range(60):
        words = [f"w{k}" for k in rng.integers(0, 25, int(rng.integers(1, 8)))]
        sentences.append(([{"w": w, "s": w[-1:], "bias": 1.0} for w in words],
                          [f"T{int(w[1:]) % 4}" for w in words]))
    files = {}
    for algorithm in ("ap", "pa", "arow"):
        trainer = crfsuite.Trainer(algorithm, {"max_iterations": 3}, verbose=False)
        for x, y in sentences:
            trainer.append(x, y)
        files[algorithm] = crfsuite_bytes(trainer)
    return files, [x for x, _ in sentences[:6]]


def crfsuite_bytes(trainer):
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "m.crfsuite")
        trainer.train(path)
        with open(path, "rb") as handle:
            return handle.read()


def _crfsuite_mutant(raw, rng, k):
    extremes = [0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 48, 2**20]
    data = bytearray(raw)
    if k % 3 == 0:
        for _ in range(int(rng.integers(1, 4))):
            data[int(rng.integers(0, len(data)))] ^= 1 << int(rng.integers(0, 8))
    elif k % 3 == 1:
        at = int(rng.integers(0, len(data) - 4)) if rng.random() < 0.5 else int(
            rng.integers(0, 12)) * 4
        data[at:at + 4] = struct.pack("<I", extremes[int(rng.integers(0, len(extremes)))])
    else:
        del data[int(rng.integers(0, len(data))):]
    return bytes(data)


def _crfsuite_behaviour(tagger, xs):
    out = []
    for x in xs:
        try:
            labels = tagger.tag(x)
            scores = [tagger.probability(labels)] + [tagger.marginal(y, 0)
                                                     for y in tagger.labels()]
            out.append(("ok", labels, [repr(round(s, 9)) for s in scores]))  # (nan == nan)
        except ValueError as exc:
            out.append(("error", str(exc)))
    return out


def test_every_crfsuite_mutant_is_refused_or_tags_alike_on_both_twins(crfsuite_files):
    import perceptron_c.crfsuite as crfsuite

    files, xs = crfsuite_files
    rng = np.random.default_rng(20261206)
    names = sorted(files)
    counts = {"refused": 0, "loaded": 0}
    n = examples(3000)
    for k in range(n):
        name = names[k % len(names)]
        data = _crfsuite_mutant(files[name], rng, k)
        tagger = crfsuite.Tagger()
        try:
            tagger.open_inmemory(data)
        except FileFormatError as exc:
            assert "<in-memory model>" in str(exc)
            counts["refused"] += 1
            continue
        except BaseException as exc:
            pytest.fail(f"{name} mutant {k}: open raised {type(exc).__name__}: {exc}")
        counts["loaded"] += 1
        tagger._need().model.check()
        _alike_on_both_twins(_crfsuite_behaviour, tagger, xs, f"{name} mutant {k}: opened")
    assert counts["refused"] > n // 4 and counts["loaded"] > n // 20, counts
