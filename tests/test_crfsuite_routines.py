"""CRFsuite's epoch routines (ap, pa, arow): both twins give the same weights, state, count and
loss bit for bit on random data, epoch after epoch; they check their arguments alike."""
import ctypes

import numpy as np
import pytest
from conftest import BACKENDS, _module

from perceptron_c.crfsuite import _online as online

A = 15
VALUES = [1.0, 0.5, 2.0, 0.3, -1.25, 1e-3]
UNIT = [1.0, 1.0, 1.0, 0.0, -1.0]  # (PA's C twin leaves out the features both paths share)


def _instances(rng, n, L, longest=8, values=VALUES):
    out = []
    for _ in range(n):
        T = int(rng.integers(0 if rng.random() < 0.05 else 1, longest))
        lens = rng.integers(0, 5, T)
        out.append(online.Instance(
            aids=rng.integers(0, A, lens.sum()).astype(np.int64),
            values=rng.choice(values, lens.sum()), item=np.repeat(np.arange(T), lens),
            ends=np.cumsum(lens), labels=rng.integers(0, L, T).astype(np.int64), group=0))
    return out


def _problem(seed, L=3, n=30, values=VALUES):
    rng = np.random.default_rng(seed)
    data = _instances(rng, n, L, values=values)
    feats = online.generate_features([d for d in data if d.labels.shape[0]], A, L,
                                     minfreq=float(seed % 2),
                                     possible_states=seed % 3 == 0,
                                     possible_transitions=seed % 4 == 0)
    return rng, online.flatten(data), feats


def _by_attr(feats):
    """The state mask's rows as CSR (attr_ptr, attr_labels)."""
    a, lab = np.nonzero(feats.state)
    ptr = np.concatenate([[0], np.cumsum(np.bincount(a, minlength=feats.state.shape[0]))])
    return ptr.astype(np.int64), lab.astype(np.int32)


def _run(m, alg, flat, feats, orders, opts, zero=0.0):
    L = feats.trans.shape[0]
    K = A * L + L * L
    w = np.full(K, zero)
    other = np.full(K, opts.get("variance", zero))
    count = np.ones(1, np.int64)
    losses = []
    for order in orders:
        args = (flat.aids, flat.values, flat.ends, flat.labels, flat.offsets, order,
                feats.state.view(np.uint8), feats.trans.view(np.uint8), *_by_attr(feats), w, other,
                count)
        if alg == "ap":
            losses.append(m.ap_epoch(*args))
        elif alg == "pa":
            losses.append(m.pa_epoch(*args, opts["type"], opts["c"], opts["error_sensitive"]))
        else:
            losses.append(m.arow_epoch(*args, opts["gamma"]))
    return w, other, count, losses


CASES = [("ap", {}),
         ("pa", {"type": 0, "c": 1.0, "error_sensitive": True}),
         ("pa", {"type": 1, "c": 0.25, "error_sensitive": False}),
         ("pa", {"type": 2, "c": 3.0, "error_sensitive": True}),
         ("arow", {"variance": 1.0, "gamma": 1.0}),
         ("arow", {"variance": 0.5, "gamma": 0.1})]


@pytest.mark.parametrize(("alg", "opts"), CASES)
@pytest.mark.parametrize("seed", range(6))
def test_twins_equal_bit_for_bit(alg, opts, seed):
    c, py = _module("c", "_crfsuite"), _module("python", "_crfsuite")
    rng, flat, feats = _problem(seed, L=2 + seed % 4)
    n = flat.offsets.shape[0] - 1
    orders = [rng.permutation(n).astype(np.int64) for _ in range(4)]
    orders.append(rng.integers(0, n, 2 * n).astype(np.int64))  # repeats allowed
    got_c = _run(c, alg, flat, feats, orders, opts)
    got_py = _run(py, alg, flat, feats, orders, opts)
    for a, b in zip(got_c[:3], got_py[:3]):
        assert np.array_equal(a, b)
    assert got_c[3] == got_py[3]
    assert got_c[2][0] == 1 + sum(o.shape[0] for o in orders)
    assert np.any(got_c[0] != 0)


