"""`StructuredPerceptron`: sequence labeling by the structured perceptron ([Collins2002]).

X holds one row of features per token, ``lengths`` the sentence lengths (seqlearn's
convention), which every call that fits, predicts or scores requires. A tag sequence scores
the emissions of its tags (``coef_`` . x + ``intercept_``), the transitions between
neighbouring tags (``coef_trans_``) and the scores of the first and the last tag (``coef_init_``,
``coef_final_``); prediction is the best sequence, found by Viterbi. Training decodes each
sentence with the current weights and, when the sequence is wrong, adds the features of the
gold sequence and subtracts those of the predicted one; averaged by default ([Collins2002],
section 2.5; lazy, as [Daume2017] Alg. 7, one tick per sentence). The routines are
`_backend.sequence`'s, the epoch loop `_training`'s.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _backend
from ._estimator._base import EpochModel
from ._estimator._training import (
    Run,
    StateArray,
    entry_names,
    fit_labels,
    gate,
    model_kept,
    new_state,
    next_batch,
    restore_state,
    start_or_continue,
    train,
    warn_if_not_converged,
)
from ._utils._docs import ESTIMATOR, fill
from ._utils._params import Flag, Integer, NJobs, NoneOr, Options, declared
from ._utils._rows import check_finite_state
from ._utils._threads import reads, trains
from ._utils._validation import (
    CSR,
    check_feature_names,
    check_n_features,
    check_sample_weight,
    check_X,
    check_y,
)

__all__ = ["StructuredPerceptron", "allowed_transitions"]


# What to do when a sentence model is called without ``lengths``: it used to take all of X
# as one sentence, silently (a Pipeline's fit of many sentences fell from 0.95 to 0.26).
LENGTHS_REQUIRED = ("lengths is required: {call} takes the number of tokens of each "
                    "sentence of X, in order, summing to the rows of X ({example}; a single "
                    "sentence is lengths=[len(X)])")
SKLEARN_LENGTHS = (". In a scikit-learn Pipeline pass it on: pipe.fit(X, y, "
                   "<step name>__lengths=lengths), pipe.predict(X, lengths=lengths); "
                   "pipe.score, cross_val_score, GridSearchCV and the other tools that "
                   "score or split rows pass it only with scikit-learn's metadata routing "
                   "on (sklearn.set_config(enable_metadata_routing=True)), and split rows "
                   "only as groups=, a sentence label per row (GroupKFold keeps sentences "
                   "whole)")


# scikit-learn's metadata routing (sklearn.set_config(enable_metadata_routing=True)): the
# sentence metadata of each method, requested by default (True), since no call runs without
# them; scikit-learn's UNCHANGED, spelled as it spells it, leaves a request as it is
ROUTED = {method: ("lengths", "groups") for method in ("fit", "partial_fit", "predict",
                                                       "score")}
# (score also takes scikit-learn's sample_weight, not requested unless asked, as its own
# estimators' score: a Pipeline's score always passes it on, None or not)
UNCHANGED: Any = "$UNCHANGED$"


# what the methods say alike of the sentences (`_docs.fill`)
_SENTENCES = {
    "lengths_y": """
        lengths : array-like of int
            The number of tokens of each sentence, in order, summing to ``n_tokens``: required
            unless y is given by sentence (a single sentence is ``[n_tokens]``; the default
            None is refused).
        """,
    "groups": """
        groups : array-like of shape (n_tokens,), optional
            A sentence label per token, in place of ``lengths``: each run of equal
            neighbouring labels is a sentence (scikit-learn's ``GroupKFold`` splits rows by
            them, so metadata routing can pass them to each fold).
        """,
}


def require_lengths(lengths: Any, call: str, example: str, more: str = "") -> None:
    """Refuse a call without ``lengths``: `LENGTHS_REQUIRED` for ``call``, with ``example`` as
    the way to pass it, then ``more``."""
    if lengths is None:
        raise ValueError(LENGTHS_REQUIRED.format(call=call, example=example) + more)


def check_lengths(lengths: Any, n_tokens: int) -> np.ndarray:
    """The sentence boundaries of ``lengths`` as int64 offsets: lengths must be integers >= 1
    summing to the number of rows of X (None is malformed: see `require_lengths`)."""
    arr = np.asarray(lengths)
    if arr.ndim != 1 or arr.shape[0] == 0 or arr.dtype.kind not in "iu":
        raise ValueError(f"lengths must be a non-empty 1-d array of integers, got {arr.dtype} "
                         f"of shape {arr.shape}")
    if arr.min() < 1:
        raise ValueError("lengths must be >= 1 (every sentence has a token)")
    offsets = np.zeros(arr.shape[0] + 1, dtype=np.int64)
    arr.cumsum(out=offsets[1:])
    if offsets[-1] != n_tokens:
        raise ValueError(f"lengths must sum to the number of rows of X ({n_tokens}), "
                         f"got {int(offsets[-1])}")
    return offsets


def _is_sentence(tags: Any) -> bool:
    return isinstance(tags, (list, tuple)) or (isinstance(tags, np.ndarray) and tags.ndim == 1)


def lengths_of_groups(groups: Any, lengths: Any) -> Any:
    """The sentence lengths that ``groups`` (a sentence label per token, as scikit-learn's
    ``GroupKFold`` takes them) gives: each run of equal neighbouring labels is a sentence.
    Without ``groups``, ``lengths`` as it is."""
    if groups is None:
        return lengths
    if lengths is not None:
        raise ValueError("pass lengths or groups, not both: groups gives the lengths")
    g = np.asarray(groups)
    if g.ndim != 1 or g.shape[0] == 0:
        raise ValueError(f"groups must be a non-empty 1-d array with a sentence label per row "
                         f"of X, got shape {g.shape}")
    starts = np.flatnonzero(g[1:] != g[:-1]) + 1
    return np.diff(np.concatenate(([0], starts, [g.shape[0]])))


def by_sentence(y: Any, lengths: Any, groups: Any = None) -> tuple[Any, Any]:
    """``(y, lengths)`` as the routines take them. ``groups`` gives the lengths (see
    `lengths_of_groups`). ``y`` given by sentence (a list of each sentence's tags, as
    sklearn-crfsuite and seqeval take it) becomes the flat tags and the lengths it implies,
    which must equal ``lengths`` if that is given too; any other ``y`` comes back as it is,
    with ``lengths``."""
    lengths = lengths_of_groups(groups, lengths)
    if not isinstance(y, (list, tuple)) or not y or not _is_sentence(y[0]):
        return y, lengths
    for i, tags in enumerate(y):
        if not _is_sentence(tags):
            raise TypeError(f"y[{i}] must be a sentence's tags (a list, tuple or 1-d array) "
                            f"like y[0], got {type(tags).__name__}: y is either a tag per "
                            "token or a list of each sentence's tags")
        if len(tags) == 0:
            raise ValueError(f"y[{i}] is an empty sentence (every sentence has a token)")
    implied = np.array([len(tags) for tags in y], dtype=np.int64)
    if lengths is not None and not np.array_equal(np.asarray(lengths), implied):
        raise ValueError("lengths must be the lengths of the sentences of y when y is given "
                         "by sentence (or left out)")
    flat = [tag for tags in y for tag in (tags.tolist() if isinstance(tags, np.ndarray)
                                          else tags)]
    return flat, implied


_REQUEST = {"request": "True: taken, False: not, None: an error if given, a name: taken "
                       "under it."}


def _request_setter(method: str) -> Any:
    """``set_<method>_request``: as scikit-learn's estimators have it, for the sentence
    metadata of `ROUTED`."""
    def setter(self: StructuredPerceptron, *, lengths: Any = UNCHANGED,
               groups: Any = UNCHANGED) -> StructuredPerceptron:
        return self._set_request(method, lengths=lengths, groups=groups)

    setter.__name__ = setter.__qualname__ = f"set_{method}_request"
    setter.__doc__ = f"""Whether `{method}` takes ``lengths`` and ``groups`` from a
        meta-estimator, with scikit-learn's metadata routing on; both are requested by
        default.

        Parameters
        ----------
        lengths, groups : bool, None, str or UNCHANGED
            {_REQUEST["request"]}
            The default, UNCHANGED, leaves a request as it is.

        Returns
        -------
        self : object
            The estimator.
        """
    return setter


class _Requests(dict):
    """The requests set by ``set_*_request``: {method: {param: alias}}. ``sklearn.clone``
    copies an estimator's ``_metadata_request`` by cloning it, as it does for its own
    estimators' requests; this says how."""

    def __sklearn_clone__(self) -> _Requests:
        return _Requests({method: dict(aliases) for method, aliases in self.items()})


