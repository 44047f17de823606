"""Kernels by name and in model files: `perceptron_c.kernels`' functions above its classes.

``resolve_kernel`` reads an estimator's kernel parameters, ``kernel_to_spec`` and
``kernel_from_spec`` write a kernel to a model file and read it back, ``gram`` computes a
Gram matrix from a name, ``is_builtin`` tells the package's own kernels from the rest. All
are public as ``perceptron_c.kernels.<name>``; they take the kernel classes from there when
called (that module imports this one, so this one imports it only inside its functions).
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .._utils._docs import fill

if TYPE_CHECKING:
    from . import Kernel, KernelLike

__all__ = ["is_builtin", "resolve_kernel", "kernel_to_spec", "kernel_from_spec", "gram",
           "KernelSpec"]


class KernelSpec(NamedTuple):
    """What a kernel model's parameters say it trains with: the ``kind`` of its rows
    ("float", "conjunction" for 0/1 rows, "precomputed" for a Gram, and `VotedPerceptron`'s
    "primal" without a kernel) and the kernel object (None for "precomputed" and "primal")."""

    kind: str
    kernel: Kernel | None

# what the functions returning a kernel object say of it (kernels.get_kernel's too)
FRAGMENTS = {
    "returns_kernel": """
        Returns
        -------
        Kernel
            The kernel object.
        """,
}


def is_builtin(k: Any) -> bool:
    """Whether every part of ``k`` is one of `perceptron_c.kernels`' own kernels.

    Not a subclass, not a callable: its values are the package's own arithmetic, the same on
    any thread.

    Parameters
    ----------
    k : object
        A kernel; `Sum`, `Product` and `Scaled` are looked into.

    Returns
    -------
    bool
        True for `Linear`, `Polynomial`, `RBF`, `Conjunction` and their sums, products and
        scalings.
    """
    from . import BUILTIN_KERNELS, Product, Scaled, Sum

    if type(k) in (Sum, Product):
        return is_builtin(k.k1) and is_builtin(k.k2)
    if type(k) is Scaled:
        return is_builtin(k.k)
    return type(k) in BUILTIN_KERNELS



_NAMES_WITH = {"poly": ("degree", "gamma", "coef0"), "polynomial": ("degree", "gamma", "coef0"),
               "rbf": ("gamma",), "linear": (), "conjunction": (), "precomputed": ()}


def resolve_kernel(k: KernelLike, degree: int | None = None, gamma: float | None = None,
                   coef0: float | None = None) -> KernelSpec:
    """The kind and kernel object of an estimator's kernel parameters, checked.

    The one place the kernel estimators read them.

    Parameters
    ----------
    k : str, Kernel or callable
        The estimator's ``kernel``: a name ("linear", "poly" or "polynomial", "rbf",
        "conjunction", "precomputed"), a kernel object or a callable ``k(X, Y) -> Gram``.
    degree : int, optional
        The polynomial kernel's degree, an integer >= 1; its default when None.
    gamma : float, optional
        The polynomial or RBF kernel's gamma, a finite number > 0; its default when None.
    coef0 : float, optional
        The polynomial kernel's offset, a finite number >= 0; its default when None.

    Returns
    -------
    KernelSpec
        A named pair: ``kind`` ("precomputed", "conjunction" or "float"), how the estimator
        takes its rows (a Gram matrix, 0/1 rows, or float rows), and ``kernel``, the kernel
        object (None for "precomputed").

    Raises
    ------
    ValueError
        If the name is unknown, a parameter is given that the kernel does not take (any, for
        a kernel object or a callable), a parameter is out of range, or ``k`` is neither a
        name, a kernel object nor a callable.
    TypeError
        If a parameter has a type the kernel refuses.
    """
    from . import Conjunction, Kernel, get_kernel

    given: dict[str, Any] = {n: v for n, v in (("degree", degree), ("gamma", gamma),
                                               ("coef0", coef0)) if v is not None}
    if isinstance(k, str):
        if k not in _NAMES_WITH:
            raise ValueError(f"kernel must be one of {sorted(_NAMES_WITH)}, a kernel object "
                             f"or a callable, got {k!r}")
        unused = sorted(set(given) - set(_NAMES_WITH[k]))
        if unused:
            raise ValueError(f"kernel={k!r} takes no {', '.join(unused)}; leave "
                             f"{'it' if len(unused) == 1 else 'them'} None")
        if k == "precomputed":
            return KernelSpec("precomputed", None)
        if "degree" in given:
            d = given["degree"]
            if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
                raise ValueError(f"degree must be an integer >= 1, got {d!r}")
        for name in ("gamma", "coef0"):
            v = given.get(name)
            if v is not None and (isinstance(v, bool) or not isinstance(
                    v, (int, float, np.number)) or not np.isfinite(v)):
                raise ValueError(f"{name} must be a finite number, got {v!r}")
        if given.get("gamma") is not None and given["gamma"] <= 0:
            raise ValueError(f"gamma must be > 0, got {given['gamma']!r}")
        kern = get_kernel(k, **given)
    else:
        if given:
            raise ValueError(f"degree, gamma and coef0 apply to kernel names only; set "
                             f"them on the kernel object (got {sorted(given)})")
        if not (isinstance(k, Kernel) or callable(k)):
            raise ValueError(f"kernel must be a name, a kernel object or a callable, got "
                             f"{k!r}")
        kern = get_kernel(k)
    return KernelSpec("conjunction" if isinstance(kern, Conjunction) else "float", kern)


def kernel_to_spec(k: Kernel) -> list[Any]:
    """A JSON-able description of a built-in kernel (composites included), for model files.

    Parameters
    ----------
    k : Kernel
        A built-in kernel, or a sum, product or scaling of built-in kernels.

    Returns
    -------
    list
        The class name and its parameters, nested for composites: ``["Linear"]``,
        ``["Polynomial", degree, gamma, coef0]``, ``["RBF", gamma]``, ``["Sum", spec1,
        spec2]``, ``["Scaled", c, spec]``, ...

    Raises
    ------
    TypeError
        If ``k`` has a part with no such description (a callable, a `CallableKernel`, a
        kernel class defined elsewhere).
    """
    from . import BUILTIN_KERNELS, Product, Scaled, Sum

    if type(k) in BUILTIN_KERNELS:  # (a subclass may compute otherwise: it is refused)
        return [type(k).__name__, *k._key()]
    if isinstance(k, (Sum, Product)):
        return [type(k).__name__, kernel_to_spec(k.k1), kernel_to_spec(k.k2)]
    if isinstance(k, Scaled):
        return ["Scaled", k.c, kernel_to_spec(k.k)]
    raise TypeError(f"{type(k).__name__} {k!r} cannot be written to a model file (only the "
                    "package's own kernels, not their subclasses, and their sums, products and "
                    "scalings can)")


@fill(FRAGMENTS)
def kernel_from_spec(spec: Any) -> Kernel:
    """The kernel that `kernel_to_spec` described (its inverse).

    Parameters
    ----------
    spec : list
        A description as `kernel_to_spec` writes it (a tuple is accepted too).

    {returns_kernel}

    Raises
    ------
    ValueError
        If ``spec`` is malformed: an unknown name, the wrong number of arguments, or
        arguments the kernel refuses.
    """
    from . import BUILTIN_KERNELS, Product, Scaled, Sum

    builtin = {cls.__name__: cls for cls in BUILTIN_KERNELS}
    try:
        name, *args = spec
        if name in builtin:
            return builtin[name](*args)
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


def gram(X: Any, Y: Any = None, kernel: KernelLike = "linear", log2: bool = False,
         n_jobs: Any = None, **params: Any) -> np.ndarray:
    """The Gram matrix K[i, j] = k(x_i, y_j) (float64, len(X) x len(Y); Y=None means X).

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features) or PackedBits
        Rows of the Gram matrix.
    Y : array-like of shape (n_samples_Y, n_features) or PackedBits, optional
        Its columns; None means ``X``. Both are 0/1 rows (packed or not) for the
        conjunction kernel.
    kernel : str, Kernel or callable, default="linear"
        A name ("linear", "poly" or "polynomial", "rbf", "conjunction"), a kernel object or a
        callable ``k(X, Y) -> Gram``.
    log2 : bool, default=False
        Return the exact int64 exponents popcount(x_i AND y_j) instead (the conjunction
        kernel only), which never overflow.
    n_jobs : int, optional
        Threads, with scikit-learn's meaning (None: 1, -1: every core, -2: all but one); the
        result is the same for any value.
    **params : dict
        ``degree``, ``gamma``, ``coef0``, for kernel names that take them (see
        `get_kernel`).

    Returns
    -------
    ndarray of shape (n_samples_X, n_samples_Y)
        float64, or int64 with ``log2=True``.

    Raises
    ------
    TypeError
        If ``params`` has another key, or the kernel or a parameter has the wrong type.
    ValueError
        If ``n_jobs`` is 0 or not an integer, the kernel name is unknown, a parameter does not
        apply to the kernel, ``log2=True`` is given for another kernel than the conjunction
        kernel, or ``X`` and ``Y`` are malformed or have different numbers of features.
    OverflowError
        If a value does not fit in float64 (the conjunction kernel: rows sharing more than
        1023 ones).
    """
    from . import Conjunction, apply_kernel, get_kernel

    unknown = sorted(set(params) - {"degree", "gamma", "coef0"})
    if unknown:
        raise TypeError(f"gram() got unexpected keyword argument(s) {unknown}")
    _check_n_jobs(n_jobs)
    k = get_kernel(kernel, **params)
    if log2:
        if not isinstance(k, Conjunction):
            raise ValueError(f"log2=True applies only to the conjunction kernel, got {k!r}")
        return k.log2_gram(X, Y, n_jobs)
    return apply_kernel(k, X, Y, n_jobs)


def _check_n_jobs(n_jobs: Any) -> None:
    """None or a nonzero integer (any integer type but bool), else ValueError."""
    if n_jobs is not None and (isinstance(n_jobs, (bool, np.bool_))
                               or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0):
        raise ValueError(f"n_jobs must be None or a nonzero integer, got {n_jobs!r}")
