"""Labels: the classes of a classifier, from the user's labels to class indices and back.

Labels of any type (ints, floats, bools, str, bytes, dates; Python objects of one type) become
``classes_`` plus int64 class indices; ``classes_`` is sorted, or in order of arrival for a
model that appends classes (``Perceptron(new_classes="append")``). A model file holds
``classes_`` as arrays np.load reads back without pickle. Errors are ValueError / TypeError
naming the labels.
"""
from __future__ import annotations

from typing import Any

import numpy as np


def check_label_values(arr: np.ndarray, name: str) -> None:
    """Labels every class can be matched to: no NaN, infinity or NaT (NaT != NaT, so no
    label would ever equal it), no continuous floats, no mix of types in an object array."""
    if arr.dtype.kind == "c":
        raise ValueError(f"{name}: Complex data not supported")
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise ValueError(f"{name}: input contains NaN or infinity")
        if np.any(arr != np.round(arr)):
            raise ValueError(f"Unknown label type: 'continuous' ({name} holds non-integer "
                             "floats; a classifier needs discrete labels)")
    if arr.dtype.kind in "Mm" and np.isnat(arr).any():
        raise ValueError(f"{name}: input contains NaT (a missing time); every label must be "
                         "a time, as every number label must be finite")
    if arr.dtype.kind == "O":
        kinds = {type(v) for v in arr}
        if any(k is float for k in kinds) or len(kinds) > 1 and not all(
                issubclass(k, (int, np.integer)) for k in kinds):
            raise ValueError(f"Unknown label type: {name} mixes label types "
                             f"{sorted(map(str, kinds))}")

