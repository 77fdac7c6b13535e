"""blkc's layers only point down, and no module takes another module's private names.

`LAYERS` is where the layers are defined (docs/architecture.md, "Layers", explains them).
A module may import from its own layer and from layers of a lower rank, never from a
layer above nor from a sibling of the same rank. Every ``import`` counts, at module
level, inside functions and under ``TYPE_CHECKING`` alike: a lazy import is still a
dependency.
"""

from __future__ import annotations

import ast
import os
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Layer:
    """A layer: its name, its rank (lower ranks are beneath) and its modules, by dotted
    prefix (a module belongs to the layer of its longest matching prefix)."""

    name: str
    rank: int
    modules: tuple[str, ...]


LAYERS: tuple[Layer, ...] = (
    # What the language means, without IR.
    Layer(
        "semantics", 0, ("blkc.diagnostics", "blkc.dtypes", "blkc.broadcasting", "blkc.promotion")
    ),
    # The blk and simt IR: types, traits, ops, strictness, IR operands as policy operands.
    Layer("dialects", 1, ("blkc.dialects",)),
    # Rewrites of the IR and their analyses.
    Layer("passes", 2, ("blkc.passes",)),
    # The reference interpreter runs strict IR as the semantics say, without the passes.
    Layer(
        "interpreter",
        2,
        ("blkc.runtime.interpreter", "blkc.runtime.numerics", "blkc.runtime.special_math"),
    ),
    # Code generation, JIT, launching, the kernel cache.
    Layer("runtime", 3, ("blkc.runtime",)),
    # The pipeline, kernels, targets, backends, jit, the frontends and the language.
    Layer("compiler", 4, ("blkc",)),
    # The command-line drivers.
    Layer("tools", 5, ("blkc.tools",)),
)

SEPARATE: tuple[tuple[tuple[str, ...], tuple[str, ...], str], ...] = (
    (
        ("blkc.frontend", "blkc.triton_c", "blkc.language"),
        ("blkc.passes",),
        "a frontend builds IR from the dialect and the semantics; only the pipeline runs passes",
    ),
)
"""Imports forbidden although they point down: (importers, imported, why)."""

PRIVATE_ALLOWED: frozenset[tuple[str, str, str]] = frozenset()
"""(importer, owner, private name) uses tolerated while code is split up, each with a
comment saying why. Empty, and it must only ever shrink back to empty (the NVPTX code
generator on the CPU emitter's internals and the SIMT lowering on the loop lowering's were
the last, until the lowerings were taken apart)."""


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    is_package: bool


@dataclass(frozen=True)
class Problem:
    path: Path
    line: int
    code: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: `{self.code}`: {self.reason}"


def package_dirs(repo: Path) -> dict[str, Path]:
    """The package name to folder mapping that pyproject.toml gives setuptools."""
    with open(repo / "pyproject.toml", "rb") as f:
        mapping = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    return {name: repo / folder for name, folder in mapping.items()}


def find_modules(roots: Mapping[str, Path]) -> dict[str, Module]:
    """Every module under `roots` (package name -> folder) by dotted name; files in folders
    without an ``__init__.py`` (data, scripts) are not modules of the package."""
    found: dict[str, Module] = {}
    for package, folder in roots.items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            if not all(
                (folder.joinpath(*parts[:i]) / "__init__.py").exists() for i in range(len(parts))
            ):
                continue
            is_package = parts[-1] == "__init__"
            name = ".".join((package, *(parts[:-1] if is_package else parts)))
            found[name] = Module(name, path, is_package)
    return found


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layer_of(module: str, layers: Sequence[Layer] = LAYERS) -> Layer:
    """The layer holding `module`: the one with the longest prefix of its name."""
    matches = [(len(p), layer) for layer in layers for p in layer.modules if _within(module, p)]
    assert matches, f"{module} is in no layer: add it to LAYERS"
    return max(matches, key=lambda match: match[0])[1]


@dataclass(frozen=True)
class Import:
    """One blkc module an import statement takes, with the name taken from it (None when
    the module itself is bound)."""

    line: int
    code: str
    module: str
    name: str | None


