"""Sequence data: the HMM sets make_sequences draws, and tagged text files read and written."""
import hashlib
import os

import numpy as np
import pytest

from perceptron_c import FileFormatError
from perceptron_c.datasets import (
    dump_tagged,
    load_tagged,
    make_sequences,
    make_tagged_sentences,
)


def _dense(X):
    return X.toarray() if hasattr(X, "toarray") else np.asarray(X)


def _digest(*arrays):
    hasher = hashlib.sha256()
    for array in arrays:
        hasher.update(np.ascontiguousarray(array).astype("<i8").tobytes())
    return hasher.hexdigest()[:16]


# ----------------------------------------------------------------------------- the generator

def test_same_seed_same_set_and_a_generator_works_like_its_seed():
    a = make_sequences(7, 50, 4, 30, window=1)
    b = make_sequences(np.random.default_rng(7), 50, 4, 30, window=1)
    assert np.array_equal(_dense(a[0]), _dense(b[0]))
    assert np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    c = make_sequences(8, 50, 4, 30, window=1)
    assert not np.array_equal(a[1], c[1])


def test_the_stream_is_pinned():
    """A numpy (or code) change that alters the set drawn from a seed fails here: the sets
    are promised to be the same on every numpy >= 1.23."""
    X, y, lengths, hmm = make_sequences(0, 20, 4, 25, length_range=(3, 9), return_hmm=True)
    assert lengths.tolist()[:8] == PINNED_LENGTHS
    assert y.tolist()[:12] == PINNED_TAGS
    assert hmm["symbols"].tolist()[:12] == PINNED_SYMBOLS
    assert _digest(y, lengths, hmm["symbols"]) == PINNED_DIGEST
    assert make_tagged_sentences(0, 20, 4, 25, length_range=(3, 9))[0] == PINNED_SENTENCE


PINNED_LENGTHS = [6, 9, 4, 6, 3, 5, 9, 7]
PINNED_TAGS = [2, 2, 1, 2, 1, 3, 1, 2, 0, 2, 1, 3]
PINNED_SYMBOLS = [20, 2, 13, 0, 21, 1, 13, 22, 12, 22, 21, 23]
PINNED_DIGEST = "067656d868ed4b19"
PINNED_SENTENCE = [("dipaim", "T2"), ("topaim", "T2"), ("kupaor", "T1"), ("tepaim", "T2"),
                   ("bipaor", "T1"), ("pepaox", "T3")]


@pytest.mark.parametrize("window", [0, 2])
def test_shapes_dtypes_and_lengths(window):
    X, y, lengths = make_sequences(3, 40, 5, 20, length_range=(1, 6), window=window)
    n_tokens = int(lengths.sum())
    assert X.shape == (n_tokens, 20 * (2 * window + 1))
    assert y.shape == (n_tokens,) and y.dtype == np.int64
    assert lengths.dtype == np.int64 and lengths.shape == (40,)
    assert lengths.min() >= 1 and lengths.max() <= 6
    assert _dense(X).dtype == np.float64
    assert set(np.unique(_dense(X)).tolist()) <= {0.0, 1.0}


def test_window_blocks_hold_the_neighbours_symbols_inside_the_sentence_only():
    X, _, lengths, hmm = make_sequences(4, 30, 3, 10, length_range=(1, 5), window=2,
                                        return_hmm=True)
    dense, symbols = _dense(X), hmm["symbols"]
    start = 0
    for length in lengths.tolist():
        for i in range(start, start + length):
            expected = np.zeros(50)
            expected[symbols[i]] = 1
            for k in (1, 2):
                if i - k >= start:
                    expected[(2 * k - 1) * 10 + symbols[i - k]] = 1
                if i + k < start + length:
                    expected[2 * k * 10 + symbols[i + k]] = 1
            assert np.array_equal(dense[i], expected), i
        start += length


def test_every_tag_and_every_symbol_appears():
    X, y, _ = make_sequences(5, 400, 6, 40)
    assert np.array_equal(np.unique(y), np.arange(6))
    assert (_dense(X).sum(axis=0) > 0).all()


