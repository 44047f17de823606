"""The popcount Gram of ``_gram_c``: every path this CPU has against the Python twin (the
specification), int16, int32 and int64 out, threads, the PERCEPTRON_C_POPCOUNT switch and Ctrl-C.

The shapes hit every tail of the blocked kernels: word counts around each vector width, byte
flush, word block (512) and panel size; row counts that are not multiples of the micro-tiles
(3 or 4 rows of A, 3, 32 or 64 rows of B), and single rows. Tests never time anything except
the Ctrl-C latency, which runs in a subprocess with generous bounds.
"""
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import DEFAULT_SIGINT, NO_EXTENSIONS, _module

WIDTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255,
          256, 257]
WIDE = [511, 512, 513, 1030]  # word blocks of 512: the sums of several are added into out

needs_c = pytest.mark.skipif(NO_EXTENSIONS, reason="the C twin is not built")


@pytest.fixture(scope="module")
def C():
    return _module("c", "_gram")


@pytest.fixture(scope="module")
def P():
    return _module("python", "_gram")


@pytest.fixture
def every_path(C):
    """Runs a test body on each path the CPU supports, then restores the default one."""
    old = C.popcount_impl()

    def paths():
        for impl in C.available_popcount_impls():
            C.set_popcount_impl(impl)
            yield impl
    try:
        yield paths
    finally:
        C.set_popcount_impl(old)


def random_words(rng, n, nw):
    """Random words with a row of all ones and one of zeros (the extreme popcounts)."""
    W = rng.integers(0, 2**64, size=(n, nw), dtype=np.uint64, endpoint=False)
    if n > 2:
        W[1] = ~np.uint64(0)
        W[2] = 0
    return W


def reference(P, A, B):
    out = np.empty((A.shape[0], B.shape[0]), dtype=np.int64)
    P.gram_conjunction_log2(A, B, out)
    return out


def assert_every_path_gives(C, every_path, A, B, ref, dtypes=(np.int64, np.int32, np.int16)):
    """On each path, the C twin's Gram of A and B into an out of each dtype is ref (out is
    filled with -7 first: an entry left unwritten shows)."""
    for impl in every_path():
        for dtype in dtypes:
            out = np.full(ref.shape, -7, dtype=dtype)
            C.gram_conjunction_log2(A, B, out)
            assert np.array_equal(out, ref), (impl, dtype)


@needs_c
@pytest.mark.parametrize("nw", WIDTHS)
def test_every_path_equals_the_python_twin(C, P, every_path, rng, nw):
    # 13 rows of A (4 + 4 + 4 + 1, 3 * 4 + 1); 70 of B (2 x 32 + 6, 64 + 6, 23 x 3 + 1)
    A, B = random_words(rng, 13, nw), random_words(rng, 70, nw)
    B[5] = A[1]
    assert_every_path_gives(C, every_path, A, B, reference(P, A, B))


@needs_c
@pytest.mark.parametrize("nw", WIDE)
def test_word_blocks_add_up(C, P, every_path, rng, nw):
    # all-ones rows reach the largest sums (64 * nw), where a narrow counter would wrap
    A, B = random_words(rng, 5, nw), random_words(rng, 67, nw)
    B[0] = A[1]
    ref = reference(P, A, B)
    assert ref.max() == 64 * nw
    assert_every_path_gives(C, every_path, A, B, ref, (np.int64, np.int32))


@needs_c
@pytest.mark.parametrize(("na", "nb"), [(1, 1), (1, 70), (70, 1), (2, 33), (7, 65), (5, 31)])
@pytest.mark.parametrize("nw", [1, 3, 16, 33])
def test_single_rows_and_ragged_tiles(C, P, every_path, rng, na, nb, nw):
    A, B = random_words(rng, na, nw), random_words(rng, nb, nw)
    assert_every_path_gives(C, every_path, A, B, reference(P, A, B))


@needs_c
@pytest.mark.parametrize(("n", "nw"), [(1, 16), (2, 4), (41, 9), (70, 16), (131, 33), (200, 64),
                                       (70, 513), (301, 65)])
def test_gram_of_a_set_with_itself(C, P, every_path, rng, n, nw):
    """A is B: the paths that compute half the Gram and mirror it (where that pays) must give
    what they give for a copy of A, which is checked against the Python twin above."""
    A = random_words(rng, n, nw)
    head = reference(P, A[:5], A)
    narrow = (np.int16,) if 64 * nw < 1 << 15 else ()  # A has a row of ones
    for impl in every_path():
        for dtype in (np.int64, np.int32) + narrow:
            ref = np.empty((n, n), dtype=dtype)
            C.gram_conjunction_log2(A, A.copy(), ref)
            assert np.array_equal(ref[:5], head), (impl, dtype)
            for n_jobs in (1, 2):
                out = np.full((n, n), -7, dtype=dtype)
                C.gram_conjunction_log2(A, A, out, n_jobs=n_jobs)
                assert np.array_equal(out, ref), (impl, dtype, n_jobs)


