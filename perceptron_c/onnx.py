"""ONNX export of the linear models and of the float-kernel models: `to_onnx`.

The graph computes what the estimator's ``decision_function`` / ``predict`` compute: w . x + b
from ``coef_`` and ``intercept_`` (the averaged weights for an averaged model, as they
predict), or sum_i alpha_i K(x, sv_i) + b from ``support_vectors_``, ``dual_coef_`` and
``intercept_`` with the kernel the model was trained with, built of standard ONNX operators
(MatMul, Add, Mul, Exp, ...), so that it needs no ONNX-ML operator, runs in float32 or
float64, and keeps the K-class argmax that the ONNX-ML ``SVMClassifier`` (one-vs-one votes)
cannot express. The ``onnx`` package is imported only when `to_onnx` is called.
`register_skl2onnx` offers the same graphs to sklearn-onnx, for Pipelines that hold the models.
"""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ._utils._rows import dense_rows
from .budget_perceptron import BudgetKernelPerceptron
from .kernel_passive_aggressive import KernelPassiveAggressiveClassifier
from .kernel_perceptron import KernelPerceptron
from .kernels import RBF, Linear, Polynomial, Product, Scaled, Sum, is_builtin
from .kernels._rows import fitted_kernel
from .passive_aggressive import PassiveAggressiveClassifier, PassiveAggressiveRegressor
from .perceptron import Perceptron

__all__ = ["to_onnx", "register_skl2onnx", "OPSET", "LINEAR_MODELS", "KERNEL_MODELS"]

# The default opset; 17 with IR version 8 loads in onnxruntime 1.16, the oldest the "onnx"
# extra allows. `target_opset` goes down to the lowest the graph's operators need (`_SINCE`).
OPSET = 17
IR_VERSION = 8
# The first opset of each operator in the form the graphs use it: Add & co. broadcasting
# (7), Max broadcasting (8), Slice's starts as inputs (10), ReduceSum's and Unsqueeze's axes
# as inputs (13). onnxruntime runs opset 7 and later: the linear and polynomial graphs go
# down to 7, the RBF graph (its squared distances and their Loop) to 13.
_SINCE = {"MatMul": 7, "Add": 7, "Sub": 7, "Mul": 7, "Div": 7, "Exp": 7, "Neg": 7, "Cast": 7,
          "Greater": 7, "Reshape": 7, "ArgMax": 7, "Gather": 7, "Concat": 7, "Identity": 7,
          "Or": 7, "Transpose": 7, "Shape": 7, "Max": 8, "IsNaN": 9, "NonZero": 9,
          "IsInf": 10, "Mod": 10, "Slice": 10, "ScatterND": 11, "Loop": 11,
          "LessOrEqual": 12, "ReduceSum": 13, "Unsqueeze": 13}
LINEAR_MODELS = (Perceptron, PassiveAggressiveClassifier, PassiveAggressiveRegressor)
KERNEL_MODELS = (KernelPerceptron, KernelPassiveAggressiveClassifier, BudgetKernelPerceptron)
_LAYOUTS = ("perceptron_c", "sklearn-onnx")
# RBF pairs recomputed from their differences per step of the graph's loop (`_Graph._near`):
# its memory, NEAR_CHUNK x n_features values, whatever the number of such pairs
NEAR_CHUNK = 4096


def _import_onnx() -> Any:
    try:
        import onnx
    except ImportError as exc:
        raise ImportError("perceptron_c.onnx needs the onnx package: pip install "
                          "perceptron-c[onnx]") from exc
    return onnx


