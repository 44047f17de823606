"""The ONNX persona: a scikit-learn Pipeline (StandardScaler + perceptron_c's Perceptron)
converted by sklearn-onnx in one graph, run by onnxruntime; its labels equal predict's.

Needs: onnx, onnxruntime, skl2onnx, sklearn
"""
import numpy as np
import onnxruntime as ort
from skl2onnx import to_onnx
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from perceptron_c import Perceptron
from perceptron_c.onnx import register_skl2onnx


def main() -> None:
    register_skl2onnx()  # sklearn-onnx now converts perceptron_c's estimators
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 6)) * 4 + 1
    for y in (np.where(X[:, 0] + X[:, 1] > 2, "yes", "no"),  # strings
              X[:, 0] - X[:, 2] > 0):                         # bools: int64 labels, 0 and 1
        clf = Perceptron(max_iter=50, random_state=0)
        pipe = make_pipeline(StandardScaler(), clf).fit(X[:400], y[:400])
        model = to_onnx(pipe, X[:1].astype(np.float32), target_opset=15,
                        options={id(clf): {"zipmap": False, "output_class_labels": True}}
                        if y.dtype.kind == "U" else {id(clf): {"zipmap": False}})
        session = ort.InferenceSession(model.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
        label, scores, *classes = session.run(None, {"X": X[400:].astype(np.float32)})
        want = pipe.predict(X[400:])
        assert (label == want).all(), "labels differ from predict"
        print(f"{y.dtype} labels: {len(label)} rows, all equal to predict; first five "
              f"{label[:5].tolist()}, classes {classes[0].tolist() if classes else '-'}")


if __name__ == "__main__":
    main()
