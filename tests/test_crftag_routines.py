"""CRFsuite tagging (_crftag_c against its spec _crftag_py): names read, state scores, Viterbi."""
import collections
import itertools

import numpy as np
import pytest
from conftest import BACKENDS, HAVE_C, _module

from perceptron_c.crfsuite import ItemSequence
from perceptron_c.crfsuite import _decode as dec
from perceptron_c.crfsuite._model import CRFModel


def _tables(rng, L, A, grid):
    """A random model's tables; ``grid`` small dyadic weights (many ties) or wide floats."""
    pairs = [(a, lab) for a in range(A) for lab in range(L) if rng.random() < 0.6]
    n = len(pairs)
    weight = (rng.integers(-3, 4, n) / 4.0) if grid else rng.normal(size=n) * 10.0
    trans = (rng.integers(-2, 3, (L, L)) / 2.0) if grid else rng.normal(size=(L, L))
    model = CRFModel(labels=[f"y{i}" for i in range(L)], attributes=[f"a{i}" for i in range(A)],
                     state_attr=np.array([p[0] for p in pairs], dtype=np.int32),
                     state_label=np.array([p[1] for p in pairs], dtype=np.int32),
                     state_weight=np.asarray(weight, dtype=np.float64),
                     transitions=np.asarray(trans, dtype=np.float64))
    return dec.Tables.from_model(model)


def _decoder(backend, t):
    return _module(backend, "_crftag").Decoder(t.attr_index, t.labels, t.attr_ptr,
                                               t.attr_label, t.attr_weight, t.trans)


def _name(rng, A):
    return f"a{int(rng.integers(0, A + 2))}"  # a{A}, a{A+1}: names the model does not know


def _items(rng, A, T, grid):
    """Items in every form python-crfsuite reads (unknown names among them)."""
    out = []
    for _ in range(T):
        form = int(rng.integers(0, 4))
        if form == 0:
            out.append([_name(rng, A) for _ in range(int(rng.integers(0, 5)))])
        elif form == 1:
            value = (lambda: float(rng.integers(-4, 5)) / 2) if grid else rng.normal
            out.append({_name(rng, A): value() for _ in range(int(rng.integers(0, 5)))})
        elif form == 2:  # "a": "1" is the name "a:1"; nested dicts and lists: "a:b"
            out.append({"a": str(int(rng.integers(0, 3))), "a:": {"x": 1.0}, "up": True,
                        _name(rng, A): False, "b": [_name(rng, A)], "n": 2})
        else:
            out.append(collections.OrderedDict([(_name(rng, A).encode(), 0.5)]))
    return out


def _run(backend, t, items, prepared):
    return _decoder(backend, t).tag(items, prepared)


@pytest.mark.skipif(not HAVE_C, reason="the C core is not in use")
@pytest.mark.parametrize(("seed", "grid"), list(itertools.product(range(30), (True, False))))
def test_twins_tag_equal(seed, grid):
    rng = np.random.default_rng(seed)
    L, A, T = int(rng.integers(1, 7)), int(rng.integers(1, 12)), int(rng.integers(1, 9))
    t = _tables(rng, L, A, grid)
    # the names of form 2 ("a:1", "a::x", "b:a3") known too
    t.attr_index.update({k: i % A for i, k in enumerate(["a:0", "a:1", "a::x", "up", "n"])})
    items = _items(rng, A, T, grid)
    c, py = _run("c", t, items, False), _run("python", t, items, False)
    assert np.array_equal(c[0], py[0]) and c[1:] == py[1:]
    # as the numpy route computes them (crfsuite._decode), to the bit
    pairs = ItemSequence(items)._packed.pairs()
    for backend in BACKENDS:
        m = _module(backend, "_crftag")
        assert m.pack(items, False).pairs() == pairs == m.pack(pairs, True).pairs()
        for arg, prepared in ((pairs, True), (m.pack(items, False), False),
                              (m.pack(pairs, True), True)):
            state, labels, score = _run(backend, t, arg, prepared)
            assert np.array_equal(state, c[0]) and (labels, score) == c[1:]
            assert np.array_equal(_decoder(backend, t).state(arg, prepared), c[0])
            assert _decoder(backend, t).decode(arg, prepared) == c[1:]  # its scores in scratch
    path, score = dec.viterbi(c[0], t.trans)
    assert [t.labels[i] for i in path] == c[1] and score == c[2]


@pytest.mark.parametrize("backend", BACKENDS)
def test_ties_and_nan_go_as_numpy_argmax(backend):
    if backend == "c" and not HAVE_C:
        pytest.skip("the C core is not in use")
    t = _tables(np.random.default_rng(0), 3, 2, True)
    d = _decoder(backend, t)
    flat = np.zeros((4, 3))
    assert d.best(flat)[0] == [t.labels[i] for i in dec.viterbi(flat, t.trans)[0]]
    for row in ([np.nan, 1.0, np.nan], [1.0, np.inf, np.inf], [-np.inf] * 3):
        state = np.array([row, [0.0, 0.0, 0.0]])
        path, score = dec.viterbi(state, t.trans)
        got = d.best(state)
        assert got[0] == [t.labels[i] for i in path]
        assert got[1] == score or (np.isnan(got[1]) and np.isnan(score))