class _Graph:
    """Nodes and initializers of one graph, every constant in the input's float type."""

    def __init__(self, onnx: Any, dtype: type) -> None:
        self.onnx, self.dtype = onnx, dtype
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self.count = 0

    def name(self, base: str) -> str:
        self.count += 1
        return f"{base}_{self.count}"

    def const(self, value: Any, base: str, dtype: Any = None) -> str:
        """An initializer holding ``value`` (float64 at first, rounded once to the float type)."""
        name = self.name(base)
        arr = np.asarray(value, dtype=np.float64 if dtype is None else None)
        arr = arr.astype(self.dtype if dtype is None else dtype)
        self.inits.append(self.onnx.numpy_helper.from_array(arr, name))
        return name

    def op(self, op_type: str, inputs: list[str], out: str | None = None, **attrs: Any) -> str:
        out = out or self.name(op_type.lower())
        self.nodes.append(self.onnx.helper.make_node(op_type, inputs, [out], **attrs))
        return out

    def affine(self, X: str, W: np.ndarray, b: np.ndarray) -> str:
        """X W^T + b, shape (n, len(W))."""
        xw = self.op("MatMul", [X, self.const(np.ascontiguousarray(W.T), "coef")])
        return self.op("Add", [xw, self.const(b, "intercept")])

    def power(self, x: str, degree: int) -> str:
        """x ** degree by squaring, as the package's polynomial kernel (`_gram_py.int_power`)."""
        result, base = None, x
        while degree:
            if degree & 1:
                result = base if result is None else self.op("Mul", [result, base])
            degree >>= 1
            if degree:
                base = self.op("Mul", [base, base])
        assert result is not None  # degree >= 1
        return result

    def gram(self, kern: Any, X: str, SV: np.ndarray) -> str:
        """K(x, sv_j) for every input row and support vector, shape (n, n_support)."""
        if type(kern) is Linear:
            return self.op("MatMul", [X, self.const(SV.T, "support_vectors_t")])
        if type(kern) is Polynomial:
            dot = self.op("MatMul", [X, self.const(SV.T, "support_vectors_t")])
            scaled = self.op("Mul", [dot, self.const(kern.gamma, "gamma")])
            base = self.op("Add", [scaled, self.const(kern.coef0, "coef0")])
            return self.power(base, kern.degree)
        if type(kern) is RBF:
            return self.rbf(kern, X, SV)
        if type(kern) in (Sum, Product):
            a, b = self.gram(kern.k1, X, SV), self.gram(kern.k2, X, SV)
            return self.op("Add" if type(kern) is Sum else "Mul", [a, b])
        if type(kern) is Scaled:
            return self.op("Mul", [self.gram(kern.k, X, SV), self.const(kern.c, "c")])
        raise ValueError(f"kernel {kern!r} cannot be exported to ONNX")  # pragma: no cover

    def rbf(self, kern: RBF, X: str, SV: np.ndarray) -> str:
        """exp(-gamma ||x - sv||^2), the squared distance by the package's own rule
        (`_gram_py.gram_rbf`) on rows centred at the support vectors' mean (x' = x - m):
        ||x'||^2 + ||sv'||^2 - 2 x'.sv', one MatMul instead of an (n, n_support,
        n_features) tensor of differences, clipped at 0; and where that may have cancelled
        (below 2^-30 of ||x'||^2 + ||sv'||^2, or not finite), from the differences x - sv
        (`_near`). The centring bounds the expansion's error by the rows' spread, not their
        offset; the differences, by the rounding of x - sv."""
        gamma = 1.0 / SV.shape[1] if kern.gamma is None else kern.gamma
        centre = SV.mean(axis=0)
        S = SV - centre
        Xc = self.op("Sub", [X, self.const(centre, "centre")])
        xx = self.op("ReduceSum", [self.op("Mul", [Xc, Xc]),
                                   self.const([1], "axis", np.int64)], keepdims=1)
        dot = self.op("MatMul", [Xc, self.const(S.T, "support_vectors_t")])
        ss = self.const((S * S).sum(axis=1)[None, :], "sv_sqnorms")  # numpy sums, not BLAS
        sums = self.op("Add", [xx, ss])
        sq = self.op("Sub", [sums, self.op("Mul", [dot, self.const(2.0, "two")])])
        sq = self.op("Max", [sq, self.const(0.0, "zero")])
        suspect = self.op("Or", [
            self.op("LessOrEqual", [sq, self.op("Mul", [sums, self.const(2.0 ** -30, "tiny")])]),
            self.op("Or", [self.op("IsNaN", [sq]), self.op("IsInf", [sq])])])
        sq = self._near(sq, suspect, X, SV)
        return self.op("Exp", [self.op("Mul", [sq, self.const(-gamma, "minus_gamma")])])

    def _near(self, sq: str, suspect: str, X: str, SV: np.ndarray) -> str:
        """sq with its entries where ``suspect`` holds replaced by sum_j (x_j - sv_j)^2 from
        the rows themselves, NEAR_CHUNK pairs at a time (an ONNX Loop: its memory is a chunk
        of pairs, not all of them; no iteration where no entry is suspect)."""
        helper, C = self.onnx.helper, NEAR_CHUNK
        pairs = self.op("Transpose", [self.op("NonZero", [suspect])], perm=[1, 0])  # (k, 2)
        k = self.op("Gather", [self.op("Shape", [pairs]), self.const(0, "zero_i", np.int64)],
                    axis=0)
        steps = self.op("Div", [self.op("Add", [k, self.const(C - 1, "chunk_less_1",
                                                             np.int64)]),
                                self.const(C, "chunk", np.int64)])
        chunk = self.const(np.arange(C), "chunk_range", np.int64)
        SVc = self.const(SV, "support_vectors")
        ax0, ax1 = self.const([0], "axis0", np.int64), self.const([1], "axis1", np.int64)
        # the body: pairs i C .. i C + C - 1 (wrapping round to the first ones: every chunk
        # is full, as a Loop's per-iteration outputs must be), their squared distances
        body_nodes = [
            helper.make_node("Mul", ["i", self.const(C, "chunk_b", np.int64)], ["first"]),
            helper.make_node("Add", [chunk, "first"], ["ids_raw"]),
            helper.make_node("Mod", ["ids_raw", k], ["ids"]),
            helper.make_node("Gather", [pairs, "ids"], ["p"], axis=0),
            helper.make_node("Gather", ["p", self.const(0, "col0", np.int64)], ["r"], axis=1),
            helper.make_node("Gather", ["p", self.const(1, "col1", np.int64)], ["c"], axis=1),
            helper.make_node("Gather", [X, "r"], ["xr"], axis=0),
            helper.make_node("Gather", [SVc, "c"], ["sc"], axis=0),
            helper.make_node("Sub", ["xr", "sc"], ["diff"]),
            helper.make_node("Mul", ["diff", "diff"], ["sq_diff"]),
            helper.make_node("ReduceSum", ["sq_diff", ax1], ["d2"], keepdims=0),
            helper.make_node("Identity", ["cond"], ["cond_out"])]
        ftype = helper.np_dtype_to_tensor_dtype(np.dtype(self.dtype))
        body = helper.make_graph(
            body_nodes, self.name("near_body"),
            [helper.make_tensor_value_info("i", self.onnx.TensorProto.INT64, []),
             helper.make_tensor_value_info("cond", self.onnx.TensorProto.BOOL, [])],
            [helper.make_tensor_value_info("cond_out", self.onnx.TensorProto.BOOL, []),
             helper.make_tensor_value_info("d2", ftype, [C])])
        d2 = self.op("Loop", [steps, self.const(True, "go_on", np.bool_)], body=body)
        flat = self.op("Reshape", [d2, self.const([-1], "flat_near", np.int64)])
        near = self.op("Slice", [flat, self.const([0], "start0", np.int64),
                                 self.op("Unsqueeze", [k, ax0]), ax0])
        return self.op("ScatterND", [sq, pairs, near])


