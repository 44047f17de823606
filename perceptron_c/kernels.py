"""Kernel functions and Gram matrices (numpy only at import).

Kernels (Ohio slides, kernels and the construction rules 6.13-6.22; Columbia notes, Claim 2.1):

- ``Linear()``: x . y
- ``Polynomial(degree=3, gamma=1.0, coef0=1.0)``: (gamma x . y + coef0) ** degree
- ``RBF(gamma=None)``: exp(-gamma ||x - y||^2), ``gamma=None`` meaning 1 / n_features
- ``Conjunction()``: 2 ** popcount(a AND b) on 0/1 vectors, the inner product of the
  all-monotone-conjunctions feature map (one feature per subset of the variables)
- closure rules: ``Sum(k1, k2)`` = ``k1 + k2``, ``Product(k1, k2)`` = ``k1 * k2``,
  ``Scaled(c, k)`` = ``c * k`` for c > 0: each is again a valid (PSD) kernel.

Every kernel object is called as ``k(X, Y=None)`` and returns the float64 Gram matrix.
``gram(X, Y=None, kernel="linear", **params)`` does the same from a name, an object or any
callable ``k(X, Y) -> Gram``. 0/1 data for the conjunction kernel may be given packed
(``pack_bits`` -> ``PackedBits``): the result is the same either way.

2 ** k overflows float64 from k = 1024 on: the conjunction Gram then raises OverflowError,
unless ``log2=True``, which returns the exact int64 exponents popcount(a AND b).
"""
import numbers
from typing import NamedTuple

import numpy as np

from . import _backend
from ._validation import check_X, is_sparse

__all__ = [
    "Kernel", "Linear", "Polynomial", "RBF", "Conjunction", "Sum", "Product", "Scaled",
    "CallableKernel", "PackedBits", "pack_bits", "unpack_bits", "get_kernel", "gram",
    "KERNEL_NAMES", "kernel_to_spec", "kernel_from_spec",
]

# float64's largest power of two is 2^1023.
MAX_LOG2 = 1023


class PackedBits(NamedTuple):
    """0/1 rows packed 64 to a word: bit i of a row is word i // 64, bit position i % 64."""

    words: np.ndarray
    n_bits: int

    @property
    def shape(self):
        return (self.words.shape[0], self.n_bits)


def _n_words(n_bits):
    return (n_bits + 63) // 64


def _check_packed(P, name):
    words, n_bits = P
    if isinstance(n_bits, bool) or not isinstance(n_bits, numbers.Integral) or n_bits < 1:
        raise ValueError(f"{name}: PackedBits.n_bits must be a positive integer, got {n_bits!r}")
    n_bits = int(n_bits)
    words = np.asarray(words)
    if words.dtype != np.uint64 or words.ndim != 2:
        raise TypeError(f"{name}: PackedBits.words must be a 2-D uint64 array, got "
                        f"{words.dtype} of shape {words.shape}")
    if words.shape[1] != _n_words(n_bits):
        raise ValueError(f"{name}: {n_bits} bits need {_n_words(n_bits)} words per row, got "
                         f"{words.shape[1]}")
    if words.shape[0] < 1:
        raise ValueError(f"{name}: found 0 rows while a minimum of 1 is required.")
    if n_bits % 64 and np.any(words[:, -1] >> np.uint64(n_bits % 64)):
        raise ValueError(f"{name}: PackedBits has bits set beyond n_bits = {n_bits}; the "
                         "padding bits of the last word must be 0")
    return PackedBits(np.ascontiguousarray(words), n_bits)


def _check_01(X, name):
    """A 2-D 0/1 array as C-contiguous uint8."""
    if X is None:
        raise ValueError(f"{name}: expected a 2-D array of 0/1 values, got None")
    if is_sparse(X):
        X = X.toarray()
    if isinstance(X, str):
        raise TypeError(f"{name}: expected a 2-D array of 0/1 values, got a string")
    arr = np.asarray(X)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected a 2-D array of 0/1 values, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D array of 0/1 values, got {arr.ndim} "
                         f"dimension(s) (shape {arr.shape})")
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name}: expected at least one row and one column, got shape "
                         f"{arr.shape}")
    if arr.dtype.kind != "b":
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            raise ValueError(f"{name}: input contains NaN; the conjunction kernel needs 0/1 "
                             "values")
        bad = (arr != 0) & (arr != 1)
        if bad.any():
            value = arr[bad].flat[0]
            raise ValueError(f"{name}: the conjunction kernel needs 0/1 values, found "
                             f"{value!r}")
    return np.ascontiguousarray(arr, dtype=np.uint8)


