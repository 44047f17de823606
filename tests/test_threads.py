"""`_threads.run_shared`: the blocks of one call on the calling thread and the shared pool.

It is the schedule of the popcount Gram's row blocks and of the float Gram's products and
elementwise passes (both twins): every block exactly once for any n_jobs, the pool's threads
taking part, errors raised only once nothing runs any more, and no wait on a busy pool.
"""
import contextvars
import threading
import time

import pytest
from conftest import HAVE_C

from perceptron_c._utils import _threads
from perceptron_c._utils._threads import run_parallel, run_shared


@pytest.mark.parametrize("n_blocks", [0, 1, 2, 5, 100])
@pytest.mark.parametrize("n_jobs", [None, 1, 2, 3, -1])
def test_every_block_runs_exactly_once(n_blocks, n_jobs):
    seen = []
    run_shared(seen.append, n_blocks, n_jobs)
    assert sorted(seen) == list(range(n_blocks))


def test_the_pool_takes_blocks_beside_the_calling_thread():
    names = []

    def block(b):
        names.append(threading.current_thread().name)
        time.sleep(0.01)  # long enough for a pool thread to wake up and take some

    run_shared(block, 12, 2)
    assert threading.current_thread().name in names
    assert any(name.startswith("perceptron_c") for name in names), names
    assert len(names) == 12


def test_blocks_run_in_the_callers_context():
    var = contextvars.ContextVar("var", default="unset")
    var.set("caller")
    seen = set()

    def block(b):
        seen.add((threading.current_thread().name.startswith("perceptron_c"), var.get()))
        time.sleep(0.005)

    run_shared(block, 8, 2)
    assert {value for _, value in seen} == {"caller"}
    assert (True, "caller") in seen  # a pool thread saw it too


@pytest.mark.parametrize("failing", ["caller", "helper"])
def test_an_error_is_raised_once_no_block_runs(failing):
    inside, started = [0], []
    lock = threading.Lock()

    def block(b):
        on_pool = threading.current_thread().name.startswith("perceptron_c")
        with lock:
            inside[0] += 1
            started.append(b)
        try:
            time.sleep(0.02)
            if on_pool == (failing == "helper"):
                raise ValueError(f"block {b}")
        finally:
            with lock:
                inside[0] -= 1

    with pytest.raises(ValueError, match="block"):
        run_shared(block, 40, 2)
    assert inside[0] == 0  # every block that started had ended
    assert len(started) < 40  # and none started after the error stopped the call


def test_a_busy_pool_never_holds_the_call_up():
    # every pool thread blocked elsewhere: the helpers queue, the calling thread does every
    # block alone, and the queued helpers are cancelled instead of awaited
    pool = _threads._shared_pool()
    release = threading.Event()
    busy = [pool.submit(release.wait, 30) for _ in range(pool._max_workers)]
    try:
        seen = []
        done = threading.Event()

        def call():
            run_shared(seen.append, 6, 2)
            done.set()

        caller = threading.Thread(target=call)
        caller.start()
        assert done.wait(10), "run_shared waited on a helper the busy pool never started"
        caller.join()
        assert sorted(seen) == list(range(6))
    finally:
        release.set()
        for f in busy:
            f.result()


def test_a_call_from_inside_a_pool_task_runs_serially():
    # run_parallel's tasks run on the pool: run_shared there runs on that thread alone
    def task(k):
        names = set()
        run_shared(lambda b: names.add(threading.current_thread().name), 4, 2)
        return names

    results = run_parallel([lambda k=k: task(k) for k in range(4)], 2)
    assert all(len(names) == 1 for names in results), results


def test_an_error_stops_the_other_threads_tasks_too():
    # run_parallel once gave each thread a fixed share: after the calling thread's error the
    # pool thread still ran its whole share (here 20 tasks of 20 ms)
    started = []

    def task(i):
        started.append(i)
        if threading.current_thread() is threading.main_thread():
            raise ValueError("caller's task")
        time.sleep(0.02)

    with pytest.raises(ValueError, match="caller's task"):
        run_parallel([lambda i=i: task(i) for i in range(40)], 2)
    assert len(started) <= 4, started