def _label_values(classes: np.ndarray) -> tuple[str, list[Any]]:
    """``classes_`` as ONNX returns labels, mapped as sklearn-onnx maps scikit-learn's
    (`skl2onnx/operator_converters/sgd_classifier.py`): strings stay strings; integers, bools
    (False, True: 0, 1) and whole floats (2.0: 2) become int64. sklearn-onnx casts through
    int32, so it wraps integers beyond int32 and truncates 0.5 to 0; here every label must
    map to a distinct int64 holding its value, or the export is refused."""
    values = list(classes.tolist())
    if all(isinstance(v, str) for v in values):
        return "str", values
    ints: list[int] = []
    for v in values:
        if isinstance(v, numbers.Integral):  # (bool is Integral)
            ints.append(int(v))
        elif isinstance(v, numbers.Real) and math.isfinite(v) and float(v).is_integer():
            ints.append(int(float(v)))
        else:
            break
    if len(ints) == len(values) and all(-2**63 <= v < 2**63 for v in ints) \
            and len(set(ints)) == len(ints):
        return "int", ints
    raise TypeError(
        "to_onnx: ONNX returns labels as int64 or strings, so the class labels must be all "
        "strings, or all integers, bools or whole floats that fit int64 (sklearn-onnx's "
        f"mapping); this model's classes_ are {classes!r} (dtype {classes.dtype}). Train on "
        "y.astype(str) or on integer codes")


