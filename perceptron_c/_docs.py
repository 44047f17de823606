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
