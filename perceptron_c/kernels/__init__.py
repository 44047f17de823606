"""Kernel functions and Gram matrices (numpy only at import).

Kernels ([Bunescu-CS4900], kernels and the construction rules 6.13-6.22; [Columbia-COMS4252],
Claim 2.1):

- ``Linear()``: x . y
- ``Polynomial(degree=3, gamma=1.0, coef0=1.0)``: (gamma x . y + coef0) ** degree
- ``RBF(gamma=None)``: exp(-gamma ||x - y||^2), ``gamma=None`` meaning 1 / n_features
- ``Conjunction()``: 2 ** popcount(a AND b) on 0/1 vectors, the inner product of the
  all-monotone-conjunctions feature map (one feature per subset of the variables)
- closure rules: ``Sum(k1, k2)`` = ``k1 + k2``, ``Product(k1, k2)`` = ``k1 * k2``,
  ``Scaled(c, k)`` = ``c * k`` for c > 0: each is again a valid (PSD) kernel.

Every kernel object is called as ``k(X, Y=None, n_jobs=None)`` and returns the float64 Gram
matrix. ``gram(X, Y=None, kernel="linear", n_jobs=None, **params)`` does the same from a name,
an object or any callable ``k(X, Y) -> Gram``. 0/1 data for the conjunction kernel may be
given packed (``pack_bits`` -> ``PackedBits``): the result is the same either way.

``n_jobs`` counts threads as scikit-learn counts them (-1: every core, -2: all but one); None,
the default, is every core, as BLAS uses them in scikit-learn's pairwise kernels, or fewer
where PERCEPTRON_C_NUM_THREADS or OMP_NUM_THREADS says so. It never changes the result,
nor does the machine: the popcount Gram shares its rows among
threads; a float kernel's products x . y are the package's 4-lane dots (the same sums as
every linear routine's, computed in C, not by BLAS, whose sums change with its kernel and
its thread count), by blocks of rows that n_jobs threads share, and what follows them (the
polynomial's power by squaring, the RBF's distances and its own exp) runs on n_jobs threads.
A callable kernel is called as it is (n_jobs is not passed on).

2 ** k overflows float64 from k = 1024 on: the conjunction Gram then raises OverflowError,
unless ``log2=True``, which returns the exact int64 exponents popcount(a AND b).
"""
from __future__ import annotations

