"""Every argument of every function perceptron_c.capi declares is named in its comment block."""
import pathlib
import re

import pytest

import perceptron_c

PACKAGE = pathlib.Path(perceptron_c.__file__).resolve().parent
CIMPORT = re.compile(r"^from\s+perceptron_c\._core\.(\w+)\s+cimport\s+(\([^)]*\)|[^\n]*)", re.M)


def _join(lines, i):
    """The statement starting at line i, joined over lines until its brackets close, and the
    index of its last line."""
    text = lines[i].strip()
    while text.count("(") > text.count(")") and i + 1 < len(lines):
        i += 1
        text += " " + lines[i].strip()
    return text, i


def _split_args(inside):
    """The arguments between a declaration's outer brackets, split at the commas outside any
    bracket (a memoryview's ``[:, ::1]`` holds one); each argument's name is its last word."""
    args, depth, start = [], 0, 0
    for k, ch in enumerate(inside + ","):
        depth += (ch in "([") - (ch in ")]")
        if ch == "," and depth == 0:
            arg = inside[start:k].split("=")[0].strip()
            if arg and arg != "void":
                args.append(re.findall(r"\w+", arg)[-1])
            start = k + 1
    return args


def _above(lines, i):
    """The comment lines right above line i (no blank line between), without their '#'."""
    block = []
    while i > 0 and lines[i - 1].strip().startswith("#"):
        i -= 1
        block.insert(0, lines[i].strip().lstrip("#"))
    return block


def _docstring(lines, i):
    """The docstring that opens the body after line i (a definition), or []."""
    if i + 1 >= len(lines) or not lines[i + 1].strip().startswith('"""'):
        return []
    j = i + 1
    block, closed = [lines[j]], lines[j].count('"""') >= 2
    while not closed and j + 1 < len(lines):
        j += 1
        block.append(lines[j])
        closed = '"""' in lines[j]
    return block


def declarations(text):
    """{name: (argument names, comment block)} of the C functions a .pxd declares: each
    ``cdef ... name(...)`` at the top level and each declaration indented in a ``cdef extern``
    block, over as many lines as its brackets take. The comment block is the comment lines
    right above it plus, for an inline definition, its docstring. C code in a triple-quoted
    string and the bodies of inline functions are skipped."""
    lines = text.splitlines()
    found, extern, in_string, i = {}, False, False, 0
    while i < len(lines):
        line, stripped = lines[i], lines[i].strip()
        if in_string or stripped.startswith('"""'):
            in_string ^= stripped.count('"""') % 2 == 1
            i += 1
            continue
        top = bool(line) and not line[0].isspace()
        if top:
            extern = stripped.startswith("cdef extern")
        decl = (top and stripped.startswith("cdef ") and not extern) or (
            extern and not top and not stripped.startswith("#"))
        if not decl or "(" not in stripped.split("=")[0]:
            i += 1
            continue
        start = i
        statement, i = _join(lines, i)
        head, _, rest = statement.partition("(")
        depth, k = 1, 0
        while depth and k < len(rest):
            depth += {"(": 1, ")": -1}.get(rest[k], 0)
            k += 1
        name = re.findall(r"\w+", head)[-1]
        comment = _above(lines, start)
        if statement.rstrip().endswith(":"):
            comment += _docstring(lines, i)
        found[name] = (_split_args(rest[:k - 1]), "\n".join(comment))
        i += 1
    return found


def _public():
    """[(module, name)] of every name that capi/*.pxd cimports from perceptron_c._core."""
    found = []
    for pxd in sorted((PACKAGE / "capi").glob("*.pxd")):
        for module, names in CIMPORT.findall(pxd.read_text(encoding="utf-8")):
            found += [(module, name) for name in re.findall(r"\w+", re.sub(r"#.*", "", names))]
    return found


def _core_text(module):
    return (PACKAGE / "_core" / f"{module}.pxd").read_text(encoding="utf-8")


def _public_functions():
    """[(module, name, argument names, comment block)] of the public functions (the other
    public names, such as PC_IMPL_AVX2, are constants)."""
    return [(module, name, *declarations(_core_text(module))[name])
            for module, name in _public() if name in declarations(_core_text(module))]


def _undescribed(args, comment):
    """The arguments not named in the comment (as a whole word, case counting: b is not B)."""
    return [a for a in args if not re.search(rf"(?<!\w){re.escape(a)}(?!\w)", comment)]


SAMPLE = '''\
# A header that describes nothing below: a blank line ends it.

# dense rows: data (n x d), fused; out: n floats
cdef void spans(const floating* data, Py_ssize_t n,
                const double[:, ::1] M, double* out=NULL) noexcept nogil

cdef extern from *:
    """
    static int not_a_declaration(int hidden) { return hidden; }
    """
    # the impl's count
    int counted(int impl) noexcept nogil
    int CONSTANT_A, CONSTANT_B
    int pc_none() noexcept nogil


cdef inline int inline_one(int64_t* B, Py_ssize_t lo) noexcept nogil:
    """Sign of the buckets B."""
    return spans(B, lo)
'''


def test_the_parser_reads_declarations_over_lines_in_extern_blocks_and_docstrings():
    found = declarations(SAMPLE)
    assert sorted(found) == ["counted", "inline_one", "pc_none", "spans"]
    assert found["spans"] == (["data", "n", "M", "out"], " dense rows: data (n x d), fused; out: n "
                                                          "floats")
    assert found["counted"] == (["impl"], " the impl's count")
    assert found["pc_none"] == ([], "")
    args, comment = found["inline_one"]
    assert args == ["B", "lo"] and "Sign of the buckets B." in comment
    assert _undescribed(*found["spans"]) == ["M"]
    assert _undescribed(*found["inline_one"]) == ["lo"]


def test_every_public_name_is_a_parsed_function_or_a_constant():
    """A public name the parser finds no declaration for must not be called anywhere (a
    constant); the functions of every capi module are found."""
    functions = {name for _, name, _, _ in _public_functions()}
    for module, name in _public():
        if name not in functions:
            assert not re.search(rf"\b{name}\s*\(", _core_text(module)), name
    assert {"binary_epoch", "multiclass_cached", "conjunction_argmax_rows", "vote_rows",
            "pc_gram_popcount", "limbs_sign", "best_path"} <= functions


@pytest.mark.parametrize("module, name, args, comment", _public_functions(),
                         ids=[name for _, name, _, _ in _public_functions()])
def test_every_argument_of_a_public_function_is_described(module, name, args, comment):
    """The comment lines right above the declaration in perceptron_c/_core/{module}.pxd (or
    its docstring) name each of its arguments."""
    missing = _undescribed(args, comment)
    assert not missing, f"{module}.pxd: {name} does not describe {', '.join(missing)}"
