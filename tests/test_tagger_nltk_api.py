"""The rest of NLTK's tagger interface against NLTK's own: TaggerI's scores, loc and lang
resolved as NLTK resolves them (resource names, zips, nltk.data.path), nltk.pos_tag served."""
import random
import sys
import zipfile

import nltk
import pytest
from nltk.metrics import ConfusionMatrix as NLTKConfusion
from nltk.tag.api import TaggerI
from nltk.tag.perceptron import PerceptronTagger as NLTKTagger
from tagged_corpus import tagged_sentences

from perceptron_c.tagging import ConfusionMatrix, PerceptronTagger, use_for_nltk

TRAIN = tagged_sentences(0, 4_000)
# held-out sentences plus a tag the tagger never gives and one it was never taught
GOLD = tagged_sentences(99, 1_500) + [[("zzz", "SYM"), ("run", "VB")]]


@pytest.fixture(scope="module")
def pair():
    random.seed(3)
    theirs = NLTKTagger(load=False)
    theirs.train(TRAIN, nr_iter=2)
    random.seed(3)
    ours = PerceptronTagger(load=False)
    ours.train(TRAIN, nr_iter=2)
    return theirs, ours


def _words(sentences):
    return [[w for w, _ in s] for s in sentences]


def test_the_scores_are_nltks(pair):
    theirs, ours = pair
    assert ours.tag_sents(_words(GOLD)) == theirs.tag_sents(_words(GOLD))
    assert ours.accuracy(GOLD) == theirs.accuracy(GOLD)
    assert str(ours.confusion(GOLD)) == str(theirs.confusion(GOLD))
    assert repr(ours.confusion(GOLD)) == repr(theirs.confusion(GOLD))
    for name in ("precision", "recall"):
        assert getattr(ours, name)(GOLD) == getattr(theirs, name)(GOLD), name
    for alpha in (0.5, 0.2):
        assert ours.f_measure(GOLD, alpha) == theirs.f_measure(GOLD, alpha)
    assert 0.0 == ours.recall(GOLD)["SYM"] == ours.precision(GOLD)["SYM"]
    for kwargs in ({}, {"alpha": 0.3}, {"truncate": 4}, {"sort_by_count": True},
                   {"sort_by_count": True, "truncate": 3}):
        assert ours.evaluate_per_tag(GOLD, **kwargs) == theirs.evaluate_per_tag(GOLD, **kwargs)


def test_nothing_is_cached_between_calls():
    """NLTK's TaggerI keeps the last confusion in an lru_cache on the method (stale once the
    tagger trains further); ours tags gold afresh on every call."""
    random.seed(1)
    tagger = PerceptronTagger(load=False)
    tagger.train(TRAIN[:20], nr_iter=1)
    before = str(tagger.confusion(GOLD))
    tagger.train(TRAIN, nr_iter=2)
    after = str(tagger.confusion(GOLD))
    tagged = [t for s in tagger.tag_sents(_words(GOLD)) for _, t in s]
    assert after != before and after == str(NLTKConfusion([t for s in GOLD for _, t in s],
                                                           tagged))


@pytest.mark.parametrize("options", [{}, {"show_percents": True}, {"values_in_chart": False},
                                     {"truncate": 3}, {"sort_by_count": True}])
def test_confusion_matrix_prints_as_nltks(options):
    ref = "DET NN VB DET JJ NN NN IN DET NN , . NN".split() * 3 + ["VB"] * 11
    test = "DET VB VB DET NN NN NN IN DET NN . . NN".split() * 3 + ["NN"] * 11
    ours, theirs = ConfusionMatrix(ref, test), NLTKConfusion(ref, test)
    assert ours.pretty_format(**options) == theirs.pretty_format(**options)
    assert ours.key() == theirs.key() and ours["VB", "NN"] == theirs["VB", "NN"] == 11
    assert ours.evaluate() == theirs.evaluate()
    with pytest.raises(ValueError, match="same length"):
        ConfusionMatrix(ref, test[:-1])