import inspect
import numbers
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from .. import _backend
from .._utils._docs import fill
from .._utils._validation import PackedBits, as_float_rows, as_packed, check_packed
from . import _specs
from ._specs import (
    KernelSpec,
    gram,
    is_builtin,
    kernel_from_spec,
    kernel_to_spec,
    resolve_kernel,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeAlias

    # what the kernel parameters accept: a kernel object, a name, or any k(X, Y) -> Gram
    KernelLike: TypeAlias = "Kernel | str | Callable[..., Any]"

__all__ = [
    "Kernel", "Linear", "Polynomial", "RBF", "Conjunction", "Sum", "Product", "Scaled",
    "CallableKernel", "PackedBits", "pack_bits", "unpack_bits", "get_kernel", "gram",
    "KERNEL_NAMES", "kernel_to_spec", "kernel_from_spec", "resolve_kernel", "apply_kernel",
    "is_builtin", "BUILTIN_KERNELS", "KernelSpec",
]

# float64's largest power of two is 2^1023.
MAX_LOG2 = 1023


def pack_bits(X: Any) -> PackedBits:
    """Pack a 2-D array of 0/1 values (bool, int or float) into ``PackedBits``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_bits), or PackedBits
        0/1 values (a sparse matrix is densified); a ``PackedBits`` is checked and returned.

    Returns
    -------
    PackedBits
        The rows packed 64 bits to a uint64 word, bit i in word i // 64 at position i % 64.

    Raises
    ------
    TypeError, ValueError
        If ``X`` is not a 2-D array of 0/1 values.
    """
    return as_packed(X, "X")


def unpack_bits(words: Any, n_bits: int) -> np.ndarray:
    """The 0/1 uint8 rows that ``pack_bits`` packed into ``words`` (inverse of pack_bits).

    Parameters
    ----------
    words : ndarray of uint64 of shape (n_samples, ceil(n_bits / 64))
        The packed rows, as ``PackedBits.words``.
    n_bits : int
        The number of bits in each row, as ``PackedBits.n_bits``.

    Returns
    -------
    ndarray of uint8 of shape (n_samples, n_bits)
        The 0/1 rows.

    Raises
    ------
    TypeError
        If ``words`` is not a 2-D uint64 array.
    ValueError
        If ``n_bits`` is not a positive integer, ``words`` has the wrong width for it or no
        rows, or a padding bit beyond ``n_bits`` is set.
    """
    P = check_packed((words, n_bits), "words")
    as_bytes = P.words.astype("<u8", copy=False).view(np.uint8)
    return np.unpackbits(as_bytes, axis=1, bitorder="little")[:, :P.n_bits]


def _check_same_features(nx: int, ny: int) -> None:
    if nx != ny:
        raise ValueError(f"X and Y must have the same number of features, got {nx} and {ny}")


@overload
def _positive(name: str, value: Any) -> float: ...


@overload
def _positive(name: str, value: Any, allow_none: bool) -> float | None: ...


def _positive(name: str, value: Any, allow_none: bool = False) -> float | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return value


def _finite_gram(K: np.ndarray, what: str) -> np.ndarray:
    if not np.isfinite(K).all():
        raise OverflowError(f"the {what} Gram matrix does not fit in float64 (a value "
                            "overflowed to inf); rescale the data or the kernel parameters")
    return K


class Kernel:
    """Base class: ``k(X, Y=None)`` is the float64 Gram matrix; ``+``, ``*``, ``c *`` compose."""

    def __call__(self, X: Any, Y: Any = None, n_jobs: Any = None) -> np.ndarray:
        raise NotImplementedError

    def _rows_into(self, A: Any, B: Any, out: np.ndarray, n_jobs: Any = None,
                   norms: tuple | None = None) -> None:
        """out[...] = k(A, B), for the kernel models' blocks (A, B canonical rows; norms:
        their squared norms, which only the RBF kernel uses). The built-in float kernels
        skip the checks of rows already checked and write into out directly."""
        out[...] = apply_kernel(self, A, B, n_jobs)

    def __add__(self, other: object) -> Kernel:
        if not isinstance(other, Kernel):
            return NotImplemented
        return Sum(self, other)

    def __mul__(self, other: object) -> Kernel:
        if isinstance(other, Kernel):
            return Product(self, other)
        if not isinstance(other, bool) and isinstance(other, numbers.Real):
            return Scaled(other, self)
        return NotImplemented

    def __rmul__(self, other: object) -> Kernel:
        if not isinstance(other, bool) and isinstance(other, numbers.Real):
            return Scaled(other, self)
        return NotImplemented

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def _key(self) -> tuple[Any, ...]:
        return ()

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class _FloatKernel(Kernel):
    def _prepare(self, X: Any, Y: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        Xf = as_float_rows(X, "X")
        Yf = Xf if Y is None else as_float_rows(Y, "Y")
        _check_same_features(Xf.shape[1], Yf.shape[1])
        return Xf, Yf, np.empty((Xf.shape[0], Yf.shape[0]), dtype=np.float64)


class Linear(_FloatKernel):
    """k(x, y) = x . y"""

    def __call__(self, X: Any, Y: Any = None, n_jobs: Any = None) -> np.ndarray:
        Xf, Yf, out = self._prepare(X, Y)
        _backend.gram.gram_linear(Xf, Yf, out, n_jobs=n_jobs)
        return _finite_gram(out, "linear")

    def _rows_into(self, A: Any, B: Any, out: np.ndarray, n_jobs: Any = None,
                   norms: tuple | None = None) -> None:
        _backend.gram.gram_linear(A, B, out, n_jobs=n_jobs)
        _finite_gram(out, "linear")


class Polynomial(_FloatKernel):
    """k(x, y) = (gamma x . y + coef0) ** degree  ([Bunescu-CS4900]: (x . y + c)^M, c >= 0).

    Parameters
    ----------
    degree : int, default=3
        The power, an integer >= 1.
    gamma : float, default=1.0
        The scale of the dot product, a finite number > 0.
    coef0 : float, default=1.0
        The offset, a finite number >= 0 (a negative one can make the Gram matrix
        indefinite).

    Raises
    ------
    TypeError
        If ``degree`` is not an integer, or ``gamma`` or ``coef0`` is not a real number.
    ValueError
        If ``degree`` < 1, ``gamma`` is not a finite number > 0, or ``coef0`` is not a finite
        number >= 0.
    """

    def __init__(self, degree: int | numbers.Integral = 3, gamma: float = 1.0,
                 coef0: float | numbers.Real = 1.0) -> None:
        if isinstance(degree, bool) or not isinstance(degree, numbers.Integral):
            raise TypeError(f"degree must be an integer >= 1, got {degree!r}")
        if degree < 1:
            raise ValueError(f"degree must be an integer >= 1, got {degree!r}")
        if isinstance(coef0, bool) or not isinstance(coef0, numbers.Real):
            raise TypeError(f"coef0 must be a real number, got {coef0!r}")
        if not np.isfinite(float(coef0)) or coef0 < 0:
            # A negative offset can make the Gram indefinite: no longer a kernel.
            raise ValueError(f"coef0 must be a finite number >= 0, got {coef0!r}")
        self.degree = int(degree)
        self.gamma = _positive("gamma", gamma)
        self.coef0 = float(coef0)

    def __call__(self, X: Any, Y: Any = None, n_jobs: Any = None) -> np.ndarray:
        Xf, Yf, out = self._prepare(X, Y)
        with np.errstate(over="ignore"):
            _backend.gram.gram_poly(Xf, Yf, self.degree, self.gamma, self.coef0, out,
                                      n_jobs=n_jobs)
        return _finite_gram(out, "polynomial")

    def _rows_into(self, A: Any, B: Any, out: np.ndarray, n_jobs: Any = None,
                   norms: tuple | None = None) -> None:
        with np.errstate(over="ignore"):
            _backend.gram.gram_poly(A, B, self.degree, self.gamma, self.coef0, out,
                                      n_jobs=n_jobs)
        _finite_gram(out, "polynomial")

    def _key(self) -> tuple[Any, ...]:
        return (self.degree, self.gamma, self.coef0)

    def __repr__(self) -> str:
        return f"Polynomial(degree={self.degree}, gamma={self.gamma}, coef0={self.coef0})"


class RBF(_FloatKernel):
    """k(x, y) = exp(-gamma ||x - y||^2); gamma=None means 1 / n_features.

    Parameters
    ----------
    gamma : float, optional
        The width, a finite number > 0; None means 1 / n_features of the data it is called on.

    Raises
    ------
    TypeError
        If ``gamma`` is neither None nor a real number.
    ValueError
        If ``gamma`` is not a finite number > 0.
    """

    def __init__(self, gamma: float | None = None) -> None:
        self.gamma = _positive("gamma", gamma, allow_none=True)

    def __call__(self, X: Any, Y: Any = None, n_jobs: Any = None) -> np.ndarray:
        Xf, Yf, out = self._prepare(X, Y)
        gamma = 1.0 / Xf.shape[1] if self.gamma is None else self.gamma
        _backend.gram.gram_rbf(Xf, Yf, gamma, out, n_jobs=n_jobs)
        return out

    def _rows_into(self, A: Any, B: Any, out: np.ndarray, n_jobs: Any = None,
                   norms: tuple | None = None) -> None:
        gamma = 1.0 / A.shape[1] if self.gamma is None else self.gamma
        _backend.gram.gram_rbf(A, B, gamma, out, n_jobs=n_jobs, norms=norms)

    def _key(self) -> tuple[Any, ...]:
        return (self.gamma,)

    def __repr__(self) -> str:
        return f"RBF(gamma={self.gamma})"


class Conjunction(Kernel):
    """k(a, b) = 2 ** popcount(a AND b) on 0/1 vectors ([Columbia-COMS4252], Claim 2.1)."""

    def log2_gram(self, X: Any, Y: Any = None, n_jobs: Any = None,
                  dtype: Any = np.int64) -> np.ndarray:
        """The exact exponents popcount(a AND b) of the conjunction Gram matrix.

        Never overflows, unlike ``Conjunction()(X, Y)`` = 2 ** these exponents.

        Parameters
        ----------
        X : array-like of shape (n_samples_X, n_bits) or PackedBits
            0/1 rows, packed or not.
        Y : array-like of shape (n_samples_Y, n_bits) or PackedBits, optional
            0/1 columns, packed or not; None means ``X``.
        n_jobs : int, optional
            Threads, with scikit-learn's meaning (None: 1, -1: every core, -2: all but one); the
            result is the same for any value.
        dtype : numpy integer type, default=np.int64
            The type of the result; int16 or int32 must hold n_bits.

        Returns
        -------
        ndarray of shape (n_samples_X, n_samples_Y)
            ``popcount(x_i AND y_j)``, of type ``dtype``.

        Raises
        ------
        TypeError, ValueError
            If ``X`` or ``Y`` is not 0/1 rows, or their numbers of bits differ.
        """
        PX = as_packed(X, "X")
        PY = PX if Y is None else as_packed(Y, "Y")
        _check_same_features(PX.n_bits, PY.n_bits)
        out = np.empty((PX.words.shape[0], PY.words.shape[0]), dtype=dtype)
        _backend.gram.gram_conjunction_log2(PX.words, PY.words, out, n_jobs=n_jobs)
        return out

    def __call__(self, X: Any, Y: Any = None, n_jobs: Any = None) -> np.ndarray:
        PX = as_packed(X, "X")  # the exponents in the narrowest type that holds them
        L = self.log2_gram(PX, Y, n_jobs, np.int16 if PX.n_bits <= 32767 else np.int32)
        top = int(L.max()) if L.size else 0
        if top > MAX_LOG2:
            raise OverflowError(
                f"conjunction kernel: 2^{top} does not fit in float64 (rows share {top} ones; "
                f"2^k overflows from k = {MAX_LOG2 + 1}). Use gram(..., kernel='conjunction', "
                "log2=True) (or Conjunction().log2_gram) for the exact int64 exponents "
                "popcount(a AND b).")
        return np.ldexp(1.0, L)


class _Pair(Kernel):
    """Two kernels combined entry by entry: what `Sum` and `Product` share."""

    _what = ""  # the name an overflow message gives

    def __init__(self, k1: KernelLike, k2: KernelLike) -> None:
        self.k1, self.k2 = _as_kernel(k1, "k1"), _as_kernel(k2, "k2")

    @staticmethod
    def _combine(A: np.ndarray, B: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, X: Any, Y: Any = None, n_jobs: Any = None) -> np.ndarray:
        A, B = apply_kernel(self.k1, X, Y, n_jobs), apply_kernel(self.k2, X, Y, n_jobs)
        with np.errstate(over="ignore"):  # an overflow raises OverflowError just below
            return _finite_gram(self._combine(A, B), self._what)

    def _key(self) -> tuple[Any, ...]:
        return (self.k1, self.k2)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.k1!r}, {self.k2!r})"