def _label_tensor(classes: np.ndarray, onnx: Any, name: str) -> Any:
    """``classes_`` as an int64 or string tensor (`_label_values`)."""
    kind, values = _label_values(classes)
    if kind == "str":
        return onnx.helper.make_tensor(name, onnx.TensorProto.STRING, [len(values)],
                                       [v.encode("utf-8") for v in values])
    return onnx.numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def _lowest_opset(nodes: Any) -> tuple[int, str]:
    """The lowest opset that has every operator of ``nodes`` (Loop bodies included) in the
    form the graph uses it, and the operator that sets it."""
    lowest, why = 7, "MatMul"
    for node in nodes:
        if _SINCE[node.op_type] > lowest:
            lowest, why = _SINCE[node.op_type], node.op_type
        for attr in node.attribute:
            if attr.g.node:  # (a Loop's body)
                inner = _lowest_opset(attr.g.node)
                lowest, why = max((lowest, why), inner)
    return lowest, why


def _check_opset(target_opset: Any, nodes: Any, onnx: Any, where: str) -> None:
    lowest, why = _lowest_opset(nodes)
    highest = onnx.defs.onnx_opset_version()
    if isinstance(target_opset, bool) or not isinstance(target_opset, numbers.Integral):
        raise TypeError(f"{where}: target_opset must be an integer, got {target_opset!r}")
    if target_opset < lowest:
        raise ValueError(f"{where}: this model's graph needs opset >= {lowest} (its {why} "
                         f"operator), got target_opset={target_opset}")
    if target_opset > highest:
        raise ValueError(f"{where}: the installed onnx knows opsets up to {highest}, got "
                         f"target_opset={target_opset}")


def _check_estimator(est: Any) -> None:
    if not isinstance(est, LINEAR_MODELS + KERNEL_MODELS):
        names = ", ".join(c.__name__ for c in LINEAR_MODELS + KERNEL_MODELS)
        raise TypeError(f"to_onnx exports {names}; got {type(est).__name__} (the voted "
                        "perceptron and the structured perceptron have no export)")
    est._check_fitted()


def _kernel_parts(est: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray]:
    """(kernel, support vectors as float64 rows, dual_coef_, intercept_) of a kernel model."""
    kind, kern = fitted_kernel(est)
    what = f"to_onnx: {type(est).__name__}"
    if kind == "precomputed":
        raise ValueError(f"{what} was trained with kernel='precomputed': the graph would need "
                         "the training rows, which the model does not keep")
    if kind == "conjunction":
        raise ValueError(f"{what} uses the conjunction kernel 2^popcount(a AND b): its values "
                         "reach 2^n_bits, beyond float32's range from 128 bits and float64's "
                         "from 1024, and the model decides them exactly with integers, "
                         "which ONNX's float operators cannot")
    if not is_builtin(kern):
        raise ValueError(f"{what} uses the kernel {kern!r}: only the built-in linear, "
                         "polynomial and RBF kernels (and their sums, products and "
                         "scalings) can be exported, a callable or another class cannot")
    return (kern, dense_rows(est.support_vectors_), np.asarray(est.dual_coef_, np.float64),
            np.asarray(est.intercept_, np.float64))