def pack_bits(X):
    """Pack a 2-D array of 0/1 values (bool, int or float) into ``PackedBits``."""
    if isinstance(X, PackedBits):
        return _check_packed(X, "X")
    X01 = _check_01(X, "X")
    words = np.empty((X01.shape[0], _n_words(X01.shape[1])), dtype=np.uint64)
    _backend.kernels.pack_rows(X01, words)
    return PackedBits(words, X01.shape[1])


def unpack_bits(words, n_bits):
    """The 0/1 uint8 rows that ``pack_bits`` packed into ``words`` (inverse of pack_bits)."""
    P = _check_packed((words, n_bits), "words")
    as_bytes = P.words.astype("<u8", copy=False).view(np.uint8)
    return np.unpackbits(as_bytes, axis=1, bitorder="little")[:, :P.n_bits]


def _as_packed(X, name):
    if isinstance(X, PackedBits):
        return _check_packed(X, name)
    X01 = _check_01(X, name)
    words = np.empty((X01.shape[0], _n_words(X01.shape[1])), dtype=np.uint64)
    _backend.kernels.pack_rows(X01, words)
    return PackedBits(words, X01.shape[1])


def _as_float(X, name):
    """Canonical float64 rows (PackedBits are unpacked; sparse input is densified)."""
    if isinstance(X, PackedBits):
        X = unpack_bits(*X)
    elif is_sparse(X):
        X = X.toarray()
    return np.ascontiguousarray(check_X(X, name), dtype=np.float64)


def _check_same_features(nx, ny):
    if nx != ny:
        raise ValueError(f"X and Y must have the same number of features, got {nx} and {ny}")


