"""Ctrl-C: a long C call stops mid-way (it looks for signals between chunks of a few
milliseconds), and a model interrupted in an epoch keeps the epochs before it, exactly.

The latency itself is measured in bench/bench_interrupt.py; here the workload would run for
tens of seconds without interruption, so finishing within a few seconds proves the call was
cut short, whatever the machine's load."""
import contextlib
import os
import sys
import textwrap
import warnings

import numpy as np
import pytest
from conftest import DEFAULT_SIGINT, HAVE_C, ctrl_c_latency, interrupt_after_real_work, run_python
from estimators import CASES, every

from perceptron_c import Perceptron, _backend
from perceptron_c._estimator import _training
from perceptron_c.exceptions import ConvergenceWarning

LONG_EPOCH = """
    X = rng.normal(size=(4000, 1000))
    y = np.where(rng.random(4000) < 0.5, -1.0, 1.0)
    order = rng.integers(0, 4000, size=30_000_000)  # 3e10 multiply-adds: tens of seconds
    w, b = np.zeros(1000), np.zeros(1)
    delay = 0.3
    call = lambda: _backend.linear.perceptron_epoch_dense(X, y, order, w, b, True, False)
"""

@pytest.mark.skipif(not HAVE_C, reason="the Python twins look for signals between bytecodes")
@pytest.mark.skipif(sys.platform == "win32", reason="os.kill(SIGINT) is not Ctrl-C there")
def test_a_long_c_epoch_is_interrupted_mid_way():
    assert ctrl_c_latency(LONG_EPOCH, timeout=120) < 5.0


# Every estimator of the registry (estimators.CASES), and the arithmetic variants whose runs
# differ: averaging, and scikit-learn's with a warm start (which changes the state in place)
TRAINED = [(name, {}) for name in every("classifier") + every("regressor")] + [
    ("Perceptron", {"average": True}),
    ("Perceptron", {"tol": 1e-3, "penalty": "l2", "warm_start": True}),
    ("KernelPerceptron", {"average": True}),
]


def _ctrl_c_in_epoch(monkeypatch, epoch):
    """Ctrl-C in the training's epoch number ``epoch`` (from 1), once that epoch's routines
    have changed the state: whatever they changed must be undone."""
    real = _training.epoch
    seen = []

    def epoch_then_ctrl_c(run):
        seen.append(1)
        if len(seen) == epoch:
            work = run.epoch

            def worked(order):
                work(order)
                raise KeyboardInterrupt
            monkeypatch.setattr(run, "epoch", worked)
        return real(run)
    monkeypatch.setattr(_training, "epoch", epoch_then_ctrl_c)


