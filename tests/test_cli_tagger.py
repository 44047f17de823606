"""perceptron-c train --estimator tagger and perceptron-c tag, run in-process."""
import random

import numpy as np
import pytest

from perceptron_c import cli, io
from perceptron_c.datasets import dump_tagged, load_tagged, make_tagged_sentences
from perceptron_c.sequence import StructuredPerceptron
from perceptron_c.tagging import PerceptronTagger
from perceptron_c.tagging import _cli as _cli_tagger


@pytest.fixture
def corpus(tmp_path):
    """A generated training corpus in both formats, and held-out sentences."""
    sentences = make_tagged_sentences(0, n_sentences=400, n_tags=5, n_symbols=60)
    train, test = sentences[:300], sentences[300:]
    dump_tagged(train, tmp_path / "train.txt")
    dump_tagged(train, tmp_path / "train.conll", format="conll")
    return tmp_path, train, test


def _accuracy(tagged, gold):
    pairs = [(t, g) for s, r in zip(tagged, gold) for (_, t), (_, g) in zip(s, r)]
    return sum(t == g for t, g in pairs) / len(pairs)


def _one_line_error(capsys, *fragments):
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("perceptron-c: error: ")
    assert err.count("\n") == 1 and "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


@pytest.mark.parametrize("fmt", ["slash", "conll"])
def test_train_then_tag_round_trip(corpus, capsys, fmt):
    tmp, train, test = corpus
    data = tmp / ("train.txt" if fmt == "slash" else "train.conll")
    model = tmp / "tagger.npz"
    assert cli.main(["train", str(data), "--estimator", "tagger", "-o", str(model)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("trained PerceptronTagger on 300 sentences") and err == ""
    assert "epochs=5 " in out and "train_accuracy=" in out and str(model) in out

    random.seed(0)  # the CLI's default seed gives the API's model, random put back after
    expected = PerceptronTagger(load=False)
    expected.train(train, nr_iter=5)
    state = random.getstate()
    loaded = PerceptronTagger.load(model)
    assert loaded.weights == expected.weights and loaded.tagdict == expected.tagdict

    words = [[w for w, _ in s] for s in test]
    plain = tmp / "plain.txt"
    plain.write_text("\n".join(" ".join(s) for s in words) + "\n", encoding="utf-8")
    assert cli.main(["tag", str(model), str(plain)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and random.getstate() == state
    tagged = [[tuple(tok.rsplit("/", 1)) for tok in line.split()] for line in out.splitlines()]
    assert tagged == expected.tag_sents(words)
    assert _accuracy(tagged, test) > 0.8


def test_tag_gold_reports_accuracy_in_both_formats(corpus, capsys):
    tmp, train, test = corpus
    model = tmp / "m.npz"
    assert cli.main(["train", str(tmp / "train.txt"), "--estimator", "tagger", "-o", str(model),
                     "--nr-iter", "3", "--seed", "7"]) == 0
    assert "epochs=3 " in capsys.readouterr().out
    tagger = PerceptronTagger.load(model)
    expected = tagger.tag_sents([[w for w, _ in s] for s in test])
    dump_tagged(test, tmp / "gold.txt")
    dump_tagged(test, tmp / "gold.conll", format="conll")
    for name, fmt in (("gold.txt", "text"), ("gold.conll", "conll")):
        out_path = tmp / f"out-{fmt}"
        assert cli.main(["tag", str(model), str(tmp / name), "--format", fmt, "--gold",
                         "-o", str(out_path)]) == 0
        out, err = capsys.readouterr()
        assert out == "" and err.startswith("accuracy ")
        assert float(err.split()[1]) == pytest.approx(_accuracy(expected, test), abs=1e-4)
        read_fmt = "slash" if fmt == "text" else "conll"
        assert load_tagged(out_path, read_fmt) == [list(s) for s in expected]


def test_conll_input_and_blank_lines(corpus, capsys):
    tmp, _, _ = corpus
    model = tmp / "m.npz"
    assert cli.main(["train", str(tmp / "train.conll"), "--estimator", "tagger",
                     "-o", str(model), "--max-iter", "2"]) == 0
    capsys.readouterr()
    tagger = PerceptronTagger.load(model)
    (tmp / "in.conll").write_text("Mapeut\textra\ndopeat\n\n\n\nvipaum\n", encoding="utf-8")
    assert cli.main(["tag", str(model), str(tmp / "in.conll"), "--format", "conll"]) == 0
    out = capsys.readouterr().out
    first, second = tagger.tag(["Mapeut", "dopeat"]), tagger.tag(["vipaum"])
    assert out == "".join(f"{w}\t{t}\n" for w, t in first) + "\n" + \
        "".join(f"{w}\t{t}\n" for w, t in second) + "\n"
    (tmp / "in.txt").write_text("Mapeut dopeat\n\n  \nvipaum", encoding="utf-8")
    assert cli.main(["tag", str(model), str(tmp / "in.txt")]) == 0
    lines = capsys.readouterr().out.split("\n")
    assert lines == [" ".join(f"{w}/{t}" for w, t in first), "", "",
                     " ".join(f"{w}/{t}" for w, t in second), ""]


def test_unicode_words(tmp_path, capsys):
    sentences = [[("Ünïcode", "NNP"), ("日本語", "NN"), ("a\u00a0b", "NN"), ("ça", "PRP"),
                  ("1/2", "CD"), ("😀", "SYM")]] * 30
    dump_tagged(sentences, tmp_path / "u.txt")
    model = tmp_path / "u.npz"
    assert cli.main(["train", str(tmp_path / "u.txt"), "--estimator", "tagger",
                     "-o", str(model)]) == 0
    assert "train_accuracy=1.0000" in capsys.readouterr().out
    (tmp_path / "text.txt").write_text("Ünïcode 日本語 a\u00a0b ça 1/2 😀\n", encoding="utf-8")
    out_path = tmp_path / "tagged.txt"
    assert cli.main(["tag", str(model), str(tmp_path / "text.txt"), "-o", str(out_path)]) == 0
    assert load_tagged(out_path) == [sentences[0]]


def test_verbose_prints_one_line_per_epoch(corpus, capsys):
    tmp, _, _ = corpus
    assert cli.main(["train", str(tmp / "train.txt"), "--estimator", "tagger",
                     "-o", str(tmp / "m"), "--nr-iter", "3", "-v"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3
    for epoch, line in enumerate(err, start=1):
        assert line.startswith(f"[PerceptronTagger] epoch {epoch}: ") and "mistakes /" in line


def test_errors_are_one_line(corpus, capsys):
    tmp, _, _ = corpus
    model = tmp / "m.npz"
    train = ["train", str(tmp / "train.txt"), "--estimator", "tagger", "-o", str(model)]
    bad = tmp / "bad.txt"
    bad.write_text("the/DT cat/NN\na/DT dog\n", encoding="utf-8")
    assert cli.main(["train", str(bad), "--estimator", "tagger", "-o", str(model)]) == 2
    _one_line_error(capsys, "bad.txt:2", "has no tag")
    assert cli.main(["train", str(tmp / "absent.txt"), "--estimator", "tagger",
                     "-o", str(model)]) == 2
    _one_line_error(capsys, "absent.txt")
    for extra, fragment in ((["--average"], "--average"), (["--no-intercept"], "--no-intercept"),
                            (["--nr-iter", "-1"], "--nr-iter"), (["--seed", "-2"], "--seed"),
                            (["--param", "max_iter=3"], "lang=CODE")):
        assert cli.main(train + extra) == 2
        _one_line_error(capsys, fragment)
    assert not model.exists()
    assert cli.main(["train", str(tmp / "train.txt"), "-o", str(model), "--format",
                     "conll"]) == 2
    _one_line_error(capsys, "--format does not apply")

    assert cli.main(train) == 0
    capsys.readouterr()
    assert cli.main(["predict", str(model), str(tmp / "train.txt")]) == 2
    _one_line_error(capsys, "PerceptronTagger", "perceptron-c tag")
    (tmp / "latin1.txt").write_bytes("caf\xe9 au lait\n".encode("latin-1"))
    assert cli.main(["tag", str(model), str(tmp / "latin1.txt")]) == 2
    _one_line_error(capsys, "latin1.txt")
    assert cli.main(["tag", str(model), str(tmp)]) == 2
    _one_line_error(capsys, "directory")
    assert cli.main(["tag", str(model), str(bad), "--gold"]) == 2
    _one_line_error(capsys, "bad.txt:2")


def _sentence_model(folder):
    """The path of a saved StructuredPerceptron (a model of sentences of rows), seq.npz."""
    structured = StructuredPerceptron(max_iter=2).fit(np.eye(4), [0, 1, 0, 1], [2, 2])
    return io.save_model(structured, folder / "seq.npz")


def test_tag_refuses_other_models(tmp_path, capsys):
    path = _sentence_model(tmp_path)
    (tmp_path / "t.txt").write_text("a b\n", encoding="utf-8")
    assert cli.main(["tag", path, str(tmp_path / "t.txt")]) == 2
    _one_line_error(capsys, "a StructuredPerceptron model, not a PerceptronTagger")
    (tmp_path / "junk.npz").write_bytes(b"not a model")
    assert cli.main(["tag", str(tmp_path / "junk.npz"), str(tmp_path / "t.txt")]) == 2
    _one_line_error(capsys, "junk.npz")


def test_predict_refuses_a_sentence_model(tmp_path, capsys):
    """A data file has no sentence boundaries: predict decoded all its rows as one sentence."""
    path = _sentence_model(tmp_path)
    (tmp_path / "rows.csv").write_text("1,0,0,0\n0,1,0,0\n", encoding="utf-8")
    assert cli.main(["predict", path, str(tmp_path / "rows.csv")]) == 2
    _one_line_error(capsys, "seq.npz", "labels sentences", "model.predict(X, lengths)")


def test_a_failed_write_leaves_the_output_as_it_was(corpus, capsys, monkeypatch):
    tmp, _, _ = corpus
    model = tmp / "m.npz"
    assert cli.main(["train", str(tmp / "train.txt"), "--estimator", "tagger",
                     "-o", str(model), "--nr-iter", "1"]) == 0
    (tmp / "in.txt").write_text("Mapeut dopeat\n", encoding="utf-8")
    out_path = tmp / "out.txt"
    out_path.write_text("old\n")
    real = _cli_tagger.replace_file

    def full_disk(path, write):
        def half(handle):  # the real replace_file, its writer failing once it has written
            write(handle)
            raise OSError(28, "No space left on device")
        real(path, half)

    monkeypatch.setattr(_cli_tagger, "replace_file", full_disk)
    capsys.readouterr()
    assert cli.main(["tag", str(model), str(tmp / "in.txt"), "-o", str(out_path)]) == 2
    _one_line_error(capsys, "No space left")
    assert out_path.read_text() == "old\n"
    assert [p.name for p in tmp.iterdir() if p.name.startswith("out")] == ["out.txt"]
    assert [p.name for p in tmp.iterdir() if p.name.endswith(".tmp")] == []


def test_train_structured(corpus, capsys):
    tmp, _, test = corpus
    model = tmp / "s.npz"
    assert cli.main(["train", str(tmp / "train.txt"), "--estimator", "tagger", "--structured",
                     "-o", str(model)]) == 0
    assert capsys.readouterr().out.startswith("trained structured PerceptronTagger on 300 ")
    tagger = PerceptronTagger.load(model)
    assert tagger.structured
    tagged = tagger.tag_sents([[w for w, _ in s] for s in test])
    assert _accuracy(tagged, test) > 0.8
    assert cli.main(["train", str(tmp / "train.txt"), "--structured", "-o", str(model)]) == 2
    _one_line_error(capsys, "--structured does not apply")
    assert cli.main(["train", str(tmp / "train.txt"), "--estimator", "tagger", "--structured",
                     "--param", "order=2", "-o", str(model)]) == 0
    assert PerceptronTagger.load(model).order == 2
    capsys.readouterr()
    for bad in (["--param", "order=3"], ["--param", "order=2"]):  # (the second: greedy)
        structured = ["--structured"] if bad[1] == "order=3" else []
        assert cli.main(["train", str(tmp / "train.txt"), "--estimator", "tagger", *structured,
                         *bad, "-o", str(model)]) == 2
        _one_line_error(capsys, "order")


def test_tag_reads_and_export_writes_nltks_json(corpus, capsys, monkeypatch):
    """NLTK's JSON on the command line: tag --nltk-json DIR, export-nltk, import-nltk; NLTK
    reads what export-nltk writes, and tag --nltk-json reads what NLTK writes."""
    import nltk.data
    from nltk.tag.perceptron import PerceptronTagger as NLTKTagger

    tmp, train, test = corpus
    monkeypatch.setattr(nltk.data, "path", [str(tmp)] + nltk.data.path)  # NLTK's sandbox
    model = tmp / "tagger.npz"
    assert cli.main(["train", str(tmp / "train.txt"), "--estimator", "tagger", "-o",
                     str(model)]) == 0
    assert cli.main(["export-nltk", str(model), str(tmp / "json")]) == 0
    out, _ = capsys.readouterr()
    assert "averaged_perceptron_tagger_eng.weights.json" in out
    theirs = NLTKTagger(loc=str(tmp / "json"))
    ours = PerceptronTagger.load(model)
    assert theirs.model.weights == ours.weights and theirs.tagdict == ours.tagdict

    words = [[w for w, _ in s] for s in test]
    plain = tmp / "plain.txt"
    plain.write_text("\n".join(" ".join(s) for s in words) + "\n", encoding="utf-8")
    theirs.save_to_json(loc=str(tmp / "saved"))  # NLTK's default lang, "xxx"
    monkeypatch.chdir(tmp)  # a relative DIR is a path on the command line
    for folder, lang in (("json", []), ("saved", []), ("saved", ["--lang", "xxx"])):
        assert cli.main(["tag", "--nltk-json", folder, *lang, str(plain)]) == 0
        out, err = capsys.readouterr()
        tagged = [[tuple(t.rsplit("/", 1)) for t in line.split()] for line in out.splitlines()]
        assert err == "" and tagged == theirs.tag_sents(words)

    assert cli.main(["import-nltk", "saved", "-o", str(tmp / "back.npz")]) == 0
    assert "averaged_perceptron_tagger_xxx" in capsys.readouterr()[0]
    assert PerceptronTagger.load(tmp / "back.npz").weights == theirs.model.weights

    assert cli.main(["tag", "--nltk-json", "saved", "--lang", "eng", str(plain)]) == 2
    _one_line_error(capsys, "lang='xxx'")
    assert cli.main(["tag", str(model), str(plain), "--nltk-json", "json"]) == 2
    _one_line_error(capsys, "one of them")
    assert cli.main(["tag", str(plain)]) == 2
    _one_line_error(capsys, "--nltk-json")
