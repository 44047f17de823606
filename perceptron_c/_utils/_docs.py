"""Docstring fragments: a block of numpydoc lines written once, shared by several docstrings.

A docstring names a fragment on a line of its own, in braces, at the indentation the block
should take::

    @fill(FIT)
    def fit(self, X, y):
        \"\"\"Fit the model.

        Parameters
        ----------
        {X_fit}
        {y_fit}
        \"\"\"

`fill` replaces each such line with the fragment, dedented and re-indented to the line's
column, so a fragment reads the same in a function and in a method. Only whole-line
placeholders are replaced: braces elsewhere in the text (``{0, 1}``) stay as they are. A name
with no fragment is an error at import, not a docstring with a hole. Under ``python -OO`` the
docstrings are gone and `fill` leaves them so.

Tools that read ``__doc__`` at run time (``help()``, Sphinx autodoc, numpydoc,
``tests/test_docstrings.py``) see the completed text.
"""
from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping
from typing import TypeVar

_T = TypeVar("_T")
_DEPTH = 10  # how deep fragments may nest
_PLACEHOLDER = re.compile(r"^([ \t]*)\{([A-Za-z_][A-Za-z0-9_]*)\}[ \t]*$", re.M)


def expand(doc: str, fragments: Mapping[str, str]) -> str:
    """``doc`` with every whole-line ``{name}`` replaced by its fragment, re-indented.

    A fragment may itself hold placeholders; they are expanded in turn (at most ten levels,
    against a fragment that names itself).
    """
    for _ in range(_DEPTH + 1):  # the last pass finds nothing left to expand
        def block(match: re.Match[str]) -> str:
            indent, name = match.groups()
            if name not in fragments:
                raise KeyError(f"docstring fragment {{{name}}} is not defined")
            text = textwrap.dedent(fragments[name]).strip("\n")
            return textwrap.indent(text, indent, lambda line: bool(line.strip()))

        doc, n = _PLACEHOLDER.subn(block, doc)
        if n == 0:
            return doc
    raise RecursionError("docstring fragments nest more than ten levels deep")


def fill(*sources: Mapping[str, str], **fragments: str) -> Callable[[_T], _T]:
    """A decorator completing the docstring of a function or class from fragments.

    The fragments are the mappings in ``sources``, merged in order, then the keyword ones.
    """
    merged: dict[str, str] = {}
    for source in sources:
        merged.update(source)
    merged.update(fragments)

    def decorate(obj: _T) -> _T:
        doc = obj.__doc__
        if doc:
            obj.__doc__ = expand(doc, merged)
        return obj

    return decorate


# ---------------------------------------------------------------------- the estimators' blocks
# What the estimators' fit / partial_fit / decision_function say word for word: `FIT` (and
# `BATCH`, `DECISION`) hold a method's Parameters entries and its closing sections; a method
# writes its own lines (its summary, the y it takes) and names the rest.

FIT = {
    "X_fit": """
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Training samples.
        """,
    "X_fit_kernel": """
        X : array-like, sparse matrix or PackedBits of shape (n_samples, n_features)
            Training samples (0/1 rows or `PackedBits` for the conjunction kernel; the square Gram
            matrix with ``kernel="precomputed"``).
        """,
    "y_labels": """
        y : array-like of shape (n_samples,)
            Labels, two classes or more.
        """,
    "init": """
        coef_init : array-like, optional
            Initial weights, shaped as ``coef_``; zeros when None.
        intercept_init : array-like, optional
            Initial bias, shaped as ``intercept_``; zeros when None.
        """,
    "sample_weight": """
        sample_weight : array-like of shape (n_samples,), optional
            Weight of each sample, multiplying its update; equal weights when None.
        """,
    "returns_fitted": """
        Returns
        -------
        self : object
            The fitted estimator.
        """,
    "raises_fit": """
        Raises
        ------
        ValueError
            If an input or parameter is malformed or out of range, or (with ``warm_start``) the
            classes or features changed.
        TypeError
            If a parameter has the wrong type.
        """,
    "warns_fit": """
        Warns
        -----
        ConvergenceWarning
            If ``max_iter`` epochs ran without meeting the stopping rule.
        """,
    # the closing sections of a fit that may stop before converging
    "fit_ends": "{returns_fitted}\n\n{raises_fit}\n\n{warns_fit}",
}

BATCH = {
    "sample_weight": FIT["sample_weight"],
    "X_batch": """
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The batch's samples; the same features on every call.
        """,
    "X_batch_kernel": """
        X : array-like, sparse matrix or PackedBits of shape (n_samples, n_features)
            The batch's samples; the same features on every call.
        """,
    "y_classes": """
        y : array-like of shape (n_samples,)
            The batch's labels, each one of ``classes``.
        classes : array-like, optional
            Every label the model will ever see; required on the first call, unchanged after
            (more labels may come with `Perceptron`'s ``new_classes="append"``).
        """,
    "returns_batch": """
        Returns
        -------
        self : object
            The estimator, trained one more epoch.
        """,
    "raises_batch": """
        Raises
        ------
        ValueError
            If an input is malformed, ``classes`` is missing on the first call or changes, or
            ``X`` does not match the fitted model.
        """,
    "raises_batch_kernel": """
        Raises
        ------
        ValueError
            If an input is malformed, ``classes`` is missing on the first call or changes, ``X``
            does not match the fitted model, or ``kernel="precomputed"``.
        """,
}

# any estimator's method that returns it, or that needs a fitted model
ESTIMATOR = {
    "returns_self": """
        Returns
        -------
        self : object
            The estimator.
        """,
    "raises_unfitted": """
        Raises
        ------
        NotFittedError
            If the estimator has not been fitted.
        """,
}

DECISION = {
    **ESTIMATOR,
    "X_linear": """
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Samples, with the features the model was fitted on.
        """,
    "X_kernel": """
        X : array-like, sparse matrix or PackedBits
            Samples, in the form the model was fitted on; with ``kernel="precomputed"`` the
            kernel values between these rows and the training rows, shape (n_samples, n_train).
        """,
    "returns_decision": """
        Returns
        -------
        ndarray of float64 of shape (n_samples,) or (n_samples, n_classes)
            One value per row for two classes (positive speaks for ``classes_[1]``), else one per
            row and class.
        """,
    "raises_predict": """
        {raises_unfitted}
        ValueError
            If ``X`` is malformed or does not match the training data, or a value is not
            finite.
        """,
    "raises_predict_linear": """
        {raises_unfitted}
        ValueError
            If ``X`` is malformed or has another number of features (or other feature names)
            than the training data, or a decision value is not finite.
        """,
}