# the tag schemes a sequence model can be held to (StructuredPerceptron(transitions=...)):
# each prefix's allowed successors ("same": of the same type), and whether it may come first
# and last (the end row)
TRANSITION_SCHEMES = {
    "bio": {"O": ({"O", "B"}, {"I"}, True, True), "B": ({"O", "B"}, {"I"}, True, True),
            "I": ({"O", "B"}, {"I"}, False, True)},
    "bioes": {"O": ({"O", "B", "S"}, set(), True, True),
              "B": (set(), {"I", "E"}, True, False), "I": (set(), {"I", "E"}, False, False),
              "E": ({"O", "B", "S"}, set(), False, True),
              "S": ({"O", "B", "S"}, set(), True, True)},
}


def allowed_transitions(tags: Sequence[Any], scheme: str) -> np.ndarray:
    """The transitions a tag scheme allows among ``tags`` (in their order), in the layout of
    a structured model's transition scores: a (K + 2, K) uint8 array whose entry (i, j) is 1
    where tag j may follow tag i, row K where tag j may come first, row K + 1 where it may
    come last.

    ``"bio"`` (IOB2): ``I-X`` only after ``B-X`` or ``I-X`` (never first, never after ``O`` or
    another type). ``"bioes"`` (IOBES): after ``B-X`` or ``I-X`` only ``I-X`` or ``E-X``, so
    neither may come last; ``I-X`` and ``E-X`` only there; ``O``, ``B-`` and ``S-`` tags
    first or after ``O``, ``E-`` or ``S-`` tags. A tag is ``O`` or a prefix of the scheme, a
    hyphen and a type (``B-PER``).

    Parameters
    ----------
    tags : sequence of str
        The tags, in the order of the model's classes (``classes_``).
    scheme : {"bio", "bioes"}
        The tag scheme.

    Returns
    -------
    ndarray of uint8, shape (n_tags + 2, n_tags)
        1 where the transition is allowed.

    Raises
    ------
    ValueError
        An unknown scheme, or a tag that is not the scheme's (named).
    """
    rules = TRANSITION_SCHEMES.get(scheme) if isinstance(scheme, str) else None
    if rules is None:
        raise ValueError(f"scheme must be one of {sorted(TRANSITION_SCHEMES)}, got {scheme!r}")
    parsed = []
    for tag in tags:
        if not isinstance(tag, str) or not (tag == "O" or (
                len(tag) > 2 and tag[0] in rules and tag[0] != "O" and tag[1] == "-")):
            raise ValueError(f"tag {tag!r} is not a {scheme.upper()} tag: 'O', or one of "
                             f"{'/'.join(p for p in rules if p != 'O')}, a hyphen and a type "
                             "(B-PER)")
        parsed.append((tag[0], tag[2:]))
    K = len(parsed)
    allowed = np.zeros((K + 2, K), dtype=np.uint8)
    for j, (prefix, _) in enumerate(parsed):
        allowed[K, j] = rules[prefix][2]
        allowed[K + 1, j] = rules[prefix][3]
    for i, (before, kind) in enumerate(parsed):
        any_type, same_type = rules[before][:2]
        for j, (now, other) in enumerate(parsed):
            allowed[i, j] = now in any_type or (now in same_type and other == kind)
    return allowed


