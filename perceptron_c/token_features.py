"""TokenFeatures and DictFeatures: sentences to the per-token sparse feature matrix.

`TokenFeatures` makes the features of str tokens from templates, defined in ``_features_py``
(the specification; the C twin ``_features_c`` builds the same keys from the code points of
the tokens, without a Python-level loop per token). `DictFeatures` reads features a user
made, a dict per token as CRFsuite and sklearn-crfsuite take them (``_crftag_py.dict_features``
the specification; the C twin reads the dicts' names and hashes them without making a str).
Rows are the tokens of all sentences in order, with ``lengths`` giving the sentences'
lengths (seqlearn's convention, as `perceptron_c.sequence.StructuredPerceptron` takes them).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _backend
from ._utils._docs import fill
from ._utils._params import Flag, Integer, NoneOr, Options, Parameters
from .exceptions import NotFittedError

__all__ = ["TokenFeatures", "DictFeatures"]

_TEMPLATES = ("standard", "nltk")

# what fit, fit_transform and transform say alike (`_docs.fill`)
_TEXT = {
    "sentences": """
        sentences : iterable of lists
            The sentences, each a list of tokens: str tokens for `TokenFeatures`, a dict of
            features per token for `DictFeatures`.
        """,
    "y_ignored": """
        y : None
            Ignored; accepted for scikit-learn's Pipeline.
        """,
    "return_lengths": """
        return_lengths : bool, default=False
            Also return the number of tokens of each sentence.
        """,
    "lengths": """
        lengths : ndarray of int64
            The sentence lengths; only with ``return_lengths``.
        """,
    "hashing": """
        n_features : int or None, default=None
            Hash the features into this many columns instead of interning them (``fit``
            learns nothing then).

        Attributes
        ----------
        n_features_out_ : int
            The number of columns.
        """,
    "raises_fit": """
        Raises
        ------
        ValueError
            If ``sentences`` is not a list of lists of tokens, or a parameter is out of
            range.
        """,
}


def _check_sentences(sentences: Any, tokens: str) -> list:
    """A list of sentences, each a list unless it is a tuple (converted) or something else
    (left for the routine, which names it in its TypeError)."""
    if isinstance(sentences, str) or not hasattr(sentences, "__iter__"):
        raise TypeError(f"sentences must be a list of lists of {tokens}, got "
                        f"{type(sentences).__name__}")
    if type(sentences) is not list:
        sentences = list(sentences)
    if not all(type(s) is list for s in sentences):
        sentences = [list(s) if isinstance(s, tuple) else s for s in sentences]
    return sentences


def _csr(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, n_cols: int) -> Any:
    """A scipy CSR matrix when scipy is installed, else the (data, indices, indptr) arrays."""
    try:
        import scipy.sparse
    except ImportError:
        return data, indices, indptr
    return scipy.sparse.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, n_cols))


class _TokenRows(Parameters):
    """What `TokenFeatures` and `DictFeatures` share: fitting a vocabulary of feature names
    (or hashing them), the rows of every token, the names of the columns, pickling."""

    _tokens = "tokens"  # what a sentence holds, for the messages
    n_features: int | None
    min_df: int

    # ---- scikit-learn's protocol (get_params, set_params, repr: _params.Parameters)
    def __sklearn_tags__(self) -> Any:
        # a transformer of token lists; scikit-learn 1.6-1.7 refuse an estimator without
        # tags inside a Pipeline (imported only when scikit-learn asks)
        from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=False),
                    transformer_tags=TransformerTags(), classifier_tags=None,
                    regressor_tags=None, input_tags=InputTags(two_d_array=False, string=True))

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "n_features_out_")

    # ---- parameters
    def _checked_spec(self) -> tuple[int, ...]:
        return ()

    def _hash_width(self) -> int:
        return 0 if self.n_features is None else int(self.n_features)

    def _check_min_df(self) -> int:
        return int(self.min_df)

    def _extract(self, sentences: list, spec: tuple[int, ...], vocab: Any, grow: bool,
                 width: int) -> tuple[np.ndarray, ...]:
        """The routine's ``(data, indices, indptr, lengths)`` of the sentences."""
        raise NotImplementedError

    # ---- fitting and transforming
    @fill(_TEXT)
    def fit(self, sentences: Any, y: Any = None) -> Any:
        """Learn the vocabulary of the feature names of ``sentences``.

        Parameters
        ----------
        {sentences}
        {y_ignored}

        Returns
        -------
        self : object
            The fitted transformer.

        {raises_fit}
        TypeError
            If a parameter has the wrong type.
        """
        self.fit_transform(sentences)
        return self

    @fill(_TEXT)
    def fit_transform(self, sentences: Any, y: Any = None, *,
                      return_lengths: bool = False) -> Any:
        """``fit(sentences).transform(sentences)`` in one pass.

        Parameters
        ----------
        {sentences}
        {y_ignored}
        {return_lengths}

        Returns
        -------
        X : scipy.sparse.csr_matrix or tuple of ndarray
            One row per token (``(data, indices, indptr)`` without scipy).
        {lengths}

        {raises_fit}
        """
        spec, width, min_df = self._spec(), self._hash_width(), self._check_min_df()
        sentences = _check_sentences(sentences, self._tokens)
        mod = _backend.features
        vocab = None if width else mod.Vocabulary()
        data, indices, indptr, lengths = self._extract(sentences, spec, vocab, True, width)
        if vocab is not None and min_df > 1:
            vocab, data, indices, indptr = _prune(mod, vocab, min_df, data, indices, indptr)
        self._fitted = (spec, width)
        self._vocab = vocab
        self.n_features_out_ = width or len(vocab)  # type: ignore[arg-type]
        X = _csr(data, indices, indptr, self.n_features_out_)
        return (X, lengths) if return_lengths else X

    @fill(_TEXT)
    def transform(self, sentences: Any, *, return_lengths: bool = False) -> Any:
        """The feature rows of every token of ``sentences``.

        Parameters
        ----------
        {sentences}
        {return_lengths}

        Returns
        -------
        X : scipy.sparse.csr_matrix or tuple of ndarray
            One row per token (``(data, indices, indptr)`` without scipy); names not seen by
            `fit` have no column.
        {lengths}

        Raises
        ------
        NotFittedError
            If the transformer has not been fitted.
        ValueError
            If ``sentences`` is not a list of lists of tokens.
        """
        spec, width = self._state()
        sentences = _check_sentences(sentences, self._tokens)
        vocab = self._vocab_for(_backend.features)
        data, indices, indptr, lengths = self._extract(sentences, spec, vocab, False, width)
        X = _csr(data, indices, indptr, self.n_features_out_)
        return (X, lengths) if return_lengths else X

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The name of every column, in column order (interning only).

        Parameters
        ----------
        input_features : None
            Ignored; accepted for scikit-learn's protocol.

        Returns
        -------
        ndarray of object
            The feature name of each column.

        Raises
        ------
        NotFittedError
            If the transformer has not been fitted.
        ValueError
            If the columns are hashed (``n_features`` set): they have no names.
        """
        _, width = self._state()
        if width or self._vocab is None:
            raise ValueError("hashed columns (n_features set) have no names")
        return np.array(self._vocab.keys(), dtype=object)

    def _state(self) -> tuple[tuple[int, ...], int]:
        fitted: tuple[tuple[int, ...], int] | None = getattr(self, "_fitted", None)
        if fitted is None:
            raise NotFittedError(f"{type(self).__name__}: call fit(sentences) first")
        return fitted

    def _vocab_for(self, mod: Any) -> Any:
        """The vocabulary as an object of the twin in use (rebuilt from its keys if the
        model was fitted on the other one)."""
        if self._vocab is not None and not isinstance(self._vocab, mod.Vocabulary):
            self._vocab = mod.Vocabulary(self._vocab.keys())
        return self._vocab

    # ---- pickling: the vocabulary as its list of keys
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        if state.get("_vocab") is not None:
            state["_vocab"] = state["_vocab"].keys()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        if isinstance(state.get("_vocab"), list):
            state["_vocab"] = _backend.features.Vocabulary(state["_vocab"])
        self.__dict__.update(state)


@fill(_TEXT)
class TokenFeatures(_TokenRows):
    """Per-token features of tokenized sentences, as a sparse matrix (a scikit-learn
    transformer).

    Each token of each sentence becomes one row; each feature key (a str such as ``"s3=ing"``
    or ``"w[-1]=the"``) one column, with value 1. Columns are the keys interned in the order
    ``fit`` first meets them (exact: no collisions), or, with ``n_features``, the keys' 64-bit
    FNV-1a hashes (UTF-8 bytes) modulo ``n_features``, colliding keys of a token adding up.

    Parameters
    ----------
    templates : {"standard", "nltk"}, default="standard"
        ``"nltk"``: exactly the 10 static features of NLTK's ``PerceptronTagger`` (bias,
        suffix, first letter, and the normalized words and suffixes of the window -2..+2,
        with NLTK's key strings); every parameter below but ``min_df`` and ``n_features``
        is then ignored. ``"standard"``: the templates chosen below.
    bias : bool, default=True
        The key ``"bias"`` on every token.
    word, lower : bool, default=True
        The word (``"w=Dog"``) and its ``str.lower()`` (``"lw=dog"``); they also choose the
        keys of the neighbours.
    prefix, suffix : int, default=3
        Prefixes ``"p{k}="`` and suffixes ``"s{k}="`` of k = 1..n code points (at most the
        word's length).
    shape : bool, default=True
        ``"shape=Xx"``: upper X, lower x, digit d, other letter a, anything else itself,
        runs cut to one character.
    flags : bool, default=True
        ``"is_digit"``, ``"has_hyphen"``, ``"is_cap"`` (the first character upper case),
        when true.
    window : int, default=1
        The word and lowercase keys of the tokens at offsets -window..-1, 1..window
        (``"w[-1]=the"``, ``"lw[+1]=barks"``), ``<s>`` and ``</s>`` past the sentence's ends.
    min_df : int, default=1
        ``fit`` keeps the keys that fire on at least ``min_df`` tokens (interning only).
    {hashing}

    Notes
    -----
    ``transform`` drops the keys ``fit`` did not keep: an unseen word still gets its other
    features (suffixes, shape, neighbours). The key strings of each template are specified
    in ``perceptron_c._core._features_py``.
    """

    _parameter_constraints = {
        "templates": Options(_TEMPLATES), "bias": Flag(), "word": Flag(), "lower": Flag(),
        "prefix": Integer(0, 64), "suffix": Integer(0, 64), "shape": Flag(), "flags": Flag(),
        "window": Integer(0, 64), "min_df": Integer(1),
        "n_features": NoneOr(Integer(1, 2**62 - 1)),
    }

    # parameters of this class only: stored by _keep_params, declared for mypy
    templates: str
    bias: bool
    word: bool
    lower: bool
    prefix: int
    suffix: int
    shape: bool
    flags: bool
    window: int
    min_df: int
    n_features: int | None

    def __init__(self, templates: str = "standard", *, bias: bool = True, word: bool = True,
                 lower: bool = True, prefix: int = 3, suffix: int = 3, shape: bool = True,
                 flags: bool = True, window: int = 1, min_df: int = 1,
                 n_features: int | None = None) -> None:
        self._keep_params(locals())

    _tokens = "str tokens"

    def _checked_spec(self) -> tuple[int, ...]:
        return (int(self.templates == "nltk"), int(self.bias), int(self.word),
                int(self.lower), int(self.prefix), int(self.suffix), int(self.shape),
                int(self.flags), int(self.window))

    def _extract(self, sentences: list, spec: tuple[int, ...], vocab: Any, grow: bool,
                 width: int) -> tuple[np.ndarray, ...]:
        return _backend.features.extract_features(sentences, spec, vocab, grow, width)


@fill(_TEXT)
class DictFeatures(_TokenRows):
    """Per-token features given as dicts, as a sparse matrix (a scikit-learn transformer):
    the input of CRFsuite and sklearn-crfsuite, for `StructuredPerceptron`.

    Each token of each sentence is an item as CRFsuite reads it: a dict of feature name to
    value, where a str value makes the name ``"name:value"`` of value 1.0, a number (a bool
    included) is the name's value, and a nested dict, list or set joins its names to the
    outer one with ``":"`` (``{"w": {"lower": "the"}}`` is ``"w:lower:the"``); or a list of
    names, each of value 1.0. Each name becomes one column. Columns are the names interned in
    the order ``fit`` first meets them (exact: no collisions), or, with ``n_features``, the
    names' 64-bit FNV-1a hashes (UTF-8 bytes, as `TokenFeatures` hashes) modulo
    ``n_features``: the values of a token's names that share a column are then added, in
    reading order. The dicts are read in C, their names hashed from their code points
    without making a str.

    Parameters
    ----------
    min_df : int, default=1
        ``fit`` keeps the names met at least ``min_df`` times (interning only).
    {hashing}

    Notes
    -----
    ``transform`` drops the names ``fit`` did not keep. A value of 0 (``False``) is kept as
    an explicit zero, as CRFsuite keeps the attribute; a value that is not finite reaches
    the model, whose gate refuses it. A str token (not a dict) is a TypeError: CRFsuite would
    read its characters as names.
    """

    _parameter_constraints = {"min_df": Integer(1),
                              "n_features": NoneOr(Integer(1, 2**62 - 1))}
    _tokens = "feature dicts"

    # parameters of this class only: stored by _keep_params, declared for mypy
    min_df: int
    n_features: int | None

    def __init__(self, *, min_df: int = 1, n_features: int | None = None) -> None:
        self._keep_params(locals())

    def _extract(self, sentences: list, spec: tuple[int, ...], vocab: Any, grow: bool,
                 width: int) -> tuple[np.ndarray, ...]:
        return _backend.crftag.dict_features(sentences, vocab, grow, width)


def _prune(mod: Any, vocab: Any, min_df: int, data: np.ndarray, indices: np.ndarray,
           indptr: np.ndarray) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray]:
    """The keys counted on at least min_df tokens, renumbered in their order, and the rows
    without the others."""
    keep = vocab.counts() >= min_df
    new_id = np.cumsum(keep) - 1
    kept = vocab.keys()
    pruned = mod.Vocabulary([k for k, on in zip(kept, keep.tolist()) if on])
    mask = keep[indices]
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    per_row = np.bincount(rows[mask], minlength=len(indptr) - 1)
    new_ptr = np.concatenate([[0], np.cumsum(per_row)]).astype(np.int64)
    return pruned, data[mask], new_id[indices[mask]].astype(np.int64), new_ptr
