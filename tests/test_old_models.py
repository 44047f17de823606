"""Models written by an older release load and predict as they did: pickles (which name the
classes of the objects they hold by module path) and model files (``save``), from the
fixtures of tests/data/ (see make_old_models.py there), one folder per release."""
import pathlib
import pickle

import numpy as np
import pytest

import perceptron_c

HERE = pathlib.Path(__file__).resolve().parent / "data"
RELEASES = sorted(p for p in HERE.iterdir() if p.is_dir() and p.name.startswith("models-"))
PICKLES = [p for r in RELEASES for p in sorted(r.glob("*.pkl"))]
FILES = [p for r in RELEASES for p in sorted(r.glob("*.npz")) if p.stem != "tagger"]


def _load(path):
    with open(path, "rb") as handle:
        return pickle.load(handle)


def test_there_are_fixtures():
    assert RELEASES and len(PICKLES) >= 10 and len(FILES) >= 9


@pytest.mark.parametrize("path", [p for p in PICKLES if p.stem not in ("structured", "text")],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_an_old_pickle_predicts_as_it_did(path):
    saved = _load(path)
    assert np.array_equal(saved["model"].predict(saved["X"]), saved["predict"])


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_an_old_model_file_predicts_as_it_did(path):
    model = perceptron_c.load(path)
    X = _load(path.with_suffix(".pkl"))["X"]
    assert np.array_equal(model.predict(X), np.load(path.with_suffix(".predict.npy")))


@pytest.mark.parametrize("release", RELEASES, ids=lambda p: p.name)
def test_old_sequence_and_text_pickles(release):
    saved = _load(release / "structured.pkl")
    assert np.array_equal(saved["model"].predict(saved["X"], saved["lengths"]),
                          saved["predict"])
    text = _load(release / "text.pkl")
    pytest.importorskip("scipy")
    assert np.array_equal(text["features"].transform(text["sentences"]).toarray(),
                          text["transform"])
    tagger = perceptron_c.load(release / "tagger.npz")
    assert tagger.tag(["the", "cat", "ran"]) == text["tagged"]
