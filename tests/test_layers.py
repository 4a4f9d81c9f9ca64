"""The layers, read from the source so they cannot rot (ARCHITECTURE.md, "Layers").

Bottom to top: ``shared_schema`` <- ``redline`` <- ``summarize`` <- ``redline_review`` (batch
work) <- ``review`` (its old name, for one release) <- ``redline_cli`` (the command lines).  A
module may import its own package and the packages below it, never one above; the one exception
is the pair of ``python -m`` entry shims (``redline/__main__.py``, ``summarize/__main__.py``),
which import the CLI's ``main``.

Inside ``redline`` the same rule ranks its rooms (:data:`ROOMS`): the foundation modules, then
the folders ``opc/`` < ``text/`` < ``read/`` < ``match/`` < ``write/``, then the flows beside
them (``report``, ``apply``, ``stats``) < ``compare/`` < ``tools/`` and ``prompt``.  Every module
has a room, folders are at most one level deep, and a room imports only rooms at or below its
rank.  A ``_name`` is private to its folder: importing one, or reaching one through a module,
from another folder fails (tests, the test kit and the benchmarks included).

No installed package imports the test kit, ``shared_schema`` needs nothing but pydantic, and no
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

LAYERS = ("shared_schema", "redline", "summarize", "redline_review", "review", "redline_cli")  # bottom to top
RANK = {name: i for i, name in enumerate(LAYERS)}
ENTRY_SHIMS = {"redline.__main__", "summarize.__main__"}  # python -m redline / summarize
CLI = "redline_cli"
NOT_INSTALLED = ("tests", "testing", "benchmarks", "examples", "docs")  # the test kit, measurements, examples
SHARED_SCHEMA_NEEDS = {"pydantic", "pydantic_core"}

# redline's rooms, bottom to top; a room is a folder (redline/read/) or a top-level module
ROOMS: tuple[tuple[str, ...], ...] = (
    ("errors", "exits", "collector", "compat"),  # the foundation: refusals, exit codes, gc, old paths
    ("opc",),  # bytes <-> package
    ("text",),  # strings only
    ("read",),  # package -> view
    ("match",),  # view + entries -> plan | refusal
    ("write",),  # plan -> bytes, read back
    ("report", "results", "apply", "stats"),  # the flows
    ("compare", "proofread"),  # a new version's changes; the contract's own defects
    ("reconcile",),  # the return leg: what the other side did with our redline
    ("tools", "prompt"),
)
ROOM_RANK = {room: rank for rank, rooms in enumerate(ROOMS) for room in rooms}
FACADE = {"redline", "redline.__main__"}  # the public API (lazy) and the -m shim: above every room
KIT = ("tests", "testing", "benchmarks", "examples", "docs")


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # the imported module (or the package, for a name taken from its __init__)
    line: int
    typing_only: bool  # under ``if TYPE_CHECKING:``
    names: tuple[str, ...] = ()  # the names a ``from ... import`` takes

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
                    target = name if name in MODULES else source
                    yield Import(module, target, child.lineno, typing_only, (alias.name,))
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
    kit = {"tests", "testing", "examples", "docs"}
    assert checked == set(LAYERS) | kit, "every layer (and the test kit, the examples) is type-checked"
    scripts = config["project"]["scripts"]
    assert {_top(target) for target in scripts.values()} == {CLI}, "the console scripts are the CLI's"


def test_the_walk_finds_the_imports_it_must() -> None:
    # the checks below are only as good as the import walk: it resolves relative, lazy and
    # ``from package import submodule`` imports, and sees the entry shims' upward import
    found = {(imp.module, imp.target) for imp in IMPORTS}
    assert ("redline.__main__", "redline_cli.redline") in found
    assert ("redline.apply", "redline.match.verify") in found  # relative: from .verify import ...
    assert ("redline_review.job", "summarize.check") in found  # inside a function
    assert ("redline_cli.redline", "redline.tools.mcp_server") in found  # inside a function
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


def _room(module: str) -> str | None:
    """``redline.read.view`` -> ``read``; ``redline.apply`` -> ``apply``; the facade -> None."""
    if module in FACADE or _top(module) != "redline":
        return None
    return module.split(".")[1]


def test_every_redline_module_has_a_room_at_most_one_folder_deep() -> None:
    for module in MODULES:
        if _top(module) != "redline" or module in FACADE:
            continue
        assert module.count(".") <= 2, f"{module}: rooms are at most one folder deep"
        assert _room(module) in ROOM_RANK, f"{module} has no room in ROOMS"
    folders = {
        path.parent.name
        for module, path in MODULES.items()
        if _top(module) == "redline" and module.count(".") == 2
    }
    assert folders <= set(ROOM_RANK), folders - set(ROOM_RANK)


def test_no_room_imports_a_higher_room() -> None:
    upward = []
    for imp in IMPORTS:
        own, other = _room(imp.module), _room(imp.target)
        if own is None or other is None or ROOM_RANK[other] <= ROOM_RANK[own]:
            if own is not None and imp.target == "redline" and set(imp.names) - {"__version__"}:
                upward.append(str(imp))  # the facade's lazy names are for users, not for rooms
            continue
        upward.append(f"{imp} ({own} -> {other})")
    assert not upward, "imports from a higher room:\n" + "\n".join(upward)


def test_the_room_check_sees_an_upward_import() -> None:
    # the check above is only as good as _room: a writing module importing apply is upward
    own, other = _room("redline.write.writer"), _room("redline.apply")
    assert own is not None and other is not None and ROOM_RANK[other] > ROOM_RANK[own]
    assert _room("redline.read.view") == "read" and _room("redline") is None


def _all_files() -> dict[str, tuple[Path, bool]]:
    files: dict[str, tuple[Path, bool]] = {}
    for package in (*LAYERS, *KIT):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts.pop()
            files[".".join(parts)] = (path, is_package)
    return files


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_reaches(files: dict[str, tuple[Path, bool]]) -> list[str]:
    """Every ``_name`` imported from, or reached through, a module of another folder."""

    def folder(module: str) -> str:
        return module if files[module][1] else module.rpartition(".")[0]

    found = []
    for module, (path, is_package) in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = module if is_package else module.rpartition(".")[0]
        bound: dict[str, str] = {}  # a local name -> the module it names
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    source = ".".join([*base, node.module] if node.module else base)
                else:
                    source = node.module or ""
                for alias in node.names:
                    if f"{source}.{alias.name}" in files:
                        bound[alias.asname or alias.name] = f"{source}.{alias.name}"
                    elif _private(alias.name) and source in files and folder(source) != folder(module):
                        found.append(f"{module}:{node.lineno} imports {source}.{alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in files:
                        top = _top(alias.name)
                        bound[alias.asname or top] = alias.name if alias.asname else top
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and _private(node.attr)):
                continue
            chain, value = [], node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in bound:
                target = ".".join([bound[value.id], *reversed(chain)])
                if target in files and folder(target) != folder(module):
                    found.append(f"{module}:{node.lineno} reaches {target}.{node.attr}")
    return found


def test_a_private_name_stays_in_its_folder() -> None:
    found = private_reaches(_all_files())
    assert not found, "private names used from another folder:\n" + "\n".join(found)


def test_the_private_name_check_finds_an_import_and_a_reach(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "m.py").write_text("_x = 1\n", encoding="utf-8")
    (tmp_path / "a" / "n.py").write_text("from .m import _x\n", encoding="utf-8")  # same folder: fine
    (tmp_path / "b" / "o.py").write_text("from a.m import _x\nimport a.m as m\nm._x\n", encoding="utf-8")
    files = {
        name: (tmp_path / Path(*name.split(".")).with_suffix(".py"), False) for name in ("a.m", "a.n", "b.o")
    }
    assert private_reaches(files) == ["b.o:1 imports a.m._x", "b.o:3 reaches a.m._x"]