# what the closure rules' docstrings share
_CLOSURE = {
    "pair_raises": """
        Raises
        ------
        TypeError
            If ``k1`` or ``k2`` is none of these.
        ValueError
            If a name is unknown.
        """,
}


@fill(_CLOSURE)
class Sum(_Pair):
    """k(x, y) = k1(x, y) + k2(x, y).

    Parameters
    ----------
    k1, k2 : Kernel, str or callable
        The kernels added: kernel objects, names ("linear", "poly", "rbf", "conjunction"), or
        callables ``f(X, Y) -> Gram`` (wrapped in `CallableKernel`).

    {pair_raises}
    """

    _what = "sum"

    @staticmethod
    def _combine(A: np.ndarray, B: np.ndarray) -> np.ndarray:
        return A + B


@fill(_CLOSURE)
class Product(_Pair):
    """k(x, y) = k1(x, y) * k2(x, y) (Schur product: PSD times PSD is PSD).

    Parameters
    ----------
    k1, k2 : Kernel, str or callable
        The kernels multiplied: kernel objects, names ("linear", "poly", "rbf",
        "conjunction"), or callables ``f(X, Y) -> Gram`` (wrapped in `CallableKernel`).

    {pair_raises}
    """

    _what = "product"

    @staticmethod
    def _combine(A: np.ndarray, B: np.ndarray) -> np.ndarray:
        return A * B


