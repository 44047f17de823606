"""The one-example calls on dicts (_dicts_c against its spec _dicts_py): read, scored, learned."""
import datetime
import decimal
import enum
import fractions
import numbers
import types

import numpy as np
import pytest
from conftest import _module

from perceptron_c._core import _linear_py, _sgd_py

NEW_NAMES, NO_ROOM = -1, -2


class _Level(enum.IntEnum):
    HIGH = 3


# accepted values: (value, the float it is read as)
REALS = [(True, 1.0), (False, 0.0), (3, 3.0), (-2**60, float(-2**60)), (2**70, float(2**70)),
         (np.float32(0.1), float(np.float32(0.1))), (np.float16(0.5), 0.5),
         (np.int8(-3), -3.0), (np.uint64(2**63), float(2**63)), (np.bool_(True), 1.0),
         (fractions.Fraction(1, 3), 1 / 3), (_Level.HIGH, 3.0), (np.float64(-0.25), -0.25)]
NOT_REAL = ["text", b"bytes", None, 1 + 2j, np.complex128(1.0), datetime.date(2024, 1, 1),
            decimal.Decimal("1.5"), [1.0], np.array(1.0), {"a": 1.0}]
NOT_FINITE = [float("inf"), -float("inf"), np.float32("inf"), 10**400,
              fractions.Fraction(10**400)]


def _both():
    return _module("c", "_dicts"), _module("python", "_dicts")


def _value(rng):
    """A random value of any accepted kind, sometimes NaN (a missing value)."""
    u = rng.random()
    if u < 0.05:
        return float("nan")
    if u < 0.1:
        return REALS[int(rng.integers(len(REALS)))][0]
    if u < 0.15:
        return int(rng.integers(-3, 4))
    return float(rng.normal())