@contextlib.contextmanager
def fixed_epochs():
    """Training a fixed number of epochs on purpose: no ConvergenceWarning of either rule."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def _trained(case, params, data, max_iter):
    model = case.make(**params, max_iter=max_iter)
    with fixed_epochs():
        case.fit(model, *data)
    return model


@pytest.mark.parametrize(("name", "params"), TRAINED,
                         ids=[f"{n}{p or ''}" for n, p in TRAINED])
def test_ctrl_c_in_an_epoch_keeps_the_epochs_before_it(monkeypatch, rng, name, params):
    case = CASES[name]
    data, more = case.data(rng), case.data(rng)
    ref = _trained(case, params, data, 2)
    model = case.make(**params, max_iter=6)
    _ctrl_c_in_epoch(monkeypatch, 3)
    with pytest.raises(KeyboardInterrupt), fixed_epochs():
        case.fit(model, *data)
    monkeypatch.undo()
    # two full epochs kept, the third undone: the model of max_iter=2, to the bit
    assert model.n_iter_ == 2
    assert _file_state(model.set_params(max_iter=2)) == _file_state(ref)
    model.partial_fit(*more)  # and training goes on from there, as if never interrupted
    ref.partial_fit(*more)
    assert _file_state(model) == _file_state(ref)


@pytest.mark.parametrize(("name", "params"), TRAINED,
                         ids=[f"{n}{p or ''}" for n, p in TRAINED])
def test_a_refit_interrupted_in_its_first_epoch_keeps_the_model_before(monkeypatch, rng, name,
                                                                      params):
    """Ctrl-C before a fit finishes an epoch: the model fitted before (it was replaced by a
    fresh state of no epoch, which predicted by its intercept alone)."""
    case = CASES[name]
    data, other = case.data(rng), case.data(rng)
    model = _trained(case, params, data, 2)
    before = _file_state(model)
    _ctrl_c_in_epoch(monkeypatch, 1)
    with pytest.raises(KeyboardInterrupt), fixed_epochs():
        case.fit(model, *other)
    monkeypatch.undo()
    assert _file_state(model) == before
    rows = data[:1] + data[2:]
    assert np.array_equal(model.predict(*rows), _trained(case, params, data, 2).predict(*rows))


# Every call that runs on threads, with n_jobs=2, on inputs of tens of seconds: the setup
# (before the timer) fits a model, then `call` runs. Only the main thread receives Ctrl-C;
# the other thread's blocks must stop too (`_threads.stop_point`), not run out their share:
# before that, these calls raised seconds late (the pool thread's whole share of the rows,
# or its whole epoch of the one-vs-rest machines; the linear prediction was one C call per
# thread). The latency goal (0.5 s) is measured in bench/bench_interrupt.py; here "cut
# short" is asserted with room for a loaded machine.
THREADED = {
    "linear prediction, 400 classes": """
        from perceptron_c import Perceptron
        m = Perceptron(max_iter=1, multiclass="argmax", n_jobs=2).fit(
            rng.normal(size=(400, 100)), np.arange(400))
        X = rng.normal(size=(300_000, 100))
        call = lambda: m.decision_function(X)
    """,
    "voted prediction": """
        from perceptron_c import VotedPerceptron
        m = VotedPerceptron(max_iter=1, random_state=0, n_jobs=2).fit(
            rng.normal(size=(24_000, 20)), rng.integers(0, 2, 24_000))
        X = rng.normal(size=(60_000, 20))
        call = lambda: m.predict(X)
    """,
    "kernel perceptron prediction (rbf)": """
        from perceptron_c import KernelPerceptron
        m = KernelPerceptron(max_iter=2, random_state=0, n_jobs=2).fit(
            rng.normal(size=(3000, 20)), rng.integers(0, 2, 3000))
        X = rng.normal(size=(400_000, 20))
        call = lambda: m.decision_function(X)
    """,
    "kernel passive-aggressive prediction (poly)": """
        from perceptron_c import KernelPassiveAggressiveClassifier
        m = KernelPassiveAggressiveClassifier(kernel="poly", max_iter=2, random_state=0,
                                              n_jobs=2).fit(
            rng.normal(size=(3000, 20)), rng.integers(0, 2, 3000))
        X = rng.normal(size=(400_000, 20))
        call = lambda: m.decision_function(X)
    """,
    "budget kernel perceptron prediction": """
        from perceptron_c import BudgetKernelPerceptron
        m = BudgetKernelPerceptron(budget=2000, max_iter=2, random_state=0, n_jobs=2).fit(
            rng.normal(size=(3000, 20)), rng.integers(0, 2, 3000))
        X = rng.normal(size=(400_000, 20))
        call = lambda: m.decision_function(X)
    """,
    "one-vs-rest fit, 300 classes": """
        from perceptron_c import Perceptron
        X = rng.normal(size=(200_000, 100)); y = rng.integers(0, 300, 200_000)
        m = Perceptron(max_iter=100, multiclass="ovr", n_jobs=2)
        call, delay = lambda: m.fit(X, y), 3.0  # (into the first epoch)
    """,
    "one-vs-rest fit, scikit-learn arithmetic, 300 classes": """
        from perceptron_c import PassiveAggressiveClassifier
        X = rng.normal(size=(200_000, 100)); y = rng.integers(0, 300, 200_000)
        m = PassiveAggressiveClassifier(max_iter=100, tol=None, n_jobs=2)
        call, delay = lambda: m.fit(X, y), 3.0
    """,
    "kernel epochs, kernel rows on threads": """
        from perceptron_c import KernelPerceptron
        X = rng.normal(size=(20_000, 200)); y = rng.integers(0, 2, 20_000)
        m = KernelPerceptron(max_iter=100, max_gram_bytes=1 << 20, n_jobs=2)
        call, delay = lambda: m.fit(X, y), 3.0
    """,
    "structured perceptron fit": """
        from perceptron_c.datasets import make_sequences
        from perceptron_c.sequence import StructuredPerceptron
        X, y, L = make_sequences(0, 40_000, n_tags=40, n_symbols=5000, window=2)
        m = StructuredPerceptron(max_iter=1000, random_state=0)  # ~1 s an epoch
        call, delay = lambda: m.fit(X, y, L), 2.0  # (past the first epoch)
    """,
    "structured perceptron prediction": """
        from perceptron_c.datasets import make_sequences
        from perceptron_c.sequence import StructuredPerceptron
        X, y, L = make_sequences(0, 40_000, n_tags=40, n_symbols=5000, window=2)
        m = StructuredPerceptron(max_iter=1, n_jobs=2).fit(X[:3000], y[:3000], [3000])
        call = lambda: [m.predict(X, L) for _ in range(200)]
    """,
    # one sentence of 20,000 tokens and ~800 tags: 5 s of Viterbi, which Ctrl-C waited for
    # (the C loops looked for it between sentences only)
    "structured perceptron fit, inside one long sentence": """
        from perceptron_c.datasets import make_sequences
        from perceptron_c.sequence import StructuredPerceptron
        X, y, _ = make_sequences(0, 1000, n_tags=800, n_symbols=2000, length_range=(20, 20))
        m = StructuredPerceptron(max_iter=100, random_state=0)
        call = lambda: m.fit(X, y, [X.shape[0]])
    """,
    "structured perceptron prediction, inside two long sentences": """
        from perceptron_c.datasets import make_sequences
        from perceptron_c.sequence import StructuredPerceptron
        X, y, _ = make_sequences(0, 2000, n_tags=800, n_symbols=2000, length_range=(20, 20))
        m = StructuredPerceptron(max_iter=1, n_jobs=2).fit(X[:3000], y[:3000], [3000])
        call = lambda: m.predict(X, [20_000, 20_000])  # a sentence on each thread
    """,
    # second order: K^3 a token (2.2e5 at 60 tags), counted by the budget inside a sentence
    "second-order structured perceptron fit, inside one long sentence": """
        from perceptron_c.datasets import make_sequences
        from perceptron_c.sequence import StructuredPerceptron
        X, y, _ = make_sequences(0, 250, n_tags=60, n_symbols=2000, length_range=(20, 20))
        m = StructuredPerceptron(order=2, max_iter=1000, random_state=0)
        call = lambda: m.fit(X, y, [X.shape[0]])
    """,
    "second-order structured perceptron prediction, inside two long sentences": """
        from perceptron_c.datasets import make_sequences
        from perceptron_c.sequence import StructuredPerceptron
        X, y, _ = make_sequences(0, 500, n_tags=60, n_symbols=2000, length_range=(20, 20))
        m = StructuredPerceptron(order=2, max_iter=1, n_jobs=2).fit(X[:400], y[:400], [400])
        call = lambda: [m.predict(X, [5000, 5000]) for _ in range(1000)]
    """,
    "structured tagger, inside one long sentence": """
        from perceptron_c._core import _tokens_c
        features = ["bias"] + [f"i word w{k}" for k in range(5000)]
        tables = _tokens_c.ViterbiTables(features, [f"T{k}" for k in range(400)],
                                         rng.normal(size=(5001, 400)), rng.normal(size=400),
                                         rng.normal(size=(402, 400)))
        words = [f"w{k % 5000}" for k in range(40_000)]  # 6.4e9 multiply-adds of Viterbi
        call = lambda: tables.tag_sentence(words)
    """,
    "float Gram (rbf)": """
        from perceptron_c import kernels
        X = rng.normal(size=(6000, 2000))
        call = lambda: [kernels.gram(X, kernel="rbf", n_jobs=2) for _ in range(20)]
    """,
    "conjunction Gram": """
        W = rng.integers(0, 2**63, size=(16_000, 64), dtype=np.uint64)
        out = np.empty((16_000, 16_000), dtype=np.int32)
        call = lambda: [_backend.gram.gram_conjunction_log2(W, W, out, n_jobs=2)
                        for _ in range(10)]
    """,
}
@pytest.mark.skipif(not HAVE_C, reason="the Python twins look for signals between bytecodes")
@pytest.mark.skipif(sys.platform == "win32", reason="os.kill(SIGINT) is not Ctrl-C there")
@pytest.mark.parametrize("case", sorted(THREADED))
def test_every_threaded_call_stops_on_ctrl_c(case):
    assert ctrl_c_latency(THREADED[case]) < 2.0


LONG_SENTENCE_UNDONE = DEFAULT_SIGINT + textwrap.dedent("""
    import os, signal, threading, time
    import numpy as np
    from perceptron_c.datasets import make_sequences
    from perceptron_c.sequence import StructuredPerceptron
    X, y, _ = make_sequences(0, 1000, n_tags=300, n_symbols=1000, length_range=(20, 20))
    lengths = [X.shape[0]]  # one sentence: about a second an epoch, all of it Viterbi
    def interrupted(call, delay):
        sent = []
        def interrupt():
            sent.append(time.perf_counter())
            os.kill(os.getpid(), signal.SIGINT)
        threading.Timer(delay, interrupt).start()
        try:
            call()
        except KeyboardInterrupt:
            return time.perf_counter() - sent[0]
        raise AssertionError("not interrupted")
    # an epoch's time on this machine, as loaded as it is now: the Ctrl-C must land inside
    # the second epoch's sentence, after the first epoch has ended
    tic = time.perf_counter()
    StructuredPerceptron(max_iter=1, random_state=0).fit(X, y, lengths)
    epoch = time.perf_counter() - tic
    m = StructuredPerceptron(max_iter=100, random_state=0)
    first = interrupted(lambda: m.fit(X, y, lengths), 1.5 * epoch)
    k = m.n_iter_
    ref = StructuredPerceptron(max_iter=k, random_state=0).fit(X, y, lengths)
    assert k >= 1 and all(np.array_equal(v, ref._state[n]) for n, v in m._state.items())
    before = {n: v.copy() for n, v in m._state.items()}
    second = interrupted(lambda: m.partial_fit(X, y, lengths), 0.3 * epoch)
    assert m.n_iter_ == k and all(np.array_equal(v, before[n]) for n, v in m._state.items())
    m.partial_fit(X, y, lengths)  # and it goes on as if never interrupted
    ref.partial_fit(X, y, lengths)
    assert all(np.array_equal(v, ref._state[n]) for n, v in m._state.items())
    print("ok", epoch, k, first, second)
