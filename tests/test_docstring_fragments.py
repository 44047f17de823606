"""`_docs.fill`: whole-line placeholders become their fragment, at the placeholder's column."""
import inspect

import pytest

from perceptron_c._utils._docs import expand, fill

FRAGMENTS = {
    "X": """
        X : array-like of shape (n_samples, n_features)
            The samples.
        """,
    "both": "{X}\ny : array-like\n    The labels.",
}


def test_fragment_is_reindented_to_the_placeholder():
    doc = "Fit.\n\n    Parameters\n    ----------\n    {X}\n    k : int\n"
    assert expand(doc, FRAGMENTS) == (
        "Fit.\n\n    Parameters\n    ----------\n"
        "    X : array-like of shape (n_samples, n_features)\n        The samples.\n"
        "    k : int\n")


def test_fragments_nest_and_inline_braces_stay():
    doc = "Labels in {0, 1}.\n\n  {both}\n"
    assert expand(doc, FRAGMENTS) == (
        "Labels in {0, 1}.\n\n  X : array-like of shape (n_samples, n_features)\n"
        "      The samples.\n  y : array-like\n      The labels.\n")


def test_unknown_fragment_fails_loudly():
    with pytest.raises(KeyError, match="missing"):
        expand("Doc.\n    {missing}\n", FRAGMENTS)


def test_ten_levels_of_nesting_expand_and_eleven_are_refused():
    chain = {f"f{i}": f"{{f{i + 1}}}" for i in range(11)} | {"f11": "end"}
    assert expand("{f2}\n", chain) == "end\n"  # f2 ... f11: ten levels
    with pytest.raises(RecursionError):
        expand("{f1}\n", chain)


def test_self_reference_is_refused():
    with pytest.raises(RecursionError):
        expand("{a}\n", {"a": "{a}"})


def test_fill_decorates_functions_and_classes_and_keeps_no_docstring():
    @fill(FRAGMENTS, extra="k : int")
    def f():
        """F.

        {X}
        {extra}
        """

    @fill(FRAGMENTS)
    class C:
        """C.

        {X}
        """

    def g():
        pass

    # at the placeholder's column, which Python 3.13 moves to 0 (it dedents docstrings)
    assert inspect.cleandoc(f.__doc__) == ("F.\n\nX : array-like of shape (n_samples, "
                                           "n_features)\n    The samples.\nk : int")
    assert inspect.cleandoc(C.__doc__).endswith("\nX : array-like of shape (n_samples, "
                                                "n_features)\n    The samples.")
    assert fill(FRAGMENTS)(g).__doc__ is None
