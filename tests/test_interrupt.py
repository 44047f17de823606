"""Ctrl-C: a long C call stops mid-way (it looks for signals between chunks of a few
milliseconds), and a model interrupted in an epoch keeps the epochs before it, exactly.

The latency itself is measured in bench/bench_interrupt.py; here the workload would run for
tens of seconds without interruption, so finishing within a few seconds proves the call was
cut short, whatever the machine's load."""
import sys
import textwrap

import numpy as np
import pytest
from conftest import DEFAULT_SIGINT, HAVE_C, run_python

from perceptron_c import KernelPerceptron, Perceptron, _backend

LONG_CALL = DEFAULT_SIGINT + textwrap.dedent("""
    import os, signal, threading, time
    import numpy as np
    from perceptron_c import _backend
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 1000))
    y = np.where(rng.random(4000) < 0.5, -1.0, 1.0)
    order = rng.integers(0, 4000, size=30_000_000)  # 3e10 multiply-adds: tens of seconds
    w, b = np.zeros(1000), np.zeros(1)
    sent = []
    def interrupt():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)
    threading.Timer(0.3, interrupt).start()
    try:
        _backend.linear().perceptron_epoch_dense(X, y, order, w, b, True, False)
        print("finished")
    except KeyboardInterrupt:
        print("interrupted", time.perf_counter() - sent[0])
""")


@pytest.mark.skipif(not HAVE_C, reason="the Python twins look for signals between bytecodes")
@pytest.mark.skipif(sys.platform == "win32", reason="os.kill(SIGINT) is not Ctrl-C there")
def test_a_long_c_epoch_is_interrupted_mid_way():
    result = run_python(["-c", LONG_CALL], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    status, *latency = result.stdout.split()
    assert status == "interrupted"
    assert float(latency[0]) < 5.0


def _interrupt_after_real_work(monkeypatch, module, name, after_calls):
    """Make the routine ``name`` run for real, then raise KeyboardInterrupt once it has been
    called ``after_calls`` times: the state it left half-updated must be rolled back."""
    original = getattr(module, name)
    calls = []

    def wrapped(*args, **kwargs):
        result = original(*args, **kwargs)
        calls.append(1)
        if len(calls) == after_calls:
            raise KeyboardInterrupt
        return result

    monkeypatch.setattr(module, name, wrapped)


@pytest.mark.parametrize("average", [False, True])
def test_an_interrupted_epoch_leaves_no_trace(monkeypatch, rng, average):
    X = rng.normal(size=(200, 6))
    y = (X @ rng.normal(size=6) + rng.normal(size=200) > 0).astype(int)  # not separable
    ref = Perceptron(average=average, random_state=3, max_iter=2).fit(X, y)
    model = Perceptron(average=average, random_state=3, max_iter=50)
    routine = "averaged_epoch_dense" if average else "perceptron_epoch_dense"
    _interrupt_after_real_work(monkeypatch, _backend.linear(), routine, after_calls=3)
    with pytest.raises(KeyboardInterrupt):
        model.fit(X, y)
    # two full epochs kept, the third undone: the same model as max_iter=2
    assert model.n_iter_ == 2 and model.mistakes_.tolist() == ref.mistakes_.tolist()
    assert np.array_equal(model.coef_, ref.coef_)
    assert np.array_equal(model.intercept_, ref.intercept_)
    monkeypatch.undo()
    model.partial_fit(X, y)  # and training goes on from there, as if never interrupted
    ref.partial_fit(X, y)
    assert np.array_equal(model.coef_, ref.coef_)


def test_an_interrupted_kernel_epoch_leaves_no_trace(monkeypatch, rng):
    X = rng.normal(size=(60, 3))
    y = rng.integers(0, 2, 60)
    ref = KernelPerceptron(kernel="rbf", random_state=1, max_iter=1).fit(X, y)
    model = KernelPerceptron(kernel="rbf", random_state=1, max_iter=20)
    _interrupt_after_real_work(monkeypatch, _backend.dual(), "dual_epoch_cached",
                               after_calls=2)
    with pytest.raises(KeyboardInterrupt):
        model.fit(X, y)
    assert model.n_iter_ == 1
    assert np.array_equal(model.dual_coef_, ref.dual_coef_)
    assert np.array_equal(model.support_, ref.support_)
