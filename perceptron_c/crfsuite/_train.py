"""python-crfsuite's ``Trainer`` (pycrfsuite 0.9, ``pycrfsuite/_pycrfsuite.pyx``) with
CRFsuite's perceptron-family trainers: ``"ap"`` (averaged perceptron), ``"pa"``
(passive-aggressive) and ``"arow"`` (AROW), their parameter names, defaults and help texts
(CRFsuite 0.12 ``exchange_options`` of each ``train_*.c`` and ``crf1d_encode.c``), and the
log CRFsuite prints, line for line, so ``Trainer.logparser`` reads it. The arithmetic is
`perceptron_c.crfsuite._online`'s; the model it trains is a `CRFModel`.

CRFsuite's likelihood trainers (``"lbfgs"``, ``"l2sgd"``) are not here: selecting one raises
``ValueError`` naming the three trainers available. python-crfsuite selects ``"lbfgs"`` when
no algorithm is given; here nothing is selected until ``select`` (or ``algorithm=``), and
``train`` says so.
"""
from __future__ import annotations

import fractions
import re
import time
from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import _backend
from .._utils._docs import fill
from . import _online as online
from ._log import LabelScore, TrainLog
from ._model import CRFModel

__all__ = ["Trainer", "BaseTrainer"]

_ITER_HELP = "The maximum number of iterations."
# (name, type, default, help) in the order CRFsuite lists them: the crf1d encoder's first
_FEATURE_PARAMS = [
    ("feature.minfreq", float, 0.0, "The minimum frequency of features."),
    ("feature.possible_states", bool, False, "Force to generate possible state features."),
    ("feature.possible_transitions", bool, False,
     "Force to generate possible transition features."),
]
_PARAMS = {
    "ap": [
        ("max_iterations", int, 100, _ITER_HELP),
        ("epsilon", float, 0.0,
         "The stopping criterion (the ratio of incorrect label predictions)."),
    ],
    "pa": [
        ("type", int, 1, "The strategy for updating feature weights: {\n"
         "    0: PA without slack variables,\n    1: PA type I,\n    2: PA type II\n}.\n"),
        ("c", float, 1.0, "The aggressiveness parameter."),
        ("error_sensitive", bool, True,
         "Consider the number of incorrect labels to the cost function."),
        ("averaging", bool, True,
         "Compute the average of feature weights (similarly to Averaged Perceptron)."),
        ("max_iterations", int, 100, _ITER_HELP),
        ("epsilon", float, 0.0, "The stopping criterion (the mean loss)."),
    ],
    "arow": [
        ("variance", float, 1.0, "The initial variance of every feature weight."),
        ("gamma", float, 1.0, "Tradeoff parameter."),
        ("max_iterations", int, 100, _ITER_HELP),
        ("epsilon", float, 0.0, "The stopping criterion (the mean loss)."),
    ],
}
_ALIASES = {"averaged-perceptron": "ap", "passive-aggressive": "pa"}
_TITLES = {"ap": "Averaged perceptron", "pa": "Passive Aggressive",
           "arow": "Adaptive Regularization of Weights (AROW)"}
_NOT_HERE = {"lbfgs", "l2sgd"}
# numpydoc blocks the trainers' docstrings share (`fill` places them)
_DOCS = {
    # both trainers' parameters
    "trainer_params": """
        Parameters
        ----------
        algorithm : {'ap', 'pa', 'arow'}, optional
            The training algorithm (see `select`).
        params : dict, optional
            Training parameters (see `set_params`).
        verbose : bool
            Whether to print CRFsuite's log while training (default True).
        """,
    # what each of Trainer's on_* callbacks says after its own summary
    "prints_log": """
        Prints the log's part when ``verbose`` (override to do otherwise).

        Parameters
        ----------
        log : str
            The part of the log this event ends.
        """,
}
_PROGRESS = ["0"] + [str(p // 10) if p % 10 == 0 else "." for p in range(2, 101, 2)] + ["\n"]


def _c_int(text: str) -> int:
    """C's ``atoi``: the leading integer of the text, 0 without one."""
    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else 0


def _c_float(text: str) -> float:
    """C's ``atof``: the leading number of the text, 0.0 without one."""
    m = re.match(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|nan))", text,
                 re.IGNORECASE)
    return float(m.group(1)) if m else 0.0


