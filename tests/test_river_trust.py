"""perceptron_c.river keeps its promises: what a model shows, the values and labels it takes,
memory with a growing vocabulary, threads and Ctrl-C (issue 34). Public API only."""
import decimal
import json
import pathlib
import pickle
import sys
import threading

import numpy as np
import pytest
from conftest import HAVE_C, run_python, run_threads

pytest.importorskip("river")
pd = pytest.importorskip("pandas")

from perceptron_c import river as pr  # noqa: E402

BINARY = [pr.Perceptron, pr.PAClassifier, pr.BudgetKernelPerceptron]
LINEAR = [pr.Perceptron, pr.MulticlassPerceptron, pr.PAClassifier, pr.PARegressor]


def _rows(n=50, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    t = X @ rng.normal(size=d) + 0.3 * rng.normal(size=n)
    return [{f"f{j}": float(v) for j, v in enumerate(row)} for row in X], t


def _make(cls):
    """A model; the budget model's draws seeded, its budget filled by a few examples (so that
    learn_one and learn_many hold arrays of one size)."""
    return cls(budget=2, seed=0) if cls is pr.BudgetKernelPerceptron else cls()


def _label(cls, t):
    if cls is pr.PARegressor:
        return float(t)
    if cls is pr.MulticlassPerceptron:
        return "up" if t > 0.5 else "down" if t < -0.5 else "flat"
    return bool(t > 0)


@pytest.mark.parametrize("cls", LINEAR)
def test_weights_and_intercept_show_every_example_learned(cls):
    """Issue 34, item 12: PAClassifier's and PARegressor's weights and intercept showed the
    model after the first of 50 examples (the rest waited in learn_one)."""
    rows, t = _rows()
    one, many = _make(cls), _make(cls)
    after_first = None
    for i, (x, v) in enumerate(zip(rows, t)):
        one.learn_one(x, _label(cls, v))
        if i == 0:
            after_first = pickle.dumps((one.weights, one.intercept))
    many.learn_many(pd.DataFrame(rows), pd.Series([_label(cls, v) for v in t]))
    assert (one.weights, one.intercept) == (many.weights, many.intercept)
    assert pickle.dumps((one.weights, one.intercept)) != after_first
    if cls is pr.PARegressor:  # its prediction is the score the weights give
        for x in rows[:5]:
            score = sum(one.weights[k] * v for k, v in x.items()) + one.intercept
            assert one.predict_one(x) == pytest.approx(score, rel=1e-12, abs=1e-12)


NOT_NUMBERS = {
    "a numeric str": ["90210", "10001", "60601"],
    "bytes": [b"12", b"13", b"14"],
    "datetimes": pd.to_datetime(["2020-01-01", "2021-01-01", "2022-01-01"]),
    "numpy datetimes": np.array(["2020-01-01", "2021-01-01", "2022-01-01"],
                                dtype="datetime64[D]"),
    "durations": pd.to_timedelta([1, 2, 3], unit="s"),
    "Decimals": [decimal.Decimal("1.5"), decimal.Decimal("2"), decimal.Decimal("3")],
    "complex numbers": [1 + 0j, 2 + 0j, 3 + 0j],
    "None": [None, None, None],
}


@pytest.mark.parametrize("cls", LINEAR + [pr.BudgetKernelPerceptron])
@pytest.mark.parametrize("what", list(NOT_NUMBERS))
def test_a_value_that_is_no_number_is_a_type_error_naming_it(cls, what):
    """Issue 34, item 13: {"zip": "90210"} was learned as 90210.0, b"12" as 12.0, a datetime
    as nanoseconds; River's models raise TypeError. In a dict and in a frame alike."""
    values = NOT_NUMBERS[what]
    label = [_label(cls, v) for v in (1.0, -1.0, 1.0)]
    m = _make(cls)
    m.learn_one({"ok": 1.0}, label[0])
    before = pickle.dumps(m)
    frame = pd.DataFrame({"ok": [1.0, 2.0, 3.0], "zip": values})
    for call in (lambda: m.learn_many(frame, pd.Series(label)),
                 lambda: m.predict_many(frame),
                 lambda: m.learn_one({"ok": 1.0, "zip": frame["zip"].iloc[0]}, label[1]),
                 lambda: m.learn_one({"zip": list(values)[1]}, label[1]),
                 lambda: m.predict_one({"ok": 1.0, "zip": list(values)[1]})):
        with pytest.raises(TypeError, match="zip"):
            call()
    assert pickle.dumps(m) == before


@pytest.mark.parametrize("cls", LINEAR + [pr.BudgetKernelPerceptron])
def test_real_numbers_of_every_kind_are_values_in_a_frame_as_in_a_dict(cls):
    records = [{"b": True, "i": 2, "f": 0.5, "n": np.int64(-1), "h": np.float32(0.25)},
               {"b": False, "i": -1, "f": 1.5, "n": np.int64(3), "h": np.float32(-2.0)},
               {"b": True, "i": 0, "f": -2.0, "n": np.int64(0), "h": np.float32(1.0)}]
    labels = [_label(cls, v) for v in (1.0, -1.0, -1.0)]
    one, many = _make(cls), _make(cls)
    for x, y in zip(records, labels):
        one.learn_one(x, y)
    frame = pd.DataFrame(records).astype({"i": "Int64", "b": "category"})
    many.learn_many(frame, pd.Series(labels))
    assert pickle.dumps(one) == pickle.dumps(many)
    assert many.predict_many(frame).tolist() == [one.predict_one(x) for x in records]


@pytest.mark.parametrize("cls", BINARY)
@pytest.mark.parametrize("bad,error", [("no", TypeError), ("yes", TypeError),
                                       (None, TypeError), (b"1", TypeError),
                                       (-1, ValueError), (2, ValueError), (0.5, ValueError),
                                       (float("nan"), ValueError)], ids=repr)
def test_a_binary_label_is_a_bool_as_rivers_binary_classifiers_take_it(cls, bad, error):
    """Issue 34, item 13: the binary adapters took the string "no" (and -1) as the positive
    class. River's binary classifiers take True/False (their losses compute 2 y - 1, which
    raises on a str); so do these, with 1 and 0 for True and False."""
    m = _make(cls)
    m.learn_one({"a": 1.0}, True)
    before = pickle.dumps(m)
    with pytest.raises(error, match="y must"):
        m.learn_one({"a": 1.0}, bad)
    frame = pd.DataFrame({"a": [1.0, -1.0]})
    with pytest.raises(error, match="y must"):
        m.learn_many(frame, pd.Series([True, bad]))
    assert pickle.dumps(m) == before


@pytest.mark.parametrize("cls", BINARY)
def test_bools_and_ones_and_zeros_are_the_same_labels(cls):
    rows, t = _rows(40)
    forms = [lambda v: bool(v), lambda v: np.bool_(v), lambda v: int(v), lambda v: float(v),
             lambda v: np.int64(v)]
    models = []
    for form in forms:
        m = _make(cls)
        for x, v in zip(rows, t):
            m.learn_one(x, form(v > 0))
        models.append(pickle.dumps(m))
        many = _make(cls)
        many.learn_many(pd.DataFrame(rows), pd.Series([form(v > 0) for v in t]))
        models.append(pickle.dumps(many))
    assert len(set(models)) == 1


def test_budget_memory_follows_the_support_vectors_not_every_name():
    """Issue 34, item 14: support vectors were stored dense over every feature name ever seen
    (13.8 MB after 5,000 examples with one new name each, against 0.3 MB; learn_one 229-280x
    slower). Now the names cost their index, as River's dicts do, and nothing more."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-2.0, 2.0, size=(3000, 2))
    y = ((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 1).tolist()
    named = pr.BudgetKernelPerceptron(budget=100, strategy="forgetron", gamma=2.0)
    fixed = pr.BudgetKernelPerceptron(budget=100, strategy="forgetron", gamma=2.0)
    for i, ((a, b), label) in enumerate(zip(X.tolist(), y)):
        named.learn_one({"a": a, "b": b, f"w{i}": 1.0}, label)
        fixed.learn_one({"a": a, "b": b, "w": 1.0}, label)
    assert named.n_support == fixed.n_support == 100
    names = {f"w{i}": i for i in range(3000)}
    index = sys.getsizeof(names) + sum(sys.getsizeof(k) for k in names)
    assert named._raw_memory_usage - fixed._raw_memory_usage < 2 * index


BENCH = pathlib.Path(__file__).resolve().parents[1] / "bench"


@pytest.mark.skipif(not HAVE_C, reason="on the Python twins the frames take minutes")
@pytest.mark.skipif(sys.platform == "win32", reason="os.kill(SIGINT) is not Ctrl-C there")
@pytest.mark.skipif(not BENCH.is_dir(), reason="no bench/ beside the tests")
def test_ctrl_c_at_random_times_leaves_each_model_before_or_after_its_call(tmp_path):
    """100 real SIGINTs at random times into learn_many on frames of up to 250,000 rows (new
    names, new classes) and into loops of learn_one, ten to a model and call: each time the
    model is the one before the call or the one after it, and pickles back equal. On main a
    learn_many interrupted in its routine kept the rows learned (the third signal found a
    mix); bench/bench_river_interrupt.py runs 200."""
    out = tmp_path / "signals.json"
    run = run_python([str(BENCH / "bench_river_interrupt.py"), "--signals", "100", "--json",
                      str(out)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["total"]["signals"] == 100
    assert all(row["signals"] == 10 for row in result["results"])


# ---- threads: predicting from many threads, learning from one

def _stream_with_news(cls, n=240, seed=3):
    """Dicts whose names and (K-class) labels keep appearing: a new name every 4th example,
    a new class every 40th; and their labels."""
    rows, t = _rows(n, d=5, seed=seed)
    for i, x in enumerate(rows):
        if i % 4 == 0:
            x[f"new{i}"] = 0.5
        x["n64"] = np.int64(i % 3)  # (a value read through numbers.Real: Python code runs)
    labels = [_label(cls, v) for v in t]
    if cls is pr.MulticlassPerceptron:
        labels = [f"k{i // 40}" if i % 40 == 0 else y for i, y in enumerate(labels)]
    return rows, labels


def _probes(n=40, seed=9):
    rows, _ = _rows(n, d=5, seed=seed)
    for i, x in enumerate(rows):
        x[f"new{4 * i}"] = 1.0  # names learned later in the stream, or never
        x["n64"] = np.int64(i % 2)
        if i % 3 == 0:
            x["f1"] = float("nan")
    return rows


def _reads(m, probes, frame):
    """Every prediction of a model, exact: predict_one of each probe, predict_many of the
    frame, and the probabilities where the model defines them."""
    out = [("one", tuple(m.predict_one(x) for x in probes)),
           ("many", tuple(m.predict_many(frame).tolist()))]
    if isinstance(m, pr.PAClassifier):
        out.append(("proba", tuple(m.predict_proba_one(x)[True] for x in probes)))
        out.append(("proba_many", tuple(m.predict_proba_many(frame)[True].tolist())))
    return out


def _learner(learn):
    """A thread that runs ``learn``, and the event it sets when ``learn`` has returned or
    raised."""
    done = threading.Event()

    def run():
        try:
            learn()
        finally:
            done.set()
    return threading.Thread(target=run), done


@pytest.mark.parametrize("cls", LINEAR + [pr.BudgetKernelPerceptron])
def test_predictions_from_many_threads_are_the_serial_ones(cls):
    """8 threads predict at once (switching every microsecond): every answer is the serial
    one, bit for bit."""
    rows, labels = _stream_with_news(cls)
    m = _make(cls)
    for x, y in zip(rows, labels):
        m.learn_one(x, y)
    probes = _probes()
    frame = pd.DataFrame(probes)
    serial = _reads(m, probes, frame)
    results, errors = [], []

    def reader():
        try:
            for _ in range(6):
                results.append(_reads(m, probes, frame))
        except Exception as e:  # (reported below)
            errors.append(e)

    run_threads([threading.Thread(target=reader) for _ in range(8)])
    assert not errors, errors[:3]
    assert len(results) == 48 and all(r == serial for r in results)


@pytest.mark.skipif(not HAVE_C, reason="a Python twin's learn_one is many steps (the docs)")
@pytest.mark.parametrize("cls", LINEAR + [pr.BudgetKernelPerceptron])
def test_predicting_while_one_thread_learns_sees_the_model_before_or_after_each_example(cls):
    """One thread learns a stream that brings new names (and classes) while 8 threads
    predict: each prediction (each predict_many whole) is that of the model after some number
    of the examples, never of one between two (a new name's column was given before its
    weight existed: the readers raised ValueError)."""
    rows, labels = _stream_with_news(cls)
    probes = _probes(12)
    frame = pd.DataFrame(probes)
    m = _make(cls)
    seen = {"one": [], "many": []}  # the answers of the models after 0, 1, ... examples
    ref = _make(cls)
    for i in range(len(rows) + 1):
        reads = dict(_reads(ref, probes, frame))
        seen["one"].append(reads["one"])
        seen["many"].append(reads["many"])
        if i < len(rows):
            ref.learn_one(rows[i], labels[i])
    allowed_one = [set(s[j] for s in seen["one"]) for j in range(len(probes))]
    allowed_many = set(seen["many"])
    observed, errors = [], []

    def learn():
        for x, y in zip(rows, labels):
            m.learn_one(x, y)
    learner, done = _learner(learn)

    def reader():
        try:
            while not done.is_set():
                observed.append(("many", m.predict_many(frame).tolist()))
                for j, x in enumerate(probes):
                    observed.append((j, m.predict_one(x)))
        except Exception as e:  # (reported below)
            errors.append(e)

    run_threads([threading.Thread(target=reader) for _ in range(8)] + [learner])
    assert not errors, errors[:3]
    assert _state(m) == _state(ref)  # the learner's model is the serial one
    for what, value in observed:
        if what == "many":
            assert tuple(value) in allowed_many
        else:
            assert value in allowed_one[what]


def _state(m):
    return [(k, pickle.dumps(v)) for k, v in m.__getstate__().items()]


@pytest.mark.parametrize("cls", LINEAR + [pr.BudgetKernelPerceptron])
def test_a_call_during_another_threads_learn_many_raises_or_sees_before_or_after(cls):
    """learn_many writes the batch in place, its routine without the GIL: a prediction in
    another thread meanwhile would read half a batch, and a learning call would write between
    its rows. Both raise ConcurrentUseError; outside the batch they see the model before or
    after it."""
    from perceptron_c import ConcurrentUseError

    rng = np.random.default_rng(4)
    n = 60_000 if cls is pr.BudgetKernelPerceptron else 600_000
    X = pd.DataFrame(rng.normal(size=(n, 6)), columns=[f"f{j}" for j in range(6)])
    y = pd.Series([_label(cls, v) for v in X["f0"] - X["f1"]])
    m = _make(cls)
    m.learn_many(X.head(100), y.head(100))
    probe = {f"f{j}": 0.25 * j - 0.5 for j in range(6)}
    after = pickle.loads(pickle.dumps(m))
    after.learn_many(X, y)
    allowed = {m.predict_one(probe), after.predict_one(probe)}
    outcomes, errors = [], []
    learner, done = _learner(lambda: m.learn_many(X, y))

    def other():
        try:
            while not done.is_set():
                try:
                    outcomes.append(("predict", m.predict_one(probe)))
                except ConcurrentUseError:
                    outcomes.append(("predict", "busy"))
                if ("predict", "busy") not in outcomes:
                    continue  # (learn only once the batch is under way: it must start first)
                try:  # (an empty batch: when it is let in, it learns nothing)
                    m.learn_many(X.head(0), y.head(0))
                    outcomes.append(("learn", "learned"))
                except ConcurrentUseError:
                    outcomes.append(("learn", "busy"))
        except Exception as e:  # (reported below)
            errors.append(e)

    threads = [learner] + [threading.Thread(target=other) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    assert ("predict", "busy") in outcomes and ("learn", "busy") in outcomes
    assert all(v in allowed or v == "busy" for what, v in outcomes if what == "predict")
    assert _state(m) == _state(after)