@needs_c
@pytest.mark.parametrize("nw", [1, 16, 65])
def test_threads_never_change_the_result(C, P, every_path, rng, nw):
    # big enough for several row blocks per thread on every path
    A, B = random_words(rng, 301, nw), random_words(rng, 299, nw)
    check = reference(P, A[:7], B[:11])
    for impl in every_path():
        for dtype in (np.int64, np.int32, np.int16):
            outs = []
            for n_jobs in (None, 1, 2, 3, -1):
                out = np.full((301, 299), -7, dtype=dtype)
                C.gram_conjunction_log2(A, B, out, n_jobs=n_jobs)
                outs.append(out)
            assert all(np.array_equal(o, outs[0]) for o in outs[1:]), (impl, dtype)
            assert np.array_equal(outs[0][:7, :11], check), (impl, dtype)


@pytest.mark.parametrize("backend", ["c", "python"])
@pytest.mark.parametrize("n_jobs", [0, 1.0, 2.5, "2", True])
def test_bad_n_jobs(backend, n_jobs):
    G = _module(backend, "_gram")
    A = np.zeros((2, 1), dtype=np.uint64)
    with pytest.raises(ValueError, match="n_jobs must be"):
        G.gram_conjunction_log2(A, A, np.zeros((2, 2), np.int64), n_jobs=n_jobs)


@pytest.mark.parametrize("backend", ["c", "python"])
@pytest.mark.parametrize("n_jobs", [None, 1, 2, -1, -2, -10, np.int64(2)])
def test_good_n_jobs_on_both_twins(backend, rng, n_jobs):
    G = _module(backend, "_gram")
    A = random_words(rng, 5, 2)
    out = np.empty((5, 5), np.int64)
    G.gram_conjunction_log2(A, A, out, n_jobs=n_jobs)
    assert np.array_equal(out, reference(_module("python", "_gram"), A, A))


@pytest.mark.parametrize("backend", ["c", "python"])
@pytest.mark.parametrize("dtype", [np.float64, np.uint32, np.int8, np.uint16, np.uint64])
def test_out_must_be_int16_int32_or_int64(backend, dtype):
    G = _module(backend, "_gram")
    A = np.zeros((2, 1), dtype=np.uint64)
    with pytest.raises(ValueError, match="out must be an int16, int32 or int64 array"):
        G.gram_conjunction_log2(A, A, np.zeros((2, 2), dtype))


@pytest.mark.parametrize("backend", ["c", "python"])
def test_int16_out_holds_popcounts_below_2_to_15(backend, rng):
    """int16 out: always up to 511 words (32704 bits); wider rows only when no two rows can
    share more than 32767 ones (the densest row of either side says)."""
    G = _module(backend, "_gram")
    ones = np.full((1, 512), ~np.uint64(0), dtype=np.uint64)  # 32768 ones
    half = ones.copy()
    half[0, 0] = np.uint64(0)  # 32704 ones
    out = np.zeros((1, 1), np.int16)
    with pytest.raises(ValueError, match="use int32 out"):
        G.gram_conjunction_log2(ones, ones, out)
    G.gram_conjunction_log2(ones, half, out)  # the sparser side decides
    assert out[0, 0] == 32704
    G.gram_conjunction_log2(ones[:, :511], ones[:, :511], out)
    assert out[0, 0] == 32704


@pytest.mark.parametrize("backend", ["c", "python"])
def test_int32_out_needs_fewer_than_2_to_25_words(backend):
    G = _module(backend, "_gram")
    A = np.zeros((0, 1 << 25), dtype=np.uint64)  # no rows: nothing is allocated
    with pytest.raises(ValueError, match="use int64 out"):
        G.gram_conjunction_log2(A, A, np.zeros((0, 0), np.int32))
    G.gram_conjunction_log2(A, A, np.zeros((0, 0), np.int64))
    A = np.zeros((0, (1 << 25) - 1), dtype=np.uint64)
    G.gram_conjunction_log2(A, A, np.zeros((0, 0), np.int32))


@pytest.mark.parametrize("backend", ["c", "python"])
def test_zero_words_and_empty_sides(backend):
    G = _module(backend, "_gram")
    for dtype in (np.int32, np.int64):
        out = np.full((3, 4), 9, dtype=dtype)
        G.gram_conjunction_log2(np.zeros((3, 0), np.uint64), np.zeros((4, 0), np.uint64), out)
        assert not out.any()
        G.gram_conjunction_log2(np.zeros((0, 2), np.uint64), np.zeros((4, 2), np.uint64),
                                np.zeros((0, 4), dtype))


# ---- PERCEPTRON_C_POPCOUNT and Ctrl-C, each in a fresh interpreter ------------------------