@pytest.mark.parametrize(("alg", "opts"), CASES)
@pytest.mark.parametrize("seed", range(8))
def test_twins_equal_bit_for_bit_on_unit_values(alg, opts, seed):
    """Values of -1, 0 and 1 (the common binary features): PA's C twin then collects only
    where the two paths differ; the weights are the same to the bit."""
    c, py = _module("c", "_crfsuite"), _module("python", "_crfsuite")
    rng, flat, feats = _problem(100 + seed, L=2 + seed % 5, n=50, values=UNIT)
    n = flat.offsets.shape[0] - 1
    orders = [rng.permutation(n).astype(np.int64) for _ in range(5)]
    for zero in (0.0, -0.0):  # (weights of -0.0 too, which training never makes: alike)
        got = []
        for m in (c, py):
            try:
                got.append(_run(m, alg, flat, feats, orders, opts, zero))
            except FloatingPointError as exc:  # a step of no difference at PA's type 0
                got.append(str(exc))
        if isinstance(got[0], str) or isinstance(got[1], str):
            assert got[0] == got[1]
            continue
        for a, b in zip(got[0][:3], got[1][:3]):
            assert np.array_equal(a.view(np.int64), b.view(np.int64))  # the bits: +-0.0
        assert got[0][3] == got[1][3]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("pa_type", [0, 1, 2])
def test_pa_step_with_no_difference(backend, pa_type):
    """The paths differ, but their feature vectors do not (no feature where they differ;
    the shared ones cancel): at type 0 the step is not finite and raises, at types 1 and 2
    nothing moves; alike with unit values (where the C twin collects only the differences)
    and without."""
    m = _module(backend, "_crfsuite")
    for value in (1.0, 0.5):
        data = [online.Instance(aids=np.array([0, 1], np.int64), values=np.full(2, value),
                                item=np.array([0, 1]), ends=np.array([1, 2]),
                                labels=np.array([0, 1], np.int64), group=0)]
        flat = online.flatten(data)
        L = 2
        state = np.zeros((A, L), bool)
        state[0, 0] = True  # the only feature: attribute 0 with label 0, shared by both paths
        trans = np.zeros((L, L), bool)
        w = np.zeros(A * L + L * L)
        w[0 * L + 0] = 1.0  # Viterbi picks label 0 everywhere: [0, 0] against [0, 1]
        args = (flat.aids, flat.values, flat.ends, flat.labels, flat.offsets,
                np.zeros(1, np.int64), state.view(np.uint8), trans.view(np.uint8),
                *_by_attr(type("Mask", (), {"state": state})),
                w.copy(), np.zeros_like(w), np.ones(1, np.int64))
        if pa_type == 0:
            with pytest.raises(FloatingPointError):
                m.pa_epoch(*args, pa_type, 1.0, False)
        else:
            w_after = args[-3]
            m.pa_epoch(*args, pa_type, 1.0, False)
            assert np.array_equal(w_after, w)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("value", [1.0, 0.5])
def test_pa_moves_no_weight_by_a_zero_difference(backend, value):
    """A feature both paths share has a difference of 0.0: PA leaves its weight alone, even
    a -0.0 (CRFsuite would add tau * 0.0, making it +0.0; training never makes a -0.0), on
    both twins, whether or not the C twin collects it (unit values: it does not)."""
    w, ws = _shared_feature_epoch(_module(backend, "_crfsuite"), "pa", value, -0.0)
    L = 2
    assert w[1 * L + 1] > 0 and ws[1 * L + 1] > 0  # the feature where the paths differ
    assert w[0] == 1.0 and np.signbit(w[2 * L + 0]) and np.signbit(ws[2 * L + 0])


@pytest.mark.parametrize("value", [1.0, 0.5])
@pytest.mark.parametrize("start", [0.0, -0.0, 0.1, 2.0**53 + 2, (0.0, -0.0), (-0.0, 0.0)])
def test_ap_adds_a_shared_feature_and_takes_it_back(value, start):
    """AP adds each feature of the gold path, then takes each of the predicted path's: a
    shared feature's weight moves by +v then -v, as in CRFsuite (a -0.0 becomes +0.0; 2^53 + 2
    + 1 - 1 is 2^53 + 4); the C twin leaves the pair out only where the sums are exact (unit
    values, integer weights far enough below 2^52, no -0.0): alike to the bit in every
    case."""
    got = [_shared_feature_epoch(_module(b, "_crfsuite"), "ap", value, start)
           for b in BACKENDS]
    for w, ws in got:
        assert np.array_equal(w.view(np.int64), got[0][0].view(np.int64))
        assert np.array_equal(ws.view(np.int64), got[0][1].view(np.int64))
    if start == 0.0:
        assert not np.signbit(got[0][0][2 * 2 + 0])  # +v - v: +0.0, from -0.0 too
    if start == 2.0**53 + 2 and value == 1.0:
        assert got[0][0][2 * 2 + 0] == 2.0**53 + 4  # (each step rounds)