def test_string_labels_and_the_model_returned():
    _, y_int, _, hmm = make_sequences(2, 30, 3, 12, return_hmm=True)
    _, y_str, _ = make_sequences(2, 30, 3, 12, labels="str")
    assert y_str.tolist() == [f"T{t}" for t in y_int.tolist()]
    assert hmm["tags"].tolist() == ["T0", "T1", "T2"]
    for name, shape in (("start", (3,)), ("transition", (3, 3)), ("emission", (3, 12))):
        assert hmm[name].shape == shape
        assert np.allclose(hmm[name].sum(axis=-1), 1.0)


def _viterbi(hmm, symbols, lengths):
    with np.errstate(divide="ignore"):
        start, transition, emission = (np.log(hmm[k]) for k in ("start", "transition",
                                                                 "emission"))
    path, begin = [], 0
    for length in lengths.tolist():
        observed = symbols[begin:begin + length]
        score, back = start + emission[:, observed[0]], []
        for symbol in observed[1:]:
            candidates = score[:, None] + transition
            back.append(candidates.argmax(axis=0))
            score = candidates.max(axis=0) + emission[:, symbol]
        tags = [int(score.argmax())]
        for pointers in reversed(back):
            tags.append(int(pointers[tags[-1]]))
        path += tags[::-1]
        begin += length
    return np.array(path)


def test_transitions_matter_viterbi_with_the_true_model_beats_any_per_token_classifier():
    """The best a classifier of the symbol alone can do on this very set (each symbol's
    majority tag) stays well below 100% and below Viterbi with the true HMM."""
    _, y, lengths, hmm = make_sequences(11, 600, 5, 60, return_hmm=True)
    symbols = hmm["symbols"]
    counts = np.zeros((60, 5), dtype=np.int64)
    np.add.at(counts, (symbols, y), 1)
    per_token = (counts.argmax(axis=1)[symbols] == y).mean()
    viterbi = (_viterbi(hmm, symbols, lengths) == y).mean()
    assert per_token < 0.9
    assert viterbi > per_token + 0.05


def test_without_ambiguity_the_symbol_gives_the_tag():
    _, y, _, hmm = make_sequences(1, 100, 4, 20, ambiguity=0.0, return_hmm=True)
    owner = hmm["emission"].argmax(axis=0)
    assert np.array_equal(owner[hmm["symbols"]], y)


def test_tagged_sentences_are_the_same_draw_with_words_for_symbols():
    _, y, lengths, hmm = make_sequences(9, 80, 5, 50, labels="str", return_hmm=True)
    sentences = make_tagged_sentences(9, 80, 5, 50)
    assert [len(s) for s in sentences] == lengths.tolist()
    words = [w for s in sentences for w, _ in s]
    assert [t for s in sentences for _, t in s] == y.tolist()
    lexicon = {}
    for word, symbol in zip(words, hmm["symbols"].tolist()):
        assert lexicon.setdefault(symbol, word) == word  # one word per symbol
    assert len(set(lexicon.values())) == len(lexicon)  # and one symbol per word


def test_words_carry_their_owner_tags_ending_and_t0_is_capitalized():
    _, _, _, hmm = make_sequences(6, 300, 4, 40, ambiguity=0.0, return_hmm=True)
    sentences = make_tagged_sentences(6, 300, 4, 40, ambiguity=0.0)
    endings = {}
    for sentence in sentences:
        for word, tag in sentence:
            assert endings.setdefault(tag, word[-2:]) == word[-2:]
            assert word[0].isupper() == (tag == "T0")
            assert word.isalpha()
    assert len(set(endings.values())) == 4