def _scores(g: _Graph, est: Any) -> str:
    """The (n, n_rows) decision values of the model, from the input "X"."""
    if isinstance(est, LINEAR_MODELS):
        W = est._dense_coef()
        return g.affine("X", W, np.atleast_1d(np.asarray(est.intercept_, np.float64)))
    kern, SV, A, b = _kernel_parts(est)
    if SV.shape[0] == 0:  # no support vector: the intercept alone
        return g.affine("X", np.zeros((A.shape[0], est.n_features_in_)), b)
    if type(kern) is Linear:  # sum_i a_i (sv_i . x) = (sum_i a_i sv_i) . x: one MatMul
        # numpy's own sums, not BLAS's (whose order follows the CPU and the thread count):
        # the same model exports the same bytes on every machine
        return g.affine("X", (A[:, :, None] * SV[None, :, :]).sum(axis=1), b)
    K = g.gram(kern, "X", SV)
    return g.op("Add", [g.op("MatMul", [K, g.const(A.T, "dual_coef_t")]),
                        g.const(b, "intercept")])


def _outputs(g: _Graph, est: Any, score: str, layout: str,
             class_labels: bool = False) -> list[Any]:
    """The output nodes and value infos: label and decision values (and ``class_labels``,
    ``classes_`` as the labels are given), or the regression."""
    onnx, helper = g.onnx, g.onnx.helper
    ftype = onnx.helper.np_dtype_to_tensor_dtype(np.dtype(g.dtype))
    if isinstance(est, PassiveAggressiveRegressor):
        if layout == "sklearn-onnx":
            g.op("Identity", [score], "variable")
            return [helper.make_tensor_value_info("variable", ftype, [None, 1])]
        g.op("Reshape", [score, g.const([-1], "flat", np.int64)], "variable")
        return [helper.make_tensor_value_info("variable", ftype, [None])]
    classes = np.asarray(est.classes_)
    labels = _label_tensor(classes, onnx, g.name("classes"))
    g.inits.append(labels)
    binary = len(classes) == 2
    if binary:  # classes_[1] where the decision value is > 0, as the estimator decides
        idx = g.op("Cast", [g.op("Greater", [score, g.const(0.0, "zero")])],
                   to=onnx.TensorProto.INT64)
        idx = g.op("Reshape", [idx, g.const([-1], "flat", np.int64)])
    else:  # ArgMax takes the first of equal values: ties to the lowest class index
        idx = g.op("ArgMax", [score], axis=1, keepdims=0)
    g.op("Gather", [labels.name, idx], "label", axis=0)
    label_info = helper.make_tensor_value_info("label", labels.data_type, [None])
    extra = []
    if class_labels:  # sklearn-onnx's option output_class_labels: a third output
        g.op("Identity", [labels.name], "class_labels")
        extra = [helper.make_tensor_value_info("class_labels", labels.data_type,
                                               [len(classes)])]
    if layout == "sklearn-onnx":
        if binary:  # sklearn-onnx's two columns (-f, f) of a binary linear classifier
            g.op("Concat", [g.op("Neg", [score]), score], "probabilities", axis=1)
        else:
            g.op("Identity", [score], "probabilities")
        return [label_info, helper.make_tensor_value_info("probabilities", ftype,
                                                          [None, len(classes)]), *extra]
    if binary:
        g.op("Reshape", [score, g.const([-1], "flat", np.int64)], "decision")
        return [label_info, helper.make_tensor_value_info("decision", ftype, [None]), *extra]
    g.op("Identity", [score], "decision")
    return [label_info, helper.make_tensor_value_info("decision", ftype, [None, len(classes)]),
            *extra]