def test_the_scores_check_gold(pair):
    _, ours = pair
    with pytest.raises(ValueError, match="no tokens"):
        ours.confusion([[]])
    with pytest.raises(TypeError, match=r"gold\[0\]\[0\]"):
        ours.precision([[("a", 1)]])


def test_a_subclass_of_taggeri_is_not_needed(pair):
    """Every scoring method of NLTK's TaggerI is on ours."""
    _, ours = pair
    wanted = {n for n in vars(TaggerI) if not n.startswith("_") and n != "tag_sents"}
    assert {n for n in wanted if not callable(getattr(ours, n, None))} == set()


# ---------------------------------------------------------------- loc and lang

@pytest.fixture
def data_root(tmp_path, monkeypatch):
    """A private NLTK data folder, first on nltk.data.path (NLTK's sandbox allows it)."""
    root = tmp_path / "nltk_data"
    root.mkdir(mode=0o700)
    monkeypatch.setattr(nltk.data, "path", [str(root)] + nltk.data.path)
    return root


def _zip_folder(folder, archive, inner):
    with zipfile.ZipFile(archive, "w") as out:
        for path in sorted(folder.iterdir()):
            out.write(path, f"{inner}/{path.name}" if inner else path.name)


def test_a_relative_loc_is_an_nltk_resource_name(pair, data_root, monkeypatch, tmp_path):
    theirs, ours = pair
    ours.to_nltk_json(data_root / "taggers" / "mine", lang="eng")
    monkeypatch.chdir(tmp_path)  # (not a path from here: tmp_path holds no taggers/)
    for loc in ("taggers/mine/", "taggers/mine"):
        nltks = NLTKTagger(loc=loc)
        mine = PerceptronTagger(loc=loc)
        assert mine.weights == nltks.model.weights == ours.weights
        assert PerceptronTagger.from_nltk_json(loc).tagdict == nltks.tagdict
    with pytest.raises(LookupError, match="taggers/nothing"):
        PerceptronTagger(loc="taggers/nothing/")


def test_zipped_models_are_read(pair, data_root, tmp_path):
    """NLTK's downloader leaves taggers/x.zip holding x/: find() reads it, and so do we,
    by resource name, by loc=None, and from an explicit .zip path (which NLTK refuses)."""
    _, ours = pair
    folder = tmp_path / "plain"
    ours.to_nltk_json(folder, lang="eng")
    (data_root / "taggers").mkdir()
    _zip_folder(folder, data_root / "taggers" / "averaged_perceptron_tagger_eng.zip",
                "averaged_perceptron_tagger_eng")
    nltks = NLTKTagger()  # NLTK's own default load, from the zip
    for tagger in (PerceptronTagger(), PerceptronTagger(
            loc="taggers/averaged_perceptron_tagger_eng/"),
            PerceptronTagger.from_nltk_json(
                data_root / "taggers" / "averaged_perceptron_tagger_eng.zip")):
        assert tagger.weights == nltks.model.weights == ours.weights
        assert tagger.tagdict == nltks.tagdict
    _zip_folder(folder, tmp_path / "flat.zip", "")
    assert PerceptronTagger.from_nltk_json(tmp_path / "flat.zip").weights == ours.weights


def test_a_folder_nltk_saved_with_its_default_lang(pair, data_root):
    theirs, _ = pair
    folder = data_root / "saved"
    theirs.save_to_json(loc=str(folder))  # NLTK's default lang: "xxx"
    loaded = PerceptronTagger.from_nltk_json(folder)  # lang=None: the one model there
    assert loaded.lang == "xxx" and loaded.weights == theirs.model.weights
    with pytest.raises(FileNotFoundError) as info:
        PerceptronTagger(loc=folder)  # NLTK's constructor: lang="eng"
    message = str(info.value)
    assert "lang='xxx'" in message and "averaged_perceptron_tagger_eng.weights.json" in message
    theirs.save_to_json(lang="eng", loc=str(folder))
    assert PerceptronTagger.from_nltk_json(folder).lang == "eng"  # eng first