def _python(code, env=None, timeout=60):
    child_env = dict(os.environ)
    child_env.pop("PERCEPTRON_C_POPCOUNT", None)
    child_env.update(env or {})
    return subprocess.run([sys.executable, "-I", "-c", textwrap.dedent(code)], env=child_env,
                          capture_output=True, text=True, timeout=timeout)


@needs_c
def test_environment_forces_each_path(C):
    code = """
        import warnings
        warnings.simplefilter("error")
        from perceptron_c._core import _gram_c
        print(_gram_c.popcount_impl())
    """
    for impl in C.available_popcount_impls():
        for spelling in (impl, f" {impl.upper()} "):
            result = _python(code, {"PERCEPTRON_C_POPCOUNT": spelling})
            assert result.returncode == 0, result.stderr
            assert result.stdout.split() == [impl]


@needs_c
def test_environment_with_a_path_this_cpu_lacks_warns_and_keeps_the_best(C):
    best = C.available_popcount_impls()[-1]
    code = """
        import warnings
        warnings.simplefilter("always")
        from perceptron_c._core import _gram_c
        print(_gram_c.popcount_impl())
    """
    missing = [i for i in ("builtin", "popcnt", "avx2", "avx512")
               if i not in C.available_popcount_impls()]
    for value in ["sse9", "avx-512"] + missing:
        result = _python(code, {"PERCEPTRON_C_POPCOUNT": value})
        assert result.returncode == 0, result.stderr
        assert result.stdout.split() == [best]
        assert "RuntimeWarning" in result.stderr and "PERCEPTRON_C_POPCOUNT" in result.stderr
    result = _python(code, {"PERCEPTRON_C_POPCOUNT": ""})
    assert result.stdout.split() == [best] and "RuntimeWarning" not in result.stderr


INTERRUPT = """
    import os, signal, sys, threading, time, traceback
    import numpy as np
    from perceptron_c._core import _gram_c

    _gram_c.set_popcount_impl("builtin")  # the slowest path: each call takes seconds
    A = np.random.default_rng(0).integers(0, 2**63, size=(2000, 256), dtype=np.uint64)
    out = np.empty((2000, 2000), np.int64)
    _gram_c.gram_conjunction_log2(A[:40], A[:40], np.empty((40, 40), np.int64))  # warm-up
    sent = []

    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0.3, interrupt)
    timer.start()
    start = time.monotonic()
    try:
        while time.monotonic() - start < 30:  # a CPU fast enough to finish just goes round
            _gram_c.gram_conjunction_log2(A, A, out, n_jobs={n_jobs})
        print("not interrupted")
    except KeyboardInterrupt:
        late = time.monotonic() - sent[0]
        # threads still inside a call of the Gram's blocks (an idle pool thread waits for work)
        busy = [t for t, f in sys._current_frames().items() if t != threading.get_ident()
                and any(g.f_code.co_filename.endswith("_threads.py") for g, _ in
                        traceback.walk_stack(f))]
        print("latency", late, "busy", len(busy))
    timer.join()
"""


@needs_c
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT from os.kill is POSIX")
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_ctrl_c_interrupts_within_a_second(n_jobs):
    result = _python(DEFAULT_SIGINT + textwrap.dedent(INTERRUPT).replace("{n_jobs}", str(n_jobs)))
    assert result.returncode == 0, result.stderr
    words = result.stdout.split()
    assert words[0] == "latency", result.stdout
    assert float(words[1]) < 1.0, result.stdout
    assert words[2:] == ["busy", "0"], result.stdout  # no helper works on after it


@pytest.mark.skipif(not (sys.platform.startswith("linux") and platform.machine() in
                         ("x86_64", "AMD64")), reason="an x86-64 Linux program")
@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_the_bench_bound_program_builds_and_runs(tmp_path):
    # bench/popcnt_bound.c (the POPCNT path against its core's ceiling) compiles against the
    # installed _popcount.h and runs: bench/README.md's figures come from it
    import perceptron_c

    source = pathlib.Path(__file__).resolve().parents[1] / "bench" / "popcnt_bound.c"
    if not source.exists():
        pytest.skip("no bench/ beside the tests")
    headers = pathlib.Path(perceptron_c.get_include())
    if not (headers / "_popcount.h").exists():
        pytest.skip("the installed package has no _popcount.h")
    exe = tmp_path / "popcnt_bound"
    subprocess.run(["gcc", "-O2", "-fwrapv", "-pthread", "-Wall", "-Werror", f"-I{headers}",
                    str(source), "-o", str(exe)], check=True, capture_output=True, text=True)
    run = subprocess.run([str(exe), "1"], capture_output=True, text=True, timeout=120)
    if run.returncode == 1 and "no POPCNT" in run.stderr:
        pytest.skip("this CPU has no POPCNT")
    assert run.returncode == 0, run.stderr
    assert "the path reaches" in run.stdout and "2 threads at once" in run.stdout, run.stdout