@pytest.mark.parametrize("failing", ["caller", "helper"])
def test_a_block_under_way_stops_at_its_next_stop_point(failing):
    # the blocks of compiled loops call stop_point between chunks: the one running on the
    # other thread when the call fails stops there instead of running to its end, and the
    # call raises the error that stopped it, never the Cancelled of the stopped thread
    ended = []

    def block(b):
        mine = threading.current_thread().name.startswith("perceptron_c") == (
            failing == "helper")
        if mine:
            time.sleep(0.05)
            raise ValueError("the failing block")
        for _ in range(2000):  # 10 s unless stopped
            _threads.stop_point()
            time.sleep(0.005)
        ended.append(b)

    tic = time.perf_counter()
    with pytest.raises(ValueError, match="the failing block"):
        run_shared(block, 2, 2)
    assert time.perf_counter() - tic < 5.0 and not ended


def test_stop_point_outside_a_call_does_nothing():
    _threads.stop_point()
    run_shared(lambda b: _threads.stop_point(), 3, 1)


@pytest.mark.parametrize("values,expected", [
    ({}, "cores"),
    ({"OMP_NUM_THREADS": "1"}, 1),
    ({"OMP_NUM_THREADS": "1,4"}, 1),  # OpenMP's list form: the outer level
    ({"PERCEPTRON_C_NUM_THREADS": "1", "OMP_NUM_THREADS": "8"}, 1),
    ({"OMP_NUM_THREADS": "0"}, "cores"),  # not a positive count: ignored
    ({"OMP_NUM_THREADS": "many"}, "cores"),
    ({"OMP_NUM_THREADS": "100000"}, "cores"),  # never more than the cores
])
def test_a_product_without_n_jobs_uses_every_core_unless_a_limit_says(monkeypatch, values,
                                                                      expected):
    from perceptron_c._core._contract import effective_jobs

    for var in _threads.THREAD_LIMIT_VARIABLES:
        monkeypatch.delenv(var, raising=False)
    for var, value in values.items():
        monkeypatch.setenv(var, value)
    cores = _threads._cpu_count()
    want = cores if expected == "cores" else min(cores, expected)
    assert _threads.default_threads() == want
    assert effective_jobs(None) == want
    assert effective_jobs(1) == 1 and effective_jobs(-1) == cores  # n_jobs given: as it says


def test_a_gram_without_n_jobs_runs_on_the_default_threads(monkeypatch):
    # the products and the elementwise pass of a Gram called at its defaults take
    # default_threads() threads (here 3, whatever the machine has): the blocks of each pass
    # are offered to that many threads, and the Gram is the one-thread Gram bit for bit
    import numpy as np

    from perceptron_c.kernels import gram

    X = np.random.default_rng(0).normal(size=(600, 40))  # every pass in 2 blocks or more
    one = gram(X, kernel="rbf", gamma=0.1, n_jobs=1)
    asked = []
    real = _threads.run_shared

    def recording(fn, n_blocks, n_jobs):
        asked.append((n_blocks, n_jobs))
        return real(fn, n_blocks, n_jobs)

    monkeypatch.setattr(_threads, "default_threads", lambda: 3)
    monkeypatch.setattr(_threads, "run_shared", recording)
    import perceptron_c._core._contract as contract

    monkeypatch.setattr(contract, "default_threads", lambda: 3)
    monkeypatch.setattr(contract, "run_shared", recording)
    assert np.array_equal(gram(X, kernel="rbf", gamma=0.1), one)
    # (the products and the mirror; the C twin's elementwise pass too)
    assert len(asked) >= 2 and {jobs for _, jobs in asked} == {3}, asked


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf", "conjunction"])
def test_a_call_of_one_block_does_not_look_up_the_default_threads(monkeypatch, kernel):
    # the thread count of n_jobs=None reads the environment (2.5 us): a call with nothing to
    # share (a row's kernel values) never asks for it, and gives the same values
    import numpy as np

    import perceptron_c._core._contract as contract
    from perceptron_c.kernels import gram

    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(2000, 1024)) if kernel == "conjunction" else \
        rng.normal(size=(2000, 24))
    want = gram(X[:1], X, kernel=kernel, n_jobs=1)

    def no_lookup():
        raise AssertionError("a one-row call looked up the default threads")

    monkeypatch.setattr(contract, "default_threads", no_lookup)
    assert np.array_equal(gram(X[:1], X, kernel=kernel), want)
    if kernel == "conjunction" and not HAVE_C:
        return  # the Python twin's popcounts run on one thread whatever n_jobs says
    with pytest.raises(AssertionError, match="looked up"):  # a large call still does
        gram(X, kernel=kernel)
