"""`ConfusionMatrix`: NLTK's ``nltk.metrics.ConfusionMatrix`` (NLTK 3.10.4,
``nltk/metrics/confusionmatrix.py``) without NLTK, for the tagger's ``confusion``.

The same counts, the same per-value precision, recall and F-measure, and the same printed
matrix and table, character for character (tests compare them with NLTK's). The counts are
kept sparse, as NLTK 3.10.4 keeps them: memory in proportion to the pairs seen.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Any

from .._utils._docs import fill

__all__ = ["ConfusionMatrix"]

# numpydoc blocks the methods' docstrings share (`fill` places them)
_DOCS = {
    "value": """
        value : hashable
            A value of the matrix.""",
    # the tables' choice of values
    "ordering": """
        truncate : int, optional
            Show only the first ``truncate`` values (after sorting).
        sort_by_count : bool, default=False
            Order the values by their count in the reference, most frequent first.""",
    # recall's and precision's sections; {share} says which share the number is
    "value_share": """
        Parameters
        ----------
        {value}

        Returns
        -------
        float
            {share}""",
}


class ConfusionMatrix:
    """Counts of (reference, test) value pairs; rows are reference values, columns test ones.

    Parameters
    ----------
    reference : sequence
        The reference (gold) values.
    test : sequence
        The values to compare with them, one per reference value.
    sort_by_count : bool, default=False
        Order the values by how often they occur in both lists, most frequent first (ties in
        sorted order), instead of sorted order.

    Raises
    ------
    ValueError
        If ``reference`` and ``test`` differ in length.
    """

    def __init__(self, reference: Sequence[Hashable], test: Sequence[Hashable],
                 sort_by_count: bool = False) -> None:
        if len(reference) != len(test):
            raise ValueError("Lists must have the same length.")
        values: list[Any] = sorted(set(reference) | set(test))
        if sort_by_count:  # NLTK's key: the count in both lists, largest first (stable)
            counts = Counter(reference) + Counter(test)
            values = sorted(values, key=lambda v: -counts[v])
        self._values = values
        self._indices = {value: i for i, value in enumerate(values)}
        pairs = Counter(zip(reference, test))
        self._confusion = {(self._indices[r], self._indices[t]): n
                           for (r, t), n in pairs.items()}
        self._row_totals: Counter[int] = Counter()
        self._col_totals: Counter[int] = Counter()
        for (i, j), n in self._confusion.items():
            self._row_totals[i] += n
            self._col_totals[j] += n
        self._max_conf = max(self._confusion.values(), default=0)
        self._total = len(reference)
        self._correct = sum(n for (i, j), n in self._confusion.items() if i == j)

    def __getitem__(self, pair: tuple[Hashable, Hashable]) -> int:
        reference, test = pair
        return self._confusion.get((self._indices[reference], self._indices[test]), 0)

    def __repr__(self) -> str:
        return f"<ConfusionMatrix: {self._correct}/{self._total} correct>"

    def __str__(self) -> str:
        return self.pretty_format()

    def _ordered(self, sort_by_count: bool, truncate: int | None) -> list[Any]:
        values = self._values
        if sort_by_count:  # by the count in the reference (the row), as NLTK's _row_total
            values = sorted(values, key=lambda v: -self._row_totals[self._indices[v]])
        return values[:truncate] if truncate else values

    @fill(_DOCS)
    def pretty_format(self, show_percents: bool = False, values_in_chart: bool = True,
                      truncate: int | None = None, sort_by_count: bool = False) -> str:
        """The matrix as text, NLTK's layout: column labels written downwards, the diagonal
        in ``<>``, zeros as ``.``.

        Parameters
        ----------
        show_percents : bool, default=False
            Each count as a percentage of all pairs.
        values_in_chart : bool, default=True
            Label rows and columns with the values; False numbers them and adds a key.
        {ordering}

        Returns
        -------
        str
            The table, ending with ``"(row = reference; col = test)\\n"`` (and the key).
        """
        values = self._ordered(sort_by_count, truncate)
        labels = [f"{v}" for v in values] if values_in_chart else [
            str(n + 1) for n in range(len(values))]
        width = max(len(label) for label in labels)
        if show_percents:
            entry, zero = 6, "     ."
        else:
            entry = len(repr(self._max_conf))
            zero = " " * (entry - 1) + "."
        out = ""
        for i in range(width):  # the column labels, one character per line, bottom-aligned
            out += " " * width + " |"
            for label in labels:
                k = i - width + len(label)
                out += label[k].rjust(entry + 1) if k >= 0 else " " * (entry + 1)
            out += " |\n"
        rule = f"{'-' * width}-+-{'-' * ((entry + 1) * len(values))}+\n"
        out += rule
        for label, reference in zip(labels, values):
            i = self._indices[reference]
            row = f"{label:>{width}} | "
            for test in values:
                j = self._indices[test]
                n = self._confusion.get((i, j), 0)
                if n == 0:
                    row += zero
                elif show_percents:
                    row += f"{100.0 * n / self._total:5.1f}%"
                else:
                    row += f"{n:{entry}d}"
                if i == j:  # NLTK's marker: the space before the entry becomes '<'
                    space = row.rfind(" ")
                    row = row[:space] + "<" + row[space + 1:] + ">"
                else:
                    row += " "
            out += row + "|\n"
        out += rule + "(row = reference; col = test)\n"
        if not values_in_chart:
            out += "Value key:\n" + "".join(f"{i + 1:6d}: {v}\n" for i, v in enumerate(values))
        return out

    def key(self) -> str:
        """NLTK's key of the values: ``"Value key:\\n"``, then ``index: value`` lines.

        Returns
        -------
        str
            The key, one line per value, numbered from 0.
        """
        width = len(repr(len(self._values) - 1))
        return "Value key:\n" + "".join(f"  {i:{width}d}: {v}\n"
                                        for i, v in enumerate(self._values))

    def _share(self, value: Hashable, totals: Counter[int]) -> float:
        """Pairs of ``value`` in both / its row's or column's total in ``totals``; 0.0 when
        that total is 0."""
        total = totals[self._indices[value]]
        return self[value, value] / total if total else 0.0

    @fill(_DOCS, share="The recall; 0.0 when the reference never holds ``value``.")
    def recall(self, value: Hashable) -> float:
        """Pairs of ``value`` in both / pairs with ``value`` in the reference (its row).

        {value_share}
        """
        return self._share(value, self._row_totals)

    @fill(_DOCS, share="The precision; 0.0 when the test never holds ``value``.")
    def precision(self, value: Hashable) -> float:
        """Pairs of ``value`` in both / pairs with ``value`` in the test (its column).

        {value_share}
        """
        return self._share(value, self._col_totals)

    @fill(_DOCS)
    def f_measure(self, value: Hashable, alpha: float = 0.5) -> float:
        """``1 / (alpha / p + (1 - alpha) / r)`` of precision ``p`` and recall ``r``.

        Parameters
        ----------
        {value}
        alpha : float, default=0.5
            The weight of precision against recall (0.5: their harmonic mean).

        Returns
        -------
        float
            The F-measure; 0.0 when ``p`` or ``r`` is 0.
        """
        p, r = self.precision(value), self.recall(value)
        if p == 0.0 or r == 0.0:
            return 0.0
        return 1.0 / (alpha / p + (1 - alpha) / r)

    @fill(_DOCS)
    def evaluate(self, alpha: float = 0.5, truncate: int | None = None,
                 sort_by_count: bool = False) -> str:
        """The table of precision, recall and F-measure of each value, NLTK's layout.

        Parameters
        ----------
        alpha : float, default=0.5
            As `f_measure`.
        {ordering}

        Returns
        -------
        str
            A header, a rule and one ``tag | prec | recall | f`` line per value.
        """
        values = self._ordered(sort_by_count, truncate)
        width = max(max(len(v) for v in values), 3)
        out = (f"{' ' * (width - 3)}Tag | Prec.  | Recall | F-measure\n"
               f"{'-' * width}-+--------+--------+-----------\n")
        for v in values:
            out += (f"{v:>{width}} | {self.precision(v):<6.4f} | {self.recall(v):<6.4f} | "
                    f"{self.f_measure(v, alpha=alpha):.4f}\n")
        return out
