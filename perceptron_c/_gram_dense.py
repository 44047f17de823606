"""Float Gram matrices (linear, polynomial, RBF), shared by both ``_kernels`` twins.

These are built on numpy's matrix product (BLAS), which a Cython loop would not beat, so the
C twin imports them from here instead of re-implementing them: the two twins then agree bit
for bit by construction. Inputs are canonical (``_validation``): X, Y float64 C-contiguous 2-D
with the same number of columns, ``out`` float64 C-contiguous of shape (len(X), len(Y)).
Ohio slides: polynomial kernel (gamma x.y + coef0)^degree, Gaussian exp(-gamma ||x - y||^2).
"""
import numpy as np


def _check(X, Y, out):
    if X.ndim != 2 or Y.ndim != 2 or X.shape[1] != Y.shape[1]:
        raise ValueError(f"X and Y must be 2-D with the same number of columns, got shapes "
                         f"{X.shape} and {Y.shape}")
    if out.shape != (X.shape[0], Y.shape[0]) or out.dtype != np.float64:
        raise ValueError(f"out must be float64 of shape {(X.shape[0], Y.shape[0])}, got "
                         f"{out.dtype} {out.shape}")


def _products(X, Y, out):
    """out = X @ Y.T; when Y is X, mirrored from the upper triangle so it is exactly
    symmetric (BLAS may round the two triangles differently)."""
    np.matmul(X, Y.T, out=out)
    if Y is X:
        _mirror(out)


def _mirror(out, block=128):
    """Copy the upper triangle onto the lower one, a block column at a time (5x faster
    than one fancy-indexed copy of the whole triangle)."""
    n = out.shape[0]
    for i in range(0, n, block):
        out[i + block:, i:i + block] = out[i:i + block, i + block:].T
        diag = out[i:i + block, i:i + block]
        lower = np.tril_indices(diag.shape[0], -1)
        diag[lower] = diag.T[lower]


def gram_linear(X, Y, out):
    """out[i, j] = x_i . y_j."""
    _check(X, Y, out)
    _products(X, Y, out)


def gram_poly(X, Y, degree, gamma, coef0, out):
    """out[i, j] = (gamma x_i . y_j + coef0) ** degree."""
    _check(X, Y, out)
    _products(X, Y, out)
    out *= gamma
    out += coef0
    np.power(out, int(degree), out=out)


def gram_rbf(X, Y, gamma, out):
    """out[i, j] = exp(-gamma ||x_i - y_j||^2), the squared distance taken as
    ||x||^2 + ||y||^2 - 2 x.y clipped at 0 (exactly 0 on the diagonal when Y is X)."""
    _check(X, Y, out)
    _products(X, Y, out)
    xx = np.einsum("ij,ij->i", X, X)
    yy = xx if Y is X else np.einsum("ij,ij->i", Y, Y)
    out *= -2.0
    out += xx[:, None]
    out += yy[None, :]
    np.maximum(out, 0.0, out=out)
    if Y is X:  # the two triangles sum the norms in different orders
        _mirror(out)
        np.fill_diagonal(out, 0.0)
    out *= -gamma
    np.exp(out, out=out)
