"""An NLTK user's tagging workflow, end to end, with perceptron_c's tagger swapped in.

Needs: nltk

    python examples/persona_nltk.py

Trains ``perceptron_c.tagging.PerceptronTagger`` where the user trained
``nltk.tag.perceptron.PerceptronTagger`` (on a generated corpus: nothing is downloaded), checks
it learned NLTK's model, scores it with NLTK's ``TaggerI`` methods, exports it as NLTK's JSON
into a private NLTK data folder that NLTK's own tagger loads, reads it back by NLTK resource
name and from a zip, and serves ``nltk.pos_tag``/``pos_tag_sents`` with it. Exits with status
1 if any check fails.
"""
import random
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

import nltk
from nltk.tag.perceptron import PerceptronTagger as NLTKTagger

from perceptron_c.tagging import PerceptronTagger, use_for_nltk

FAILED = []


def check(ok, what):
    print(f"[{'ok' if ok else 'FAILED'}] {what}")
    if not ok:
        FAILED.append(what)


def corpus(seed, n_sentences):
    """English-like tagged sentences from a small grammar (NLTK's corpora need a download)."""
    rng = random.Random(seed)
    words = {"DT": ["the", "a", "every", "The"], "NN": ["cat", "dog", "bank", "run", "idea"],
             "NNS": ["cats", "dogs", "ideas"], "VBD": ["sat", "ran", "saw", "banked"],
             "VB": ["run", "bank", "see"], "JJ": ["big", "red", "well-known", "quiet"],
             "IN": ["on", "in", "with"], "MD": ["will", "can"], "PRP": ["it", "they"],
             "CD": ["1999", "42", "7"], "RB": ["quietly", "well"], ".": [".", "!"]}
    patterns = ["DT JJ NN VBD IN DT NN .", "PRP MD VB DT NNS .", "DT NN VBD CD NNS RB .",
                "PRP VBD DT JJ NN IN CD ."]
    made = []
    for _ in range(n_sentences):
        tags = rng.choice(patterns).split()
        made.append([(rng.choice(words[t]) if rng.random() < 0.9 else
                      f"{rng.choice('bcdfg')}{rng.choice('aeiou')}{rng.choice('lmnr')}"
                      f"{ {'NN': 'tion', 'NNS': 'ions', 'JJ': 'ous', 'RB': 'ly'}.get(t, 'ed')}",
                      t) for t in tags])
    return made


def main():
    train, gold = corpus(0, 1500), corpus(1, 300)
    words = [[w for w, _ in s] for s in gold]

    # 1. the user's training code, with the import swapped
    random.seed(7)
    ours = PerceptronTagger(load=False)
    ours.train(train, nr_iter=5)
    random.seed(7)
    theirs = NLTKTagger(load=False)
    theirs.train(train, nr_iter=5)
    check(ours.weights == theirs.model.weights and ours.tagdict == theirs.tagdict,
          "the same weights and tag dictionary as NLTK's tagger")
    check(ours.tag_sents(words) == theirs.tag_sents(words), "the same tags as NLTK's")

    # 2. NLTK's TaggerI scores
    check(ours.accuracy(gold) == theirs.accuracy(gold), f"accuracy {ours.accuracy(gold):.4f}")
    table = ours.evaluate_per_tag(gold, sort_by_count=True)
    print(table)
    check(table == theirs.evaluate_per_tag(gold, sort_by_count=True),
          "evaluate_per_tag prints NLTK's table")
    check(str(ours.confusion(gold)) == str(theirs.confusion(gold)), "NLTK's confusion matrix")
    check(ours.f_measure(gold) == theirs.f_measure(gold), "NLTK's per-tag F-measure")

    root = Path(tempfile.mkdtemp())  # a private NLTK data folder (NLTK's sandbox wants 0700)
    try:
        # 3. export as NLTK's JSON where NLTK looks, and load it with NLTK's own tagger
        folder = root / "taggers" / "averaged_perceptron_tagger_eng"
        ours.to_nltk_json(folder, lang="eng")
        nltk.data.path.insert(0, str(root))
        nltk_loaded = NLTKTagger()  # NLTK's default load: taggers/averaged_perceptron_tagger_eng/
        check(nltk_loaded.tag_sents(words) == ours.tag_sents(words),
              "NLTK's own PerceptronTagger() loads the exported model")

        # 4. read back as NLTK reads: a resource name, the default, a zip
        by_name = PerceptronTagger(loc="taggers/averaged_perceptron_tagger_eng/")
        by_default = PerceptronTagger()
        archive = root / "model.zip"
        with zipfile.ZipFile(archive, "w") as out:
            for path in folder.iterdir():
                out.write(path, f"averaged_perceptron_tagger_eng/{path.name}")
        by_zip = PerceptronTagger.from_nltk_json(archive)
        check(by_name.weights == by_default.weights == by_zip.weights == ours.weights,
              "loaded by resource name, by default and from a zip")

        # 5. nltk.pos_tag served by ours
        with use_for_nltk(by_name):
            check(nltk.pos_tag(words[0]) == ours.tag(words[0]), "nltk.pos_tag uses ours")
            check(nltk.pos_tag_sents(words) == ours.tag_sents(words),
                  "nltk.pos_tag_sents uses ours")
        nltk.data.path.remove(str(root))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if FAILED:
        print(f"{len(FAILED)} check(s) failed", file=sys.stderr)
        return 1
    print("every check held")
    return 0


if __name__ == "__main__":
    sys.exit(main())
