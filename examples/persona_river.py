"""A River user's workflow with perceptron_c's models swapped in for River's own.

Progressive validation of a scaled pipeline, probability metrics, one-vs-rest and a bagging
ensemble on River's synthetic streams, a drift-aware ensemble, and River's sample weight on
``learn_one``: each run as River's documentation shows it, each number printed and checked.
Exits with a non-zero status if a check fails.

Needs: river, pandas
"""
from __future__ import annotations

import sys

from river import compose, ensemble, evaluate, linear_model, metrics, multiclass, preprocessing
from river.datasets import synth

from perceptron_c.river import MulticlassPerceptron, PAClassifier, Perceptron

FAILED: list[str] = []


def check(what: str, ok: bool, value: object) -> None:
    print(f"  {'ok ' if ok else 'BAD'} {what}: {value}")
    if not ok:
        FAILED.append(what)


def binary(n: int = 3000) -> list:
    return list(synth.Hyperplane(seed=42, n_features=10, noise_percentage=0.05).take(n))


def three_classes(n: int = 2000) -> list:
    return list(synth.Waveform(seed=42).take(n))


print("1. StandardScaler | Perceptron, progressive validation (accuracy, ROC AUC)")
ours = evaluate.progressive_val_score(
    binary(), preprocessing.StandardScaler() | Perceptron(), metrics.Accuracy() + metrics.ROCAUC())
river = evaluate.progressive_val_score(
    binary(), preprocessing.StandardScaler() | linear_model.Perceptron(), metrics.Accuracy())
acc, auc = (m.get() for m in ours)
check("accuracy above River's own Perceptron - 0.02", acc > river.get() - 0.02,
      f"{acc:.3f} (River's Perceptron: {river.get():.3f})")
check("ROC AUC of predict_proba_one above 0.85", auc > 0.85, f"{auc:.3f}")

print("2. OneVsRestClassifier(PAClassifier) and MulticlassPerceptron, 3 classes")
ovr = evaluate.progressive_val_score(
    three_classes(), multiclass.OneVsRestClassifier(PAClassifier()), metrics.Accuracy())
argmax = evaluate.progressive_val_score(
    three_classes(), preprocessing.StandardScaler() | MulticlassPerceptron(), metrics.Accuracy())
check("one-vs-rest accuracy above 0.7 (chance: 0.33)", ovr.get() > 0.7, f"{ovr.get():.3f}")
check("K-class accuracy above 0.75", argmax.get() > 0.75, f"{argmax.get():.3f}")

print("3. BaggingClassifier(Perceptron()) and ADWINBaggingClassifier on a drifting stream")
bagging = evaluate.progressive_val_score(
    binary(), ensemble.BaggingClassifier(Perceptron(), n_models=5, seed=1), metrics.Accuracy())
check("bagging accuracy above 0.8", bagging.get() > 0.8, f"{bagging.get():.3f}")
drifting = synth.ConceptDriftStream(synth.Hyperplane(seed=1, n_features=10),
                                    synth.Hyperplane(seed=2, n_features=10), seed=3,
                                    position=2000, width=50)
adwin = evaluate.progressive_val_score(
    drifting.take(4000), ensemble.ADWINBaggingClassifier(Perceptron(), n_models=5, seed=1),
    metrics.Accuracy())
check("ADWIN bagging through a drift above 0.75", adwin.get() > 0.75, f"{adwin.get():.3f}")

print("4. learn_one(x, y, w): the positive class weighted up")
stream = binary()
positive_share = sum(y for _, y in stream) / len(stream)
weighted, plain = Perceptron(average=False), Perceptron(average=False)
recall_w, recall_p = metrics.Recall(), metrics.Recall()
for x, y in stream:
    recall_w.update(y, weighted.predict_one(x))
    recall_p.update(y, plain.predict_one(x))
    weighted.learn_one(x, y, w=3.0 if y else 1.0)
    plain.learn_one(x, y)
check("weighting the positive class raises its recall", recall_w.get() > recall_p.get(),
      f"{recall_w.get():.3f} against {recall_p.get():.3f} (positives: {positive_share:.2f})")
weighted_stream = [(x, y, {"w": 0.0 if i % 2 else 1.0}) for i, (x, y) in enumerate(stream)]
halved = compose.Pipeline(preprocessing.StandardScaler(), Perceptron())
evaluate.progressive_val_score(weighted_stream, halved, metrics.Accuracy())
every_other = compose.Pipeline(preprocessing.StandardScaler(), Perceptron())
for i, (x, y) in enumerate(stream):
    every_other.predict_one(x)
    if i % 2 == 0:
        every_other.learn_one(x, y)
    else:
        every_other["StandardScaler"].learn_one(x)  # the scaler learns every row, w or not
check("w=0 through progressive_val_score skips the example",
      halved["Perceptron"].weights == every_other["Perceptron"].weights,
      f"{len(halved['Perceptron'].weights)} weights equal")

if FAILED:
    print("FAILED:", ", ".join(FAILED))
    sys.exit(1)
print("every check held")