def encode_labels(y: np.ndarray, classes: np.ndarray | None = None,
                  name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """(classes_, class indices int64). With ``classes`` given (sorted, or in the order of
    arrival of a model that appends classes), every label must be in it."""
    if classes is None:
        classes, idx = np.unique(y, return_inverse=True)
        return classes, idx.astype(np.int64).ravel()
    classes = np.asarray(classes)
    order, pos, bad = _locate(y, classes)
    if np.any(bad):
        unknown = np.unique(np.asarray(y)[bad])[:5]
        raise ValueError(f"{name} contains labels not in classes: {unknown.tolist()}")
    return classes, order[pos].astype(np.int64)

def unknown_labels(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The distinct labels of ``y`` that ``classes`` lacks, sorted."""
    _, _, bad = _locate(y, np.asarray(classes))
    return np.unique(np.asarray(y)[bad])

def append_labels(classes: np.ndarray, new: np.ndarray) -> np.ndarray:
    """``classes`` followed by the labels ``new``, held in the dtype of ``classes`` (a str
    dtype may widen); a label that dtype cannot hold unchanged is an error, not a silent
    conversion of every label (ints turned to text beside a str label, say)."""
    numeric = "biuf"
    kind, new_kind = classes.dtype.kind, new.dtype.kind
    fits = new_kind == kind or (new_kind in numeric and kind in numeric)
    if kind == "O":  # labels held as Python objects: the new ones of the same Python types
        new = new.astype(object)
        fits = {type(v) for v in new.tolist()} <= {type(v) for v in classes.tolist()}
    elif fits and kind not in "US":
        cast = new.astype(classes.dtype)
        fits = bool(np.all(cast == new))
        new = cast
    if not fits:
        raise ValueError(f"y: the new labels {new[:5].tolist()} are not of the type of "
                         f"classes_ ({classes.dtype}): a model's labels have one type")
    return np.concatenate([classes, new])

def _locate(y: np.ndarray, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the order sorting ``classes``, each label's position in that sorted order, where a
    label is not among them)."""
    order = np.argsort(classes, kind="stable")
    ranked = classes[order]
    y = np.asarray(y)
    kinds = {ranked.dtype.kind, y.dtype.kind}
    if len(kinds) > 1 and "O" not in kinds and not kinds <= set("biuf"):
        # numbers beside text (or dates): never equal, so every label is unknown (numpy 1
        # compares them to one scalar with a FutureWarning, numpy 2 raises)
        return order, np.zeros(y.shape, dtype=np.intp), np.ones(y.shape, dtype=bool)
    try:
        pos = np.clip(np.searchsorted(ranked, y), 0, classes.shape[0] - 1)
    except TypeError:
        raise TypeError(f"y: labels that do not compare with the classes {classes[:5].tolist()}"
                        " (labels of another type)") from None
    return order, pos, ranked[pos] != y

def check_classes(classes: Any, name: str = "classes") -> np.ndarray:
    """The sorted distinct labels of ``classes`` (repeats allowed, as scikit-learn's
    ``partial_fit`` allows them: ``classes=y`` is the same as ``classes=np.unique(y)``)."""
    classes = np.asarray(classes)
    if classes.ndim == 1:
        check_label_values(classes, name)
    uniq = np.unique(classes) if classes.ndim == 1 else classes
    if classes.ndim != 1 or uniq.shape[0] < 2:
        raise ValueError(f"{name}: expected a 1-D array of at least 2 distinct labels, got "
                         f"{classes.tolist()!r}")
    return uniq

def check_two_classes(classes: np.ndarray) -> None:
    if len(classes) < 2:
        raise ValueError(f"y contains only one class ({classes.tolist()!r}); a classifier "
                         "needs samples of at least 2 classes")

def check_same_classes(classes: np.ndarray, fitted: np.ndarray) -> None:
    """``classes`` (sorted) hold the labels of ``fitted``, which may be in order of arrival."""
    if not np.array_equal(classes, np.sort(fitted)):
        raise ValueError(f"y has classes {classes.tolist()} but the model was fitted on "
                         f"{fitted.tolist()}")

def encode_label_state(classes: np.ndarray) -> dict[str, np.ndarray]:
    """``classes_`` as arrays np.load reads back without pickle, with the type of labels held
    in an object array; TypeError for labels that cannot round-trip (save_model refuses NaT)."""
    if classes.dtype.kind in "biufUSMm":
        return {"classes_": classes}
    values = classes.tolist()
    if any(type(v) is str and v.endswith("\x00") for v in values):
        raise TypeError("str labels ending in NUL ('\\x00') cannot be saved (the file's "
                        "text array would give them back without it)")
    for name, kind in (("int", int), ("str", str), ("bool", bool)):
        if all(type(v) is kind for v in values):
            text = [str(int(v)) if kind is bool else str(v) for v in values]
            return {"classes_": np.array(text, dtype=str), "classes_type": np.array(name)}
    kinds = sorted({type(v).__name__ for v in values})
    raise TypeError(f"labels of type(s) {kinds} cannot be saved (they would not "
                    "come back the same); use int, float, bool, str or bytes labels")

def decode_label_state(arrays: dict[str, np.ndarray]) -> np.ndarray:
    """The inverse of `encode_label_state`, checked: 1-D, at least two distinct labels (sorted,
    or in order of arrival for a model that appends classes)."""
    classes = np.asarray(arrays["classes_"])
    if "classes_type" in arrays:
        kind = arrays["classes_type"]
        if kind.shape != () or kind.dtype.kind != "U" or str(kind) not in ("int", "str", "bool"):
            raise ValueError("model file: malformed classes_type")
        if classes.dtype.kind != "U" or classes.ndim != 1:
            raise ValueError("model file: classes_ of an object type must be text")
        texts = classes.tolist()
        if str(kind) == "bool" and not set(texts) <= {"0", "1"}:
            raise ValueError("model file: bool labels must be 0 or 1")
        values: list[Any] = ([int(t) for t in texts] if str(kind) == "int" else
                             [t == "1" for t in texts] if str(kind) == "bool" else texts)
        classes = np.empty(len(values), dtype=object)
        classes[:] = values
    elif classes.dtype.kind not in "biufUSMm":
        raise ValueError(f"model file: classes_ has dtype {classes.dtype}")
    if classes.ndim != 1 or classes.shape[0] < 2:
        raise ValueError("model file: classes_ must hold at least two labels")
    if classes.dtype.kind == "f" and not np.isfinite(classes).all():
        raise ValueError("model file: classes_ must be finite")
    # compared in numpy, not as tolist(), which gives dates past year 9999 as int, others as date
    ranked = np.sort(classes)
    if not np.all(ranked[:-1] < ranked[1:]):
        raise ValueError("model file: classes_ must be distinct")
    return classes