""")


@pytest.mark.skipif(not HAVE_C, reason="the Python twins look for signals between bytecodes")
@pytest.mark.skipif(sys.platform == "win32", reason="os.kill(SIGINT) is not Ctrl-C there")
def test_ctrl_c_inside_a_long_sentence_undoes_the_epoch_bit_for_bit():
    """Ctrl-C in the middle of a sentence's Viterbi: fit keeps its finished epochs exactly (the
    model of max_iter=k), partial_fit leaves the model as before the call, and both raise at
    once (they waited for the whole sentence)."""
    result = run_python(["-c", LONG_SENTENCE_UNDONE], capture_output=True, text=True,
                        timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    status, epoch, _, *latency = result.stdout.split()
    # the call ends with the sentence under way: within about one epoch (one sentence) here,
    # 2 s on an idle machine, longer on a loaded one
    assert status == "ok" and max(float(t) for t in latency) < max(2.0, 2 * float(epoch))


TAG_SENTS_INTERRUPTED = DEFAULT_SIGINT + textwrap.dedent("""
    import os, random, signal, sys, threading, time
    sys.path.insert(0, sys.argv[1])
    from tagged_corpus import tagged_sentences
    from perceptron_c.tagging import PerceptronTagger
    random.seed(0)
    tagger = PerceptronTagger(load=False, structured=sys.argv[2] == "structured")
    tagger.train(tagged_sentences(0, 600), nr_iter=2)
    words = [[w for w, _ in s] for s in tagged_sentences(1, 6000)]
    words = [[w + str(k % 97) if k % 3 else w for w in s] for k, s in enumerate(words)]
    serial = tagger.tag_sents(words)
    rng = random.Random(1)
    interrupted = 0
    for trial in range(12):
        timer = threading.Timer(rng.uniform(0.001, 0.05), os.kill, (os.getpid(), signal.SIGINT))
        try:
            timer.start()
            got = tagger.tag_sents(words)
            timer.join()
            time.sleep(0.01)  # (the handler runs here if the call ended first)
            assert got == serial, "a full call tagged differently"
        except KeyboardInterrupt:
            interrupted += 1
        timer.join()
        assert tagger.tag_sents(words) == serial, f"trial {trial}: tags changed"
        assert [tagger.tag(s) for s in words[:200]] == serial[:200]
    print("ok", interrupted)