def _label(y: Any) -> str:
    if isinstance(y, bytes):
        return y.decode("utf-8")
    if not isinstance(y, str):
        raise TypeError(f"yseq: a label must be str or bytes, got {type(y).__name__}")
    return y


def _items(xseq: Any) -> list[tuple[list[str], np.ndarray]]:
    """The items of ``xseq`` in any form python-crfsuite's ``Trainer.append`` takes (lists
    of names, dicts of name to value, nested dicts flattened with ':' as its ``to_item``
    does, an ``ItemSequence`` or any object with ``items()`` giving such items): per item,
    its names and their float64 values."""
    packed = getattr(xseq, "_packed", None)  # an ItemSequence: read already
    if packed is None:
        if hasattr(xseq, "items") and not isinstance(xseq, dict):
            xseq = xseq.items()
        packed = _backend.crftag.pack(xseq if type(xseq) is list else list(xseq), False)
    return [([name for name, _ in item], np.array([v for _, v in item], dtype=np.float64))
            for item in packed.pairs()]


@fill(_DOCS)
class BaseTrainer:
    """python-crfsuite's trainer with CRFsuite's perceptron-family trainers.

    {trainer_params}
    """

    def __init__(self, algorithm: str | None = None, params: dict | None = None,
                 verbose: bool = True) -> None:
        self.clear()
        self._algorithm: str | None = None
        self._values: dict[str, Any] = {n: d for n, _, d, _ in _FEATURE_PARAMS}
        if algorithm is not None:
            self.select(algorithm)
        if params is not None:
            self.set_params(params)
        self.verbose = verbose

    # -- data -------------------------------------------------------------------------
    def append(self, xseq: Any, yseq: Iterable[str], group: int = 0) -> None:
        """Append an instance (item sequence, label sequence) to the data set.

        Parameters
        ----------
        xseq : ItemSequence or list
            The items' features, in any form `ItemSequence` takes.
        yseq : iterable of str
            One label per item.
        group : int, default=0
            The instance's group, which `train` can hold out.
        """
        items = _items(xseq)
        labels = [_label(y) for y in yseq]
        if len(items) != len(labels):
            raise ValueError(f"The numbers of items and labels differ: |x| = {len(items)}, "
                             f"|y| = {len(labels)}")
        aids = [self._attrs.setdefault(n, len(self._attrs)) for names, _ in items
                for n in names]
        lens = np.array([len(names) for names, _ in items], dtype=np.int64)
        self._data.append(online.Instance(
            aids=np.array(aids, dtype=np.int64),
            values=np.concatenate([v for _, v in items]) if items else np.zeros(0),
            item=np.repeat(np.arange(len(items)), lens),
            ends=np.cumsum(lens),
            labels=np.array([self._labels.setdefault(y, len(self._labels)) for y in labels],
                            dtype=np.int64),
            group=int(group)))

    def clear(self) -> None:
        """Remove all instances in the data set (and its dictionaries)."""
        self._data: list[online.Instance] = []
        self._attrs: dict[str, int] = {}
        self._labels: dict[str, int] = {}

    # -- algorithm and parameters -----------------------------------------------------
    def select(self, algorithm: str, type: str = "crf1d") -> None:
        """Select the training algorithm. Parameters keep their values across a change of
        algorithm where both have them.

        Parameters
        ----------
        algorithm : {'ap', 'pa', 'arow'}
            'ap' (averaged perceptron, also 'averaged-perceptron'), 'pa' (passive-aggressive,
            also 'passive-aggressive') or 'arow'.
        type : str, default='crf1d'
            The graphical model, CRFsuite's only one.
        """
        name = _ALIASES.get(str(algorithm).lower(), str(algorithm).lower())
        if name in _NOT_HERE:
            raise ValueError(f"algorithm={algorithm!r} is a CRF likelihood trainer of "
                             "CRFsuite, not a perceptron: the trainers available are 'ap' "
                             "(averaged perceptron), 'pa' (passive-aggressive) and 'arow'")
        if name not in _PARAMS or type != "crf1d":
            raise ValueError(f"Bad arguments: algorithm={algorithm!r}, type={type!r}")
        self._algorithm = name
        old = self._values
        self._values = {n: old.get(n, d) if n.startswith("feature.") else d
                        for n, _, d, _ in self._table()}

    def _table(self) -> list[tuple[str, type, Any, str]]:
        return _FEATURE_PARAMS + (_PARAMS[self._algorithm] if self._algorithm else [])

    def _spec(self, name: str) -> tuple[str, type, Any, str]:
        for spec in self._table():
            if spec[0] == name:
                return spec
        raise ValueError(f"Parameter not found: {name}")

    def params(self) -> list[str]:
        """The names of the parameters of the selected algorithm.

        Returns
        -------
        list of str
            The names, in CRFsuite's order.
        """
        return [name for name, _, _, _ in self._table()]

    def set(self, name: str, value: Any) -> None:
        """Set a parameter.

        Parameters
        ----------
        name : str
            The parameter's name (`params`).
        value : object
            Its value, read as CRFsuite reads its text (``atoi`` and ``atof``: ``"12abc"`` is
            12, ``"abc"`` is 0).
        """
        _, kind, _, _ = self._spec(name)
        text = str(int(value)) if isinstance(value, bool) else str(value)
        self._values[name] = (bool(_c_int(text)) if kind is bool else
                              _c_int(text) if kind is int else _c_float(text))

    def get(self, name: str) -> Any:
        """The value of a parameter.

        Parameters
        ----------
        name : str
            The parameter's name.

        Returns
        -------
        bool, int or float
            Its value, cast as python-crfsuite casts it.
        """
        self._spec(name)
        return self._values[name]

    def help(self, name: str) -> str:
        """CRFsuite's description of a parameter.

        Parameters
        ----------
        name : str
            The parameter's name.

        Returns
        -------
        str
            Its help text.
        """
        return self._spec(name)[3]

    def set_params(self, params: dict) -> None:
        """Set parameters.

        Parameters
        ----------
        params : dict
            ``{name: value}``, each set as `set` does.
        """
        for key, value in params.items():
            self.set(key, value)

    def get_params(self) -> dict:
        """Every parameter of the selected algorithm and its value.

        Returns
        -------
        dict
            ``{name: value}``.
        """
        return {name: self.get(name) for name in self.params()}

    # -- messages ---------------------------------------------------------------------
    def message(self, message: str) -> None:
        """Receive each piece of the training log; prints it when ``verbose``.

        Parameters
        ----------
        message : str
            A line of CRFsuite's log.
        """
        if self.verbose:
            print(message, end="")

    def _log(self, text: str) -> None:
        for line in text.splitlines(keepends=True):  # CRFsuite logs line by line
            self.message(line)

    def _event(self, name: str, **numbers: Any) -> None:
        """The log's part that ``name`` ends, with its numbers (`Trainer` records them)."""

    def _before_train(self) -> None:
        pass

    # -- training ---------------------------------------------------------------------
    def train(self, model: str, holdout: int = -1) -> None:
        """Train on the appended instances and write the model to a file.

        Parameters
        ----------
        model : str
            The model file's path (CRFsuite's format; none is written when empty).
        holdout : int, default=-1
            The group whose instances are not trained on but evaluated after each
            iteration; -1: none.

        Raises
        ------
        ValueError
            No algorithm selected, or no data.
        FloatingPointError
            A step that would make a weight infinite or NaN.
        """
        crf = self.train_model(holdout)
        if model:
            from .._utils._npzfile import replace_file
            from ._file import write_model
            begin = time.process_time()
            self._log("Storing the model\n")
            A, K = len(self._attrs), self._n_features
            J = crf.state_attr.shape[0] + int(np.count_nonzero(crf.transitions))
            self._log(f"Number of active features: {J} ({K})\n")
            self._log(f"Number of active attributes: {len(crf.attributes)} ({A})\n")
            self._log(f"Number of active labels: {len(crf.labels)} ({len(crf.labels)})\n")
            for what in ("labels", "attributes", "feature references for transitions",
                         "feature references for attributes"):
                self._log(f"Writing {what}\n")
            data = write_model(crf)
            replace_file(model, lambda handle: handle.write(data))  # all or nothing
            seconds = time.process_time() - begin
            self._log(f"Seconds required: {seconds:.3f}\n\n")
            self._event("end", storing_seconds=_as_printed(seconds, ".3f"))
        else:
            self._event("end")

    def train_model(self, holdout: int = -1) -> CRFModel:
        """`train` without the file.

        Parameters
        ----------
        holdout : int, default=-1
            The group held out, as in `train`.

        Returns
        -------
        CRFModel
            The trained model.
        """
        if self._algorithm is None:
            raise ValueError("The trainer is not initialized: select 'ap', 'pa' or 'arow' "
                             "(CRFsuite's default 'lbfgs' is not a perceptron trainer)")
        if not self._data:
            raise ValueError("The data is empty. Call Trainer::append before "
                             "Trainer::train.")
        self._before_train()
        holdout = int(holdout)
        train = [i for i, inst in enumerate(self._data) if inst.group != holdout]
        test = [i for i, inst in enumerate(self._data) if inst.group == holdout] \
            if holdout >= 0 else []
        if holdout >= 0:
            self._log(f"Holdout group: {holdout + 1}\n\n")
        feats = self._features(train)
        w = self._epochs(feats, train, test)
        return self._model(feats, w)

    def _features(self, train: list[int]) -> online.Features:
        v = self._values
        begin = time.process_time()
        self._log("Feature generation\ntype: CRF1d\n")
        self._log(f"feature.minfreq: {v['feature.minfreq']:f}\n")
        self._log(f"feature.possible_states: {int(v['feature.possible_states'])}\n")
        self._log(f"feature.possible_transitions: "
                  f"{int(v['feature.possible_transitions'])}\n")
        self._event("start")
        for piece in _PROGRESS:
            self._log(piece)
            if piece != "\n":
                self._event("featgen_progress")
        feats = online.generate_features(
            [self._data[i] for i in train], len(self._attrs), len(self._labels),
            minfreq=v["feature.minfreq"], possible_states=v["feature.possible_states"],
            possible_transitions=v["feature.possible_transitions"])
        self._n_features = feats.count
        self._log(f"Number of features: {feats.count}\n")
        seconds = time.process_time() - begin
        self._log(f"Seconds required: {seconds:.3f}\n\n")
        self._event("featgen_end", featgen_num_features=feats.count,
                    featgen_seconds=_as_printed(seconds, ".3f"))
        return feats

    def _epochs(self, feats: online.Features, train: list[int],
                test: list[int]) -> np.ndarray:
        """The trainer's iterations, as ``crfsuite_train_*`` runs them; the final weights."""
        alg, v = self._algorithm, self._values
        assert alg is not None
        opts: dict[str, Any] = {name: v[name] for name, _, _, _ in _PARAMS[alg]}
        self._log(f"{_TITLES[alg]}\n")
        for name, kind, _, _ in _PARAMS[alg]:
            self._log(f"{name}: {opts[name]:f}\n" if kind is float else
                      f"{name}: {int(opts[name])}\n")
        self._log("\n")
        self._event("prepared")
        state = online.Online(alg, opts, feats, len(self._attrs))
        ring, pos = online.glibc_ring(1)
        flat = online.flatten([self._data[n] for n in train])
        N = len(train)
        perm = np.arange(N, dtype=np.int64)  # positions in flat (in train)
        begin = time.process_time()
        for i in range(opts["max_iterations"]):
            started = time.process_time()
            _backend.crfsuite.shuffle(perm, ring, pos)
            loss = state.epoch(flat, perm)
            w = state.final()
            shown = w if alg != "pa" else state.w  # PA logs the norm of w, not the average
            # CRFsuite's vecdot, a sum in order, not BLAS (whose threads would spin in this
            # process's CPU time, which the log reports)
            norm = float(np.sqrt(np.cumsum(shown * shown)[-1])) if shown.shape[0] else 0.0
            seconds = time.process_time() - started
            self._log(f"***** Iteration #{i + 1} *****\nLoss: {loss:f}\n")
            self._log(f"Feature norm: {norm:f}\n")
            self._log(f"Seconds required for this iteration: {seconds:.3f}\n")
            info = {"num": i + 1, "scores": {}, "loss": _as_printed(loss, "f"),
                    "feature_norm": _as_printed(norm, "f"),
                    "time": _as_printed(seconds, ".3f")}
            if test:
                info.update(self._evaluate(feats, w, test))
            self._log("\n")
            self._event("iteration", **info)
            if loss / N < opts["epsilon"] or (alg == "arow" and loss / N <= opts["epsilon"]):
                self._log("Terminated with the stopping criterion\n\n")
                break
        seconds = time.process_time() - begin
        self._log(f"Total seconds required for training: {seconds:.3f}\n\n")
        self._event("optimization_end", training_seconds=_as_printed(seconds, ".3f"))
        return state.final()

    def _evaluate(self, feats: online.Features, w: np.ndarray, test: list[int]
                  ) -> dict[str, Any]:
        """``holdout_evaluation``: tag the held-out instances, log CRFsuite's report; its
        numbers, as the log prints them."""
        A, L = len(self._attrs), len(self._labels)
        W, trans = w[:A * L].reshape(A, L), w[A * L:].reshape(L, L)
        correct, model, ref = np.zeros(L, np.int64), np.zeros(L, np.int64), np.zeros(L,
                                                                                    np.int64)
        n_items = n_correct_inst = 0
        for n in test:
            inst = self._data[n]
            path, _ = online.viterbi(online.state_scores(inst, W), trans)
            y = inst.labels
            np.add.at(ref, y, 1)
            np.add.at(model, path, 1)
            np.add.at(correct, y[path == y], 1)
            n_items += y.shape[0]
            n_correct_inst += bool((path == y).all())
        return _report(self._log, list(self._labels), correct, model, ref, n_items,
                       n_correct_inst, len(test))

    def _model(self, feats: online.Features, w: np.ndarray) -> CRFModel:
        """``crf1de_save_model``'s pruning: features of weight 0 and attributes left without
        a feature are dropped; attributes keep their order, labels all stay."""
        A, L = len(self._attrs), len(self._labels)
        W = np.where(feats.state, w[:A * L].reshape(A, L), 0.0)
        trans = np.where(feats.trans, w[A * L:].reshape(L, L), 0.0)
        a, lab = np.nonzero(W)
        used, new_ids = np.unique(a, return_inverse=True)
        names = list(self._attrs)
        return CRFModel(labels=list(self._labels), attributes=[names[i] for i in used],
                        state_attr=new_ids.astype(np.int32), state_label=lab.astype(np.int32),
                        state_weight=W[a, lab].astype(np.float64), transitions=trans)


