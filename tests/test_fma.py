"""The SGD twin's fma is C99's fma() for every input, on every Python (math.fma or not)."""
import ctypes
import ctypes.util
import itertools
import math
import sys

import numpy as np
import pytest
from conftest import _module

sgd_py = _module("python", "_sgd")


def _libm_fma():
    """C's fma() from the platform's C library (what the C twin calls)."""
    names = ["ucrtbase", "msvcrt"] if sys.platform == "win32" else [ctypes.util.find_library("m"),
                                                                    None]
    for name in names:
        try:
            fn = ctypes.CDLL(name).fma
        except (OSError, AttributeError, TypeError):
            continue
        fn.restype = ctypes.c_double
        fn.argtypes = [ctypes.c_double] * 3
        return fn
    pytest.fail("no fma() in the C library")


C_FMA = _libm_fma()


def cpython_math_fma(a, b, c):
    """math.fma as CPython 3.13+ defines it: C's fma, but ValueError for an invalid
    operation (a NaN from operands that are not NaN) and OverflowError for an overflow
    from finite operands. On Pythons without math.fma this stands in for it."""
    r = C_FMA(a, b, c)
    if math.isnan(r) and not any(map(math.isnan, (a, b, c))):
        raise ValueError("invalid operation in fma")
    if math.isinf(r) and all(map(math.isfinite, (a, b, c))):
        raise OverflowError("overflow in fma")
    return r


SPECIAL = [0.0, -0.0, 1.0, -1.5, 34.0, 2.0 ** -1074, -(2.0 ** -1022), 1e-300, 1e300,
           -1.7976931348623157e308, math.inf, -math.inf, math.nan]


def _inputs():
    yield from itertools.product(SPECIAL, repeat=3)
    rng = np.random.default_rng(0)
    for _ in range(3000):  # every scale, so overflows, underflows and cancellations occur
        a, b, c = (float(m) * 2.0 ** int(e) for m, e in zip(rng.normal(size=3),
                                                             rng.integers(-1070, 1020, 3)))
        yield a, b, c
        yield a, b, -a * b  # cancels the product's rounded value: the low bits remain


def _same(x, y):
    return (math.isnan(x) and math.isnan(y)) or \
        (x == y and math.copysign(1.0, x) == math.copysign(1.0, y))


@pytest.mark.parametrize("math_fma", ["cpython", "absent", "native"])
def test_fma_is_c99_fma_for_every_input(monkeypatch, math_fma):
    # math.fma raises ValueError (34 * -inf + inf) and OverflowError where C returns nan
    # or inf: the twin failed the bit-for-bit test on Python 3.13+
    if math_fma == "native":
        if not hasattr(math, "fma"):
            pytest.skip("this Python has no math.fma (3.13+); 'cpython' stands in for it")
        monkeypatch.setattr(sgd_py, "_math_fma", math.fma)
    else:
        monkeypatch.setattr(sgd_py, "_math_fma", cpython_math_fma if math_fma == "cpython"
                            else None)
    wrong = [(a, b, c) for a, b, c in _inputs() if not _same(sgd_py._fma(a, b, c),
                                                              C_FMA(a, b, c))]
    assert not wrong, wrong[:5]


def test_the_reported_case():
    assert math.isnan(sgd_py._fma(34.0, -math.inf, math.inf))
    assert sgd_py._fma(1e300, 1e300, 0.0) == math.inf
    assert sgd_py._fma(-1e300, 1e300, 0.0) == -math.inf