def _from_base(node: ast.ImportFrom, importer: Module) -> str:
    if not node.level:
        return node.module or ""
    package = importer.name if importer.is_package else importer.name.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def imports(tree: ast.AST, importer: Module, known: Mapping[str, Module]) -> Iterator[Import]:
    """Every blkc module `tree` imports, wherever the statement stands."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _within(alias.name, "blkc"):
                    yield Import(node.lineno, ast.unparse(node), alias.name, None)
        elif isinstance(node, ast.ImportFrom):
            base = _from_base(node, importer)
            if not _within(base, "blkc"):
                continue
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    yield Import(node.lineno, ast.unparse(node), f"{base}.{alias.name}", None)
                else:
                    yield Import(node.lineno, ast.unparse(node), base, alias.name)


def _bound_modules(tree: ast.AST, importer: Module, known: Mapping[str, Module]) -> dict[str, str]:
    """The local names `tree` binds to blkc modules: ``m`` for ``import blkc.x as m`` or
    ``from blkc import x``, ``blkc`` for ``import blkc.x``."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _within(alias.name, "blkc"):
                    local = alias.asname or alias.name.partition(".")[0]
                    bound[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom):
            base = _from_base(node, importer)
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
    return bound


def _dotted(node: ast.expr, bound: Mapping[str, str]) -> str | None:
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, bound)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_uses(
    tree: ast.AST, importer: Module, known: Mapping[str, Module]
) -> Iterator[tuple[int, str, str, str]]:
    """(line, code, owner, name) for each private name of another blkc module that `tree`
    imports (``from blkc.x import _y``) or reads (``x._y``, ``blkc.x._y``)."""
    for imp in imports(tree, importer, known):
        if imp.name is not None and _is_private(imp.name) and imp.module != importer.name:
            yield imp.line, imp.code, imp.module, imp.name
    bound = _bound_modules(tree, importer, known)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            owner = _dotted(node.value, bound)
            if owner in known and owner != importer.name:
                yield node.lineno, ast.unparse(node), owner, node.attr


def check(
    roots: Mapping[str, Path],
    layers: Sequence[Layer] = LAYERS,
    separate: Sequence[tuple[tuple[str, ...], tuple[str, ...], str]] = SEPARATE,
    private_allowed: frozenset[tuple[str, str, str]] = PRIVATE_ALLOWED,
) -> list[Problem]:
    """Every import under `roots` that points up a layer or across to a sibling, that
    `separate` forbids, or that takes a private name of another module."""
    known = find_modules(roots)
    top = Path(os.path.commonpath([folder.parent for folder in roots.values()]))
    problems: set[Problem] = set()
    for module in known.values():
        tree = ast.parse(module.path.read_text(), str(module.path))
        path = module.path.relative_to(top)
        here = layer_of(module.name, layers)
        for imp in imports(tree, module, known):
            there = layer_of(imp.module, layers)
            if there != here and there.rank >= here.rank:
                where = "a higher layer" if there.rank > here.rank else "a sibling layer"
                reason = f"{module.name} ({here.name}) imports {imp.module} ({there.name}), {where}"
                problems.add(Problem(path, imp.line, imp.code, reason))
            for importers, imported, why in separate:
                if any(_within(module.name, p) for p in importers) and any(
                    _within(imp.module, p) for p in imported
                ):
                    problems.add(Problem(path, imp.line, imp.code, f"imports {imp.module}: {why}"))
        for line, code, owner, name in private_uses(tree, module, known):
            if (module.name, owner, name) not in private_allowed:
                reason = f"{module.name} takes the private name {name} of {owner}"
                problems.add(Problem(path, line, code, reason))
    return sorted(problems, key=lambda p: (str(p.path), p.line, p.reason, p.code))


def test_layers_only_point_down_and_no_module_takes_private_names() -> None:
    problems = check(package_dirs(REPO))
    assert not problems, "\n".join(map(str, problems))


def test_every_prefix_in_the_layers_names_a_module() -> None:
    known = find_modules(package_dirs(REPO))
    for layer in LAYERS:
        for prefix in layer.modules:
            assert prefix in known, f"layer {layer.name}: no module {prefix}"