@pytest.mark.parametrize("kwargs, error, match", [
    ({"n_sentences": 0}, ValueError, "n_sentences must be >= 1"),
    ({"n_sentences": 2.5}, TypeError, "n_sentences must be an integer"),
    ({"n_tags": 1}, ValueError, "n_tags must be >= 2"),
    ({"n_tags": True}, TypeError, "n_tags must be an integer"),
    ({"n_symbols": 3}, ValueError, "n_symbols must be >= n_tags=5"),
    ({"length_range": (0, 4)}, ValueError, r"length_range\[0\] must be >= 1"),
    ({"length_range": (5, 4)}, ValueError, "shortest <= longest"),
    ({"length_range": 5}, TypeError, "length_range must be a pair"),
    ({"ambiguity": 1.5}, ValueError, "ambiguity must be a number in"),
    ({"ambiguity": "x"}, ValueError, "ambiguity must be a number in"),
    ({"window": -1}, ValueError, "window must be >= 0"),
    ({"labels": "names"}, ValueError, "labels must be 'int' or 'str'"),
])
def test_bad_arguments_are_named(kwargs, error, match):
    arguments = {"n_sentences": 3, "n_tags": 5, "n_symbols": 10, **kwargs}
    with pytest.raises(error, match=match):
        make_sequences(0, **arguments)
    if "window" not in kwargs and "labels" not in kwargs:
        with pytest.raises(error, match=match):
            make_tagged_sentences(0, **arguments)


# ----------------------------------------------------------------------------- tagged files

TRICKY = [[("1/2", "CD"), ("and/or", "CC"), ("naïve", "JJ"), ("東京", "NNP"), ("a\u00a0b", "X")],
          [("C#", "NN"), ("#hash", "NN"), (".", ".")]]


@pytest.mark.parametrize("format", ["slash", "conll"])
def test_round_trip_of_generated_sentences(tmp_path, format):
    sentences = make_tagged_sentences(3, 60, 6, 80)
    path = tmp_path / "corpus.txt"
    dump_tagged(sentences, path, format=format)
    assert load_tagged(path, format=format) == sentences
    assert load_tagged(path) == sentences  # auto-detected
    assert load_tagged(str(path)) == sentences


def test_round_trip_of_slashes_and_unicode_words(tmp_path):
    dump_tagged(TRICKY, tmp_path / "s.txt")
    assert (tmp_path / "s.txt").read_text(encoding="utf-8").splitlines()[0] == \
        "1/2/CD and/or/CC naïve/JJ 東京/NNP a\u00a0b/X"
    assert load_tagged(tmp_path / "s.txt") == TRICKY
    dump_tagged(TRICKY, tmp_path / "c.conll", format="conll", comment=None)
    assert load_tagged(tmp_path / "c.conll", comment=None) == TRICKY


# every character str.split() or str.strip() takes for whitespace but ASCII's, line and
# paragraph separators, the BOM, and plain text between them
UNICODE_SPACES = "\u00a0\u1680\u2000\u2007\u200a\u2028\u2029\u202f\u205f\u3000\u0085" \
                 "\x1c\x1d\x1e\x1f\ufeff"


@pytest.mark.parametrize("format", ["slash", "conll"])
def test_any_unicode_that_is_written_reads_back_equal(tmp_path, format):
    """A word or tag of other whitespace than ASCII's (U+00A0, U+3000, U+0085, ...), or a
    first word starting with U+FEFF, reads back as written (both failed before)."""
    rng = np.random.default_rng(4)
    alphabet = list(UNICODE_SPACES) + ["a", "Z", "é", "東", "/"]
    for trial in range(20):
        sentences = [[("".join(rng.choice(alphabet, rng.integers(1, 4))),
                       "".join(rng.choice(alphabet[:-1], rng.integers(1, 3))))
                      for _ in range(rng.integers(1, 5))] for _ in range(6)]
        if trial % 2:
            sentences[0][0] = ("\ufeff" + sentences[0][0][0], sentences[0][0][1])
        path = tmp_path / f"{trial}.txt"
        dump_tagged(sentences, path, format=format, comment=None)
        assert load_tagged(path, format=format, comment=None) == sentences
    only = [[(c, c) for c in UNICODE_SPACES]]
    dump_tagged(only, tmp_path / "only.txt", format=format, comment=None)
    assert load_tagged(tmp_path / "only.txt", format=format, comment=None) == only