def _shared_feature_epoch(m, alg, value, start):
    """One instance whose paths share the feature (attribute 2, label 0) at t=0 and differ
    at t=1 (gold label 1, predicted 0): the weights after one epoch of ``alg``."""
    L = 2
    data = [online.Instance(aids=np.array([0, 2, 1], np.int64), values=np.full(3, value),
                            item=np.array([0, 0, 1]), ends=np.array([2, 3]),
                            labels=np.array([0, 1], np.int64), group=0)]
    flat = online.flatten(data)
    state = np.zeros((A, L), bool)
    state[0, 0] = state[2, 0] = state[1, 1] = True
    trans = np.zeros((L, L), bool)
    w = np.zeros(A * L + L * L)  # (+0.0 where no feature is: the routines' contract)
    w[0 * L + 0] = 1.0  # Viterbi: [0, 0] (a tie at t=1 goes to label 0) against [0, 1]
    ws = np.zeros_like(w)
    w[2 * L + 0], ws[2 * L + 0] = start if isinstance(start, tuple) else (start, start)
    args = (flat.aids, flat.values, flat.ends, flat.labels, flat.offsets,
            np.zeros(1, np.int64), state.view(np.uint8), trans.view(np.uint8),
            *_by_attr(type("Mask", (), {"state": state})), w, ws, np.ones(1, np.int64))
    if alg == "pa":
        m.pa_epoch(*args, 1, 1.0, False)
    else:
        m.ap_epoch(*args)
    return w, ws


@pytest.mark.parametrize("backend", BACKENDS)
def test_weights_only_where_features_exist(backend):
    m = _module(backend, "_crfsuite")
    rng, flat, feats = _problem(1, L=4)
    n = flat.offsets.shape[0] - 1
    w, ws, _, _ = _run(m, "ap", flat, feats, [rng.permutation(n).astype(np.int64)] * 3, {})
    mask = np.concatenate([feats.state.reshape(-1), feats.trans.reshape(-1)])
    assert not np.any(w[~mask]) and not np.any(ws[~mask])


@pytest.mark.parametrize("backend", BACKENDS)
def test_empty_order_changes_nothing(backend):
    m = _module(backend, "_crfsuite")
    _, flat, feats = _problem(2)
    w, ws, count, losses = _run(m, "ap", flat, feats, [np.zeros(0, np.int64)], {})
    assert losses == [0.0] and count[0] == 1 and not np.any(w) and not np.any(ws)


@pytest.mark.parametrize("backend", BACKENDS)
def test_non_finite_step_raises_before_its_instance_changes_anything(backend):
    m = _module(backend, "_crfsuite")
    _, flat, feats = _problem(3)
    n = flat.offsets.shape[0] - 1
    order = np.arange(n, dtype=np.int64)
    L = feats.trans.shape[0]
    w, cov, count = np.zeros(A * L + L * L), np.full(A * L + L * L, np.nan), np.ones(1, np.int64)
    args = (flat.aids, flat.values, flat.ends, flat.labels, flat.offsets, order,
            feats.state.view(np.uint8), feats.trans.view(np.uint8), *_by_attr(feats), w, cov,
            count)
    with pytest.raises(FloatingPointError, match=r"AROW step is not finite \(nan\)"):
        m.arow_epoch(*args, 1.0)
    # all scores 0: Viterbi says label 0 everywhere, and the first instance that is not all 0s
    # fails; those before it only counted
    first = next(i for i in range(n) if np.any(flat.labels[flat.offsets[i]:flat.offsets[i + 1]]))
    assert not np.any(w) and np.all(np.isnan(cov)) and count[0] == 1 + first


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_arguments_named(backend):
    m = _module(backend, "_crfsuite")
    _, flat, feats = _problem(4)
    L = feats.trans.shape[0]
    K = A * L + L * L
    n = flat.offsets.shape[0] - 1

    def call(**change):
        a = dict(aids=flat.aids, values=flat.values, ends=flat.ends, labels=flat.labels,
                 offsets=flat.offsets, order=np.arange(n, dtype=np.int64),
                 state=feats.state.view(np.uint8), trans=feats.trans.view(np.uint8),
                 attr_ptr=_by_attr(feats)[0], attr_labels=_by_attr(feats)[1],
                 w=np.zeros(K), ws=np.zeros(K), count=np.ones(1, np.int64))
        a.update(change)
        return m.ap_epoch(*a.values())

    bad_aids = flat.aids.copy()
    bad_aids[0] = A
    bad_labels = flat.labels.copy()
    bad_labels[-1] = L
    for change, what in [({"aids": bad_aids}, "aids must lie"),
                         ({"labels": bad_labels}, "labels must lie"),
                         ({"order": np.array([n], np.int64)}, "order must lie"),
                         ({"w": np.zeros(K - 1)}, "A \\* L \\+ L \\* L"),
                         ({"count": np.zeros(1, np.int64)}, "count must"),
                         ({"values": flat.values[:-1]}, "values must"),
                         ({"ends": flat.ends[::-1].copy()}, "ends must"),
                         ({"offsets": flat.offsets[1:].copy()}, "offsets must"),
                         ({"attr_ptr": _by_attr(feats)[0][:-1]}, "attr_ptr must"),
                         ({"attr_labels": np.full_like(_by_attr(feats)[1], L)},
                          "attr_labels must")]:
        with pytest.raises(ValueError, match=what):
            call(**change)
    with pytest.raises(ValueError, match="pa_type"):
        m.pa_epoch(flat.aids, flat.values, flat.ends, flat.labels, flat.offsets,
                   np.arange(n, dtype=np.int64), feats.state.view(np.uint8),
                   feats.trans.view(np.uint8), *_by_attr(feats), np.zeros(K), np.zeros(K),
                   np.ones(1, np.int64), 3, 1.0, False)