""")


@pytest.mark.skipif(not HAVE_C, reason="the Python twins look for signals between bytecodes")
@pytest.mark.skipif(sys.platform == "win32", reason="os.kill(SIGINT) is not Ctrl-C there")
@pytest.mark.parametrize("kind", ["greedy", "structured"])
def test_ctrl_c_in_tag_sents_changes_no_later_tag(kind):
    """Ctrl-C at random points of tag_sents of words never seen: later calls tag as before
    (it left a word with an id and no row, and 1-9 of 10,000 sentences tagged otherwise)."""
    tests = os.path.dirname(os.path.abspath(__file__))
    result = run_python(["-c", TAG_SENTS_INTERRUPTED, tests, kind], capture_output=True,
                        text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split()[0] == "ok"


def _file_state(model):
    from perceptron_c.io import _file_arrays

    return {k: (v.dtype.str, v.shape, v.tobytes()) for k, v in _file_arrays(model).items()}


def test_a_first_partial_fit_interrupted_leaves_the_model_unfitted(monkeypatch, rng):
    from perceptron_c import NotFittedError

    X = rng.normal(size=(100, 4))
    model = Perceptron()
    interrupt_after_real_work(monkeypatch, _backend.linear, "perceptron_epoch_dense",
                               after_calls=1)
    with pytest.raises(KeyboardInterrupt):
        model.partial_fit(X, (X[:, 0] > 0).astype(int), classes=[0, 1])
    monkeypatch.undo()
    assert not hasattr(model, "classes_")
    with pytest.raises(NotFittedError):
        model.predict(X)


def test_a_failed_fit_leaves_the_model_as_it_was(rng):
    X = rng.normal(size=(100, 4))
    model = Perceptron(max_iter=3).fit(X, (X[:, 0] > 0).astype(int))
    before = _file_state(model)
    with pytest.raises(ValueError):
        model.fit(X[:, :3], np.zeros(100))  # one class: refused after the rows were read
    assert _file_state(model) == before


CRFSUITE_TRAIN = DEFAULT_SIGINT + textwrap.dedent("""
    import os, signal, sys, tempfile, threading, time
    import perceptron_c.crfsuite as crfsuite
    from perceptron_c.datasets import make_tagged_sentences
    trainer = crfsuite.Trainer(verbose=False)
    for s in make_tagged_sentences(0, 3000, n_tags=12, n_symbols=2000):
        words = [w for w, _ in s]
        trainer.append([[f"w={w}", f"s={w[-2:]}", f"p={p}"] for w, p in zip(words,
                        ["<s>"] + words[:-1])], [t for _, t in s])
    trainer.select(sys.argv[1])
    trainer.set("max_iterations", 100_000)  # minutes of epochs
    path = os.path.join(tempfile.mkdtemp(), "m.crfsuite")
    sent = []
    def interrupt():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)
    threading.Timer(0.5, interrupt).start()
    try:
        trainer.train(path)
        print("finished")
    except KeyboardInterrupt:
        print("interrupted", time.perf_counter() - sent[0], os.path.exists(path))
