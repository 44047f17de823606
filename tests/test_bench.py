"""The benchmark scripts of bench/ run in their quick mode and write their JSON.

They measure nothing here (the quick sets fit in cache, and tests never assert on time);
this only keeps them working as the package changes, so that bench/README.md's commands do
what it says. They need the compiled core, and the repository's bench/ beside the tests.
"""
import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest
from conftest import NO_EXTENSIONS

BENCH = pathlib.Path(__file__).resolve().parents[1] / "bench"

pytestmark = [
    pytest.mark.skipif(NO_EXTENSIONS, reason="the benchmarks time the C core"),
    pytest.mark.skipif(not BENCH.is_dir(), reason="no bench/ beside the tests"),
]


@pytest.mark.parametrize("script,args,keys", [
    ("bench_linear.py", ["--quick", "--repeat", "2"], {"cases", "goals"}),
    ("bench_kernels.py", ["--quick", "--repeat", "1"], {"conjunction", "goals", "threads"}),
    ("bench_kernel_perceptron.py", ["--quick", "--repeat", "1"], {"training", "prediction"}),
    ("bench_tagger.py", ["--quick"], {"taggers", "ratios"}),
    ("bench_tagging.py", ["--quick"], {"systems", "ratios", "goals"}),
    ("bench_sequence.py", ["--quick"], {"results", "ratios"}),
    ("bench_features.py", ["--quick"], {"results", "ratios"}),
    ("bench_import.py", ["--quick"], {"medians", "ratio", "goals"}),
    ("bench_per_call.py", ["--quick"], {"cases", "goals"}),
    ("bench_crfsuite.py", ["--quick"], {"results", "ratios", "goals"}),
    ("bench_interrupt_loop.py", ["--signals", "2", "--cases", "tag_sents"],
     {"tagger tag_sents"}),
    pytest.param("bench_crfsuite_tag.py", ["--quick"], {"cases", "goals"},
                 marks=pytest.mark.skipif(importlib.util.find_spec("pycrfsuite") is None,
                                          reason="needs python-crfsuite (the test extra)")),
    pytest.param("bench_river.py", ["--quick"], {"ratios", "goals", "budget"},
                 marks=pytest.mark.skipif(importlib.util.find_spec("river") is None,
                                          reason="needs river (the river extra)")),
    pytest.param("bench_river_interrupt.py", ["--quick"], {"results", "total"},
                 marks=pytest.mark.skipif(importlib.util.find_spec("river") is None,
                                          reason="needs river (the river extra)")),
])
def test_quick_run_writes_its_json(tmp_path, script, args, keys):
    out = tmp_path / "result.json"
    run = subprocess.run([sys.executable, str(BENCH / script), *args, "--json", str(out)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    result = json.loads(out.read_text())
    assert keys <= set(result), sorted(result)