def _report(log: Any, labels: list[str], correct: np.ndarray, model: np.ndarray,
            ref: np.ndarray, n_items: int, n_correct_inst: int, n_inst: int
            ) -> dict[str, Any]:
    """``crfsuite_evaluation_finalize`` and ``_output``: per label and macro scores, logged;
    the numbers as the log prints them (``logparser``'s iteration fields)."""
    log("Performance by label (#match, #model, #ref) (precision, recall, F1):\n")
    macro = [0.0, 0.0, 0.0]
    scores = {}
    for i, name in enumerate(labels):
        c, m, r = int(correct[i]), int(model[i]), int(ref[i])
        if r == 0:
            log(f"    {name}: ({c}, {m}, {r}) (******, ******, ******)\n")
            scores[name] = LabelScore(c, m, r, None, None, None)
            continue
        p = c / m if m > 0 else 0.0
        rec = c / r
        f = p * rec * 2 / (p + rec) if p + rec > 0 else 0.0
        macro = [macro[0] + p, macro[1] + rec, macro[2] + f]
        log(f"    {name}: ({c}, {m}, {r}) ({p:1.4f}, {rec:1.4f}, {f:1.4f})\n")
        scores[name] = LabelScore(c, m, r, *(_as_printed(v, "1.4f") for v in (p, rec, f)))
    L = len(labels)
    avg = [v / L for v in macro]
    log(f"Macro-average precision, recall, F1: ({avg[0]:f}, {avg[1]:f}, {avg[2]:f})\n")
    n_correct = int(correct.sum())
    log(f"Item accuracy: {n_correct} / {n_items} "
        f"({n_correct / n_items if n_items else 0.0:1.4f})\n")
    log(f"Instance accuracy: {n_correct_inst} / {n_inst} "
        f"({n_correct_inst / n_inst if n_inst else 0.0:1.4f})\n")
    numbers: dict[str, Any] = {"scores": scores}
    for key, value in zip(("avg_precision", "avg_recall", "avg_f1"), avg):
        numbers[key] = _as_printed(value, "f")
    for key, (num, den) in (("item_accuracy", (n_correct, n_items)),
                            ("instance_accuracy", (n_correct_inst, n_inst))):
        if den:
            numbers[key] = fractions.Fraction(num, den)
            numbers[key + "_float"] = float(numbers[key])
    return numbers