def to_onnx(estimator: Any, *, dtype: Any = np.float32, layout: str = "perceptron_c",
            target_opset: int | None = None, output_class_labels: bool = False) -> Any:
    """The ONNX model of a fitted estimator: its labels and decision values, or predictions.

    Exports `Perceptron` (binary, K-class argmax, one-vs-rest; averaged or not),
    `PassiveAggressiveClassifier`, `PassiveAggressiveRegressor`, and `KernelPerceptron`,
    `KernelPassiveAggressiveClassifier` and `BudgetKernelPerceptron` with the linear,
    polynomial or RBF kernel (or sums, products and scalings of them). The graph uses only
    standard ONNX operators (opset `OPSET` unless ``target_opset`` says otherwise) and needs
    nothing but an ONNX runtime.

    Parameters
    ----------
    estimator : object
        A fitted estimator of the classes above.
    dtype : {numpy.float32, numpy.float64}, default=numpy.float32
        The type of the input ``X`` and of every weight and output value; float64 gives the
        estimator's decision values to float64 rounding (for the RBF kernel, that of the
        package's own kernel values; docs/onnx.md, "Precision").
    layout : {"perceptron_c", "sklearn-onnx"}, default="perceptron_c"
        The outputs. "perceptron_c": ``label`` and ``decision``, shaped as `predict` and
        ``decision_function`` return them ((n,) for two classes, (n, n_classes) otherwise),
        or ``variable`` of shape (n,) for the regressor. "sklearn-onnx": the names and shapes
        sklearn-onnx gives scikit-learn's linear models (without ZipMap): ``label``,
        ``probabilities`` of shape (n, n_classes) holding the decision values, (-f, f) for
        two classes, and ``variable`` of shape (n, 1).
    target_opset : int, optional
        The ONNX opset of the graph (the default: `OPSET`), as sklearn-onnx's
        ``target_opset``: from the lowest the graph's operators need (7; 13 for a graph with
        the RBF kernel) to the highest the installed onnx knows.
    output_class_labels : bool, default=False
        sklearn-onnx's option of that name: a last output ``class_labels``, ``classes_`` in
        the order of the decision columns, mapped as ``label`` is (classifiers only).

    Returns
    -------
    onnx.ModelProto
        The checked model: input ``X`` of shape (n, ``n_features_in_``); outputs as ``layout``
        says, ``label`` an int64 or string tensor of the class labels (bools and whole floats
        as int64, as sklearn-onnx gives them).

    Raises
    ------
    ImportError
        If the onnx package is not installed (``pip install perceptron-c[onnx]``).
    NotFittedError
        If the estimator has not been fitted.
    TypeError
        If the estimator is of another class, ``dtype`` is not float32 or float64,
        ``target_opset`` is not an integer, or the class labels are neither all strings nor
        all integers, bools or whole floats within int64.
    ValueError
        If the model's kernel is the conjunction kernel (its values exceed float range),
        "precomputed", a callable or a kernel class of another package, ``layout`` is
        unknown, ``target_opset`` is below the lowest the graph needs (the message names it)
        or above the highest onnx knows, or ``output_class_labels`` is asked of a regressor.
    """
    onnx = _import_onnx()
    try:
        dt = np.dtype(dtype) if dtype is not None else None
    except TypeError:
        dt = None
    if dt is None or dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"to_onnx: dtype must be numpy.float32 or numpy.float64, got {dtype!r}")
    if layout not in _LAYOUTS:
        raise ValueError(f"to_onnx: layout must be one of {_LAYOUTS}, got {layout!r}")
    _check_estimator(estimator)
    if output_class_labels and isinstance(estimator, PassiveAggressiveRegressor):
        raise ValueError("to_onnx: output_class_labels is for classifiers; a "
                         "PassiveAggressiveRegressor has no classes")
    g = _Graph(onnx, dt.type)
    outputs = _outputs(g, estimator, _scores(g, estimator), layout, bool(output_class_labels))
    opset = OPSET if target_opset is None else target_opset
    _check_opset(opset, g.nodes, onnx, "to_onnx")
    ftype = onnx.helper.np_dtype_to_tensor_dtype(dt)
    X = onnx.helper.make_tensor_value_info("X", ftype, [None, estimator.n_features_in_])
    graph = onnx.helper.make_graph(g.nodes, type(estimator).__name__, [X], outputs, g.inits)
    from . import __version__

    model = onnx.helper.make_model(
        graph, producer_name="perceptron_c", producer_version=__version__,
        opset_imports=[onnx.helper.make_opsetid("", int(opset))],
        doc_string=f"perceptron_c.{type(estimator).__name__}, exported by to_onnx")
    model.ir_version = max(IR_VERSION, onnx.helper.find_min_ir_version_for(
        list(model.opset_import)))
    onnx.helper.set_model_props(model, {"estimator": type(estimator).__name__,
                                        "layout": layout})
    onnx.checker.check_model(model, full_check=True)
    return model