def check_allowed_tags(est: Any, y_idx: np.ndarray, offsets: np.ndarray,
                       allowed: np.ndarray) -> None:
    """Training through allowed transitions: every gold sentence must follow them (the
    routines refuse it too; here the error names the tags)."""
    K = allowed.shape[1]
    starts, ends = offsets[:-1], offsets[1:]
    first = np.zeros(y_idx.shape[0], dtype=bool)
    first[starts[starts < ends]] = True
    prev = np.where(first, K, np.concatenate(([K], y_idx[:-1])))
    bad = np.flatnonzero(~allowed[prev, y_idx].astype(bool))
    last = ends[starts < ends] - 1
    bad_end = last[~allowed[K + 1, y_idx[last]].astype(bool)]
    if bad.size == 0 and bad_end.size == 0:
        return
    t = int(min(bad.min() if bad.size else y_idx.shape[0], bad_end.min() if bad_end.size
                else y_idx.shape[0]))
    s = int(np.searchsorted(offsets, t, side="right") - 1)
    tags = est.classes_.tolist()
    if bad.size and t == bad.min():
        what = (f"starts with {tags[y_idx[t]]!r}" if first[t] else
                f"has {tags[y_idx[t - 1]]!r} before {tags[y_idx[t]]!r}")
    else:
        what = f"ends with {tags[y_idx[t]]!r}"
    raise ValueError(f"y: sentence {s} {what} (token {t - int(offsets[s])}), which "
                     f"transitions={est.transitions!r} forbids")


def _sizes(K: int, d: int) -> dict[str, int]:
    return {"K": K, "d": d, "K2": K + 2, "K1": K + 1}


