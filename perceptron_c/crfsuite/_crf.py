"""`CRF`: sklearn-crfsuite's estimator on this package's CRFsuite trainers and tagger.

sklearn-crfsuite's ``CRF`` (its ``estimator.py``) wraps python-crfsuite: ``fit`` appends
each sequence of feature dicts to a ``Trainer`` (the dev set as holdout group 1), trains to
a model file and opens a ``Tagger`` on it; the parameters map one to one onto CRFsuite's
(``min_freq`` is ``feature.minfreq``, ``pa_type`` is ``type``, ...). This one keeps those
names and results, with CRFsuite's perceptron-family trainers: ``algorithm`` is "ap" (the
default here: sklearn-crfsuite's "lbfgs" is a likelihood trainer, outside the perceptron
family), "pa" or "arow"; the L-BFGS and SGD parameters are accepted, so code that sets them
constructs, and ``fit`` says which trainers there are. The model stays in memory (its file's
bytes) unless ``model_filename`` names a file to write; the estimator pickles as those bytes.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._utils._docs import fill
from .._utils._params import Parameters
from ._metrics import flat_accuracy_score

__all__ = ["CRF"]

# CRF's parameter -> CRFsuite's name (sklearn-crfsuite's _get_trainer)
_NAMES = {"min_freq": "feature.minfreq", "all_possible_states": "feature.possible_states",
          "all_possible_transitions": "feature.possible_transitions", "c1": "c1", "c2": "c2",
          "max_iterations": "max_iterations", "num_memories": "num_memories",
          "epsilon": "epsilon", "period": "period", "delta": "delta",
          "linesearch": "linesearch", "max_linesearch": "max_linesearch",
          "calibration_eta": "calibration.eta", "calibration_rate": "calibration.rate",
          "calibration_samples": "calibration.samples",
          "calibration_candidates": "calibration.candidates",
          "calibration_max_trials": "calibration.max_trials", "pa_type": "type", "c": "c",
          "error_sensitive": "error_sensitive", "averaging": "averaging",
          "variance": "variance", "gamma": "gamma"}

# the sequences the prediction methods take
_DOCS = {
    "X": """
        X : list of item sequences
            The sequences.""",
    "xseq": """
        xseq : item sequence
            One sequence.""",
}


class CRF(Parameters):
    """A linear-chain CRF trained by CRFsuite's averaged perceptron ("ap"), passive-aggressive
    ("pa") or AROW ("arow"), with sklearn-crfsuite's parameters and methods.

    Parameters
    ----------
    algorithm : {"ap", "pa", "arow"}, default=None
        The trainer; None is "ap". "lbfgs" and "l2sgd" raise ValueError at ``fit``.
    min_freq, all_possible_states, all_possible_transitions : default=None
        CRFsuite's ``feature.minfreq``, ``feature.possible_states``,
        ``feature.possible_transitions``; None keeps CRFsuite's default.
    max_iterations, epsilon : default=None
        The most epochs, and the stopping threshold on the epoch's mean loss.
    pa_type, c, error_sensitive, averaging : default=None
        The passive-aggressive trainer's ``type`` (0, 1 or 2), aggressiveness, and options.
    variance, gamma : default=None
        AROW's initial variance and its tradeoff.
    c1, c2, num_memories, period, delta, linesearch, max_linesearch : default=None
        sklearn-crfsuite's L-BFGS parameters: accepted, not used by these trainers (set
        with "ap", "pa" or "arow", CRFsuite refuses them at ``fit``).
    calibration_eta, calibration_rate, calibration_samples : default=None
        sklearn-crfsuite's SGD parameters, as the L-BFGS ones.
    calibration_candidates, calibration_max_trials : default=None
        The same.
    verbose : bool, default=False
        Print the trainer's log.
    model_filename : str, default=None
        Also write the model to this file (CRFsuite's format).
    keep_tempfiles : bool, default=None
        Accepted for sklearn-crfsuite's signature; no temporary file is made here.
    trainer_cls : type, default=None
        The trainer class (`perceptron_c.crfsuite.Trainer` or a subclass).

    Attributes
    ----------
    tagger_ : perceptron_c.crfsuite.Tagger
        The trained model's tagger (None before ``fit``).
    training_log_ : TrainLog
        The trainer's ``logparser``: each iteration's numbers.
    classes_, size_, num_attributes_, attributes_, state_features_, transition_features_
        The labels, the model's size in bytes, its attributes, and its weights by name.
    """

    algorithm: str | None
    verbose: bool
    model_filename: str | None
    trainer_cls: Any

    def __init__(self, algorithm: str | None = None, min_freq: float | None = None,
                 all_possible_states: bool | None = None,
                 all_possible_transitions: bool | None = None, c1: float | None = None,
                 c2: float | None = None, max_iterations: int | None = None,
                 num_memories: int | None = None, epsilon: float | None = None,
                 period: int | None = None, delta: float | None = None,
                 linesearch: str | None = None, max_linesearch: int | None = None,
                 calibration_eta: float | None = None, calibration_rate: float | None = None,
                 calibration_samples: float | None = None,
                 calibration_candidates: int | None = None,
                 calibration_max_trials: int | None = None, pa_type: int | None = None,
                 c: float | None = None, error_sensitive: bool | None = None,
                 averaging: bool | None = None, variance: float | None = None,
                 gamma: float | None = None, verbose: bool = False,
                 model_filename: str | None = None, keep_tempfiles: bool | None = None,
                 trainer_cls: Any = None) -> None:
        self._keep_params(locals())

    # ------------------------------------------------------------------ training
    def fit(self, X: Sequence[Any], y: Sequence[Sequence[str]], X_dev: Any = None,
            y_dev: Any = None) -> CRF:
        """Train on the sequences of X (each a list of feature dicts, or any form
        `perceptron_c.crfsuite.ItemSequence` takes) and their label sequences y; with
        ``X_dev`` and ``y_dev``, those are held out and scored after each iteration (in
        ``training_log_``).

        Parameters
        ----------
        X : list of item sequences
            Each a list of feature dicts (or any form `ItemSequence` takes).
        y : list of list of str
            The labels of each sequence.
        X_dev, y_dev : lists, default=None
            A development set, scored after each iteration.

        Returns
        -------
        self : CRF
        """
        from . import Tagger, Trainer

        if (X_dev is None) != (y_dev is None):
            raise ValueError("Pass both X_dev and y_dev to use the holdout data")
        if len(X) != len(y):
            raise ValueError(f"X holds {len(X)} sequences, y {len(y)}")
        trainer = self._trainer(self.trainer_cls or Trainer)
        for xseq, yseq in zip(X, y):
            trainer.append(xseq, yseq)
        if X_dev is not None:
            for xseq, yseq in zip(X_dev, y_dev):
                trainer.append(xseq, yseq, 1)
        model = trainer.train_model(-1 if X_dev is None else 1)
        tagger = Tagger.from_model(model)
        if self.model_filename:
            tagger_bytes = tagger._need().data
            from .._utils._npzfile import replace_file
            replace_file(self.model_filename, lambda handle: handle.write(tagger_bytes))
        self.tagger_, self.training_log_ = tagger, trainer.logparser
        return self

    def _trainer(self, cls: Any) -> Any:
        params = {_NAMES[name]: getattr(self, name) for name in _NAMES
                  if getattr(self, name) is not None}
        return cls(algorithm=self.algorithm or "ap", params=params, verbose=self.verbose)

    # ------------------------------------------------------------------ prediction
    def predict(self, X: Sequence[Any]) -> list[list[str]]:
        """The label sequence of each sequence of X.

        Parameters
        ----------
        X : list of item sequences
            The sequences to label.

        Returns
        -------
        list of list of str
            The labels of each sequence.
        """
        return [self.predict_single(xseq) for xseq in X]

    @fill(_DOCS)
    def predict_single(self, xseq: Any) -> list[str]:
        """The labels of one sequence.

        Parameters
        ----------
        {xseq}

        Returns
        -------
        list of str
            Its labels.
        """
        return self._tagger().tag(xseq)

    @fill(_DOCS)
    def predict_marginals(self, X: Sequence[Any]) -> list[list[dict[str, float]]]:
        """For each sequence of X, each item's marginal probability of every label.

        Parameters
        ----------
        {X}

        Returns
        -------
        list of list of dict
            For each sequence, each item's ``{label: probability}``.
        """
        return [self.predict_marginals_single(xseq) for xseq in X]

    @fill(_DOCS)
    def predict_marginals_single(self, xseq: Any) -> list[dict[str, float]]:
        """Each item's marginal probability of every label, for one sequence.

        Parameters
        ----------
        {xseq}

        Returns
        -------
        list of dict
            Each item's ``{label: probability}``.
        """
        tagger = self._tagger()
        tagger.set(xseq)
        labels = tagger.labels()
        return [{label: tagger.marginal(label, t) for label in labels}
                for t in range(len(xseq))]

    @fill(_DOCS)
    def score(self, X: Sequence[Any], y: Sequence[Sequence[str]]) -> float:
        """The share of items labeled right (sklearn-crfsuite's flat accuracy).

        Parameters
        ----------
        {X}
        y : list of list of str
            Their true labels.

        Returns
        -------
        float
            The flat accuracy.
        """
        return flat_accuracy_score(y, self.predict(X))

    def _tagger(self) -> Any:
        tagger = getattr(self, "tagger_", None)
        if tagger is None:
            from ..exceptions import NotFittedError, sklearn_flavoured

            raise sklearn_flavoured(NotFittedError)(
                "This CRF instance is not fitted yet. Call 'fit' with appropriate arguments "
                "before using this estimator.")
        return tagger

    # ------------------------------------------------------------------ the model
    @property
    def classes_(self) -> list[str] | None:
        tagger = getattr(self, "tagger_", None)
        return None if tagger is None else tagger.labels()

    def _info(self) -> Any:
        tagger = getattr(self, "tagger_", None)
        return None if tagger is None else tagger.info()

    @property
    def size_(self) -> int | None:
        tagger = getattr(self, "tagger_", None)
        return None if tagger is None else len(tagger._need().data)

    @property
    def num_attributes_(self) -> int | None:
        info = self._info()
        return None if info is None else len(info.attributes)

    @property
    def attributes_(self) -> list[str] | None:
        info = self._info()
        return None if info is None else sorted(info.attributes, key=lambda a: int(
            info.attributes[a]))

    @property
    def state_features_(self) -> dict | None:
        info = self._info()
        return None if info is None else info.state_features

    @property
    def transition_features_(self) -> dict | None:
        info = self._info()
        return None if info is None else info.transitions
