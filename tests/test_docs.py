"""Every Python block of README.md and docs/*.md runs, each on its own, so no example rots.

A block runs in a fresh namespace, in a temporary directory (examples may write files). A
block that imports an optional package (scikit-learn, scipy, matplotlib) is skipped where
that package is missing. The docs live in the checkout, next to this file.
"""
import importlib.util
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
OPTIONAL = {"sklearn": "scikit-learn", "scipy": "scipy", "matplotlib": "matplotlib",
            "dask": "dask", "distributed": "distributed", "onnxruntime": "onnxruntime",
            "onnx": "onnx", "river": "river", "pandas": "pandas",
            "pycrfsuite": "python-crfsuite"}
# the package's modules that import an optional package: a block importing them needs it
NEEDS = {"perceptron_c.onnx": "onnx", "perceptron_c.river": "river"}
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks():
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 2
            yield pytest.param(path, line, match.group(1),
                               id=f"{path.relative_to(ROOT)}:{line}")


BLOCKS = list(_blocks())


def test_there_are_examples():
    assert len([b for b in BLOCKS if b.values[0].name == "README.md"]) >= 6


@pytest.mark.parametrize("path,line,code", BLOCKS)
def test_block_runs(path, line, code, tmp_path, monkeypatch, capsys):
    wanted = dict(OPTIONAL) | {ours: OPTIONAL[dep] for ours, dep in NEEDS.items()}
    for module, name in wanted.items():
        needed = NEEDS.get(module, module)
        if re.search(rf"^\s*(from|import) {re.escape(module)}\b", code, re.M) and \
                importlib.util.find_spec(needed) is None:
            pytest.skip(f"needs {name}")
    monkeypatch.chdir(tmp_path)
    # line offsets: tracebacks point at the line in the Markdown file
    compiled = compile("\n" * (line - 1) + code, str(path), "exec")
    exec(compiled, {"__name__": "__main__"})
    capsys.readouterr()