class _SequenceRun(Run["StructuredPerceptron"]):
    """One training call: every epoch visits the sentences in the order drawn from (seed,
    epoch) and stops the loop after an epoch without a wrong tag."""

    def __init__(self, est: StructuredPerceptron, X: Any, y_idx: np.ndarray,
                 offsets: np.ndarray) -> None:
        self.est, self.X, self.y, self.offsets = est, X, y_idx, offsets
        self.n_rows = offsets.shape[0] - 1  # the order visits sentences
        self.last = -1
        self.allowed = est._allowed()
        if self.allowed is not None:
            check_allowed_tags(est, y_idx, offsets, self.allowed)

    def epoch(self, order: np.ndarray) -> int:
        est, st, X = self.est, self.est._state, self.X
        seq = _backend.sequence
        # the averaging sums, or None (the routines' "off") for the plain perceptron
        U, beta, U_trans, count = (st.get(k) for k in ("U", "beta", "U_trans", "count"))
        trans2, U_trans2 = st.get("trans2"), st.get("U_trans2")  # second order, or None
        mistakes = np.zeros(2, dtype=np.int64)
        if isinstance(X, CSR):
            seq.structured_epoch_csr(X.data, X.indices, X.indptr, self.y, self.offsets, order,
                                     st["W"], st["b"], st["trans"], est.fit_intercept, U, beta,
                                     U_trans, count, mistakes, self.allowed, trans2, U_trans2)
        else:
            seq.structured_epoch_dense(X, self.y, self.offsets, order, st["W"], st["b"],
                                       st["trans"], est.fit_intercept, U, beta, U_trans, count,
                                       mistakes, self.allowed, trans2, U_trans2)
        check_finite_state(*st.values())
        self.last = int(mistakes[1])
        return self.last  # tokens tagged wrongly (0 exactly when no sentence was wrong)

    def arrays(self) -> list[np.ndarray]:
        return list(self.est._state.values())

    def predict_idx(self, X: Any) -> np.ndarray:
        raise NotImplementedError("no validation split for sentences")

    def finish(self, credit_epochs: int) -> None:
        pass