def test_errors_list_what_the_folder_holds(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="is empty"):
        PerceptronTagger.from_nltk_json(tmp_path / "empty")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("x")
    (other / "averaged_perceptron_tagger_eng.weights.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match=r"classes\.json.*holds "
                       r"averaged_perceptron_tagger_eng\.weights\.json, notes\.txt"):
        PerceptronTagger.from_nltk_json(other)
    with pytest.raises(FileNotFoundError, match="no such folder"):
        PerceptronTagger.from_nltk_json(tmp_path / "missing")
    with pytest.raises(ValueError, match="blank"):
        PerceptronTagger.from_nltk_json("  ")


def test_a_resource_name_without_nltk_says_so(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "nltk.data", None)  # import nltk.data fails
    with pytest.raises(LookupError, match="needs nltk installed.*pathlib.Path"):
        PerceptronTagger.from_nltk_json("taggers/averaged_perceptron_tagger_eng/")


def test_an_nltk_path_pointer_is_read(pair, data_root):
    from nltk.data import FileSystemPathPointer

    _, ours = pair
    ours.to_nltk_json(data_root / "m", lang="eng")
    assert PerceptronTagger(loc=FileSystemPathPointer(str(data_root / "m"))).weights == \
        ours.weights


def test_nltk_refuses_our_folder_off_its_path_as_the_docs_say(pair, tmp_path, monkeypatch):
    """docs/tagging.md: NLTK's loader reads an exported folder only under nltk.data.path."""
    _, ours = pair
    folder = tmp_path / "exported"
    ours.to_nltk_json(folder, lang="eng")
    monkeypatch.setattr(nltk.data, "path", [p for p in nltk.data.path
                                            if not str(tmp_path).startswith(p)])
    if not _nltk_sandboxed(folder):
        pytest.skip("this nltk has no path sandbox")
    with pytest.raises(PermissionError):
        NLTKTagger(loc=str(folder))
    nltk.data.path.append(str(folder))
    assert NLTKTagger(loc=str(folder)).model.weights == ours.weights


def _nltk_sandboxed(folder):
    try:
        NLTKTagger(loc=str(folder))
    except PermissionError:
        return True
    return False


# ---------------------------------------------------------------- nltk.pos_tag

def test_pos_tag_served_by_ours(pair, monkeypatch):
    import nltk.tag

    # (NLTK's tag maps are data that is not installed: a stand-in shows pos_tag maps ours)
    monkeypatch.setattr(nltk.tag, "map_tag", lambda source, target, tag: f"{target}:{tag}")
    _, ours = pair
    original = nltk.tag._get_tagger
    words = _words(GOLD[:40])
    with use_for_nltk(ours) as serving:
        assert nltk.pos_tag(words[0]) == ours.tag(words[0])
        assert nltk.pos_tag_sents(words) == ours.tag_sents(words)
        assert nltk.tag.pos_tag(words[1], tagset="universal") == [
            (w, f"universal:{t}") for w, t in ours.tag(words[1])]
        assert serving.tagger is ours
        with pytest.raises(TypeError, match="string"):
            nltk.pos_tag("a string")
    assert nltk.tag._get_tagger is original
    serving.undo()  # again: nothing
    assert nltk.tag._get_tagger is original


def test_use_for_nltk_nests_and_undoes_in_order(pair):
    import nltk.tag

    theirs, ours = pair
    original = nltk.tag._get_tagger
    first = use_for_nltk(ours)
    second = use_for_nltk(theirs)  # any object with tag() will do
    try:
        with pytest.raises(RuntimeError, match="reverse order"):
            first.undo()
        words = _words(GOLD[:1])[0]
        assert nltk.pos_tag(words) == theirs.tag(words)
        second.undo()
        assert nltk.pos_tag(words) == ours.tag(words)
    finally:
        second.undo()
        first.undo()
    assert nltk.tag._get_tagger is original
    with pytest.raises(ValueError, match="lang"):
        use_for_nltk(ours, lang="fra")
    with pytest.raises(TypeError, match="tag"):
        use_for_nltk(object())