@pytest.mark.parametrize(("alg", "opts"), CASES[:2] + CASES[4:5])
def test_twins_equal_with_an_infinite_value(alg, opts):
    # the C twin sums over every label when all values are finite, over the features else
    c, py = _module("c", "_crfsuite"), _module("python", "_crfsuite")
    rng, flat, feats = _problem(5, L=3)
    flat.values[len(flat.values) // 2] = np.inf
    n = flat.offsets.shape[0] - 1
    orders = [rng.permutation(n).astype(np.int64) for _ in range(2)]
    got = []
    for m in (c, py):
        try:
            got.append(_run(m, alg, flat, feats, orders, opts))
        except FloatingPointError as exc:
            got.append(str(exc))
    if isinstance(got[0], str):
        assert got[0] == got[1]
    else:
        for a, b in zip(got[0][:3], got[1][:3]):
            assert np.array_equal(a, b, equal_nan=True)
        assert np.array_equal(got[0][3], got[1][3], equal_nan=True)


@pytest.mark.parametrize(("alg", "opts"), CASES[:2] + CASES[4:5])
@pytest.mark.parametrize("L", [1, 5, 8, 12, 13, 17])
def test_every_lanes_path_equals_the_python_twin(alg, opts, L):
    # each SIMD path this CPU has, on label counts around its block widths (4, 8) and tails;
    # few values, so that Viterbi meets ties (strict >: the lowest label keeps them)
    c, py = _module("c", "_crfsuite"), _module("python", "_crfsuite")
    rng, flat, feats = _problem(L, L=L, n=60)
    n = flat.offsets.shape[0] - 1
    orders = [rng.permutation(n).astype(np.int64) for _ in range(3)]
    want = _run(py, alg, flat, feats, orders, opts)
    assert c._paths()[0] == "baseline"
    before = c._set_path(c._paths()[-1])
    try:
        for path in c._paths():
            c._set_path(path)
            got = _run(c, alg, flat, feats, orders, opts)
            for a, b in zip(got[:3], want[:3]):
                assert np.array_equal(a, b), path
            assert got[3] == want[3], path
    finally:
        c._set_path(before)
    with pytest.raises(ValueError, match="not supported"):
        c._set_path("avx-1024")


@pytest.mark.parametrize("backend", BACKENDS)
def test_shuffle_is_crfsuites_with_glibc_rand(backend):
    # call after call (the state carried), as the trainer's epochs run: equal to
    # dataset_shuffle on glibc_rand, and on libc's own rand() from srand(1) where it is glibc
    m = _module(backend, "_crfsuite")
    ring, pos = online.glibc_ring(1)
    rand = online.glibc_rand(1)
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.srand(1)
    except OSError:
        libc = None
    for n in (7, 1, 0, 2000, 31, 3):
        want = list(range(n))
        online.shuffle(want, rand)
        if libc is not None:
            theirs = list(range(n))
            for i in range(n):
                j = libc.rand() % n
                theirs[i], theirs[j] = theirs[j], theirs[i]
            assert theirs == want
        got = np.arange(n, dtype=np.int64)
        m.shuffle(got, ring, pos)
        assert got.tolist() == want
    with pytest.raises(ValueError, match="ring must have 31 entries"):
        m.shuffle(got, ring[:30], pos)
