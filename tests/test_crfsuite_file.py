"""CRFsuite's .crfsuite files: python-crfsuite's read, ours written and read back by it, and
damaged files refused with FileFormatError (a mutation fuzzer over real files)."""
import struct

import numpy as np
import pytest
from crfsuite_corpus import ALGORITHMS, pycrfsuite_files

from perceptron_c import FileFormatError
from perceptron_c.crfsuite._file import hashlittle, read_model, write_model
from perceptron_c.crfsuite._model import CRFModel

pycrfsuite = pytest.importorskip("pycrfsuite")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    paths = pycrfsuite_files(pycrfsuite, tmp_path_factory.mktemp("crfsuite"))
    return {alg: path.read_bytes() for alg, path in paths.items()}


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_python_crfsuite_files_write_back_byte_for_byte(files, algorithm):
    model = read_model(files[algorithm], algorithm)
    assert model.header["magic"] == "lCRF" and model.header["num_features"] == "0"
    assert write_model(model) == files[algorithm]


def test_no_bos_eos_features_in_0_12(files):
    # crf1d's label reference chunk has L + 2 entries; the last two are empty (offset 0)
    data = files["ap"]
    off = struct.unpack_from("<I", data, 44 - 4)[0]
    tag, _size, num = struct.unpack_from("<4sII", data, off)
    L = read_model(data).transitions.shape[0]
    assert tag == b"LFRF" and num == L + 2
    assert struct.unpack_from("<2I", data, off + 12 + 4 * L) == (0, 0)


def _random_model(rng, L, A):
    pairs = sorted({(int(a), int(lab)) for a, lab in zip(rng.integers(0, A, 3 * A),
                                                           rng.integers(0, L, 3 * A))})
    trans = rng.normal(size=(L, L))
    trans[rng.random((L, L)) < 0.2] = 0.0
    return CRFModel(labels=[f"L{i}é" for i in range(L)],
                    attributes=[f"a{i}:x" for i in range(A)],
                    state_attr=np.array([p[0] for p in pairs], dtype=np.int32),
                    state_label=np.array([p[1] for p in pairs], dtype=np.int32),
                    state_weight=rng.normal(size=len(pairs)), transitions=trans)


@pytest.mark.parametrize("seed", range(4))
def test_our_files_tag_alike_in_python_crfsuite(seed):
    import perceptron_c.crfsuite as ours
    rng = np.random.default_rng(seed)
    model = _random_model(rng, int(rng.integers(1, 7)), int(rng.integers(1, 300)))
    data = write_model(model)
    theirs, mine = pycrfsuite.Tagger(), ours.Tagger()
    theirs.open_inmemory(data)
    mine.open_inmemory(data)
    assert theirs.labels() == model.labels
    for _ in range(30):
        xseq = [{model.attributes[a]: float(v) for a, v in zip(
            rng.integers(0, len(model.attributes), 6), rng.normal(size=6))}
            for _ in range(int(rng.integers(1, 12)))]
        assert theirs.tag(xseq) == mine.tag(xseq)
    back = read_model(data)
    assert back.labels == model.labels and back.attributes == model.attributes
    assert np.array_equal(back.transitions, model.transitions)
    assert np.array_equal(back.state_weight, model.state_weight)


def test_hashlittle_known_values():
    # lookup3.c's own self-test values (driver5: hashlittle("", 0, 0) and of
    # "Four score and seven years ago" with seeds 0 and 1)
    assert hashlittle(b"") == 0xDEADBEEF
    assert hashlittle(b"Four score and seven years ago") == 0x17770551
    assert hashlittle(b"Four score and seven years ago", 1) == 0xCD628161


def test_refusals_name_the_problem(files):
    data = files["ap"]
    for bad, words in [(b"", "shorter"), (b"xCRF" + data[4:], "magic"),
                       (data[:len(data) // 2], "truncated"),
                       (data[:8] + b"XXXX" + data[12:], "type")]:
        with pytest.raises(FileFormatError, match=words):
            read_model(bad, "bad.crfsuite")