def _as_printed(value: float, spec: str) -> float:
    """``value`` as the log prints it, read back (what a parser of the log would get)."""
    return float(format(float(value), spec))


@fill(_DOCS)
class Trainer(BaseTrainer):
    """python-crfsuite's ``Trainer``: `BaseTrainer` whose log is kept in ``logparser`` (a
    `TrainLog`: each iteration's numbers, the feature count, the seconds) and shown, when
    ``verbose``, through the ``on_*`` callbacks, one call per part of the log.

    {trainer_params}
    """

    logparser: Any = None

    def _before_train(self) -> None:
        self.logparser = TrainLog()

    def message(self, message: str) -> None:
        """Keep each piece of the log in ``logparser`` (printed by the ``on_*`` callbacks).

        Parameters
        ----------
        message : str
            A line of CRFsuite's log.
        """
        self.logparser.add(message)

    def _event(self, name: str, **numbers: Any) -> None:
        log = self.logparser.close(name, **numbers)
        if not self.verbose:
            return
        if name == "featgen_progress":
            self.on_featgen_progress(log, self.logparser.featgen_percent)
        elif name == "iteration":
            self.on_iteration(log, self.logparser.last_iteration)
        else:
            getattr(self, "on_" + name)(log)

    @fill(_DOCS)
    def on_start(self, log: str) -> None:
        """The log's start.

        {prints_log}
        """
        print(log, end="")

    @fill(_DOCS)
    def on_featgen_progress(self, log: str, percent: int) -> None:
        """Feature generation's progress.

        {prints_log}
        percent : int
            How much of the features is generated.
        """
        print(log, end="")

    @fill(_DOCS)
    def on_featgen_end(self, log: str) -> None:
        """The end of feature generation.

        {prints_log}
        """
        print(log, end="")

    @fill(_DOCS)
    def on_prepared(self, log: str) -> None:
        """The trainer ready.

        {prints_log}
        """
        print(log, end="")

    @fill(_DOCS)
    def on_prepare_error(self, log: str) -> None:
        """A failure before training.

        {prints_log}
        """
        print(log, end="")

    @fill(_DOCS)
    def on_iteration(self, log: str, info: dict) -> None:
        """An iteration's end.

        {prints_log}
        info : dict
            The iteration's numbers (``logparser.iterations[-1]``).
        """
        print(log, end="")

    @fill(_DOCS)
    def on_optimization_end(self, log: str) -> None:
        """The end of training.

        {prints_log}
        """
        print(log, end="")

    @fill(_DOCS)
    def on_end(self, log: str) -> None:
        """The end of the log.

        {prints_log}
        """
        print(log, end="")