def _stream(n, n_names=12, seed=0):
    """Dicts whose names appear along the stream, mostly in one order (the schema's), some
    shuffled, some with a key missing or NaN."""
    rng = np.random.default_rng(seed)
    names = [f"f{j}" for j in range(n_names)]
    rows = []
    for i in range(n):
        keys = [k for k in names[:2 + i * n_names // n] if rng.random() < 0.9 or i % 3]
        if rng.random() < 0.2:
            rng.shuffle(keys)
        rows.append({k: _value(rng) for k in keys})
    return rows


class _Linear:
    """A perceptron's arrays and its LinearDicts, growing as a model does."""

    def __init__(self, mod, R, average, fit_intercept, normalize):
        self.mod, self.index = mod, {}
        self.W, self.b = np.zeros((R, 2)), np.zeros(R)
        self.avg = (np.zeros((R, 2)), np.zeros(R), np.ones(1, dtype=np.int64)) if average \
            else (None, None, None)
        self.options = (fit_intercept, normalize)
        self.build()

    def build(self):
        self.calls = self.mod.LinearDicts(self.index, self.W, self.b, *self.avg, *self.options)

    def arrays(self):
        return [a for a in (self.W, self.b, *self.avg) if a is not None]

    def learn(self, method, x, y):
        r = getattr(self.calls, method)(x, y)
        if r == NEW_NAMES:
            for name in sorted(self.mod.dict_row(x, self.index, max(1, len(self.index)))[2]):
                self.index[name] = len(self.index)
            if len(self.index) > self.W.shape[1]:
                wide = np.zeros((self.W.shape[0], 2 * len(self.index)))
                self.W = np.hstack([self.W, wide])
                if self.avg[0] is not None:
                    self.avg = (np.hstack([self.avg[0], wide]), *self.avg[1:])
            self.build()
            r = getattr(self.calls, method)(x, y)
        assert r in (0, 1)
        return r


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("R", [1, 3])
@pytest.mark.parametrize("options", [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("n_names", [12, 100])  # rows sorted in place, by qsort, on the heap
def test_linear_twins_learn_and_score_alike(average, R, options, n_names):
    c, py = (_Linear(mod, R, average, *options) for mod in _both())
    rows = _stream(300, n_names, seed=R + 2 * average)
    rng = np.random.default_rng(1)
    method = "learn_binary" if R == 1 else "learn_class"
    for x in rows:
        y = float(rng.choice([-1.0, 1.0])) if R == 1 else int(rng.integers(R))
        assert c.learn(method, x, y) == py.learn(method, x, y)
        assert all(np.array_equal(a, b) for a, b in zip(c.arrays(), py.arrays()))
        assert c.index == py.index
        if R == 1:
            assert c.calls.decision(x) == py.calls.decision(x)
        else:
            assert c.calls.argmax(x) == py.calls.argmax(x)


@pytest.mark.parametrize("average", [False, True])
def test_scores_are_decision_csr_on_the_published_average(average):
    """The averaged weights are formed where a row needs them, bit for bit as the routine
    decision_csr scores a row on the published (W - U / c, b - beta / c)."""
    for mod in _both():
        m = _Linear(mod, 3, average, True, False)
        rng = np.random.default_rng(5)
        rows = _stream(400, seed=7)
        for x in rows:
            m.learn("learn_class", x, int(rng.integers(3)))
        W, b = m.W, m.b
        if average:
            U, beta, count = m.avg
            W, b = W - U / float(count[0]), b - beta / float(count[0])
        for x in rows[:100]:
            data, indices, _ = mod.dict_row(x, m.index, m.W.shape[1])
            out = np.empty((1, 3))
            _linear_py.decision_csr(data, indices, np.array([0, data.shape[0]]), W, b, out)
            assert m.calls.argmax(x) == int(np.argmax(out[0]))
            names = list(x)  # the dict as a frame's row: its names and numbers
            got = m.calls.scores(np.array([[float(x[k]) for k in names]]), names)
            assert np.array_equal(got, out)
        one = _Linear(mod, 1, average, True, False)
        for x in rows:
            one.learn("learn_binary", x, 1.0 if sum(np.nan_to_num(list(map(float, x.values()))))
                      > 0 else -1.0)
        W, b = one.W, one.b
        if average:
            W, b = W - one.avg[0] / float(one.avg[2][0]), b - one.avg[1] / float(one.avg[2][0])
        for x in rows[:100]:
            data, indices, _ = mod.dict_row(x, one.index, one.W.shape[1])
            out = np.empty((1, 1))
            _linear_py.decision_csr(data, indices, np.array([0, data.shape[0]]), W, b, out)
            assert one.calls.decision(x) == out[0, 0]


def test_dict_row_reads_every_real_number_alike():
    for x_keys in (["a", "b", "c"], ["c", "a", "b"]):
        for value, expected in REALS:
            x = {k: value if k == "b" else 1.5 for k in x_keys}
            x["new"], x["nan"] = 2.0, float("nan")
            index = {"a": 0, "b": 1, "c": 2, "nan": 3}
            for mod in _both():
                data, indices, new = mod.dict_row(x, index, 4)
                assert data.tolist() == [1.5, expected, 1.5] and data.dtype == np.float64
                assert indices.tolist() == [0, 1, 2] and indices.dtype == np.int32
                assert new == ["new"]
    # a Mapping that is not a dict is read as dict(x)
    for mod in _both():
        data, _, _ = mod.dict_row(types.MappingProxyType({"b": 2.0, "a": 1.0}), {"a": 0, "b": 1},
                                  2)
        assert data.tolist() == [1.0, 2.0]


def _objects(mod):
    """One object of each kind over fresh arrays, with the names a and b known: (index,
    {kind: (object, its arrays)})."""
    index = {"a": 0, "b": 1}
    linear = (np.ones((1, 4)), np.zeros(1), np.ones((1, 4)), np.zeros(1),
              np.full(1, 3, dtype=np.int64))
    state = np.zeros(_sgd_py.N_STATE)
    _sgd_py.sgd_start(np.zeros(4), np.zeros(0), state, 0.0, 0.0, 1.0)
    params = np.zeros(_sgd_py.N_PARAMS)
    params[_sgd_py.ETA0] = params[_sgd_py.INTERCEPT_DECAY] = 1.0
    params[_sgd_py.WEIGHT_POS] = params[_sgd_py.WEIGHT_NEG] = 1.0
    sgd = (np.ones((1, 4)), state, params)
    budget = (np.ones((2, 4)), np.tile(np.arange(4, dtype=np.int32), (2, 1)),
              np.full(2, 4), np.ones((1, 2)), np.zeros(1), np.arange(2),
              np.array([2, 2, 0, 0, 2]), np.zeros(1), np.eye(2), None, None, None)
    return index, {
        "linear": (mod.LinearDicts(index, *linear, True, False), linear),
        "sgd": (mod.SGDDicts(index, *sgd, _sgd_py.LOSS_HINGE, _sgd_py.RATE_PA1, True), sgd),
        "budget": (mod.BudgetDicts(index, 4, budget, ("rbf", 1.0, 3, 1.0), "projectron", 2,
                                   0.1, True, np.random.default_rng(0)), budget)}


def _calls(kind, obj):
    """Every call of an object, as functions of x."""
    if kind == "linear":
        return [obj.decision, obj.argmax, lambda x: obj.learn_binary(x, 1.0)]
    return [obj.decision, lambda x: obj.learn(x, 1)]


def _copies(arrays):
    return [None if a is None else a.copy() for a in arrays]


def _same(a, b):
    return all(u is None and v is None or np.array_equal(u, v) for u, v in zip(a, b))


@pytest.mark.parametrize("kind", ["linear", "sgd", "budget"])
@pytest.mark.parametrize("bad", NOT_REAL + NOT_FINITE, ids=repr)
def test_a_bad_value_is_named_and_changes_nothing(kind, bad):
    messages = []
    error = TypeError if any(bad is v for v in NOT_REAL) else ValueError
    for mod in _both():
        index, objects = _objects(mod)
        obj, arrays = objects[kind]
        before = _copies(arrays)
        for call in _calls(kind, obj):
            for x in ({"a": 1.0, ("odd", 7): bad, "c": 1.0}, {("odd", 7): bad},
                      {"new": 1.0, ("odd", 7): bad}, {"b": 2.0, "a": 1.0, ("odd", 7): bad}):
                with pytest.raises(error, match=r"\('odd', 7\)") as info:
                    call(x)
                messages.append(str(info.value))
            with pytest.raises(TypeError, match="x must be a dict"):
                call([("a", 1.0)])
        assert index == {"a": 0, "b": 1}
        assert _same(before, arrays)
    assert len(set(messages)) == 1  # the same message, from both twins and every call


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("loss", ["hinge", "epsilon"])
def test_sgd_twins_learn_and_score_alike(mode, loss):
    rows = _stream(300, seed=mode)
    rng = np.random.default_rng(mode)
    models = []
    for mod in _both():
        index, W = {}, np.zeros((1, 16))
        state = np.zeros(_sgd_py.N_STATE)
        _sgd_py.sgd_start(W[0], np.zeros(0), state, 0.0, 0.0, 1.0)
        params = np.zeros(_sgd_py.N_PARAMS)
        params[_sgd_py.ETA0], params[_sgd_py.INTERCEPT_DECAY] = 0.5, 1.0
        params[_sgd_py.WEIGHT_POS] = params[_sgd_py.WEIGHT_NEG] = 1.0
        params[_sgd_py.EPSILON_OR_THRESHOLD] = 1.0 if loss == "hinge" else 0.1
        code = _sgd_py.LOSS_HINGE if loss == "hinge" else _sgd_py.LOSS_EPSILON_INSENSITIVE
        rate = (_sgd_py.RATE_PA, _sgd_py.RATE_PA1, _sgd_py.RATE_PA2)[mode]
        models.append((mod, index, W, state,
                       mod.SGDDicts(index, W, state, params, code, rate, True)))
    for x in rows:
        y = float(rng.choice([-1.0, 1.0])) if loss == "hinge" else float(rng.normal())
        results = []
        for mod, index, _, _, calls in models:
            r = calls.learn(x, y)
            if r == NEW_NAMES:
                for name in sorted(mod.dict_row(x, index, 16)[2]):
                    index[name] = len(index)
                r = calls.learn(x, y)
            results.append((r, calls.decision(x)))
        assert results[0] == results[1]
        assert np.array_equal(models[0][2], models[1][2])
        assert np.array_equal(models[0][3], models[1][3])


def test_a_name_without_a_column_in_the_schema_gets_one_later():
    """The schema remembers a NaN name without a column; once the name has a column (another
    call gave it one), a dict with the same key objects reads its column."""
    for mod in _both():
        index, W, b = {"a": 0}, np.zeros((1, 4)), np.zeros(1)
        calls = mod.LinearDicts(index, W, b, None, None, None, True, False)
        x = {"a": 1.0, "z": float("nan")}
        for _ in range(3):
            assert calls.learn_binary(x, 1.0) >= 0
        index["z"] = 1
        x["z"] = 2.0
        assert calls.learn_binary(x, -1.0) == 1
        assert W[0, 1] == -2.0


class _RealThatAddsAName:
    """A real number whose conversion gives a name a column, as another thread's learn_one
    would while this thread reads a dict (Python code runs there: a switch is possible)."""

    def __init__(self, value, add):
        self.value, self.add = value, add

    def __float__(self):
        self.add()
        return self.value


numbers.Real.register(_RealThatAddsAName)


def test_a_reading_call_reads_again_when_names_got_columns_meanwhile():
    """Its row and the weights it scores are then of one model: the name given a column (and
    a weight) while the dict was read counts (it was left out of the row, scored with the
    weights of the model that had it)."""
    for mod in _both():
        index, W, b = {"a": 0}, np.array([[1.0, 5.0, 0.0, 0.0]]), np.zeros(1)
        busy = np.zeros(3, dtype=np.uint64)
        calls = mod.LinearDicts(index, W, b, None, None, None, True, False, busy)

        def add(index=index, busy=busy):
            if "b" not in index:  # once: the name (its weight is there), then the count
                index["b"] = 1
                busy[2] += 1

        assert calls.decision({"b": 1.0, "a": _RealThatAddsAName(2.0, add)}) == 2.0 + 5.0
        assert calls.scores(np.array([[1.0, 2.0]]), ["b", "a"]).tolist() == [[7.0]]
        index["far"] = 9  # beyond the arrays (a name another thread is numbering): none yet
        assert calls.decision({"far": 3.0, "a": 1.0}) == 1.0
        assert calls.scores(np.array([[3.0, 1.0]]), ["far", "a"]).tolist() == [[1.0]]
        with pytest.raises(ValueError, match="beyond the 4 columns"):
            calls.learn_binary({"far": 3.0}, 1.0)
