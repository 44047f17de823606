"""Write the fixture of tests/test_entities.py: seqeval's answers on generated tag sequences
(the cases of ``test_entities.generate``, seeded), so that the entity scores are compared
with seqeval on every run, where seqeval (which ships no wheel) is not installed.

Run it with the seqeval release the file's name gives installed, from any folder:

    python tests/data/make_seqeval_answers.py tests/data/seqeval-1.2.2.json
"""
import importlib.metadata
import json
import pathlib
import random
import sys

import seqeval.metrics
import seqeval.scheme

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from test_entities import PREFIXES, answers, generate


def theirs(fn):
    if fn == "get_entities":
        return seqeval.metrics.sequence_labeling.get_entities
    return getattr(seqeval.metrics, fn)


def main(path):
    rng = random.Random(20261207)
    cases, table = [], {}  # warnings by their text, once: the answers hold their numbers
    for i in range(48):  # every scheme as often
        case = generate(rng, sorted(PREFIXES)[i % len(PREFIXES)])
        got = answers(case, theirs, lambda name: getattr(seqeval.scheme, name), full=False)
        for name, (result, caught) in got.items():
            got[name] = [result, [table.setdefault(w, len(table)) for w in caught]]
        cases.append({"case": case, "answers": got})
    version = importlib.metadata.version("seqeval")
    text = json.dumps({"seqeval": version, "warnings": list(table), "cases": cases},
                      separators=(",", ":"))
    pathlib.Path(path).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
