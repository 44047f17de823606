"""Models written by an older release load and predict as they did: pickles (which name the
classes of the objects they hold by module path) and model files (``save``), from the
fixtures of tests/data/ (see make_old_models.py there), one folder per release."""
import importlib
import json
import os
import pathlib
import pickle
import sys

import numpy as np
import pytest

import perceptron_c
from perceptron_c._utils._moved import MOVED

HERE = pathlib.Path(__file__).resolve().parent / "data"
RELEASES = sorted(p for p in HERE.iterdir() if p.is_dir() and p.name.startswith("models-"))
PICKLES = [p for r in RELEASES for p in sorted(r.glob("*.pkl"))]
FILES = [p for r in RELEASES for p in sorted(r.glob("*.npz")) if p.stem != "tagger"]


def _load(path):
    if int(np.__version__.split(".")[0]) < 2:
        pytest.skip("the fixtures were pickled under numpy 2, whose pickles name numpy._core: "
                    "numpy 1 cannot read them (the model files have no pickle and are tested)")
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
    X = np.load(path.with_suffix(".X.npy"), allow_pickle=False)
    expected = np.load(path.with_suffix(".predict.npy"), allow_pickle=False)
    assert np.array_equal(model.predict(X), expected)


@pytest.mark.parametrize("release", RELEASES, ids=lambda p: p.name)
def test_old_sequence_and_text_pickles(release):
    saved = _load(release / "structured.pkl")
    assert np.array_equal(saved["model"].predict(saved["X"], saved["lengths"]),
                          saved["predict"])
    text = _load(release / "text.pkl")
    pytest.importorskip("scipy")
    assert np.array_equal(text["features"].transform(text["sentences"]).toarray(),
                          text["transform"])


@pytest.mark.parametrize("release", RELEASES, ids=lambda p: p.name)
def test_an_old_tagger_file_tags_as_it_did(release):
    tagger = perceptron_c.load(release / "tagger.npz")
    saved = json.loads((release / "tagger.json").read_text(encoding="utf-8"))
    assert [list(p) for p in tagger.tag(saved["tokens"])] == saved["tagged"]


@pytest.mark.parametrize("old", sorted(MOVED))
def test_a_module_of_the_flat_layout_imports_as_the_module_it_became(old):
    """Pickles name the module of each class (``perceptron_c._validation.PackedBits`` in the
    fixtures above): the old name is the module itself, which keeps its own name and spec."""
    try:
        now = importlib.import_module(f"perceptron_c.{MOVED[old]}")
    except ModuleNotFoundError as error:  # an optional dependency (river) absent
        pytest.skip(str(error))
    sys.modules.pop(f"perceptron_c.{old}", None)
    alias = importlib.import_module(f"perceptron_c.{old}")
    assert alias is now
    assert now.__name__ == now.__spec__.name == f"perceptron_c.{MOVED[old]}"
    assert not os.path.exists(os.path.join(os.path.dirname(perceptron_c.__file__), f"{old}.py"))


def test_a_pickle_naming_a_moved_module_loads():
    from perceptron_c._utils._validation import PackedBits

    payload = pickle.dumps(PackedBits, protocol=0)  # names as text lines: replaceable
    old = payload.replace(b"perceptron_c._utils._validation", b"perceptron_c._validation")
    assert old != payload and pickle.loads(old) is PackedBits