def test_the_private_allow_list_holds_only_uses_still_there() -> None:
    strict = check(package_dirs(REPO), private_allowed=frozenset())
    for importer, owner, name in sorted(PRIVATE_ALLOWED):
        wanted = f"{importer} takes the private name {name} of {owner}"
        assert any(p.reason == wanted for p in strict), (
            f"{importer} no longer takes {owner}.{name}: remove it from PRIVATE_ALLOWED"
        )


def _write_tree(root: Path, files: Mapping[str, str]) -> dict[str, Path]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return {name: root / folder for name, folder in SYNTHETIC_ROOTS.items()}


SYNTHETIC_ROOTS = {"blkc": "compiler", "blkc.dialects": "dialects", "blkc.runtime": "runtime"}
SYNTHETIC = {
    "compiler/__init__.py": "",
    "compiler/dtypes.py": (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from blkc.dialects import blk\n"
    ),
    "compiler/pipeline.py": "from blkc.dialects import blk\n",
    "dialects/__init__.py": "",
    "dialects/blk.py": (
        "def context():\n    from blkc.pipeline import make_context\n    return make_context()\n"
    ),
    "runtime/__init__.py": "",
    "runtime/jit.py": "_HIDDEN = 1\n",
    "runtime/interpreter.py": "from blkc.runtime.jit import _HIDDEN\n",
    "runtime/cache.py": (
        "import blkc.runtime.jit\n"
        "from blkc.runtime import jit as j\n"
        "x = j._HIDDEN + blkc.runtime.jit._HIDDEN\n"
    ),
    "runtime/tables/generate.py": "import blkc.pipeline\n",
}
"""A package tree with one import of each forbidden kind (the script in `tables/`, in no
package, is not checked)."""
SYNTHETIC_LAYERS = (
    Layer("semantics", 0, ("blkc.dtypes",)),
    Layer("dialects", 1, ("blkc.dialects",)),
    Layer("interpreter", 2, ("blkc.runtime.interpreter",)),
    Layer("runtime", 2, ("blkc.runtime",)),
    Layer("compiler", 3, ("blkc",)),
)


def test_the_check_reports_each_forbidden_import_with_its_file_and_line(tmp_path: Path) -> None:
    roots = _write_tree(tmp_path, SYNTHETIC)
    found = [str(p) for p in check(roots, SYNTHETIC_LAYERS, (), frozenset())]
    assert found == [
        "compiler/dtypes.py:3: `from blkc.dialects import blk`: blkc.dtypes (semantics) imports "
        "blkc.dialects.blk (dialects), a higher layer",
        "dialects/blk.py:2: `from blkc.pipeline import make_context`: blkc.dialects.blk "
        "(dialects) imports blkc.pipeline (compiler), a higher layer",
        "runtime/cache.py:3: `blkc.runtime.jit._HIDDEN`: blkc.runtime.cache takes the private "
        "name _HIDDEN of blkc.runtime.jit",
        "runtime/cache.py:3: `j._HIDDEN`: blkc.runtime.cache takes the private name _HIDDEN of "
        "blkc.runtime.jit",
        "runtime/interpreter.py:1: `from blkc.runtime.jit import _HIDDEN`: "
        "blkc.runtime.interpreter (interpreter) imports blkc.runtime.jit (runtime), a sibling "
        "layer",
        "runtime/interpreter.py:1: `from blkc.runtime.jit import _HIDDEN`: "
        "blkc.runtime.interpreter takes the private name _HIDDEN of blkc.runtime.jit",
    ], "\n".join(found)


def test_the_check_honours_separations_and_the_allow_list(tmp_path: Path) -> None:
    roots = _write_tree(tmp_path, SYNTHETIC)
    separate = ((("blkc.pipeline",), ("blkc.dialects",), "no IR here"),)
    allowed = frozenset(
        {
            ("blkc.runtime.cache", "blkc.runtime.jit", "_HIDDEN"),
            ("blkc.runtime.interpreter", "blkc.runtime.jit", "_HIDDEN"),
        }
    )
    found = [p.reason for p in check(roots, SYNTHETIC_LAYERS, separate, allowed)]
    assert "imports blkc.dialects.blk: no IR here" in found
    assert not any("private" in reason for reason in found)