def _skl2onnx_convert(scope: Any, operator: Any, container: Any) -> None:
    """sklearn-onnx's converter call: the graph of `to_onnx` (layout "sklearn-onnx") added to
    sklearn-onnx's container, every name made unique in its scope."""
    from skl2onnx.common.data_types import DoubleTensorType

    onnx = _import_onnx()
    est = operator.raw_operator
    _check_estimator(est)
    dtype = np.float64 if isinstance(operator.inputs[0].type, DoubleTensorType) else np.float32
    g = _Graph(onnx, dtype)
    outs = _outputs(g, est, _scores(g, est), "sklearn-onnx")
    _check_opset(container.target_opset, g.nodes, onnx,
                 f"sklearn-onnx's converter of {type(est).__name__}")
    names = {"X": operator.inputs[0].full_name}
    names.update((o.name, v.full_name) for o, v in zip(outs, operator.outputs))
    for init in g.inits:
        names[init.name] = scope.get_unique_variable_name(init.name)
        init.name = names[init.name]
        container.initializers.append(init)
    for node in g.nodes:
        for out in node.output:
            names.setdefault(out, scope.get_unique_variable_name(out))
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        if "body" in attrs:  # (the RBF kernel's Loop)
            _rename_body(attrs["body"], names, scope)
        container.add_node(node.op_type, [names[i] for i in node.input],
                           [names[o] for o in node.output],
                           name=scope.get_unique_operator_name(node.op_type), **attrs)


def _rename_body(body: Any, names: dict[str, str], scope: Any) -> None:
    """A Loop body's names made sklearn-onnx's, in place: its own (inputs, node outputs) unique
    in the scope, and the outer values it reads renamed as they are outside."""
    own = {v.name for v in body.input} | {o for node in body.node for o in node.output}
    rename = {name: scope.get_unique_variable_name(name) for name in own}
    for value in list(body.input) + list(body.output):
        value.name = rename[value.name]
    for node in body.node:
        inputs = [rename.get(i) or names.get(i, i) for i in node.input]
        outputs = [rename[o] for o in node.output]
        del node.input[:], node.output[:]
        node.input.extend(inputs)
        node.output.extend(outputs)


def register_skl2onnx() -> None:
    """Register converters for the exported estimators with sklearn-onnx.

    Afterwards ``skl2onnx.to_onnx`` (or ``convert_sklearn``) converts a scikit-learn
    ``Pipeline`` or other composite that contains them, with the graph `to_onnx` writes (its
    "sklearn-onnx" layout: outputs ``label`` and ``probabilities`` holding the decision
    values, followed by sklearn-onnx's ZipMap unless the option ``zipmap=False`` is given;
    ``variable`` for the regressor). sklearn-onnx's ``target_opset`` goes down to the lowest
    the graph needs (as `to_onnx`'s), and its option ``output_class_labels`` (with
    ``zipmap=False``) adds its ``class_labels`` output. Calling it again changes nothing.

    Returns
    -------
    None

    Raises
    ------
    ImportError
        If sklearn-onnx (and so scikit-learn) is not installed.
    """
    from skl2onnx import update_registered_converter
    from skl2onnx._supported_operators import sklearn_classifier_list
    from skl2onnx.common.shape_calculator import (
        calculate_linear_classifier_output_shapes,
        calculate_linear_regressor_output_shapes,
    )

    for cls in LINEAR_MODELS + KERNEL_MODELS:
        # sklearn-onnx's parser gives label and probabilities outputs to the classes of this
        # list (or to subclasses of scikit-learn's ClassifierMixin, which ours are not)
        if cls is not PassiveAggressiveRegressor and cls not in sklearn_classifier_list:
            sklearn_classifier_list.append(cls)
        if cls is PassiveAggressiveRegressor:
            update_registered_converter(cls, f"PerceptronC{cls.__name__}",
                                        calculate_linear_regressor_output_shapes,
                                        _skl2onnx_convert)
        else:
            update_registered_converter(cls, f"PerceptronC{cls.__name__}",
                                        calculate_linear_classifier_output_shapes,
                                        _skl2onnx_convert,
                                        options={"zipmap": [True, False, "columns"],
                                                 "nocl": [True, False],
                                                 "output_class_labels": [False, True]})
