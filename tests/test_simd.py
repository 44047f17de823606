"""The x86-64 SIMD paths: in the build wherever the CPU has them (numpy's CPU check as the
witness: on a Windows x64 wheel this is what proves that MSVC compiled them), and the headers'
MSVC branches run under gcc and parsed by clang-cl (``tests/c``)."""
import functools
import os
import pathlib
import platform
import re
import shutil
import subprocess

import numpy as np
import pytest
from conftest import NO_EXTENSIONS, _module

X86_64 = platform.machine().lower() in ("x86_64", "amd64", "x64")
HERE = pathlib.Path(__file__).resolve().parent


def _numpy_cpu_features():
    """numpy's run-time CPU check (CPUID and XGETBV, like _simd.h's), or None if unknown."""
    for name in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):
        try:
            module = __import__(name, fromlist=["__cpu_features__"])
        except ImportError:
            continue
        return getattr(module, "__cpu_features__", None)
    return None


@pytest.mark.skipif(NO_EXTENSIONS, reason="the C twin is not built")
@pytest.mark.skipif(not X86_64, reason="the SIMD paths are x86-64's")
def test_every_path_the_cpu_has_is_compiled_in():
    # a build without the SIMD paths (as MSVC's were before _simd.h) lists builtin and SSE2 only
    features = _numpy_cpu_features()
    if not features or "AVX2" not in features:
        pytest.skip(f"numpy {np.__version__} does not say what this CPU has")
    has = {name for name, on in features.items() if on}
    popcount = ["builtin"]
    if "POPCNT" in has:
        popcount.append("popcnt")
        if "AVX2" in has:
            popcount.append("avx2")
        if {"AVX512F", "AVX512VPOPCNTDQ"} <= has:
            popcount.append("avx512")
    C = _module("c", "_gram")
    impls = C.available_popcount_impls()
    if "AVX512VPOPCNTDQ" not in features:  # an older numpy: the AVX-512 path unknown
        impls = tuple(i for i in impls if i != "avx512")
    assert impls == tuple(popcount), sorted(has)
    if not os.environ.get("PERCEPTRON_C_POPCOUNT"):  # the default is the widest
        assert C.popcount_impl() == C.available_popcount_impls()[-1]
    rbf = ("portable", "sse2", "avx2") if "AVX2" in has else ("portable", "sse2")
    if "AVX2" in has and "AVX512F" in has:
        rbf += ("avx512",)
    assert C._rbf_paths() == rbf, sorted(has)
    dot = ("portable", "simd", "avx2") if "AVX2" in has else ("portable", "simd")
    if "AVX2" in has and {"AVX512F", "AVX512VL"} <= has:
        dot += ("avx512",)
    assert C._dot_paths() == dot, sorted(has)


def _headers():
    # the checkout's: the wheel ships only the headers of the C API (perceptron_c.capi)
    headers = HERE.parent / "perceptron_c" / "_core"
    if not (headers / "_simd.h").exists():
        pytest.skip("no checkout beside the tests")
    if not (HERE / "c" / "simd_paths.c").exists():
        pytest.skip("no tests/c beside the tests")
    return headers


def _run(args):
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(NO_EXTENSIONS, reason="the C core's headers: tested with the C build")
@pytest.mark.skipif(not (X86_64 and platform.system() == "Linux"), reason="x86-64 Linux")
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_every_path_agrees_with_the_portable_one_in_both_branches(tmp_path, cc):
    # the gcc/clang branch as the wheels build it, then the MSVC branch: no target attributes,
    # the whole file compiled for this CPU instead (MSVC compiles any intrinsic anywhere)
    if shutil.which(cc) is None:
        pytest.skip(f"needs {cc}")
    headers, source = _headers(), HERE / "c" / "simd_paths.c"
    flags = [cc, "-O2", "-fwrapv", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror",
             f"-I{headers}"]
    msvc = ["-DPC_SIMD_AS_MSVC", f"-I{HERE / 'c' / 'msvc'}"]
    for extra, branch in (([], "gcc/clang"), (msvc + ["-march=native"], "msvc")):
        exe = tmp_path / f"simd_paths_{branch.replace('/', '_')}"
        build = _run(flags + extra + [str(source), "-o", str(exe), "-lm"])
        assert build.returncode == 0, build.stderr
        run = _run([str(exe)])
        assert run.returncode == 0, run.stdout + run.stderr
        lines = run.stdout.splitlines()
        assert lines[0] == f"branch: {branch}" and lines[-1] == "ok", run.stdout
        if " avx2=1" in run.stdout:  # the CPU check itself is compared with the compiler's
            assert {"dispatch: x86", "popcount path avx2: ok", "rbf path avx2: ok",
                    "dot path avx2: ok", "viterbi path avx2: ok"} <= set(lines)
        if " avx512f=1" in run.stdout:
            assert "rbf path avx512: ok" in lines, run.stdout
    # every path compiles in the MSVC branch, AVX-512 included where this CPU lacks it
    wide = ["-mpopcnt", "-mavx2", "-mavx512f", "-mavx512bw", "-mavx512vpopcntdq"]
    build = _run(flags + msvc + wide + ["-c", str(source), "-o", str(tmp_path / "all.o")])
    assert build.returncode == 0, build.stderr