""")


@pytest.mark.skipif(sys.platform == "win32", reason="os.kill(SIGINT) is not Ctrl-C there")
@pytest.mark.parametrize("algorithm", ["ap", "pa", "arow"])
def test_crfsuite_training_is_interrupted_and_writes_no_file(algorithm):
    result = run_python(["-c", CRFSUITE_TRAIN, algorithm], capture_output=True, text=True,
                        timeout=300)
    assert result.returncode == 0, result.stderr
    status, latency, written = result.stdout.split()
    assert status == "interrupted" and written == "False"
    assert float(latency) < 5.0


@pytest.mark.parametrize("algorithm", ["ap", "pa", "arow"])
def test_an_interrupted_crfsuite_training_leaves_the_trainer_as_it_was(monkeypatch, tmp_path,
                                                                        algorithm):
    """Ctrl-C in the third epoch: no model file, and the same Trainer then trains the same
    model, byte for byte, as one never interrupted."""
    import perceptron_c.crfsuite as crfsuite

    def trainer():
        t = crfsuite.Trainer(algorithm, {"max_iterations": 4}, verbose=False)
        rng = np.random.default_rng(0)
        for _ in range(40):
            n = int(rng.integers(1, 9))
            words = [f"w{k}" for k in rng.integers(0, 30, n)]
            t.append([{"w": w, "b": 1.0} for w in words],
                     [f"T{int(w[1:]) % 4}" for w in words])
        return t

    ref_path, path = tmp_path / "ref.crfsuite", tmp_path / "m.crfsuite"
    trainer().train(str(ref_path))
    mine = trainer()
    interrupt_after_real_work(monkeypatch, _backend.crfsuite, f"{algorithm}_epoch",
                               after_calls=3)
    with pytest.raises(KeyboardInterrupt):
        mine.train(str(path))
    assert not path.exists()
    monkeypatch.undo()
    mine.train(str(path))
    assert path.read_bytes() == ref_path.read_bytes()