class Scaled(Kernel):
    """k(x, y) = c * k0(x, y) with c > 0.

    Parameters
    ----------
    c : float
        The factor, a finite number > 0.
    k : Kernel, str or callable
        The kernel k0 scaled: a kernel object, a name ("linear", "poly", "rbf",
        "conjunction"), or a callable ``f(X, Y) -> Gram`` (wrapped in `CallableKernel`).

    Raises
    ------
    TypeError
        If ``c`` is not a real number, or ``k`` is none of these.
    ValueError
        If ``c`` is not a finite number > 0, or a name is unknown.
    """

    def __init__(self, c: float | numbers.Real, k: KernelLike) -> None:
        self.c = _positive("c", c)
        self.k = _as_kernel(k, "k")

    def __call__(self, X: Any, Y: Any = None, n_jobs: Any = None) -> np.ndarray:
        A = apply_kernel(self.k, X, Y, n_jobs)
        with np.errstate(over="ignore"):
            return _finite_gram(self.c * A, "scaled")

    def _key(self) -> tuple[Any, ...]:
        return (self.c, self.k)

    def __repr__(self) -> str:
        return f"Scaled({self.c}, {self.k!r})"


class CallableKernel(Kernel):
    """Any function ``f(X, Y) -> Gram``; its output is checked (shape, finite) and cast.

    Calling the kernel with ``Y=None`` calls ``f(X, X)``; ``n_jobs`` is not passed on. It
    raises ValueError if ``f`` returns another shape than (len(X), len(Y)) or a value that is
    not finite.

    Parameters
    ----------
    func : callable
        ``func(X, Y)`` returns the Gram matrix of the rows of ``X`` and ``Y`` (array-like,
        cast to float64).

    Raises
    ------
    TypeError
        If ``func`` is not callable.
    """

    def __init__(self, func: Callable[..., Any]) -> None:
        if not callable(func):
            raise TypeError(f"kernel must be callable, got {func!r}")
        self.func = func

    def __call__(self, X: Any, Y: Any = None, n_jobs: Any = None) -> np.ndarray:
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

    def _key(self) -> tuple[Any, ...]:
        return (self.func,)

    def __repr__(self) -> str:
        return f"CallableKernel({self.func!r})"