class StructuredPerceptron(EpochModel):
    """The structured perceptron for sequence labeling, averaged by default, Viterbi decoding.

    Parameters are keyword-only.

    Parameters
    ----------
    average : bool, default=True
        Predict with the average of the weights held after every sentence ([Collins2002],
        section 2.5), as the textbook does; False: the last weights.
    order : int in [1, 2], default=1
        The Markov order of the tags: 1 scores tag bigrams (each tag given the one before);
        2 adds the scores of tag trigrams (each tag given the two before, [Collins2002]'s
        trigram tagger), decoded exactly by Viterbi over pairs of tags. Second order costs
        about K times more per token than first (K the number of tags).
    fit_intercept : bool, default=True
        Learn a per-tag bias of the emissions (``intercept_``).
    max_iter : int, default=10
        Maximum number of epochs.
    shuffle : bool, default=True
        Visit the sentences in a fresh random order every epoch (from ``random_state``).
    random_state : None, int, numpy Generator or RandomState, default=0
        Seed of the per-epoch permutations of the sentences.
    n_jobs : int or None, default=None
        Threads for prediction (sentences in parallel; None: 1, -1: every core). The tags
        do not depend on it.
    transitions : {None, "bio", "bioes"}, default=None
        Decode, in training and in prediction, through the transitions a tag scheme allows
        only, built from the tags' names (`perceptron_c.tagging.allowed_transitions`):
        ``"bio"`` never puts ``I-X`` first or after anything but ``B-X`` or ``I-X``;
        ``"bioes"`` also keeps ``B-``/``I-`` runs closed by ``E-X``. The tags must be the
        scheme's (``O``, ``B-PER``, ...), and so must every training sentence. None: every
        transition, as [Collins2002].
    warm_start : bool, default=False
        ``fit`` continues from the current weights instead of zero.
    verbose : int, default=0
        Print one progress line per epoch to stderr.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), the emission weights
    intercept_ : ndarray of shape (n_classes,)
    coef_trans_ : ndarray of shape (n_classes, n_classes), [i, j]: tag i followed by tag j
    coef_init_ : ndarray of shape (n_classes,), the score of each tag first in a sentence
    coef_final_ : ndarray of shape (n_classes,), the score of each tag last in a sentence
    coef_trans2_ : ndarray of shape (n_classes + 1, n_classes + 1, n_classes + 1), with
        ``order=2``: [h, i, j] the score of tag j after tags h and i; index n_classes is the
        sentence's boundary (its start in the first two axes, its end in the last)
    classes_ : ndarray of the tags seen (labels of any type)
    n_features_in_ : int
    n_iter_ : int, epochs run by the last ``fit`` (or since the first ``partial_fit``)
    mistakes_ : ndarray of int64, the tokens tagged wrongly in each of those epochs
    converged_ : bool, True when the last epoch tagged every token right
    """

    _has_early_stopping = False
    _mixable_state = True  # perceptron_c.dask.fit mixes it (dask._sequence)
    _sentences = True  # ... over blocks of whole sentences, with ``lengths``
    _state: dict[str, np.ndarray]

    _parameter_constraints = declared(EpochModel, average=Flag(), order=Integer(1, 2),
                                      n_jobs=NJobs(),
                                      transitions=NoneOr(Options(tuple(TRANSITION_SCHEMES))))
    _fixed_classes = (
        "a tag declared up front but not yet met is not a tag that is absent: its weights "
        "stay zero only while it never wins, and a path through it skips the transition "
        "scores into and out of it, so it can outscore every path of the met tags (the "
        "updates sum to zero over paths, not per position); declare every tag on the first "
        "call")

    # parameters of this class only: stored by _keep_params, declared for mypy
    average: bool
    n_jobs: int | None
    order: int = 1  # (the defaults of a pickle made before the parameters)
    transitions: str | None = None

    def __init__(self, *, average: bool = True, order: int = 1, fit_intercept: bool = True,
                 max_iter: int = 10, shuffle: bool = True, random_state: Any = 0,
                 n_jobs: int | None = None, transitions: str | None = None,
                 warm_start: bool = False, verbose: int = 0) -> None:
        self._keep_params(locals())

    def _allowed(self) -> np.ndarray | None:
        """The allowed transitions among ``classes_`` (None: all), kept until the tags or the
        scheme change."""
        if self.transitions is None:
            return None
        key = (self.transitions, tuple(self.classes_.tolist()))
        cached = self.__dict__.get("_allowed_cache")
        if cached is None or cached[0] != key:
            cached = (key, allowed_transitions(key[1], self.transitions))
            self.__dict__["_allowed_cache"] = cached
        return cached[1]

    # ------------------------------------------------------------------ skeleton hooks
    def _checked_spec(self) -> dict[str, Any]:
        return {}  # the training call adds the sentences' offsets

    def _need_lengths(self, lengths: Any, method: str, example: str) -> None:
        """A call without ``lengths``: the error that says how to pass it, scikit-learn's
        Pipeline included, before anything else runs."""
        require_lengths(lengths, f"{type(self).__name__}.{method}", example, SKLEARN_LENGTHS)

    def _gate_X(self, X: Any, spec: Any, fitting: bool) -> Any:
        return check_X(X)

    def _declared_state(self, spec: Any) -> tuple[StateArray, ...]:
        """Emission weights W feature-major (d, K: a token's features each read K contiguous
        weights), intercepts and the packed transitions (K + 2, K), with ``order=2`` the
        trigram scores (K + 1, K + 1, K + 1); averaged, the sums of [Daume2017] Alg. 7 for
        each, and its clock."""
        second = self.order == 2
        plain = (StateArray("W", ("d", "K")), StateArray("b", ("K",)),
                 StateArray("trans", ("K2", "K"))) + \
            ((StateArray("trans2", ("K1", "K1", "K1")),) if second else ())
        if not self.average:
            return plain
        return plain + (StateArray("U", ("d", "K"), mixing="sum"),
                        StateArray("beta", ("K",), mixing="sum"),
                        StateArray("U_trans", ("K2", "K"), mixing="sum"),
                        StateArray("count", (1,), np.int64, "clock", 1)) + \
            ((StateArray("U_trans2", ("K1", "K1", "K1"), mixing="sum"),) if second else ())

    def _init_state(self, Xc: Any, spec: Any) -> None:
        self._state = new_state(self._declared_state(spec),
                                _sizes(len(self.classes_), Xc.shape[1]))
        self._publish()

    def _check_continuation(self, Xc: Any, spec: Any) -> None:
        super()._check_continuation(Xc, spec)
        if ("U" in self._state) != bool(self.average):
            raise ValueError("the model was trained with another `average`: its state cannot "
                             "continue with this one (fit again without warm_start)")
        if ("trans2" in self._state) != (self.order == 2):
            raise ValueError("the model was trained with another `order`: its state cannot "
                             "continue with this one (fit again without warm_start)")

    def _start(self, Xc: Any, y_idx: np.ndarray, sample_weight: np.ndarray | None,
               spec: dict[str, Any]) -> _SequenceRun:
        return _SequenceRun(self, Xc, y_idx, spec["offsets"])

    def _publish(self) -> None:
        """The state changed: the published attributes are recomputed from it when next read
        (`_published`), so an epoch of ``partial_fit`` does not pay for averaging ~d K
        weights that nobody reads."""
        self.__dict__.pop("_published_cache", None)

    def _published(self, name: str) -> np.ndarray:
        """coef_ (the transpose of the feature-major state: (n_classes, n_features) as in
        scikit-learn), intercept_ and the transition scores (the averages when averaging),
        computed once per state, with the tables Viterbi reads: the feature-major weights
        ``W``, ``b`` and the packed transitions ``trans`` ((K + 2, K): the transitions, then
        the first and the last tag's scores), of which the published attributes are views
        (what changes one changes the other, as when prediction read the attributes)."""
        cache = self.__dict__.get("_published_cache")
        if cache is None or name not in cache:  # (a pickle of an older release has no tables)
            st = self.__dict__.get("_state")
            if st is None:
                raise AttributeError(f"{type(self).__name__} has no attribute {name!r} "
                                     "before fit")
            W, b, trans, trans2 = st["W"], st["b"], st["trans"], st.get("trans2")
            if "U" in st:
                c = float(st["count"][0])
                W, b, trans = W - st["U"] / c, b - st["beta"] / c, trans - st["U_trans"] / c
                trans2 = None if trans2 is None else trans2 - st["U_trans2"] / c
            else:  # none of them shares memory with the state
                W, b, trans = W.copy(), b.copy(), trans.copy()
                trans2 = None if trans2 is None else trans2.copy()
            K = b.shape[0]
            cache = self.__dict__["_published_cache"] = {
                "W": W, "b": b, "trans": trans, "coef_": W.T, "intercept_": b,
                "coef_trans_": trans[:K], "coef_init_": trans[K], "coef_final_": trans[K + 1],
                "trans2": trans2}
            if trans2 is not None:
                cache["coef_trans2_"] = trans2
        if name not in cache:
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r}: a model "
                                 "of order 1 has no trigram scores")
        return cache[name]

    def __getstate__(self) -> dict[str, Any]:
        """The model without its published cache (rebuilt from the state when read), so an
        unpickled model's attributes are views of its tables again."""
        state = self.__dict__.copy()
        state.pop("_published_cache", None)
        return state

    # documented in the class's Attributes section (a docstring here too makes Sphinx
    # describe them twice, a -W error)
    coef_ = property(lambda self: self._published("coef_"))
    intercept_ = property(lambda self: self._published("intercept_"))
    coef_trans_ = property(lambda self: self._published("coef_trans_"))
    coef_init_ = property(lambda self: self._published("coef_init_"))
    coef_final_ = property(lambda self: self._published("coef_final_"))
    coef_trans2_ = property(lambda self: self._published("coef_trans2_"))

    # ------------------------------------------------------------------ training
    @fill(_SENTENCES)
    @trains
    def fit(self, X: Any, y: Any, lengths: Any = None, *,
            groups: Any = None) -> StructuredPerceptron:
        """Train for up to ``max_iter`` epochs over the sentences of X.

        Stops after an epoch that tags every token right.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_tokens, n_features)
            One row of features per token, the sentences one after another.
        y : array-like of shape (n_tokens,), or list of lists
            The tag of each token; at least two tags. Or each sentence's tags (a list of
            lists, as sklearn-crfsuite and seqeval take them), which give ``lengths``.
        {lengths_y}
        {groups}

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            If ``lengths`` is missing or does not add up to the rows of X, an input or
            parameter is malformed, or (with ``warm_start``) the tags changed.
        """
        y, lengths = by_sentence(y, lengths, groups)
        self._need_lengths(lengths, "fit", "fit(X, y, lengths)")
        with model_kept(self):  # an error or Ctrl-C before an epoch ends: the model before
            spec = self._spec()
            X, names = gate(self, X, check_X, first=True)
            spec = {**spec, "offsets": check_lengths(lengths, X.shape[0])}
            fresh = not (self.warm_start and self._is_fitted())
            y_idx = fit_labels(self, y, X.shape[0], fresh)
            start_or_continue(self, X, spec, fresh, names)
            run = self._start(X, y_idx, None, spec)
            train(self, run, X.shape[0], self.max_iter, None, fitting=True)
        warn_if_not_converged(self)
        return self

    @fill(_SENTENCES)
    @trains
    def partial_fit(self, X: Any, y: Any, lengths: Any = None, classes: Any = None, *,
                    groups: Any = None) -> StructuredPerceptron:
        """One epoch over these sentences, continuing the model's state.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_tokens, n_features)
            One row of features per token, the sentences one after another.
        y : array-like of shape (n_tokens,), or list of lists
            The tag of each token, each one of ``classes``; or each sentence's tags, as in
            `fit`.
        {lengths_y}
        classes : array-like, optional
            Every tag the model will ever see; required on the first call, unchanged after.
        {groups}

        Returns
        -------
        self : object
            The estimator, trained one more epoch.

        Raises
        ------
        ValueError
            If ``lengths`` is missing, an input is malformed, ``classes`` is missing on the
            first call or changes, or X does not match the fitted model.
        """
        y, lengths = by_sentence(y, lengths, groups)
        self._need_lengths(lengths, "partial_fit", "partial_fit(X, y, lengths, classes=...)")
        with model_kept(self):
            first = not self._is_fitted()
            spec = self._spec()
            X, names = gate(self, X, check_X, first)
            spec = {**spec, "offsets": check_lengths(lengths, X.shape[0])}
            y_idx = next_batch(self, X, check_y(y, X.shape[0]), classes, spec, names, first)
            train(self, self._start(X, y_idx, None, spec), X.shape[0], 1, None, fitting=False)
        return self

    # ------------------------------------------------------------------ prediction
    def _tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """(W, b, trans, trans2 or None) as Viterbi reads them: the published tables
        (`_published`; the attributes, read-only properties, are views of them)."""
        return (self._published("W"), self._published("b"), self._published("trans"),
                self._published("trans2"))

    def _predict_idx(self, X: Any, lengths: Any, method: str, example: str,
                     forced: Any = None) -> np.ndarray:
        self._check_fitted()
        self._need_lengths(lengths, method, example)
        check_feature_names(X, getattr(self, "feature_names_in_", None), type(self).__name__,
                            reset=False)
        Xc = check_X(X)
        check_n_features(Xc, self.n_features_in_, type(self).__name__)
        offsets = check_lengths(lengths, Xc.shape[0])
        out = np.empty(Xc.shape[0], dtype=np.int64)
        seq = _backend.sequence
        W, b, trans, trans2 = self._tables()
        if forced is not None:
            return self._forced_idx(Xc, offsets, forced, out)
        if isinstance(Xc, CSR):
            seq.decode_csr(Xc.data, Xc.indices, Xc.indptr, W, b, trans, offsets, out,
                           n_jobs=self.n_jobs, allowed=self._allowed(), trans2=trans2)
        else:
            seq.decode_dense(Xc, W, b, trans, offsets, out, n_jobs=self.n_jobs,
                             allowed=self._allowed(), trans2=trans2)
        return out

    def _forced_idx(self, Xc: Any, offsets: np.ndarray, forced: Any,
                    out: np.ndarray) -> np.ndarray:
        """Viterbi with tags forced at some tokens: the emissions of the other tags are -inf
        there (an impossible path, as the allowed transitions make one), then the routines'
        Viterbi through the allowed transitions (every one without ``transitions``)."""
        tags = np.asarray(forced, dtype=object)
        if tags.shape != (Xc.shape[0],):
            raise ValueError(f"forced must hold one entry per row of X ({Xc.shape[0]}): a tag, "
                             f"or None where the tag is free; got shape {tags.shape}")
        at = np.flatnonzero(tags != None)  # noqa: E711 (elementwise)
        index = {tag: k for k, tag in enumerate(self.classes_.tolist())}
        unknown = [t for t in tags[at].tolist() if t not in index]
        if unknown:
            raise ValueError(f"forced: {unknown[0]!r} is not one of the tags (classes_)")
        cols = [index[t] for t in tags[at].tolist()]
        seq = _backend.sequence
        W, b, trans, trans2 = self._tables()
        K = W.shape[1]
        E = np.empty((Xc.shape[0], K))
        if isinstance(Xc, CSR):
            seq.emissions_csr(Xc.data, Xc.indices, Xc.indptr, W, b, E)
        else:
            seq.emissions_dense(Xc, W, b, E)
        keep = E[at, cols]
        E[at] = -np.inf
        E[at, cols] = keep
        allowed = self._allowed()
        seq.viterbi(E, trans, offsets, out,
                    allowed=np.ones((K + 2, K), np.uint8) if allowed is None else allowed,
                    trans2=trans2)
        return out

    @fill(ESTIMATOR, _SENTENCES)
    @reads
    def predict(self, X: Any, lengths: Any = None, *, groups: Any = None,
                split: bool = False, forced: Any = None) -> Any:
        """The tag of every token: each sentence's best sequence (Viterbi).

        Ties go to the lowest tag index.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_tokens, n_features)
            One row of features per token, the sentences one after another.
        lengths : array-like of int
            The number of tokens of each sentence, in order, summing to ``n_tokens``: required
            (a single sentence is ``[n_tokens]``; the default None is refused).
        {groups}
        split : bool, default False
            Return each sentence's tags as a list, in a list (sklearn-crfsuite's and
            seqeval's shape), instead of one array of every token's tag.
        forced : array-like of shape (n_tokens,), optional
            A tag to force at each token, or None where the tag is free (a gazetteer's
            match, a tag a user fixed): each sentence's best sequence among those that keep
            the forced tags (and follow ``transitions``). A sentence where no such sequence
            exists is a FloatingPointError naming it.

        Returns
        -------
        ndarray of shape (n_tokens,), or list of lists
            Tags, from ``classes_`` (as Python objects in the lists).

        {raises_unfitted}
        ValueError
            If ``lengths`` is missing, X or ``lengths`` is malformed, or X does not match the
            training data.
        """
        # (first: it raises NotFittedError before fit)
        lengths = lengths_of_groups(groups, lengths)
        idx = self._predict_idx(X, lengths, "predict", "predict(X, lengths)", forced)
        if not isinstance(split, (bool, np.bool_)):
            raise TypeError(f"split must be True or False, got {split!r}")
        tags = self.classes_[idx]
        if not split:
            return tags
        return [part.tolist() for part in np.split(tags, np.cumsum(lengths)[:-1])]

    # (the third argument is lengths, as in fit: scikit-learn's sample_weight is keyword-only)
    @fill(ESTIMATOR, _SENTENCES)
    @reads
    def score(self, X: Any, y: Any, lengths: Any = None, *,  # type: ignore[override]
              groups: Any = None, sample_weight: Any = None) -> float:
        """The fraction of tokens tagged right.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_tokens, n_features)
            One row of features per token, the sentences one after another.
        y : array-like of shape (n_tokens,), or list of lists
            The true tag of each token; or each sentence's tags, as in `fit`.
        {lengths_y}
        {groups}

        sample_weight : array-like of shape (n_tokens,), optional
            A weight per token (scikit-learn's ``score`` argument): the accuracy is then the
            weighted mean.

        Returns
        -------
        float
            The token accuracy of `predict`.

        {raises_unfitted}
        ValueError
            If ``lengths`` is missing, X, y or ``lengths`` is malformed, or X does not match
            the training data.
        """
        y, lengths = by_sentence(y, lengths, groups)
        idx = self._predict_idx(X, lengths, "score", "score(X, y, lengths)")
        right = self.classes_[idx] == check_y(y, idx.shape[0])
        if sample_weight is None:
            return float(np.mean(right))
        return float(np.average(right, weights=check_sample_weight(sample_weight,
                                                                   idx.shape[0])))

    # ------------------------------------------------------------------ metadata routing
    def get_metadata_routing(self) -> Any:
        """scikit-learn's metadata routing: what each method takes from a meta-estimator.

        ``lengths`` and ``groups`` are requested by `fit`, `partial_fit`, `predict` and
        `score` unless a ``set_*_request`` call says otherwise: with routing on
        (``sklearn.set_config(enable_metadata_routing=True)``), a ``Pipeline``,
        ``cross_validate`` or ``GridSearchCV`` passes them on unasked. Needs scikit-learn.

        Returns
        -------
        sklearn.utils.metadata_routing.MetadataRequest
            The requests.
        """
        from sklearn.utils.metadata_routing import MetadataRequest

        request = MetadataRequest(owner=type(self).__name__)
        chosen = self.__dict__.get("_metadata_request", {})
        for method, params in ROUTED.items():
            for param in params:
                getattr(request, method).add_request(
                    param=param, alias=chosen.get(method, {}).get(param, True))
        request.score.add_request(
            param="sample_weight", alias=chosen.get("score", {}).get("sample_weight", None))
        return request

    def _set_request(self, method: str, **aliases: Any) -> StructuredPerceptron:
        for param, alias in aliases.items():
            if isinstance(alias, str) and alias == UNCHANGED:
                continue
            if not (alias is True or alias is False or alias is None
                    or (isinstance(alias, str) and alias.isidentifier())):
                raise ValueError(f"{param}'s request must be True, False, None or a name to "
                                 f"take it under, got {alias!r}")
            requests = self.__dict__.setdefault("_metadata_request", _Requests())
            requests.setdefault(method, {})[param] = alias
        return self

    set_fit_request = _request_setter("fit")
    set_partial_fit_request = _request_setter("partial_fit")
    set_predict_request = _request_setter("predict")

    @fill(_REQUEST)
    def set_score_request(self, *, lengths: Any = UNCHANGED, groups: Any = UNCHANGED,
                          sample_weight: Any = UNCHANGED) -> StructuredPerceptron:
        """Whether `score` takes ``lengths``, ``groups`` and ``sample_weight`` from a
        meta-estimator, with scikit-learn's metadata routing on: the first two are requested
        by default, ``sample_weight`` is not (None), as in scikit-learn's estimators.

        Parameters
        ----------
        lengths, groups, sample_weight : bool, None, str or UNCHANGED
            {request}
            The default, UNCHANGED, leaves a request as it is.

        Returns
        -------
        self : object
            The estimator.
        """
        return self._set_request("score", lengths=lengths, groups=groups,
                                 sample_weight=sample_weight)

    # ------------------------------------------------------------------ persistence
    @classmethod
    def _from_state(cls, params: dict, arrays: dict) -> StructuredPerceptron:
        est = cls(**params)
        declared = est._declared_state(est._spec())
        K, d = est._restore_common_state(arrays, entry_names(declared))
        est._state = restore_state(arrays, declared, _sizes(K, d))
        if est.average and est._state["count"][0] < 1:
            raise ValueError("model file: state_count must be >= 1")
        est._publish()
        return est