@pytest.mark.parametrize("backend", BACKENDS)
def test_errors(backend):
    if backend == "c" and not HAVE_C:
        pytest.skip("the C core is not in use")
    d = _decoder(backend, _tables(np.random.default_rng(1), 2, 3, True))
    with pytest.raises(TypeError, match="feature name must be str or bytes"):
        d.tag([{1: 1.0}], False)
    with pytest.raises(ValueError, match="at least one item"):
        d.tag([], False)
    with pytest.raises(ValueError, match="state must have shape"):
        d.best(np.zeros((0, 2)))
    assert d.state([], False).shape == (0, 2)
    m = _module(backend, "_crftag")
    with pytest.raises(ValueError, match="at least one item"):
        d.tag(m.pack([], False), False)
    with pytest.raises(ValueError, match="at least one item"):
        d.decode(m.pack([], False), False)
    assert d.state(m.pack([], False), False).shape == (0, 2)
    for bad in ((), ({"a0": 1.0},), "a0", None):
        with pytest.raises(TypeError, match="must be a list"):
            d.tag(bad, False)
        with pytest.raises(TypeError, match="must be a list"):
            d.decode(bad, False)
    with pytest.raises(TypeError, match="feature name must be str or bytes"):
        m.pack([{"a0": 1.0}, [None]], False)
    for bad in ([("a0", "x")], [(None, 1.0)], (("a0", b"1"),)):
        with pytest.raises(TypeError):  # a prepared name is str or bytes, its value a number
            m.pack([bad], True)
    assert m.pack([[["a0", 2]], ((b"a1", True),)], True).pairs() == [[("a0", 2.0)], [("a1", 1.0)]]


_NAMES = ["a", "\u00e9t\u00e9", "\u4e2d\u6587", "\U0001f600x", "", "a:b", "\x00\x7f\x80\uffff"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_pack_reads_every_width_of_str_and_pickles(backend):
    """Names of 1-, 2- and 4-byte code points (and joined "key:value" of mixed widths) are
    read as the twin reads them; a Packed pickles to an equal one; nothing is leaked."""
    if backend == "c" and not HAVE_C:
        pytest.skip("the C core is not in use")
    import pickle
    import sys

    m = _module(backend, "_crftag")
    items = [{k: v for k, v in zip(_NAMES, _NAMES[::-1])}, _NAMES, {"x": {"y": _NAMES[3]}},
             {_NAMES[2].encode(): 2.5, "f": 3, "t": True, "n": np.float32(0.5)}]
    expected = _module("python", "_crftag").pack(items, False).pairs()
    assert expected[0][1] == (_NAMES[1] + ":" + _NAMES[-2], 1.0)
    before = [sys.getrefcount(s) for s in _NAMES]
    for _ in range(3):
        packed = m.pack(items, False)
        assert packed.pairs() == expected and len(packed) == 4
        assert pickle.loads(pickle.dumps(packed)).pairs() == expected
    del packed
    assert [sys.getrefcount(s) for s in _NAMES] == before


@pytest.mark.skipif(not HAVE_C, reason="the C core is not in use")
@pytest.mark.parametrize("seed", range(20))
def test_best_with_ties_infinities_and_nan(seed):
    rng = np.random.default_rng(seed)
    L, T = int(rng.integers(1, 9)), int(rng.integers(1, 7))
    t = _tables(rng, L, 2, True)
    state = rng.integers(-1, 2, (T, L)) / 2.0
    special = rng.random((T, L))
    state[special < 0.1] = np.inf
    state[(special >= 0.1) & (special < 0.2)] = -np.inf
    state[(special >= 0.2) & (special < 0.25)] = np.nan
    with np.errstate(invalid="ignore"):  # inf - inf: the numpy route warns, the twins do not
        path, score = dec.viterbi(state, t.trans)
    expected = [t.labels[i] for i in path]
    for backend in BACKENDS:
        labels, got = _decoder(backend, t).best(state)
        assert labels == expected
        assert got == score or (np.isnan(got) and np.isnan(score))


@pytest.mark.skipif(not HAVE_C, reason="the C core is not in use")
def test_keeping_the_gil_changes_nothing():
    rng = np.random.default_rng(7)
    t = _tables(rng, 5, 9, False)
    items = _items(rng, 9, 40, False)
    c = _module("c", "_crftag")
    before = c._set_nogil_work(10**9)
    try:
        kept = _decoder("c", t).tag(items, False)
    finally:
        c._set_nogil_work(before)
    released = _decoder("c", t).tag(items, False)
    assert np.array_equal(kept[0], released[0]) and kept[1:] == released[1:]