# The package's own kernels. Each is written to a model file as its class name and its
# ``_key()`` (`kernel_to_spec`), read back as the class called with them
# (`kernel_from_spec`), and counted as the package's arithmetic (`is_builtin`): a new
# built-in kernel is added here (CONTRIBUTING.md, "Adding a kernel").
BUILTIN_KERNELS: tuple[type[Kernel], ...] = (Linear, Polynomial, RBF, Conjunction)

KERNEL_NAMES = ("linear", "poly", "rbf", "conjunction")
_TAKES_N_JOBS: dict[type, bool] = {}


def apply_kernel(k: Kernel, X: Any, Y: Any = None, n_jobs: Any = None) -> np.ndarray:
    """k(X, Y, n_jobs=n_jobs), or k(X, Y) for a Kernel subclass written without n_jobs.

    Parameters
    ----------
    k : Kernel
        The kernel object.
    X : array-like of shape (n_samples_X, n_features) or PackedBits
        Rows of the Gram matrix.
    Y : array-like of shape (n_samples_Y, n_features) or PackedBits, optional
        Its columns; None means ``X``.
    n_jobs : int, optional
        Threads, with scikit-learn's meaning (None: 1, -1: every core, -2: all but one); the
        result is the same for any value.

    Returns
    -------
    ndarray
        What ``k`` returns, the Gram matrix of shape (n_samples_X, n_samples_Y).
    """
    takes = _TAKES_N_JOBS.get(type(k))
    if takes is None:
        try:
            takes = "n_jobs" in inspect.signature(type(k).__call__).parameters
        except (TypeError, ValueError):
            takes = False
        _TAKES_N_JOBS[type(k)] = takes
    return k(X, Y, n_jobs=n_jobs) if takes else k(X, Y)


def _as_kernel(k: KernelLike, name: str) -> Kernel:
    if isinstance(k, Kernel):
        return k
    if isinstance(k, str):
        return get_kernel(k)
    if callable(k):
        return CallableKernel(k)
    raise TypeError(f"{name}: expected a kernel object, name or callable, got {k!r}")


@fill(_specs.FRAGMENTS)
def get_kernel(spec: KernelLike, degree: int | None = None, gamma: float | None = None,
               coef0: float | None = None) -> Kernel:
    """A kernel object from a name, a kernel object or a callable.

    Parameters left None take defaults; a parameter the kernel does not use is an error (so a
    typo cannot pass silently).

    Parameters
    ----------
    spec : str, Kernel or callable
        A name ("linear", "poly" or "polynomial", "rbf", "conjunction"), a kernel object
        (returned as is) or a callable ``k(X, Y) -> Gram`` (wrapped in `CallableKernel`).
    degree : int, optional
        The polynomial kernel's degree; 3 when None.
    gamma : float, optional
        The polynomial kernel's scale (1.0 when None) or the RBF kernel's width (1 /
        n_features when None).
    coef0 : float, optional
        The polynomial kernel's offset; 1.0 when None.

    {returns_kernel}

    Raises
    ------
    ValueError
        If the name is unknown, or a parameter is given that the kernel does not take (any,
        for a kernel object or a callable), or a parameter is out of range.
    TypeError
        If ``spec`` is none of these, or a parameter has the wrong type.
    """
    given: dict[str, Any] = {k: v for k, v in (("degree", degree), ("gamma", gamma),
                                               ("coef0", coef0)) if v is not None}
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