def test_conll_file_written_is_two_tab_columns_with_a_blank_line_after_each_sentence(tmp_path):
    dump_tagged([[("a", "X"), ("b", "Y")], [("c", "Z")]], tmp_path / "c.txt", format="conll")
    assert (tmp_path / "c.txt").read_bytes() == b"a\tX\nb\tY\n\nc\tZ\n\n"


def test_conll_columns_comments_crlf_and_trailing_blank_lines(tmp_path):
    path = tmp_path / "u.conllu"
    path.write_bytes(b"# sent_id = 1\r\n# text = The dog.\r\n"
                     b"1\tThe\tthe\tDET\r\n2\tdog\tdog\tNOUN\r\n3\t.\t.\tPUNCT\r\n\r\n"
                     b"# sent_id = 2\r\n1\tHi\thi\tINTJ\r\n\r\n\r\n\r\n")
    assert load_tagged(path, word_column=1, tag_column=3) == [
        [("The", "DET"), ("dog", "NOUN"), (".", "PUNCT")], [("Hi", "INTJ")]]
    assert load_tagged(path)[1] == [("1", "INTJ")]  # default: the first and the last column


def test_conll_tab_separator_keeps_spaces_in_a_column(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("New York\tNNP\nis\tVBZ\n", encoding="utf-8")
    assert load_tagged(path, separator="\t") == [[("New York", "NNP"), ("is", "VBZ")]]
    with pytest.raises(FileFormatError, match=r"t\.tsv:2: 2 columns, expected 3"):
        load_tagged(path)


CONLL_2003 = ("-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n\n"
              "-DOCSTART- -X- -X- O\nPeter NNP B-NP B-PER\nBlackburn NNP I-NP I-PER\n"
              "-DOCSTART- -X- -X- O\n")


def test_conll_2003_document_marks_are_skipped_and_end_a_sentence(tmp_path):
    path = tmp_path / "eng.train"
    path.write_text(CONLL_2003, encoding="utf-8")
    assert load_tagged(path, format="conll") == [
        [("EU", "B-ORG"), ("rejects", "O")], [("Peter", "B-PER"), ("Blackburn", "I-PER")]]
    kept = load_tagged(path, format="conll", docstart=None)
    assert kept[0] == [("-DOCSTART-", "O")] and len(kept) == 3
    assert kept[2][-1] == ("-DOCSTART-", "O")
    tabbed = tmp_path / "t.tsv"  # with the tab separator the first column is up to a tab
    tabbed.write_text("-DOCSTART-\tO\na b\tX\n", encoding="utf-8")
    assert load_tagged(tabbed, separator="\t") == [[("a b", "X")]]
    assert load_tagged(tabbed, separator="\t", docstart="a") == [
        [("-DOCSTART-", "O"), ("a b", "X")]]


def test_a_document_mark_word_round_trips_with_docstart_none(tmp_path):
    sentences = [[("-DOCSTART-", "O")], [("a", "X")]]
    dump_tagged(sentences, tmp_path / "d.conll", format="conll", docstart=None)
    assert load_tagged(tmp_path / "d.conll", docstart=None) == sentences
    assert load_tagged(tmp_path / "d.conll") == sentences[1:]
    dump_tagged(sentences, tmp_path / "d.txt")  # the slash format has no document marks
    assert load_tagged(tmp_path / "d.txt") == sentences


def test_conll_columns_reads_word_pos_and_ner_at_once(tmp_path):
    path = tmp_path / "eng.train"
    path.write_text(CONLL_2003, encoding="utf-8")
    sentences = load_tagged(path, format="conll", columns=(0, 1, -1))
    assert sentences[1] == [("Peter", "NNP", "B-PER"), ("Blackburn", "NNP", "I-PER")]
    assert load_tagged(path, format="conll", columns=(3, 0))[0] == [("B-ORG", "EU"),
                                                                    ("O", "rejects")]
    pairs = load_tagged(path, format="conll", columns=(0, -1))
    assert pairs == load_tagged(path, format="conll")


@pytest.mark.parametrize("options, error, match", [
    ({"columns": (0, -4)}, FileFormatError,
     r"columns\[0\]=0 and columns\[1\]=-4 are the same column of 4"),
    ({"columns": (0, 4)}, FileFormatError, r"columns\[1\]=4, but the line has 4 columns"),
    ({"columns": ()}, TypeError, "columns must be a non-empty sequence"),
    ({"columns": "03"}, TypeError, "columns must be a non-empty sequence"),
    ({"columns": (0, 1.0)}, TypeError, r"columns\[1\] must be an integer column index"),
    ({"columns": (0, 3), "tag_column": 3}, ValueError, "pass one or the other"),
    ({"docstart": ""}, ValueError, "docstart must be a non-empty string or None"),
])
def test_bad_columns_and_docstart_are_refused(tmp_path, options, error, match):
    path = tmp_path / "eng.train"
    path.write_text(CONLL_2003, encoding="utf-8")
    with pytest.raises(error, match=match):
        load_tagged(path, format="conll", **options)


@pytest.mark.parametrize("text, expected", [
    ("The/DT cat/NN\n", [[("The", "DT"), ("cat", "NN")]]),
    ("\n\n1/2/CD\n", [[("1/2", "CD")]]),
    ("The DT\ncat NN\n", [[("The", "DT"), ("cat", "NN")]]),
    ("# text = a/b\nThe DT\n", [[("The", "DT")]]),
    ("a/ b/X\n", "token 1 'a/' has an empty tag"),  # slash-looking but not: read as CoNLL
    ("The/DT\tB/X\nx y\n", "a.txt:2: token 1 'x' has no tag"),  # slash, by its first line
])
def test_auto_detection_looks_at_the_first_line_with_text(tmp_path, text, expected):
    path = tmp_path / "a.txt"
    path.write_text(text, encoding="utf-8")
    if isinstance(expected, list):
        assert load_tagged(path) == expected
    elif "empty tag" in expected:
        assert load_tagged(path) == [[("a/", "b/X")]]
        with pytest.raises(FileFormatError, match=expected):
            load_tagged(path, format="slash")
    else:
        with pytest.raises(FileFormatError, match=expected):
            load_tagged(path)


def test_auto_detection_by_extension(tmp_path):
    path = tmp_path / "a.conll"
    path.write_text("a/b c/d\n", encoding="utf-8")  # slash-looking, but the name says CoNLL
    assert load_tagged(path) == [[("a/b", "c/d")]]
    assert load_tagged(path, format="slash") == [[("a", "b"), ("c", "d")]]


@pytest.mark.parametrize("text, format, match", [
    ("a/X b/Y\nc/X d\n", "slash", r"f\.txt:2: token 2 'd' has no tag"),
    ("a/X b/Y\n\nc/X /Y\n", "slash", r"f\.txt:3: token 2 '/Y' has an empty word"),
    ("a/X b/\n", "slash", r"f\.txt:1: token 2 'b/' has an empty tag"),
    ("a X\nb Y\n\nc\n", "conll", r"f\.txt:4: 1 columns, expected 2"),
    ("c\na X\n", "conll", r"f\.txt:1: one column 'c'"),
    ("a X 1\nb Y\n", "conll", r"f\.txt:2: 2 columns, expected 3"),
    ("a\tX\nb\t\n", "conll-tab", r"f\.txt:2: column 2 is empty"),
    ("\n \n", "auto", r"f\.txt: no sentences"),
    ("", "conll", r"f\.txt: no sentences"),
    ("# only a comment\n", "conll", r"f\.txt: no sentences"),
    ("a X Y\n", "conll-same", r"f\.txt:1: word_column=0 and tag_column=-3 are the same"),
    ("a X\n", "conll-far", r"f\.txt:1: tag_column=5, but the line has 2 columns"),
])
def test_malformed_files_are_refused_naming_the_line(tmp_path, text, format, match):
    path = tmp_path / "f.txt"
    path.write_text(text, encoding="utf-8")
    options = {"conll-tab": {"format": "conll", "separator": "\t"},
               "conll-same": {"format": "conll", "tag_column": -3},
               "conll-far": {"format": "conll", "tag_column": 5}}.get(format, {"format": format})
    with pytest.raises(FileFormatError, match=match):
        load_tagged(path, **options)


@pytest.mark.parametrize("data, match", [
    (b"a/X\nb\xff/Y\n", r"b\.txt:2: not UTF-8 text \(byte 0xff\)"),
    (b"a/X\r\nb/Y\r\nc\x00/Z\r\n", r"b\.txt:3: a NUL byte"),
    (b"\xff\xfea\x00/\x00X\x00", r"b\.txt: UTF-16 or UTF-32"),
])
def test_bytes_that_are_not_utf8_are_refused_naming_the_line(tmp_path, data, match):
    path = tmp_path / "b.txt"
    path.write_bytes(data)
    with pytest.raises(FileFormatError, match=match):
        load_tagged(path)


def test_a_bom_and_crlf_and_lone_cr_are_read(tmp_path):
    path = tmp_path / "w.txt"
    path.write_bytes("\ufeffa/X b/Y\r\nc/Z\rd/W\r\n\r\n".encode("utf-8"))
    assert load_tagged(path) == [[("a", "X"), ("b", "Y")], [("c", "Z")], [("d", "W")]]


def test_missing_file_directory_and_pipe(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_tagged(tmp_path / "missing.txt")
    with pytest.raises(FileFormatError, match="not a regular file \\(a directory\\)"):
        load_tagged(tmp_path)
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe")
        with pytest.raises(FileFormatError, match="a named pipe"):
            load_tagged(tmp_path / "pipe")


@pytest.mark.parametrize("sentences, format, error, match", [
    ([[]], "slash", ValueError, r"sentences\[0\] is empty"),
    ([[("a b", "X")]], "slash", ValueError, r"sentences\[0\]\[0\]: word 'a b'"),
    ([[("a", "X\n")]], "conll", ValueError, r"sentences\[0\]\[0\]: tag 'X\\n'"),
    ([[("a", "")]], "slash", ValueError, r"tag '' is empty"),
    ([[("a", "X/Y")]], "slash", ValueError, r"tag 'X/Y' holds '/'"),
    ([[("a", "X")], [("#a", "X")]], "conll", ValueError, r"sentences\[1\]\[0\]: word '#a' would"),
    ([[("a", "X"), ("-DOCSTART-", "O")]], "conll", ValueError,
     r"sentences\[0\]\[1\]: word '-DOCSTART-' would read back as a document mark"),
    (["a/X"], "slash", TypeError, r"sentences\[0\] must be a sequence"),
    ([[("a", 1)]], "slash", TypeError, r"sentences\[0\]\[0\] must be a \(word, tag\) pair"),
    ([[("a", "X", "Y")]], "slash", TypeError, r"must be a \(word, tag\) pair"),
    ([[("a", "X")]], "xml", ValueError, "format must be 'slash' or 'conll'"),
])
def test_dump_refuses_what_would_not_read_back_and_keeps_the_old_file(tmp_path, sentences,
                                                                      format, error, match):
    path = tmp_path / "keep.txt"
    path.write_text("old/X\n", encoding="utf-8")
    with pytest.raises(error, match=match):
        dump_tagged(sentences, path, format=format)
    assert path.read_text(encoding="utf-8") == "old/X\n"
    assert os.listdir(tmp_path) == ["keep.txt"]


@pytest.mark.parametrize("kwargs, error, match", [
    ({"format": "csv"}, ValueError, "format must be one of 'auto', 'slash', 'conll'"),
    ({"word_column": 1.0}, TypeError, "word_column must be an integer"),
    ({"tag_column": None}, TypeError, "tag_column must be an integer"),
    ({"separator": ","}, ValueError, "separator must be None"),
    ({"comment": ""}, ValueError, "comment must be a non-empty string or None"),
])
def test_load_bad_arguments_are_named(tmp_path, kwargs, error, match):
    path = tmp_path / "ok.txt"
    path.write_text("a/X\n", encoding="utf-8")
    with pytest.raises(error, match=match):
        load_tagged(path, **kwargs)