def _positive(name, value, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return value


def _finite_gram(K, what):
    if not np.isfinite(K).all():
        raise OverflowError(f"the {what} Gram matrix does not fit in float64 (a value "
                            "overflowed to inf); rescale the data or the kernel parameters")
    return K


class Kernel:
    """Base class: ``k(X, Y=None)`` is the float64 Gram matrix; ``+``, ``*``, ``c *`` compose."""

    def __call__(self, X, Y=None):
        raise NotImplementedError

    def __add__(self, other):
        if not isinstance(other, Kernel):
            return NotImplemented
        return Sum(self, other)

    def __mul__(self, other):
        if isinstance(other, Kernel):
            return Product(self, other)
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            return Scaled(other, self)
        return NotImplemented

    def __rmul__(self, other):
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            return Scaled(other, self)
        return NotImplemented

    def __eq__(self, other):
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    def _key(self):
        return ()

    def __repr__(self):
        return f"{type(self).__name__}()"


class _FloatKernel(Kernel):
    def _prepare(self, X, Y):
        Xf = _as_float(X, "X")
        Yf = Xf if Y is None else _as_float(Y, "Y")
        _check_same_features(Xf.shape[1], Yf.shape[1])
        return Xf, Yf, np.empty((Xf.shape[0], Yf.shape[0]), dtype=np.float64)


class Linear(_FloatKernel):
    """k(x, y) = x . y"""

    def __call__(self, X, Y=None):
        Xf, Yf, out = self._prepare(X, Y)
        _backend.kernels.gram_linear(Xf, Yf, out)
        return _finite_gram(out, "linear")


class Polynomial(_FloatKernel):
    """k(x, y) = (gamma x . y + coef0) ** degree  (Ohio slides: (x . y + c)^M, c >= 0)."""

    def __init__(self, degree=3, gamma=1.0, coef0=1.0):
        if isinstance(degree, bool) or not isinstance(degree, numbers.Integral):
            raise TypeError(f"degree must be an integer >= 1, got {degree!r}")
        if degree < 1:
            raise ValueError(f"degree must be an integer >= 1, got {degree!r}")
        if isinstance(coef0, bool) or not isinstance(coef0, numbers.Real):
            raise TypeError(f"coef0 must be a real number, got {coef0!r}")
        if not np.isfinite(coef0) or coef0 < 0:
            # A negative offset can make the Gram indefinite: no longer a kernel.
            raise ValueError(f"coef0 must be a finite number >= 0, got {coef0!r}")
        self.degree = int(degree)
        self.gamma = _positive("gamma", gamma)
        self.coef0 = float(coef0)

    def __call__(self, X, Y=None):
        Xf, Yf, out = self._prepare(X, Y)
        with np.errstate(over="ignore"):
            _backend.kernels.gram_poly(Xf, Yf, self.degree, self.gamma, self.coef0, out)
        return _finite_gram(out, "polynomial")

    def _key(self):
        return (self.degree, self.gamma, self.coef0)

    def __repr__(self):
        return f"Polynomial(degree={self.degree}, gamma={self.gamma}, coef0={self.coef0})"


class RBF(_FloatKernel):
    """k(x, y) = exp(-gamma ||x - y||^2); gamma=None means 1 / n_features."""

    def __init__(self, gamma=None):
        self.gamma = _positive("gamma", gamma, allow_none=True)

    def __call__(self, X, Y=None):
        Xf, Yf, out = self._prepare(X, Y)
        gamma = 1.0 / Xf.shape[1] if self.gamma is None else self.gamma
        _backend.kernels.gram_rbf(Xf, Yf, gamma, out)
        return out

    def _key(self):
        return (self.gamma,)

    def __repr__(self):
        return f"RBF(gamma={self.gamma})"


class Conjunction(Kernel):
    """k(a, b) = 2 ** popcount(a AND b) on 0/1 vectors (Columbia notes, Claim 2.1)."""

    def log2_gram(self, X, Y=None):
        """The exact int64 exponents popcount(a AND b) (never overflows)."""
        PX = _as_packed(X, "X")
        PY = PX if Y is None else _as_packed(Y, "Y")
        _check_same_features(PX.n_bits, PY.n_bits)
        out = np.empty((PX.words.shape[0], PY.words.shape[0]), dtype=np.int64)
        _backend.kernels.gram_conjunction_log2(PX.words, PY.words, out)
        return out

    def __call__(self, X, Y=None):
        L = self.log2_gram(X, Y)
        top = int(L.max())
        if top > MAX_LOG2:
            raise OverflowError(
                f"conjunction kernel: 2^{top} does not fit in float64 (rows share {top} ones; "
                f"2^k overflows from k = {MAX_LOG2 + 1}). Use gram(..., kernel='conjunction', "
                "log2=True) (or Conjunction().log2_gram) for the exact int64 exponents "
                "popcount(a AND b).")
        return np.ldexp(1.0, L)


class Sum(Kernel):
    """k(x, y) = k1(x, y) + k2(x, y)."""

    def __init__(self, k1, k2):
        self.k1, self.k2 = _as_kernel(k1, "k1"), _as_kernel(k2, "k2")

    def __call__(self, X, Y=None):
        A, B = self.k1(X, Y), self.k2(X, Y)
        with np.errstate(over="ignore"):  # an overflow raises OverflowError just below
            return _finite_gram(A + B, "sum")

    def _key(self):
        return (self.k1, self.k2)

    def __repr__(self):
        return f"Sum({self.k1!r}, {self.k2!r})"


class Product(Kernel):
    """k(x, y) = k1(x, y) * k2(x, y) (Schur product: PSD times PSD is PSD)."""

    def __init__(self, k1, k2):
        self.k1, self.k2 = _as_kernel(k1, "k1"), _as_kernel(k2, "k2")

    def __call__(self, X, Y=None):
        A, B = self.k1(X, Y), self.k2(X, Y)
        with np.errstate(over="ignore"):
            return _finite_gram(A * B, "product")

    def _key(self):
        return (self.k1, self.k2)

    def __repr__(self):
        return f"Product({self.k1!r}, {self.k2!r})"


class Scaled(Kernel):
    """k(x, y) = c * k0(x, y) with c > 0."""

    def __init__(self, c, k):
        self.c = _positive("c", c)
        self.k = _as_kernel(k, "k")

    def __call__(self, X, Y=None):
        A = self.k(X, Y)
        with np.errstate(over="ignore"):
            return _finite_gram(self.c * A, "scaled")

    def _key(self):
        return (self.c, self.k)

    def __repr__(self):
        return f"Scaled({self.c}, {self.k!r})"


class CallableKernel(Kernel):
    """Any function ``f(X, Y) -> Gram``; its output is checked (shape, finite) and cast."""

    def __init__(self, func):
        if not callable(func):
            raise TypeError(f"kernel must be callable, got {func!r}")
        self.func = func

    def __call__(self, X, Y=None):
        Yarg = X if Y is None else Y
        K = np.asarray(self.func(X, Yarg), dtype=np.float64)
        n, m = len(X.words) if isinstance(X, PackedBits) else len(X), \
            len(Yarg.words) if isinstance(Yarg, PackedBits) else len(Yarg)
        if K.shape != (n, m):
            raise ValueError(f"kernel {self.func!r} returned shape {K.shape}, expected the "
                             f"Gram matrix shape {(n, m)}")
        if not np.isfinite(K).all():
            raise ValueError(f"kernel {self.func!r} returned NaN or inf")
        return np.ascontiguousarray(K)

    def _key(self):
        return (self.func,)

    def __repr__(self):
        return f"CallableKernel({self.func!r})"


KERNEL_NAMES = ("linear", "poly", "rbf", "conjunction")


def _as_kernel(k, name):
    if isinstance(k, Kernel):
        return k
    if isinstance(k, str):
        return get_kernel(k)
    if callable(k):
        return CallableKernel(k)
    raise TypeError(f"{name}: expected a kernel object, name or callable, got {k!r}")


def get_kernel(spec, degree=None, gamma=None, coef0=None):
    """A kernel object from a name ("linear", "poly", "rbf", "conjunction"), a kernel object
    (returned as is) or a callable ``k(X, Y) -> Gram``. Parameters left None take defaults;
    a parameter the kernel does not use is an error (so a typo cannot pass silently)."""
    given = {k: v for k, v in (("degree", degree), ("gamma", gamma), ("coef0", coef0))
             if v is not None}
    if isinstance(spec, str):
        if spec in ("poly", "polynomial"):
            return Polynomial(**{"degree": 3, "gamma": 1.0, "coef0": 1.0, **given})
        allowed = {"linear": (), "rbf": ("gamma",), "conjunction": ()}.get(spec)
        if allowed is None:
            raise ValueError(f"kernel must be one of {KERNEL_NAMES}, a Kernel object or a "
                             f"callable, got {spec!r}")
        extra = sorted(set(given) - set(allowed))
        if extra:
            raise ValueError(f"kernel {spec!r} takes no parameter(s) {extra}")
        return {"linear": Linear, "conjunction": Conjunction}[spec]() if spec != "rbf" \
            else RBF(gamma)
    if given and (isinstance(spec, Kernel) or callable(spec)):
        raise ValueError(f"parameters {sorted(given)} apply only to kernel names; set them on "
                         "the kernel object instead")
    return _as_kernel(spec, "kernel")


def kernel_to_spec(k):
    """A JSON-able description of a built-in kernel (composites included), for model files.

    Python callables have no such description: they raise TypeError.
    """
    if isinstance(k, (Linear, Conjunction)):
        return [type(k).__name__]
    if isinstance(k, Polynomial):
        return ["Polynomial", k.degree, k.gamma, k.coef0]
    if isinstance(k, RBF):
        return ["RBF", k.gamma]
    if isinstance(k, (Sum, Product)):
        return [type(k).__name__, kernel_to_spec(k.k1), kernel_to_spec(k.k2)]
    if isinstance(k, Scaled):
        return ["Scaled", k.c, kernel_to_spec(k.k)]
    raise TypeError(f"{k!r} cannot be written to a model file (only the built-in kernels and "
                    "their sums, products and scalings can)")


def kernel_from_spec(spec):
    """Inverse of `kernel_to_spec`; raises ValueError for anything malformed."""
    simple = {"Linear": Linear, "Conjunction": Conjunction}
    try:
        name, *args = spec
        if name in simple and not args:
            return simple[name]()
        if name == "Polynomial":
            return Polynomial(*args)
        if name == "RBF":
            return RBF(*args)
        if name in ("Sum", "Product"):
            k1, k2 = args
            return (Sum if name == "Sum" else Product)(kernel_from_spec(k1),
                                                       kernel_from_spec(k2))
        if name == "Scaled":
            c, k = args
            return Scaled(c, kernel_from_spec(k))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"malformed kernel description {spec!r}: {exc}") from None
    raise ValueError(f"malformed kernel description {spec!r}")


def gram(X, Y=None, kernel="linear", log2=False, **params):
    """The Gram matrix K[i, j] = k(x_i, y_j) (float64, len(X) x len(Y); Y=None means X).

    ``params`` are ``degree``, ``gamma``, ``coef0`` for kernel names. ``log2=True`` (the
    conjunction kernel only) returns the exact int64 exponents popcount(x_i AND y_j).
    """
    unknown = sorted(set(params) - {"degree", "gamma", "coef0"})
    if unknown:
        raise TypeError(f"gram() got unexpected keyword argument(s) {unknown}")
    k = get_kernel(kernel, **params)
    if log2:
        if not isinstance(k, Conjunction):
            raise ValueError(f"log2=True applies only to the conjunction kernel, got {k!r}")
        return k.log2_gram(X, Y)
    return k(X, Y)
