"""The layers, read from the source so they cannot rot (ARCHITECTURE.md, "Layers").

Bottom to top: ``shared_schema`` <- ``redline`` <- ``summarize`` <- ``review`` (batch work) <-
``redline_cli`` (the command lines).  A module may import its own package and the packages
below it, never one above; the one exception is the pair of ``python -m`` entry shims
(``redline/__main__.py``, ``summarize/__main__.py``), which import the CLI's ``main``.  No
installed package imports the test kit, ``shared_schema`` needs nothing but pydantic, and no
two modules import each other, directly or round a circle -- imports inside functions count
(a lazy import is still a dependency); imports only for the type checker
(``if TYPE_CHECKING:``) count for the layers but not as a circle.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LAYERS = ("shared_schema", "redline", "summarize", "review", "redline_cli")  # bottom to top
RANK = {name: i for i, name in enumerate(LAYERS)}
ENTRY_SHIMS = {"redline.__main__", "summarize.__main__"}  # python -m redline / summarize
CLI = "redline_cli"
NOT_INSTALLED = ("tests", "testing", "benchmarks", "examples")  # the test kit, measurements, examples
SHARED_SCHEMA_NEEDS = {"pydantic", "pydantic_core"}


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # the imported module (or the package, for a name taken from its __init__)
    line: int
    typing_only: bool  # under ``if TYPE_CHECKING:``

    def __str__(self) -> str:
        return f"{self.module} (line {self.line}) imports {self.target}"


def _module_files() -> dict[str, Path]:
    files: dict[str, Path] = {}
    for package in LAYERS:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            files[".".join(parts)] = path
    return files


MODULES = _module_files()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    base = package.split(".")
    if node.level > 1:
        base = base[: -(node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _imports_of(module: str, path: Path) -> Iterator[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

    def walk(node: ast.AST, typing_only: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield Import(module, alias.name, child.lineno, typing_only)
            elif isinstance(child, ast.ImportFrom):
                source = _resolve(module, path, child)
                for alias in child.names:
                    name = f"{source}.{alias.name}"  # ``from pkg import submodule``
                    yield Import(module, name if name in MODULES else source, child.lineno, typing_only)
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                yield from walk(ast.Module(body=child.body, type_ignores=[]), True)
                yield from walk(ast.Module(body=child.orelse, type_ignores=[]), typing_only)
            else:  # any depth: function bodies, try/except ImportError, ...
                yield from walk(child, typing_only)

    yield from walk(tree, False)


IMPORTS = [imp for module, path in MODULES.items() for imp in _imports_of(module, path)]


def _top(name: str) -> str:
    return name.partition(".")[0]


def test_every_installed_package_has_a_layer() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    installed = {p.rstrip("*") for p in config["tool"]["setuptools"]["packages"]["find"]["include"]}
    assert installed == set(LAYERS), "a package is installed without a place in LAYERS (or the reverse)"
    checked = set(config["tool"]["mypy"]["packages"])
    kit = {"tests", "testing", "examples"}
    assert checked == set(LAYERS) | kit, "every layer (and the test kit, the examples) is type-checked"
    scripts = config["project"]["scripts"]
    assert {_top(target) for target in scripts.values()} == {CLI}, "the console scripts are the CLI's"


def test_the_walk_finds_the_imports_it_must() -> None:
    # the checks below are only as good as the import walk: it resolves relative, lazy and
    # ``from package import submodule`` imports, and sees the entry shims' upward import
    found = {(imp.module, imp.target) for imp in IMPORTS}
    assert ("redline.__main__", "redline_cli.redline") in found
    assert ("redline.apply", "redline.verify") in found  # relative: from .verify import ...
    assert ("review.job", "summarize.check") in found  # inside a function
    assert ("redline_cli.redline", "redline.mcp_server") in found  # inside a function
    assert any(imp.typing_only for imp in IMPORTS)


def test_nothing_imports_upward() -> None:
    upward = []
    for imp in IMPORTS:
        own, other = _top(imp.module), _top(imp.target)
        if other not in RANK or RANK[other] <= RANK[own]:
            continue
        if imp.module in ENTRY_SHIMS and other == CLI:
            continue  # ``python -m redline`` / ``python -m summarize``: the one allowed upward import
        upward.append(str(imp))
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_the_entry_shims_only_start_the_cli() -> None:
    for shim in sorted(ENTRY_SHIMS):
        targets = {imp.target for imp in IMPORTS if imp.module == shim}
        assert targets <= {"sys", f"{CLI}.{shim.partition('.')[0]}"}, (shim, targets)


def test_the_product_imports_no_test_kit() -> None:
    bad = [str(imp) for imp in IMPORTS if _top(imp.target) in NOT_INSTALLED]
    assert not bad, "installed packages import the test kit:\n" + "\n".join(bad)


def test_shared_schema_needs_only_pydantic() -> None:
    outside = sorted(
        {
            str(imp)
            for imp in IMPORTS
            if _top(imp.module) == "shared_schema"
            and _top(imp.target) not in sys.stdlib_module_names
            and _top(imp.target) not in SHARED_SCHEMA_NEEDS | {"shared_schema", "__future__"}
        }
    )
    assert not outside, "\n".join(outside)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_circle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(edges) == [["a", "b", "c"]]


def test_no_import_cycles() -> None:
    edges: dict[str, set[str]] = {module: set() for module in MODULES}
    for imp in IMPORTS:
        if imp.target in MODULES and imp.target != imp.module and not imp.typing_only:
            edges[imp.module].add(imp.target)
    cycles = _cycles(edges)
    assert not cycles, "modules that import each other: " + "; ".join(" <-> ".join(c) for c in cycles)