CRT = {  # the few C library headers the headers use, declared for a syntax check
    "stdlib.h": "#include <stddef.h>\nvoid *malloc(size_t);\nvoid free(void *);\n",
    "string.h": "#include <stddef.h>\nvoid *memset(void *, int, size_t);\n"
                "void *memcpy(void *, const void *, size_t);\n",
    "math.h": "double ldexp(double, int);\ndouble fabs(double);\n"
              "#ifndef NAN\n#define NAN __builtin_nan(\"\")\n#endif\n",
    "malloc.h": "#include <stddef.h>\nvoid *_aligned_malloc(size_t, size_t);\n"
                "void _aligned_free(void *);\n",
    "setjmp.h": "typedef long long jmp_buf[16];\nint _setjmp(jmp_buf);\n",
}
UNIT = """#include "_dot.h"
#include "_popcount.h"
#include "_rbf.h"
#if defined(PC_X86_DISPATCH) != WANT_DISPATCH || defined(PC_HAVE_AVX512) != WANT_DISPATCH
#error "the SIMD paths are not selected as expected"
#endif
#if defined(PC_TEST_MSVC) && !defined(PC_MSVC)
#error "not the MSVC branch"
#endif
int best(void) { return pc_best_impl() + pc_rbf_best_path() + pc_dot_best_path(); }
void dots(const double *X, const double *Y, double *out, int path) {
    pc_gram_dot(X, 5, Y, 7, 9, out, 7, path, 1);
    pc_gram_dot(X, 20, Y, 7, 300, out, 7, path, 1);
    pc_row_sqnorms(X, 5, 9, out);
}
void gram(int impl, const uint64_t *A, ptrdiff_t na, const uint64_t *B, ptrdiff_t nb,
          ptrdiff_t nw, uint64_t *buf, void *out) {
    pc_gram_rows(impl, A, na, pc_pack_b(impl, B, nb, nw, buf), nb, nw, out, nb, 0, 0, 0);
}
ptrdiff_t rbf(double *row, ptrdiff_t n, const double *yy, int64_t *pos, int path) {
    pc_exp_nonpositive(row, n, path);
    return pc_rbf_row(row, n, 1.0, yy, 0x1p-30, -0.5, -1, pos, 0, 8, 0, path);
}
"""


@functools.cache
def _clangs():
    """The clang of each major version on PATH."""
    found = {}
    for name in ["clang"] + [f"clang-{v}" for v in range(14, 31)]:
        path = shutil.which(name)
        if path:
            version = re.search(r"clang version (\d+)", _run([path, "--version"]).stdout)
            if version:
                found[int(version.group(1))] = path
    return found


@pytest.mark.skipif(NO_EXTENSIONS, reason="the C core's headers: tested with the C build")
@pytest.mark.skipif(not _clangs(), reason="needs clang (for clang-cl)")
def test_clang_cl_compiles_the_headers_for_windows(tmp_path):
    # clang-cl 19 on: every path, with target attributes and MSVC's __cpuidex and _xgetbv; before
    # 19 its <immintrin.h> declares only what /arch enabled, so the portable paths alone. Then
    # the MSVC branch itself (clang-cl without __clang__: __forceinline, __popcnt64, no target
    # attributes), the whole unit compiled for AVX-512 in place of "intrinsics anywhere".
    headers = _headers()
    crt = tmp_path / "crt"
    crt.mkdir()
    for name, text in CRT.items():
        (crt / name).write_text(text)
    (tmp_path / "unit.c").write_text(UNIT)
    cl = ["--driver-mode=cl", "--target=x86_64-pc-windows-msvc", "/Od", "/W4", "/c",
          f"/I{crt}", f"/I{headers}", str(tmp_path / "unit.c"), f"/Fo{tmp_path / 'unit.obj'}"]
    for version, clang in sorted(_clangs().items()):
        want = int(version >= 19)
        build = _run([clang, f"/DWANT_DISPATCH={want}", "/WX"] + cl)
        assert build.returncode == 0, (version, build.stderr)
        if version >= 19:
            build = _run([clang, "/DWANT_DISPATCH=1", "-U__clang__", "/arch:AVX512",
                          "/clang:-mavx512vpopcntdq", "/clang:-mpopcnt", "/DPC_TEST_MSVC"] + cl)
            assert build.returncode == 0, (version, build.stderr)
